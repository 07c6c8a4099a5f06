//! A game's WebSocket: the greeting and the state, then each message answered (an `ack` once
//! the event is stored, or an `error`) and every change of the room sent as it comes (the
//! whole state, or with `?changes=1` what a move changed); a
//! connection is rate-limited by its [`MessageBucket`] on the injected clock, and kept alive by pings.

use super::*;
use crate::limits::MessageBucket;

/// Counts a connection out when it ends, however it ends; a finished game nobody watches
/// leaves memory (it is read again from the store when asked for).
struct Presence(Arc<Games>, Arc<RoomHandle>, Option<Color>);

impl Drop for Presence {
    fn drop(&mut self) {
        let (state, handle) = (&self.0, &self.1);
        if handle.presence(self.2, false) > 0 {
            return;
        }
        let over = handle
            .inner
            .try_lock()
            .is_ok_and(|inner| inner.room.phase() == Phase::Over);
        if over {
            let mut rooms = state.rooms.lock().expect("rooms");
            if rooms
                .get(&handle.id)
                .is_some_and(|h| Arc::ptr_eq(h, handle))
            {
                rooms.remove(&handle.id);
            }
        }
    }
}

/// The answer refusing a message.
fn refusal_text(r: &MessageRefusal, id: Option<Value>, version: u64) -> String {
    ServerMessage::Error {
        code: r.code().to_string(),
        message: r.to_string(),
        id,
        version,
    }
    .to_text()
}

pub(super) async fn connection(
    state: Arc<Games>,
    handle: Arc<RoomHandle>,
    seat: Option<Color>,
    changes: bool,
    mut banned: Option<crate::bus::BanWatch>,
    mut socket: WebSocket,
) {
    let _wholes = (!changes).then(|| TakesWholes::new(handle.clone()));
    let mut rx = handle.tx.subscribe();
    let (hello, view) = {
        let inner = handle.inner.lock().await;
        let version = inner.room.version();
        (
            ServerMessage::Hello {
                seat: seat.map(Side::from),
                version,
                lag_allowance_ms: inner.room.referee().clock().lag().as_millis() as u64,
            }
            .to_text(),
            state_text(&inner.room, &handle.id, state.now_ms()),
        )
    };
    if socket.send(Message::Text(hello.into())).await.is_err()
        || socket.send(Message::Text(view.into())).await.is_err()
    {
        return;
    }
    handle.presence(seat, true);
    let _present = Presence(state.clone(), handle.clone(), seat);
    let mut bucket = MessageBucket::new(state.opts.messages_per_second, state.now_ms());
    // Keep-alive: a ping after `ping_interval` without a message from the client; closed
    // after `missed_pings` of them in a row.
    let quiet = state.opts.ping_interval.max(Duration::from_millis(10));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + quiet, quiet);
    let mut missed = 0u32;
    loop {
        tokio::select! {
            _ = ping.tick() => {
                if missed >= state.opts.missed_pings {
                    let _ = socket.send(Message::Close(Some(axum::extract::ws::CloseFrame {
                        code: axum::extract::ws::close_code::AWAY,
                        reason: "no answer to pings".into(),
                    }))).await;
                    break;
                }
                missed += 1;
                if socket.send(Message::Ping(Bytes::new())).await.is_err() {
                    break;
                }
            }
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                missed = 0;
                ping.reset();
                let reply = match msg {
                    Message::Text(_) | Message::Binary(_) if !bucket.take(state.now_ms()) => Some(refusal_text(
                        &MessageRefusal::RateLimited,
                        None,
                        current_version(&handle).await,
                    )),
                    Message::Text(text) => Some(handle_text(&state, &handle, seat, text.as_str()).await),
                    Message::Binary(_) => Some(refusal_text(
                        &MessageRefusal::Malformed(ProtocolError { kind: ProtocolErrorKind::Binary, id: None }.to_string()),
                        None,
                        current_version(&handle).await,
                    )),
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => None,
                };
                if let Some(reply) = reply {
                    if socket.send(Message::Text(reply.into())).await.is_err() {
                        break;
                    }
                }
            }
            () = crate::bus::until_banned(&mut banned) => {
                let _ = socket.send(Message::Close(Some(axum::extract::ws::CloseFrame {
                    code: axum::extract::ws::close_code::POLICY,
                    reason: "banned".into(),
                }))).await;
                break;
            }
            update = rx.recv() => {
                let text: Arc<str> = match update {
                    Ok(Shown::All(t)) => t,
                    Ok(Shown::Moved { change, .. }) if changes => change,
                    Ok(Shown::Moved { whole: Some(t), .. }) => t,
                    // Opened as the change was made: the state as it is now.
                    Ok(Shown::Moved { whole: None, .. }) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        let inner = handle.inner.lock().await;
                        state_text(&inner.room, &handle.id, state.now_ms()).into()
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if socket.send(Message::Text(text.as_ref().into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

async fn current_version(handle: &RoomHandle) -> u64 {
    handle.inner.lock().await.room.version()
}

/// Answers one text message: an `ack` once the event is stored, or an `error`.
async fn handle_text(
    state: &Arc<Games>,
    handle: &Arc<RoomHandle>,
    seat: Option<Color>,
    text: &str,
) -> String {
    if text.len() > state.opts.max_message_bytes {
        return refusal_text(
            &MessageRefusal::TooLarge {
                bytes: text.len(),
                max: state.opts.max_message_bytes,
            },
            None,
            current_version(handle).await,
        );
    }
    let msg = match ClientMessage::parse(text) {
        Ok(m) => m,
        Err(e) => {
            let refusal = MessageRefusal::Malformed(e.to_string());
            return refusal_text(&refusal, e.id, current_version(handle).await);
        }
    };
    let Some(act) = msg.command.act() else {
        let inner = handle.inner.lock().await;
        return state_text(&inner.room, &handle.id, state.now_ms());
    };
    match act_on(state, handle, seat, act, msg.version, msg.think_ms, None).await {
        Ok(version) => ServerMessage::Ack {
            id: msg.id,
            version,
        }
        .to_text(),
        Err((r, version)) => refusal_text(&r, msg.id, version),
    }
}

//! CGOS's viewers on the door: clients that said `v1` and watch the server's games.
//!
//! The dialogue, as zakki/cgos's server runs it (`server-python/cgos/app/cgos.py`,
//! `_handle_player_protocol` and `viewer_respond`; its viewer, `cgosview`, reads it so):
//!
//! - a viewer gives no name and no password: after `v1 <client>` it gets at once a `match`
//!   line for each recent finished game (`match <id> <date> <time> <size> <komi>
//!   <white>(<rating>) <black>(<rating>) <result>`) and each game in play (`match <id> - -
//!   <size> <komi> <white>(<rating>) <black>(<rating>) -`); each game that starts afterwards is
//!   announced the same way, and every game's end is told to every viewer as `gameover <id>
//!   <result> <white's ms used> <black's ms used>`;
//! - `observe <id>` is answered `setup <id> - - <size> <komi> <white> <black> <main ms>
//!   [<move> <ms left>]...` for a game in play, followed by `update <id> <move> <ms left>` for
//!   each move (`resign` too, before the result) and `update <id> <result>` at its end, which
//!   ends the observation; a finished game's `setup` has its date, time and result, an unknown
//!   one is `setup <id> ?`;
//! - the viewer cannot stop observing a game (CGOS has no word for it) other than by leaving:
//!   `quit`, or closing the connection. Other lines are ignored.
//!
//! What the viewer sees comes from the [`Host`]: its news ([`Host::viewer_news`]), its listing
//! ([`Host::listing`]) and each game observed ([`Host::observe`]); every stream is a bounded
//! channel, and a viewer that falls behind one is closed, so that a viewer that does not read
//! never makes the server hold more. On top of CGOS: at most [`DoorConfig::max_observed`]
//! games observed at once, at most [`DoorConfig::observes_per_minute`] requests, and the
//! door's bound on lines nobody asked for.

use std::collections::HashMap;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;

use crate::door::{DoorConfig, Ended, Host, Line, Read};
use crate::protocol::{ClientMessage, Expect, Update, ViewerMessage, ViewerSetup};

/// A game as an observer gets it ([`Host::observe`]).
#[derive(Debug)]
pub enum Observation {
    /// No such game: `setup <id> ?`.
    Unknown,
    /// A finished game: its whole record, with its result (`setup <id> <date> <time> …
    /// <result>`).
    Over(ViewerSetup),
    /// A game in play: its moves so far, and its updates from them on; the last update is
    /// [`Update::Over`]. The channel is bounded: an observer that falls behind is closed.
    Live {
        /// The game as it is (no result).
        setup: ViewerSetup,
        /// Its moves after `setup`'s, then its end.
        updates: broadcast::Receiver<Update>,
    },
}

/// What an observed game's forwarder tells the viewer's loop.
enum Forwarded {
    Update(Update),
    /// The viewer fell behind the game's updates.
    Lagged,
    /// The host stopped telling the game (it ends no other way).
    Closed,
}

/// Updates of the games a viewer observes, merged: each carries its game and the observation's
/// number (an observation asked again replaces the first, whose queued updates are dropped).
const MERGED: usize = 64;

/// A viewer's connection after `v1`, until it ends.
pub(crate) async fn serve<H, R, W>(
    host: &H,
    config: &DoorConfig,
    line: &mut Line<R, W>,
    mut news: broadcast::Receiver<ViewerMessage>,
) -> Ended
where
    H: Host,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    // The news is followed before the listing is read: a game that starts or ends meanwhile is
    // told twice rather than missed.
    for listed in host.listing().await {
        if !line.send(&ViewerMessage::Match(listed)).await {
            return Ended::Left;
        }
    }
    let (merged_tx, mut merged) = mpsc::channel::<(u64, u64, Forwarded)>(MERGED);
    let mut forwarders = JoinSet::new();
    // Observed games: each one's observation number.
    let mut observed: HashMap<u64, (u64, tokio::task::AbortHandle)> = HashMap::new();
    let mut next_observation = 0u64;
    let mut requests = Bucket::new(config.observes_per_minute);
    let mut unasked = 0u32;
    loop {
        while forwarders.try_join_next().is_some() {}
        tokio::select! {
            told = news.recv() => match told {
                Ok(message) => {
                    if !line.send(&message).await {
                        return Ended::Left;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    return Ended::Dropped("the viewer fell behind the news".into())
                }
                Err(broadcast::error::RecvError::Closed) => {
                    return Ended::Dropped("the server stopped telling its games".into())
                }
            },
            Some((game_id, number, forwarded)) = merged.recv() => {
                if observed.get(&game_id).map(|(n, _)| *n) != Some(number) {
                    continue; // an observation replaced since
                }
                match forwarded {
                    Forwarded::Update(update) => {
                        if matches!(update, Update::Over(_)) {
                            observed.remove(&game_id);
                        }
                        if !line.send(&ViewerMessage::Update { game_id, update }).await {
                            return Ended::Left;
                        }
                    }
                    Forwarded::Lagged => {
                        return Ended::Dropped(format!("the viewer fell behind game {game_id}"))
                    }
                    Forwarded::Closed => {
                        observed.remove(&game_id);
                    }
                }
            }
            read = line.read() => {
                let parsed = match read {
                    Read::Closed => return Ended::Left,
                    Read::Line(text) => ClientMessage::parse(&text, Expect::Viewer),
                    Read::Bad(e) => Err(e),
                };
                let asked = match parsed {
                    Ok(ClientMessage::Quit) => return Ended::Left,
                    Ok(ClientMessage::Observe(game_id)) if requests.take() => game_id,
                    Ok(ClientMessage::Observe(_)) => {
                        let info = "too many observe requests: wait a moment";
                        if !line.send(&ViewerMessage::Info(info.into())).await {
                            return Ended::Left;
                        }
                        unasked += 1;
                        if unasked > config.max_unasked_lines {
                            return Ended::Dropped("too many lines".into());
                        }
                        continue;
                    }
                    _ => {
                        unasked += 1;
                        if unasked > config.max_unasked_lines {
                            return Ended::Dropped("too many lines".into());
                        }
                        continue;
                    }
                };
                let answer = match host.observe(asked).await {
                    Observation::Unknown => ViewerMessage::NoSuchGame(asked),
                    Observation::Over(setup) => ViewerMessage::Setup(setup),
                    Observation::Live { .. }
                        if !observed.contains_key(&asked) && observed.len() >= config.max_observed =>
                    {
                        ViewerMessage::Info(format!(
                            "observing at most {} games at once: not game {asked}",
                            config.max_observed
                        ))
                    }
                    Observation::Live { setup, updates } => {
                        next_observation += 1;
                        let number = next_observation;
                        let task = forwarders.spawn(forward(asked, number, updates, merged_tx.clone()));
                        if let Some((_, old)) = observed.insert(asked, (number, task)) {
                            old.abort();
                        }
                        ViewerMessage::Setup(setup)
                    }
                };
                if !line.send(&answer).await {
                    return Ended::Left;
                }
            }
        }
    }
}

/// Passes one observed game's updates on to the viewer's loop, until its end.
async fn forward(
    game_id: u64,
    number: u64,
    mut updates: broadcast::Receiver<Update>,
    to: mpsc::Sender<(u64, u64, Forwarded)>,
) {
    loop {
        let forwarded = match updates.recv().await {
            Ok(update) => Forwarded::Update(update),
            Err(broadcast::error::RecvError::Lagged(_)) => Forwarded::Lagged,
            Err(broadcast::error::RecvError::Closed) => Forwarded::Closed,
        };
        let last = !matches!(forwarded, Forwarded::Update(Update::Move(_)));
        if to.send((game_id, number, forwarded)).await.is_err() || last {
            return;
        }
    }
}

/// A token bucket: `per_minute` requests at once, then one every `60 / per_minute` s.
struct Bucket {
    per_minute: u32,
    tokens: f64,
    at: tokio::time::Instant,
}

impl Bucket {
    fn new(per_minute: u32) -> Bucket {
        Bucket {
            per_minute,
            tokens: f64::from(per_minute),
            at: tokio::time::Instant::now(),
        }
    }

    /// Takes a token if there is one.
    fn take(&mut self) -> bool {
        let now = tokio::time::Instant::now();
        let since = now.saturating_duration_since(self.at);
        self.at = now;
        let cap = f64::from(self.per_minute);
        self.tokens = (self.tokens + since.as_secs_f64() * cap / 60.0).min(cap);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

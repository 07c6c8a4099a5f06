//! The bus: what happened to games (and to the state features share) told to whoever
//! listens, on this server and on every other server on the same database.
//!
//! The games service publishes a [`GameEvent`] after storing it (a game started, changed,
//! finished); the lobby, ratings and tournaments subscribe and react — the games service
//! never calls them. Features publish their own [`BusEvent`]s (the lobby changed, the ratings
//! were refitted) so that every server shows the same.
//!
//! With a store that only this server uses (SQLite) the bus is a tokio broadcast. With a
//! shared one (PostgreSQL) an event is published through the database (`NOTIFY`, delivered at
//! commit to every server listening, this one included), and each server's listener passes
//! what arrives to its local subscribers; a game's `Changed` is announced by the store's
//! `append` itself, once the event is committed, and told to this server's subscribers by the
//! games service once the game it holds has caught up with it (so that a follower that reads the
//! game on hearing of the change never reads it older).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use goref_rules::Outcome;

use crate::room::GameConfig;
use crate::store::{Note, Store};

/// What happened to a game, once stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GameEvent {
    /// A game was created (stored, no event yet).
    Started {
        /// The game.
        id: String,
        /// Its settings: players (accounts), rated or not.
        config: Box<GameConfig>,
    },
    /// An event of the game was stored: it is at `version` now.
    Changed {
        /// The game.
        id: String,
        /// Its version after the event.
        version: u64,
    },
    /// The game is over with `result` (`Void` when closed without one).
    Finished {
        /// The game.
        id: String,
        /// Its settings.
        config: Box<GameConfig>,
        /// The result; SGF `RE` on the wire.
        #[serde(with = "sgf_result")]
        result: Outcome,
    },
}

/// A result as SGF `RE` text on the wire between servers.
mod sgf_result {
    use goref_rules::Outcome;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(result: &Outcome, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&result.to_sgf())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Outcome, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Everything the bus carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "bus", content = "event", rename_all = "snake_case")]
pub enum BusEvent {
    /// A game's news.
    Game(GameEvent),
    /// Who is in the lobby, who waits, or the open challenges changed (read them again).
    Lobby,
    /// The ratings were refitted and stored (read them again).
    Ratings,
    /// A tournament changed.
    Tournament {
        /// Its id.
        id: String,
    },
    /// Events may have been missed (the database's listener connected again): read again
    /// whatever is held.
    Missed,
    /// Account `name` was banned (stored): every server closes its connections
    /// ([`Bus::watch_bans`]; the lobby closes its members).
    Banned {
        /// The account, as stored.
        name: String,
    },
}

/// Subscribers that fall this far behind miss events (and are told `Lagged`).
const CAPACITY: usize = 4096;
/// Bans a connection may fall behind by (it then asks the store whether its account is
/// banned).
const BANS: usize = 64;

/// The bus; see the [module](self).
pub struct Bus {
    /// Everything but games' `Changed` (a few a game).
    tx: broadcast::Sender<BusEvent>,
    /// Games' `Changed` (one a move: many), apart, so that who listens to the rest never
    /// falls behind because of them.
    changes: broadcast::Sender<BusEvent>,
    /// Shared store: the events other servers stored, `(game, version)` (an empty game: some
    /// may have been missed), for the games service, which must not miss one.
    appended: std::sync::Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<(String, u64)>>>,
    /// The names of accounts banned (on any server), apart: what each connection of an
    /// account listens to, woken by nothing else.
    bans: broadcast::Sender<Arc<str>>,
    store: Arc<dyn Store>,
    shared: bool,
}

impl Bus {
    /// The bus of `store`: when the store is shared, a task forwards what the database
    /// announces to the local subscribers. Call within a tokio runtime.
    #[must_use]
    pub fn new(store: Arc<dyn Store>) -> Arc<Bus> {
        let (tx, _) = broadcast::channel(CAPACITY);
        let (changes, _) = broadcast::channel(CAPACITY);
        let notes = store.notes();
        let (appended_tx, appended_rx) = tokio::sync::mpsc::unbounded_channel();
        let bus = Arc::new(Bus {
            tx,
            changes,
            appended: std::sync::Mutex::new(notes.is_some().then_some(appended_rx)),
            bans: broadcast::channel(BANS).0,
            store,
            shared: notes.is_some(),
        });
        if let Some(mut notes) = notes {
            let weak = Arc::downgrade(&bus);
            tokio::spawn(async move {
                while let Some(note) = notes.recv().await {
                    let Some(bus) = weak.upgrade() else { return };
                    let event = match note {
                        Note::Appended { id, seq } => {
                            // Told here by the games service once its room is caught up.
                            let _ = appended_tx.send((id, seq));
                            continue;
                        }
                        Note::Published(payload) => match serde_json::from_str(&payload) {
                            Ok(event) => event,
                            Err(e) => {
                                eprintln!("goref serve: a bus message not understood: {e}");
                                continue;
                            }
                        },
                        Note::Missed => {
                            let _ = appended_tx.send((String::new(), 0));
                            BusEvent::Missed
                        }
                    };
                    bus.tell_here(event);
                }
            });
        }
        bus
    }

    /// Tells this server's subscribers.
    fn tell_here(&self, event: BusEvent) {
        match &event {
            BusEvent::Banned { name } => {
                let _ = self.bans.send(name.as_str().into());
            }
            // Bans may have been stored unheard (the listener connecting, at the start too):
            // no name, so every watch asks the store.
            BusEvent::Missed => {
                let _ = self.bans.send("".into());
            }
            _ => {}
        }
        let _ = self.tx.send(event);
    }

    /// The names of the accounts banned from now on (by any server).
    #[must_use]
    pub fn subscribe_bans(&self) -> broadcast::Receiver<Arc<str>> {
        self.bans.subscribe()
    }

    /// Follows the bans told from now on (by any server), for the account it is then given
    /// ([`BanWatch::of`]): taken before the account's session is checked, so that a ban
    /// stored after the check is heard.
    #[must_use]
    pub fn watch_bans(&self) -> BanWatch {
        BanWatch {
            name: String::new(),
            rx: self.bans.subscribe(),
            store: self.store.clone(),
        }
    }

    /// Whether other servers share this bus (and the store).
    #[must_use]
    pub fn shared(&self) -> bool {
        self.shared
    }

    /// Tells every subscriber, here and (shared store) on the other servers. A game's
    /// `Changed` on a shared store was announced by the store already.
    pub async fn publish(&self, event: BusEvent) {
        if matches!(event, BusEvent::Game(GameEvent::Changed { .. })) {
            if !self.shared {
                let _ = self.changes.send(event);
            }
            return;
        }
        if self.shared {
            let payload = serde_json::to_string(&event).expect("bus events serialise");
            match self.store.publish(payload).await {
                Ok(()) => return,
                Err(e) => eprintln!("goref serve: not told to the other servers: {e:#}"),
            }
        }
        self.tell_here(event);
    }

    /// Tells this server's subscribers (only) of a game's `Changed` that the games service
    /// has caught up with (shared store: an event any server stored, announced by the
    /// database).
    pub(crate) fn changed_here(&self, event: GameEvent) {
        let _ = self.changes.send(BusEvent::Game(event));
    }

    /// Everything published from now on but games' `Changed`.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<BusEvent> {
        self.tx.subscribe()
    }

    /// Games' `Changed` from now on (one a move stored, by any server).
    #[must_use]
    pub fn subscribe_changes(&self) -> broadcast::Receiver<BusEvent> {
        self.changes.subscribe()
    }

    /// Shared store: the events other servers stored, every one, for the games service
    /// (once).
    pub(crate) fn take_appended(
        &self,
    ) -> Option<tokio::sync::mpsc::UnboundedReceiver<(String, u64)>> {
        self.appended.lock().ok()?.take()
    }
}

/// The bans of one account, followed ([`Bus::watch_bans`]).
pub struct BanWatch {
    name: String,
    rx: broadcast::Receiver<Arc<str>>,
    store: Arc<dyn Store>,
}

impl BanWatch {
    /// Returns once the account is banned (never, if it is not). Having missed bans (more
    /// than a connection could hear at once, or the server's listener connecting again: told
    /// as a ban of no name), it asks the store.
    pub async fn banned(&mut self) {
        loop {
            match self.rx.recv().await {
                Ok(name) if name.eq_ignore_ascii_case(&self.name) => return,
                Ok(name) if !name.is_empty() => {}
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    if self.store.is_banned(&self.name).await.unwrap_or(false) {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
            }
        }
    }

    /// The same, following account `name`.
    #[must_use]
    pub fn of(mut self, name: &str) -> BanWatch {
        name.clone_into(&mut self.name);
        self
    }

    /// The account.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Returns once the account `watch` follows is banned; never without one (a connection of
/// no account).
pub async fn until_banned(watch: &mut Option<BanWatch>) {
    match watch {
        Some(w) => w.banned().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_events_read_back_as_written() {
        let config = crate::room::CreateRequest::default().config().unwrap();
        for event in [
            BusEvent::Game(GameEvent::Started {
                id: "a1".into(),
                config: Box::new(config.clone()),
            }),
            BusEvent::Game(GameEvent::Changed {
                id: "a1".into(),
                version: 7,
            }),
            BusEvent::Game(GameEvent::Finished {
                id: "a1".into(),
                config: Box::new(config),
                result: "B+R".parse().unwrap(),
            }),
            BusEvent::Lobby,
            BusEvent::Ratings,
            BusEvent::Tournament { id: "t".into() },
            BusEvent::Missed,
            BusEvent::Banned {
                name: "Mallory".into(),
            },
        ] {
            let text = serde_json::to_string(&event).unwrap();
            assert!(text.len() < 8000, "NOTIFY takes payloads under 8000 bytes");
            assert_eq!(serde_json::from_str::<BusEvent>(&text).unwrap(), event);
        }
    }
}

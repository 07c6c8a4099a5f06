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
}

/// Subscribers that fall this far behind miss events (and are told `Lagged`).
const CAPACITY: usize = 4096;

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
                    let _ = bus.tx.send(event);
                }
            });
        }
        bus
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
        let _ = self.tx.send(event);
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
        ] {
            let text = serde_json::to_string(&event).unwrap();
            assert!(text.len() < 8000, "NOTIFY takes payloads under 8000 bytes");
            assert_eq!(serde_json::from_str::<BusEvent>(&text).unwrap(), event);
        }
    }
}

//! [`Counted`]: a store that counts its failures in the server's [`Metrics`]
//! (`goref_store_errors_total`) and otherwise is the store it wraps, call for call.
//!
//! Every method of [`Store`] is passed on, those with a default too (the shared store's
//! notes, publishing and leadership): a method added to the trait is added here.

use std::sync::Arc;

use goref_rules::Outcome;

use super::{
    Created, GameSummary, NewAccount, Note, Presence, RatedResult, Store, StoreError, StoreFuture,
    StoredChallenge, StoredGame, Taken,
};
use crate::metrics::Metrics;
use crate::room::Event;
use crate::wire::{Account, Rating};

/// A store whose failures are counted; see the [module](self).
pub struct Counted {
    inner: Arc<dyn Store>,
    metrics: Arc<Metrics>,
}

impl Counted {
    /// `inner`, its failures counted in `metrics`.
    #[must_use]
    pub fn new(inner: Arc<dyn Store>, metrics: Arc<Metrics>) -> Counted {
        Counted { inner, metrics }
    }

    /// `call`, counted when it fails (a taken event number is another server's win, not a
    /// failure of the store).
    fn count<'a, T: Send + 'a>(&'a self, call: StoreFuture<'a, T>) -> StoreFuture<'a, T> {
        Box::pin(async move {
            let answer = call.await;
            if let Err(StoreError::Database(_)) = &answer {
                self.metrics.store_failed();
            }
            answer
        })
    }
}

/// Methods passed on to the inner store and counted.
macro_rules! counted {
    ($(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $out:ty;)*) => {
        $(
            fn $name(&self $(, $arg: $ty)*) -> StoreFuture<'_, $out> {
                self.count(self.inner.$name($($arg),*))
            }
        )*
    };
}

impl Store for Counted {
    counted! {
        fn create(&self, game: StoredGame) -> ();
        fn create_limited(&self, game: StoredGame, max_unfinished: usize) -> Created;
        fn append(&self, id: &str, event: &Event, moves: u64) -> ();
        fn finish(&self, id: &str, result: Outcome) -> ();
        fn load(&self, id: &str) -> Option<(StoredGame, Vec<Event>)>;
        fn events_after(&self, id: &str, after: u64) -> Vec<Event>;
        fn unfinished(&self) -> Vec<String>;
        fn started(&self) -> Vec<String>;
        fn due_to_close(&self, unstarted_before_ms: u64, idle_before_ms: u64, limit: usize)
            -> Vec<String>;
        fn list(&self, limit: usize) -> Vec<GameSummary>;
        fn pool_games(&self, pool: &str, from_ms: u64, to_ms: u64, limit: usize)
            -> Vec<GameSummary>;
        fn account(&self, name: &str) -> Option<(Account, String)>;
        fn create_account(&self, account: NewAccount, td: Option<String>) -> Option<Account>;
        fn create_session(&self, token_hash: String, name: String, now_ms: u64) -> ();
        fn session(&self, token_hash: &str) -> Option<Account>;
        fn accounts(&self) -> Vec<Account>;
        fn set_banned(&self, name: &str, banned: bool) -> Option<String>;
        fn is_banned(&self, name: &str) -> bool;
        fn live_games_by_size(&self) -> Vec<super::LiveCount>;
        fn ping(&self) -> ();
        fn rated_results(&self, pool: &str) -> Vec<RatedResult>;
        fn games_of(&self, name: &str, limit: usize) -> Vec<GameSummary>;
        fn live_games_of(&self, name: &str) -> Vec<String>;
        fn save_tournament(&self, id: &str, created_ms: u64, body: String, previous: Option<String>)
            -> bool;
        fn tournaments(&self) -> Vec<String>;
        fn save_ratings(&self, pool: &str, ratings: Vec<Rating>) -> ();
        fn ratings(&self, pool: &str) -> Vec<Rating>;
        fn set_anchor(&self, pool: &str, name: &str, rating: Option<f64>) -> ();
        fn anchors(&self, pool: &str) -> Vec<(String, f64)>;
        fn append_history(&self, pool: &str, points: Vec<(String, crate::wire::RatingPoint)>)
            -> ();
        fn history(&self, pool: &str, name: &str, limit: usize)
            -> Vec<crate::wire::RatingPoint>;
        fn legacy_resumes(&self) -> Vec<u64>;
        fn enter_lobby(&self, presence: Presence, lease_ms: u64) -> ();
        fn set_waiting(&self, conn: &str, on: bool, pools: Vec<String>) -> bool;
        fn stop_waiting(&self, names: Vec<String>) -> ();
        fn leave_lobby(&self, conn: &str) -> ();
        fn renew_lobby(&self, instance: &str, lease_ms: u64) -> ();
        fn expire_lobby(&self, now_ms: u64) -> usize;
        fn lobby(&self, now_ms: u64) -> (Vec<Presence>, Vec<StoredChallenge>);
        fn lobby_connections(&self, name: &str, now_ms: u64) -> usize;
        fn add_challenge(&self, challenge: StoredChallenge, max_each: usize, max_all: usize)
            -> bool;
        fn cancel_challenge(&self, id: &str, by: &str) -> bool;
        fn take_challenge(&self, id: &str, taker: &str) -> Taken;
        fn publish(&self, payload: String) -> ();
    }

    fn notes(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<Note>> {
        self.inner.notes()
    }

    fn leader(&self) -> Option<tokio::sync::watch::Receiver<bool>> {
        self.inner.leader()
    }
}

//! The server's upkeep, in the background: after a (re)start, the games due to close are
//! closed and the started ones resumed (their clocks run again, their timers are armed); then,
//! every `upkeep_interval`, games due to close are closed (never started: `unstarted_expiry`
//! after their creation; abandoned: `abandoned_expiry` after their last event) and rooms
//! nobody holds leave memory (they are read again from the store when asked for).
//!
//! A room is held by the connections to it and by requests in progress (a clock's timer holds
//! only the game's id and reads the room again if it has left); the map of rooms holds one
//! more reference. A room only the map holds can go: nobody can take it without the map's
//! lock, under which this is checked.

use std::sync::Arc;
use std::time::Duration;

use super::{load_room, store_and_apply, Games, RoomHandle};

/// Games looked at in one query.
const BATCH: usize = 1_000;
/// Games closed at the same time.
const AT_ONCE: usize = 32;

pub(super) async fn run(state: Arc<Games>) {
    // The only server on its store leads from the start; with several, the leadership is
    // followed (and taken over) by `follow_leadership`.
    if state.leader.is_none() {
        take_over(&state).await;
    }
    let every = state.opts.upkeep_interval.max(Duration::from_millis(10));
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tick.tick().await;
        if state.leads() {
            close_due(&state).await;
        }
        evict_idle(&state);
    }
}

/// What the server that fires the clocks does when it starts (or takes over from another on
/// the same database): closes the games due to close, resumes the started ones as of the
/// take-over.
pub(super) async fn take_over(state: &Arc<Games>) {
    let t = std::time::Instant::now();
    let at = state.now_ms();
    let closed = close_due(state).await;
    let resumed = state.resume_clocks(at).await;
    if closed + resumed > 0 {
        eprintln!(
            "goref serve: {closed} games closed, {resumed} started games resumed in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Closes every game due to close, a batch at a time; how many it closed.
async fn close_due(state: &Arc<Games>) -> usize {
    let mut total = 0;
    let (unstarted, abandoned) = (
        ms(state.opts.unstarted_expiry),
        ms(state.opts.abandoned_expiry),
    );
    loop {
        let now = state.now_ms();
        let due = state.store.due_to_close(
            now.saturating_sub(unstarted),
            now.saturating_sub(abandoned),
            BATCH,
        );
        let ids = match due.await {
            Ok(ids) => ids,
            Err(e) => {
                eprintln!("goref serve: games due to close not read: {e:#}");
                return total;
            }
        };
        let mut closed = 0;
        // A few at a time, so that the store commits their events together.
        for chunk in ids.chunks(AT_ONCE) {
            let done = futures_util::future::join_all(
                chunk
                    .iter()
                    .map(|id| close(state, id, unstarted, abandoned)),
            );
            for (id, result) in chunk.iter().zip(done.await) {
                match result {
                    Ok(true) => closed += 1,
                    Ok(false) => {}
                    Err(e) => eprintln!("goref serve: game {id} not closed: {e:#}"),
                }
            }
            tokio::task::yield_now().await;
        }
        total += closed;
        if ids.len() < BATCH || closed == 0 {
            return total;
        }
    }
}

/// Closes game `id` if it is due; whether it did.
async fn close(
    state: &Arc<Games>,
    id: &str,
    unstarted: u64,
    abandoned: u64,
) -> anyhow::Result<bool> {
    let Some(handle) = load_room(state, id).await? else {
        return Ok(false);
    };
    let closed = {
        let mut inner = handle.inner.lock().await;
        match inner
            .room
            .prepare_close(state.now_ms(), unstarted, abandoned)
        {
            Some((event, next)) => {
                store_and_apply(state, &handle, &mut inner, event, next).await?;
                true
            }
            None => false,
        }
    };
    evict_if_idle(state, handle);
    Ok(closed)
}

/// Resumes the clocks of every started unfinished game at `at` (an event in its log, when its
/// clock runs from before `at`: [`Games::resume_clocks`]), a few at a time, so that running
/// clocks have their timers; the rooms leave memory again at once (the timers keep only the
/// games' ids). How many games it resumed.
pub(super) async fn resume_started(state: &Arc<Games>, at: u64) -> usize {
    let ids = match state.store.started().await {
        Ok(ids) => ids,
        Err(e) => {
            eprintln!("goref serve: started games not read: {e:#}");
            return 0;
        }
    };
    let mut resumed = 0;
    for chunk in ids.chunks(AT_ONCE) {
        let done = futures_util::future::join_all(chunk.iter().map(|id| async move {
            match load_room(state, id).await {
                Ok(Some(handle)) => {
                    let stored = state.resume_game(&handle, at).await;
                    evict_if_idle(state, handle);
                    stored
                }
                Ok(None) => false,
                Err(e) => {
                    eprintln!("goref serve: game {id} not resumed: {e:#}");
                    false
                }
            }
        }));
        resumed += done.await.into_iter().filter(|&r| r).count();
        tokio::task::yield_now().await;
    }
    resumed
}

/// Takes `handle` out of memory when only the map and this reference hold it.
fn evict_if_idle(state: &Games, handle: Arc<RoomHandle>) {
    let mut rooms = state.rooms.lock().expect("rooms");
    let ours = rooms
        .get(&handle.id)
        .is_some_and(|h| Arc::ptr_eq(h, &handle));
    if ours && Arc::strong_count(&handle) == 2 {
        rooms.remove(&handle.id);
    }
}

/// Takes every room only the map holds out of memory.
fn evict_idle(state: &Games) {
    state
        .rooms
        .lock()
        .expect("rooms")
        .retain(|_, h| Arc::strong_count(h) > 1);
}

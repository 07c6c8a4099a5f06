//! The server's time, injected: every "now" of the server (events' times, clocks shown and
//! flagged, expiries, leases) is read from one [`Clock`], so that tests run it on tokio's
//! paused clock (`tokio::time::pause`, `advance`) instead of sleeping.

/// Where the server reads the time (unix milliseconds).
#[derive(Clone, Debug, Default)]
pub enum Clock {
    /// The system's wall clock (servers on several machines agree as their clocks do).
    #[default]
    Wall,
    /// Unix time `unix_ms` at tokio's instant `at`, moving as tokio's clock moves: on a
    /// paused runtime it moves only when the test advances it (or the runtime is idle).
    Tokio {
        /// Unix ms at `at`.
        unix_ms: u64,
        /// The tokio instant it was read.
        at: tokio::time::Instant,
    },
    /// Set by hand ([`Clock::advance`]): timers still wait on tokio's clock, so a test that
    /// moves this one alone sees no timer fire on its own (tokio's paused clock jumps to the
    /// next timer whenever the runtime waits for a store's thread).
    Manual(std::sync::Arc<std::sync::atomic::AtomicU64>),
}

impl Clock {
    /// A clock that follows tokio's (paused or not), starting at the wall clock's now.
    #[must_use]
    pub fn tokio() -> Clock {
        Clock::Tokio {
            unix_ms: wall_ms(),
            at: tokio::time::Instant::now(),
        }
    }

    /// A clock at unix ms `at` that moves only by [`Clock::advance`].
    #[must_use]
    pub fn manual(at: u64) -> Clock {
        Clock::Manual(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(at)))
    }

    /// Moves a manual clock by `ms` (other clocks: nothing).
    pub fn advance(&self, ms: u64) {
        if let Clock::Manual(at) = self {
            at.fetch_add(ms, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Unix time in microseconds, from the same clock as [`Clock::now_ms`] (a manual clock:
    /// its milliseconds): for durations shorter than a millisecond, such as the relay of a
    /// move ([`crate::metrics`]).
    #[must_use]
    pub fn now_us(&self) -> u64 {
        match self {
            Clock::Manual(at) => at.load(std::sync::atomic::Ordering::SeqCst) * 1_000,
            Clock::Wall => wall_us(),
            Clock::Tokio { unix_ms, at } => {
                let since = tokio::time::Instant::now().saturating_duration_since(*at);
                unix_ms * 1_000 + u64::try_from(since.as_micros()).unwrap_or(u64::MAX / 2)
            }
        }
    }

    /// Unix time in milliseconds.
    #[must_use]
    pub fn now_ms(&self) -> u64 {
        match self {
            Clock::Manual(at) => at.load(std::sync::atomic::Ordering::SeqCst),
            Clock::Wall => wall_ms(),
            Clock::Tokio { unix_ms, at } => {
                let since = tokio::time::Instant::now().saturating_duration_since(*at);
                unix_ms + u64::try_from(since.as_millis()).unwrap_or(u64::MAX / 2)
            }
        }
    }
}

/// The system's unix time in milliseconds.
#[must_use]
pub fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The system's unix time in microseconds.
#[must_use]
pub fn wall_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_tokio_clock_moves_with_tokio_time_only() {
        let clock = Clock::tokio();
        let t0 = clock.now_ms();
        assert_eq!(clock.now_ms(), t0, "paused: nothing moves");
        tokio::time::advance(std::time::Duration::from_millis(1_234)).await;
        assert_eq!(clock.now_ms(), t0 + 1_234);
        let us = clock.now_us();
        tokio::time::advance(std::time::Duration::from_micros(250)).await;
        assert_eq!(clock.now_us(), us + 250, "microseconds too");
    }
}

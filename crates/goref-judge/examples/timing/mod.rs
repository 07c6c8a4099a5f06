//! What the judge's measuring examples share: judging a position N times for the least wall
//! and CPU time.

use std::time::Instant;

use goref_judge::{default_removal, Budget, Disputes, Judge, Removal};
use goref_rules::Game;

/// One position judged `repeat` times (at least once), every block disputed (3.9.2's worst
/// case): the removal, the least wall time in seconds, and the least CPU time of this thread
/// when `threads` is 1 (then every search runs on it, so its CPU time is the judgement's);
/// panics unless every judgement gives the same verdicts.
pub fn judge_least_of(
    game: &Game,
    budget: Budget,
    threads: usize,
    repeat: usize,
) -> (Removal, f64, Option<f64>) {
    let mut first: Option<Removal> = None;
    let mut seconds = f64::INFINITY;
    let mut cpu: Option<f64> = None;
    for _ in 0..repeat.max(1) {
        let start = Instant::now();
        let cpu_start = thread_cpu();
        let judge = Judge::of_game(game, budget).with_threads(threads);
        let removal = default_removal(&judge, Disputes::All);
        seconds = seconds.min(start.elapsed().as_secs_f64());
        let this_cpu = cpu_start.zip(thread_cpu()).map(|(a, b)| b - a);
        match &first {
            None => {
                cpu = this_cpu;
                first = Some(removal);
            }
            Some(first) => {
                cpu = cpu.zip(this_cpu).map(|(a, b)| a.min(b));
                assert_eq!(
                    removal.disputed, first.disputed,
                    "the same verdicts every time"
                );
            }
        }
    }
    let removal = first.expect("judged at least once");
    (removal, seconds, cpu.filter(|_| threads == 1))
}

/// The CPU time this thread has run, in seconds (`CLOCK_THREAD_CPUTIME_ID`: exact, where
/// `/proc`'s counters advance by scheduler ticks), or `None` where it cannot be read.
fn thread_cpu() -> Option<f64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the call to fill.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

//! `memlint watch`: a watcher that spares recall the stat of every record.
//! The client side (asking a watcher, starting and stopping it) is
//! [`client`]; the watcher itself is `daemon` (Linux only).

pub(crate) mod client;
#[cfg(target_os = "linux")]
pub(crate) mod daemon;
pub(crate) mod recall;

pub(crate) use client::*;

/// How long a wait on the watcher (an answer, a question, its cookie)
/// lasts: `default`, or in debug builds, for tests on a loaded machine,
/// `MEMLINT_TEST_WATCH_WAIT_MS` milliseconds (set for the watcher by
/// `watch start` and for the process that asks it).
pub(crate) fn within(default: std::time::Duration) -> std::time::Duration {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("MEMLINT_TEST_WATCH_WAIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return std::time::Duration::from_millis(ms);
    }
    default
}
#[cfg(target_os = "linux")]
pub(crate) use daemon::run;

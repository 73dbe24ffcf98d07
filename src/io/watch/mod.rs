//! `memlint watch`: a watcher that spares recall the stat of every record.
//! The client side (asking a watcher, starting and stopping it) is
//! [`client`]; the watcher itself is `daemon` (Linux only).

pub mod client;
#[cfg(target_os = "linux")]
pub mod daemon;
pub mod recall;

pub use client::*;
#[cfg(target_os = "linux")]
pub use daemon::run;

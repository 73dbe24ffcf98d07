//! `memlint watch`: a watcher that spares recall the stat of every record.
//! The client side (asking a watcher, starting and stopping it) is
//! [`client`]; the watcher itself is `daemon` (Linux only).

pub(crate) mod client;
#[cfg(target_os = "linux")]
pub(crate) mod daemon;
pub(crate) mod recall;

pub(crate) use client::*;
#[cfg(target_os = "linux")]
pub(crate) use daemon::run;

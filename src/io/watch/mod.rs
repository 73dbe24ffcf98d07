//! `memlint watch`: a watcher that spares recall the stat of every record.

pub mod client;

pub use client::*;

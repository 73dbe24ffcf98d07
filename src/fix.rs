//! `check --fix`.

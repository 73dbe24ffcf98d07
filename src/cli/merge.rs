//! `memlint merge-file %O %A %B %P`: git's merge driver protocol. The
//! result goes to `%A`; exit 0 when clean, 1 with conflict markers, 2 when
//! a side cannot be read or the result cannot be written (`%A` is then
//! left as it was). What conflicts is said on standard error, as git's
//! own `CONFLICT` lines are.

use super::args::MergeFileArgs;
use super::exit::Outcome;
use crate::engine::merge::{merge_file, Files, How, Markers};
use std::num::NonZeroU8;
use std::process::ExitCode;

/// Runs `memlint merge-file`.
pub(super) fn run(args: &MergeFileArgs) -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let files = Files {
        base: args.base.clone(),
        ours: args.ours.clone(),
        theirs: args.theirs.clone(),
        path: args.path.clone(),
        cwd,
    };
    let markers = Markers {
        ours: args.ours_label.clone(),
        base: args.base_label.clone(),
        theirs: args.theirs_label.clone(),
        size: NonZeroU8::new(args.marker_size).unwrap_or(NonZeroU8::MIN),
    };
    let shown = args
        .path
        .as_deref()
        .unwrap_or(&args.ours)
        .display()
        .to_string();
    match merge_file(&files, &markers) {
        Err(e) => {
            errln!("memlint merge-file: error: {e}");
            Outcome::Failed.into()
        }
        Ok((outcome, _)) => {
            if let Some(why) = &outcome.fallback {
                errln!("memlint merge-file: {shown} merged line by line: {why}");
            }
            if outcome.merge.conflicts.is_empty() {
                return Outcome::Clean.into();
            }
            let how = match (outcome.how, ()) {
                (How::Blocks, _) => "by block",
                (How::Keys, _) => "by key",
                (How::Binary, _) => "as binary",
                (How::Lines, _) => "by line",
            };
            errln!(
                "CONFLICT (memlint, merged {how}): {shown}: {}",
                outcome.merge.conflicts.join(", ")
            );
            Outcome::Findings.into()
        }
    }
}

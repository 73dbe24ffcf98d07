//! The line-wise three-way merge git does, through gix's text merge
//! driver: for bodies, for a `CONTEXT.md` block changed on both sides, and
//! as the fallback for anything memlint cannot merge by its structure.

use gix::diff::blob::{Algorithm, InternedInput};
use gix::merge::blob::builtin_driver::text::{Conflict, ConflictStyle, Labels, Options};
use gix::merge::blob::Resolution;
use std::num::NonZeroU8;

/// The names written after the conflict markers, and their length.
#[derive(Debug, Clone)]
pub struct Markers {
    /// After `<<<<<<<`: the current side (git's `%X`).
    pub ours: String,
    /// After `|||||||`: the common ancestor (git's `%S`).
    pub base: String,
    /// After `>>>>>>>`: the other side (git's `%Y`).
    pub theirs: String,
    /// How many characters a marker has (git's `%L`, 7 by default).
    pub size: NonZeroU8,
}

impl Default for Markers {
    fn default() -> Self {
        Markers {
            ours: "ours".into(),
            base: "base".into(),
            theirs: "theirs".into(),
            size: NonZeroU8::new(7).unwrap_or(NonZeroU8::MIN),
        }
    }
}

/// Merges `ours` and `theirs` line by line against `base`, as git's
/// default driver does (conflicts kept with markers, in git's `merge`
/// style). Returns the result and whether it holds a conflict.
pub(crate) fn merge(base: &[u8], ours: &[u8], theirs: &[u8], markers: &Markers) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(ours.len().max(theirs.len()));
    let mut input = InternedInput::default();
    let labels = Labels {
        ancestor: Some(markers.base.as_str().into()),
        current: Some(markers.ours.as_str().into()),
        other: Some(markers.theirs.as_str().into()),
    };
    let options = Options {
        diff_algorithm: Algorithm::Myers,
        conflict: Conflict::Keep {
            style: ConflictStyle::Merge,
            marker_size: markers.size,
        },
    };
    let resolution = gix::merge::blob::builtin_driver::text(
        &mut out, &mut input, labels, ours, base, theirs, options,
    );
    (out, resolution == Resolution::Conflict)
}

/// Text (`ours` or `theirs`) wrapped in conflict markers, as one conflict:
/// for a front matter key changed differently on both sides.
pub(crate) fn conflict(ours: &str, theirs: &str, markers: &Markers) -> String {
    let n = usize::from(markers.size.get());
    let line = |c: char, label: &str| {
        let mut s: String = std::iter::repeat_n(c, n).collect();
        if !label.is_empty() {
            s.push(' ');
            s.push_str(label);
        }
        s.push('\n');
        s
    };
    let ends = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    format!(
        "{}{}{}{}{}",
        line('<', &markers.ours),
        ends(ours),
        line('=', ""),
        ends(theirs),
        line('>', &markers.theirs)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_on_different_lines_merge_cleanly() {
        let (out, conflict) = merge(
            b"a\nb\nc\n",
            b"A\nb\nc\n",
            b"a\nb\nC\n",
            &Markers::default(),
        );
        assert_eq!(String::from_utf8_lossy(&out), "A\nb\nC\n");
        assert!(!conflict);
    }

    #[test]
    fn changes_of_one_line_conflict_with_markers() {
        let (out, conflict) = merge(b"a\n", b"b\n", b"c\n", &Markers::default());
        assert!(conflict);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n"
        );
    }
}

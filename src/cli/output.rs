//! The one writer of standard output and standard error.

/// Everything the commands print goes through the sanitizer's edge.
pub(super) fn write_out(text: &str) {
    crate::syntax::sanitize::write_out(text);
}

//! The one writer of standard output and standard error. Everything memlint
//! prints passes through `sanitize::terminal` here: credentials masked,
//! control characters shown as symbols, whatever a call site forgot.

use crate::syntax::sanitize;

/// `eprintln!` for the command handlers: a line to standard error, through
/// [`err`].
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::output::err(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` for the command handlers, through [`err`].
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::cli::output::err(&format!($($arg)*))
    };
}

/// Writes `text` to standard output (no colour). A closed pipe
/// (`memlint check | head`) is not an error worth reporting.
pub(crate) fn out(text: &str) {
    write_to(&mut std::io::stdout().lock(), text, false);
}

/// [`out`] for output memlint coloured itself: its colour sequences are
/// let through, nothing else.
pub(crate) fn out_colored(text: &str, color: bool) {
    write_to(&mut std::io::stdout().lock(), text, color);
}

/// Writes `check`'s human output: the ranges its renderer drew from
/// pieces it had already masked and sanitised as they are, the rest
/// through the last pass like all output (`color`: its colour sequences
/// let through).
pub(crate) fn out_rendered(r: &super::render::Rendered, color: bool) {
    use std::io::Write;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    for piece in r.passed(color) {
        if w.write_all(piece.as_bytes()).is_err() {
            return;
        }
    }
    let _ = w.flush();
}

/// Writes `text` to standard output as it is: text its renderer found to
/// be what the last pass would make of it (`check --format json`, see
/// `render::shown_json`).
pub(crate) fn out_shown(text: &str) {
    use std::io::Write;
    let mut w = std::io::stdout().lock();
    let _ = w.write_all(text.as_bytes());
    let _ = w.flush();
}

/// [`out_shown`] of a text made in pieces: `write` hands each to the sink
/// as it is made.
pub(crate) fn out_pieces(write: impl FnOnce(&mut dyn FnMut(&str))) {
    use std::io::Write;
    // Many small pieces (a file's reports each) go out in few writes.
    let mut w = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut failed = false;
    write(&mut |piece: &str| {
        failed = failed || w.write_all(piece.as_bytes()).is_err();
    });
    let _ = w.flush();
}

/// Writes `text` to standard error.
pub fn err(text: &str) {
    write_to(&mut std::io::stderr().lock(), text, false);
}

fn write_to(w: &mut dyn std::io::Write, text: &str, sgr: bool) {
    if text.is_empty() {
        return;
    }
    let _ = w.write_all(sanitize::terminal(text, sgr).as_bytes());
    let _ = w.flush();
}

/// `out`, under the name the command handlers use.
pub(super) fn write_out(text: &str) {
    out(text);
}

/// Writes `bytes` to standard output as they are: the editor mode of `fmt`
/// hands back a buffer, which must come back byte for byte.
/// Copies `reader` to standard output as it comes, in pieces (a text of
/// any length passes through in constant memory).
pub(crate) fn raw_stream(mut reader: impl std::io::Read) -> std::io::Result<u64> {
    use std::io::Write;
    let mut w = std::io::stdout().lock();
    let n = std::io::copy(&mut reader, &mut w)?;
    w.flush()?;
    Ok(n)
}

pub(crate) fn raw(bytes: &[u8]) {
    use std::io::Write;
    let mut w = std::io::stdout().lock();
    let _ = w.write_all(bytes);
    let _ = w.flush();
}

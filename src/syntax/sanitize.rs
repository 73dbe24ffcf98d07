//! What memlint prints. Records, file names, commit messages and lock files
//! are written by agents and other people: whatever memlint prints of them
//! passes through here, so that a credential `secrets/detected` would flag
//! is never echoed (by any rule, command or format) and no control
//! character reaches a terminal, a CI log or an agent's prompt.
//!
//! - Secrets: `secrets()` keeps a credential's kind (`ghp_…[masked]`) and
//!   hides the rest; it is the detector of `secrets/detected`, so what is
//!   flagged is what is masked. JSON gets this alone (`json`); its
//!   escaping already shows control characters as `\u001b`.
//! - Control characters: `line()` and `text` show them as symbols (`␛`
//!   for ESC, `␇` for BEL, U+2400 + c for the rest of C0, `␡` for DEL,
//!   U+FFFD for C1): one character for one, so a character budget counted
//!   on the result is exact. `line()` is for a value printed on one line (a
//!   file name, a title), where a line feed would split the output; `text`
//!   keeps the line feeds and tabs of a text of several lines.
//! - `terminal` is the last edge: the CLI's output module passes
//!   everything written to standard output or standard error through it,
//!   whatever a call site forgot.

use crate::syntax::secrets;
use std::borrow::Cow;

/// What replaces the hidden part of a credential.
pub(crate) const MASK: &str = "…[masked]";

/// `text` with every credential masked: its kind's prefix kept, the rest
/// replaced by [`MASK`] (a private key from its `BEGIN` line through its
/// `END` line). Never longer than `text`, counted in characters.
pub(crate) fn secrets(text: &str) -> Cow<'_, str> {
    let hidden = secrets::hidden(text);
    if hidden.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for h in &hidden {
        let cut = h.range.start + h.keep;
        out.push_str(&text[at..cut]);
        let secret = &text[cut..h.range.end];
        let n = secret.chars().count();
        // Short hidden parts (a key block cut right after its first line)
        // become as many `*`, so that masking never lengthens a text.
        if n > MASK.chars().count() {
            out.push_str(MASK);
        } else {
            out.extend(std::iter::repeat_n('*', n));
        }
        at = h.range.end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// `text` with its credentials masked (see [`secrets()`]) and then cut to
/// its first `max` characters, and whether it was cut. In this order: a
/// credential cut short is no longer recognised, so masking after the
/// cut would show the part of it before the cut.
pub(crate) fn clip(text: &str, max: usize) -> (Cow<'_, str>, bool) {
    let masked = secrets(text);
    let Some((at, _)) = masked.char_indices().nth(max) else {
        return (masked, false);
    };
    let cut = match masked {
        Cow::Borrowed(t) => Cow::Borrowed(&t[..at]),
        Cow::Owned(mut t) => {
            t.truncate(at);
            Cow::Owned(t)
        }
    };
    (cut, true)
}

/// `text` with every byte of its credentials' hidden parts replaced by
/// `*` (line breaks kept): every byte offset and line stays where it was,
/// for output that points into the text (the source excerpts of `check`).
pub(crate) fn secrets_in_place(text: &str) -> Cow<'_, str> {
    let hidden = secrets::hidden(text);
    if hidden.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for h in &hidden {
        for b in &mut bytes[h.range.start + h.keep..h.range.end] {
            if *b != b'\n' && *b != b'\r' {
                *b = b'*';
            }
        }
    }
    // Whole characters were replaced by ASCII (the hidden parts start and
    // end on character boundaries): still UTF-8.
    Cow::Owned(
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// The visible symbol of control character `c`, or `None` for a character
/// printed as it is. In `Mode::Text`, line feeds, tabs and the carriage
/// return of a CRLF (`crlf`) are printed as they are. An invisible format
/// character (see [`invisible`]) is shown as [`INVISIBLE`].
fn symbol(c: char, mode: Mode, crlf: bool) -> Option<char> {
    match c {
        '\t' => None,
        '\n' if mode == Mode::Text => None,
        '\r' if mode == Mode::Text && crlf => None,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32),
        '\u{7f}' => Some('\u{2421}'),
        '\u{80}'..='\u{9f}' => Some('\u{fffd}'),
        c if invisible(c) => Some(INVISIBLE),
        _ => None,
    }
}

/// What an invisible format character is shown as: one visible character
/// for one, as control characters are, so budgets stay exact.
pub(crate) const INVISIBLE: char = '\u{fffd}';

/// Unicode format characters that change how a text reads without being
/// seen: bidi embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069, the marks U+200E, U+200F, U+061C), zero-width spaces,
/// joiners and the word joiner (U+200B–U+200D, U+2060–U+2064), the
/// deprecated format controls (U+206A–U+206F), the BOM (U+FEFF), the soft
/// hyphen, the Mongolian vowel separator, interlinear annotation marks, the
/// musical format characters, the tag characters (U+E0000–U+E007F, which
/// can spell hidden ASCII), the blank-looking fillers (the Hangul fillers
/// U+115F, U+1160, U+3164, U+FFA0 and the braille blank U+2800) and the
/// variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF), of which one
/// after a visible character is left alone (see `hidden`).
pub fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{61c}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{180e}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{ffa0}'
            | '\u{e0100}'..='\u{e01ef}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// Whether the zero-width joiner at byte `i` of `text` joins an emoji
/// sequence (👩‍💻): between two pictographs (or a pictograph's variation
/// selector or skin tone), where it is meant and shows as one picture.
fn emoji_joiner(text: &str, i: usize) -> bool {
    let pictograph = |c: char| matches!(c, '\u{2600}'..='\u{27bf}' | '\u{2b00}'..='\u{2bff}' | '\u{fe0f}' | '\u{1f000}'..='\u{1faff}');
    let before = text[..i].chars().next_back();
    let after = text[i + '\u{200d}'.len_utf8()..].chars().next();
    before.is_some_and(pictograph) && after.is_some_and(pictograph)
}

/// Whether `c` is a variation selector (U+FE00–U+FE0F, U+E0100–U+E01EF).
fn variation_selector(c: char) -> bool {
    matches!(c, '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}')
}

/// Whether the variation selector `c` at byte `i` of `text` picks the
/// glyph of the visible character before it (❤️, an ideograph's variant),
/// as it is meant to: one selector after a character that is neither a
/// space nor invisible. A run of selectors spells hidden bytes (one per
/// selector) and is never meant.
fn selects_glyph(text: &str, i: usize, c: char) -> bool {
    let before = text[..i].chars().next_back();
    let after = text[i + c.len_utf8()..].chars().next();
    before.is_some_and(|b| !b.is_whitespace() && !b.is_control() && !invisible(b))
        && !after.is_some_and(variation_selector)
}

/// Whether the [`invisible`] character `c` at byte `i` of `text` is meant
/// and shows as part of what is around it: a joiner inside an emoji
/// sequence, a variation selector after a visible character.
fn meant(text: &str, i: usize, c: char) -> bool {
    (c == '\u{200d}' && emoji_joiner(text, i))
        || (variation_selector(c) && selects_glyph(text, i, c))
}

/// The [`invisible`] characters of `text` that every output shows as
/// [`INVISIBLE`], with their byte offsets: all of them but a joiner inside
/// an emoji sequence and a variation selector after a visible character.
/// `text/invisible` reports these in stored text.
pub(crate) fn hidden(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    text.char_indices()
        .filter(move |&(i, c)| invisible(c) && !meant(text, i, c))
}

/// [`symbol`] for the character `c` at byte `i` of `text`.
fn symbol_at(text: &str, i: usize, c: char, mode: Mode) -> Option<char> {
    if invisible(c) && meant(text, i, c) {
        return None;
    }
    let crlf = text.as_bytes().get(i + 1) == Some(&b'\n');
    symbol(c, mode, crlf)
}

/// How [`controls`] treats line breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A value shown on one line: line feeds and carriage returns too are
    /// shown as symbols.
    Line,
    /// A text of several lines: its line feeds (and CRLFs) and tabs stay.
    Text,
}

/// Whether `text` holds a character [`symbol_at`] shows in `mode` (C0 but
/// tab, and but line feed and the carriage return of a CRLF in
/// `Mode::Text`; DEL; C1; the [`invisible`] characters not meant): most
/// texts hold none and are returned as they are after this one pass.
fn may_hold_controls(text: &str, mode: Mode) -> bool {
    let lf = mode == Mode::Text;
    let bytes = text.as_bytes();
    let mut i = 0;
    loop {
        i = next_candidate(bytes, i, lf);
        let Some(&b) = bytes.get(i) else {
            return false;
        };
        let next = bytes.get(i + 1);
        if b < 0x20 || b == 0x7f {
            // A carriage return is shown unless a line feed follows.
            if !(lf && b == b'\r' && next == Some(&b'\n')) {
                return true;
            }
        } else {
            // Only the character starting here can be shown (a candidate
            // at or above 0xc2 is a lead byte, which starts a character).
            let c = text[i..].chars().next().unwrap_or_default();
            if symbol_at(text, i, c, mode).is_some() {
                return true;
            }
        }
        i += 1;
    }
}

/// Whether the byte `b`, then `next`, may begin a character
/// [`may_hold_controls`] looks at: C0 but tab (and line feed when `lf`),
/// DEL, and the lead bytes of [`may_begin_symbol`].
#[inline(always)]
fn candidate(b: u8, next: Option<&u8>, lf: bool) -> bool {
    match b {
        b'\t' => false,
        b'\n' => !lf,
        0..=0x1f | 0x7f => true,
        0xc2.. => may_begin_symbol(b, next),
        _ => false,
    }
}

/// The offset of the first [`candidate`] of `bytes` from `i` on, or their
/// length: sixteen bytes at a time where the processor allows (the
/// kept reports of a warm check are megabytes of box drawing and line
/// feeds, each one of which the byte-by-byte look stopped at), eight
/// bytes of printable ASCII at a time elsewhere.
#[inline]
fn next_candidate(bytes: &[u8], mut i: usize, lf: bool) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        while let Some(window) = bytes.get(i..i + 17) {
            let found = sixteen::candidates(window, lf);
            if found != 0 {
                return i + found.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    while let Some(eight) = bytes.get(i..i + 8) {
        if !printable_ascii(u64::from_le_bytes(eight.try_into().unwrap_or_default())) {
            break;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if candidate(b, bytes.get(i + 1), lf) {
            return i;
        }
        i += 1;
    }
    i
}

/// [`candidate`] sixteen bytes at a time with SSE2.
#[cfg(target_arch = "x86_64")]
mod sixteen;

/// Whether a character whose UTF-8 begins with `b`, then `next`, may be C1
/// or [`invisible`]: the others (the box drawing and `·` of `check`'s
/// reports, `…`, accented letters, kana and ideographs) are not decoded one
/// by one. By lead byte, the second bytes of C1 and the soft hyphen (0xc2),
/// U+061C (0xd8), the Hangul fillers and U+180E (0xe1), U+2000–U+207F and
/// U+2800–U+283F (0xe2), U+3164 (0xe3), the variation selectors, BOM,
/// U+FFA0 and the annotation marks (0xef), the musical format characters
/// (0xf0), the tags and variation selectors of plane 14 (0xf3).
#[inline(always)]
fn may_begin_symbol(b: u8, next: Option<&u8>) -> bool {
    let Some(&n) = next else {
        return false;
    };
    match b {
        0xc2 => matches!(n, 0x80..=0x9f | 0xad),
        0xd8 => n == 0x9c,
        0xe1 => matches!(n, 0x85 | 0xa0),
        0xe2 => matches!(n, 0x80 | 0x81 | 0xa0),
        0xe3 => n == 0x85,
        0xef => matches!(n, 0xb8 | 0xbb | 0xbe | 0xbf),
        0xf0 => n == 0x9d,
        0xf3 => n == 0xa0,
        _ => false,
    }
}

/// Whether each of the 8 bytes of `x` is printable ASCII (from space to
/// `~`): none can begin a character [`may_hold_controls`] looks at.
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn printable_ascii(x: u64) -> bool {
    const H: u64 = 0x8080_8080_8080_8080;
    const fn rep(b: u8) -> u64 {
        (b as u64) * 0x0101_0101_0101_0101
    }
    // Each byte's low seven bits plus 0x60 reach the top bit from 0x20 on,
    // plus one from 0x7f on, without a carry into the next byte.
    let low = x & !H;
    let below_space = !low.wrapping_add(rep(0x60));
    let del = low.wrapping_add(rep(0x01));
    (below_space | del | x) & H == 0
}

/// `text` with its control characters shown as symbols (see [`Mode`]),
/// one character for one; credentials are not looked at.
pub(crate) fn controls(text: &str, mode: Mode) -> Cow<'_, str> {
    if !may_hold_controls(text, mode) {
        return Cow::Borrowed(text);
    }
    controls_shifted(text, mode).0
}

/// [`controls`], and where each byte offset of `text` lands in the result
/// (for marks and spans into it).
pub(crate) fn controls_shifted(text: &str, mode: Mode) -> (Cow<'_, str>, Shift) {
    if !may_hold_controls(text, mode) {
        return (Cow::Borrowed(text), Shift::default());
    }
    let mut out = String::with_capacity(text.len());
    let mut growth = Vec::new();
    let mut grown: isize = 0;
    // Only a character starting with one of these bytes can have a symbol
    // (see `may_hold_controls`): the runs between them are copied whole.
    let mut done = 0;
    let lf = mode == Mode::Text;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        // Neither a tab nor (in a text) a line feed has a symbol; nor has a
        // character [`may_begin_symbol`] rules out: the line feeds and the
        // box drawing of `check`'s reports are not decoded one by one.
        if !(b < 0x20 || b == 0x7f || may_begin_symbol(b, bytes.get(i + 1)))
            || b == b'\t'
            || (lf && b == b'\n')
        {
            continue;
        }
        let c = text[i..].chars().next().unwrap_or_default();
        if let Some(r) = symbol_at(text, i, c, mode) {
            out.push_str(&text[done..i]);
            out.push(r);
            // A tag character (4 bytes) shrinks to its symbol (3).
            grown += r.len_utf8() as isize - c.len_utf8() as isize;
            growth.push((i + c.len_utf8(), grown));
            done = i + c.len_utf8();
        }
    }
    out.push_str(&text[done..]);
    (Cow::Owned(out), Shift { growth })
}

/// Where the byte offsets of a text land in its [`controls_shifted`] form.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shift {
    /// (offset after a replaced character, total growth up to there).
    growth: Vec<(usize, isize)>,
}

impl Shift {
    /// The offset in the shown text of byte `o` of the original.
    pub(crate) fn at(&self, o: usize) -> usize {
        let before = self.growth.partition_point(|&(end, _)| end <= o);
        let grown = before.checked_sub(1).map_or(0, |k| self.growth[k].1);
        o.saturating_add_signed(grown)
    }
}

/// A value printed on one line (a file name, a title, a pod id): its
/// credentials masked and its control characters, line breaks included,
/// shown as symbols.
pub(crate) fn line(text: &str) -> Cow<'_, str> {
    shown(text, Mode::Line)
}

/// A text of several lines (a `CONTEXT.md` block, a diff): its credentials
/// masked and its control characters but line feeds and tabs shown as
/// symbols.
pub(crate) fn text(text: &str) -> Cow<'_, str> {
    shown(text, Mode::Text)
}

fn shown(text: &str, mode: Mode) -> Cow<'_, str> {
    match secrets(text) {
        Cow::Borrowed(t) => controls(t, mode),
        Cow::Owned(t) => Cow::Owned(controls(&t, mode).into_owned()),
    }
}

/// The last edge before standard output or standard error: [`text`], but
/// with `sgr` the colour sequences memlint itself writes (`ESC [ … m`) are
/// let through. Every writer of the binary calls this.
pub(crate) fn terminal(out: &str, sgr: bool) -> Cow<'_, str> {
    match secrets(out) {
        Cow::Borrowed(masked) => terminal_controls(masked, sgr),
        Cow::Owned(masked) => Cow::Owned(terminal_controls(&masked, sgr).into_owned()),
    }
}

/// [`terminal`] of a text whose credentials are masked already: its
/// control and invisible characters shown, and with `sgr` memlint's own
/// colour sequences let through.
pub(crate) fn terminal_controls(masked: &str, sgr: bool) -> Cow<'_, str> {
    if !sgr {
        return controls(masked, Mode::Text);
    }
    if !may_hold_controls(masked, Mode::Text) {
        return Cow::Borrowed(masked);
    }
    let mut shown = String::with_capacity(masked.len());
    let mut rest: &str = masked;
    while let Some(i) = rest.find('\u{1b}') {
        shown.push_str(&controls(&rest[..i], Mode::Text));
        let after = &rest[i + 1..];
        let sgr_len = after
            .strip_prefix('[')
            .and_then(|a| {
                let params = a.bytes().take_while(|b| b.is_ascii_digit() || *b == b';');
                let n = params.count();
                (a.as_bytes().get(n) == Some(&b'm')).then_some(n + 2)
            })
            .unwrap_or(0);
        if sgr_len > 0 {
            shown.push('\u{1b}');
            shown.push_str(&after[..sgr_len]);
        } else {
            shown.push('\u{241b}');
        }
        rest = &after[sgr_len..];
    }
    shown.push_str(&controls(rest, Mode::Text));
    Cow::Owned(shown)
}

/// `value` as pretty JSON ending with a line feed, with the credentials
/// in its strings masked (see [`json_text`]).
pub(crate) fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    json_text(&s).into_owned()
}

/// A JSON text with the credentials of every string (object keys
/// included) masked as [`secrets()`] masks them; nothing else changes, so
/// the keys keep their order and control characters keep their escapes
/// (`\u001b`). Each string is looked at decoded, so that an escape
/// (`password: \"…`) hides no credential.
pub(crate) fn json_text(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let mut out: Option<String> = None;
    let mut done = 0;
    let mut i = 0;
    // The masked form of each string without escapes, by its text: a
    // report repeats its keys and many of its values (rule names, paths,
    // messages) thousands of times, and each is looked at once.
    let mut seen: crate::model::hashing::Map<&str, Option<String>> = Default::default();
    while let Some(open) = memchr::memchr(b'"', &bytes[i..]).map(|k| i + k) {
        // The closing quote: the next one not escaped.
        let mut j = open + 1;
        let mut escaped = false;
        while j < bytes.len() {
            match bytes[j] {
                b'\\' => escaped = !escaped,
                b'"' if !escaped => break,
                _ => escaped = false,
            }
            j += 1;
        }
        let literal = &json[open..(j + 1).min(json.len())];
        i = j + 1;
        let masked = if literal.contains('\\') {
            serde_json::from_str::<String>(literal)
                .ok()
                .and_then(|s| match secrets(&s) {
                    Cow::Owned(m) => serde_json::to_string(&m).ok(),
                    Cow::Borrowed(_) => None,
                })
        } else {
            // No escape: the literal is the string between its quotes, and
            // its masked form needs none either.
            let inner = &literal[1..literal.len().saturating_sub(1).max(1)];
            seen.entry(inner)
                .or_insert_with(|| match secrets(inner) {
                    Cow::Owned(m) => Some(format!("\"{m}\"")),
                    Cow::Borrowed(_) => None,
                })
                .clone()
        };
        if let Some(m) = masked {
            let o = out.get_or_insert_with(|| String::with_capacity(json.len()));
            o.push_str(&json[done..open]);
            o.push_str(&m);
            done = i.min(json.len());
        }
        if i >= json.len() {
            break;
        }
    }
    let masked = match out {
        Some(mut o) => {
            o.push_str(&json[done..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(json),
    };
    match escaped_invisibles(&masked) {
        Some(e) => Cow::Owned(e),
        None => masked,
    }
}

/// One string as [`json`] writes it: its credentials masked, as a JSON
/// string literal, its [`invisible`] characters escaped. For writers of
/// JSON text that do not go through a `serde_json` value; the same bytes.
pub(crate) fn json_string(s: &str) -> String {
    let literal = serde_json::to_string(&secrets(s)).unwrap_or_else(|_| "\"\"".to_string());
    // Looked at with its quotes, as in a whole text: a variation selector
    // opening the string follows a visible character.
    escaped_invisibles(&literal).unwrap_or(literal)
}

/// A JSON text with its [`invisible`] characters (found only in strings)
/// written as `\uXXXX` escapes: the value stays exact and the escape is
/// seen. `None` when it holds none.
fn escaped_invisibles(json: &str) -> Option<String> {
    if !may_hold_controls(json, Mode::Text) {
        return None;
    }
    let mut out = String::with_capacity(json.len() + 16);
    let mut changed = false;
    for (i, c) in json.char_indices() {
        if invisible(c) && symbol_at(json, i, c, Mode::Text).is_some() {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
            changed = true;
        } else {
            out.push(c);
        }
    }
    changed.then_some(out)
}

/// `text` with its [`invisible`] characters shown as [`INVISIBLE`] (but a
/// joiner inside an emoji sequence), nothing else changed: for values
/// handed on as data (MCP structured content, LSP messages), whose control
/// characters their JSON escapes already show.
pub(crate) fn invisibles(text: &str) -> Cow<'_, str> {
    if !text.chars().any(invisible) {
        return Cow::Borrowed(text);
    }
    let shown = text
        .char_indices()
        .map(
            |(i, c)| match invisible(c) && symbol_at(text, i, c, Mode::Text).is_some() {
                true => INVISIBLE,
                false => c,
            },
        )
        .collect();
    Cow::Owned(shown)
}

/// The data of a GitHub Actions workflow command (the message): masked,
/// `%`, CR and LF escaped as the runner decodes them, and any other control
/// character shown as a symbol.
pub(crate) fn github_data(s: &str) -> String {
    let escaped = secrets(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    controls(&escaped, Mode::Line).into_owned()
}

/// A property of a workflow command (`file=`, `title=`): as
/// [`github_data`], and `:` and `,` escaped too.
pub(crate) fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`controls_shifted`] character by character, as it was written
    /// first: the reference for the one that copies runs whole.
    fn per_character(text: &str, mode: Mode) -> (String, Vec<(usize, isize)>) {
        let (mut out, mut growth, mut grown) = (String::new(), Vec::new(), 0isize);
        for (i, c) in text.char_indices() {
            match symbol_at(text, i, c, mode) {
                Some(r) => {
                    out.push(r);
                    grown += r.len_utf8() as isize - c.len_utf8() as isize;
                    growth.push((i + c.len_utf8(), grown));
                }
                None => out.push(c),
            }
        }
        (out, growth)
    }

    #[test]
    fn controls_copied_in_runs_are_shown_as_one_character_at_a_time() {
        let texts = [
            "plain ascii",
            "a\u{1b}[31mred\u{7}\r\nline\rcr\ttab\u{7f}",
            "\u{85}c1 \u{ad}soft │ box ─ … ✓ \u{202e}rtl\u{200b}",
            "\u{fe0f}lead ❤\u{fe0f} 👩\u{200d}💻 \u{e0041}\u{e0042} tags \u{2800}",
            "\u{61c}\u{115f}\u{3164}\u{feff}\u{fff9}\u{1d173}\u{e0100} end\u{fe0f}",
        ];
        for text in texts {
            for mode in [Mode::Line, Mode::Text] {
                let (shown, shift) = controls_shifted(text, mode);
                let (want, growth) = per_character(text, mode);
                assert_eq!(
                    (shown.as_ref(), &shift.growth),
                    (want.as_str(), &growth),
                    "{text:?}"
                );
            }
        }
    }

    /// 20,000 random texts of fewer than `longest` characters from `seed`:
    /// one character in `one_in` from `alphabet`, the others printable
    /// ASCII.
    fn random_texts(
        seed: u64,
        alphabet: &str,
        one_in: usize,
        longest: usize,
    ) -> impl Iterator<Item = String> {
        let alphabet: Vec<char> = alphabet.chars().collect();
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as usize
        };
        (0..20_000).map(move |_| {
            let len = next() % longest;
            (0..len)
                .map(|_| match next() % one_in {
                    0 => alphabet[next() % alphabet.len()],
                    _ => char::from(b' ' + (next() % 95) as u8),
                })
                .collect()
        })
    }

    #[test]
    fn every_character_that_can_be_shown_begins_as_one_looked_at() {
        // Every character from U+0080 on that the pass may show as a symbol
        // (C1, every invisible one) has lead and second bytes the quick
        // look stops at.
        for c in (0x80..=0x10_ffff).filter_map(char::from_u32) {
            if symbol(c, Mode::Text, false).is_none() && !invisible(c) {
                continue;
            }
            let mut buf = [0; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            assert!(
                may_begin_symbol(bytes[0], bytes.get(1)),
                "U+{:04X} {bytes:02x?}",
                c as u32
            );
        }
    }

    #[test]
    fn the_quick_look_finds_every_text_with_a_character_to_show() {
        // Random texts of printable ASCII runs (eight bytes skipped at
        // once), line breaks, tabs, C0 and C1 controls, DEL, the box
        // drawing and `…` of `check`'s reports, and every kind of
        // invisible character, at every offset from the start.
        let alphabet = "abc XYZ~ 01\n\r\n\r\t\u{1b}\u{7}\u{7f}\u{85}\u{9f}\u{a0}\u{ad}é│─╭╰┬·…✓❤\u{b7}\u{bf}\u{ac}\u{ae}\u{2000}\u{200b}\u{200d}\u{202e}\u{2060}\u{2066}\u{206f}\u{2070}\u{2800}\u{2801}\u{2840}\u{fe0f}\u{feff}\u{fff9}\u{61c}\u{115f}\u{180e}\u{3164}\u{ffa0}\u{1d173}\u{e0041}\u{e0100}👩💻日あㅁ\u{1160}\u{fe00}\u{fffb}\u{e007f}\u{e01ef}\u{1d17a}\u{206a}\u{2064}";
        // Then long texts where such characters are rare, as in a file of
        // reports: sixteen bytes are looked at at once.
        let texts = random_texts(0x2545_f491_4f6c_dd1d, alphabet, 4, 40).chain(random_texts(
            0x1f83_d9ab_fb41_bd6b,
            alphabet,
            50,
            300,
        ));
        for (round, text) in texts.enumerate() {
            for mode in [Mode::Line, Mode::Text] {
                assert_eq!(
                    may_hold_controls(&text, mode),
                    per_character(&text, mode).0 != text,
                    "round {round}: {text:?} {mode:?}"
                );
            }
        }
        for b in 0..=0x7fu8 {
            let x = u64::from_le_bytes([b, b'a', b'b', b'c', b'd', b'e', b'f', b'g']);
            assert_eq!(printable_ascii(x), (0x20..0x7f).contains(&b), "{b:#x}");
        }
    }

    #[test]
    fn the_last_pass_leaves_its_own_output_as_it_is() {
        // Kept human reports are stored as the last pass made them and
        // take only its control pass again: that pass must find nothing
        // to change in what it made, with and without colour sequences.
        let alphabet = "abc XYZ\n\r\n\r\t\u{1b}[m;0123\u{7}\u{7f}\u{85}\u{9f}\u{ad}│─…\u{200b}\u{202e}\u{2407}\u{241b}\u{feff}\u{e0041}日";
        for (round, mut text) in random_texts(0x9e37_79b9_7f4a_7c15, alphabet, 3, 40).enumerate() {
            // A credential at either end, beside whatever came out.
            match round % 10 {
                0 => text.insert_str(0, &format!("{GH} ")),
                5 => text.push_str(&format!(" {GH}")),
                _ => {}
            }
            for sgr in [false, true] {
                let once = terminal(&text, sgr).into_owned();
                assert_eq!(
                    terminal_controls(&once, sgr),
                    once,
                    "round {round}: {text:?} sgr {sgr}"
                );
                assert!(!once.contains(GH), "round {round}: {once:?}");
            }
        }
    }

    const GH: &str = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

    #[test]
    fn secrets_keep_their_kind_and_nothing_else() {
        assert_eq!(
            secrets(&format!("`status` is `{GH}`")),
            "`status` is `ghp_…[masked]`"
        );
        assert_eq!(secrets("AKIAIOSFODNN7EXAMPLE"), "AKIA…[masked]");
        assert_eq!(secrets("xoxb-1234567890-abcdefghij"), "xoxb-…[masked]");
        assert_eq!(secrets("sk-proj-abcdefghij0123456789"), "sk-…[masked]");
        assert_eq!(
            secrets("password: Xk9fQ2mLp8Rt4vWz7 rest"),
            "password: …[masked] rest"
        );
        assert_eq!(secrets("nothing here"), "nothing here");
        assert!(matches!(secrets("plain words"), Cow::Borrowed(_)));
    }

    #[test]
    fn clipping_masks_first() {
        let title = format!("{} {GH}", "x".repeat(40));
        assert_eq!(
            clip(&title, 80),
            (
                Cow::Owned(format!("{} ghp_…[masked]", "x".repeat(40))),
                false
            )
        );
        let (cut, was_cut) = clip(&title, 50);
        assert!(was_cut && !cut.contains("AbCd"), "{cut}");
        assert_eq!(clip("short", 3), (Cow::Borrowed("sho"), true));
    }

    #[test]
    fn a_private_key_is_hidden_through_its_end_line() {
        let t = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nz\n";
        assert_eq!(secrets(t), "a\n-----BEGIN RSA PRIVATE KEY…[masked]\nz\n");
        let in_place = secrets_in_place(t);
        assert_eq!(in_place.len(), t.len());
        assert!(!in_place.contains("MIIE") && !in_place.contains("END"));
        assert_eq!(in_place.lines().count(), t.lines().count());
        // Without an end line, to the end of the text.
        assert_eq!(
            secrets("-----BEGIN PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234"),
            "-----BEGIN PRIVATE KEY…[masked]"
        );
        assert_eq!(
            secrets("-----BEGIN PRIVATE KEY-----\nab"),
            "-----BEGIN PRIVATE KEY********"
        );
        // What is shown is not found again: masking the output of masking
        // changes nothing, also where no `END` line follows.
        let once = secrets("x -----BEGIN PRIVATE KEY----- and the rest");
        assert_eq!(once, "x -----BEGIN PRIVATE KEY…[masked]");
        assert_eq!(
            secrets(&format!("{once}\nmore text")),
            format!("{once}\nmore text")
        );
        assert_eq!(
            secrets_in_place("-----BEGIN PRIVATE KEY-----\nab\n"),
            "-----BEGIN PRIVATE KEY*****\n**\n"
        );
    }

    #[test]
    fn masking_never_lengthens_and_is_idempotent() {
        let samples = [
            format!("x {GH} y"),
            "AKIAIOSFODNN7EXAMPLE".to_string(),
            "xoxb-1234567890".to_string(),
            "token=Xk9fQ2mLp8Rt4vWz".to_string(),
            "-----BEGIN EC PRIVATE KEY-----".to_string(),
            "-----BEGIN EC PRIVATE KEY-----\n".to_string(),
            "-----BEGIN EC PRIVATE KEY-----\nabcdefghijk".to_string(),
        ];
        for s in samples {
            let once = secrets(&s).into_owned();
            assert!(once.chars().count() <= s.chars().count(), "{s:?}");
            assert_eq!(secrets(&once), once, "{s:?}");
        }
    }

    #[test]
    fn control_characters_become_one_symbol_each() {
        assert_eq!(line("a\u{1b}[31mb\u{7}c\nd\re\tf"), "a␛[31mb␇c␊d␍e\tf");
        assert_eq!(text("a\u{1b}b\r\nc\rd\n"), "a␛b\r\nc␍d\n");
        assert_eq!(line("\u{9b}x\u{7f}"), "\u{fffd}x␡");
        let s = "a\u{1b}b\u{7}c";
        assert_eq!(line(s).chars().count(), s.chars().count());
        let (shown, shift) = controls_shifted("a\u{1b}bc", Mode::Line);
        assert_eq!(&shown[shift.at(2)..shift.at(4)], "bc");
    }

    #[test]
    fn invisible_format_characters_become_one_symbol_each() {
        let t = "a\u{202e}b\u{200b}c\u{2066}d\u{feff}e\u{e0041}f\u{ad}g";
        assert_eq!(
            line(t),
            "a\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}e\u{fffd}f\u{fffd}g"
        );
        assert_eq!(line(t).chars().count(), t.chars().count());
        // A joiner inside an emoji sequence stays; a stray one does not.
        assert_eq!(line("👩\u{200d}💻"), "👩\u{200d}💻");
        assert_eq!(line("a\u{200d}b"), "a\u{fffd}b");
        // Shifts follow a shrinking tag character (4 bytes to 3).
        let (shown, shift) = controls_shifted("x\u{e0041}yz", Mode::Line);
        assert_eq!(&shown[shift.at(5)..shift.at(7)], "yz");
        // Common non-ASCII text is left alone.
        assert!(matches!(line("café — 日本語 … ok"), Cow::Borrowed(_)));
        // JSON keeps the value and shows an escape.
        let out = json(&serde_json::json!({"t": "a\u{202e}b 👩\u{200d}💻 \u{e0041}"}));
        let want = format!(r#""a\u202eb 👩{}💻 \udb40\udc41""#, '\u{200d}');
        assert!(out.contains(&want), "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
        assert_eq!(back["t"], "a\u{202e}b 👩\u{200d}💻 \u{e0041}");
        assert_eq!(invisibles("a\u{202e}b\u{1b}"), "a\u{fffd}b\u{1b}");
    }

    #[test]
    fn the_terminal_edge_lets_only_colour_through() {
        let colored = "\u{1b}[1;36mpath\u{1b}[0m \u{1b}]0;title\u{7} \u{1b}[2J";
        assert_eq!(
            terminal(colored, true),
            "\u{1b}[1;36mpath\u{1b}[0m ␛]0;title␇ ␛[2J"
        );
        assert_eq!(terminal(colored, false), "␛[1;36mpath␛[0m ␛]0;title␇ ␛[2J");
        assert_eq!(terminal(&format!("{GH}\n"), true), "ghp_…[masked]\n");
    }

    #[test]
    fn json_masks_values_and_keys_and_keeps_controls_exact() {
        let v = serde_json::json!({"a": [format!("x {GH}")], GH: "\u{1b}"});
        let out = json(&v);
        assert!(!out.contains(GH), "{out}");
        assert!(
            out.contains("ghp_…[masked]") && out.contains("\\u001b"),
            "{out}"
        );
        // Escapes are read: a quote inside the string hides nothing.
        let v = serde_json::json!({"t": "password: \"Xk9fQ2mLp8Rt4vWz7\" \u{7}"});
        let out = json(&v);
        assert!(!out.contains("Xk9f"), "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
        assert_eq!(back["t"], "password: \"…[masked]\" \u{7}");
        // Key order is kept.
        #[derive(serde::Serialize)]
        struct S {
            z: &'static str,
            a: &'static str,
        }
        let out = json(&S { z: GH, a: "" });
        assert!(out.find("\"z\"") < out.find("\"a\""), "{out}");
        assert_eq!(json_text("[\"\", \"x\\\\\"]"), "[\"\", \"x\\\\\"]");
    }

    #[test]
    fn workflow_commands_are_escaped() {
        assert_eq!(github_data("50%\r\nx\u{1b}"), "50%25%0D%0Ax␛");
        assert_eq!(github_property("a:b,c\n"), "a%3Ab%2Cc%0A");
    }
}

//! Escaping for the two places untrusted text goes in the page: HTML text
//! and attributes, and JSON inside a `<script>` element.

use std::fmt::Write as _;

/// `text` as HTML text or a quoted attribute value: `& < > " '` escaped.
/// Secrets and control characters are the caller's (see
/// [`crate::syntax::sanitize`]).
pub(crate) fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A one-line value (title, path, tag, message) as HTML: its credentials
/// masked and its control and bidi characters shown as symbols, as every
/// output of memlint shows them, then escaped.
pub(crate) fn line(text: &str) -> String {
    html(&crate::syntax::sanitize::line(text))
}

/// A JSON text made safe inside `<script type="application/json">`: `<`,
/// `>` and `&` as `\u003c`, `\u003e`, `\u0026` (so no `</script>` or
/// `<!--` can end or change the element), and U+2028 and U+2029 escaped
/// too. Only string contents can hold these characters, where the escapes
/// mean the same characters.
pub(crate) fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_its_element() {
        let json = serde_json::to_string("</script><!-- & \u{2028}").unwrap_or_default();
        let safe = script_json(&json);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: String = serde_json::from_str(&safe).unwrap_or_default();
        assert_eq!(back, "</script><!-- & \u{2028}");
    }

    #[test]
    fn html_escapes_markup_and_bidi() {
        assert_eq!(html("<b a='1'>&"), "&lt;b a=&#39;1&#39;&gt;&amp;");
        assert_eq!(line("a\u{202e}b"), "a\u{fffd}b");
    }
}

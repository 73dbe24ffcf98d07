//! Escaping for untrusted text in the page's HTML (the overview); the
//! data the script reads is compressed JSON in base64, which needs none.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_markup_and_bidi() {
        assert_eq!(html("<b a='1'>&"), "&lt;b a=&#39;1&#39;&gt;&amp;");
        assert_eq!(line("a\u{202e}b"), "a\u{fffd}b");
    }
}

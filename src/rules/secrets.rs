//! `secrets/detected`: memory is committed and pushed, so a credential must
//! never get in. The message names the kind of secret and never echoes it.

use super::{Record, Sink};
use regex::Regex;
use std::sync::LazyLock;

struct Pattern {
    what: &'static str,
    re: Regex,
    /// For `key: value` patterns, the value must look opaque.
    opaque_group: Option<usize>,
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |what, re: &str, opaque_group| Pattern {
        what,
        re: Regex::new(re).expect("valid regex"),
        opaque_group,
    };
    vec![
        p(
            "a private key block",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
            None,
        ),
        p(
            "an AWS access key id",
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
            None,
        ),
        p("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}", None),
        p(
            "a GitHub fine-grained token",
            r"\bgithub_pat_[A-Za-z0-9_]{22,}",
            None,
        ),
        p("a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", None),
        p(
            "an API secret key (`sk-…`)",
            r"\bsk-[A-Za-z0-9_-]{20,}",
            None,
        ),
        p("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}", None),
        p(
            "a password or token value",
            r#"(?i)\b(?:password|passwd|api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|token)["']?\s*[:=]\s*["']?([A-Za-z0-9+/=_.~-]{16,})"#,
            Some(1),
        ),
    ]
});

/// Letters and digits mixed, not a word or a path: the shape of a generated
/// credential.
fn looks_opaque(v: &str) -> bool {
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let letters = v.bytes().filter(u8::is_ascii_alphabetic).count();
    let upper = v.bytes().filter(u8::is_ascii_uppercase).count();
    let distinct = {
        let mut seen = [false; 256];
        v.bytes().for_each(|b| seen[b as usize] = true);
        seen.iter().filter(|s| **s).count()
    };
    digits >= 2 && letters >= 4 && distinct >= 10 && (upper > 0 || digits >= 4)
}

/// Finds credentials in `text`: (byte range, what it looks like).
pub fn find(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let mut out = Vec::new();
    for p in PATTERNS.iter() {
        for caps in p.re.captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            if let Some(g) = p.opaque_group {
                match caps.get(g) {
                    Some(v) if looks_opaque(v.as_str()) => {}
                    _ => continue,
                }
            }
            if out.iter().any(|(r, _): &(std::ops::Range<usize>, _)| {
                r.start < whole.end() && whole.start() < r.end
            }) {
                continue;
            }
            out.push((whole.range(), p.what));
        }
    }
    out.sort_by_key(|(r, _)| r.start);
    out
}

/// `secrets/detected` on a record.
pub fn detected(r: &Record, out: &mut Sink) {
    scan(r.text, out);
}

/// `secrets/detected` on any text (records and `CONTEXT.md`).
pub fn scan(text: &str, out: &mut Sink) {
    for (span, what) in find(text) {
        out.emit(
            "secrets/detected",
            span,
            format!("this looks like {what}; remove it and rotate the credential, since memory is committed and pushed"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_ignores() {
        assert_eq!(find("key AKIAIOSFODNN7EXAMPLE here").len(), 1);
        assert_eq!(
            find("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789").len(),
            1
        );
        assert_eq!(find("password: hunter2").len(), 0);
        assert_eq!(find("password: Xk9fQ2mLp8Rt4vWz7").len(), 1);
        assert_eq!(find("the token: count-the-words-in-this").len(), 0);
        assert_eq!(find("-----BEGIN RSA PRIVATE KEY-----").len(), 1);
    }
}

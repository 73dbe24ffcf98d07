//! The secret detector: what looks like a credential in a text (token
//! prefixes, key/value pairs, private key blocks). Pure text knowledge, used
//! by the rule `secrets/detected` and by the sanitizer that masks secrets in
//! everything memlint prints.

use crate::syntax::text::HintWords;
use regex::Regex;
use std::sync::LazyLock;

struct Pattern {
    what: &'static str,
    /// The regular expression, compiled the first time a text holds its
    /// hint (most processes need one or two of them, and compiling them
    /// all cost milliseconds).
    source: &'static str,
    re: std::sync::OnceLock<Regex>,
    /// For `key: value` patterns, the value must look opaque.
    opaque_group: Option<usize>,
    /// The group holding the secret when what comes before it only says
    /// where it is (a URL's password): shown up to it, never checked for
    /// opacity, but never a placeholder (`${…}`, `<…>`).
    secret_group: Option<usize>,
    /// What a text must hold for the pattern to match, searched first.
    hint: Hint,
}

impl Pattern {
    fn regex(&self) -> &Regex {
        self.re
            .get_or_init(|| Regex::new(self.source).expect("valid regex"))
    }
}

/// A cheap necessary condition for a pattern to match: most texts hold no
/// secret and are ruled out by one literal search (SIMD) instead of a scan
/// per pattern.
enum Hint {
    /// The match begins with one of [`PREFIXES`].
    Prefix,
    /// The match holds `://` (a URL with a password).
    Url,
    /// Every match holds a match of [`KEY_HINT`], which ignores ASCII case
    /// only: found from the key words of the text's [`HintWords`] and a
    /// short check of what follows them, far faster than the Unicode
    /// case-insensitive pattern (and most mentions of a "key" are not
    /// followed by `:` or `=`). Unicode case folding also maps the Kelvin
    /// sign to `k` and the long s to `s`; texts holding them skip the hint.
    KeyWords,
}

/// The hint of [`Hint::KeyWords`], as a pattern (the tests hold the search
/// to it).
#[cfg(test)]
const KEY_HINT: &str = r#"(?i-u:password|passwd|pwd|secret|key|token)["']?\s*[:=]"#;

/// The literal beginning of every [`Hint::Prefix`] pattern.
static PREFIXES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-----BEGIN |AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-|[sr]k_live_|[sr]k_test_|AIza|eyJ|hf_|npm_|pypi-|AccountKey=")
        .expect("valid regex")
});

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |what, source: &'static str, opaque_group| Pattern {
        what,
        source,
        re: std::sync::OnceLock::new(),
        opaque_group,
        secret_group: None,
        hint: Hint::Prefix,
    };
    vec![
        p(
            PRIVATE_KEY,
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
        p("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}", None),
        p(
            "a Stripe secret key",
            r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
            None,
        ),
        p(
            "a JSON Web Token",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            None,
        ),
        p("a Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}", None),
        p("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b", None),
        p(
            "a PyPI token",
            r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}",
            None,
        ),
        p(
            "an Azure storage account key",
            r"AccountKey=[A-Za-z0-9+/]{60,}={0,2}",
            None,
        ),
        Pattern {
            hint: Hint::Url,
            secret_group: Some(1),
            ..p(
                "a password in a URL",
                r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@"'<>]{1,64}:([^\s@/"'<>]{3,128})@[A-Za-z0-9\[]"#,
                None,
            )
        },
        Pattern {
            hint: Hint::KeyWords,
            ..p(
                "a password or token value",
                r#"(?i)(?:\b|_)(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|token)["']?\s*[:=]\s*["']?([A-Za-z0-9+/=_.~!#%&*@^-]{12,})"#,
                Some(1),
            )
        },
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

/// A value that stands for a password rather than being one: a variable
/// (`$DB_PASSWORD`, `${PASS}`, `%s`), a slot (`<password>`, `{password}`),
/// stars.
fn placeholder(v: &str) -> bool {
    v.starts_with(['$', '<', '{', '%', '*', '['])
        || v.bytes()
            .all(|b| b == b'*' || b == b'x' || b == b'X' || b == b'.')
}

/// Whether a key word of `words` in `text` is followed as [`KEY_HINT`]
/// demands: `["']?\s*[:=]`.
fn key_assigned(text: &str, words: &HintWords) -> bool {
    words.keys.iter().any(|w| {
        // The words are ASCII: `w.end` is a character boundary.
        let rest = &text[w.end..];
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        // `\s` is Unicode's White_Space, as `char::is_whitespace`.
        rest.trim_start_matches(char::is_whitespace)
            .starts_with([':', '='])
    })
}

/// How many times [`fingerprint`] hashes again: a guess checked against a
/// printed fingerprint costs as many SHA-256 computations.
pub(crate) const FINGERPRINT_ROUNDS: u32 = 1 << 14;

/// The fingerprint of credential `secret` (see [`Finding::secret`]) found
/// in the file at root-relative `path`, as `secrets/detected` prints it and
/// a `secrets.allow` entry (`path:fingerprint`) lists it: 4 hex digits
/// (16 bits) of a SHA-256 of the path and the secret, hashed again
/// [`FINGERPRINT_ROUNDS`] times. Stable while the file keeps its name and
/// the secret its value, whatever else changes; too short and too slow to
/// compute for a reader of a log to confirm a guessed secret with it (of
/// 65536 wrong guesses, one matches by chance, and each costs 16384
/// hashes; the path keys it, so nothing can be computed in advance).
pub(crate) fn fingerprint(path: &str, secret: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"memlint secrets.allow v2\0");
    h.update(path.as_bytes());
    h.update([0u8]);
    h.update(secret.as_bytes());
    let mut d = [0u8; 32];
    d.copy_from_slice(&h.finalize());
    for _ in 0..FINGERPRINT_ROUNDS {
        let next = Sha256::digest(d);
        d.copy_from_slice(&next);
    }
    format!("{:02x}{:02x}", d[0], d[1])
}

/// Whether `text` has the shape of a [`fingerprint`].
pub(crate) fn is_fingerprint(text: &str) -> bool {
    text.len() == 4 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The fingerprint memlint printed before the fingerprints above: 12 hex
/// digits of an unsalted fast hash of the matched text. `secrets.allow`
/// entries of this shape are still honoured, but for private keys (whose
/// matched text was their `BEGIN` line alone, the same for every key).
pub(crate) fn legacy_fingerprint(matched: &str) -> String {
    format!(
        "{:012x}",
        xxhash_rust::xxh3::xxh3_64(matched.as_bytes()) >> 16
    )
}

/// Whether `text` has the shape of a [`legacy_fingerprint`].
pub(crate) fn is_legacy_fingerprint(text: &str) -> bool {
    text.len() == 12 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A credential found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Where it is (a private key: its `BEGIN` line).
    pub range: std::ops::Range<usize>,
    /// What it looks like (`an AWS access key id`).
    pub what: &'static str,
    /// The secret itself: the whole token, the value of a `password: …`
    /// pair or of a URL's password, a private key's lines between its
    /// `BEGIN` and `END` lines.
    value: std::ops::Range<usize>,
}

impl Finding {
    /// Whether it is a private key block.
    pub(crate) fn is_private_key(&self) -> bool {
        self.what == PRIVATE_KEY
    }

    /// The secret itself in `text` (the text it was found in), as
    /// [`fingerprint`] reads it: a private key's material without its line
    /// breaks and indentation, so that re-wrapping or re-indenting the
    /// block leaves it the same key.
    pub(crate) fn secret(&self, text: &str) -> String {
        let v = text.get(self.value.clone()).unwrap_or_default();
        if self.is_private_key() {
            v.chars().filter(|c| !c.is_whitespace()).collect()
        } else {
            v.to_string()
        }
    }
}

/// The material of the private key whose `BEGIN` line ends at `from`: up
/// to its `END` line, else up to the first blank line or the end of
/// `text`.
fn key_material(text: &str, from: usize) -> std::ops::Range<usize> {
    let end = match KEY_END.find_at(text, from) {
        Some(m) => m.start(),
        None => {
            let rest = &text[from..];
            let blank = rest
                .find("\n\n")
                .into_iter()
                .chain(rest.find("\n\r\n"))
                .min();
            blank.map_or(text.len(), |b| from + b)
        }
    };
    from..end.max(from)
}

/// Finds credentials in `text`: (byte range, what it looks like).
pub fn find(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    find_with(text, &HintWords::of(text))
}

/// A credential as output may show it: of `range`, the first `keep` bytes
/// (the kind's prefix, `ghp_`, `AKIA`, a private key's `-----BEGIN … KEY`,
/// or the `password: ` of a pair) and never the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hidden {
    /// The credential's bytes in the text.
    pub range: std::ops::Range<usize>,
    /// How many of its first bytes only say what kind it is.
    pub keep: usize,
}

/// The end of a private key block.
static KEY_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----").expect("valid regex")
});

/// Whether every part of `text` [`hidden`] hides lies within one line
/// and is found in that line alone, so that its lines can be masked one
/// by one (only those shown): no private key block (hidden through its
/// `END` line) and no key word (a `password:` whose value is on a later
/// line). The other patterns match no white space; a word boundary at a
/// line's edge is one in the line alone too.
pub(crate) fn line_by_line(text: &str) -> bool {
    !text.contains("-----BEGIN ") && !KEY_WORD.is_match(text)
}

/// What of `text` output must hide: every credential [`find`] finds (so
/// what `secrets/detected` flags is what is masked), a private key from
/// its `BEGIN` line through its `END` line (to the end of the text when
/// there is none), since the key material is in the lines between.
/// Sorted, not overlapping.
pub(crate) fn hidden(text: &str) -> Vec<Hidden> {
    // Most printed strings hold neither a prefix nor a key word: one
    // search each rules them out before the hint words are collected.
    if !PREFIXES.is_match(text) && !KEY_WORD.is_match(text) && !text.contains("://") {
        return Vec::new();
    }
    let mut out: Vec<Hidden> = Vec::new();
    for Found {
        finding: Finding { range, what, .. },
        keep,
    } in found(text, &HintWords::of(text))
    {
        if out.last().is_some_and(|h| range.start < h.range.end) {
            continue;
        }
        let range = if what == PRIVATE_KEY {
            let end = KEY_END
                .find_at(text, range.end)
                .map_or(text.len(), |m| m.end());
            range.start..end
        } else {
            range
        };
        out.push(Hidden { range, keep });
    }
    out
}

/// Whether `text` may hold a key word of [`Hint::KeyWords`] in any case
/// (Unicode case folding included): texts without one need no hint words.
static KEY_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)password|passwd|pwd|secret|key|token").expect("valid regex"));

/// What [`PATTERNS`] calls a private key block.
const PRIVATE_KEY: &str = "a private key block";

/// [`find`], given the hint words of `text`.
pub(crate) fn find_with(
    text: &str,
    words: &HintWords,
) -> Vec<(std::ops::Range<usize>, &'static str)> {
    found(text, words)
        .into_iter()
        .map(|f| (f.finding.range, f.finding.what))
        .collect()
}

/// Every credential in `text`, given its hint words, with the secret
/// itself (for fingerprints).
pub(crate) fn findings_with(text: &str, words: &HintWords) -> Vec<Finding> {
    found(text, words).into_iter().map(|f| f.finding).collect()
}

/// A [`Finding`] and how many of its first bytes say only what kind it is
/// (see [`Hidden::keep`]).
struct Found {
    finding: Finding,
    keep: usize,
}

/// Every credential in `text`, sorted by where it starts.
fn found(text: &str, words: &HintWords) -> Vec<Found> {
    let mut out = Vec::new();
    let prefixed = PREFIXES.is_match(text);
    for p in PATTERNS.iter() {
        match &p.hint {
            Hint::Prefix if !prefixed => continue,
            Hint::Prefix => {}
            Hint::Url if !text.contains("://") => continue,
            Hint::Url => {}
            Hint::KeyWords => {
                if !key_assigned(text, words) && !words.folds_to_ascii {
                    continue;
                }
            }
        }
        for caps in p.regex().captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            let keep = match (p.opaque_group, p.secret_group) {
                (Some(g), _) => match caps.get(g) {
                    Some(v) if looks_opaque(v.as_str()) => v.start() - whole.start(),
                    _ => continue,
                },
                (_, Some(g)) => match caps.get(g) {
                    Some(v) if !placeholder(v.as_str()) => v.start() - whole.start(),
                    _ => continue,
                },
                // Without its closing dashes, so that what is shown is
                // never found again (which would hide the rest of a text
                // that holds no `END` line).
                _ if p.what == PRIVATE_KEY => whole.len() - "-----".len(),
                _ => PREFIXES
                    .find_at(text, whole.start())
                    .filter(|m| m.start() == whole.start())
                    .map_or(0, |m| m.len()),
            };
            if out.iter().any(|f: &Found| {
                f.finding.range.start < whole.end() && whole.start() < f.finding.range.end
            }) {
                continue;
            }
            // A URL's password ends before its `@`: the host stays shown.
            let end = p
                .secret_group
                .and_then(|g| caps.get(g))
                .map_or(whole.end(), |m| m.end());
            let value = match p.opaque_group.or(p.secret_group).and_then(|g| caps.get(g)) {
                Some(v) => v.range(),
                None if p.what == PRIVATE_KEY => key_material(text, whole.end()),
                None => whole.range(),
            };
            out.push(Found {
                finding: Finding {
                    range: whole.start()..end,
                    what: p.what,
                    value,
                },
                keep,
            });
        }
    }
    out.sort_by_key(|f| f.finding.range.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 4000, ..Default::default() })]

        /// A text [`line_by_line`] admits is hidden line by line as it is
        /// whole: each line (with its line break) alone hides the same
        /// bytes.
        #[test]
        fn line_by_line_is_the_whole(parts in proptest::collection::vec(0usize..200, 0..40)) {
            const PIECES: &[&str] = &[
                "\n", "\n", " ", "x", "é", "_", ".", "@", ":", "/", "https://", "user:Pa55w0rdXyz@",
                "example.org", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_", "AKIA",
                "IOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiIxMjM0In0",
                "sk-proj-abcdefghij0123456789", "glpat-", "abcdefghij0123456789", "xoxb-1234567890-abc",
                "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "password: ",
                "Xk9fQ2mLp8Rt4vWz7", "token=", "\u{212a}ey: ", "hf_abcdefghijklmnopqrstuvwxyz0123",
                "\t", "日本", "AccountKey=", "npm_abcdefghijklmnopqrstuvwxyz0123456789",
            ];
            let text: String = parts.iter().map(|&i| PIECES[i % PIECES.len()]).collect();
            if line_by_line(&text) {
                let whole = crate::syntax::sanitize::secrets_in_place(&text);
                let mut at = 0;
                for line in text.split_inclusive('\n') {
                    let alone = crate::syntax::sanitize::secrets_in_place(line);
                    proptest::prop_assert_eq!(&whole[at..at + line.len()], &*alone, "{:?}", text);
                    at += line.len();
                }
            }
        }
    }

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

    #[test]
    fn every_token_kind() {
        let tokens = [
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "ASIAIOSFODNN7EXAMPLE",
            "gho_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghij",
            "xoxb-1234567890-abcdef",
            "sk-proj-abcdefghij0123456789",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
        ];
        for t in tokens {
            assert_eq!(find(&format!("see {t} here")).len(), 1, "{t}");
        }
    }

    #[test]
    fn the_key_hint_is_its_pattern() {
        // Every text of four of these pieces: the words in any case,
        // overlapping (`weekey`, `passwordkey`), split, and what may follow.
        let hint = Regex::new(KEY_HINT).expect("valid regex");
        let pieces = [
            "key", "KEY", "Token", "passWD", "password", "Secret", "pwd", "wee", "passw", "ord",
            "api_", "\"", "'", " ", "\u{3000}", ":", "=", "日本",
        ];
        let mut seen = 0;
        for t in crate::syntax::text::every_text_of(&pieces, 4) {
            let hit = key_assigned(&t, &HintWords::of(&t));
            assert_eq!(hit, hint.is_match(&t), "{t:?}");
            seen += usize::from(hit);
        }
        assert!(seen > 1000, "{seen}");
    }

    #[test]
    fn key_values_in_any_case() {
        assert_eq!(find("PassWord: Xk9fQ2mLp8Rt4vWz7").len(), 1);
        assert_eq!(find("API_KEY=Xk9fQ2mLp8Rt4vWz7 日本").len(), 1);
        // Unicode case folding: the Kelvin sign is a `k`, the long s an `s`.
        assert_eq!(find("api_\u{212A}ey: Xk9fQ2mLp8Rt4vWz7").len(), 1);
        assert_eq!(find("pa\u{17F}sword: Xk9fQ2mLp8Rt4vWz7").len(), 1);
        // Unicode white space between the key and `=`.
        assert_eq!(find("api_key\u{3000}= Xk9fQ2mLp8Rt4vWz7").len(), 1);
        assert_eq!(find("Token\t\"= 'Xk9fQ2mLp8Rt4vWz7'").len(), 0);
        assert_eq!(find("Token\" \t= 'Xk9fQ2mLp8Rt4vWz7'").len(), 1);
    }

    /// Each family: a real-shaped example found, a near miss not.
    #[test]
    fn families_with_their_near_misses() {
        let cases: [(&str, &str); 12] = [
            ("glpat-xT7c9Qk2LmPz4RvW8yBn", "glpat-short"),
            ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_docs"),
            ("rk_test_51H8sdfKj3lQw9ZxCvB2nM4pL", "rk_test_"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
                "eyJhbGciOiJIUzI1NiJ9 alone",
            ),
            ("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", "hf_token"),
            ("npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm_install"),
            (
                "pypi-AgEIcHlwaS5vcmcCJDk3ZjA5ODc2LWE0ZDItNDhhMS04",
                "pypi-upload",
            ),
            (
                "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Xk9fQ2mLp8Rt4vWz7Xk9fQ2mLp8Rt4vWz7Xk9fQ2mLp8Rt4vWz7Xk9fQ2mLp8Rt4vWz==",
                "AccountKey=<key>",
            ),
            ("postgres://app:s3cr3t-Pa55@db.internal/ledger", "postgres://app:${DB_PASSWORD}@db/ledger"),
            ("password: Tr0ub4dor&3xyzQWERTY12345", "password: correct horse battery"),
            ("DB_PASSWORD=Xk9fQ2mLp8Rt4vWz7", "DB_PASSWORD=changeme"),
            ("client_secret: 9fQ2mLp8Rt4vWz7Kq1", "the secret: is-to-keep-it-simple"),
        ];
        for (hit, miss) in cases {
            assert_eq!(find(&format!("see {hit} here")).len(), 1, "{hit}");
            assert_eq!(find(&format!("see {miss} here")).len(), 0, "{miss}");
        }
    }

    #[test]
    fn a_url_password_is_masked_after_the_user() {
        let text = "dsn: postgres://app:s3cr3t-Pa55@db.internal/ledger";
        let h = hidden(text);
        assert_eq!(h.len(), 1);
        assert_eq!(
            &text[h[0].range.start..h[0].range.start + h[0].keep],
            "postgres://app:"
        );
        assert_eq!(
            &text[h[0].range.start + h[0].keep..h[0].range.end],
            "s3cr3t-Pa55"
        );
    }
}

//! YAML quoting knowledge: whether a plain scalar would be read as
//! something other than its text by some YAML reader, and so must be quoted
//! when memlint writes it (the formatter's quoting, `--fix`'s new values).

use crate::syntax::yaml::Resolved;
use regex::Regex;
use std::sync::LazyLock;

/// True when a plain scalar with this text is read as anything but that
/// string by a YAML 1.2 core-schema reader or a YAML 1.1 reader (booleans
/// such as `yes`/`on`, dates, `1_000`, `0b1`, `1:30`, `.5`, …). Nulls stay
/// as written: quoting them would turn "no value" into a word.
pub(crate) fn needs_quotes(t: &str) -> bool {
    if t.is_empty() {
        return false;
    }
    match crate::syntax::yaml::resolve_plain(t) {
        Resolved::Null => false,
        Resolved::Str => yaml11_non_string(t),
        Resolved::Bool(_) | Resolved::Int | Resolved::Float => true,
    }
}

static YAML11: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = [
        // bool
        r"y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
        // int: binary, octal, decimal, hex, sexagesimal
        r"[-+]?0b[0-1_]+",
        r"[-+]?0[0-7_]+",
        r"[-+]?(?:0|[1-9][0-9_]*)",
        r"[-+]?0x[0-9a-fA-F_]+",
        r"[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+",
        // float (PyYAML's and SnakeYAML's readings of YAML 1.1)
        r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?",
        r"[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?",
        r"[-+]?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)",
        r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        r"[-+]?\.(?:inf|Inf|INF)",
        r"\.(?:nan|NaN|NAN)",
        // timestamp
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
        r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?",
        // value and merge keys
        r"=|<<",
        // null
        r"~|null|Null|NULL",
    ]
    .join("|");
    #[allow(clippy::expect_used)]
    Regex::new(&format!("^(?:{pattern})$")).expect("the YAML 1.1 pattern is valid")
});

fn yaml11_non_string(t: &str) -> bool {
    // Every YAML 1.1 non-string starts with one of these and is short.
    let first = t.as_bytes()[0];
    if !(first.is_ascii_digit() || b"+-.yYnNtTfFoO=<~".contains(&first)) || t.len() > 64 {
        return false;
    }
    YAML11.is_match(t)
}

/// `s` as a YAML value: plain when every reader reads it back as that
/// string, single-quoted otherwise.
pub(crate) fn plain_or_quoted(s: &str) -> String {
    if needs_quotes(s) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        s.to_string()
    }
}

//! Property tests for the formatter over generated front matter: random key
//! order, known and unknown keys, comments (whole-line and after values),
//! every scalar style, block and flow lists, nested mappings, blank lines,
//! trailing spaces, CRLF, BOM and unicode. Properties: what parses is never
//! skipped; formatting is idempotent; the meaning, the comments and the body
//! are preserved; the output is canonical (LF, no BOM, one final newline,
//! keys in the kind's order).

use memlint::fmt::{comments, crlf_to_lf, format_record, record_meaning, Outcome};
use memlint::model::kind::Kind;
use memlint::syntax::frontmatter::{self, Split};
use memlint::syntax::yaml::{self, Node};
use proptest::prelude::*;

const KEYS: &[&str] = &[
    "title",
    "status",
    "date",
    "sources",
    "replaced_by",
    "tags",
    "slug",
    "description",
    "model_invocation",
    "id",
    "created",
    "updated",
    "source",
    "project_root",
    "extra",
    "meta",
    "x-ünï",
    "on",
    "applyTo",
];

const WORDS: &[&str] = &[
    "Use gix",
    "yes",
    "on",
    "No",
    "y",
    "1e3",
    "12",
    "-7",
    "null",
    "~",
    "true",
    "2026-01-01",
    "2026-11-01T10:00:00Z",
    "日本語のタイトル",
    "naïve café",
    "a-b",
    "x_y",
    "1.10",
    "O'Neil",
    "50%",
    "0x1F",
    "1_000",
    "1:30",
    ".5",
    "=",
    "active",
    "replaced",
    "staging:20261101-101500-0a9f",
    "https://example.com/a?b=c",
    "Ünïcödé ✓",
    "emoji 🎉 here",
    "a,b",
    "C:\\Users\\dev",
    "/home/dev/x",
];

/// Words that can stand in a flow list as written.
const FLOW_WORDS: &[&str] = &[
    "git",
    "yes",
    "on",
    "12",
    "日本語",
    "naïve",
    "x_y",
    "a-b",
    "null",
    "1e3",
    "2026-01-01",
];

fn plain() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(WORDS).prop_map(str::to_string),
        "[A-Za-z\u{e4}\u{65e5}][A-Za-z0-9 \u{e4}\u{65e5}\u{1f389}._/-]{0,24}"
            .prop_map(|s| s.trim_end().to_string()),
    ]
}

fn single_quoted() -> impl Strategy<Value = String> {
    "[ -~\u{e4}\u{65e5}\u{1f389}]{0,20}".prop_map(|s| format!("'{}'", s.replace('\'', "''")))
}

fn double_quoted() -> impl Strategy<Value = String> {
    ("[ -~\u{e4}\u{65e5}]{0,20}", prop::bool::ANY).prop_map(|(s, esc)| {
        let body = s.replace('\\', "\\\\").replace('"', "\\\"");
        if esc {
            format!("\"{body}\\t\\u00e9\"")
        } else {
            format!("\"{body}\"")
        }
    })
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => plain(),
        2 => single_quoted(),
        2 => double_quoted(),
        1 => Just(String::new()),
    ]
}

fn flow_item() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(FLOW_WORDS).prop_map(str::to_string),
        1 => single_quoted(),
        1 => double_quoted(),
    ]
}

fn block_item() -> impl Strategy<Value = String> {
    prop_oneof![3 => plain(), 1 => single_quoted(), 1 => double_quoted()]
}

/// A value: the text after `key:` (including its line breaks).
fn value() -> impl Strategy<Value = String> {
    let comment = || prop::option::weighted(0.3, "[ -~\u{e4}\u{65e5}]{0,12}");
    let after = |c: Option<String>| c.map(|c| format!(" # {c}")).unwrap_or_default();
    prop_oneof![
        6 => (scalar(), comment()).prop_map(move |(s, c)| {
            if s.is_empty() { after(c) } else { format!(" {s}{}", after(c)) }
        }),
        2 => (prop::collection::vec(flow_item(), 0..5), prop::bool::ANY, comment()).prop_map(
            move |(items, spaced, c)| {
                let sep = if spaced { ", " } else { "," };
                format!(" [{}]{}", items.join(sep), after(c))
            }
        ),
        3 => (
            prop::collection::vec((block_item(), prop::option::weighted(0.15, "[a-z ]{0,8}")), 1..5),
            prop::bool::ANY,
            comment(),
        )
            .prop_map(move |(items, indent, c)| {
                let pad = if indent { "  " } else { "" };
                let mut s = after(c);
                for (item, cm) in items {
                    s.push_str(&format!("\n{pad}- {item}"));
                    if let Some(cm) = cm {
                        s.push_str(&format!(" # {cm}"));
                    }
                }
                s
            }),
        2 => (
            prop::sample::select(&["|", ">", "|-", ">-", "|+", ">+", "|2"][..]),
            prop::collection::vec("[ -~\u{e4}]{0,16}", 1..4),
            prop::bool::ANY,
        )
            .prop_map(|(ind, lines, blank)| {
                let mut s = format!(" {ind}");
                for l in lines {
                    s.push_str(&format!("\n  x{l}"));
                }
                if blank {
                    s.push('\n');
                }
                s
            }),
        1 => (plain(), "[a-z]{1,8}").prop_map(|(a, b)| format!(" {a}\n  {b}")),
        1 => ("[a-z]{1,6}", scalar(), comment()).prop_map(move |(k, v, c)| {
            format!("\n  {k}: {}\n  other:{}\n    - [x, y]", if v.is_empty() { "~".into() } else { v }, after(c))
        }),
    ]
}

#[derive(Debug, Clone)]
struct Entry {
    key: String,
    value: String,
    comment_before: Option<String>,
    blank_before: bool,
    trailing_spaces: bool,
}

fn entries() -> impl Strategy<Value = Vec<Entry>> {
    prop::sample::subsequence(KEYS, 0..=10)
        .prop_shuffle()
        .prop_flat_map(|keys| {
            let n = keys.len();
            (
                Just(keys),
                prop::collection::vec(value(), n),
                prop::collection::vec(prop::option::weighted(0.25, "[ -~\u{65e5}]{0,14}"), n),
                prop::collection::vec(prop::bool::weighted(0.15), n),
                prop::collection::vec(prop::bool::weighted(0.15), n),
            )
        })
        .prop_map(|(keys, values, comments, blanks, trailing)| {
            keys.into_iter()
                .zip(values)
                .zip(comments)
                .zip(blanks)
                .zip(trailing)
                .map(
                    |((((key, value), comment_before), blank_before), trailing_spaces)| Entry {
                        key: key.to_string(),
                        value,
                        comment_before,
                        blank_before,
                        trailing_spaces,
                    },
                )
                .collect()
        })
}

fn body() -> impl Strategy<Value = String> {
    let line = prop::sample::select(
        &[
            "text",
            "---",
            "",
            "# heading",
            "  trailing  ",
            "日本語の本文",
            "\ttab",
            "a\rb",
            "key: value",
            "```",
        ][..],
    );
    (prop::collection::vec(line, 0..8), 0usize..3).prop_map(|(lines, finals)| {
        let mut s = lines.join("\n");
        s.push_str(&"\n".repeat(finals));
        s
    })
}

fn kind() -> impl Strategy<Value = Kind> {
    prop::sample::select(Kind::ALL.to_vec())
}

#[derive(Debug, Clone)]
struct Record {
    kind: Kind,
    text: String,
}

fn record() -> impl Strategy<Value = Record> {
    (
        kind(),
        entries(),
        prop::option::weighted(0.2, "[ -~]{0,14}"),
        body(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(kind, entries, header, body, crlf, bom, delimiter_space)| {
                let mut fm = String::new();
                if let Some(h) = header {
                    fm.push_str(&format!("# {h}\n\n"));
                }
                for e in entries {
                    if e.blank_before {
                        fm.push('\n');
                    }
                    if let Some(c) = e.comment_before {
                        fm.push_str(&format!("# {c}\n"));
                    }
                    fm.push_str(&format!("{}:{}", e.key, e.value));
                    if e.trailing_spaces {
                        fm.push_str("  ");
                    }
                    fm.push('\n');
                }
                let open = if delimiter_space { "--- " } else { "---" };
                let mut text = format!("{open}\n{fm}---\n{body}");
                if crlf {
                    text = text.replace('\n', "\r\n");
                }
                if bom {
                    text.insert(0, '\u{feff}');
                }
                Record { kind, text }
            },
        )
}

struct Read {
    root: Option<Node>,
    yaml: std::ops::Range<usize>,
    body: std::ops::Range<usize>,
}

fn read(text: &str) -> Option<Read> {
    let Split::Found(parts) = frontmatter::split(text) else {
        return None;
    };
    let doc = yaml::parse(&text[parts.yaml.clone()], parts.yaml.start).ok()?;
    Some(Read {
        root: doc.root,
        yaml: parts.yaml,
        body: parts.body,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    #[test]
    fn formatting_is_idempotent_and_lossless(r in record()) {
        let Some(input) = read(&r.text) else {
            // The generator wrote something YAML does not accept; nothing to check.
            return Ok(());
        };
        let out = match format_record(&r.text, r.kind) {
            Outcome::Unchanged => r.text.clone(),
            Outcome::Formatted(out) => out,
            Outcome::Skipped { reason } => {
                return Err(TestCaseError::fail(format!("skipped: {reason}\n{}", r.text)));
            }
        };
        prop_assert_eq!(format_record(&out, r.kind), Outcome::Unchanged, "not idempotent:\n{}", out);
        let output = read(&out).ok_or_else(|| TestCaseError::fail("output does not parse"))?;
        prop_assert_eq!(
            record_meaning(input.root.as_ref(), r.kind),
            record_meaning(output.root.as_ref(), r.kind),
            "meaning changed:\n{}\n=>\n{}", r.text, out
        );
        prop_assert_eq!(
            comments(&r.text, input.yaml.clone(), input.root.as_ref()),
            comments(&out, output.yaml.clone(), output.root.as_ref())
        );
        let body_in = crlf_to_lf(&r.text[input.body.clone()]).into_owned();
        prop_assert_eq!(
            body_in.trim_end_matches(['\n', '\r']),
            out[output.body.clone()].trim_end_matches(['\n', '\r'])
        );
        let lf_only = !out.contains("\r\n") && !out.starts_with('\u{feff}');
        prop_assert!(lf_only, "CRLF or BOM left");
        prop_assert!(out.ends_with('\n') && !out.ends_with("\n\n"));
        prop_assert!(out.starts_with("---\n"));
        // Known keys in the kind's order, before the unknown ones.
        let ranks: Vec<usize> = output
            .root
            .as_ref()
            .and_then(|n| n.entries())
            .unwrap_or(&[])
            .iter()
            .map(|e| {
                let k = e.key.as_scalar().map_or("", |s| s.text.as_str());
                r.kind.fields().iter().position(|f| f.key == k).unwrap_or(usize::MAX)
            })
            .collect();
        prop_assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "key order {:?}\n{}", ranks, out);
        for line in out[output.yaml.clone()].lines() {
            let in_block = line.starts_with(' ');
            prop_assert!(in_block || !line.ends_with(' '), "trailing space: {:?}", line);
        }
    }
}

/// Pieces that make YAML awkward: anchors, aliases, tags, flow mappings,
/// complex keys, tabs, indentation, document markers, stray quotes.
const NOISE: &[&str] = &[
    "&a ",
    "*a",
    "!!str ",
    "!x ",
    "{",
    "}",
    "[",
    "]",
    "? ",
    ": ",
    "\t",
    "  ",
    "\n",
    "\r",
    "#",
    "'",
    "\"",
    "- ",
    "...\n",
    "--- ",
    "|",
    ">",
    "\u{feff}",
    ",",
    "%YAML 1.2\n",
];

fn mutated() -> impl Strategy<Value = (Kind, String)> {
    (
        record(),
        prop::collection::vec(
            (any::<prop::sample::Index>(), prop::sample::select(NOISE)),
            1..4,
        ),
    )
        .prop_map(|(r, noise)| {
            let mut text = r.text;
            for (at, piece) in noise {
                let mut i = at.index(text.len() + 1);
                while !text.is_char_boundary(i) {
                    i -= 1;
                }
                text.insert_str(i, piece);
            }
            (r.kind, text)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    /// Whatever the input, the formatter either leaves it alone or keeps
    /// everything it means.
    #[test]
    fn mutated_input_never_loses((kind, text) in mutated()) {
        let Outcome::Formatted(out) = format_record(&text, kind) else {
            return Ok(());
        };
        let input = read(&text).ok_or_else(|| TestCaseError::fail("formatted input that does not parse"))?;
        let output = read(&out).ok_or_else(|| TestCaseError::fail("output does not parse"))?;
        prop_assert_eq!(format_record(&out, kind), Outcome::Unchanged, "not idempotent:\n{}", out);
        prop_assert_eq!(
            record_meaning(input.root.as_ref(), kind),
            record_meaning(output.root.as_ref(), kind)
        );
        prop_assert_eq!(
            comments(&text, input.yaml.clone(), input.root.as_ref()),
            comments(&out, output.yaml.clone(), output.root.as_ref())
        );
    }
}

#[test]
fn generator_mostly_writes_valid_yaml() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = record();
    let mut valid = 0;
    for _ in 0..500 {
        let r = strategy.new_tree(&mut runner).expect("a value").current();
        if read(&r.text).is_some() {
            valid += 1;
        }
    }
    assert!(valid > 400, "only {valid} of 500 generated records parse");
}

//! memlint's own renderer against miette's: the same bytes for every
//! report it draws, over random and edge-case texts, spans, messages and
//! widths.

use super::*;
use crate::model::rule::Rule;
use proptest::prelude::*;

/// Pieces texts are made of: multi-byte and wide characters, tabs, CRLF,
/// control and invisible characters, code spans, credentials (some over
/// several lines).
const PIECES: &[&str] = &[
    "a",
    "word ",
    "  ",
    "é",
    "日本語",
    "\t",
    "\r\n",
    "\n",
    "\n",
    "\n",
    "`code span`",
    "-",
    "x",
    "\u{1b}[31m",
    "\u{7}",
    "\u{200d}",
    "👩",
    "\u{fe0f}",
    "\r",
    "…",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "password: Xk9fQ2mLp8Rt4vWz7",
    "\u{202e}",
    "　",
    "ｆｕｌｌ",
    "token:\n",
    "Yk9fQ2mLp8Rt4vWz7\n",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "MIIEowIBAAKCAQEA\n",
    "https://u:Pa55w0rdXyz@example.org",
];

fn text_of(parts: &[usize]) -> String {
    parts.iter().map(|&i| PIECES[i % PIECES.len()]).collect()
}

/// A text of some lines, sometimes long ones, sometimes many (line numbers
/// of one, two and three digits).
fn source() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(0usize..100, 0..40),
        0usize..4,
        0usize..130,
    )
        .prop_map(|(parts, long, lines)| {
            let mut t = "\n".repeat(lines);
            t.push_str(&text_of(&parts));
            if long > 0 {
                t.push_str(&"long line 長い ".repeat(long * 20));
                t.push_str(&text_of(&parts));
            }
            t
        })
}

/// A message: words, code spans, wide characters, sometimes long.
fn message() -> impl Strategy<Value = String> {
    proptest::collection::vec(0usize..100, 0..60).prop_map(|parts| {
        parts
            .iter()
            .map(|&i| match i % 9 {
                0 => "`memory/decisions/a-long-slug-name.md`",
                1 => "changed",
                2 => "日本語の文",
                3 => " ",
                4 => "after-this-record",
                5 => "\t",
                6 => "was",
                7 => "é",
                _ => "x",
            })
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The nearest character boundary of `text` at or after `o`.
fn ceil(text: &str, o: usize) -> usize {
    let mut o = o.min(text.len());
    while !text.is_char_boundary(o) {
        o += 1;
    }
    o
}

fn diagnostic(
    text: &str,
    (a, b): (usize, usize),
    message: String,
    fixable: bool,
    error: bool,
) -> Diagnostic {
    let (a, b) = (ceil(text, a.min(b)), ceil(text, a.max(b)));
    Diagnostic {
        rule: Rule::from_name("sources/drifted").expect("a rule"),
        severity: if error {
            Severity::Error
        } else {
            Severity::Warning
        },
        path: "memory/decisions/x.md".into(),
        line: 3,
        column: 7,
        end_line: 3,
        end_column: 9,
        message,
        fixable,
        span: a..b,
        omitted: 0,
        commits: Default::default(),
    }
}

/// What `check` wrote before it had a renderer of its own (miette, then
/// the last pass over everything), and what it writes now.
fn old_and_new(diags: &[Diagnostic], text: &str, width: usize) -> (String, String, bool) {
    let sources: HashMap<String, String> = [(diags[0].path.clone(), text.to_string())].into();
    let summary = Summary::of(1, diags);
    let old = rendered_by(diags, &sources, summary, false, width, false);
    assert!(old.shown.is_empty());
    let old = sanitize::terminal(&old.text, false).into_owned();
    let new = rendered(diags, &sources, summary, false, width);
    let own = !new.shown.is_empty();
    let written = new
        .pieces()
        .map(|(p, shown)| match shown {
            true => p.to_string(),
            false => sanitize::terminal(p, false).into_owned(),
        })
        .collect();
    (old, written, own)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Whole reports through `human`: the output written is the same.
    #[test]
    fn check_output_is_the_same(
        text in source(),
        span in (0usize..4000, 0usize..4000),
        message in message(),
        fixable: bool,
        error: bool,
        width in 10usize..140,
    ) {
        let d = diagnostic(&text, span, message.clone(), fixable, error);
        // The same message again, of the other severity, and again: its
        // wrapping is remembered per severity.
        let again = diagnostic(&text, (span.1, span.0 / 2), message, !fixable, !error);
        let diags = [d.clone(), again, d];
        let (old, new, _) = old_and_new(&diags, &text, width);
        prop_assert_eq!(old, new);
    }

    /// The renderer alone on any window, any span in it, any first line
    /// number: what it draws is what miette draws.
    #[test]
    fn own_report_is_miettes(
        parts in proptest::collection::vec(0usize..100, 0..30),
        span in (0usize..400, 0usize..400),
        first_line in prop_oneof![0usize..3, 5usize..12, 95usize..102, 995usize..1001],
        message in message(),
        fixable: bool,
        error: bool,
        width in 10usize..140,
        no_source: bool,
    ) {
        let text = text_of(&parts);
        let d = diagnostic(&text, span, message, fixable, error);
        let window = Window { text: text.clone(), first_line, recheck: false };
        let shown = Diagnostic { path: "p".into(), ..d };
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(width)
            .with_break_words(false)
            .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
            .with_word_separator(textwrap::WordSeparator::Custom(message_words))
            .with_context_lines(1)
            .without_primary_span_start();
        let mut miette = String::new();
        let report = Report {
            d: &shown,
            source: (!no_source).then(|| NamedSource::new("p:3:7", window)),
        };
        let failed = handler.render_report(&mut miette, &report).is_err();
        let shape = graphical::Shape {
            severity: shown.severity,
            rule: "sources/drifted",
            message: &shown.message,
            help: shown.fixable.then_some(FIX_HELP),
            snippet: (!no_source).then(|| graphical::Snippet {
                name: "p:3:7",
                text: &text,
                first_line,
                span: shown.span.clone(),
            }),
        };
        let mut own = String::new();
        if graphical::Drawer::new(graphical::Wrap { width, words: message_words }).report(&mut own, &shape) {
            prop_assert!(!failed);
            prop_assert_eq!(miette, own);
        } else {
            prop_assert!(own.is_empty());
        }
    }
}

/// The edge cases by name: each is drawn by memlint's renderer (not left
/// to miette) and written as before.
#[test]
fn edge_cases_are_drawn_and_the_same() {
    let nine = "l\n".repeat(8);
    let ninety_nine = "l\n".repeat(98);
    let cases: Vec<(String, std::ops::Range<usize>)> = vec![
        ("sources:\n  - file:src/a.rs\nend\n".into(), 13..26),
        // An empty span, at the start, at a line's end, at the end.
        ("abc\ndef\n".into(), 0..0),
        ("abc\ndef\n".into(), 3..3),
        ("abc\ndef".into(), 7..7),
        ("abc\ndef\n".into(), 8..8),
        // The last line without a line break.
        ("abc\ndef".into(), 4..7),
        // Line numbers from 9 to 10, and 99 to 100.
        (format!("{nine}nine\nten\n"), 16..20),
        (format!("{nine}nine\nten\n"), 21..24),
        (format!("{ninety_nine}x\ny\n"), 196..197),
        // Wide characters, tabs, CRLF.
        ("日本語の\tテキスト\n次\n".into(), 9..16),
        ("a\tb\tc\n".into(), 2..5),
        ("one\r\ntwo\r\nthree\r\n".into(), 5..8),
        // A long line, cut around the span.
        (
            format!("{}TARGET{}\n", "x".repeat(300), "y".repeat(300)),
            300..306,
        ),
        // A span over its line's break.
        ("abc\ndef\n".into(), 1..4),
    ];
    let mut drawn = 0;
    for (text, span) in cases {
        for width in [12, 40, 100] {
            for (fixable, error) in [(false, false), (true, true)] {
                let long = "a message long enough to wrap at a narrow width: `file:src/mod0165.rs` changed";
                let d = Diagnostic {
                    span: span.clone(),
                    ..diagnostic(&text, (0, 0), long.into(), fixable, error)
                };
                let (old, new, own) = old_and_new(&[d], &text, width);
                assert_eq!(old, new, "{text:?} {span:?} {width}");
                drawn += usize::from(own);
            }
        }
    }
    // All but the long line (cut: it takes the last pass) are drawn by
    // memlint's renderer and skip the last pass.
    assert_eq!(drawn, 13 * 6);
}

/// A finding on a file with no text: the shape without source.
#[test]
fn no_source_is_drawn_and_the_same() {
    let d = diagnostic("", (0, 0), "file too large".into(), false, true);
    let (old, new, own) = old_and_new(&[d], "", 100);
    assert_eq!(old, new);
    assert!(own);
    assert!(
        new.contains("memory/decisions/x.md:3:7: file too large"),
        "{new}"
    );
}

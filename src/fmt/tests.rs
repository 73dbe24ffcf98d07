use super::*;

fn fmt(text: &str, kind: Kind) -> String {
    match format_record(text, kind) {
        Outcome::Unchanged => text.to_string(),
        Outcome::Formatted(s) => {
            assert_eq!(
                format_record(&s, kind),
                Outcome::Unchanged,
                "not idempotent:\n{s}"
            );
            s
        }
        Outcome::Skipped { reason } => panic!("skipped: {reason}"),
    }
}

fn skipped(text: &str, kind: Kind) -> String {
    match format_record(text, kind) {
        Outcome::Skipped { reason } => reason,
        other => panic!("expected a skip, got {other:?}"),
    }
}

#[test]
fn canonical_is_unchanged() {
    let t = "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - commit:abc1234\ntags: [git, io]\n---\n\n# Body\n";
    assert_eq!(format_record(t, Kind::Decision), Outcome::Unchanged);
}

#[test]
fn reorders_keys_with_their_comments() {
    let t = "---\n# the date\ndate: 2026-11-01\nextra: 1 # unknown\ntitle: T # the title\nsources:\n  - a:b\nstatus: active\nzzz: 2\n---\nbody\n";
    let out = fmt(t, Kind::Decision);
    assert_eq!(
        out,
        "---\ntitle: T # the title\nstatus: active\n# the date\ndate: 2026-11-01\nsources:\n  - a:b\nextra: 1 # unknown\nzzz: 2\n---\nbody\n"
    );
}

#[test]
fn line_endings_bom_delimiters_and_final_newline() {
    let t = "\u{feff}--- \r\ntitle: T  \r\nstatus: active\r\n---\t\r\nbody  \r\nmore\r\n\r\n\r\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\ntitle: T\nstatus: active\n---\nbody  \nmore\n"
    );
    assert_eq!(
        fmt("---\ntitle: T\n---\nno newline", Kind::Decision),
        "---\ntitle: T\n---\nno newline\n"
    );
    assert_eq!(
        fmt("---\ntitle: T\n---", Kind::Decision),
        "---\ntitle: T\n---\n"
    );
    assert_eq!(
        fmt("---\ntitle: T\n---\n\n\n", Kind::Decision),
        "---\ntitle: T\n---\n"
    );
}

#[test]
fn body_is_kept_byte_for_byte() {
    let body = "x\n---\n  trailing  \n\ttab\r\u{a0}nbsp\u{2028}\n# heading\n";
    let t = format!("---\ntitle: T\n---\n{body}");
    assert_eq!(format_record(&t, Kind::Decision), Outcome::Unchanged);
    let t = format!("---\ntitle: T\n---{body}");
    let _ = t;
    let t = "---\ntitle: T\n---\nright after";
    assert!(fmt(t, Kind::Decision).ends_with("---\nright after\n"));
}

#[test]
fn list_layouts() {
    let t = "---\nsources: [a:b, 'c:d', \"e:f\"]\ntags:\n  - x\n  - 'y'\n---\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\nsources:\n  - a:b\n  - 'c:d'\n  - \"e:f\"\ntags: [x, 'y']\n---\n"
    );
    // Zero-indented block list and a multi-line flow list.
    let t = "---\nsources:\n- a:b\n-   c:d\ntags: [\n  x,\n  z,\n]\n---\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\nsources:\n  - a:b\n  - c:d\ntags: [x, z]\n---\n"
    );
    // A comment after the list stays on its line.
    let t = "---\nsources: [a:b] # only one\ntags:\n  - x # last\n---\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\nsources:\n  - a:b # only one\ntags: [x] # last\n---\n"
    );
    // Session tags are a flow list too.
    let t = "---\nid: CMEM-20261101-101500\ntags:\n  - a b\n---\n";
    assert_eq!(
        fmt(t, Kind::Session),
        "---\nid: CMEM-20261101-101500\ntags: [a b]\n---\n"
    );
}

#[test]
fn lists_that_keep_their_layout() {
    for t in [
        // comments between items
        "---\nsources:\n  # first\n  - a:b\n  - c:d\n---\n",
        "---\ntags:\n  - x # why\n  - z\n---\n",
        // items that cannot move into a flow list as written
        "---\ntags:\n  - a,b\n  - c\n---\n",
        "---\ntags:\n  - 'a'\n  - url:x\n---\n",
        // anchors, aliases, tags, nested items, multi-line items
        "---\nsources:\n  - &s a:b\n  - *s\n---\n",
        "---\ntags: [!!str x]\n---\n",
        "---\ntags:\n  - [x]\n---\n",
        "---\nsources: ['a\n  b']\n---\n",
        "---\nsources: []\ntags: []\n---\n",
        "---\nsources:\n---\n",
        "---\ntags: x\n---\n",
    ] {
        let out = fmt(t, Kind::Decision);
        assert_eq!(out, t, "layout changed");
    }
}

#[test]
fn quotes_values_some_reader_reads_as_non_strings() {
    for (plain, quoted) in [
        ("yes", "'yes'"),
        ("on", "'on'"),
        ("No", "'No'"),
        ("y", "'y'"),
        ("true", "'true'"),
        ("1e3", "'1e3'"),
        ("12", "'12'"),
        ("1_000", "'1_000'"),
        ("0b101", "'0b101'"),
        ("1:30", "'1:30'"),
        (".5", "'.5'"),
        ("1.10", "'1.10'"),
        (".inf", "'.inf'"),
        ("2026-01-01", "'2026-01-01'"),
        ("2001-12-14 21:59:43.10 -5", "'2001-12-14 21:59:43.10 -5'"),
        ("=", "'='"),
        ("<<", "'<<'"),
    ] {
        let t = format!("---\ntitle: {plain}\n---\n");
        assert_eq!(
            fmt(&t, Kind::Decision),
            format!("---\ntitle: {quoted}\n---\n"),
            "{plain}"
        );
    }
    for plain in [
        "Use gix",
        "yesterday",
        "2026-01-01 release",
        "1.2.3",
        "v1",
        "Ono",
        "O'Neil",
        "null",
        "~",
    ] {
        let t = format!("---\ntitle: {plain}\n---\n");
        assert_eq!(fmt(&t, Kind::Decision), t, "{plain}");
    }
}

#[test]
fn dates_bools_unknown_and_quoted_values_stay() {
    let t = "---\ntitle: 'yes'\ndescription: \"on\"\nmodel_invocation: yes\ndate: 2026-11-01\nextra: yes\nnested:\n  title: yes\n---\n";
    assert_eq!(fmt(t, Kind::Knowledge), t);
    let t = "---\nid: 20261101-101500-0a9f\nsource: yes\ncreated: 2026-11-01T10:00:00Z\n---\n";
    assert_eq!(
        fmt(t, Kind::Staging),
        "---\nid: 20261101-101500-0a9f\nsource: 'yes'\ncreated: 2026-11-01T10:00:00Z\n---\n"
    );
}

#[test]
fn list_items_gain_quotes() {
    let t = "---\ntags:\n  - yes\n  - 2024\nsources: [on, a:b]\n---\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\nsources:\n  - 'on'\n  - a:b\ntags: ['yes', '2024']\n---\n"
    );
    // Kept layout, still quoted.
    let t = "---\ntags:\n  - yes # why\n  - no\n---\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\ntags:\n  - 'yes' # why\n  - 'no'\n---\n"
    );
}

#[test]
fn block_scalars_and_multi_line_strings_survive() {
    let t = "---\nzz: |\n  keep  \n   trailing  \n\n  lines\ndescription: >-\n  folded\n  text\ntitle: \"multi\n  line  \n  quoted\"\nstatus: plain\n  multi   \n  line\n---\n";
    let out = fmt(t, Kind::Knowledge);
    assert_eq!(
        out,
        "---\ntitle: \"multi\n  line  \n  quoted\"\ndescription: >-\n  folded\n  text\nstatus: plain\n  multi\n  line\nzz: |\n  keep  \n   trailing  \n\n  lines\n---\n"
    );
}

#[test]
fn kept_trailing_lines_of_a_last_block_scalar() {
    let t = "---\nzz: |+\n  a\n\ntitle: T\n---\n";
    let out = fmt(t, Kind::Decision);
    assert_eq!(out, "---\ntitle: T\nzz: |+\n  a\n\n---\n");
}

#[test]
fn header_comments_stay_on_top() {
    let t = "---\n# NOTE: generated\n# do not edit\n\n# about the description\ndescription: d\ntitle: T\n---\n";
    assert_eq!(
        fmt(t, Kind::Knowledge),
        "---\n# NOTE: generated\n# do not edit\n\ntitle: T\n# about the description\ndescription: d\n---\n"
    );
}

#[test]
fn blank_lines_at_the_ends_go() {
    let t = "---\n\n\nextra: 1\n\ntitle: T\n\n\n---\nbody\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\ntitle: T\nextra: 1\n---\nbody\n"
    );
    assert_eq!(
        fmt("---\n\n  \n---\nbody\n", Kind::Decision),
        "---\n---\nbody\n"
    );
    assert_eq!(
        fmt("---\n# only a comment\n---\n", Kind::Decision),
        "---\n# only a comment\n---\n"
    );
}

#[test]
fn nested_unknown_mappings_move_whole() {
    let t = "---\nmeta:\n  a: 1 # c\n  # inner\n  b: [x, y]\n  c:\n    - &n deep\n    - *n\ntitle: T\n---\n";
    assert_eq!(
        fmt(t, Kind::Decision),
        "---\ntitle: T\nmeta:\n  a: 1 # c\n  # inner\n  b: [x, y]\n  c:\n    - &n deep\n    - *n\n---\n"
    );
}

#[test]
fn indented_keys_are_dedented() {
    let t = "---\n  description: d\n  title: T\n  sources:\n    - a:b\n  extra: |\n    x\n---\n";
    assert_eq!(
        fmt(t, Kind::Knowledge),
        "---\ntitle: T\ndescription: d\nsources:\n  - a:b\nextra: |\n  x\n---\n"
    );
}

#[test]
fn alias_before_its_anchor_is_not_written() {
    let t = "---\nextra: &t T\ntitle: *t\n---\n";
    let reason = skipped(t, Kind::Decision);
    assert!(
        reason.contains("does not parse") || reason.contains("mean"),
        "{reason}"
    );
    // The same file with the anchor first is fine.
    let t = "---\ntitle: &t T\nextra: *t\n---\n";
    assert_eq!(fmt(t, Kind::Decision), t);
}

#[test]
fn what_is_never_rewritten() {
    for (t, why) in [
        ("---\n{title: T, status: active}\n---\n", "flow mapping"),
        ("---\ntitle: a\ntitle: b\n---\n", "appears twice"),
        ("---\ntitle: a: b\n---\n", "does not parse"),
        ("# no front matter\n", "no front matter"),
        ("---\ntitle: T\n", "no closing"),
        ("+++\ntitle = 'T'\n+++\n", "TOML"),
        ("---\n- a\n- b\n---\n", "not a mapping"),
        ("---\ntitle: T\rstatus: active\n---\n", "carriage return"),
        ("---\n? [a, b]\n: c\n---\n", "key"),
        ("---\ntitle: T\n...\n---\n", "between the keys"),
        ("---\ntitle: T\0\n---\n", "NUL"),
        ("", "empty"),
    ] {
        let reason = skipped(t, Kind::Decision);
        assert!(reason.contains(why), "{t:?}: {reason}");
    }
}

#[test]
fn bare_cr_in_body_is_kept() {
    let t = "---\r\ntitle: T\r\n---\r\na\rb\r\n";
    assert_eq!(fmt(t, Kind::Decision), "---\ntitle: T\n---\na\rb\n");
}

#[test]
fn comments_are_found_outside_scalars() {
    let t = "a: 'x # no' # yes\nb: |\n  # not a comment\n# whole line\nc: d#e\n";
    let doc = crate::syntax::yaml::parse(t, 0).unwrap();
    let c = comments(t, 0..t.len(), doc.root.as_ref());
    assert_eq!(c, vec!["# whole line", "# yes"]);
}

#[test]
fn needs_quotes_cases() {
    assert!(needs_quotes("Yes"));
    assert!(needs_quotes("0o17"));
    assert!(needs_quotes("0x1F"));
    assert!(needs_quotes("-1"));
    assert!(!needs_quotes("null"));
    assert!(!needs_quotes("hello"));
    assert!(!needs_quotes("2026-11-01T10:00"));
    assert!(needs_quotes("2026-11-01T10:00:00Z"));
}

#[test]
fn regression_cr_run_before_lf() {
    let t = "---\r\ntitle: T\r\n---\r\nx\r\r\ny\r\n";
    assert_eq!(fmt(t, Kind::Decision), "---\ntitle: T\n---\nx\ny\n");
}

/// Found by the property tests: a block moved right after a `|+` scalar
/// brought a blank line that joined the scalar's value.
#[test]
fn regression_blank_line_after_keep_block_scalar() {
    let t = "---\nzz: |+\n  x\n# c\nid: I\n\n# d\nyy: 1\n---\n";
    assert_eq!(
        fmt(t, Kind::Session),
        "---\n# c\nid: I\nzz: |+\n  x\n# d\nyy: 1\n---\n"
    );
}

/// Found by the property tests: an item that needed quotes kept the block
/// layout on the first run and moved to a flow list on the second.
#[test]
fn regression_quoted_item_moves_to_flow_list_at_once() {
    let t = "---\ntags:\n- 1:30\n- a,b\n---\n";
    assert_eq!(fmt(t, Kind::Decision), "---\ntags:\n- '1:30'\n- a,b\n---\n");
    let t = "---\ntags:\n- 1:30\n---\n";
    assert_eq!(fmt(t, Kind::Decision), "---\ntags: ['1:30']\n---\n");
}

/// Found by the property tests: a body ending in a bare CR gained a CRLF.
#[test]
fn regression_bare_cr_at_the_end() {
    assert_eq!(
        fmt("---\ntitle: T\n---\ntext\r", Kind::Decision),
        "---\ntitle: T\n---\ntext\n"
    );
    assert_eq!(
        fmt("---\ntitle: T\n---\ntext\n\r\n\r", Kind::Decision),
        "---\ntitle: T\n---\ntext\n"
    );
}

/// Found by the fuzzer (crash-16edda62…): the span of an empty block scalar
/// covers the blank line after it at the end of the front matter but not
/// before another key, so the line moved on the first run and again on the
/// second. Blank lines after a block scalar now always go with it.
#[test]
fn regression_empty_block_scalar_moved_from_the_end() {
    let t = "---\ncaegoes:\n  - #[[E-potomeaot-mnitoring\ndescription: >-\n\r\n---\r\n\r\n# Announl>\r\n---\r\n\rrst `.`tme`.\n---\n";
    assert_eq!(
        fmt(t, Kind::Knowledge),
        "---\ndescription: >-\n\ncaegoes:\n  - #[[E-potomeaot-mnitoring\n---\n\n# Announl>\n---\n\rrst `.`tme`.\n---\n"
    );
    // Block scalars, empty or not, moving from the end and to it.
    for value in [
        "|",
        "|-",
        ">+",
        "|\n  x",
        "|+\n  x\n",
        ">-\n  x\n\n",
        "|+\n\n",
    ] {
        for t in [
            format!("---\nzz: 1\ntitle: {value}\n\n---\n"),
            format!("---\ntitle: {value}\n\n\nzz: 1\n---\n"),
            format!("---\nzz: {value}\n\ntitle: T\n---\n"),
            format!("---\ntitle: T\nzz: {value}\n\n---\n"),
        ] {
            let _ = fmt(&t, Kind::Decision);
        }
    }
}

/// The notes of formatting `text`, and whether it was otherwise formatted.
fn notes(text: &str, kind: Kind) -> (Outcome, Vec<String>) {
    format_record_noted(text, kind)
}

#[test]
fn a_list_that_cannot_take_its_layout_is_kept_with_a_note() {
    let head = "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:x.md\n";
    // A comment in a `tags` block list: the rest is formatted, the list
    // stays, and a note says why.
    let t = "---\ntags:  # topics\n  - a\n  - b\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:x.md\n---\nBody\n";
    let (outcome, n) = notes(t, Kind::Decision);
    assert_eq!(
        outcome,
        Outcome::Formatted(format!("{head}tags:  # topics\n  - a\n  - b\n---\nBody\n"))
    );
    assert_eq!(
        n,
        ["`tags` stays a block list instead of a flow list (`[a, b]`): it holds a comment, which would be lost"]
    );
    // Once formatted, the note stays and nothing changes.
    let (again, n2) = notes(&fmt(t, Kind::Decision), Kind::Decision);
    assert_eq!((again, n2), (Outcome::Unchanged, n));

    // `sources` written as a flow list with a comment.
    let t = "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources: [file:x.md,  # why\n  file:y.md]\n---\n";
    let (outcome, n) = notes(t, Kind::Decision);
    assert_eq!(outcome, Outcome::Unchanged);
    assert_eq!(
        n,
        ["`sources` stays a flow list instead of a block list (`- a`): it holds a comment, which would be lost"]
    );

    // A plain item that would read otherwise in a flow list.
    let t = format!("{head}tags:\n  - a,b\n  - c\n---\n");
    let (outcome, n) = notes(&t, Kind::Decision);
    assert_eq!(outcome, Outcome::Unchanged);
    assert_eq!(
        n,
        ["`tags` stays a block list instead of a flow list (`[a, b]`): an item holds `,`, `[`, `]`, `{`, `}`, `:` or `#`, which would read otherwise there"]
    );

    // An anchor on the list itself.
    let t = "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources: &s [https://a.b]\nextra: *s\n---\n";
    let (_, n) = notes(t, Kind::Decision);
    assert_eq!(
        n,
        ["`sources` stays a flow list instead of a block list (`- a`): it holds an anchor, alias or tag"]
    );

    // Canonical lists, and a comment beside a block list of `sources`
    // (already its layout): no note.
    let t = format!("{head}tags: [a, b]\n---\n");
    assert_eq!(notes(&t, Kind::Decision), (Outcome::Unchanged, Vec::new()));
    let t =
        "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:x.md  # why\n---\n";
    assert_eq!(notes(t, Kind::Decision), (Outcome::Unchanged, Vec::new()));
}

#[test]
fn a_record_reformatted_says_the_same_and_an_edit_does_not() {
    let messy = "\u{feff}---\r\ntags:   [cache,  io]\r\ntitle: \"Use SQLite\"\r\nsources:\r\n- file:src/cache.rs   # why\r\nstatus: active\r\ndate: 2026-11-01\r\n---\r\n\r\nOne file.  \r\n\r\n\r\n";
    let tidy = fmt(messy, Kind::Decision);
    assert_ne!(tidy, messy);
    let same = |a: &str, b: &str| same_record(a.as_bytes(), b.as_bytes(), Kind::Decision);
    assert!(same(messy, &tidy));
    // What the record says, cites or holds changed.
    for edited in [
        tidy.replace("One file.", "Two files."),
        tidy.replace("Use SQLite", "Use Redis"),
        tidy.replace("src/cache.rs", "src/store.rs"),
        tidy.replace("[cache, io]", "[cache]"),
        tidy.replace("One file.", "One file.\n\nMore."),
    ] {
        assert_ne!(edited, tidy);
        assert!(!same(&tidy, &edited), "{edited}");
    }
    // A version that does not parse is never the same.
    assert!(!same(&tidy, "---\ntitle: [\n---\nOne file.\n"));
    assert!(!same("no front matter", "no front matter"));
}

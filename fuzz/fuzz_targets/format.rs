//! Fuzz target: splitter + YAML parser + formatter. The first byte picks the
//! record kind; the rest is the file. Whatever the input, nothing panics, and
//! a formatted result is idempotent, parses, and keeps the meaning, the
//! comments and the body of the input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use memlint::fmt::{comments, crlf_to_lf, format_record, record_meaning, Outcome};
use memlint::frontmatter::{self, Split};
use memlint::record::Kind;
use memlint::yaml;

struct Read {
    root: Option<yaml::Node>,
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

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let kind = Kind::ALL[usize::from(first) % Kind::ALL.len()];
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Outcome::Formatted(out) = format_record(text, kind) else {
        return;
    };
    assert_eq!(
        format_record(&out, kind),
        Outcome::Unchanged,
        "not idempotent"
    );
    let input = read(text).expect("formatted input parses");
    let output = read(&out).expect("output parses");
    assert_eq!(
        record_meaning(input.root.as_ref(), kind),
        record_meaning(output.root.as_ref(), kind),
        "meaning changed"
    );
    assert_eq!(
        comments(text, input.yaml.clone(), input.root.as_ref()),
        comments(&out, output.yaml.clone(), output.root.as_ref()),
        "comments changed"
    );
    let body_in = crlf_to_lf(&text[input.body.clone()]).into_owned();
    assert_eq!(
        body_in.trim_end_matches(['\n', '\r']),
        out[output.body.clone()].trim_end_matches(['\n', '\r']),
        "body changed"
    );
});

//! The fixable rules' repairs of one file's text, pure: which rules fired
//! ([`Fired`]) in, the fixed text out. Each edit comes from its rule's
//! module; this module orders them (encoding first, then the edits that need
//! the parsed record) and keeps a fix only when the result still parses.
//! Reading and writing the files is `engine::fix`.
//!
//! The edits are computed from the parsed record, not from diagnostic
//! messages; diagnostics only say which rules fired (so a rule turned `off`
//! is never fixed). Cross-record fixes (`status/chain`) come in as an edit of
//! the `replaced_by` value: see [`rules::status::chain_edit`].

use crate::lint::record::Record;
use crate::lint::rules;
use crate::model::config::Config;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::Kind;
use crate::model::rule::Rule;
use crate::syntax::frontmatter::{self, Split};
use crate::syntax::yaml;

use crate::syntax::edit::{apply, Edit};

/// Which fixable rules fired on one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Fired {
    /// `format/bom`.
    pub bom: bool,
    /// `format/crlf`.
    pub crlf: bool,
    /// `text/invisible`.
    pub invisible: bool,
    /// `frontmatter/unknown-key`.
    pub unknown_key: bool,
    /// `sources/duplicate`.
    pub duplicate_source: bool,
    /// `status/chain`, with the slug of the chain's final record.
    pub chain_target: Option<String>,
    /// `sources/replaced`: each source naming a replaced record, and the
    /// source naming the final record of its chain.
    pub replaced_sources: Vec<(String, String)>,
}

impl Fired {
    /// Reads the fixable rules off a file's diagnostics.
    pub(crate) fn from_diagnostics<'d>(diags: impl IntoIterator<Item = &'d Diagnostic>) -> Fired {
        let mut f = Fired::default();
        for d in diags {
            match d.rule {
                Rule::FormatBom => f.bom = true,
                Rule::FormatCrlf => f.crlf = true,
                Rule::TextInvisible => f.invisible = true,
                Rule::FrontmatterUnknownKey => f.unknown_key = true,
                Rule::SourcesDuplicate => f.duplicate_source = true,
                _ => {}
            }
        }
        f
    }

    /// Whether any fixable rule fired.
    pub(crate) fn any(&self) -> bool {
        self.bom
            || self.crlf
            || self.invisible
            || self.unknown_key
            || self.duplicate_source
            || self.chain_target.is_some()
            || !self.replaced_sources.is_empty()
    }
}

/// The edits that remove a BOM, turn CRLF into LF and delete invisible
/// characters.
pub(crate) fn encoding_edits(text: &str, fired: &Fired) -> Vec<Edit> {
    let mut edits = Vec::new();
    if fired.bom {
        edits.extend(rules::format::bom_edit(text));
    }
    if fired.crlf {
        edits.extend(rules::format::crlf_edits(text));
    }
    if fired.invisible {
        edits.extend(rules::text::invisible_edits(text));
    }
    edits
}

/// The edits of the rules that need the parsed record: unknown-key renames,
/// duplicate-source removals and the `status/chain` target.
pub(crate) fn record_edits(r: &Record, fired: &Fired) -> Vec<Edit> {
    let mut edits = Vec::new();
    if fired.unknown_key {
        edits.extend(rules::frontmatter::rename_edits(r));
    }
    if fired.duplicate_source {
        edits.extend(rules::sources::duplicate_source_edits(r));
    }
    if !fired.replaced_sources.is_empty() {
        edits.extend(rules::sources::replaced_source_edits(
            r,
            &fired.replaced_sources,
        ));
    }
    if let Some(target) = &fired.chain_target {
        if let Some(entry) = r.root.get("replaced_by") {
            if entry.value.as_scalar().is_some() && !entry.value.span.is_empty() {
                edits.push(rules::status::chain_edit(entry.value.span.clone(), target));
            }
        }
    }
    edits
}

/// Fixes one record's text. `None` when nothing could be fixed.
pub(crate) fn fix_record(
    text: &str,
    rel: &str,
    kind: Kind,
    config: &Config,
    fired: &Fired,
) -> Option<String> {
    let stage1 = apply(text, encoding_edits(text, fired)).ok()?;
    let structural = fired.unknown_key
        || fired.duplicate_source
        || fired.chain_target.is_some()
        || !fired.replaced_sources.is_empty();
    let stage2 = if structural {
        let Split::Found(parts) = frontmatter::split(&stage1) else {
            return (stage1 != text).then_some(stage1);
        };
        let doc = yaml::parse(&stage1[parts.yaml.clone()], parts.yaml.start).ok();
        let edits = match &doc {
            Some(doc) => match &doc.root {
                Some(root) if root.entries().is_some() => {
                    let record = Record {
                        path: rel,
                        kind,
                        text: &stage1,
                        parts: &parts,
                        root,
                        duplicates: &doc.duplicates,
                        config,
                        sections: Default::default(),
                        fields: Default::default(),
                        hint_words: Default::default(),
                    };
                    record_edits(&record, fired)
                }
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        let fixed = apply(&stage1, edits).ok()?;
        if still_parses(&fixed) {
            fixed
        } else {
            stage1
        }
    } else {
        stage1
    };
    // A source pointed at the chain's final record may now be listed twice.
    let stage3 = if fired.replaced_sources.is_empty() {
        stage2
    } else {
        let dedup = Fired {
            duplicate_source: true,
            ..Fired::default()
        };
        fix_record(&stage2, rel, kind, config, &dedup).unwrap_or(stage2)
    };
    (stage3 != text).then_some(stage3)
}

fn still_parses(text: &str) -> bool {
    match frontmatter::split(text) {
        Split::Found(p) => {
            yaml::parse(&text[p.yaml.clone()], p.yaml.start).is_ok_and(|d| d.duplicates.is_empty())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired() -> Fired {
        Fired::default()
    }

    fn fix(text: &str, kind: Kind, f: &Fired) -> Option<String> {
        fix_record(text, "memory/decisions/x.md", kind, &Config::default(), f)
    }

    #[test]
    fn apply_rejects_overlaps_and_keeps_order() {
        let e = |a, b, t: &str| Edit {
            span: a..b,
            text: t.into(),
        };
        assert_eq!(
            apply("abcdef", vec![e(4, 5, "E"), e(0, 1, "A")]).unwrap(),
            "AbcdEf"
        );
        assert!(apply("abcdef", vec![e(0, 3, ""), e(2, 4, "")]).is_err());
        assert_eq!(apply("ab", vec![e(2, 2, "!")]).unwrap(), "ab!");
    }

    #[test]
    fn bom_and_crlf() {
        let f = Fired {
            bom: true,
            crlf: true,
            ..fired()
        };
        assert_eq!(
            fix("---\r\r\n---\r\nb\r\r\r\n", Kind::Decision, &f).unwrap(),
            "---\n---\nb\n"
        );
        let out = fix(
            "\u{feff}---\r\ntitle: x\r\n---\r\nbody\r\n",
            Kind::Decision,
            &f,
        )
        .unwrap();
        assert_eq!(out, "---\ntitle: x\n---\nbody\n");
    }

    #[test]
    fn renames_unknown_key_when_unambiguous() {
        let f = Fired {
            unknown_key: true,
            ..fired()
        };
        let text = "---\ntitle: t\nmodel_invokation: true\n---\n";
        let out = fix(text, Kind::Knowledge, &f).unwrap();
        assert_eq!(out, "---\ntitle: t\nmodel_invocation: true\n---\n");
        // Target already present: nothing to do.
        let text = "---\nmodel_invocation: true\nmodel_invokation: true\n---\n";
        assert_eq!(fix(text, Kind::Knowledge, &f), None);
    }

    #[test]
    fn two_keys_renamed_to_one_are_left_alone() {
        let f = Fired {
            unknown_key: true,
            ..fired()
        };
        let text = "---\ntitel: a\ntitl: b\n---\n";
        assert_eq!(fix(text, Kind::Decision, &f), None);
    }

    #[test]
    fn removes_duplicate_sources() {
        let f = Fired {
            duplicate_source: true,
            ..fired()
        };
        let text = "---\nsources:\n  - a:b\n  - c:d\n  - a:b\n  - 'c:d'\ntags: [x]\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nsources:\n  - a:b\n  - c:d\ntags: [x]\n---\n");
        let text = "---\nsources: [a, b, a, b]\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nsources: [a, b]\n---\n");
        // A comment on the repeat's line keeps that line: the first
        // occurrence goes instead; two comments keep both.
        let text = "---\nsources:\n  - a\n  - b\n  - a # why\n  - a\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nsources:\n  - b\n  - a # why\n---\n");
        let text = "---\nsources:\n  - a # one\n  - a # why\n---\n";
        assert_eq!(fix(text, Kind::Decision, &f), None);
    }

    #[test]
    fn replaced_sources_point_at_the_chain_head_once() {
        let f = Fired {
            replaced_sources: vec![("decision:use-sqlite".into(), "decision:use-redis".into())],
            ..fired()
        };
        let text = "---\nsources:\n  - decision:use-sqlite # old\n  - 'file:a.md'\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(
            out,
            "---\nsources:\n  - decision:use-redis # old\n  - 'file:a.md'\n---\n"
        );
        let text = "---\nsources:\n  - decision:use-redis\n  - decision:use-sqlite\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nsources:\n  - decision:use-redis\n---\n");
        // The source rewritten keeps its comment, and is listed once.
        let text = "---\nsources:\n  - decision:use-redis\n  - decision:use-sqlite # why\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nsources:\n  - decision:use-redis # why\n---\n");
    }

    #[test]
    fn chain_points_at_final_target() {
        let f = Fired {
            chain_target: Some("use-gix-v3".into()),
            ..fired()
        };
        let text = "---\nstatus: replaced\nreplaced_by: \"use-gix-v2\"\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nstatus: replaced\nreplaced_by: use-gix-v3\n---\n");
        let f = Fired {
            chain_target: Some("2024".into()),
            ..fired()
        };
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert!(out.contains("replaced_by: '2024'\n"), "{out}");
    }
}

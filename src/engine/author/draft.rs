//! A record about to be written: what `memlint new` (and the front ends
//! that author records) was given, checked for what the rules cannot see
//! (a title on one line, a slug that names a file of the kind's
//! directory), and laid out as the formatter would.

use super::AuthorError;
use crate::model::kind::Kind;

/// The kinds a person or an agent writes one record of at a time.
pub(crate) const AUTHORED: [Kind; 3] = [Kind::Decision, Kind::Request, Kind::Knowledge];

/// What a new record holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Draft {
    pub kind: Option<Kind>,
    pub title: String,
    /// The slug; derived from the title when absent.
    pub slug: Option<String>,
    pub sources: Vec<String>,
    pub tags: Vec<String>,
    /// Required for knowledge (the line injected at session start).
    pub description: Option<String>,
    /// Knowledge only: `model_invocation: true`, so the description is
    /// injected at every session start.
    pub resident: bool,
    /// The markdown body.
    pub body: String,
    /// `YYYY-MM-DD`; today (UTC) when absent.
    pub date: Option<String>,
}

/// A draft checked and laid out: the file to create.
#[derive(Debug, Clone)]
pub(crate) struct Laid {
    pub kind: Kind,
    pub slug: String,
    /// Root-relative path of the record.
    pub path: String,
    pub text: String,
}

impl Draft {
    /// Checks what no rule can see and lays the record out in canonical
    /// form; `today` is the date used when none was given. What the rules
    /// check (title length, source strings, secrets, …) is left to them,
    /// so that the refusal reads as `memlint check` would.
    pub(crate) fn lay_out(&self, today: &str) -> Result<Laid, AuthorError> {
        let kind = self
            .kind
            .ok_or_else(|| usage("the kind of record is missing"))?;
        if !AUTHORED.contains(&kind) {
            return Err(usage(format!(
                "`memlint new` writes decisions, requests and knowledge, not {kind} records"
            )));
        }
        let title = self.title.trim();
        if title.is_empty() {
            return Err(usage("the title is empty; give the record a title"));
        }
        one_line("the title", title)?;
        let slug = match &self.slug {
            Some(s) => checked_slug(s)?,
            None => slug_of_title(title, kind)?,
        };
        let date = match &self.date {
            Some(d) if crate::model::kind::is_date(d) => d.clone(),
            Some(d) => return Err(AuthorError::NotADate { date: d.clone() }),
            None => today.to_string(),
        };
        let description = self.description.as_deref().map(str::trim);
        if let Some(d) = description {
            one_line("the description", d)?;
        }
        for s in self.sources.iter().chain(&self.tags) {
            one_line("a source or tag", s)?;
        }
        let text = self.text(kind, title, &date, description);
        let text = match crate::fmt::format_record(&text, kind) {
            crate::fmt::Outcome::Unchanged => text,
            crate::fmt::Outcome::Formatted(t) => t,
            // The rules will say what is wrong with it.
            crate::fmt::Outcome::Skipped { .. } => text,
        };
        Ok(Laid {
            kind,
            path: format!("{}/{slug}.md", kind.dir()),
            slug,
            text,
        })
    }

    /// The record's text: the kind's keys in canonical order.
    fn text(&self, kind: Kind, title: &str, date: &str, description: Option<&str>) -> String {
        let mut t = String::from("---\n");
        t += &format!("title: {}\n", scalar(title));
        match kind {
            Kind::Knowledge => {
                // Required: an empty one is refused by `frontmatter/required`.
                if let Some(d) = description {
                    t += &format!("description: {}\n", scalar(d));
                }
                t += &format!("model_invocation: {}\n", self.resident);
            }
            Kind::Request => t += "status: open\n",
            _ => t += "status: active\n",
        }
        t += &format!("date: {date}\n");
        if kind != Kind::Knowledge {
            if let Some(d) = description {
                // Not a key of the kind: `frontmatter/unknown-key` says so.
                t += &format!("description: {}\n", scalar(d));
            }
        }
        if !self.sources.is_empty() {
            t += "sources:\n";
            for s in &self.sources {
                t += &format!("  - {}\n", scalar(s));
            }
        }
        if !self.tags.is_empty() {
            let tags: Vec<String> = self.tags.iter().map(|s| flow_scalar(s)).collect();
            t += &format!("tags: [{}]\n", tags.join(", "));
        }
        t += "---\n";
        t += &body_section(&self.body);
        t
    }
}

/// What follows the closing `---` for `body`: nothing for a blank body,
/// else a blank line, the body without leading blank lines, and exactly
/// one final newline (the formatter's layout).
pub(crate) fn body_section(body: &str) -> String {
    let body = body.trim_end();
    match body.trim().is_empty() {
        true => String::new(),
        false => format!("\n{}\n", body.trim_start_matches(['\n', '\r'])),
    }
}

/// A usage error (exit 2).
fn usage(message: impl Into<String>) -> AuthorError {
    AuthorError::Usage(message.into())
}

/// Refuses a value that would span lines or hold control characters: a
/// front-matter value of one line is what every reader expects.
fn one_line(what: &str, value: &str) -> Result<(), AuthorError> {
    match value.chars().find(|c| c.is_control()) {
        Some('\n' | '\r') => Err(usage(format!("{what} must be one line"))),
        Some(c) => Err(usage(format!(
            "{what} holds the control character U+{:04X}",
            c as u32
        ))),
        None => Ok(()),
    }
}

/// The slug made from `title`, never from a credential in it: a file name
/// is committed, pushed and printed, and lower-casing a token hides
/// nothing (`Rotate AKIA… now` makes `rotate-now`, and the rules refuse
/// the title).
fn slug_of_title(title: &str, kind: Kind) -> Result<String, AuthorError> {
    let found = crate::syntax::secrets::find(title);
    let mut words = title.to_string();
    for (range, _) in found.iter().rev() {
        words.replace_range(range.clone(), " ");
    }
    let Some(slug) = crate::syntax::slugify::from_title(&words) else {
        let besides = match found.first() {
            Some((_, what)) => format!(" besides what looks like {what}"),
            None => String::new(),
        };
        return Err(AuthorError::NeedSlug {
            why: format!("the title has no ASCII words{besides} to make a slug from"),
            example: example_slug(kind).to_string(),
        });
    };
    if let Some((_, what)) = crate::syntax::secrets::find(&slug).first() {
        return Err(AuthorError::NeedSlug {
            why: format!("the slug made from the title looks like {what}"),
            example: example_slug(kind).to_string(),
        });
    }
    Ok(slug)
}

/// A slug given on the command line: it names a file in the kind's
/// directory, so anything but a slug (`..`, `/`, capitals) is refused
/// before it comes near the disk, and so is one that looks like a
/// credential (a file name is committed, pushed and printed), without
/// repeating it or a hint made from it.
pub(crate) fn checked_slug(slug: &str) -> Result<String, AuthorError> {
    if let Some((_, what)) = crate::syntax::secrets::find(slug).first() {
        return Err(usage(format!(
            "the slug given looks like {what}; a file name is committed, pushed and printed, so choose one that is not a secret"
        )));
    }
    if crate::model::kind::is_slug(slug) && slug.len() <= crate::syntax::slugify::MAX_LEN {
        return Ok(slug.to_string());
    }
    let hint = crate::syntax::slugify::from_title(slug)
        .filter(|s| s != slug && crate::syntax::secrets::find(s).is_empty())
        .map(|s| format!(" (such as `{s}`)"))
        .unwrap_or_default();
    Err(usage(format!(
        "`{}` is not a slug: lowercase ASCII letters and digits in words joined by `-`, at most {} characters{hint}",
        crate::syntax::sanitize::line(slug),
        crate::syntax::slugify::MAX_LEN
    )))
}

fn example_slug(kind: Kind) -> &'static str {
    match kind {
        Kind::Request => "export-monthly-csv",
        Kind::Knowledge => "bank-api-rate-limits",
        _ => "use-gix-for-git-reads",
    }
}

/// A YAML scalar for a block value (`key: value`, `- item`): plain when it
/// reads back as the same string, single-quoted otherwise.
pub(crate) fn scalar(s: &str) -> String {
    quoted_unless_plain(s, false)
}

/// [`scalar`] for an item of a flow list (`[a, b]`), where `,`, `[` and
/// `]` end a plain item.
pub(crate) fn flow_scalar(s: &str) -> String {
    quoted_unless_plain(s, true)
}

/// Plain when YAML readers (1.2 and 1.1) read the plain text back as that
/// very string: tried on the parser itself, so `a: b`, ` #`, a leading
/// `*`, `&`, `!`, `%`, `@` or `` ` `` get quotes without a list of rules
/// to keep in step with it.
fn quoted_unless_plain(s: &str, flow: bool) -> String {
    let plain = !s.is_empty()
        && s.trim() == s
        && !crate::syntax::quoting::needs_quotes(s)
        && reads_back(s, flow);
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

fn reads_back(s: &str, flow: bool) -> bool {
    use crate::syntax::yaml::{Style, Value};
    let doc = match flow {
        true => format!("k: [{s}]\n"),
        false => format!("k: {s}\n"),
    };
    let Ok(parsed) = crate::syntax::yaml::parse(&doc, 0) else {
        return false;
    };
    let Some(value) = parsed
        .root
        .as_ref()
        .and_then(|r| r.get("k"))
        .map(|e| &e.value)
    else {
        return false;
    };
    let node = match &value.value {
        Value::Seq { items, .. } if flow && items.len() == 1 => &items[0],
        _ if flow => return false,
        _ => value,
    };
    node.as_scalar()
        .is_some_and(|sc| sc.style == Style::Plain && sc.tag.is_none() && sc.text == s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(kind: Kind, title: &str) -> Draft {
        Draft {
            kind: Some(kind),
            title: title.into(),
            sources: vec!["file:docs/a.md".into()],
            ..Draft::default()
        }
    }

    #[test]
    fn a_decision_is_laid_out_in_canonical_form() {
        let mut d = draft(Kind::Decision, "Use gix: for reads #1");
        d.tags = vec!["git".into(), "yes".into()];
        d.body = "\n\nWhy.\n\n\n".into();
        let laid = d.lay_out("2026-12-04").unwrap();
        assert_eq!(laid.path, "memory/decisions/use-gix-for-reads-1.md");
        assert_eq!(
            laid.text,
            "---\ntitle: 'Use gix: for reads #1'\nstatus: active\ndate: 2026-12-04\nsources:\n  - file:docs/a.md\ntags: [git, 'yes']\n---\n\nWhy.\n"
        );
        assert_eq!(
            crate::fmt::format_record(&laid.text, Kind::Decision),
            crate::fmt::Outcome::Unchanged
        );
    }

    #[test]
    fn values_are_quoted_when_plain_would_read_otherwise() {
        for (s, block, flow) in [
            ("plain words", "plain words", "plain words"),
            ("a: b", "'a: b'", "'a: b'"),
            ("fix #2", "'fix #2'", "'fix #2'"),
            ("#2", "'#2'", "'#2'"),
            ("a, b", "a, b", "'a, b'"),
            ("[x]", "'[x]'", "'[x]'"),
            ("*glob", "'*glob'", "'*glob'"),
            ("it's", "it's", "it's"),
            ("'q'", "'''q'''", "'''q'''"),
            ("yes", "'yes'", "'yes'"),
            ("2026-01-01", "'2026-01-01'", "'2026-01-01'"),
            (" pad", "' pad'", "' pad'"),
            ("", "''", "''"),
            (
                "https://x.io/a?b=c#d",
                "https://x.io/a?b=c#d",
                "https://x.io/a?b=c#d",
            ),
        ] {
            assert_eq!(scalar(s), block, "{s:?}");
            assert_eq!(flow_scalar(s), flow, "{s:?}");
        }
    }

    #[test]
    fn knowledge_carries_description_and_invocation() {
        let mut d = draft(Kind::Knowledge, "Bank API limits");
        d.description = Some("60 per minute".into());
        d.resident = true;
        let laid = d.lay_out("2026-12-04").unwrap();
        assert_eq!(
            laid.text,
            "---\ntitle: Bank API limits\ndescription: 60 per minute\nmodel_invocation: true\ndate: 2026-12-04\nsources:\n  - file:docs/a.md\n---\n"
        );
    }

    #[test]
    fn what_no_rule_sees_is_refused_plainly() {
        let refused = |d: Draft| match d.lay_out("2026-12-04") {
            Err(AuthorError::Usage(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(refused(draft(Kind::Decision, "  ")).contains("title is empty"));
        match draft(Kind::Decision, "日本語").lay_out("2026-12-04") {
            Err(AuthorError::NeedSlug { why, .. }) => assert!(why.contains("no ASCII words")),
            other => panic!("{other:?}"),
        }
        assert!(refused(draft(Kind::Decision, "a\nb")).contains("one line"));
        assert!(refused(draft(Kind::Session, "x")).contains("not session"));
        let mut d = draft(Kind::Decision, "x");
        d.date = Some("yesterday".into());
        match d.lay_out("2026-12-04") {
            Err(e @ AuthorError::NotADate { .. }) => assert!(e.to_string().contains("YYYY-MM-DD")),
            other => panic!("{other:?}"),
        }
        for bad in ["../x", "a/b", "A", "a--b", ""] {
            let mut d = draft(Kind::Decision, "x");
            d.slug = Some(bad.into());
            assert!(refused(d).contains("is not a slug"), "{bad}");
        }
    }
}

//! `session/*`: compacted session memories must let a new session resume
//! without re-exploring.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::{is_absolute_path, is_session_id, Kind};
use crate::model::rule::Rule;
use crate::syntax::session::{
    content_lines, file_entry, is_none, plan_source, section, section_problems, sections,
};

/// Where the body starts, and its sections (of a session memory).
fn body_sections<'r>(r: &'r Record) -> Option<(usize, &'r [crate::syntax::session::Section])> {
    (r.kind == Kind::Session).then(|| {
        let found = r.sections.get_or_init(|| sections(r.body()));
        (r.parts.body.start, found.as_slice())
    })
}

/// `session/id`: `CMEM-YYYYMMDD-HHMMSS`, equal to the file stem.
pub fn id(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Session {
        return;
    }
    let Some((id, span)) = r.str_field("id") else {
        return;
    };
    if !is_session_id(id) {
        out.emit(
            Rule::SessionId,
            span,
            format!("session id `{id}` is not of the form CMEM-YYYYMMDD-HHMMSS"),
        );
    } else if id != r.stem() {
        out.emit(
            Rule::SessionId,
            span,
            format!(
                "session id `{id}` differs from the file name `{}.md`",
                r.stem()
            ),
        );
    }
}

/// `session/sections`: each of the 14 sections once, in order.
pub fn sections_rule(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    for (span, message) in section_problems(r.body(), found) {
        out.emit(
            Rule::SessionSections,
            base + span.start..base + span.end,
            message,
        );
    }
}

/// `session/absolute-path`: `project_root`, `Project Root` and file lists.
pub fn absolute_path(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Session {
        return;
    }
    if let Some((root, span)) = r.str_field("project_root") {
        if !is_absolute_path(root) {
            out.emit(
                Rule::SessionAbsolutePath,
                span,
                format!("`project_root` `{root}` is not an absolute path"),
            );
        }
    }
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let body = r.body();
    if let Some(s) = section(found, "Project Root") {
        let lines = content_lines(body, s.content.clone());
        if let Some((range, line)) = lines.first() {
            let path = line.trim().trim_matches('`');
            if path != "(none)" && !is_absolute_path(path) {
                out.emit(
                    Rule::SessionAbsolutePath,
                    base + range.start..base + range.end,
                    format!("`Project Root` `{path}` is not an absolute path"),
                );
            }
        }
    }
    for name in ["Working Files (Modified)", "Reference Files (Read-Only)"] {
        let Some(s) = section(found, name) else {
            continue;
        };
        let lines = content_lines(body, s.content.clone());
        if is_none(&lines) {
            continue;
        }
        for (range, line) in lines {
            if let Some((path, span)) = file_entry(line, range.start) {
                if !is_absolute_path(path) {
                    out.emit(
                        Rule::SessionAbsolutePath,
                        base + span.start..base + span.end,
                        format!("`{path}` in `{name}` is not an absolute path"),
                    );
                }
            }
        }
    }
}

/// `session/plan-source`: `Execution Plan` starts with a valid `### Source:`.
pub fn plan_source_rule(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let Some(s) = section(found, "Execution Plan") else {
        return;
    };
    let lines = content_lines(r.body(), s.content.clone());
    let (span, line) = match lines.first() {
        Some((range, line)) => (base + range.start..base + range.end, *line),
        None => (base + s.heading.start..base + s.heading.end, ""),
    };
    if let Err(message) = plan_source(line) {
        out.emit(Rule::SessionPlanSource, span, message);
    }
}

/// `session/working-files`: 3 to 8 working files.
pub fn working_files(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let Some(s) = section(found, "Working Files (Modified)") else {
        return;
    };
    let lines = content_lines(r.body(), s.content.clone());
    let n = if is_none(&lines) {
        0
    } else {
        lines
            .iter()
            .filter(|(_, l)| file_entry(l, 0).is_some())
            .count()
    };
    if !(3..=8).contains(&n) {
        out.emit(
            Rule::SessionWorkingFiles,
            base + s.heading.start..base + s.heading.end,
            format!("{n} working files; a useful session memory names 3 to 8"),
        );
    }
}

/// `session/decision-reason`: each `Decisions` entry gives its reasoning.
pub fn decision_reason(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let Some(s) = section(found, "Decisions") else {
        return;
    };
    let lines = content_lines(r.body(), s.content.clone());
    if is_none(&lines) {
        return;
    }
    for (range, line) in lines {
        let Some(entry) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) else {
            continue;
        };
        let has_reason = entry
            .split_once(": ")
            .or_else(|| entry.split_once('：'))
            .is_some_and(|(_, reason)| !reason.trim().is_empty());
        if !has_reason {
            out.emit(
                Rule::SessionDecisionReason,
                base + range.start..base + range.end,
                "decision without reasoning; write `- <decision>: <reasoning>`",
            );
        }
    }
}

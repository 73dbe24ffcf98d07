//! `memlint new`, `memlint replace`, `memlint show` and `memlint staging
//! add`: flags in, the engine's authoring functions, the result out (the
//! path on standard output, or JSON), refusals rendered as `check` renders
//! findings.

use super::args::{
    AuthorFormat, NewArgs, NewKind, ReplaceArgs, ShowArgs, StagingAddArgs, VerifyArgs,
};
use super::output::write_out;
use super::render;
use super::settings::Settings;
use crate::engine::author::{self, AuthorError, Draft, NewOptions};
use crate::engine::workspace::WorkspaceError;
use crate::model::diagnostic::Diagnostic;
use std::path::Path;
use std::process::ExitCode;

/// `memlint new`.
pub(super) fn new(
    s: &Settings,
    args: &NewArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let body = match &args.body_file {
        Some(f) => match read_body(f, s.workspace.config.max_file_bytes)? {
            Ok(body) => body,
            Err(why) => return Ok(super::exit::too_large(&why)),
        },
        None => String::new(),
    };
    let draft = Draft {
        kind: Some(args.kind.kind()),
        title: args.title.clone(),
        slug: args.slug.clone(),
        sources: args.sources.clone(),
        tags: args.tags.clone(),
        description: args.description.clone(),
        resident: args.resident,
        body,
        date: args.date.clone(),
    };
    let opts = NewOptions {
        force: args.force,
        replaces: args.replaces.clone(),
    };
    let result = author::new(&s.workspace, &draft, &opts, &author::today(), problems);
    Ok(match result {
        Ok(created) => {
            warn(
                s,
                &created.warnings,
                &[(created.path.clone(), created.text.clone())],
            );
            if let Some(old) = &created.replaced {
                if !s.quiet && args.format == AuthorFormat::Human {
                    errln!("memlint: {old} is now replaced by {}", created.slug);
                }
            }
            write_out(&match args.format {
                AuthorFormat::Json => json_written(&created),
                AuthorFormat::Human => format!("{}\n", created.path),
            });
            ExitCode::SUCCESS
        }
        Err(e) => refused(s, &e, args.format),
    })
}

/// `memlint replace OLD NEW`.
pub(super) fn replace(
    s: &Settings,
    args: &ReplaceArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let kind = args.kind.map(NewKind::kind);
    Ok(
        match author::replace(
            &s.workspace,
            kind,
            &args.old,
            &args.new,
            args.force,
            problems,
        ) {
            Ok(done) => {
                warn(s, &done.warnings, &[]);
                write_out(&match args.format {
                    AuthorFormat::Json => json_written(&done),
                    AuthorFormat::Human if !done.changed => {
                        format!("{} is already replaced by {}\n", done.old, done.new)
                    }
                    AuthorFormat::Human => {
                        let mut t = format!("{} is now replaced by {}\n", done.old, done.new);
                        for p in &done.retargeted {
                            t += &format!("{p} now points at {}\n", done.new);
                        }
                        t
                    }
                });
                ExitCode::SUCCESS
            }
            Err(e) => refused(s, &e, args.format),
        },
    )
}

/// `memlint show`.
pub(super) fn show(
    s: &Settings,
    args: &ShowArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    Ok(match author::show(&s.workspace, &args.target, problems) {
        Ok(shown) => {
            write_out(&match args.format {
                AuthorFormat::Json => crate::syntax::sanitize::json(&shown),
                AuthorFormat::Human => human_shown(&shown),
            });
            ExitCode::SUCCESS
        }
        Err(e) => refused(s, &e, args.format),
    })
}

/// `memlint verify`.
pub(super) fn verify(
    s: &Settings,
    args: &VerifyArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let mut targets = args.targets.clone();
    if args.drifted {
        targets.extend(author::pin::drifted_records(&s.workspace, problems));
    } else if targets.is_empty() {
        return Err(WorkspaceError::Usage(
            "name the records to verify, or give --drifted".into(),
        ));
    }
    targets.dedup();
    Ok(
        match author::pin::verify(&s.workspace, &targets, &author::today(), problems) {
            Ok(done) => {
                write_out(&match args.format {
                    AuthorFormat::Json => crate::syntax::sanitize::json(&serde_json::json!({
                        "verified": done,
                    })),
                    AuthorFormat::Human if done.is_empty() => {
                        "no record to verify: none has drifted\n".to_string()
                    }
                    AuthorFormat::Human => done
                        .iter()
                        .map(|v| {
                            let pins = match v.pins.len() {
                                1 => "1 pin".to_string(),
                                n => format!("{n} pins"),
                            };
                            let moved: String = v
                                .moved
                                .iter()
                                .map(|m| format!("; moved `{}` to `{}`", m.from, m.to))
                                .collect();
                            format!("verified {} ({pins}{moved})\n", v.path)
                        })
                        .collect(),
                });
                ExitCode::SUCCESS
            }
            Err(e) => refused(s, &e, args.format),
        },
    )
}

/// `memlint staging add`.
pub(super) fn staging_add(s: &Settings, args: &StagingAddArgs) -> Result<ExitCode, WorkspaceError> {
    let body = match &args.body_file {
        Some(f) => match read_body(f, s.workspace.config.max_file_bytes)? {
            Ok(body) => body,
            Err(why) => return Ok(super::exit::too_large(&why)),
        },
        None => String::new(),
    };
    let now = crate::model::clock::now_secs();
    Ok(
        match author::add_staging(&s.workspace, &args.source, &body, now) {
            Ok(added) => {
                warn(s, &added.warnings, &[]);
                write_out(&match args.format {
                    AuthorFormat::Json => json_written(&added),
                    AuthorFormat::Human => format!("{}\n", added.path),
                });
                ExitCode::SUCCESS
            }
            Err(e) => refused(s, &e, args.format),
        },
    )
}

/// The JSON of a successful write: the engine's value and `"written": true`.
fn json_written<T: serde::Serialize>(value: &T) -> String {
    let mut v = serde_json::to_value(value).unwrap_or_default();
    if let Some(map) = v.as_object_mut() {
        map.insert("written".into(), true.into());
        if let Some(w) = map.remove("warnings") {
            map.insert("diagnostics".into(), w);
        }
    }
    crate::syntax::sanitize::json(&v)
}

/// Warnings on what was written, rendered on standard error as `check`
/// renders them.
fn warn(s: &Settings, diags: &[Diagnostic], texts: &[(String, String)]) {
    if diags.is_empty() || s.quiet {
        return;
    }
    let sources = texts.iter().cloned().collect();
    let summary = render::Summary::of(0, diags);
    let text = render::human(diags, &sources, summary, false, render::width());
    err!("{}", closing_less(&text));
}

/// A rendering without `check`'s closing count line, which speaks of
/// files checked.
fn closing_less(text: &str) -> String {
    let trimmed = text.trim_end_matches('\n');
    match trimmed.rfind('\n') {
        Some(at) if trimmed[at + 1..].starts_with("Found ") => {
            format!("{}\n", trimmed[..at].trim_end_matches('\n'))
        }
        _ => text.to_string(),
    }
}

/// Reports why nothing was written, and gives the exit code.
fn refused(s: &Settings, e: &AuthorError, format: AuthorFormat) -> ExitCode {
    let code = ExitCode::from(e.exit_code());
    // The records to update instead: of a similar slug, or that say
    // nearly the same (with how alike, as MCP gives them).
    let (diagnostics, texts, similar): (_, _, Vec<serde_json::Value>) = match e {
        AuthorError::Refused {
            diagnostics, texts, ..
        } => (diagnostics.as_slice(), texts.as_slice(), Vec::new()),
        AuthorError::Similar { similar, .. } => (
            &[][..],
            &[][..],
            similar
                .iter()
                .map(|(slug, path)| serde_json::json!({"slug": slug, "path": path}))
                .collect(),
        ),
        AuthorError::Duplicate { duplicates, .. } => (
            &[][..],
            &[][..],
            duplicates
                .iter()
                .map(|(slug, path, percent)| {
                    serde_json::json!({"slug": slug, "path": path, "alike": percent})
                })
                .collect(),
        ),
        _ => (&[][..], &[][..], Vec::new()),
    };
    match format {
        AuthorFormat::Json => {
            let path = match e {
                AuthorError::Refused { path, .. } | AuthorError::Exists { path } => {
                    serde_json::Value::from(path.as_str())
                }
                _ => serde_json::Value::Null,
            };
            write_out(&crate::syntax::sanitize::json(&serde_json::json!({
                "written": false,
                "error": super::advice::said(e.text(super::advice::name), e.advice()),
                "path": path,
                "diagnostics": diagnostics,
                "similar": similar,
            })));
        }
        AuthorFormat::Human => {
            if !diagnostics.is_empty() {
                let sources = texts.iter().cloned().collect();
                let summary = render::Summary::of(0, diagnostics);
                let text = render::human(diagnostics, &sources, summary, s.color, render::width());
                err!("{}", closing_less(&text));
            }
        }
    }
    errln!(
        "memlint: error: {}",
        super::advice::said(e.text(super::advice::name), e.advice())
    );
    code
}

/// A record for a person or an agent: its path, then the preface and the
/// record quoted as a note (fields, what points at it, body), every line
/// starting with `> `, so that no text of the record reads as memlint's
/// own or as instructions.
fn human_shown(shown: &author::Shown) -> String {
    let mut note = String::new();
    if let Some(fields) = shown.fields.as_object() {
        // In the file's order.
        for key in &shown.keys {
            let Some(value) = fields.get(key) else {
                continue;
            };
            let value = match value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            note += &format!("{key}: {value}\n");
        }
    }
    for p in &shown.replaced_by_this {
        note += &format!("replaces: {p}\n");
    }
    for p in &shown.cited_by {
        note += &format!("cited by: {p}\n");
    }
    for m in &shown.drifted {
        note += &format!("drifted: {}\n", crate::syntax::sanitize::line(m));
    }
    let body = shown.body.trim_matches('\n');
    if !body.is_empty() {
        note += "\n";
        note += body;
        note += "\n";
    }
    format!(
        "{} ({} {})\n{}",
        shown.path,
        shown.kind.name(),
        shown.slug,
        crate::syntax::framing::framed(&note)
    )
}

/// The body from `file`, or from standard input for `-`: UTF-8 text of
/// at most `max` bytes (`max_file_bytes`: a record holding it could not
/// be larger), read no further than that; `Err(why)` for a longer one.
fn read_body(file: &Path, max: u64) -> Result<Result<String, String>, WorkspaceError> {
    use crate::io::bounded::read_at_most;
    use crate::io::read::read_capped;
    use crate::model::content::Content;
    let stdin = file.as_os_str() == "-";
    let read = if stdin {
        read_at_most(std::io::stdin().lock(), max).map_err(|source| WorkspaceError::Io {
            path: "standard input".into(),
            source,
        })?
    } else {
        read_capped(file, max).map_err(|source| {
            WorkspaceError::Usage(format!("cannot read {}: {source}", file.display()))
        })?
    };
    let bytes = match read {
        Content::Bytes(bytes) => bytes,
        Content::TooLarge(_) => {
            let from = if stdin {
                "standard input".to_string()
            } else {
                file.display().to_string()
            };
            return Ok(Err(format!(
                "the body in {from} has more than {max} bytes (`max_file_bytes`); nothing was written"
            )));
        }
    };
    String::from_utf8(bytes).map(Ok).map_err(|_| {
        WorkspaceError::Usage(format!("the body in {} is not UTF-8 text", file.display()))
    })
}

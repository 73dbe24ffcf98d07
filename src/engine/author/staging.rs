//! `memlint staging add`: a new activity log in `staging/`, under an id no
//! other writer takes, however many run at once.

use super::AuthorError;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::Kind;
use crate::model::workspace::Workspace;
use serde::Serialize;

/// What `staging add` wrote.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StagingAdded {
    /// `YYYYMMDD-HHMMSS-xxxx`.
    pub id: String,
    pub path: String,
    /// Warnings on what was written (an error refuses the write).
    pub warnings: Vec<Diagnostic>,
}

/// How many ids are tried before giving up: each try draws 16 new bits.
const ATTEMPTS: u32 = 64;

/// Writes a staging entry from `source` with `body`, created at `now`
/// (seconds since the epoch): refused when a rule finds an error in it (an
/// empty source, a secret in the body).
pub(crate) fn add_staging(
    ws: &Workspace,
    source: &str,
    body: &str,
    now: i64,
) -> Result<StagingAdded, AuthorError> {
    let source = source.trim();
    if source.is_empty() {
        return Err(AuthorError::EmptySource);
    }
    if source.contains(['\n', '\r']) {
        return Err(AuthorError::SourceLines);
    }
    let stamp = crate::model::clock::compact(now);
    let created = crate::model::clock::rfc3339(now);
    for attempt in 0..ATTEMPTS {
        let id = format!("{stamp}-{:04x}", suffix(attempt));
        let path = format!("{}/{id}.md", Kind::Staging.dir());
        let text = text(&id, source, &created, body);
        let report = super::verify::lint_text(ws, &path, &text);
        if super::verify::has_errors(&report.diagnostics) {
            return Err(AuthorError::Refused {
                path,
                diagnostics: report.diagnostics,
                texts: vec![(report.path, text)],
            });
        }
        let write = super::commit::Write::Create {
            path: path.clone(),
            text,
        };
        match super::commit::commit(&ws.root, vec![write]) {
            Ok(()) => {
                return Ok(StagingAdded {
                    id,
                    path,
                    warnings: report.diagnostics,
                })
            }
            // Another writer took this id in the same second: draw again.
            Err(AuthorError::Exists { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(AuthorError::Write {
        path: Kind::Staging.dir().to_string(),
        source: std::io::Error::other("no free staging id was found in this second"),
    })
}

/// 16 bits that differ between processes, calls and attempts.
fn suffix(attempt: u32) -> u16 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut seed = [0u8; 24];
    seed[..8].copy_from_slice(&nanos.to_le_bytes());
    seed[8..12].copy_from_slice(&std::process::id().to_le_bytes());
    seed[12..16].copy_from_slice(&attempt.to_le_bytes());
    seed[16..].copy_from_slice(&CALLS.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&seed) as u16
}

/// The entry's text.
fn text(id: &str, source: &str, created: &str, body: &str) -> String {
    let mut t = format!(
        "---\nid: {id}\nsource: {}\ncreated: {created}\n---\n",
        super::draft::scalar(source)
    );
    t += &super::draft::body_section(body);
    t
}

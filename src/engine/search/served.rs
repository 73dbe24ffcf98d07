//! Searches answered by the watcher (`memlint watch`), which keeps the
//! index in memory ([`super::search_held`]) and answers on its recall
//! socket ([`crate::io::watch::recall`]): a process started for every
//! prompt then neither decodes the index nor reads the hits' files.
//!
//! The question is one JSON object: the asker's root (device and inode)
//! and the key of its configuration and executable, which must be the
//! watcher's own (another configuration, or another memlint, searches
//! differently), and the query. The answer is `{"hits": [...],
//! "replaced_matched": bool}` or `{"error": "..."}`. Any error, and the
//! asker searches by itself: the answers are the same either way.

use super::{search_held, Answer, Held, Hit, Query};
use crate::model::kind::Kind;
use crate::model::workspace::Workspace;
use serde_json::{json, Value};
use std::time::Duration;

/// Version of the question and answer.
const VERSION: u64 = 1;

/// The identity of `ws` a watcher must share to answer for it.
#[cfg(not(unix))]
fn identity(_ws: &Workspace) -> Option<(u64, u64, String)> {
    None
}

/// The identity of `ws` a watcher must share to answer for it.
#[cfg(unix)]
fn identity(ws: &Workspace) -> Option<(u64, u64, String)> {
    use std::os::unix::fs::MetadataExt;
    let meta = crate::io::files::metadata(&ws.root).ok()?;
    Some((
        meta.dev(),
        meta.ino(),
        crate::io::cache::key(&ws.config).to_string(),
    ))
}

/// Asks the watcher of `ws` to answer `query`, waiting at most `within`;
/// `None` when no watcher answers, in time, for this workspace and
/// configuration.
pub(crate) fn ask(ws: &Workspace, query: &Query, within: Duration) -> Option<Answer> {
    let (dev, ino, key) = identity(ws)?;
    let question = json!({
        "v": VERSION,
        "dev": dev,
        "ino": ino,
        "key": key,
        "text": query.text,
        "kind": query.kind.map(Kind::name),
        "limit": query.limit,
        "all": query.all,
        "since": query.since,
    });
    let line = crate::io::watch::recall::ask(&ws.root, &question.to_string(), within).ok()?;
    let answer: Value = serde_json::from_str(&line).ok()?;
    let hits = answer
        .get("hits")?
        .as_array()?
        .iter()
        .map(hit_of)
        .collect::<Option<Vec<Hit>>>()?;
    // The marks as this process finds them (the watcher's answer has none).
    Some(super::marked(
        ws,
        Answer {
            hits,
            replaced_matched: answer.get("replaced_matched")?.as_bool()?,
            // The watcher's walks are its own to report.
            problems: Vec::new(),
        },
    ))
}

/// Waits at most `within` for the watcher of `ws` to have loaded its
/// index (it answers no question before); whether it answered.
pub(crate) fn wait_loaded(ws: &Workspace, within: Duration) -> bool {
    let question = json!({ "v": VERSION, "ping": true }).to_string();
    crate::io::watch::recall::ask(&ws.root, &question, within)
        .ok()
        .and_then(|line| serde_json::from_str::<Value>(&line).ok())
        .is_some_and(|answer| answer["loaded"] == true)
}

/// The watcher's answer to one question `line` about `ws`, keeping the
/// index in `held`.
pub(crate) fn answer_line(ws: &Workspace, held: &mut Option<Held>, line: &str) -> String {
    let refuse = |why: &str| json!({ "error": why }).to_string();
    let Ok(q) = serde_json::from_str::<Value>(line) else {
        return refuse("not JSON");
    };
    if q.get("v").and_then(Value::as_u64) != Some(VERSION) {
        return refuse("unknown version");
    }
    // Asked by `memlint watch start`: answered once the index is loaded,
    // since it is loaded before the first question is read.
    if q.get("ping") == Some(&Value::Bool(true)) {
        return json!({ "loaded": true }).to_string();
    }
    let Some((dev, ino, key)) = identity(ws) else {
        return refuse("the workspace is gone");
    };
    if q.get("dev").and_then(Value::as_u64) != Some(dev)
        || q.get("ino").and_then(Value::as_u64) != Some(ino)
    {
        return refuse("not the watcher of the asking root");
    }
    if q.get("key").and_then(Value::as_str) != Some(key.as_str()) {
        return refuse("another configuration or executable");
    }
    let kind = match q.get("kind") {
        None | Some(Value::Null) => None,
        Some(k) => match k.as_str().and_then(Kind::from_name) {
            Some(k) => Some(k),
            None => return refuse("unknown kind"),
        },
    };
    let (Some(text), Some(limit), Some(all)) = (
        q.get("text").and_then(Value::as_str),
        q.get("limit").and_then(Value::as_u64),
        q.get("all").and_then(Value::as_bool),
    ) else {
        return refuse("incomplete question");
    };
    let query = Query {
        text: text.to_string(),
        kind,
        limit: usize::try_from(limit).unwrap_or(usize::MAX).min(10_000),
        all,
        since: q.get("since").and_then(Value::as_str).map(str::to_string),
    };
    let opts = crate::engine::scan::Options {
        force: false,
        progress: None,
    };
    let answer = search_held(ws, held, &query, &opts);
    json!({
        "hits": answer.hits.iter().map(hit_json).collect::<Vec<_>>(),
        "replaced_matched": answer.replaced_matched,
    })
    .to_string()
}

/// Answers the searches asked on the recall socket of `ws` from a thread
/// of this process (the watcher's), loading the index first; the socket is
/// removed when the returned value is dropped. `None` when it cannot be
/// bound.
#[cfg(unix)]
pub(crate) fn serve(ws: &Workspace) -> Option<crate::io::watch::recall::Bound> {
    let bound = crate::io::watch::recall::bind(&ws.root).ok()?;
    let held = std::sync::Arc::new(std::sync::Mutex::new(None::<Held>));
    let (ws1, held1, ws2) = (ws.clone(), held.clone(), ws.clone());
    bound
        .spawn(
            move || {
                if let Ok(mut h) = held1.lock() {
                    warm(&ws1, &mut h);
                }
            },
            move |line| match held.lock() {
                Ok(mut h) => answer_line(&ws2, &mut h, line),
                Err(_) => json!({ "error": "busy" }).to_string(),
            },
        )
        .ok()?;
    Some(bound)
}

/// Searches are answered through a watcher on Unix only.
#[cfg(not(unix))]
pub(crate) fn serve(_ws: &Workspace) -> Option<()> {
    None
}

/// Loads the index into `held` before the first question.
fn warm(ws: &Workspace, held: &mut Option<Held>) {
    let query = Query {
        text: "memlint".to_string(),
        kind: None,
        limit: 1,
        all: false,
        since: None,
    };
    let opts = crate::engine::scan::Options {
        force: false,
        progress: None,
    };
    let _ = search_held(ws, held, &query, &opts);
}

fn hit_json(h: &Hit) -> Value {
    json!({
        "path": h.path,
        "kind": h.kind.name(),
        "slug": h.slug,
        "title": h.title,
        "status": h.status,
        "date": h.date,
        // As text: Rust prints the shortest form that reads back the same.
        "score": h.score.to_string(),
        "snippet": h.snippet,
        "marks": h.marks.iter().map(|r| [r.start, r.end]).collect::<Vec<_>>(),
    })
}

fn hit_of(v: &Value) -> Option<Hit> {
    let text = |name: &str| -> Option<Option<String>> {
        match v.get(name)? {
            Value::Null => Some(None),
            Value::String(s) => Some(Some(s.clone())),
            _ => None,
        }
    };
    let marks = v
        .get("marks")?
        .as_array()?
        .iter()
        .map(|m| {
            let m = m.as_array()?;
            let start = usize::try_from(m.first()?.as_u64()?).ok()?;
            let end = usize::try_from(m.get(1)?.as_u64()?).ok()?;
            (start <= end).then_some(start..end)
        })
        .collect::<Option<Vec<_>>>()?;
    let snippet = text("snippet")??;
    if marks.iter().any(|r| {
        r.end > snippet.len()
            || !snippet.is_char_boundary(r.start)
            || !snippet.is_char_boundary(r.end)
    }) {
        return None;
    }
    Some(Hit {
        path: text("path")??,
        kind: Kind::from_name(v.get("kind")?.as_str()?)?,
        slug: text("slug")?,
        title: text("title")?,
        status: text("status")?,
        date: text("date")?,
        score: v.get("score")?.as_str()?.parse().ok()?,
        snippet,
        marks,
        drifted: None,
    })
}

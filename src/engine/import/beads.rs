//! beads: `.beads/issues.jsonl`, one issue a line. Each issue becomes a
//! request (`done` once closed); a deleted one (a tombstone) is skipped.
//! Read a line at a time, each line up to a limit, so a huge line is
//! skipped without being held.

use super::formats::TITLE_MAX;
use super::item::{date_of, one_line, Item, Rec, What};
use crate::io::lines::{for_each_line, Line};
use crate::model::kind::Kind;
use serde_json::{Map, Value};

/// The fields written as sections of the body, in order.
const SECTIONS: [(&str, &str); 4] = [
    ("description", ""),
    ("design", "Design"),
    ("acceptance_criteria", "Acceptance criteria"),
    ("notes", "Notes"),
];

/// The items of the issues file `rel` (opened at `open`), each line at
/// most `limit` bytes; `Err` when the file cannot be opened.
pub(crate) fn read(rel: &str, open: &std::path::Path, limit: usize) -> Result<Vec<Item>, String> {
    let file = crate::io::fs::open_regular(open).map_err(|e| format!("cannot be read: {e}"))?;
    let mut items = Vec::new();
    for_each_line(file, limit, |n, line| {
        if let Some(item) = issue(rel, n, line, limit) {
            items.push(item);
        }
    })
    .map_err(|e| format!("cannot be read: {e}"))?;
    Ok(items)
}

fn issue(rel: &str, n: usize, line: Line, limit: usize) -> Option<Item> {
    let skip = |input: String, why: String| {
        Some(Item {
            input,
            file: rel.to_string(),
            what: What::Refuse(why),
            notes: Vec::new(),
        })
    };
    let at = format!("{rel}:{n}");
    let bytes = match line {
        Line::Over(len) => {
            return skip(
                at,
                format!("line {n} is {len} bytes long, over the {limit}-byte limit (max_file_bytes); skipped without being read whole"),
            )
        }
        Line::Text(b) => b,
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return skip(at, format!("line {n} is not valid UTF-8; skipped"));
    };
    if text.trim().is_empty() {
        return None;
    }
    // A secret is looked for in the line as written: nothing of an issue
    // that holds one is written or shown, not even its title.
    if let Some((_, what)) = crate::syntax::secrets::find(&text).first() {
        return skip(
            at,
            format!("holds what looks like {what}; skipped whole (never written, never shown)"),
        );
    }
    let map: Map<String, Value> = match serde_json::from_str(&text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return skip(at, format!("line {n} is not a JSON object; skipped")),
        Err(e) => return skip(at, format!("line {n} is not JSON ({e}); skipped")),
    };
    let id = id_of(map.get("id")).filter(|i| !i.trim().is_empty());
    let Some(id) = id else {
        return skip(at, format!("line {n} is an issue without an id; skipped"));
    };
    let input = format!("{rel}#{}", one_line(&id, 80));
    let status = str_of(&map, "status").unwrap_or_default();
    if status == "tombstone" {
        return Some(Item {
            input,
            file: rel.to_string(),
            what: What::Skip("deleted in beads (status `tombstone`); not imported".into()),
            notes: Vec::new(),
        });
    }
    let full_title = str_of(&map, "title").unwrap_or_default();
    let title = one_line(&full_title, TITLE_MAX);
    let title = if title.is_empty() {
        one_line(&id, TITLE_MAX)
    } else {
        title
    };
    let mut rec = Rec::new(
        Kind::Request,
        title.clone(),
        body(&map, &id, &full_title, &title),
    );
    rec.slug_from = vec![id.clone(), title];
    rec.done = status == "closed";
    rec.tags = match map.get("labels") {
        Some(Value::Array(l)) => l
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    rec.date = str_of(&map, "created_at")
        .and_then(|d| date_of(&d))
        .map(|d| (d, "its `created_at`".into()));
    rec.names = vec![format!("beads:{id}")];
    rec.links = dependencies(&map)
        .into_iter()
        .map(|(d, _)| format!("beads:{d}"))
        .collect();
    rec.marker = Some(id_line(&id));
    Some(Item {
        input,
        file: rel.to_string(),
        what: What::Record(rec),
        notes: Vec::new(),
    })
}

fn id_line(id: &str) -> String {
    format!("- id: `{}`", id.replace('`', "'"))
}

/// An issue id: a string, or a number (some exports number their issues).
fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn str_of(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(|v| v.as_str()).map(str::to_string)
}

/// The (id, type) of each issue this one depends on.
fn dependencies(map: &Map<String, Value>) -> Vec<(String, String)> {
    let Some(Value::Array(deps)) = map.get("dependencies") else {
        return Vec::new();
    };
    deps.iter()
        .filter_map(|d| {
            let id = id_of(d.get("depends_on_id"))?;
            let kind = d
                .get("type")
                .and_then(|t| t.as_str())
                .unwrap_or("")
                .to_string();
            Some((id, kind))
        })
        .collect()
}

/// The body: the issue's texts as sections, then every other field as a
/// line, so that nothing of the issue is lost.
fn body(map: &Map<String, Value>, id: &str, full_title: &str, title: &str) -> String {
    let mut b = String::new();
    if full_title.trim() != title {
        b += &format!("{}\n\n", full_title.trim());
    }
    for (key, heading) in SECTIONS {
        let Some(text) = str_of(map, key).filter(|t| !t.trim().is_empty()) else {
            continue;
        };
        if !heading.is_empty() {
            b += &format!("## {heading}\n\n");
        }
        b += &format!("{}\n\n", text.trim_end());
    }
    b += "## Beads fields\n\n";
    b += &format!("{}\n", id_line(id));
    for (key, value) in map {
        if key == "id" || key == "title" || SECTIONS.iter().any(|(k, _)| k == key) {
            continue;
        }
        let shown = match value {
            Value::String(s) if !s.contains('\n') => s.clone(),
            other => other.to_string(),
        };
        b += &format!("- {key}: {}\n", one_line(&shown, usize::MAX));
    }
    b
}

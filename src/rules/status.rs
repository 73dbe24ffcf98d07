//! `status/*` rules that need only the record itself.

use super::{FieldState, Record, Sink};

/// `status/missing-target`: `status: replaced` without `replaced_by`.
pub fn missing_target(r: &Record, out: &mut Sink) {
    if r.status() != Some("replaced") || r.root.get("replaced_by").is_some() {
        return;
    }
    let span = r
        .root
        .get("status")
        .map(|e| e.value.span.clone())
        .unwrap_or(r.opener());
    out.emit(
        "status/missing-target",
        span,
        format!(
            "a replaced {} must say what replaced it in `replaced_by: <slug>`",
            r.kind
        ),
    );
}

/// `status/target-without-replaced`: `replaced_by` while status is not `replaced`.
pub fn target_without_replaced(r: &Record, out: &mut Sink) {
    let Some(status) = r.status() else { return };
    if status == "replaced" {
        return;
    }
    if let Some(entry) = r.root.get("replaced_by") {
        if matches!(r.field("replaced_by"), FieldState::Invalid) {
            return;
        }
        out.emit(
            "status/target-without-replaced",
            entry.key.span.clone(),
            format!("`replaced_by` is set but status is `{status}`; set `status: replaced` or delete `replaced_by`"),
        );
    }
}

//! The JSON Schemas in `schema/` agree with the linter. The front matter of
//! every fixture record is read with an independent YAML reader
//! (serde-saphyr straight into `serde_json::Value`, YAML 1.2 booleans) and
//! validated with the `jsonschema` crate; a record is accepted by its kind's
//! schema exactly when `memlint check` reports none of the field rules the
//! schema states.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_memlint");

const KINDS: [&str; 6] = [
    "decision",
    "request",
    "knowledge",
    "summary",
    "staging",
    "session",
];

/// The rules whose findings the schemas state too. (`slug/mismatch`, id
/// versus file stem, `sources/too-many` and the body rules need more than the
/// front matter.)
const SCHEMA_RULES: [&str; 12] = [
    "frontmatter/duplicate-key",
    "frontmatter/required",
    "frontmatter/type",
    "frontmatter/unknown-key",
    "sources/missing",
    "sources/format",
    "sources/duplicate",
    "status/missing-target",
    "status/target-without-replaced",
    "date/format",
    "staging/id",
    "session/id",
];

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn validators() -> BTreeMap<&'static str, jsonschema::Validator> {
    KINDS
        .iter()
        .map(|kind| {
            let path = manifest_dir().join(format!("schema/{kind}.schema.json"));
            let text = std::fs::read_to_string(&path).expect("schema file");
            let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{kind}"
            );
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .unwrap_or_else(|e| panic!("{kind} schema does not compile: {e}"));
            (*kind, validator)
        })
        .collect()
}

/// The kind of a root-relative path (SPEC §1), or `None` for other files.
fn kind_of(rel: &str) -> Option<&'static str> {
    let parts: Vec<&str> = rel.split('/').collect();
    let md = rel.ends_with(".md");
    match parts.as_slice() {
        ["memory", "summary.md"] => Some("summary"),
        ["memory", "decisions", _] if md => Some("decision"),
        ["memory", "requests", _] if md => Some("request"),
        ["memory", "sessions", _] if md => Some("session"),
        ["knowledge", _] if md => Some("knowledge"),
        ["staging", _] if md => Some("staging"),
        _ => None,
    }
}

/// The YAML between the `---` lines, split here without memlint's code.
fn front_matter(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let mut yaml = String::new();
    for line in lines {
        if line.trim_end() == "---" {
            return Some(yaml.replace("\r\n", "\n"));
        }
        yaml.push_str(line);
    }
    None
}

/// YAML 1.2 reading: `yes` is a string, as in memlint.
fn read_yaml(yaml: &str) -> Result<Value, String> {
    let options = serde_saphyr::options! { strict_booleans: true };
    serde_saphyr::from_str_with_options::<Value>(yaml, options).map_err(|e| e.to_string())
}

fn files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(rel) = path.strip_prefix(root) {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The fixture workspaces.
fn workspaces() -> Vec<PathBuf> {
    let fixtures = manifest_dir().join("fixtures");
    let mut out = vec![fixtures.join("example"), fixtures.join("precedence")];
    for group in ["rules", "config"] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures.join(group))
            .expect("fixture group")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        out.extend(dirs);
    }
    out
}

/// A diagnostic as (rule, line, message).
type Diag = (String, u64, String);

/// `memlint check --format json` on `root`: the diagnostics of each path.
fn lint(root: &Path) -> BTreeMap<String, Vec<Diag>> {
    let out = Command::new(BIN)
        .args(["check", "--format", "json", "--root"])
        .arg(root)
        .output()
        .expect("run memlint");
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let mut map: BTreeMap<String, Vec<Diag>> = BTreeMap::new();
    for d in json["diagnostics"].as_array().expect("diagnostics") {
        map.entry(d["path"].as_str().expect("path").to_string())
            .or_default()
            .push((
                d["rule"].as_str().expect("rule").to_string(),
                d["line"].as_u64().expect("line"),
                d["message"].as_str().expect("message").to_string(),
            ));
    }
    map
}

/// The schema-stated findings among a file's diagnostics. `fm_lines` is the
/// number of the closing `---` line: body findings do not count.
fn schema_findings(diags: &[Diag], fm_lines: u64) -> Vec<String> {
    diags
        .iter()
        .filter(|(rule, line, message)| {
            let in_front_matter = *line <= fm_lines;
            let stated = SCHEMA_RULES.contains(&rule.as_str())
                // The schema cannot compare an id with the file name.
                && !message.contains("differs from the file name");
            let project_root = rule == "session/absolute-path" && in_front_matter;
            stated || project_root
        })
        .map(|(rule, line, _)| format!("{rule} (line {line})"))
        .collect()
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at `{}`", e.instance_path()))
        .collect()
}

#[test]
fn schemas_agree_with_the_linter_on_every_fixture() {
    let validators = validators();
    let mut checked = BTreeMap::<(&str, bool), usize>::new();
    let mut disagreements = Vec::new();
    for root in workspaces() {
        let diags = lint(&root);
        for rel in files(&root) {
            let Some(kind) = kind_of(&rel) else { continue };
            let bytes = std::fs::read(root.join(&rel)).expect("read fixture");
            let file_diags = diags.get(&rel).cloned().unwrap_or_default();
            let unreadable = file_diags.iter().any(|(rule, ..)| {
                rule.starts_with("format/encoding")
                    || rule.starts_with("format/too-large")
                    || matches!(
                        rule.as_str(),
                        "frontmatter/missing" | "frontmatter/unclosed" | "frontmatter/parse"
                    )
            });
            let shown = format!("{}/{rel}", root.display());
            let Some(yaml) = front_matter(&bytes) else {
                assert!(unreadable, "{shown}: no front matter, but memlint read it");
                continue;
            };
            if unreadable {
                continue;
            }
            let fm_lines = yaml.lines().count() as u64 + 2;
            let expected = schema_findings(&file_diags, fm_lines);
            let found = match read_yaml(&yaml) {
                // serde-saphyr refuses duplicate keys, as memlint reports them.
                Err(e) => vec![format!("YAML: {e}")],
                Ok(value) => errors(&validators[kind], &value),
            };
            let accepted = found.is_empty();
            *checked.entry((kind, accepted)).or_default() += 1;
            if accepted != expected.is_empty() {
                disagreements.push(format!(
                    "{shown} ({kind}): memlint reports {expected:?}, the schema {found:?}"
                ));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "schema and linter disagree:\n{}",
        disagreements.join("\n")
    );
    // Every kind was seen valid, and the invalid cases were exercised.
    for kind in KINDS {
        assert!(
            checked.get(&(kind, true)).is_some_and(|n| *n > 0),
            "no valid {kind} fixture: {checked:?}"
        );
    }
    let rejected: usize = checked
        .iter()
        .filter(|((_, ok), _)| !ok)
        .map(|(_, n)| n)
        .sum();
    assert!(
        rejected >= 20,
        "only {rejected} rejected fixtures: {checked:?}"
    );
}

/// Validates the front matter of `fixtures/<workspace>/<rel>` against its
/// kind's schema.
fn verdict(workspace: &str, rel: &str) -> Vec<String> {
    let full = manifest_dir().join("fixtures").join(workspace).join(rel);
    let bytes = std::fs::read(&full).expect("fixture");
    let yaml = front_matter(&bytes).expect("front matter");
    let value = read_yaml(&yaml).expect("YAML");
    let kind = kind_of(rel).unwrap_or_else(|| panic!("{rel} is not a record"));
    errors(&validators()[kind], &value)
}

#[test]
fn schemas_reject_required_type_and_enum_fixtures() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "rules/frontmatter-required",
            "knowledge/no-description.md",
            "\"description\" is a required property",
        ),
        (
            "rules/frontmatter-type",
            "memory/decisions/pending-status.md",
            "\"pending\" is not one of",
        ),
        (
            "rules/frontmatter-type",
            "knowledge/yes-invocation.md",
            "\"yes\" is not of type \"boolean\"",
        ),
        (
            "rules/frontmatter-type",
            "memory/decisions/mapping-title.md",
            "is not of type \"string\"",
        ),
        (
            "rules/frontmatter-unknown-key",
            "knowledge/misspelt-invocation.md",
            "model_invokation",
        ),
        (
            "rules/sources-missing",
            "knowledge/empty-list.md",
            "[] has less than 1 item",
        ),
        (
            "rules/status-missing-target",
            "memory/decisions/old-cache.md",
            "\"replaced_by\" is a required property",
        ),
        (
            "rules/status-target-without-replaced",
            "memory/decisions/keep-json-cache.md",
            "{\"required\":[\"replaced_by\"]} is not allowed",
        ),
        (
            "rules/date-format",
            "memory/decisions/relative-date.md",
            "yesterday",
        ),
        (
            "rules/date-format",
            "memory/decisions/impossible-date.md",
            "2026-02-30",
        ),
        (
            "rules/staging-id",
            "staging/20261103-091500-3fa2.md",
            "20261103-091500-3FA2",
        ),
        (
            "rules/session-absolute-path",
            "memory/sessions/CMEM-20261102-174500.md",
            "ledgerd",
        ),
    ];
    for (workspace, rel, needle) in cases {
        let found = verdict(workspace, rel);
        assert!(
            found.iter().any(|e| e.contains(needle)),
            "{workspace}/{rel}: expected an error containing {needle:?}, got {found:?}"
        );
    }
    // The example's records of every kind pass.
    for rel in [
        "memory/decisions/use-float-amounts.md",
        "knowledge/minor-unit-rounding.md",
        "memory/sessions/CMEM-20261102-174500.md",
        "staging/20261103-142210-b07c.md",
        "memory/summary.md",
        "memory/requests/show-amounts-in-yen.md",
    ] {
        assert_eq!(verdict("example", rel), Vec::<String>::new(), "{rel}");
    }
}

#[test]
fn generated_clean_workspace_matches_the_schemas() {
    let generator = manifest_dir().join("../shared/bench/gen_workspace.py");
    if !generator.is_file() {
        eprintln!(
            "skipping: {} is absent (../shared is not beside the crate)",
            generator.display()
        );
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("ws");
    let status = Command::new("python3")
        .arg(&generator)
        .arg("--out")
        .arg(&out)
        .args(["--records", "400"])
        .output()
        .expect("run python3");
    assert!(status.status.success(), "{status:?}");
    let validators = validators();
    let mut n = 0;
    for rel in files(&out) {
        let Some(kind) = kind_of(&rel) else { continue };
        let bytes = std::fs::read(out.join(&rel)).expect("read");
        let yaml = front_matter(&bytes).unwrap_or_else(|| panic!("{rel}: no front matter"));
        let value = read_yaml(&yaml).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let found = errors(&validators[kind], &value);
        assert!(found.is_empty(), "{rel} ({kind}): {found:?}");
        n += 1;
    }
    assert!(n >= 400, "only {n} records");
}

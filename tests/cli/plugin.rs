//! plugin/: the Claude Code plugin folder. Its manifest, hooks file and MCP
//! registration have the shapes Claude Code's plugin reference documents;
//! its hooks run the very commands `memlint init --agent-settings` writes
//! (engine::init::templates::AGENT_HOOKS), through its launcher, which is run here;
//! and Claude Code's own `claude plugin validate` accepts it.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn plugin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin")
}

fn json(rel: &str) -> Value {
    let text = std::fs::read_to_string(plugin().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel} is not JSON: {e}"))
}

/// The launcher every plugin command starts with.
const LAUNCHER: &str = "\"${CLAUDE_PLUGIN_ROOT}/bin/memlint\"";

#[test]
fn manifest_has_the_documented_shape() {
    let manifest = json(".claude-plugin/plugin.json");
    let fields = manifest.as_object().expect("an object");
    // `name` is required: kebab-case, /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.
    let name = manifest["name"].as_str().expect("name");
    let kebab = name.split('-').enumerate().all(|(i, part)| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && (i > 0 || part.as_bytes()[0].is_ascii_lowercase())
    });
    assert!(kebab, "name {name:?} is not kebab-case");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert!(manifest["description"].is_string());
    assert!(manifest["author"]["name"].is_string());
    assert!(manifest["keywords"]
        .as_array()
        .is_some_and(|k| k.iter().all(Value::is_string)));
    for key in fields.keys() {
        assert!(
            [
                "name",
                "version",
                "description",
                "author",
                "homepage",
                "repository",
                "license",
                "keywords"
            ]
            .contains(&key.as_str()),
            "{key} is not a manifest field memlint means to set"
        );
    }
    // The hooks and the MCP server sit where Claude Code looks by default:
    // the manifest points nowhere else.
    assert!(plugin().join("hooks/hooks.json").is_file());
    assert!(plugin().join(".mcp.json").is_file());
}

/// `{"hooks": {event: [{matcher?, hooks: [{type, command, timeout?}]}]}}`
/// with each command's launcher replaced by `memlint`, as the settings
/// file has it.
fn normalised(mut v: Value) -> Value {
    let hooks = v["hooks"].as_object_mut().expect("hooks: an object");
    for groups in hooks.values_mut() {
        for group in groups.as_array_mut().expect("event: an array") {
            for hook in group["hooks"]
                .as_array_mut()
                .expect("group hooks: an array")
            {
                assert_eq!(hook["type"], "command", "{hook}");
                let command = hook["command"].as_str().expect("command").to_string();
                if let Some(rest) = command.strip_prefix(LAUNCHER) {
                    hook["command"] = Value::String(format!("memlint{rest}"));
                }
            }
        }
    }
    serde_json::json!({ "hooks": v["hooks"] })
}

#[test]
fn plugin_hooks_are_the_agent_settings_hooks() {
    let plugin_hooks = json("hooks/hooks.json");
    // Every command goes through the launcher under the plugin root.
    for groups in plugin_hooks["hooks"].as_object().expect("hooks").values() {
        for group in groups.as_array().expect("groups") {
            for hook in group["hooks"].as_array().expect("hooks") {
                let command = hook["command"].as_str().expect("command");
                assert!(command.starts_with(LAUNCHER), "{command}");
            }
        }
    }
    let settings: Value =
        serde_json::from_str(memlint::engine::init::templates::AGENT_HOOKS).expect("AGENT_HOOKS");
    assert_eq!(normalised(plugin_hooks), normalised(settings));

    // And what `init --agent-settings` writes today is that same set.
    let dir = tempfile::tempdir().expect("tempdir");
    common::git(dir.path(), &["init", "-q"]);
    let run = common::memlint(dir.path(), &["init", "--agent-settings"]);
    assert_eq!(run.code, 0, "{run:?}");
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".claude/settings.json")).expect("settings"),
    )
    .expect("settings JSON");
    assert_eq!(normalised(json("hooks/hooks.json")), normalised(written));
}

#[test]
fn mcp_registration_runs_memlint_mcp() {
    let mcp = json(".mcp.json");
    let server = &mcp["mcpServers"]["memlint"];
    assert_eq!(server["command"], "${CLAUDE_PLUGIN_ROOT}/bin/memlint");
    assert_eq!(server["args"], serde_json::json!(["mcp"]));
    assert_eq!(mcp["mcpServers"].as_object().map(|m| m.len()), Some(1));
}

#[test]
fn launcher_runs_memlint_from_path_and_says_how_to_install_it() {
    let launcher = plugin().join("bin/memlint");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&launcher)
            .expect("launcher")
            .permissions()
            .mode();
        assert!(mode & 0o111 != 0, "plugin/bin/memlint is not executable");
    }
    let bin_dir = Path::new(common::BIN).parent().expect("bin dir");
    // The plugin's own bin on PATH first, as a runtime may put it: skipped.
    let path = std::env::join_paths([
        plugin().join("bin"),
        bin_dir.into(),
        "/usr/bin".into(),
        "/bin".into(),
    ])
    .expect("PATH");
    let out = Command::new("sh")
        .arg(&launcher)
        .arg("--version")
        .env("PATH", &path)
        .env_remove("MEMLINT")
        .output()
        .expect("sh");
    assert!(out.status.success(), "{out:?}");
    let direct = common::memlint(bin_dir, &["--version"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), direct.stdout);

    // A hook through the launcher: session-start on a workspace prints the
    // context, as `memlint hook session-start` does.
    let ws = tempfile::tempdir().expect("tempdir");
    common::copy_dir(&common::fixture("example"), ws.path());
    let via = Command::new("sh")
        .arg(&launcher)
        .args(["hook", "session-start"])
        .current_dir(ws.path())
        .env("PATH", &path)
        .output()
        .expect("sh");
    let direct = common::memlint(ws.path(), &["hook", "session-start"]);
    assert_eq!(via.status.code(), Some(direct.code));
    assert_eq!(String::from_utf8_lossy(&via.stdout), direct.stdout);

    // No memlint anywhere: a message naming the install, exit 1.
    let out = Command::new("sh")
        .arg(&launcher)
        .arg("--version")
        .env(
            "PATH",
            std::env::join_paths([plugin().join("bin"), "/usr/bin".into(), "/bin".into()])
                .expect("PATH"),
        )
        .env_remove("MEMLINT")
        .output()
        .expect("sh");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("pipx install memlint-cli"), "{said}");
}

/// Claude Code's own validator, `claude plugin validate` (npm
/// `@anthropic-ai/claude-code`; `.ci/run` installs it into
/// `target/claude-code`), or `claude` on PATH.
fn claude() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let local = target.join("claude-code/node_modules/.bin/claude");
    if local.is_file() {
        return Some(local);
    }
    Command::new("claude")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then(|| PathBuf::from("claude"))
}

fn validate(claude: &Path, dir: &Path) -> (bool, String) {
    // Its settings go to a throw-away HOME, not the user's.
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(claude)
        .args(["plugin", "validate"])
        .arg(dir)
        .env("HOME", home.path())
        .output()
        .expect("run claude");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[test]
fn claude_code_validates_the_plugin() {
    let Some(claude) = claude() else {
        eprintln!(
            "SKIPPED claude_code_validates_the_plugin: Claude Code is not installed (npm install --prefix target/claude-code @anthropic-ai/claude-code)"
        );
        return;
    };
    let (ok, said) = validate(&claude, &plugin());
    assert!(ok, "claude plugin validate refused plugin/:\n{said}");
    assert!(said.contains("Validation passed"), "{said}");

    // The validator reads the hooks file too: a copy with a bad hook type
    // is refused, so the pass above means something.
    let copy = tempfile::tempdir().expect("tempdir");
    for rel in [
        ".claude-plugin/plugin.json",
        "hooks/hooks.json",
        ".mcp.json",
    ] {
        let to = copy.path().join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(plugin().join(rel), &to).expect("copy");
    }
    let hooks = copy.path().join("hooks/hooks.json");
    let text = std::fs::read_to_string(&hooks).expect("hooks");
    std::fs::write(
        &hooks,
        text.replacen("\"type\": \"command\"", "\"type\": \"shell\"", 1),
    )
    .expect("write");
    let (ok, said) = validate(&claude, copy.path());
    assert!(!ok, "a bad hook type passed:\n{said}");
    assert!(said.contains("hooks.SessionStart.0.hooks.0.type"), "{said}");
}

/// `.claude-plugin/marketplace.json` at the repository's top makes the
/// repository a plugin marketplace (`claude plugin marketplace add`): it
/// has the documented shape and lists plugin/ under the manifest's name,
/// version and description.
#[test]
fn repository_is_a_marketplace_listing_the_plugin() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(top.join(".claude-plugin/marketplace.json"))
        .expect(".claude-plugin/marketplace.json");
    let market: Value = serde_json::from_str(&text).expect("marketplace.json is not JSON");
    assert_eq!(market["name"], "memlint");
    assert!(market["owner"]["name"].is_string(), "{market}");
    let plugins = market["plugins"].as_array().expect("plugins");
    assert_eq!(plugins.len(), 1, "{market}");
    let entry = &plugins[0];
    let manifest = json(".claude-plugin/plugin.json");
    assert_eq!(entry["name"], manifest["name"]);
    assert_eq!(entry["version"], manifest["version"]);
    assert_eq!(entry["description"], manifest["description"]);
    let source = entry["source"].as_str().expect("a relative source");
    assert!(source.starts_with("./"), "{source}");
    assert_eq!(
        top.join(source).canonicalize().ok(),
        plugin().canonicalize().ok()
    );
}

#[test]
fn claude_code_validates_and_adds_the_marketplace() {
    let Some(claude) = claude() else {
        eprintln!(
            "SKIPPED claude_code_validates_and_adds_the_marketplace: Claude Code is not installed (npm install --prefix target/claude-code @anthropic-ai/claude-code)"
        );
        return;
    };
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (ok, said) = validate(&claude, top);
    assert!(
        ok,
        "claude plugin validate refused the marketplace:\n{said}"
    );
    assert!(said.contains("Validation passed"), "{said}");

    // `claude plugin marketplace add` on a copy holding what a clone holds.
    let copy = tempfile::tempdir().expect("tempdir");
    for rel in [
        ".claude-plugin/marketplace.json",
        "plugin/.claude-plugin/plugin.json",
        "plugin/hooks/hooks.json",
        "plugin/.mcp.json",
        "plugin/bin/memlint",
    ] {
        let to = copy.path().join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(top.join(rel), &to).expect("copy");
    }
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(&claude)
        .args(["plugin", "marketplace", "add"])
        .arg(copy.path())
        .env("HOME", home.path())
        .output()
        .expect("run claude");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "marketplace add failed:\n{said}");
    let out = Command::new(&claude)
        .args(["plugin", "install", "memlint@memlint"])
        .env("HOME", home.path())
        .output()
        .expect("run claude");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "plugin install failed:\n{said}");
}

//! `memlint init --agent-settings [FILE] [--agent NAME…]`: memlint's hooks
//! merged into an agent runtime's settings file (Claude Code's
//! `.claude/settings.json`, Codex's `.codex/hooks.json`, Gemini CLI's
//! `.gemini/settings.json`, Cursor's `.cursor/hooks.json`), keeping the
//! user's other settings and hooks in their order, adding nothing twice,
//! written atomically.

use super::files::{inside, read_existing, update_err, write_err, Report};
use super::json::Json;
use crate::engine::agents::Agent;
use crate::engine::workspace::WorkspaceError;
use std::path::Path;

/// Whether `value` or anything in it is a hook running `command`
/// (`memlint hook …`), whatever path it gives the program.
fn runs(value: &Json, command: &str) -> bool {
    match value {
        Json::Object(entries) => entries.iter().any(|(k, v)| {
            let same = match v {
                Json::String(c) => k == "command" && same_command(c, command),
                _ => false,
            };
            same || runs(v, command)
        }),
        Json::Array(items) => items.iter().any(|i| runs(i, command)),
        _ => false,
    }
}

/// Merges memlint's hooks (as in [`super::templates::AGENT_HOOKS`]) into a settings text:
/// the user's other settings and hooks stay as they are, in their order, and
/// an event that already runs memlint's command gets nothing added. Returns
/// the new text and the events added to (empty when nothing changes).
/// `agent`'s settings format decides the rest
/// ([`Agent::hooks_template`]): its other top-level keys (Cursor's
/// `version`) are added when missing, never changed; Claude Code's
/// permissions only for Claude Code.
pub(crate) fn merge_settings(
    agent: Agent,
    existing: Option<&str>,
) -> Result<(String, Vec<String>), String> {
    // `{"hooks": {event: [group]}}`
    let ours: Json =
        serde_json::from_str(agent.hooks_template()).expect("the hooks template is valid JSON");
    let mut settings = match existing.filter(|t| !t.trim().is_empty()) {
        None => Json::Object(Vec::new()),
        Some(text) => {
            serde_json::from_str::<Json>(text).map_err(|e| format!("is not valid JSON ({e})"))?
        }
    };
    if !matches!(settings, Json::Object(_)) {
        return Err("is not a JSON object".into());
    }
    let Json::Object(top) = ours else {
        return Err("has no hooks to add".into());
    };
    let mut our_events = Vec::new();
    for (key, value) in top {
        match (key.as_str(), value) {
            ("hooks", Json::Object(events)) => our_events = events,
            (_, value) => {
                if settings.get_mut(&key).is_none() {
                    if let Json::Object(entries) = &mut settings {
                        entries.push((key, value));
                    }
                }
            }
        }
    }
    if settings.get_mut("hooks").is_none() {
        if let Json::Object(entries) = &mut settings {
            entries.push(("hooks".into(), Json::Object(Vec::new())));
        }
    }
    let Some(hooks @ Json::Object(_)) = settings.get_mut("hooks") else {
        return Err("has a `hooks` that is not a JSON object".into());
    };
    let mut added = Vec::new();
    for (event, groups) in our_events {
        let command = match &groups {
            Json::Array(g) => g.iter().find_map(first_command),
            _ => None,
        }
        .unwrap_or_default();
        match hooks.get_mut(&event) {
            Some(Json::Array(list)) => {
                let Json::Array(mut ours) = groups else {
                    continue;
                };
                // The tools our group is for that no group running our
                // command covers yet; without a matcher, all or nothing.
                let wanted: Option<Vec<String>> = ours
                    .first()
                    .and_then(matcher)
                    .map(|m| tool_names(m).into_iter().map(String::from).collect());
                let runs_for = |tool: &str| {
                    list.iter()
                        .any(|g| runs(g, &command) && matches_tool(g, tool))
                };
                match &wanted {
                    None if list.iter().any(|g| runs(g, &command)) => continue,
                    None => {}
                    Some(tools) => {
                        let missing: Vec<&str> = tools
                            .iter()
                            .map(String::as_str)
                            .filter(|t| !runs_for(t))
                            .collect();
                        if missing.is_empty() {
                            continue;
                        }
                        if missing.len() < tools.len() {
                            // Only the tools left over, so that no tool runs
                            // the hook twice (post-write would count its
                            // failures double).
                            if let Some(Json::Object(entries)) = ours.first_mut() {
                                if let Some(slot) = entries.iter_mut().find(|(k, _)| k == "matcher")
                                {
                                    slot.1 = Json::String(missing.join("|"));
                                }
                            }
                        }
                    }
                }
                list.extend(ours);
                added.push(event);
            }
            Some(existing) if runs(existing, &command) => {}
            Some(_) => return Err(format!("has a `hooks.{event}` that is not a JSON array")),
            None => {
                if let Json::Object(entries) = hooks {
                    entries.push((event.clone(), groups));
                }
                added.push(event);
            }
        }
    }
    if agent.has_permissions() && allow_memlint(&mut settings)? {
        added.push(PERMISSIONS.to_string());
    }
    let mut text = serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok((text, added))
}

/// What `added` names when the permissions were added.
const PERMISSIONS: &str = "permissions";

/// The memlint commands an agent runs through its Bash tool, allowed
/// without asking each time (`permissions.allow`, Claude Code's rule
/// syntax): saving, replacing, reading and searching records.
pub(crate) const AGENT_PERMISSIONS: [&str; 7] = [
    "Bash(memlint new:*)",
    "Bash(memlint replace:*)",
    "Bash(memlint show:*)",
    "Bash(memlint search:*)",
    "Bash(memlint check:*)",
    "Bash(memlint fmt:*)",
    "Bash(memlint staging add:*)",
];

/// Adds the [`AGENT_PERMISSIONS`] missing from `permissions.allow`; true
/// when one was added.
fn allow_memlint(settings: &mut Json) -> Result<bool, String> {
    if settings.get_mut("permissions").is_none() {
        if let Json::Object(entries) = settings {
            entries.push(("permissions".into(), Json::Object(Vec::new())));
        }
    }
    let Some(permissions @ Json::Object(_)) = settings.get_mut("permissions") else {
        return Err("has a `permissions` that is not a JSON object".into());
    };
    if permissions.get_mut("allow").is_none() {
        if let Json::Object(entries) = permissions {
            entries.push(("allow".into(), Json::Array(Vec::new())));
        }
    }
    let Some(Json::Array(allow)) = permissions.get_mut("allow") else {
        return Err("has a `permissions.allow` that is not a JSON array".into());
    };
    let mut added = false;
    for rule in AGENT_PERMISSIONS {
        if !allow
            .iter()
            .any(|r| matches!(r, Json::String(s) if s == rule))
        {
            allow.push(Json::String(rule.to_string()));
            added = true;
        }
    }
    Ok(added)
}

/// "the SessionStart, Stop hook(s) and the permissions to run memlint".
fn added_words(added: &[String]) -> String {
    let events: Vec<&str> = added
        .iter()
        .map(String::as_str)
        .filter(|a| *a != PERMISSIONS)
        .collect();
    let permissions = added.iter().any(|a| a == PERMISSIONS);
    match (events.is_empty(), permissions) {
        (false, false) => format!("memlint's {} hook(s)", events.join(", ")),
        (false, true) => format!(
            "memlint's {} hook(s) and the permission to run memlint's commands",
            events.join(", ")
        ),
        _ => "the permission to run memlint's commands".to_string(),
    }
}

/// A hook group's `matcher`: `None` when it has none (it then matches every
/// tool).
fn matcher(group: &Json) -> Option<&str> {
    match group {
        Json::Object(entries) => entries.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("matcher", Json::String(m)) => Some(m.as_str()),
            _ => None,
        }),
        _ => None,
    }
}

/// The tool names of a plain matcher such as `Write|Edit|MultiEdit`.
fn tool_names(matcher: &str) -> Vec<&str> {
    matcher
        .split('|')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect()
}

/// Whether a hook group runs for `tool`, as the runtime reads a matcher: none,
/// an empty one or `*` matches every tool; letters, digits and `|` name tools
/// exactly; anything else is a regular expression. One that does not compile
/// counts as matching, so that nothing is registered twice.
fn matches_tool(group: &Json, tool: &str) -> bool {
    let Some(m) = matcher(group).map(str::trim) else {
        return true;
    };
    if m.is_empty() || m == "*" {
        return true;
    }
    if m.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|' || c == ' ')
    {
        return tool_names(m).contains(&tool);
    }
    regex::Regex::new(m).map_or(true, |re| re.is_match(tool))
}

/// Whether two hook commands run the same program (by file name, so that
/// `/usr/local/bin/memlint` is `memlint`) with the same arguments.
fn same_command(a: &str, b: &str) -> bool {
    let split = |c: &str| -> Option<(String, Vec<String>)> {
        let mut words = c.split_whitespace();
        let program = words.next()?;
        let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
        let name = name.strip_suffix(".exe").unwrap_or(name).to_string();
        Some((name, words.map(str::to_string).collect()))
    };
    split(a).is_some_and(|x| Some(x) == split(b))
}

fn first_command(v: &Json) -> Option<String> {
    match v {
        Json::Object(entries) => entries.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("command", Json::String(c)) => Some(c.clone()),
            _ => first_command(v),
        }),
        Json::Array(items) => items.iter().find_map(first_command),
        _ => None,
    }
}

/// `memlint init --agent-settings [FILE]`, checked: the path, the
/// existing file and the merge are settled by [`AgentSettings::plan`]
/// before `init` creates anything, and [`AgentSettings::write`] then
/// writes.
pub(crate) struct AgentSettings {
    agent: Agent,
    path: std::path::PathBuf,
    shown: String,
    /// The merged text and the events added (none: nothing to write).
    merged: (String, Vec<String>),
}

impl AgentSettings {
    /// Merges `agent`'s hook settings into FILE (by default the agent's
    /// own, [`Agent::settings_file`]; relative to the root, or absolute),
    /// in memory. FILE must lie inside
    /// the root once `..` and every link on the way are resolved; a file
    /// there that is not a regular file or not a JSON object is left alone
    /// (exit 2).
    pub(crate) fn plan(
        root: &Path,
        file: &Path,
        agent: Agent,
    ) -> Result<AgentSettings, WorkspaceError> {
        let shown = file.display().to_string();
        let outside = || WorkspaceError::SettingsOutside {
            shown: shown.clone(),
            root: root.to_path_buf(),
        };
        let rel = if file.is_absolute() {
            let file = crate::io::walk::normalize(file);
            let real = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            file.strip_prefix(root)
                .or_else(|_| file.strip_prefix(&real))
                .map(Path::to_path_buf)
                .map_err(|_| outside())?
        } else {
            lexically_inside(file).ok_or_else(outside)?
        };
        if rel.as_os_str().is_empty() {
            return Err(outside());
        }
        let path = root.join(&rel);
        inside(root, &path)?;
        let existing = read_existing(&path)?;
        let existing = existing.map(String::from_utf8).transpose().map_err(|_| {
            WorkspaceError::Usage(format!(
                "{shown} is not valid UTF-8; fix it or add the hooks by hand"
            ))
        })?;
        let merged = merge_settings(agent, existing.as_deref()).map_err(|why| {
            WorkspaceError::Usage(format!("{shown} {why}; fix it or add the hooks by hand"))
        })?;
        Ok(AgentSettings {
            agent,
            path,
            shown,
            merged,
        })
    }

    /// Writes the merged settings (creating their directory). They are
    /// merged again into what the file holds when it is written: an edit
    /// saved since [`AgentSettings::plan`] read it is kept, never
    /// overwritten.
    pub(crate) fn write(self, report: &mut Report) -> Result<(), WorkspaceError> {
        let AgentSettings {
            agent,
            path,
            shown,
            merged: (_, planned),
        } = self;
        if planned.is_empty() {
            report.say(format!("{shown} already registers memlint's hooks"));
            return Ok(());
        }
        if let Some(dir) = path.parent().filter(|d| !d.exists()) {
            crate::io::files::create_dir_all(dir)
                .map_err(write_err("create the directory", dir))?;
        }
        let mut added = Vec::new();
        crate::io::fs::update(
            &path,
            |existing| {
                let existing = existing
                    .map(|b| {
                        String::from_utf8(b.to_vec()).map_err(|_| {
                            format!("{shown} is not valid UTF-8; fix it or add the hooks by hand")
                        })
                    })
                    .transpose()
                    .map_err(WorkspaceError::Usage)?;
                let (text, new) = merge_settings(agent, existing.as_deref()).map_err(|why| {
                    WorkspaceError::Usage(format!("{shown} {why}; fix it or add the hooks by hand"))
                })?;
                added = new;
                Ok((!added.is_empty()).then(|| text.into_bytes()))
            },
            update_err(&path),
        )?;
        if added.is_empty() {
            report.say(format!("{shown} already registers memlint's hooks"));
        } else {
            report.say(format!("added {} to {shown}", added_words(&added)));
        }
        Ok(())
    }
}

/// How to register the MCP server, which `--agent-settings` says after the
/// hooks: for agents the hooks do not drive (other runtimes, sub-agents).
pub(crate) const MCP_HINT: &str = "agents the hooks do not reach can use memlint's MCP server: for Claude Code add {\"mcpServers\": {\"memlint\": {\"command\": \"memlint\", \"args\": [\"mcp\"]}}} to .mcp.json (Cursor: .cursor/mcp.json; any client: the command `memlint mcp`; see docs/mcp.md)";

/// `rel` with its `.` and `..` resolved by their text, when it never climbs
/// above where it starts.
fn lexically_inside(rel: &Path) -> Option<std::path::PathBuf> {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

//! The agent runtimes whose hook protocols memlint speaks: how each one is
//! recognised from its hook input, how it takes the context memlint adds
//! (at session start and for each prompt), and which settings file
//! `init --agent-settings --agent NAME` registers the hooks in.
//!
//! Only what each runtime's documented protocol allows is used:
//!
//! - Claude Code: `SessionStart` (plain text on standard output),
//!   `UserPromptSubmit` (`hookSpecificOutput.additionalContext`),
//!   `PostToolUse`, `Stop`.
//! - OpenAI Codex CLI: the same input and output as Claude Code
//!   (`.codex/hooks.json`); its session start is answered in JSON, since
//!   Codex refuses plain text that starts like JSON.
//! - Gemini CLI: `SessionStart` and `BeforeAgent`, answered only in JSON
//!   (`hookSpecificOutput.additionalContext`); plain text on standard
//!   output is not allowed.
//! - Each agent's end of turn (Codex's `Stop`, Gemini CLI's `AfterAgent`,
//!   Cursor's `stop`) runs `hook stop`, which then prints nothing on
//!   standard output, where those hooks take only JSON.
//! - Cursor: `sessionStart` (`additional_context`). Its
//!   `beforeSubmitPrompt` answer is documented as `continue` and
//!   `user_message` only, so it cannot add context to a prompt.

use serde_json::{json, Value};

/// An agent runtime with a hook protocol memlint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Agent {
    /// Claude Code (the default).
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
}

impl Agent {
    /// Every agent, in the order `init --agent-settings` reports them.
    #[cfg(test)] // only the unit tests call it
    pub(crate) const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Cursor];

    /// The name `--agent` takes.
    #[cfg(test)] // only the unit tests call it
    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
        }
    }

    /// The agent's own name, for messages.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
        }
    }

    /// Whether the agent's prompt hook can add context to a prompt (not
    /// Cursor's `beforeSubmitPrompt`).
    pub(crate) fn takes_prompt_context(self) -> bool {
        self != Agent::Cursor
    }

    /// The agent a hook input comes from, by the event names only one
    /// runtime uses: Gemini CLI's `BeforeAgent`, Cursor's camelCase
    /// `sessionStart` and `beforeSubmitPrompt`. Anything else is answered
    /// as Claude Code (whose answers Codex takes too); Gemini CLI's
    /// `SessionStart` looks like Claude Code's, so its settings name the
    /// agent with `--agent gemini`.
    pub(crate) fn recognise(input: &Value) -> Agent {
        match input.get("hook_event_name").and_then(Value::as_str) {
            Some("BeforeAgent") => Agent::Gemini,
            Some("AfterAgent") => Agent::Gemini,
            Some("sessionStart" | "beforeSubmitPrompt" | "stop") => Agent::Cursor,
            _ => Agent::Claude,
        }
    }

    /// The settings file `init --agent-settings --agent NAME` writes,
    /// relative to the workspace root.
    pub(crate) fn settings_file(self) -> &'static str {
        match self {
            Agent::Claude => ".claude/settings.json",
            Agent::Codex => ".codex/hooks.json",
            Agent::Gemini => ".gemini/settings.json",
            Agent::Cursor => ".cursor/hooks.json",
        }
    }

    /// The hooks memlint registers for this agent, in its settings format:
    /// `{"hooks": {event: [entry]}}`, plus the top-level keys the format
    /// needs (Cursor's `"version": 1`).
    pub(crate) fn hooks_template(self) -> &'static str {
        match self {
            Agent::Claude => super::init::templates::AGENT_HOOKS,
            Agent::Codex => CODEX_HOOKS,
            Agent::Gemini => GEMINI_HOOKS,
            Agent::Cursor => CURSOR_HOOKS,
        }
    }

    /// Whether the settings also take Claude Code's `permissions.allow`.
    pub(crate) fn has_permissions(self) -> bool {
        self == Agent::Claude
    }

    /// What `hook session-start` prints for the context `text` (empty:
    /// nothing).
    pub(crate) fn session_start_answer(self, text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        let out = match self {
            Agent::Claude => return text.to_string(),
            Agent::Codex | Agent::Gemini => json!({
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": text,
                }
            }),
            Agent::Cursor => json!({ "additional_context": text }),
        };
        answer(&out)
    }

    /// What `hook prompt` prints for the added `text`: for Cursor, whose
    /// prompt hook cannot add context, the answer that lets the prompt go
    /// on unchanged.
    pub(crate) fn prompt_answer(self, text: &str) -> String {
        let event = match self {
            Agent::Claude | Agent::Codex => "UserPromptSubmit",
            Agent::Gemini => "BeforeAgent",
            Agent::Cursor => return answer(&json!({ "continue": true })),
        };
        answer(&json!({
            "hookSpecificOutput": {
                "hookEventName": event,
                "additionalContext": text,
            }
        }))
    }
}

/// One JSON answer on one line, its strings' credentials masked.
fn answer(value: &Value) -> String {
    format!(
        "{}\n",
        crate::syntax::sanitize::json_text(&value.to_string())
    )
}

/// The hooks `init --agent-settings --agent codex` registers in
/// `.codex/hooks.json` (Claude Code's format; timeouts in seconds). The
/// file's top level may hold only `description` and `hooks`.
pub(crate) const CODEX_HOOKS: &str = r#"{
  "hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "memlint hook session-start --agent codex", "timeout": 20}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "memlint hook prompt", "timeout": 10}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "memlint hook stop --agent codex"}]}]
  }
}
"#;

/// The hooks `init --agent-settings --agent gemini` registers in
/// `.gemini/settings.json` (timeouts in milliseconds).
pub(crate) const GEMINI_HOOKS: &str = r#"{
  "hooks": {
    "SessionStart": [{"hooks": [{"name": "memlint-session-start", "type": "command", "command": "memlint hook session-start --agent gemini", "timeout": 20000}]}],
    "BeforeAgent": [{"hooks": [{"name": "memlint-prompt", "type": "command", "command": "memlint hook prompt", "timeout": 10000}]}],
    "AfterAgent": [{"hooks": [{"name": "memlint-stop", "type": "command", "command": "memlint hook stop --agent gemini"}]}]
  }
}
"#;

/// The hook `init --agent-settings --agent cursor` registers in
/// `.cursor/hooks.json`.
pub(crate) const CURSOR_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "sessionStart": [{"command": "memlint hook session-start --agent cursor"}],
    "stop": [{"command": "memlint hook stop --agent cursor"}]
  }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_json_with_hooks() {
        for agent in Agent::ALL {
            let v: Value = serde_json::from_str(agent.hooks_template()).expect("JSON");
            assert!(v["hooks"].is_object(), "{}", agent.name());
        }
    }

    #[test]
    fn recognised_by_event_names_only_one_runtime_uses() {
        let of = |e: &str| Agent::recognise(&json!({ "hook_event_name": e }));
        assert_eq!(of("BeforeAgent"), Agent::Gemini);
        assert_eq!(of("sessionStart"), Agent::Cursor);
        assert_eq!(of("SessionStart"), Agent::Claude);
        assert_eq!(Agent::recognise(&Value::Null), Agent::Claude);
    }
}

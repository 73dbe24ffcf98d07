//! `memlint hook session-start|post-write|stop`: the CLI side of the
//! agent-runtime hooks. It reads the runtime's JSON on standard input,
//! runs the hook, prints its reply and turns its verdict into the exit
//! code the runtime understands.

use super::args::{GlobalArgs, HookCommand};
use super::exit;
use super::output;
use crate::engine::hook::{self, Request};
use std::io::{IsTerminal, Read};
use std::process::ExitCode;

/// `memlint hook …`: the hooks resolve their own workspace, since a broken
/// one must not make them fail.
pub(super) fn run(global: &GlobalArgs, cmd: &HookCommand) -> ExitCode {
    never_fail_on_panic();
    let env = |name: &str| std::env::var(name).ok();
    let agent = match cmd {
        HookCommand::SessionStart(a) | HookCommand::Prompt(a) | HookCommand::Stop(a) => {
            a.agent.map(|n| n.agent())
        }
        HookCommand::PostWrite => None,
    };
    let request = Request {
        agent,
        root: global.root.clone(),
        config: global.config.clone(),
        cwd: std::env::current_dir().ok(),
        input: read_input(),
        env: &env,
        words: super::advice::words,
        names: super::advice::name,
    };
    let reply = match cmd {
        HookCommand::SessionStart(_) => hook::session_start(&request),
        HookCommand::PostWrite => hook::post_write(&request),
        HookCommand::Stop(_) => hook::stop(&request),
        HookCommand::Prompt(_) => crate::engine::hook_prompt::prompt(&request, &|late| {
            // The budget ended before the search did: the agent is not
            // kept waiting for it.
            output::err(&late.stderr);
            output::out(&late.stdout);
            std::process::exit(0)
        }),
    };
    output::err(&reply.stderr);
    output::out(&reply.stdout);
    exit::hook(reply.verdict)
}

/// A panic inside a hook is reported on standard error and ends the process
/// with exit 0: a bug in memlint must not block the agent either.
fn never_fail_on_panic() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        output::err(&format!(
            "memlint hook: internal error{at}; please report this bug\n"
        ));
        std::process::exit(0);
    }));
}

/// Standard input as JSON (`Null` when it is a terminal, empty or invalid).
fn read_input() -> serde_json::Value {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return serde_json::Value::Null;
    }
    let mut bytes = Vec::new();
    let _ = stdin.lock().take(16 << 20).read_to_end(&mut bytes);
    // Invalid UTF-8 (in a pasted prompt) is read lossily; anything else
    // that is not JSON counts as no input.
    match std::str::from_utf8(&bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_str(&String::from_utf8_lossy(&bytes)),
    }
    .unwrap_or(serde_json::Value::Null)
}

/// Whether the command line (without the program name) calls `memlint hook
/// …`: its first word that is no global flag is `hook`. Used when the
/// command line does not parse, so that a hook the runtime names wrongly
/// is not a usage error (exit 2, which the runtime reads as blocking).
pub fn is_hook_call(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str() else {
            return false;
        };
        match arg {
            "--root" | "--config" | "--color" => {
                args.next();
            }
            "-q" | "--quiet" => {}
            _ if arg.starts_with("--root=")
                || arg.starts_with("--config=")
                || arg.starts_with("--color=") => {}
            _ => return arg == "hook",
        }
    }
    false
}

/// The note for a `memlint hook …` command line that does not parse:
/// what clap found wrong, that nothing was done, and the hooks there are.
pub fn hook_usage_note(clap_error: &str) -> String {
    let first = clap_error
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("the command line does not parse")
        .trim_start_matches("error: ");
    format!(
        "memlint hook: note: {first}; nothing was done, and the exit code is 0 so that the agent is not blocked. The hooks are `memlint hook session-start`, `memlint hook post-write` and `memlint hook stop` (`memlint hook --help`); fix the command in the agent's settings (e.g. .claude/settings.json).\n"
    )
}

//! The texts `init --hooks` installs or prints: the git hooks (shell
//! scripts) and the agent-runtime hook settings.

/// The git pre-commit hook `init --hooks` writes to `.githooks/pre-commit`
/// (this project's own `.githooks/pre-commit` is the same text). The line
/// `root=.` is the workspace root relative to the top of the work tree.
pub const PRE_COMMIT: &str = r#"#!/bin/sh
# memlint pre-commit hook, written by `memlint init --hooks`.
#
# Lints the memory records this commit will contain: the staged contents
# (`memlint check --staged`), not the work tree, and checks that they are
# formatted (`memlint fmt --check` on the staged contents).
# To fix: edit the records, `memlint fmt FILE...`, then `git add` them again.
# To commit anyway, once: git commit --no-verify

# The workspace root, relative to the top of the work tree.
root=.

if ! command -v memlint >/dev/null 2>&1; then
    echo "memlint pre-commit: memlint is not on PATH; install it (in a clone of memlint: cargo install --locked --path .)," >&2
    echo "or commit without this hook once: git commit --no-verify" >&2
    exit 1
fi

status=0
memlint --root "$root" check --staged || status=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memlint-hook.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
git -c core.quotePath=false diff --cached --name-only --diff-filter=ACMR -- "$root" >"$tmp/staged" || exit 1
unformatted=""
while IFS= read -r file; do
    case "$file" in
    *.md) ;;
    *) continue ;;
    esac
    git show ":$file" >"$tmp/blob" || continue
    # A record fmt cannot read is `check --staged`'s to report.
    memlint --root "$root" fmt --stdin-filepath "$file" <"$tmp/blob" >"$tmp/formatted" 2>/dev/null || continue
    cmp -s "$tmp/blob" "$tmp/formatted" || unformatted="$unformatted  $file
"
done <"$tmp/staged"
if [ -n "$unformatted" ]; then
    printf 'memlint: these staged records are not formatted:\n%s' "$unformatted" >&2
    echo "run \`memlint fmt\` on them and \`git add\` them again" >&2
    status=1
fi

if [ "$status" -ne 0 ]; then
    echo "memlint pre-commit: commit stopped. Fix the records above and \`git add\` them," >&2
    echo "or commit without this hook once: git commit --no-verify" >&2
fi
exit "$status"
"#;

/// The git commit-msg hook `init --hooks` writes to `.githooks/commit-msg`:
/// the `history/*` rules on what the commit removes or rewrites, against
/// the message's `Memlint-GC:` trailers. `root=.` as in [`PRE_COMMIT`].
pub(crate) const COMMIT_MSG: &str = r#"#!/bin/sh
# memlint commit-msg hook, written by `memlint init --hooks`.
#
# Stops a commit that removes a record (or rewrites an active decision)
# without a `Memlint-GC:` trailer naming it in its message.
# To commit anyway, once: git commit --no-verify

# The workspace root, relative to the top of the work tree.
root=.

command -v memlint >/dev/null 2>&1 || exit 0
memlint --root "$root" check --staged --commit-msg "$1" && exit 0
echo "memlint commit-msg: commit stopped. Add the trailer to the message, or commit without this hook once: git commit --no-verify" >&2
exit 1
"#;

/// The command [`COMMIT_MSG`] runs, which a commit-msg hook that is not
/// memlint's is told to run too.
pub(crate) const COMMIT_MSG_CHECK: &str = r#"memlint check --staged --commit-msg "$1""#;

/// The agent-runtime hook settings (docs/agent-hooks.md) `init --hooks` prints, in the
/// settings format of Claude Code style runtimes.
pub const AGENT_HOOKS: &str = r#"{
  "hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "memlint hook session-start", "timeout": 20}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "memlint hook prompt", "timeout": 10}]}],
    "PostToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "memlint hook post-write"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "memlint hook stop"}]}]
  }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_msg_hook_runs_the_check_it_tells_others_to_run() {
        let args = COMMIT_MSG_CHECK.strip_prefix("memlint ").expect("memlint");
        assert!(
            COMMIT_MSG.contains(&format!("memlint --root \"$root\" {args}")),
            "{COMMIT_MSG}"
        );
    }
}

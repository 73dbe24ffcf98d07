//! `memlint init`: creates the layout, `.memlint.yml` and the `.gitignore`
//! lines, never clobbering what exists.

use crate::engine::workspace::WorkspaceError;
use std::path::Path;

/// Lines `init` makes sure `.gitignore` holds.
pub const GITIGNORE_LINES: [&str; 2] = [".memlint/", "staging/.consolidation.lock"];

const DIRS: [&str; 5] = [
    "memory/decisions",
    "memory/requests",
    "memory/sessions",
    "knowledge",
    "staging",
];

fn io(path: &Path) -> impl Fn(std::io::Error) -> WorkspaceError + '_ {
    move |source| WorkspaceError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The error of a failed write (`action`: "write", "create the directory").
pub(crate) fn write_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl Fn(std::io::Error) -> WorkspaceError + 'a {
    move |source| WorkspaceError::Write {
        action,
        path: path.display().to_string(),
        source,
    }
}

/// Reads the file `init` merges into (`.gitignore`, the agent settings):
/// `None` when it is absent; an error when it is anything but a regular
/// file, which would hold `init` up (a FIFO) or cannot be merged into.
pub(crate) fn read_existing(path: &Path) -> Result<Option<Vec<u8>>, WorkspaceError> {
    match crate::io::fs::read_regular(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

/// The error of [`crate::io::fs::update`] on `path`.
pub(crate) fn update_err(
    path: &Path,
) -> impl Fn(&'static str, std::io::Error) -> WorkspaceError + '_ {
    move |action, source| {
        let path = path.display().to_string();
        match action {
            "read" => WorkspaceError::Io { path, source },
            _ => WorkspaceError::Write {
                action: "write",
                path,
                source,
            },
        }
    }
}

/// Creates `path` holding `bytes` unless something is there already (also
/// when it appeared since it was looked at): false then.
fn create(path: &Path, bytes: &[u8]) -> Result<bool, WorkspaceError> {
    match crate::io::fs::write_new(path, bytes) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(write_err("write", path)(e)),
    }
}

/// Refuses to write `path` through a symbolic link that leads out of
/// `root` (docs/configuration.md): a cloned repository could point `.gitignore` or
/// `.githooks` anywhere.
pub(crate) fn inside(root: &Path, path: &Path) -> Result<(), WorkspaceError> {
    match crate::io::fs::path_stays_inside(root, path) {
        true => Ok(()),
        false => Err(WorkspaceError::Usage(format!(
            "{} leads out of {} through a symbolic link; memlint never writes there",
            path.strip_prefix(root).unwrap_or(path).display(),
            root.display()
        ))),
    }
}

/// What `init` did, line by line, for the front end to print on standard
/// output. The steps add to it as they go, so that what was done before a
/// step failed is still told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// One line each (without the line feed).
    pub lines: Vec<String>,
}

impl Report {
    pub(crate) fn say(&mut self, line: String) {
        self.lines.push(line);
    }
}

/// Creates what is missing under `root` and tells in `report` what it did.
pub fn run(root: &Path, report: &mut Report) -> Result<(), WorkspaceError> {
    let mut done: Vec<String> = Vec::new();
    let today = crate::model::clock::date(crate::model::clock::now_secs());
    let files: [(&str, String); 3] = [
        (crate::model::config::FILE_NAME, crate::model::config::TEMPLATE.to_string()),
        (
            "memory/summary.md",
            format!("---\ntitle: Summary\nupdated: {today}\n---\n\nNothing is summarised yet.\n"),
        ),
        (
            "CONTEXT.md",
            "# Context\n\nWorking context for the next session, newest block first. Start each block with `## YYYY-MM-DD <topic>`.\n".to_string(),
        ),
    ];
    let gi = root.join(".gitignore");
    // Every path init may write is checked before anything is created.
    let writes = DIRS.iter().map(|d| root.join(d).join(".gitkeep"));
    let writes = writes.chain(files.iter().map(|(name, _)| root.join(name)));
    for path in writes.chain([gi.clone()]) {
        inside(root, &path)?;
    }
    // Read before anything is created: one that cannot be merged into stops
    // `init` with nothing changed.
    let existing = read_existing(&gi)?.unwrap_or_default();
    String::from_utf8(existing).map_err(|_| {
        WorkspaceError::Usage(format!(
            "{} is not valid UTF-8; memlint init cannot add its lines to it",
            gi.display()
        ))
    })?;
    for dir in DIRS {
        let path = root.join(dir);
        if !path.is_dir() {
            crate::io::files::create_dir_all(&path)
                .map_err(write_err("create the directory", &path))?;
            create(&path.join(".gitkeep"), b"")?;
            done.push(format!("created {dir}/"));
        }
    }
    for (name, content) in files {
        let path = root.join(name);
        // A dangling link is something there too: never written through;
        // nor a file created meanwhile.
        if crate::io::files::symlink_metadata(&path).is_err() && create(&path, content.as_bytes())?
        {
            done.push(format!("created {name}"));
        }
    }
    // The lines are added to what the file holds when it is written: an
    // edit saved meanwhile is read again, never overwritten.
    let mut missing: Vec<&str> = Vec::new();
    crate::io::fs::update(
        &gi,
        |existing| {
            // Bytes that are not text would not survive a round trip.
            let existing = std::str::from_utf8(existing.unwrap_or_default()).map_err(|_| {
                WorkspaceError::Usage(
                    ".gitignore is not valid UTF-8; add `.memlint/` and `staging/.consolidation.lock` to it by hand".into(),
                )
            })?;
            missing = GITIGNORE_LINES
                .iter()
                .copied()
                .filter(|l| {
                    !existing
                        .lines()
                        .any(|x| x.trim() == *l || x.trim() == l.trim_end_matches('/'))
                })
                .collect();
            if missing.is_empty() {
                return Ok(None);
            }
            let mut text = existing.to_string();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("# memlint: index and consolidation lock (never committed)\n");
            for l in &missing {
                text.push_str(l);
                text.push('\n');
            }
            Ok(Some(text.into_bytes()))
        },
        update_err(&gi),
    )?;
    if !missing.is_empty() {
        done.push(format!("added {} to .gitignore", missing.join(" and ")));
    }
    if done.is_empty() {
        report.say(format!(
            "memlint: {} is already initialised",
            root.display()
        ));
    } else {
        report.say(format!("memlint: initialised {}", root.display()));
        report.lines.extend(done);
    }
    Ok(())
}

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
pub const COMMIT_MSG: &str = r#"#!/bin/sh
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

/// Where `init --hooks` puts the hook, relative to the top of the work tree.
pub const HOOKS_DIR: &str = ".githooks";

/// `memlint init --hooks`, checked: everything that would stop the
/// installation (no repository, someone else's hook or `core.hooksPath`) is
/// found by [`Hooks::plan`] before `init` creates anything, and
/// [`Hooks::install`] then writes.
pub struct Hooks {
    repo: crate::io::git::Repo,
    top: std::path::PathBuf,
    script: String,
    force: bool,
    /// Whether the hook file already holds `script`.
    up_to_date: bool,
    /// The hook file as the plan read it: it is replaced only while it
    /// still is that, and created only where none is.
    existing: Existing,
}

/// What the plan of `init --hooks` found where the hook goes.
enum Existing {
    Nothing,
    File(crate::io::fs::Snapshot),
    /// Not a regular file (a FIFO, a directory): replaced only with --force.
    Other,
}

impl Hooks {
    /// Checks that `init --hooks` can install its hook for `root`. An
    /// existing, different hook or `core.hooksPath` is an error unless
    /// `force`.
    pub fn plan(root: &Path, force: bool) -> Result<Self, WorkspaceError> {
        let usage = WorkspaceError::Usage;
        let repo =
            crate::io::git::Repo::open(root, "`init --hooks`").map_err(|e| usage(e.to_string()))?;
        let top = repo
            .repo
            .workdir()
            .map(Path::to_path_buf)
            .ok_or_else(|| usage("the repository has no work tree".into()))?;
        let rel_root = repo.prefix.trim_end_matches('/');
        let script = if rel_root.is_empty() {
            PRE_COMMIT.to_string()
        } else {
            PRE_COMMIT.replacen(
                "\nroot=.\n",
                &format!("\nroot='{}'\n", rel_root.replace('\'', r"'\''")),
                1,
            )
        };
        let hook = top.join(HOOKS_DIR).join("pre-commit");
        let shown = format!("{HOOKS_DIR}/pre-commit");
        // Everything that would stop the installation is checked before
        // anything is written.
        inside(&top, &hook)?;
        let current = crate::io::git::hooks_path(&repo).map_err(|e| usage(e.to_string()))?;
        let git_hook = repo.repo.git_dir().join("hooks/pre-commit");
        match current.as_deref() {
        Some(HOOKS_DIR) => {}
        Some(other) if !force => {
            return Err(usage(format!(
                "core.hooksPath is already `{other}`, and git runs the hooks there; rerun with --force to point it at {HOOKS_DIR} (the hooks in `{other}` then stop running)"
            )))
        }
        None if git_hook.is_file() && !force => {
            return Err(usage(format!(
                ".git/hooks/pre-commit exists, and git would stop running it once core.hooksPath points at {HOOKS_DIR}; move what it does into {shown} after installing, or rerun with --force"
            )))
        }
        _ => {}
    }
        let existing = match crate::io::fs::Snapshot::read(&hook) {
            Ok(seen) => Existing::File(seen),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Existing::Nothing,
            // Anything but a regular file there (a FIFO too) is someone's,
            // never read or replaced without --force.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput && !force => {
                return Err(usage(format!(
                    "{shown} exists and is not memlint's hook; rerun with --force to replace it"
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Existing::Other,
            // A hook that cannot be read is not taken for a missing one.
            Err(e) => return Err(update_err(&hook)("read", e)),
        };
        let up_to_date = match &existing {
            Existing::File(e) if e.bytes == script.as_bytes() => true,
            Existing::File(_) if !force => {
                return Err(usage(format!(
                    "{shown} exists and is not memlint's hook; rerun with --force to replace it"
                )))
            }
            _ => false,
        };
        Ok(Hooks {
            repo,
            top,
            script,
            force,
            up_to_date,
            existing,
        })
    }

    /// Writes `.githooks/pre-commit` at the top of the work tree, sets
    /// `core.hooksPath` through gix, and prints the agent-runtime hook
    /// settings.
    pub fn install(self, report: &mut Report) -> Result<(), WorkspaceError> {
        let usage = WorkspaceError::Usage;
        let Hooks {
            repo,
            top,
            script,
            force,
            up_to_date,
            existing,
        } = self;
        let hook = top.join(HOOKS_DIR).join("pre-commit");
        let shown = format!("{HOOKS_DIR}/pre-commit");
        match up_to_date {
            true => report.say(format!("{shown} is up to date")),
            false => {
                let dir = top.join(HOOKS_DIR);
                crate::io::files::create_dir_all(&dir)
                    .map_err(write_err("create the directory", &dir))?;
                let changed = || {
                    usage(format!(
                        "{shown} changed while memlint was installing its hook; it was left as it is: look at it and rerun"
                    ))
                };
                match &existing {
                    Existing::File(seen) => {
                        let done =
                            crate::io::fs::replace_if_unchanged(&hook, seen, script.as_bytes())
                                .map_err(write_err("write", &hook))?;
                        if done == crate::io::fs::Replaced::Changed {
                            return Err(changed());
                        }
                    }
                    Existing::Nothing => {
                        if !create(&hook, script.as_bytes())? {
                            return Err(changed());
                        }
                    }
                    // Not a regular file, replaced on purpose (--force).
                    Existing::Other => crate::io::fs::write_atomic(&hook, script.as_bytes())
                        .map_err(write_err("write", &hook))?,
                }
                crate::io::files::set_executable(&hook)
                    .map_err(write_err("make executable", &hook))?;
                report.say(format!("wrote {shown}"));
            }
        }
        match crate::io::git::set_hooks_path(&repo, HOOKS_DIR, force)
            .map_err(|e| usage(e.to_string()))?
        {
            crate::io::git::HooksPath::Unchanged => {
                report.say(format!("core.hooksPath is already {HOOKS_DIR}"))
            }
            crate::io::git::HooksPath::Set => {
                report.say(format!("set core.hooksPath to {HOOKS_DIR}"))
            }
        }
        commit_msg_hook(&top, &script, report)?;
        if repo.repo.git_dir().join("hooks/pre-commit").is_file() {
            report.say(format!(
            "note: git now runs the hooks in {HOOKS_DIR}/, not .git/hooks/pre-commit; move what that hook does into {shown} if you still need it"
        ));
        }
        report.say(format!("\nAgent-runtime hooks: add to your runtime settings, e.g. .claude/settings.json (or let `memlint init --agent-settings` merge them in):\n{AGENT_HOOKS}"));
        Ok(())
    }
}

/// Writes `.githooks/commit-msg` (with the workspace root of `pre_commit`,
/// the script just written), unless a hook that is not memlint's is there:
/// that one is left as it is, with a note.
fn commit_msg_hook(
    top: &Path,
    pre_commit: &str,
    report: &mut Report,
) -> Result<(), WorkspaceError> {
    let root_line = pre_commit
        .lines()
        .find(|l| l.starts_with("root="))
        .unwrap_or("root=.");
    let script = COMMIT_MSG.replacen("\nroot=.\n", &format!("\n{root_line}\n"), 1);
    let path = top.join(HOOKS_DIR).join("commit-msg");
    let shown = format!("{HOOKS_DIR}/commit-msg");
    let mine = "written by `memlint init --hooks`";
    let written = crate::io::fs::update(
        &path,
        |bytes| match bytes {
            Some(b) if b == script.as_bytes() => Ok(None),
            Some(b) if !String::from_utf8_lossy(b).contains(mine) => Err(None),
            _ => Ok(Some(script.clone().into_bytes())),
        },
        |action, e| Some(format!("cannot {action} {}: {e}", path.display())),
    );
    match written {
        Ok(true) => {
            crate::io::files::set_executable(&path)
                .map_err(write_err("make executable", &path))?;
            report.say(format!("wrote {shown}"));
        }
        Ok(false) => report.say(format!("{shown} is up to date")),
        Err(None) => report.say(format!(
            "left {shown} as it is (it is not memlint's); add `memlint check --staged --commit-msg \"$1\"` to it"
        )),
        Err(Some(e)) => return Err(WorkspaceError::Usage(e)),
    }
    Ok(())
}

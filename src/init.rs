//! `memlint init`: creates the layout, `.memlint.yml` and the `.gitignore`
//! lines, never clobbering what exists.

use crate::workspace::WorkspaceError;
use std::path::Path;
use std::process::ExitCode;

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

/// Creates what is missing under `root` and prints what it did.
pub fn run(root: &Path) -> Result<ExitCode, WorkspaceError> {
    let mut done: Vec<String> = Vec::new();
    for dir in DIRS {
        let path = root.join(dir);
        if !path.is_dir() {
            std::fs::create_dir_all(&path).map_err(io(&path))?;
            crate::fsutil::write_atomic(&path.join(".gitkeep"), b"").map_err(io(&path))?;
            done.push(format!("created {dir}/"));
        }
    }
    let today = crate::clock::date(crate::clock::now_secs());
    let files: [(&str, String); 3] = [
        (crate::config::FILE_NAME, crate::config::TEMPLATE.to_string()),
        (
            "memory/summary.md",
            format!("---\ntitle: Summary\nupdated: {today}\n---\n\nNothing is summarised yet.\n"),
        ),
        (
            "CONTEXT.md",
            "# Context\n\nWorking context for the next session, newest block first. Start each block with `## YYYY-MM-DD <topic>`.\n".to_string(),
        ),
    ];
    for (name, content) in files {
        let path = root.join(name);
        if !path.exists() {
            crate::fsutil::write_atomic(&path, content.as_bytes()).map_err(io(&path))?;
            done.push(format!("created {name}"));
        }
    }
    let gi = root.join(".gitignore");
    let existing = match std::fs::read_to_string(&gi) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(&gi)(e)),
    };
    let missing: Vec<&str> = GITIGNORE_LINES
        .iter()
        .copied()
        .filter(|l| {
            !existing
                .lines()
                .any(|x| x.trim() == *l || x.trim() == l.trim_end_matches('/'))
        })
        .collect();
    if !missing.is_empty() {
        let mut text = existing.clone();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("# memlint: index and consolidation lock (never committed)\n");
        for l in &missing {
            text.push_str(l);
            text.push('\n');
        }
        crate::fsutil::write_atomic(&gi, text.as_bytes()).map_err(io(&gi))?;
        done.push(format!("added {} to .gitignore", missing.join(" and ")));
    }
    if done.is_empty() {
        println!(
            "memlint: {} is already initialised; nothing changed",
            root.display()
        );
    } else {
        for d in done {
            println!("{d}");
        }
    }
    Ok(ExitCode::SUCCESS)
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
    echo "memlint pre-commit: memlint is not on PATH; install it (cargo install memlint)," >&2
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

/// The agent-runtime hook settings (SPEC §6) `init --hooks` prints, in the
/// settings format of Claude Code style runtimes.
pub const AGENT_HOOKS: &str = r#"{
  "hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "memlint hook session-start"}]}],
    "PostToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "memlint hook post-write"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "memlint hook stop"}]}]
  }
}
"#;

/// Where `init --hooks` puts the hook, relative to the top of the work tree.
pub const HOOKS_DIR: &str = ".githooks";

/// `memlint init --hooks`: writes `.githooks/pre-commit` at the top of the
/// work tree, sets `core.hooksPath` through gix, and prints the agent-runtime
/// hook settings. An existing, different hook or `core.hooksPath` is kept
/// unless `force`.
pub fn hooks(root: &Path, force: bool) -> Result<ExitCode, WorkspaceError> {
    let usage = WorkspaceError::Usage;
    let repo = crate::git::Repo::open(root, "`init --hooks`").map_err(|e| usage(e.to_string()))?;
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
    match std::fs::read(&hook) {
        Ok(existing) if existing == script.as_bytes() => println!("{shown} is up to date"),
        Ok(_) if !force => {
            return Err(usage(format!(
                "{shown} exists and is not memlint's hook; rerun with --force to replace it"
            )))
        }
        Ok(_) | Err(_) => {
            std::fs::create_dir_all(top.join(HOOKS_DIR)).map_err(io(&top))?;
            crate::fsutil::write_atomic(&hook, script.as_bytes()).map_err(io(&hook))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))
                    .map_err(io(&hook))?;
            }
            println!("wrote {shown}");
        }
    }
    match crate::git::set_hooks_path(&repo, HOOKS_DIR, force).map_err(|e| usage(e.to_string()))? {
        crate::git::HooksPath::Unchanged => println!("core.hooksPath is already {HOOKS_DIR}"),
        crate::git::HooksPath::Set => println!("set core.hooksPath to {HOOKS_DIR}"),
    }
    if repo.repo.git_dir().join("hooks/pre-commit").is_file() {
        println!(
            "note: git now runs the hooks in {HOOKS_DIR}/, not .git/hooks/pre-commit; move what that hook does into {shown} if you still need it"
        );
    }
    println!("\nAgent-runtime hooks (SPEC section 6): add to your runtime settings, e.g. .claude/settings.json:\n{AGENT_HOOKS}");
    Ok(ExitCode::SUCCESS)
}

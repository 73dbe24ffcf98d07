//! `memlint completions SHELL` and `memlint man`: the bash script is loaded
//! into a real `bash` and asked for completions the way bash-completion
//! asks (COMP_WORDS, COMP_CWORD, then the registered function); the man
//! page is rendered by a real `man` when the machine has one.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

fn here() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `script` in a fresh, non-interactive `bash` with no start-up files
/// after the completion script of the binary under test is sourced.
fn bash_with_completions(script: &str) -> common::Run {
    let program = format!("set -e\nsource <(\"$MEMLINT\" completions bash)\n{script}\n");
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .env("MEMLINT", common::BIN)
        .output()
        .expect("run bash");
    common::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What bash offers after `line` (the last word being completed), as the
/// registered completion function computes it.
fn complete(line: &str) -> Vec<String> {
    let mut words: Vec<&str> = line.split(' ').collect();
    if words.len() < 2 {
        words.push("");
    }
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let script = format!(
        "COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}\n\
         fn=$(complete -p memlint | sed -n 's/.*-F \\([^ ]*\\) memlint$/\\1/p')\n\
         \"$fn\" memlint '{cur}' '{prev}'\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        words = quoted.join(" "),
        cur = words[cword],
        prev = words[cword - 1],
    );
    let run = bash_with_completions(&script);
    assert_eq!(run.code, 0, "bash failed on {line:?}: {run:?}");
    assert!(
        run.stderr.is_empty(),
        "bash said something on {line:?}: {run:?}"
    );
    run.stdout.lines().map(str::to_string).collect()
}

#[test]
fn bash_completion_loads_and_registers_for_memlint() {
    let run = bash_with_completions("complete -p memlint");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.is_empty(),
        "sourcing the script printed errors: {run:?}"
    );
    assert!(run.stdout.contains("-F _memlint memlint"), "{run:?}");
}

#[test]
fn bash_completes_subcommands() {
    assert_eq!(complete("memlint ch"), vec!["check"]);
    assert_eq!(complete("memlint com"), vec!["compact", "completions"]);
    let all = complete("memlint ");
    for sub in ["check", "fmt", "search", "new", "mcp", "completions", "man"] {
        assert!(all.contains(&sub.to_string()), "{sub} missing from {all:?}");
    }
}

#[test]
fn bash_completes_format_values_and_shells() {
    assert_eq!(
        complete("memlint check --format "),
        vec!["human", "json", "github", "sarif"]
    );
    assert_eq!(complete("memlint check --format j"), vec!["json"]);
    // Past the flags (which bash offers too), the shells.
    let shells: Vec<String> = complete("memlint completions ")
        .into_iter()
        .filter(|w| !w.starts_with('-'))
        .collect();
    assert_eq!(shells, vec!["bash", "elvish", "fish", "powershell", "zsh"]);
}

#[test]
fn every_shell_gets_a_script_naming_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = common::memlint(&here(), &["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {run:?}");
        assert!(run.stderr.is_empty(), "{shell}: {run:?}");
        assert!(
            run.stdout.contains("memlint") && run.stdout.contains("search"),
            "{shell}: no subcommands in the script"
        );
    }
    let run = common::memlint(&here(), &["completions", "tcsh"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("invalid value 'tcsh'"), "{run:?}");
}

#[test]
fn man_page_is_roff_that_man_renders() {
    let run = common::memlint(&here(), &["man"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.lines().any(|l| l.starts_with(".TH memlint 1")),
        "no .TH line:\n{}",
        run.stdout
    );
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH SUBCOMMANDS"] {
        assert!(run.stdout.contains(section), "{section} missing");
    }
    assert!(run.stdout.contains(env!("CARGO_PKG_VERSION")));

    let Ok(mut man) = Command::new("man")
        .args(["-l", "-"])
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!("SKIPPED man rendering: `man` is not on PATH (apt-get install man-db)");
        return;
    };
    man.stdin
        .take()
        .expect("stdin")
        .write_all(run.stdout.as_bytes())
        .expect("write to man");
    let out = man.wait_with_output().expect("man");
    let text = String::from_utf8_lossy(&out.stdout);
    let errors = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "man -l - failed: {errors}");
    // groff reports roff it cannot read on standard error.
    assert!(
        !errors.contains("warning") && !errors.contains("error"),
        "{errors}"
    );
    assert!(text.contains("NAME") && text.contains("SYNOPSIS"), "{text}");
    assert!(
        text.contains("Lint, format and recall agent memory"),
        "{text}"
    );
    assert!(text.contains("[-V|--version]"), "{text}");
}

/// The man page cites no page memlint does not ship: its commands are
/// named `memlint check`, not `memlint-check(1)`, and it says where each
/// command's options are.
#[test]
fn man_page_refers_only_to_pages_that_exist() {
    let run = common::memlint(&here(), &["man"]);
    assert_eq!(run.code, 0, "{run:?}");
    let cited: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("(1)") || l.contains("(5)") || l.contains("(7)"))
        .collect();
    assert!(cited.is_empty(), "the page cites other pages: {cited:?}");
    for sub in ["check", "fmt", "search", "new", "mcp", "man"] {
        assert!(
            run.stdout.contains(&format!("\\fBmemlint {sub}\\fR")),
            "`memlint {sub}` missing:\n{}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .contains("Each command's own options: memlint COMMAND \\-\\-help."),
        "{}",
        run.stdout
    );
}

/// `--help` of a command lists the options every command takes under
/// their own heading, apart from the command's.
#[test]
fn help_groups_global_options_apart() {
    let run = common::memlint(&here(), &["check", "--help"]);
    assert_eq!(run.code, 0, "{run:?}");
    let (own, global) = run
        .stdout
        .split_once("\nGlobal options:\n")
        .unwrap_or_else(|| panic!("no Global options heading:\n{}", run.stdout));
    for flag in [
        "--root <DIR>",
        "--config <FILE>",
        "--color <COLOR>",
        "--quiet",
    ] {
        assert!(
            global.contains(flag),
            "{flag} not under Global options:\n{}",
            run.stdout
        );
        assert!(
            !own.contains(flag),
            "{flag} among the command's options:\n{}",
            run.stdout
        );
    }
    for flag in ["--format <FORMAT>", "--staged", "--base <REV>"] {
        assert!(
            own.contains(flag),
            "{flag} not among the command's options:\n{}",
            run.stdout
        );
    }
}

//! The wheel (pyproject.toml, maturin `bindings = "bin"`): built by the
//! real maturin, installed by pip into a fresh virtual environment, and
//! the `memlint` it puts on that environment's PATH run on a fixture; and
//! the top pyproject.toml that pre-commit installs depends on that wheel,
//! version for version.
//!
//! Needs `maturin` (PyPI; `.ci/run` installs it); without it the test says
//! so and passes. `MEMLINT_SKIP_PACKAGING_TESTS=1` turns it off. The
//! build shares `target/pre-commit` with tests/cli/pre_commit.rs: the first
//! run compiles the dependencies (minutes), later ones memlint only.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn run_ok(cmd: &mut Command, what: &str) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what} failed:\n{}", text(&out));
    out
}

fn venv_bin(venv: &Path, name: &str) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join(format!("{name}.exe"))
    } else {
        venv.join("bin").join(name)
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn wheel_installs_memlint_into_a_fresh_venv() {
    let _one_at_a_time = common::packaging_lock();
    if common::packaging_tests_skipped("wheel_installs_memlint_into_a_fresh_venv") {
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let started = std::time::Instant::now();
    let Some(wheel) = common::build_wheel(&scratch.path().join("wheels")) else {
        eprintln!(
            "SKIPPED wheel_installs_memlint_into_a_fresh_venv: maturin is not installed (python3 -m pip install maturin)"
        );
        return;
    };
    let name = wheel
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with(&format!("memlint_cli-{}-", env!("CARGO_PKG_VERSION"))),
        "{name}"
    );
    let python = "python3";

    let venv = scratch.path().join("venv");
    run_ok(
        Command::new(python).args(["-m", "venv"]).arg(&venv),
        "python -m venv",
    );
    run_ok(
        Command::new(venv_bin(&venv, "python"))
            .args(["-m", "pip", "install", "--quiet", "--no-index"])
            .arg(&wheel),
        "pip install the wheel",
    );
    let memlint = venv_bin(&venv, "memlint");
    assert!(memlint.is_file(), "the wheel put no memlint in {venv:?}");
    // Both licence texts are installed with it.
    let licences: Vec<String> = walk(&venv)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".dist-info/licenses/"))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    for name in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(
            licences.iter().any(|l| l == name),
            "{name} not installed: {licences:?}"
        );
    }

    // The same version line, commit included, as the binary under test.
    let installed = run_ok(Command::new(&memlint).arg("--version"), "memlint --version");
    let built = common::memlint(&here(), &["--version"]);
    assert_eq!(String::from_utf8_lossy(&installed.stdout), built.stdout);

    // `memlint check` on the example workspace: clean, then a broken record
    // found with its rule and exit 1.
    let ws = scratch.path().join("example");
    common::copy_dir(&common::fixture("example"), &ws);
    let check = || {
        Command::new(&memlint)
            .arg("check")
            .current_dir(&ws)
            .env("NO_COLOR", "1")
            .output()
            .expect("memlint check")
    };
    let out = check();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("No problems in 14 files."),
        "{}",
        text(&out)
    );

    std::fs::write(
        ws.join("memory/decisions/broken.md"),
        "---\ntitle: [unclosed\nstatus: active\n---\n\nBody.\n",
    )
    .expect("write");
    let out = check();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("frontmatter/parse"), "{}", text(&out));
    assert!(
        text(&out).contains("memory/decisions/broken.md"),
        "{}",
        text(&out)
    );
    eprintln!("wheel test done in {:.1?}", started.elapsed());
}

/// The package pre-commit installs (pyproject.toml) pins the wheel of the
/// very version Cargo.toml builds, and the wheel's project is named as
/// README says.
#[test]
fn pre_commit_package_pins_the_wheel_of_this_version() {
    let top = std::fs::read_to_string(here().join("pyproject.toml")).expect("pyproject.toml");
    let version = env!("CARGO_PKG_VERSION");
    assert!(top.contains(&format!("version = \"{version}\"")), "{top}");
    assert!(
        top.contains(&format!("dependencies = [\"memlint-cli=={version}\"]")),
        "{top}"
    );
    let wheel = std::fs::read_to_string(here().join("python/memlint-cli/pyproject.toml"))
        .expect("python/memlint-cli/pyproject.toml");
    assert!(wheel.contains("name = \"memlint-cli\""), "{wheel}");
    assert!(wheel.contains("bindings = \"bin\""), "{wheel}");
}

/// Cargo.toml, the wheel and the plugin declare `MIT OR Apache-2.0`: both
/// texts are at the top of the repository, the wheel's folder holds the
/// same bytes (maturin takes licence files from there only) and names
/// them, `cargo package` carries them, and the release archives copy them
/// out of each wheel (tests/cli/action.rs unpacks such an archive).
#[test]
fn licence_texts_ship_with_every_package() {
    let top_mit = std::fs::read_to_string(here().join("LICENSE-MIT")).expect("LICENSE-MIT");
    let top_apache =
        std::fs::read_to_string(here().join("LICENSE-APACHE")).expect("LICENSE-APACHE");
    assert!(top_mit.starts_with("MIT License\n"), "{top_mit}");
    assert!(top_mit.contains("Permission is hereby granted, free of charge"));
    assert!(top_apache.trim_start().starts_with("Apache License"));
    assert!(top_apache.contains("Version 2.0, January 2004"));
    assert!(top_apache.contains("END OF TERMS AND CONDITIONS"));
    let manifest = std::fs::read_to_string(here().join("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.contains("license = \"MIT OR Apache-2.0\""));
    for (name, text) in [("LICENSE-MIT", &top_mit), ("LICENSE-APACHE", &top_apache)] {
        let copy = here().join("python/memlint-cli").join(name);
        let copied = std::fs::read_to_string(&copy).unwrap_or_else(|e| panic!("{copy:?}: {e}"));
        assert_eq!(
            &copied, text,
            "python/memlint-cli/{name} differs from {name}"
        );
        assert!(
            manifest.contains(&format!("\"/{name}\"")),
            "Cargo.toml's include leaves {name} out"
        );
    }
    let wheel = std::fs::read_to_string(here().join("python/memlint-cli/pyproject.toml"))
        .expect("python/memlint-cli/pyproject.toml");
    assert!(
        wheel.contains("license-files = [\"LICENSE-MIT\", \"LICENSE-APACHE\"]"),
        "{wheel}"
    );
    let release =
        std::fs::read_to_string(here().join(".github/workflows/release.yml")).expect("release.yml");
    assert!(
        release.contains("cp \"$dir\"/*.dist-info/licenses/LICENSE-* \"archives/$name/\""),
        "the archives job does not pack the licence texts"
    );
}

/// The PyPI page (the wheel's long description) is written for someone
/// installing the command: how to install it and the first commands, not
/// the repository's contributor quick start.
#[test]
fn pypi_description_is_for_users() {
    let wheel = std::fs::read_to_string(here().join("python/memlint-cli/pyproject.toml"))
        .expect("python/memlint-cli/pyproject.toml");
    let readme = wheel
        .lines()
        .find_map(|l| l.strip_prefix("readme = \""))
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no readme line:\n{wheel}"));
    let page = std::fs::read_to_string(here().join("python/memlint-cli").join(readme))
        .unwrap_or_else(|e| panic!("{readme}: {e}"));
    for said in ["pipx install memlint-cli", "memlint init", "memlint check"] {
        assert!(page.contains(said), "the PyPI page does not say `{said}`");
    }
    for contributor in ["cargo run", "cargo test", "fixtures/", "../"] {
        assert!(
            !page.contains(contributor),
            "the PyPI page speaks to contributors (`{contributor}`)"
        );
    }
}

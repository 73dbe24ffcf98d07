//! action.yml, the composite GitHub Action: its two shell steps run here as
//! the runner runs them (bash, the step's `env`, `RUNNER_TEMP`,
//! `GITHUB_PATH`, `GITHUB_OUTPUT`), on a release laid out by
//! .github/workflows/release.yml's own archives script from a wheel of the
//! memlint under test: the install step downloads SHA256SUMS and the
//! archive, refuses an archive that does not match, and puts memlint on
//! the path; the check step annotates what a pull request changes and
//! writes the SARIF report. Nothing is downloaded from the network.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn yaml(rel: &str) -> Value {
    let text = std::fs::read_to_string(here().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{rel} is not valid YAML: {e}"))
}

/// The action's step named `name`.
fn step<'a>(action: &'a Value, name: &str) -> &'a Value {
    action["runs"]["steps"]
        .as_array()
        .expect("runs.steps")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("action.yml has no step {name:?}"))
}

fn script(action: &Value, name: &str) -> String {
    let run = step(action, name)["run"]
        .as_str()
        .unwrap_or_else(|| panic!("step {name:?} has no run"))
        .to_string();
    // The runner expands `${{ }}` in `run` before bash sees it; the steps
    // take their inputs from `env` only, so what runs here is what runs
    // there.
    assert!(
        !run.contains("${{"),
        "step {name:?} expands an expression in its script"
    );
    run
}

fn bash(script: &str, dir: &Path, env: &[(&str, &str)], path: &str) -> (i32, String, String) {
    let mut cmd = Command::new("bash");
    cmd.args(["-e", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS");
    common::test_identity(&mut cmd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("bash");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A wheel as maturin lays it out (the binary under `.data/scripts`, the
/// licence texts under `.dist-info/licenses`), holding the memlint under
/// test, in `wheels-linux-x86_64/` as `actions/download-artifact` leaves it.
fn lay_out_wheel(work: &Path) {
    let version = env!("CARGO_PKG_VERSION");
    let stage = work.join("stage");
    let data = stage.join(format!("memlint_cli-{version}.data/scripts"));
    let licences = stage.join(format!("memlint_cli-{version}.dist-info/licenses"));
    std::fs::create_dir_all(&data).expect("mkdir");
    std::fs::create_dir_all(&licences).expect("mkdir");
    // Stripped, as maturin's `strip = true` does: the debug build is
    // hundreds of megabytes.
    let stripped = Command::new("strip")
        .arg("-o")
        .arg(data.join("memlint"))
        .arg(common::BIN)
        .status()
        .is_ok_and(|s| s.success());
    if !stripped {
        std::fs::copy(common::BIN, data.join("memlint")).expect("copy memlint");
    }
    for name in ["LICENSE-MIT", "LICENSE-APACHE"] {
        std::fs::copy(
            here().join("python/memlint-cli").join(name),
            licences.join(name),
        )
        .expect("copy licence");
    }
    let wheels = work.join("wheels-linux-x86_64");
    std::fs::create_dir_all(&wheels).expect("mkdir");
    std::fs::create_dir_all(work.join("wheels-sdist")).expect("mkdir");
    std::fs::write(
        work.join(format!("wheels-sdist/memlint_cli-{version}.tar.gz")),
        b"sdist",
    )
    .expect("write");
    let wheel = wheels.join(format!(
        "memlint_cli-{version}-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    ));
    let zip = Command::new("zip")
        .arg("-qr")
        .arg(&wheel)
        .arg(".")
        .current_dir(&stage)
        .status()
        .expect("zip");
    assert!(zip.success());
    std::fs::remove_dir_all(&stage).expect("rm");
}

fn tools_missing(test: &str) -> bool {
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        eprintln!("SKIPPED {test}: the archive built here is for Linux x86_64");
        return true;
    }
    for tool in ["bash", "curl", "zip", "unzip", "sha256sum", "tar", "git"] {
        if Command::new(tool).arg("--version").output().is_err() {
            eprintln!("SKIPPED {test}: `{tool}` is not on PATH");
            return true;
        }
    }
    false
}

/// A PATH without the cargo target directory: memlint comes from the
/// action's install step only.
fn system_path() -> String {
    let bin_dir = Path::new(common::BIN)
        .parent()
        .expect("bin dir")
        .to_path_buf();
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|p| *p != bin_dir && !p.join("memlint").exists())
        .map(|p| p.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(":")
}

#[test]
fn action_installs_from_a_release_archive_and_checks_a_pull_request() {
    let test = "action_installs_from_a_release_archive_and_checks_a_pull_request";
    if common::packaging_tests_skipped(test) || tools_missing(test) {
        return;
    }
    let action = yaml("action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let release = yaml(".github/workflows/release.yml");
    let archives_script = release["jobs"]["archives"]["steps"][1]["run"]
        .as_str()
        .expect("the archives step's script");

    let scratch = tempfile::tempdir().expect("tempdir");
    let path = system_path();

    // The release: the archives script on a wheel of this memlint.
    let work = scratch.path().join("release");
    lay_out_wheel(&work);
    let (code, out, err) = bash(archives_script, &work, &[], &path);
    assert_eq!(code, 0, "the archives script failed:\n{out}{err}");
    let assets = work.join("archives");
    let version = env!("CARGO_PKG_VERSION");
    let archive = format!("memlint-{version}-manylinux_2_17_x86_64.manylinux2014_x86_64");
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(assets.join(format!("{archive}.tar.gz")))
        .output()
        .expect("tar");
    let listing = String::from_utf8_lossy(&listing.stdout);
    for name in ["memlint", "LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(
            listing.lines().any(|l| l == format!("{archive}/{name}")),
            "{name} missing from the archive:\n{listing}"
        );
    }

    // The install step, as `uses: OWNER/memlint@vVERSION` runs it, with
    // the release's files at a file:// URL.
    let install = script(&action, "Install memlint");
    let runner_temp = scratch.path().join("runner-temp");
    std::fs::create_dir_all(&runner_temp).expect("mkdir");
    let github_path = scratch.path().join("github-path");
    std::fs::write(&github_path, "").expect("write");
    let action_path = format!("/home/runner/work/_actions/someone/memlint/v{version}");
    let download = format!("file://{}", assets.display());
    let install_env = |url: &str, runner_temp: &Path| {
        vec![
            ("INPUT_VERSION", String::new()),
            ("INPUT_REPOSITORY", String::new()),
            ("INPUT_DOWNLOAD_URL", url.to_string()),
            ("ACTION_PATH", action_path.clone()),
            ("ACTION_REF", format!("v{version}")),
            ("RUNNER_TEMP", runner_temp.to_string_lossy().into_owned()),
            ("GITHUB_PATH", github_path.to_string_lossy().into_owned()),
        ]
    };
    let env = install_env(&download, &runner_temp);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, out, err) = bash(&install, scratch.path(), &env, &path);
    assert_eq!(code, 0, "install failed:\n{out}{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("memlint {version}"))),
        "{out}{err}"
    );
    let added = std::fs::read_to_string(&github_path).expect("GITHUB_PATH");
    let bin = PathBuf::from(added.trim());
    assert!(bin.join("memlint").is_file(), "GITHUB_PATH: {added}");
    assert!(bin.starts_with(&runner_temp), "{bin:?}");

    // An archive that does not match SHA256SUMS is refused.
    let tampered = scratch.path().join("tampered");
    common::copy_dir(&assets, &tampered);
    let sums = std::fs::read_to_string(tampered.join("SHA256SUMS")).expect("sums");
    let flipped: String = sums
        .lines()
        .map(|l| {
            if l.contains(&archive) {
                format!("{}{}", "0".repeat(64), &l[64..])
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(tampered.join("SHA256SUMS"), flipped + "\n").expect("write");
    let bad_path = scratch.path().join("github-path-bad");
    std::fs::write(&bad_path, "").expect("write");
    let other_temp = scratch.path().join("runner-temp-2");
    std::fs::create_dir_all(&other_temp).expect("mkdir");
    let env = install_env(&format!("file://{}", tampered.display()), &other_temp);
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let bad = bad_path.to_string_lossy().into_owned();
    env.retain(|(k, _)| *k != "GITHUB_PATH");
    env.push(("GITHUB_PATH", &bad));
    let (code, out, err) = bash(&install, scratch.path(), &env, &path);
    assert_ne!(code, 0, "a tampered archive was installed:\n{out}{err}");
    assert!(
        out.contains("::error title=memlint install::")
            && out.contains("does not match its checksum"),
        "{out}{err}"
    );
    assert_eq!(std::fs::read_to_string(&bad_path).expect("read"), "");

    // A pull request: origin/main is clean, the branch adds a record with
    // an error.
    let upstream = scratch.path().join("upstream");
    std::fs::create_dir_all(&upstream).expect("mkdir");
    common::copy_dir(&common::fixture("example"), &upstream);
    common::commit_all(&upstream);
    common::git(&upstream, &["branch", "-M", "main"]);
    let clone = scratch.path().join("clone");
    let (code, out, err) = bash(
        &format!("git clone -q {} {}", upstream.display(), clone.display()),
        scratch.path(),
        &[],
        &path,
    );
    assert_eq!(code, 0, "{out}{err}");
    common::git(&clone, &["checkout", "-q", "-b", "feature"]);
    let path_with_memlint = format!("{}:{path}", bin.display());
    let check = script(&action, "memlint check");
    let run_check = |event: &str| {
        let output = scratch.path().join(format!("github-output-{event}"));
        std::fs::write(&output, "").expect("write");
        let temp = scratch.path().join(format!("temp-{event}"));
        std::fs::create_dir_all(&temp).expect("mkdir");
        let env = [
            ("EVENT", event),
            ("BASE_REF", if event == "push" { "" } else { "main" }),
            ("ROOT", "."),
            ("SARIF", "true"),
            ("RUNNER_TEMP", &temp.to_string_lossy()),
            ("GITHUB_OUTPUT", &output.to_string_lossy()),
        ]
        .map(|(k, v)| (k, v.to_string()));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (code, out, err) = bash(&check, &clone, &env, &path_with_memlint);
        let outputs = std::fs::read_to_string(&output).expect("GITHUB_OUTPUT");
        (code, out, err, outputs, temp)
    };

    // Nothing changed yet: clean, and a SARIF report without results.
    let (code, out, err, outputs, temp) = run_check("pull_request");
    assert_eq!(code, 0, "{out}{err}");
    let sarif_file = temp.join("memlint.sarif");
    assert_eq!(outputs.trim(), format!("sarif={}", sarif_file.display()));

    std::fs::write(
        clone.join("memory/decisions/retry-on-timeout.md"),
        "---\ntitle: Retry on timeout\nstatus: active\ndate: yesterday\nsources:\n  - file:docs/architecture.md\n---\n\nRetry once.\n",
    )
    .expect("write");
    common::commit_all(&clone);
    let (code, out, err, outputs, temp) = run_check("pull_request");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.lines().any(|l| l
            .starts_with("::error file=memory/decisions/retry-on-timeout.md,line=4,col=7,")
            && l.contains("title=date/format::")),
        "{out}{err}"
    );
    // Only what the pull request changed is reported.
    assert_eq!(
        out.lines().filter(|l| l.starts_with("::")).count(),
        1,
        "{out}{err}"
    );
    let sarif_file = temp.join("memlint.sarif");
    assert_eq!(outputs.trim(), format!("sarif={}", sarif_file.display()));
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_file).expect("sarif")).expect("json");
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "date/format");

    // On a push there is no base: the whole workspace is checked.
    let (code, out, err, _, _) = run_check("push");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("title=date/format::"), "{out}{err}");
}

//! .github/workflows/release.yml: it parses, builds every platform memlint
//! ships, and its `archives` step, run here on a wheel maturin built,
//! packs the binary and writes checksums that `sha256sum -c` accepts.
//! Nothing is pushed or published.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workflow() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/workflows/release.yml");
    let text = std::fs::read_to_string(&path).expect("release.yml");
    serde_saphyr::from_str(&text).expect("release.yml is not valid YAML")
}

fn targets(wf: &Value, job: &str) -> Vec<String> {
    wf["jobs"][job]["strategy"]["matrix"]["platform"]
        .as_array()
        .unwrap_or_else(|| panic!("job {job} has no platform matrix"))
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p["runner"].as_str().expect("runner"),
                p["target"].as_str().expect("target")
            )
        })
        .collect()
}

#[test]
fn release_workflow_builds_every_platform_with_checksums() {
    let wf = workflow();
    assert_eq!(wf["name"], "Release");
    // Tags only (and by hand): a push to a branch publishes nothing.
    assert_eq!(wf["on"]["push"]["tags"][0], "v*");
    assert!(wf["on"]["push"].get("branches").is_none());

    assert_eq!(
        targets(&wf, "linux"),
        ["ubuntu-22.04/x86_64", "ubuntu-22.04/aarch64"]
    );
    assert_eq!(
        targets(&wf, "musllinux"),
        ["ubuntu-22.04/x86_64", "ubuntu-22.04/aarch64"]
    );
    assert_eq!(
        targets(&wf, "macos"),
        ["macos-15-intel/x86_64", "macos-latest/aarch64"]
    );
    assert_eq!(targets(&wf, "windows"), ["windows-latest/x64"]);
    assert_eq!(
        wf["jobs"]["musllinux"]["steps"][1]["with"]["manylinux"],
        "musllinux_1_2"
    );

    // Every build is maturin's action, run where the wheel's pyproject is.
    for job in ["linux", "musllinux", "windows", "macos", "sdist"] {
        let build = &wf["jobs"][job]["steps"][1];
        assert_eq!(build["uses"], "PyO3/maturin-action@v1", "{job}");
        assert_eq!(
            build["with"]["working-directory"], "python/memlint-cli",
            "{job}"
        );
    }
    let needs: Vec<&str> = wf["jobs"]["release"]["needs"]
        .as_array()
        .expect("needs")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        needs,
        [
            "linux",
            "musllinux",
            "windows",
            "macos",
            "sdist",
            "archives"
        ]
    );
    assert!(archive_script(&wf).contains("sha256sum"));
}

fn archive_script(wf: &Value) -> String {
    wf["jobs"]["archives"]["steps"][1]["run"]
        .as_str()
        .expect("the archives step's script")
        .to_string()
}

/// The `archives` job's script on a real wheel laid out as
/// `actions/download-artifact` lays the artifacts out.
#[test]
fn archives_step_packs_the_wheel_binary_and_writes_checksums() {
    let _one_at_a_time = common::packaging_lock();
    let test = "archives_step_packs_the_wheel_binary_and_writes_checksums";
    if common::packaging_tests_skipped(test) {
        return;
    }
    let script = archive_script(&workflow());
    let scratch = tempfile::tempdir().expect("tempdir");
    let Some(wheel) = common::build_wheel(&scratch.path().join("build")) else {
        eprintln!("SKIPPED {test}: maturin is not installed (python3 -m pip install maturin)");
        return;
    };
    for tool in ["unzip", "sha256sum", "tar"] {
        if Command::new(tool).arg("--version").output().is_err() {
            eprintln!("SKIPPED {test}: `{tool}` is not on PATH");
            return;
        }
    }
    let work = scratch.path().join("run");
    for dir in ["wheels-linux-x86_64", "wheels-sdist"] {
        std::fs::create_dir_all(work.join(dir)).expect("mkdir");
    }
    let name = wheel.file_name().expect("name");
    std::fs::copy(&wheel, work.join("wheels-linux-x86_64").join(name)).expect("copy");
    let sdist = format!("memlint_cli-{}.tar.gz", env!("CARGO_PKG_VERSION"));
    std::fs::write(work.join("wheels-sdist").join(&sdist), b"sdist").expect("write");
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(&work)
        .output()
        .expect("bash");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the archives script failed:\n{said}");

    let archives = work.join("archives");
    let tarball: PathBuf = std::fs::read_dir(&archives)
        .expect("archives")
        .map(|e| e.expect("entry").path())
        .find(|p| {
            p.to_string_lossy().ends_with(".tar.gz") && !p.to_string_lossy().contains("memlint_cli")
        })
        .unwrap_or_else(|| panic!("no archive:\n{said}"));
    let file = tarball
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(file.starts_with(&format!("memlint-{version}-")), "{file}");
    assert!(file.contains("x86_64"), "{file}");

    // The archive holds a `memlint` that runs.
    let unpacked = scratch.path().join("unpacked");
    std::fs::create_dir_all(&unpacked).expect("mkdir");
    let tar = Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(&unpacked)
        .status()
        .expect("tar");
    assert!(tar.success());
    let dir = file.trim_end_matches(".tar.gz");
    // The licence texts travel with the binary.
    for name in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(
            unpacked.join(dir).join(name).is_file(),
            "{name} missing from {file}"
        );
    }
    let run = Command::new(unpacked.join(dir).join("memlint"))
        .arg("--version")
        .output()
        .expect("run the archived memlint");
    assert!(
        String::from_utf8_lossy(&run.stdout).starts_with(&format!("memlint {version}")),
        "{run:?}"
    );

    // SHA256SUMS covers the archive, the wheel and the sdist, and checks.
    let sums = std::fs::read_to_string(archives.join("SHA256SUMS")).expect("SHA256SUMS");
    for listed in [file.as_str(), &name.to_string_lossy(), sdist.as_str()] {
        assert!(
            sums.contains(listed),
            "{listed} missing from SHA256SUMS:\n{sums}"
        );
    }
    let check = Command::new("sha256sum")
        .args(["-c", "SHA256SUMS"])
        .current_dir(&archives)
        .output()
        .expect("sha256sum -c");
    assert!(check.status.success(), "{check:?}");
}

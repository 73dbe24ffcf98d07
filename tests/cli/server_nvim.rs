//! `memlint server` in a real editor: headless Neovim (tests/nvim/e2e.lua)
//! starts the server, shows the diagnostics of a broken decision, and
//! formats a buffer, which must equal what `memlint fmt` writes. Skipped,
//! with a message, when `nvim` is not installed (`.ci/run` installs it
//! where apt is available).

use crate::common;

use std::path::Path;
use std::process::Command;

#[test]
fn neovim_shows_the_diagnostics_and_formats_like_memlint_fmt() {
    if Command::new("nvim").arg("--version").output().is_err() {
        eprintln!("skipped: nvim is not installed (apt-get install neovim)");
        return;
    }
    let ws = common::workspace("example");
    common::commit_all(ws.path());
    let root = ws.path().canonicalize().unwrap();
    let broken = "memory/decisions/broken.md";
    common::write(
        &root,
        broken,
        "---\ntitle: 金額は整数で持つ\nstatus: replaced\ndate: 2026-13-01\nsources:\n  - file:docs/architecture.md\nreplaced_by: no-such-decision\n---\n\nBody.\n",
    );
    let messy = "memory/decisions/messy.md";
    let messy_text = "---\ntags: [a]\nstatus:   active\ntitle: \"Keep amounts in minor units\"\ndate: 2026-10-01\nsources: [file:docs/architecture.md]\n---\nBody.\n";
    common::write(&root, messy, messy_text);
    let out = root.join("diagnostics.txt");
    let fmt_out = root.join("formatted.txt");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim/e2e.lua");
    let run = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(&root)
        .env("MEMLINT_BIN", common::BIN)
        .env("ROOT", &root)
        .env("FILE", root.join(broken))
        .env("FMT_FILE", root.join(messy))
        .env("OUT", &out)
        .env("FMT_OUT", &fmt_out)
        .output()
        .expect("run nvim");
    let printed = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(
        run.status.success(),
        "nvim failed: {printed}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    println!("{printed}");
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 2, "{printed}");
    assert!(lines[0].starts_with("3:6 date/format "), "{printed}");
    assert!(
        lines[1].starts_with("6:13 status/dangling-target "),
        "{printed}"
    );
    // The buffer as Neovim formatted it, and the file as `memlint fmt` does.
    let formatted = std::fs::read_to_string(&fmt_out).unwrap();
    let run = common::memlint(&root, &["fmt", messy]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let on_disk = std::fs::read_to_string(root.join(messy)).unwrap();
    assert_ne!(on_disk, messy_text);
    assert_eq!(formatted, on_disk);
}

//! Audit: a credential inside a URL's password (`https://u:ghp_…@host`)
//! is masked in place by the renderer as `ghp_****…`, which the URL
//! pattern of the last output pass masks again as `…[masked]`. A report
//! drawn now skipped that pass while a kept one (`.memlint/rendered`)
//! and miette's coloured report take it: the cold and the warm check
//! printed different bytes.

use crate::common;

use common::{write, Memlint};

#[test]
fn a_token_in_a_url_password_shows_the_same_cold_warm_and_coloured() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let token = format!("ghp_{}", "0123456789abcdefghijABCDEFGHIJ012345");
    write(
        root,
        "memory/decisions/r1.md",
        &format!(
            "---\ntitle: t1\nstatus: active\ndate: 2026-01-02\nsources:\n  - https://example.com\n---\n\nhttps://u:{token}@host.com x\n"
        ),
    );
    let cold = Memlint::new(root).args(["check", "--color", "never"]).run();
    let warm = Memlint::new(root).args(["check", "--color", "never"]).run();
    assert_eq!(cold.code, 1, "{cold:?}");
    assert!(!cold.stdout.contains(&token[4..]), "{}", cold.stdout);
    assert_eq!(cold.stdout, warm.stdout);
    assert!(
        cold.stdout.contains("https://u:…[masked]@host.com"),
        "{}",
        cold.stdout
    );
}

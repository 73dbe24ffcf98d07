//! Puts the commit the crate was built from into `memlint --version`
//! (`MEMLINT_VERSION`), read from the `.git` files next to `Cargo.toml`
//! with std only: no git program is run and no crate is built for it. A
//! build without `.git` (crates.io, an sdist, a tarball) prints the plain
//! version.

#[path = "build/git_head.rs"]
mod git_head;

fn main() {
    let dir = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let head = git_head::read(&dir);
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!(
        "cargo:rustc-env=MEMLINT_VERSION={}",
        git_head::version_line(&version, &head)
    );
    // Only this file and the refs HEAD goes through: an edit elsewhere in
    // the tree, or a commit on another branch, does not rerun this script.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/git_head.rs");
    for path in &head.watch {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

//! memlint: lint, format and recall agent memory kept as markdown records with
//! YAML front matter in a git repository.
//!
//! The core (`lint`, `rules`, `frontmatter`, `yaml`, `record`) takes text,
//! paths and configuration and returns diagnostics; walking, git and rendering
//! live at the edges (`workspace`, `render`, `cli`).

// memlint's own print macros, defined before the modules so that they
// shadow std's in every one of them: whatever a call site prints goes
// through `sanitize::terminal` (credentials masked, control characters
// shown as symbols), and none can forget to.

/// `eprintln!`, through [`sanitize::write_err`].
macro_rules! eprintln {
    () => {
        $crate::syntax::sanitize::write_err("\n")
    };
    ($($arg:tt)*) => {
        $crate::syntax::sanitize::write_err(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!`, through [`sanitize::write_err`].
macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::syntax::sanitize::write_err(&format!($($arg)*))
    };
}

/// `println!`, through [`sanitize::write_out`].
#[allow(unused_macros)]
macro_rules! println {
    () => {
        $crate::syntax::sanitize::write_out("\n")
    };
    ($($arg:tt)*) => {
        $crate::syntax::sanitize::write_out(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!`, through [`sanitize::write_out`].
#[allow(unused_macros)]
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::syntax::sanitize::write_out(&format!($($arg)*))
    };
}

pub mod cli;
pub mod engine;
pub mod fmt;
pub mod io;
pub mod lint;
pub mod model;
pub mod store;
pub mod syntax;
#[cfg(test)]
mod testing;

//! Pure text: the front-matter splitter, YAML with spans, the session-memory
//! text, words and CJK runs, search tokens, text edits, slug similarity, GC
//! trailers and the sanitizer of printed text. Imports only `model`; no file
//! system, environment, git or terminal.

pub(crate) mod cjk;
pub mod config;
pub(crate) mod dates;
pub(crate) mod edit;
pub(crate) mod excerpt;
pub(crate) mod fields;
pub(crate) mod framing;
pub mod frontmatter;
pub(crate) mod quoting;
pub mod sanitize;
pub mod secrets;
pub(crate) mod session;
pub(crate) mod similar;
pub mod slugify;
pub(crate) mod text;
pub(crate) mod tokens;
pub(crate) mod trailer;
pub mod yaml;
pub(crate) mod yaml_tabs;

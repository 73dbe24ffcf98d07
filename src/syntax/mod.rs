//! Pure text: the front-matter splitter, YAML with spans, the session-memory
//! text, words and CJK runs, search tokens, text edits, slug similarity, GC
//! trailers and the sanitizer of printed text. Imports only `model`; no file
//! system, environment, git or terminal.

pub mod cjk;
pub mod config;
pub mod dates;
pub mod edit;
pub mod excerpt;
pub mod fields;
pub mod framing;
pub mod frontmatter;
pub mod quoting;
pub mod sanitize;
pub mod secrets;
pub mod session;
pub mod similar;
pub mod slugify;
pub mod text;
pub mod tokens;
pub mod trailer;
pub mod yaml;
pub mod yaml_tabs;

//! Pure text: the front-matter splitter, YAML with spans, the session-memory
//! text, words and CJK runs, search tokens, text edits, slug similarity, GC
//! trailers and the sanitizer of printed text. Imports only `model`; no file
//! system, environment, git or terminal.

pub mod frontmatter;
pub mod sanitize;
pub mod session;
pub mod text;
pub mod trailer;
pub mod yaml;

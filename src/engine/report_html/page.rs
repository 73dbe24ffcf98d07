//! The document: head with the policy and the styles, the server-rendered
//! overview, the empty views the script fills, the data and the script.

use super::escape::{html, line};
use super::gathered::Gathered;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// The whole page.
pub(crate) fn document(g: &Gathered) -> String {
    let (main, details) = super::data::main(g);
    let data = compressed(&serde_json::to_vec(&main).unwrap_or_default());
    let chunks = chunks(&details);
    let mut out = String::with_capacity(data.len() + g.recs.len() * 512 + 65536);
    let hash = base64(&Sha256::digest(SCRIPT.as_bytes()));
    let name = line(&g.root_name);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<!-- memlint report -->\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-{hash}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta name=\"generator\" content=\"memlint {version}\">\
<title>Memory of {name} — memlint report</title><style>{STYLE}</style></head>\n<body>\
<a class=\"skip\" href=\"#main\">Skip to content</a>\
<header class=\"top\"><div class=\"brand\"><h1>Memory of <span id=\"root-name\">{name}</span></h1>\
<p class=\"meta\">{n} records · generated {gen} by memlint {version}</p></div>\
<nav aria-label=\"Views\"><a href=\"#overview\" data-view=\"overview\">Overview</a><a href=\"#timeline\" data-view=\"timeline\">Decisions over time</a><a href=\"#find\" data-view=\"find\">Find</a></nav></header>\n\
<main id=\"main\" tabindex=\"-1\">\
<section id=\"overview\" class=\"view on\" aria-labelledby=\"h-overview\"><h2 class=\"sr\" id=\"h-overview\">Overview</h2>{overview}</section>\n\
<section id=\"timeline\" class=\"view\" aria-labelledby=\"h-timeline\"><h2 id=\"h-timeline\">Decisions over time</h2><noscript><p>The timeline needs JavaScript; the overview above does not.</p></noscript></section>\n\
<section id=\"find\" class=\"view\" aria-labelledby=\"h-find\"><h2 id=\"h-find\">Find</h2><noscript><p>Search needs JavaScript.</p></noscript></section>\n\
<section id=\"record\" class=\"view\" aria-live=\"polite\"></section>\n\
</main>\n<script type=\"application/octet-stream\" id=\"data\">{data}</script>\n",
        version = env!("CARGO_PKG_VERSION"),
        n = g.recs.len(),
        gen = html(&g.generated),
        overview = super::overview::render(g),
    );
    for (c, chunk) in chunks.iter().enumerate() {
        let _ = writeln!(
            out,
            "<script type=\"application/octet-stream\" id=\"b{c}\">{chunk}</script>"
        );
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body></html>\n");
    out
}

/// The records' details in chunks of [`CHUNK`](super::gathered::CHUNK):
/// each a JSON array, zlib-compressed (the browser's `DecompressionStream`
/// reads it back) and in base64, which holds no `<` that could end its
/// element. Compressed, the bodies cost a page of 100,000 records a
/// fifth of what they would as text, and the page opens that much sooner.
fn chunks(details: &[serde_json::Value]) -> Vec<String> {
    use rayon::prelude::*;
    details
        .par_chunks(super::gathered::CHUNK)
        .map(|chunk| compressed(&serde_json::to_vec(chunk).unwrap_or_default()))
        .collect()
}

/// `bytes` zlib-compressed, in base64.
fn compressed(bytes: &[u8]) -> String {
    use std::io::Write as _;
    let mut z = gix::zlib::stream::deflate::Write::new(
        Vec::with_capacity(bytes.len() / 4),
        gix::zlib::Compression::DEFAULT,
    );
    // Writing to a vector cannot fail.
    let _ = z.write_all(bytes).and_then(|()| z.flush());
    base64(&z.into_inner())
}

/// Standard base64 with padding (the policy's script hash).
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(char::from(ABC[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(super::base64(b"fooba"), "Zm9vYmE=");
        assert_eq!(super::base64(b"foob"), "Zm9vYg==");
    }
}

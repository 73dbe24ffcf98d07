//! Record bodies as HTML for the review page. A body is written by an
//! agent and read by a person in a browser, so it is rendered inert: its
//! credentials masked and its control and bidi characters shown as
//! symbols (as every other output shows them), raw HTML shown as text,
//! links kept only for `http:`, `https:` and `mailto:`, and images never
//! loaded (the page fetches nothing): an image becomes a link to it.

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// The body `text` (markdown) as HTML, cut after `max` characters (on a
/// line boundary when one is near); true when it was cut.
pub(crate) fn render(text: &str, max: usize) -> (String, bool) {
    let shown = crate::syntax::sanitize::text(text);
    let (source, cut) = clip(&shown, max);
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    // For each open link or image: whether its start tag was kept, so its
    // end tag is kept or dropped alike.
    let mut open: Vec<bool> = Vec::new();
    let events = Parser::new_ext(source, options).filter_map(|event| match event {
        // Raw HTML is shown as the text it is.
        Event::Html(s) | Event::InlineHtml(s) => Some(Event::Text(s)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let keep = allowed(&dest_url);
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }))
        }
        Event::Start(Tag::Image {
            dest_url, title, ..
        }) => {
            let keep = allowed(&dest_url);
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url,
                title,
                id: CowStr::Borrowed(""),
            }))
        }
        Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => open
            .pop()
            .unwrap_or(false)
            .then_some(Event::End(TagEnd::Link)),
        other => Some(other),
    });
    let mut html = String::with_capacity(source.len() + source.len() / 4);
    pulldown_cmark::html::push_html(&mut html, events);
    (html, cut)
}

/// Whether a link target may be followed from the page: web and mail
/// addresses only (never `javascript:`, `data:`, `file:` or a path).
fn allowed(dest: &str) -> bool {
    let d = dest.trim_start().as_bytes();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|p| d.len() > p.len() && d[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
}

/// The first `max` characters of `text`, ending at the last line break
/// in their second half when there is one; true when cut.
fn clip(text: &str, max: usize) -> (&str, bool) {
    let Some((at, _)) = text.char_indices().nth(max) else {
        return (text, false);
    };
    let head = &text[..at];
    match head.rfind('\n') {
        Some(nl) if nl >= at / 2 => (&text[..nl], true),
        _ => (head, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_markup_is_inert() {
        let (html, cut) = render(
            "<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](https://e.example/) \
             ![i](https://e.example/i.png) <img src=x onerror=alert(1)>\n",
            1000,
        );
        assert!(!cut);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(
            html.contains("<a href=\"https://e.example/\">y</a>"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"https://e.example/i.png\">i</a>"),
            "{html}"
        );
    }

    #[test]
    fn long_bodies_are_cut_at_a_line() {
        let text = "a\n".repeat(100);
        let (_, cut) = render(&text, 50);
        assert!(cut);
        assert_eq!(clip(&text, 50).0.len(), 49);
    }
}

//! The overview, rendered here so that it reads without JavaScript:
//! counts per kind and status, findings per rule with what the rule finds
//! and why it matters, drifted and duplicate records, the staging backlog,
//! the newest `CONTEXT.md` block and what the consolidation worker removed.

use super::escape::{html, line};
use super::gathered::{by_path, Gathered};
use crate::model::kind::Kind;
use crate::model::severity::Severity;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Most items of one overview list.
const LIST_MAX: usize = 50;

/// The overview section's inner HTML.
pub(crate) fn render(g: &Gathered) -> String {
    let mut out = String::new();
    cards(&mut out, g);
    kinds(&mut out, g);
    rules(&mut out, g);
    lists(&mut out, g);
    staging_and_context(&mut out, g);
    removals(&mut out, g);
    out
}

fn counts(g: &Gathered) -> (usize, usize) {
    let errors: usize = g
        .report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.count())
        .sum();
    let all: usize = g.report.diagnostics.iter().map(|d| d.count()).sum();
    (errors, all - errors)
}

fn cards(out: &mut String, g: &Gathered) {
    let (errors, warnings) = counts(g);
    let r = &g.report;
    let card = |out: &mut String, id: &str, n: usize, label: &str, bad: bool| {
        let class = if bad && n > 0 { "card bad" } else { "card" };
        let _ = write!(
            out,
            "<div class=\"{class}\" id=\"card-{id}\"><span class=\"n\">{n}</span> <span class=\"l\">{label}</span></div>"
        );
    };
    out.push_str("<h2 id=\"h-summary\">At a glance</h2><div class=\"cards\" role=\"list\">");
    card(out, "records", g.recs.len(), "records", false);
    card(out, "errors", errors, "errors", true);
    card(out, "warnings", warnings, "warnings", true);
    card(out, "drifted", r.drifted.len(), "drifted records", true);
    card(
        out,
        "duplicates",
        r.duplicates.len(),
        "duplicate pairs",
        true,
    );
    card(
        out,
        "chains",
        r.replaced_chains.len(),
        "replacement chains (every kind)",
        false,
    );
    card(
        out,
        "staging",
        r.staging.files,
        "staging files",
        r.staging.due,
    );
    out.push_str("</div>");
}

fn kinds(out: &mut String, g: &Gathered) {
    let mut table: BTreeMap<(usize, String), usize> = BTreeMap::new();
    let mut statuses: Vec<String> = Vec::new();
    for r in &g.recs {
        let kind = Kind::ALL.iter().position(|k| *k == r.kind).unwrap_or(0);
        let status = r.info.status.clone().unwrap_or_else(|| "—".into());
        if !statuses.contains(&status) {
            statuses.push(status.clone());
        }
        *table.entry((kind, status)).or_default() += 1;
    }
    let order = ["active", "open", "done", "replaced"];
    statuses.sort_by_key(|s| {
        (
            order.iter().position(|o| o == s).unwrap_or(order.len()),
            s.clone(),
        )
    });
    out.push_str("<h2 id=\"h-kinds\">Records by kind and status</h2><table class=\"grid\" id=\"kinds\"><thead><tr><th scope=\"col\">kind</th>");
    for s in &statuses {
        let _ = write!(out, "<th scope=\"col\">{}</th>", line(s));
    }
    out.push_str("<th scope=\"col\">total</th></tr></thead><tbody>");
    for (ki, kind) in Kind::ALL.iter().enumerate() {
        let total: usize = statuses
            .iter()
            .map(|s| table.get(&(ki, s.clone())).copied().unwrap_or(0))
            .sum();
        if total == 0 {
            continue;
        }
        let _ = write!(
            out,
            "<tr data-kind=\"{}\"><th scope=\"row\">{}</th>",
            kind.name(),
            kind.name()
        );
        for s in &statuses {
            let n = table.get(&(ki, s.clone())).copied().unwrap_or(0);
            let _ = write!(
                out,
                "<td>{}</td>",
                if n == 0 { String::new() } else { n.to_string() }
            );
        }
        let _ = write!(out, "<td class=\"total\">{total}</td></tr>");
    }
    out.push_str("</tbody></table>");
}

/// The first paragraph of a section of a rule's documentation.
fn doc_paragraph(doc: &str, heading: &str) -> Option<String> {
    let at = doc.find(heading)? + heading.len();
    let para = doc[at..].trim_start().split("\n\n").next()?;
    Some(para.replace('\n', " "))
}

fn rules(out: &mut String, g: &Gathered) {
    let mut per: BTreeMap<&str, (Severity, usize, crate::model::rule::Rule)> = BTreeMap::new();
    for d in &g.report.diagnostics {
        let e = per
            .entry(d.rule.as_str())
            .or_insert((d.severity, 0, d.rule));
        e.1 += d.count();
        if d.severity == Severity::Error {
            e.0 = Severity::Error;
        }
    }
    out.push_str("<h2 id=\"h-rules\">Findings by rule</h2>");
    if per.is_empty() {
        out.push_str("<p class=\"ok\">No findings: every record passes every rule.</p>");
        return;
    }
    let mut rows: Vec<_> = per.into_iter().collect();
    rows.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
    out.push_str("<table class=\"grid\" id=\"rules\"><thead><tr><th scope=\"col\">rule</th><th scope=\"col\">severity</th><th scope=\"col\">findings</th><th scope=\"col\">what it finds, and why it matters</th></tr></thead><tbody>");
    for (name, (sev, n, rule)) in rows {
        let why = crate::lint::registry::lookup(name)
            .and_then(|d| doc_paragraph(d.doc, "## Why it matters"))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<tr><th scope=\"row\"><code>{}</code></th><td><span class=\"sev {s}\">{s}</span></td><td class=\"num\">{n}</td><td>{}<details><summary>Why it matters</summary><p>{}</p></details></td></tr>",
            html(name),
            with_code(rule.summary()),
            with_code(&why),
            s = sev.as_str(),
        );
    }
    out.push_str("</tbody></table>");
}

/// A rule's text as HTML, its `code` spans shown as code.
fn with_code(text: &str) -> String {
    html(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_string()
            }
        })
        .collect()
}

fn record_link(out: &mut String, g: &Gathered, i: usize) {
    let r = &g.recs[i];
    let _ = write!(
        out,
        "<a href=\"#r/{i}\">{}</a> <span class=\"path\">{}</span>",
        line(r.info.title.as_deref().unwrap_or(&r.slug)),
        line(&r.path)
    );
}

fn lists(out: &mut String, g: &Gathered) {
    let index = by_path(&g.recs);
    out.push_str("<div class=\"two\"><section aria-labelledby=\"h-drifted\"><h2 id=\"h-drifted\">Drifted records</h2>");
    if g.report.drifted.is_empty() {
        out.push_str("<p>None: no cited file changed since a record citing it was written.</p>");
    } else {
        out.push_str("<p>A file these records cite has changed since they were written.</p><ul id=\"drifted\">");
        for p in g.report.drifted.iter().take(LIST_MAX) {
            out.push_str("<li>");
            match index.get(p.as_str()) {
                Some(&i) => record_link(out, g, i),
                None => out.push_str(&line(p)),
            }
            out.push_str("</li>");
        }
        more(out, g.report.drifted.len());
    }
    out.push_str(
        "</section><section aria-labelledby=\"h-dup\"><h2 id=\"h-dup\">Duplicate records</h2>",
    );
    if g.report.duplicates.is_empty() {
        out.push_str("<p>None: no two active records say nearly the same thing.</p>");
    } else {
        out.push_str("<ul id=\"duplicates\">");
        for p in g.report.duplicates.iter().take(LIST_MAX) {
            out.push_str("<li>");
            for (k, path) in [&p.first, &p.second].into_iter().enumerate() {
                if k == 1 {
                    out.push_str(" ≈ ");
                }
                match index.get(path.as_str()) {
                    Some(&i) => record_link(out, g, i),
                    None => out.push_str(&line(path)),
                }
            }
            let _ = write!(out, " <span class=\"pct\">{}% alike</span></li>", p.percent);
        }
        more(out, g.report.duplicates.len());
    }
    out.push_str("</section></div>");
}

fn more(out: &mut String, n: usize) {
    out.push_str("</ul>");
    if n > LIST_MAX {
        let _ = write!(
            out,
            "<p class=\"more\">and {} more (use Find).</p>",
            n - LIST_MAX
        );
    }
}

fn staging_and_context(out: &mut String, g: &Gathered) {
    let s = &g.report.staging;
    let _ = write!(
        out,
        "<div class=\"two\"><section aria-labelledby=\"h-staging\"><h2 id=\"h-staging\">Staging</h2><p id=\"staging\">{} activity {} ({} bytes) waiting for consolidation: {}.</p></section>",
        s.files,
        if s.files == 1 { "log" } else { "logs" },
        s.bytes,
        if s.due { "<strong>due now</strong>" } else { "not due yet" }
    );
    out.push_str(
        "<section aria-labelledby=\"h-context\"><h2 id=\"h-context\">Newest CONTEXT.md block</h2>",
    );
    match &g.context_block {
        Some(b) => {
            let _ = write!(out, "<div class=\"md\" id=\"context\">{b}</div>");
        }
        None => out.push_str("<p>No CONTEXT.md block.</p>"),
    }
    out.push_str("</section></div>");
}

fn removals(out: &mut String, g: &Gathered) {
    out.push_str("<h2 id=\"h-gc\">What the consolidation worker changed</h2>");
    if let Some(note) = &g.history_note {
        let _ = write!(out, "<p>No history: {}</p>", line(note));
        return;
    }
    if g.older_commits > 0 {
        let _ = write!(
            out,
            "<p class=\"more\">The page holds the newest {} commits; {} older ones are not shown (<code>memlint log</code> lists them).</p>",
            g.commits.len(),
            g.older_commits
        );
    }
    let ops: Vec<_> = g
        .commits
        .iter()
        .flat_map(|c| c.gc.iter().map(move |op| (c, op)))
        .collect();
    if ops.is_empty() {
        out.push_str("<p>No commit carries a <code>Memlint-GC:</code> trailer.</p>");
        return;
    }
    out.push_str("<p>Every drop, merge, split, trim and rewrite, from the <code>Memlint-GC:</code> trailers of the commits, newest first.</p><table class=\"grid\" id=\"gc\"><thead><tr><th scope=\"col\">date</th><th scope=\"col\">operation</th><th scope=\"col\">record</th><th scope=\"col\">into</th><th scope=\"col\">why</th><th scope=\"col\">commit</th></tr></thead><tbody>");
    for (c, op) in ops.iter().take(LIST_MAX * 2) {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><span class=\"op\">{}</span></td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code> {}</td></tr>",
            line(c.time.get(..10).unwrap_or(&c.time)),
            line(&op.op),
            line(&op.record),
            op.into.as_deref().map(line).unwrap_or_default(),
            line(&op.categories.join(", ")),
            line(c.id.get(..7).unwrap_or(&c.id)),
            line(&c.summary)
        );
    }
    out.push_str("</tbody></table>");
    if ops.len() > LIST_MAX * 2 {
        let _ = write!(
            out,
            "<p class=\"more\">and {} more.</p>",
            ops.len() - LIST_MAX * 2
        );
    }
}

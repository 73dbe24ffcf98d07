//! `memlint report --html FILE` (issue #49): the review page, written by
//! the real binary and opened in headless Chromium driven through the
//! DevTools protocol (tests/browser/cdp.py, over a pipe). The browser
//! tests are skipped, with a message, when no Chromium is installed
//! (`.ci/run` installs the Debian package); the file tests always run.

use crate::common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const SECRET: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

/// A decision whose title and body try every way into a browser.
fn hostile() -> String {
    format!(
        "---\ntitle: \"<script>window.pwned=1</script><img src=x onerror=window.pwned=2> \\u202Eevil\"\n\
status: active\ndate: 2026-11-04\nsources:\n  - file:docs/bank-api.md\n  - \"https://example.com/?a=<b>\"\ntags: [security]\n---\n\
<script>window.pwned=3</script>\n\n[click](javascript:window.pwned=4) [site](https://example.com/) \
[data](data:text/html,<script>window.pwned=6</script>)\n\n</style><b onmouseover=window.pwned=7>bold</b>\n\n\
<img src=x onerror=\"window.pwned=5\">\n\n![pic](javascript:window.pwned=8)\n\nThe token {SECRET} leaked here.\n"
    )
}

fn decision(title: &str, status: &str, date: &str, replaced_by: Option<&str>) -> String {
    let rb = replaced_by.map_or(String::new(), |r| format!("replaced_by: {r}\n"));
    format!(
        "---\ntitle: {title}\nstatus: {status}\ndate: {date}\nsources:\n  - file:docs/architecture.md\n{rb}tags: [cache]\n---\n\n{title}: because **reasons**.\n"
    )
}

/// The example workspace, a hostile record and a chain of three cache
/// decisions, in git: a first commit, then one that drops a request and
/// trims a decision with `Memlint-GC:` trailers.
fn workspace() -> tempfile::TempDir {
    let ws = common::workspace("example");
    let root = ws.path();
    common::write(root, "memory/decisions/hostile-markup.md", &hostile());
    common::write(
        root,
        "knowledge/leaky-note.md",
        &format!("---\ntitle: A leaky note\ndescription: the deploy token is {SECRET} for now\nmodel_invocation: false\ndate: 2026-11-05\nsources:\n  - file:docs/bank-api.md\n---\n\nRotate it.\n"),
    );
    common::write(
        root,
        "memory/decisions/cache-in-memory.md",
        &decision(
            "Cache in memory",
            "replaced",
            "2026-01-10",
            Some("cache-in-redis"),
        ),
    );
    common::write(
        root,
        "memory/decisions/cache-in-redis.md",
        &decision(
            "Cache in Redis",
            "replaced",
            "2026-03-01",
            Some("cache-in-sqlite"),
        ),
    );
    common::write(
        root,
        "memory/decisions/cache-in-sqlite.md",
        &decision("Cache in SQLite", "active", "2026-06-01", None),
    );
    common::commit_all(root);
    std::fs::remove_file(root.join("memory/requests/export-monthly-csv.md")).unwrap();
    // Every record citing the bank API notes drifts.
    let api = std::fs::read_to_string(root.join("docs/bank-api.md")).unwrap();
    common::write(
        root,
        "docs/bank-api.md",
        &format!("{api}\nThe limit is now 10 requests a second.\n"),
    );
    common::write(
        root,
        "memory/decisions/cache-in-sqlite.md",
        &decision("Cache in SQLite", "active", "2026-06-01", None).replace("because", "since"),
    );
    common::git(root, &["add", "-A"]);
    common::git(
        root,
        &[
            "commit",
            "-q",
            "-m",
            "consolidate\n\nMemlint-GC: drop memory/requests/export-monthly-csv outdated\nMemlint-GC: trim memory/decisions/cache-in-sqlite noisy",
        ],
    );
    ws
}

fn write_page(root: &Path, file: &Path) -> common::Run {
    common::memlint(root, &["report", "--html", file.to_str().unwrap()])
}

#[test]
fn report_html_writes_one_self_contained_page_without_the_secret() {
    let ws = workspace();
    let out = ws.path().join("report.html");
    let run = write_page(ws.path(), &out);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        run.stdout,
        format!(
            "Wrote {}: 17 records, {} bytes.\n",
            out.display(),
            html.len()
        )
    );
    // The credential is masked everywhere: the overview, the data, the
    // records' details (both compressed).
    let data = unpack(&html, "data");
    let details = unpack(&html, "b0");
    for text in [&html, &data, &details] {
        assert!(!text.contains(SECRET));
    }
    assert!(data.contains("the deploy token is ghp_…[masked] for now"));
    assert!(details.contains("The token ghp_…[masked] leaked here."));
    // Bodies are inert HTML: their markup escaped, javascript: links gone.
    assert!(details.contains("&lt;script&gt;window.pwned=3&lt;/script&gt;"));
    assert!(!details.contains("javascript:"));
    // Nothing is fetched: no external script, style, image or font, and
    // a policy that forbids every request.
    for needle in ["src=\"http", "href=\"http://", "@import", "url(http"] {
        assert!(!html.contains(needle), "{needle}");
    }
    assert!(html.contains("content=\"default-src 'none'; script-src 'sha256-"));
    // The only script elements are memlint's: data, one body chunk, code.
    assert_eq!(html.matches("<script").count(), 3);
    assert_eq!(html.matches("</script>").count(), 3);
}

/// The JSON in the `<script>` element `id` of the page: zlib in base64.
fn unpack(html: &str, id: &str) -> String {
    let open = format!("<script type=\"application/octet-stream\" id=\"{id}\">");
    let at = html.find(&open).unwrap() + open.len();
    let b64 = &html[at..at + html[at..].find("</script>").unwrap()];
    let abc = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let (mut bytes, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for c in b64.bytes().filter(|&c| c != b'=') {
        acc = (acc << 6) | abc.iter().position(|&a| a == c).unwrap() as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
        }
    }
    let mut out = vec![0u8; 16 << 20];
    let mut z = gix::zlib::Decompress::new();
    z.decompress(&bytes, &mut out, gix::zlib::FlushDecompress::Finish)
        .unwrap();
    out.truncate(z.total_out() as usize);
    String::from_utf8(out).unwrap()
}

#[test]
fn report_html_replaces_its_own_page_and_nothing_else() {
    let ws = workspace();
    let mine = ws.path().join("notes.html");
    std::fs::write(&mine, "<p>my notes</p>\n").unwrap();
    let run = write_page(ws.path(), &mine);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("exists and is not a report memlint wrote; not replacing it"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "<p>my notes</p>\n");
    let page = ws.path().join("page.html");
    assert_eq!(write_page(ws.path(), &page).code, 0);
    let first = std::fs::read_to_string(&page).unwrap();
    common::write(
        ws.path(),
        "memory/decisions/one-more.md",
        &decision("One more", "active", "2026-07-01", None),
    );
    let again = write_page(ws.path(), &page);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let second = std::fs::read_to_string(&page).unwrap();
    assert_ne!(first, second);
    assert!(second.contains("18 records"));
}

// ---------------------------------------------------------------- browser

fn chromium() -> bool {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .any(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Where the screenshots go: kept after the test, named in its output.
fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-html");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the steps in Chromium on `page`; the driver's JSON answer.
fn drive(page: &Path, steps: &Value, no_js: bool) -> Value {
    let file = page.with_extension("steps.json");
    std::fs::write(&file, steps.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/cdp.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script);
    if no_js {
        cmd.arg("--no-js");
    }
    let out = cmd.arg(page).arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn step(name: &str, js: &str) -> Value {
    json!({"name": name, "eval": js})
}

/// A step that waits until the record page has its details, then
/// evaluates `js`.
fn when_loaded(name: &str, js: &str) -> Value {
    step(
        name,
        &format!("new Promise(r => {{ const t = setInterval(() => {{ if (document.getElementById('record').dataset.loaded === location.hash.slice(3)) {{ clearInterval(t); r({js}); }} }}, 10); }})"),
    )
}

/// A step that waits two frames, then evaluates `js`.
fn after_frames(name: &str, js: &str) -> Value {
    step(
        name,
        &format!(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r({js}))))"
        ),
    )
}

const INDEX_OF: &str = "(t => window.memlint.data.t.indexOf(t))";

#[test]
fn report_html_in_chromium_counts_chains_search_and_record_pages() {
    if !chromium() {
        eprintln!("skipped: Chromium is not installed (apt-get install chromium)");
        return;
    }
    let ws = workspace();
    let page = ws.path().join("report.html");
    assert_eq!(write_page(ws.path(), &page).code, 0);
    let shots = artifacts();
    let shot = |name: &str| json!({"screenshot": shots.join(name).to_str().unwrap()});
    let steps = json!([
        step("records", "document.querySelector('#card-records .n').textContent"),
        step("drifted-card", "document.querySelector('#card-drifted .n').textContent"),
        step("decisions", "document.querySelector('#kinds tr[data-kind=decision] .total').textContent"),
        step("gc", "[...document.querySelectorAll('#gc tbody tr')].map(r => r.cells[1].textContent + ' ' + r.cells[2].textContent + ' ' + r.cells[4].textContent)"),
        shot("overview.png"),
        step("go-timeline", "location.hash = '#timeline'"),
        after_frames("chains", "document.querySelectorAll('#chains .trow').length"),
        step("cache-chain", "(() => { const row = [...document.querySelectorAll('#chains .trow')].find(r => r.querySelector('.tlabel a').textContent === 'Cache in SQLite'); return [row.querySelectorAll('path.edge').length, row.querySelectorAll('circle').length, row.querySelectorAll('.node.head').length, row.querySelector('.node.head title').textContent]; })()"),
        shot("timeline.png"),
        step("go-find", "location.hash = '#find'"),
        after_frames("all", "document.getElementById('count').textContent"),
        step("type", "(() => { const q = document.getElementById('q'); q.value = 'redis'; q.dispatchEvent(new Event('input')); })()"),
        after_frames("redis", "[document.getElementById('count').textContent, [...document.querySelectorAll('#list .row .title')].map(e => e.textContent)]"),
        step("filter", "(() => { const q = document.getElementById('q'); q.value = ''; q.dispatchEvent(new Event('input')); const k = document.getElementById('fk'); k.value = 'knowledge'; k.dispatchEvent(new Event('change')); })()"),
        after_frames("knowledge", "document.getElementById('count').textContent"),
        step("tag", "(() => { const k = document.getElementById('fk'); k.value = ''; k.dispatchEvent(new Event('change')); const t = document.getElementById('ft'); t.value = 'cache'; t.dispatchEvent(new Event('input')); })()"),
        after_frames("tagged", "[document.getElementById('count').textContent, [...document.querySelectorAll('#list .row .title')].map(e => e.textContent)]"),
        step("findings", "(() => { const t = document.getElementById('ft'); t.value = ''; t.dispatchEvent(new Event('input')); const f = document.getElementById('ffi'); f.checked = true; f.dispatchEvent(new Event('change')); })()"),
        after_frames("with-findings", "[...document.querySelectorAll('#list .row .title')].map(e => e.textContent)"),
        step("drifted", "(() => { const f = document.getElementById('ffi'); f.checked = false; f.dispatchEvent(new Event('change')); const d = document.getElementById('fdr'); d.checked = true; d.dispatchEvent(new Event('change')); })()"),
        after_frames("drifted-rows", "[...document.querySelectorAll('#list .row')].map(e => e.querySelector('.path').textContent)"),
        step("undrifted", "(() => { const d = document.getElementById('fdr'); d.checked = false; d.dispatchEvent(new Event('change')); })()"),
        shot("find.png"),
        // The keyboard: type in the search box, arrow down, Enter.
        step("reset", "(() => { const f = document.getElementById('ffi'); f.checked = false; f.dispatchEvent(new Event('change')); const q = document.getElementById('q'); q.value = 'cache in'; q.dispatchEvent(new Event('input')); q.focus(); })()"),
        after_frames("typed", "document.getElementById('count').textContent"),
        {"key": "ArrowDown"},
        {"key": "Enter"},
        after_frames("opened", "[location.hash === '#r/' + INDEX('Cache in Redis'), document.getElementById('record-title').textContent, document.activeElement.id]".replace("INDEX", INDEX_OF).as_str()),
        step("go-sqlite", &format!("location.hash = '#r/' + {INDEX_OF}('Cache in SQLite')")),
        when_loaded("sqlite", "[...document.querySelectorAll('#record h3')].map(h => h.textContent + ': ' + [...(h.nextElementSibling.matches('ul') ? h.nextElementSibling.children : [])].map(li => li.textContent).join(' | '))"),
        step("sqlite-chain", "[document.querySelectorAll('#record svg.chain path.edge').length, [...document.querySelectorAll('#record .chainlist li')].map(li => li.textContent)]"),
        shot("record.png"),
        step("go-hostile", &"location.hash = '#r/' + window.memlint.data.p.indexOf('memory/decisions/hostile-markup.md')".to_string()),
        when_loaded("hostile", "[document.getElementById('record-title').textContent, document.querySelector('#record .md.body').innerText]"),
        step("drifted-source", "[...document.querySelectorAll('#record .items li')].map(li => li.textContent).filter(t => t.startsWith('file:'))"),
        step("links", "[...document.querySelectorAll('#record a')].map(a => a.getAttribute('href')).filter(h => !h.startsWith('#'))"),
        step("inert", "[window.pwned === undefined, document.querySelectorAll('img, iframe, object, embed').length, document.scripts.length, [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length, [...document.querySelectorAll('[href]')].filter(e => !/^(#|https?:|mailto:)/i.test(e.getAttribute('href'))).length]"),
        shot("hostile.png"),
        step("go-leaky", &format!("location.hash = '#r/' + {INDEX_OF}('A leaky note')")),
        when_loaded("leaky", "[...document.querySelectorAll('#record dd')].map(d => d.textContent)"),
    ]);
    let got = drive(&page, &steps, false);
    eprintln!("screenshots: {}", shots.display());
    let r = &got["results"];
    assert_eq!(got["errors"], json!([]), "console errors");
    assert_eq!(r["records"], "17");
    assert_eq!(r["drifted-card"], "4");
    assert_eq!(r["decisions"], "8");
    assert_eq!(
        r["gc"],
        json!([
            "drop memory/requests/export-monthly-csv outdated",
            "trim memory/decisions/cache-in-sqlite noisy"
        ])
    );
    assert_eq!(r["chains"], 2);
    assert_eq!(
        r["cache-chain"],
        json!([2, 3, 1, "2026-06-01 — Cache in SQLite"])
    );
    assert_eq!(r["all"], "17 records");
    assert_eq!(r["redis"], json!(["1 record of 17", ["Cache in Redis"]]));
    assert_eq!(r["knowledge"], "4 records of 17");
    assert_eq!(
        r["tagged"],
        json!([
            "3 records of 17",
            ["Cache in memory", "Cache in Redis", "Cache in SQLite"]
        ])
    );
    let with_findings = r["with-findings"].as_array().unwrap();
    assert!(
        with_findings.contains(&json!("Cache in memory")),
        "{with_findings:?}"
    );
    assert!(
        !with_findings.contains(&json!("Cache in SQLite")),
        "{with_findings:?}"
    );
    assert_eq!(
        r["drifted-rows"],
        json!([
            "knowledge/bank-api-rate-limits.md",
            "knowledge/leaky-note.md",
            "memory/decisions/hostile-markup.md",
            "memory/decisions/retry-bank-sync-with-backoff.md"
        ])
    );
    assert_eq!(r["typed"], "3 records of 17");
    assert_eq!(r["opened"], json!([true, "Cache in Redis", "record-title"]));
    let sections: Vec<String> = r["sqlite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert!(
        sections.contains(&"Replaces: Cache in Redis 2026-03-01".to_string()),
        "{sections:?}"
    );
    let history = sections
        .iter()
        .find(|s| s.starts_with("History: "))
        .unwrap();
    assert_eq!(history.matches(" | ").count(), 1, "two commits: {history}");
    assert!(
        history.contains("consolidateMemlint-GC: trim memory/decisions/cache-in-sqlite (noisy)"),
        "{history}"
    );
    assert_eq!(
        r["sqlite-chain"],
        json!([
            2,
            [
                "Cache in memory 2026-01-10 → replaced by Cache in Redis",
                "Cache in Redis 2026-03-01 → replaced by Cache in SQLite",
                "Cache in SQLite 2026-06-01 in force"
            ]
        ])
    );
    // The hostile record: its markup shown as text, bidi and secret shown
    // as every output shows them, only the https links kept.
    let hostile = &r["hostile"];
    assert_eq!(
        hostile[0],
        "<script>window.pwned=1</script><img src=x onerror=window.pwned=2> \u{fffd}evil"
    );
    let body = hostile[1].as_str().unwrap();
    for shown in [
        "<script>window.pwned=3</script>",
        "<img src=x onerror=\"window.pwned=5\">",
        "</style><b onmouseover=window.pwned=7>bold</b>",
        "The token ghp_…[masked] leaked here.",
    ] {
        assert!(body.contains(shown), "{shown} in {body}");
    }
    assert_eq!(
        r["links"],
        json!(["https://example.com/", "https://example.com/?a=<b>"])
    );
    assert_eq!(r["inert"], json!([true, 0, 3, 0, 0]));
    assert_eq!(
        r["drifted-source"],
        json!(["file:docs/bank-api.md drifted: the file changed since this record was written"])
    );
    assert!(
        r["leaky"]
            .as_array()
            .unwrap()
            .contains(&json!("the deploy token is ghp_…[masked] for now")),
        "{}",
        r["leaky"]
    );
}

#[test]
fn report_html_overview_reads_without_javascript() {
    if !chromium() {
        eprintln!("skipped: Chromium is not installed (apt-get install chromium)");
        return;
    }
    let ws = workspace();
    let page = ws.path().join("report.html");
    assert_eq!(write_page(ws.path(), &page).code, 0);
    let shots = artifacts();
    let steps = json!([
        step("js", "document.documentElement.classList.contains('js')"),
        step("overview", "getComputedStyle(document.getElementById('overview')).display"),
        step("records", "document.querySelector('#card-records .n').textContent"),
        step("rules", "[...document.querySelectorAll('#rules tbody th code')].map(c => c.textContent)"),
        step("why", "document.querySelector('#rules details summary').textContent"),
        step("timeline", "document.getElementById('timeline').innerText.trim()"),
        {"screenshot": shots.join("overview-nojs.png").to_str().unwrap()},
    ]);
    let got = drive(&page, &steps, true);
    eprintln!("screenshots: {}", shots.display());
    let r = &got["results"];
    assert_eq!(r["js"], false);
    assert_eq!(r["overview"], "block");
    assert_eq!(r["records"], "17");
    let rules = r["rules"].as_array().unwrap();
    assert!(rules.contains(&json!("secrets/detected")), "{rules:?}");
    assert!(rules.contains(&json!("status/chain")), "{rules:?}");
    assert_eq!(r["why"], "Why it matters");
    assert_eq!(
        r["timeline"],
        "Decisions over time\n\nThe timeline needs JavaScript; the overview above does not."
    );
}

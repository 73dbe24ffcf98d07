//! `memlint search` (SPEC §4, §7), run as the real binary on copies of
//! `fixtures/search`: English, Japanese, Chinese and Korean records, a
//! decision that names gix in its title and one that mentions it in passing,
//! and a replaced decision.

use crate::common;

use common::{age, age_directories, memlint, workspace, write, Run};
use serde_json::Value;
use std::path::Path;

fn search(root: &Path, args: &[&str]) -> Run {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    memlint(root, &all)
}

fn search_json(root: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--format", "json"]);
    let run = search(root, &all);
    assert_eq!(run.code, 0, "{run:?}");
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.stdout))
}

fn paths(json: &Value) -> Vec<String> {
    common::result_paths(json)
}

#[test]
fn a_japanese_two_character_query_finds_unspaced_text() {
    let ws = workspace("search");
    let json = search_json(ws.path(), &["検索"]);
    assert_eq!(json["query"], "検索");
    let results = json["results"].as_array().expect("results");
    assert_eq!(results[0]["path"], "knowledge/japanese-search.md");
    // Every field of SPEC §4 is present.
    let mut keys: Vec<&str> = results[0]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["date", "drifted", "kind", "path", "score", "slug", "snippet", "status", "title"]
    );
    assert_eq!(results[0]["kind"], "knowledge");
    assert_eq!(results[0]["slug"], "japanese-search");
    assert_eq!(results[0]["title"], "日本語の検索");
    assert_eq!(results[0]["status"], "active");
    assert!(results[0]["score"].as_f64().expect("score") > 0.0);
    let snippet = results[0]["snippet"].as_str().expect("snippet");
    assert!(snippet.contains("検索"), "{snippet}");
    // One character finds the records whose text holds it.
    let json = search_json(ws.path(), &["仕"]);
    assert_eq!(paths(&json), ["knowledge/japanese-search.md"]);
    let json = search_json(ws.path(), &["索"]);
    assert_eq!(
        paths(&json),
        [
            "knowledge/japanese-search.md",
            "knowledge/chinese-tokenizer.md"
        ]
    );
    let json = search_json(ws.path(), &["词"]);
    assert_eq!(paths(&json), ["knowledge/chinese-tokenizer.md"]);
    // A longer, unspaced query finds the same record.
    let json = search_json(ws.path(), &["日本語の検索機能は"]);
    assert_eq!(paths(&json)[0], "knowledge/japanese-search.md");
}

#[test]
fn chinese_and_korean_queries_need_no_dictionary() {
    let ws = workspace("search");
    let json = search_json(ws.path(), &["二元组"]);
    assert_eq!(paths(&json), ["knowledge/chinese-tokenizer.md"]);
    assert!(json["results"][0]["snippet"]
        .as_str()
        .expect("snippet")
        .contains("按二元组切分"));
    let json = search_json(ws.path(), &["检索"]);
    assert_eq!(paths(&json), ["knowledge/chinese-tokenizer.md"]);
    let json = search_json(ws.path(), &["검색"]);
    assert_eq!(paths(&json), ["knowledge/korean-notes.md"]);
}

#[test]
fn a_title_match_beats_a_body_mention_and_replaced_records_need_all() {
    let ws = workspace("search");
    let json = search_json(ws.path(), &["gix"]);
    assert_eq!(
        paths(&json),
        [
            "memory/decisions/use-gix-for-git-reads.md",
            "memory/decisions/cache-layer-for-the-index.md"
        ]
    );
    let scores: Vec<f64> = json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["score"].as_f64().expect("score"))
        .collect();
    assert!(scores[0] > scores[1], "{scores:?}");

    let json = search_json(ws.path(), &["gix", "--all"]);
    let found = paths(&json);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found.contains(&"memory/decisions/shell-out-to-git.md".to_string()));
    let replaced = json["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["path"] == "memory/decisions/shell-out-to-git.md")
        .expect("replaced record");
    assert_eq!(replaced["status"], "replaced");
}

#[test]
fn kind_and_limit_narrow_the_results() {
    let ws = workspace("search");
    let json = search_json(ws.path(), &["search", "--kind", "request"]);
    assert_eq!(
        paths(&json),
        ["memory/requests/show-dates-in-iso-format.md"]
    );
    let json = search_json(ws.path(), &["gix", "--limit", "1"]);
    assert_eq!(paths(&json), ["memory/decisions/use-gix-for-git-reads.md"]);

    let run = search(ws.path(), &["gix", "--kind", "nonsense"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unknown kind `nonsense`"),
        "{}",
        run.stderr
    );
    let run = search(ws.path(), &["gix", "--limit", "0"]);
    assert_eq!(run.code, 2);
}

#[test]
fn an_empty_result_is_exit_0_with_an_empty_list() {
    let ws = workspace("search");
    let json = search_json(ws.path(), &["quokka"]);
    assert_eq!(json, serde_json::json!({"query": "quokka", "results": []}));
    let run = search(ws.path(), &["quokka"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "No matching records.\n");
    // Punctuation alone has no words to look for.
    let json = search_json(ws.path(), &["?! …"]);
    assert_eq!(json["results"], serde_json::json!([]));
}

#[test]
fn human_output_shows_rank_path_title_and_a_snippet() {
    let ws = workspace("search");
    let run = search(ws.path(), &["gix", "--limit", "1", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let score = json["results"][0]["score"].as_f64().expect("a score");
    assert!(score > 0.0);
    let run = search(ws.path(), &["gix", "--limit", "1"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        format!(
            "1. memory/decisions/use-gix-for-git-reads.md  Use gix for git reads  (score {score:.2})\n   \
             Every read of the object database goes through the library, never through a\n"
        )
    );
    let run = search(ws.path(), &["binary", "--all", "--color", "always"]);
    assert!(
        run.stdout.contains("\u{1b}[1;33mbinary\u{1b}[0m"),
        "the match is highlighted:\n{}",
        run.stdout
    );
    assert!(run.stdout.contains("[replaced]"), "{}", run.stdout);
    // No escape codes when colours are off.
    let run = search(ws.path(), &["binary", "--all"]);
    assert!(!run.stdout.contains('\u{1b}'), "{}", run.stdout);
}

/// Edits a decision in place so that it mentions a quokka; its path.
fn mention_quokka(root: &Path) -> &'static str {
    let path = "memory/decisions/cache-layer-for-the-index.md";
    let text = std::fs::read_to_string(root.join(path)).expect("read");
    write(
        root,
        path,
        &text.replace("small cache", "small quokka cache"),
    );
    path
}

#[test]
fn edits_between_two_searches_are_seen() {
    let ws = workspace("search");
    let root = ws.path();
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    assert!(root.join(".memlint/search").is_file());

    // Edited within the same second as the index was written: the racy
    // check must still see it.
    let path = mention_quokka(root);
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);

    // A new record is found, a deleted one is gone.
    write(
        root,
        "memory/decisions/adopt-quokka-naming.md",
        "---\ntitle: Adopt quokka naming\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/q\n---\n\nBody.\n",
    );
    std::fs::remove_file(root.join(path)).expect("remove");
    assert_eq!(
        paths(&search_json(root, &["quokka"])),
        ["memory/decisions/adopt-quokka-naming.md"]
    );
    // Replacing a record takes it out of the default results.
    write(
        root,
        "memory/decisions/adopt-quokka-naming.md",
        "---\ntitle: Adopt quokka naming\nstatus: replaced\nreplaced_by: use-gix-for-git-reads\ndate: 2026-11-01\nsources:\n  - https://example.com/q\n---\n\nBody.\n",
    );
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    assert_eq!(paths(&search_json(root, &["quokka", "--all"])).len(), 1);
}

/// Whether the search index records the stored listing as the one it was
/// built from (a flag byte and the listing's checksum after the scan time),
/// which lets a search skip listing the files.
fn built_from_stored_listing(root: &Path) -> bool {
    let index = std::fs::read(root.join(".memlint/search")).expect("search index");
    let listing = std::fs::read(root.join(".memlint/listing")).unwrap_or_default();
    listing.len() >= 8 && index[36] == 1 && index[37..45] == listing[listing.len() - 8..]
}

#[test]
fn a_search_that_trusts_the_stored_listing_still_sees_every_change() {
    let ws = workspace("search");
    let root = ws.path();
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    // Directories modified just now are not trusted; an hour old, they are,
    // and the next search records the listing it checked.
    age_directories(root);
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    assert!(built_from_stored_listing(root));

    // An edit in place leaves its directory alone: the stat data show it.
    let path = mention_quokka(root);
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);

    // A new record changes its directory, so the listing is walked again.
    age_directories(root);
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);
    assert!(built_from_stored_listing(root));
    let added = "memory/requests/quokka-mode.md";
    write(
        root,
        added,
        "---\ntitle: Quokka mode\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/q\n---\n\nBody.\n",
    );
    let mut both = vec![path.to_string(), added.to_string()];
    let mut found = paths(&search_json(root, &["quokka"]));
    found.sort();
    both.sort();
    assert_eq!(found, both);

    // A removal, and an ignore file that hides a record.
    age_directories(root);
    search_json(root, &["quokka"]);
    assert!(built_from_stored_listing(root));
    std::fs::remove_file(root.join(added)).expect("rm");
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);
    age_directories(root);
    search_json(root, &["quokka"]);
    std::fs::write(
        root.join(".memlintignore"),
        "cache-layer-for-the-index.md\n",
    )
    .expect("write");
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    // Editing the ignore file in place (the root directory unchanged). A
    // file just written is not trusted either: age it too.
    age_directories(root);
    age(&root.join(".memlintignore"));
    search_json(root, &["quokka"]);
    assert!(built_from_stored_listing(root));
    std::fs::write(root.join(".memlintignore"), "nothing-matches.md\n").expect("write");
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);
}

#[test]
fn a_damaged_listing_never_misleads_a_search() {
    let ws = workspace("search");
    let root = ws.path();
    age_directories(root);
    let expected = search_json(root, &["gix"]);
    search_json(root, &["gix"]);
    assert!(built_from_stored_listing(root));
    let listing = root.join(".memlint/listing");
    let bytes = std::fs::read(&listing).expect("listing");
    // The file list damaged, its checksum kept: a search reads only the
    // watched paths, which still hold, and the stat data of the records.
    let mut damaged = bytes.clone();
    let at = damaged.len() - 12;
    damaged[at] ^= 0x55;
    std::fs::write(&listing, &damaged).expect("damage");
    assert_eq!(search_json(root, &["gix"]), expected);
    let path = mention_quokka(root);
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);
    // The watched paths damaged: the files are listed again.
    let mut damaged = std::fs::read(&listing).expect("listing");
    damaged[20] ^= 0x55;
    std::fs::write(&listing, &damaged).expect("damage");
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);
    let added = "memory/requests/quokka-mode.md";
    write(
        root,
        added,
        "---\ntitle: Quokka mode\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/q\n---\n\nBody.\n",
    );
    assert_eq!(paths(&search_json(root, &["quokka"])).len(), 2);
}

#[test]
fn a_damaged_index_is_rebuilt_silently() {
    let ws = workspace("search");
    let root = ws.path();
    let expected = search_json(root, &["gix"]);
    let index = root.join(".memlint/search");
    let bytes = std::fs::read(&index).expect("index written");

    std::fs::write(&index, &bytes[..bytes.len() / 2]).expect("truncate");
    assert_eq!(search_json(root, &["gix"]), expected);

    std::fs::write(&index, b"garbage, not an index at all").expect("garbage");
    assert_eq!(search_json(root, &["gix"]), expected);

    // Postings that fail their checksum are caught when a query reads them:
    // every posting list is zeroed (the head, read whole, stays intact).
    let mut zeroed = std::fs::read(&index).expect("rebuilt");
    let head_len = u64::from_le_bytes(zeroed[12..20].try_into().expect("8 bytes"));
    let postings = 28 + usize::try_from(head_len).expect("head length");
    assert!(postings < zeroed.len(), "the index has postings");
    zeroed[postings..].fill(0);
    std::fs::write(&index, zeroed).expect("zero");
    assert_eq!(search_json(root, &["gix"]), expected);
    // ... and the index was rebuilt, not just worked around.
    let rebuilt = std::fs::read(&index).expect("rebuilt again");
    assert!(rebuilt[postings..].iter().any(|b| *b != 0));

    std::fs::remove_dir_all(root.join(".memlint")).expect("delete");
    assert_eq!(search_json(root, &["gix"]), expected);
}

#[test]
fn broken_records_are_still_found() {
    let ws = workspace("search");
    let root = ws.path();
    write(
        root,
        "memory/decisions/broken-front-matter.md",
        "---\ntitle: [unclosed\n---\n\nThe wombat notes survive a broken header.\n",
    );
    write(root, "knowledge/not-utf8.md", "");
    std::fs::write(
        root.join("knowledge/not-utf8.md"),
        b"---\ntitle: \xff\xfe wombat\n---\n",
    )
    .expect("write");
    let found = paths(&search_json(root, &["wombat"]));
    assert_eq!(
        found,
        [
            "knowledge/not-utf8.md",
            "memory/decisions/broken-front-matter.md"
        ]
        .map(String::from),
        "{found:?}"
    );
}

/// Writes every file under `dir` again as it is (their modification time
/// now).
fn rewrite_all(dir: &Path) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rewrite_all(&path);
        } else {
            std::fs::write(&path, std::fs::read(&path).expect("read")).expect("write");
        }
    }
}

/// The scan time the search index records (nanoseconds since the epoch).
fn search_scanned_at(root: &Path) -> i64 {
    let index = std::fs::read(root.join(".memlint/search")).expect("search index");
    i64::from_le_bytes(index[28..36].try_into().expect("eight bytes"))
}

#[test]
fn records_verified_after_a_racy_scan_are_trusted_once_they_settle() {
    let ws = workspace("search");
    let root = ws.path();
    // Built right after the records were written (again now, however long
    // the copy took on a loaded machine): racy for that scan, so the next
    // search verifies them by content.
    rewrite_all(root);
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    let first = search_scanned_at(root);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    // Found unchanged two seconds on: the index is restamped with that
    // search's time, so the searches after it trust their stat data.
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    let second = search_scanned_at(root);
    assert!(second >= first + 2_000_000_000, "{first} -> {second}");
    assert!(paths(&search_json(root, &["quokka"])).is_empty());
    assert_eq!(search_scanned_at(root), second, "nothing left to settle");
    // An edit is still seen.
    let path = mention_quokka(root);
    assert_eq!(paths(&search_json(root, &["quokka"])), [path]);
}

#[test]
fn an_edit_past_the_first_thousand_records_is_seen() {
    // The stored documents come in blocks of 1024, each checked as it is
    // decoded: an edit in the last block must still be seen.
    let ws = workspace("search");
    let root = ws.path();
    let request =
        |n: usize, body: &str| format!("---\ntitle: Note {n}\ndate: 2026-11-01\n---\n\n{body}\n");
    for n in 0..1100 {
        let path = format!("memory/requests/zz-note-{n:04}.md");
        write(root, &path, &request(n, "Nothing to see."));
    }
    assert!(paths(&search_json(root, &["ibex"])).is_empty());
    let last = "memory/requests/zz-note-1099.md";
    write(root, last, &request(1099, "An ibex climbs."));
    assert_eq!(paths(&search_json(root, &["ibex"])), [last]);
}

#[test]
fn english_words_between_japanese_punctuation_are_found() {
    // Latin text inside Japanese sentences, after `。` and before `、`,
    // with words joined by dots: each is a word, and so are its parts.
    let ws = workspace("search");
    let root = ws.path();
    write(
        root,
        "knowledge/mixed-notes.md",
        "---\ntitle: 混在メモ\ndescription: 設定の読み込み\nmodel_invocation: false\n\
         date: 2026-10-11\nsources:\n  - session:7f3c2a10-0009\n---\n\n\
         設定の読み込み。Loader numbats config.toml、e.g. v1.2 では速い。\n",
    );
    for query in ["loader", "numbats", "config.toml", "toml", "e.g", "v1.2"] {
        let json = search_json(root, &[query]);
        assert_eq!(paths(&json), ["knowledge/mixed-notes.md"], "{query}");
        let snippet = json["results"][0]["snippet"].as_str().expect("snippet");
        assert!(
            snippet.contains("Loader numbats config.toml"),
            "{query}: {snippet}"
        );
    }
}

#[test]
fn kind_takes_directory_names_too() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    for kind in [
        "decision",
        "decisions",
        "memory/decisions",
        "memory/decisions/",
        "Decisions",
    ] {
        let json = search_json(&root, &["amounts", "--kind", kind]);
        let found = paths(&json);
        assert!(!found.is_empty(), "{kind}");
        assert!(
            found.iter().all(|p| p.starts_with("memory/decisions/")),
            "{kind}: {found:?}"
        );
    }
    let bad = search(&root, &["amounts", "--kind", "decisionz"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("unknown kind `decisionz`"),
        "{}",
        bad.stderr
    );
}

#[test]
fn an_empty_query_is_a_usage_error() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    for q in ["", "   "] {
        let run = search(&root, &[q]);
        assert_eq!(run.code, 2, "{q:?}: {run:?}");
        assert!(run.stderr.contains("the query is empty"), "{}", run.stderr);
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn a_query_matching_only_replaced_records_says_so() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    // Only the replaced decision has the word 保持.
    let run = search(&root, &["保持"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "No active record matches; replaced records do: add --all to see them.\n"
    );
    let all = search_json(&root, &["保持", "--all"]);
    assert_eq!(paths(&all), ["memory/decisions/use-float-amounts.md"]);
    let none = search(&root, &["zzzyzzy"]);
    assert_eq!(none.stdout, "No matching records.\n");
}

#[test]
fn sessions_show_their_description_and_results_their_date() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    let json = search_json(&root, &["sync"]);
    let session = json["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["kind"] == "session")
        .expect("a session");
    assert_eq!(
        session["title"],
        "Moved amounts to integer minor units and added sync retries."
    );
    // A session's day is the day it was created.
    assert_eq!(session["date"], "2026-11-02");
    let human = search(&root, &["sync"]);
    assert!(!human.stdout.contains("(no title)"), "{}", human.stdout);
}

#[test]
fn since_keeps_records_of_that_day_or_later() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    let all = search_json(&root, &["amounts", "--all", "--limit", "50"]);
    let dated: Vec<(String, String)> = all["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| {
            Some((
                r["path"].as_str()?.to_string(),
                r["date"].as_str()?.to_string(),
            ))
        })
        .collect();
    assert!(
        dated.iter().any(|(_, d)| d.as_str() < "2026-10-30"),
        "{dated:?}"
    );
    let since = search_json(
        &root,
        &["amounts", "--all", "--limit", "50", "--since", "2026-10-30"],
    );
    let want: Vec<String> = dated
        .iter()
        .filter(|(_, d)| d.as_str() >= "2026-10-30")
        .map(|(p, _)| p.clone())
        .collect();
    assert!(!want.is_empty());
    assert_eq!(paths(&since), want);
    // The limit counts the records kept, not those left out.
    let one = search_json(
        &root,
        &["amounts", "--all", "--limit", "1", "--since", "2026-10-30"],
    );
    assert_eq!(paths(&one), want[..1]);
    let bad = search(&root, &["amounts", "--since", "yesterday"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("`yesterday` is not a date YYYY-MM-DD"),
        "{}",
        bad.stderr
    );
}

#[test]
fn hostile_queries_never_panic() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    let long = "検索 memory ".repeat(1000);
    for q in [
        long.as_str(),
        "!!! ??? ...",
        "the a of",
        "日本語 English 한국어 中文",
        "\u{202e}\u{7}",
    ] {
        let run = search(&root, &[q]);
        assert!(run.code == 0 || run.code == 2, "{q:?}: {run:?}");
        assert!(!run.stderr.contains("internal error"), "{}", run.stderr);
    }
    // Bytes that are not UTF-8, as a shell can pass them.
    use std::os::unix::ffi::OsStrExt;
    let out = std::process::Command::new(common::BIN)
        .arg("search")
        .arg(std::ffi::OsStr::from_bytes(b"caf\xe9"))
        .current_dir(&root)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid UTF-8"));
}

#[test]
fn english_words_match_their_other_forms_and_function_words_do_not_rank() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    // `retrying` finds the decision that says `retries`; `the`, `of` and
    // `what` match nearly everything and are left out of the ranking.
    let json = search_json(&root, &["retrying"]);
    assert_eq!(
        paths(&json)[0],
        "memory/decisions/retry-bank-sync-with-backoff.md"
    );
    let with = search_json(&root, &["what", "is", "the", "backoff"]);
    let without = search_json(&root, &["backoff"]);
    assert_eq!(paths(&with), paths(&without));
    // A query of function words alone still searches for them.
    let run = search(&root, &["the"]);
    assert_eq!(run.code, 0);
    assert_ne!(run.stdout, "No matching records.\n");
}

#[test]
fn a_word_with_a_typo_finds_the_word_it_stands_for() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    for typo in ["backof", "exponentail", "backofff"] {
        let json = search_json(&root, &[typo]);
        assert_eq!(
            paths(&json).first().map(String::as_str),
            Some("memory/decisions/retry-bank-sync-with-backoff.md"),
            "{typo}"
        );
    }
    // Short words get no such help: too many neighbours.
    assert_eq!(search(&root, &["gxi"]).stdout, "No matching records.\n");
}

#[test]
fn korean_text_is_found_by_its_bigrams() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    write(
        &root,
        "knowledge/korean-search-notes.md",
        "---\ntitle: 검색 색인 메모\ndescription: 한국어 문서를 띄어쓰기 없이 찾는 방법.\nmodel_invocation: false\ndate: 2026-11-04\nsources:\n  - https://example.org/korean\n---\n\n한국어검색은형태소분석없이바이그램으로찾는다.\n",
    );
    let json = search_json(&root, &["형태소"]);
    assert_eq!(paths(&json), ["knowledge/korean-search-notes.md"]);
    let json = search_json(&root, &["검색"]);
    assert_eq!(paths(&json)[0], "knowledge/korean-search-notes.md");
}

#[test]
fn a_possessive_or_contraction_in_a_query_stands_for_its_word() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    let note = |slug: &str, body: &str| {
        write(
            &root,
            &format!("knowledge/{slug}.md"),
            &format!("---\ntitle: Talk {slug}\ndescription: A talk.\nmodel_invocation: false\ndate: 2026-11-04\nsources:\n  - https://example.org/talk\n---\n\n{body}\n"),
        );
    };
    note("sister-call", "Caroline's sister called about the trip.");
    note(
        "necklace",
        "Caroline wore the necklace from her grandmother.",
    );
    for i in 0..8 {
        note(
            &format!("walk-{i}"),
            &format!("Caroline walked {i} miles by the river."),
        );
    }
    // `Caroline's` is the name and a possessive: the record about the
    // necklace, not the one that happens to say `Caroline's`.
    for q in ["What does Caroline's necklace mean?", "Caroline’s necklace"] {
        let json = search_json(&root, &[q]);
        assert_eq!(paths(&json)[0], "knowledge/necklace.md", "{q}");
    }
    let json = search_json(&root, &["didn't", "she", "call"]);
    assert_eq!(paths(&json)[0], "knowledge/sister-call.md");
}

#[test]
fn function_words_that_stem_to_other_words_do_not_rank_either() {
    let ws = workspace("example");
    let root = ws.path().to_path_buf();
    write(
        &root,
        "knowledge/told-notes.md",
        "---\ntitle: Told notes\ndescription: Notes.\nmodel_invocation: false\ndate: 2026-11-04\nsources:\n  - https://example.org/told\n---\n\nIt only does what it is told, because it must, before and during the run, very much once.\n",
    );
    // `does`, `only`, `because`, `before`, `during`, `very` and `once` are
    // searched as their stems (`doe`, `onli`, …): still function words.
    let with = search_json(
        &root,
        &["what does the backoff do only because before during very once"],
    );
    let without = search_json(&root, &["backoff"]);
    assert_eq!(paths(&with), paths(&without));
    assert!(!paths(&with).contains(&"knowledge/told-notes.md".to_string()));
}

/// Search reads a record's fields as `memlint check` reads them (one
/// projection, docs/records.md): a summary's day is its `updated`, a field
/// whose value check rejects is not read, and a knowledge record without
/// `status` is active.
#[test]
fn search_reads_the_fields_check_reads() {
    let ws = workspace("search");
    let root = ws.path();
    write(
        root,
        "memory/summary.md",
        "---\ntitle: Search fixture summary\nupdated: 2026-11-20\n---\n\nThe platypus notes.\n",
    );
    let json = search_json(root, &["platypus", "--since", "2026-11-01"]);
    assert_eq!(paths(&json), ["memory/summary.md"]);
    assert_eq!(json["results"][0]["date"], "2026-11-20");
    let knowledge = |status: &str, tags: &str| {
        format!(
            "---\ntitle: Numbat notes\ndescription: Where the numbats live.\nmodel_invocation: false\n{status}date: 2026-10-12\nsources:\n  - session:7f3c2a10-0007\n{tags}---\n\nThe notes on the burrow.\n"
        )
    };
    // `tags: numbat` is one word, not a list: check rejects it, so it is
    // no tag to search either.
    write(
        root,
        "knowledge/numbat-notes.md",
        &knowledge("", "tags: kookaburra\n"),
    );
    let check = memlint(root, &["check", "--format", "json"]);
    assert!(
        check.stdout.contains("\"rule\": \"frontmatter/type\""),
        "{}",
        check.stdout
    );
    assert_eq!(
        paths(&search_json(root, &["kookaburra"])),
        Vec::<String>::new()
    );
    let json = search_json(root, &["burrow"]);
    assert_eq!(paths(&json), ["knowledge/numbat-notes.md"]);
    assert_eq!(json["results"][0]["status"], "active");
    // A status that is not one of the allowed values is no status.
    write(
        root,
        "knowledge/numbat-notes.md",
        &knowledge("status: retired\n", "tags: [kookaburra]\n"),
    );
    let json = search_json(root, &["kookaburra"]);
    assert_eq!(paths(&json), ["knowledge/numbat-notes.md"]);
    assert_eq!(json["results"][0]["status"], Value::Null);
}

//! The merge driver keeps every comment of a record, or reports a
//! conflict (issue 44, item 6), and merges flow lists (`tags: [a, b]`)
//! changed on both sides as the ordered union block lists get (item 7).
//! Driven through the real `memlint merge-file` and, for random three-way
//! edits of commented records, through the engine's merge.

use crate::common;

use common::{ok_on_path as ok, run_on_path as run, BIN};
use memlint::engine::merge::{merge, Markers, What};
use memlint::model::kind::Kind;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;

/// `memlint merge-file O A B PATH` on three files in a temporary directory:
/// the exit code, `%A` afterwards and standard error.
fn driver(base: &str, ours: &str, theirs: &str) -> (i32, String, String) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    fs::write(dir.join("O"), base).expect("write");
    fs::write(dir.join("A"), ours).expect("write");
    fs::write(dir.join("B"), theirs).expect("write");
    let out = run(
        dir,
        BIN,
        &["merge-file", "O", "A", "B", "memory/decisions/use-gix.md"],
    );
    let result = fs::read_to_string(dir.join("A")).expect("read %A");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap_or(-1), result, stderr)
}

const COMMENTED: &str = "---\ntitle: Use gix for git\nstatus: active\ndate: 2026-11-01\nsources:\n  # the crate itself\n  - https://github.com/GitoxideLabs/gitoxide\n  - https://docs.rs/gix # reviewed by legal\ntags: [git]\n---\n\nWe read git with gix.\n";

#[test]
fn comments_inside_sources_survive_sources_added_on_both_sides() {
    let ours = COMMENTED.replace(
        "legal\n",
        "legal\n  - https://git-scm.com/docs/gitattributes\n",
    );
    let theirs = COMMENTED.replace("legal\n", "legal\n  - https://crates.io/crates/gix\n");
    let (code, result, said) = driver(COMMENTED, &ours, &theirs);
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        result,
        COMMENTED.replace(
            "legal\n",
            "legal\n  - https://git-scm.com/docs/gitattributes\n  - https://crates.io/crates/gix\n"
        )
    );
}

#[test]
fn a_comment_added_after_an_item_and_at_the_end_of_the_front_matter_is_kept() {
    let ours = COMMENTED.replace(
        "tags: [git]\n",
        "tags: [git]\n# reviewed by legal on 2026-11-02\n",
    );
    let ours = ours.replace("gitoxide\n", "gitoxide # upstream\n");
    let theirs = COMMENTED.replace("legal\n", "legal\n  - https://crates.io/crates/gix\n");
    let (code, result, said) = driver(COMMENTED, &ours, &theirs);
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        result,
        COMMENTED
            .replace("gitoxide\n", "gitoxide # upstream\n")
            .replace("legal\n", "legal\n  - https://crates.io/crates/gix\n")
            .replace(
                "tags: [git]\n",
                "tags: [git]\n# reviewed by legal on 2026-11-02\n"
            )
    );
}

#[test]
fn a_comment_changed_differently_on_both_sides_is_a_conflict_with_both_kept() {
    let ours = COMMENTED
        .replace("# reviewed by legal", "# reviewed by legal (ok)")
        .replace("legal (ok)\n", "legal (ok)\n  - https://a.example/\n");
    let theirs = COMMENTED
        .replace("# reviewed by legal", "# reviewed by legal (pending)")
        .replace(
            "legal (pending)\n",
            "legal (pending)\n  - https://b.example/\n",
        );
    let (code, result, said) = driver(COMMENTED, &ours, &theirs);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("CONFLICT (memlint"), "{said}");
    for line in [
        "# reviewed by legal (ok)",
        "# reviewed by legal (pending)",
        "https://a.example/",
        "https://b.example/",
        "# the crate itself",
    ] {
        assert!(result.contains(line), "{line} lost:\n{result}");
    }
}

#[test]
fn flow_tags_edited_on_both_sides_are_an_ordered_union() {
    let base = COMMENTED.replace("tags: [git]", "tags: [base]");
    let ours = base.replace("tags: [base]", "tags: [base, git]");
    let theirs = base.replace("tags: [base]", "tags: [base, vcs] # agreed");
    let (code, result, said) = driver(&base, &ours, &theirs);
    assert_eq!(code, 0, "{said}");
    assert_eq!(said, "");
    assert_eq!(
        result,
        base.replace("tags: [base]", "tags: [base, git, vcs] # agreed")
    );
    // A removal on one side holds; a flow side and a block side merge too.
    let theirs = base.replace("tags: [base]", "tags:\n  - vcs\n");
    let (code, result, said) = driver(&base, &ours, &theirs);
    assert_eq!(code, 0, "{said}");
    assert_eq!(result, base.replace("tags: [base]", "tags: [git, vcs]"));
}

/// The reported case, through `git merge`: `memlint new` writes tags as a
/// flow list, and two branches each add a tag.
#[test]
fn tags_written_by_new_and_extended_on_two_branches_merge_through_git() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    ok(&root, BIN, &["init"]);
    ok(&root, BIN, &["init", "--merge"]);
    ok(
        &root,
        BIN,
        &[
            "new",
            "decision",
            "Use gix for git",
            "--source",
            "https://docs.rs/gix",
            "--tag",
            "base",
            "--date",
            "2026-11-01",
        ],
    );
    let rel = "memory/decisions/use-gix-for-git.md";
    let text = fs::read_to_string(root.join(rel)).expect("read");
    assert!(text.contains("tags: [base]\n"), "{text}");
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "-m", "base"]);
    ok(&root, "git", &["checkout", "-q", "-b", "other"]);
    fs::write(
        root.join(rel),
        text.replace("tags: [base]", "tags: [base, vcs]"),
    )
    .expect("write");
    ok(&root, "git", &["commit", "-q", "-am", "theirs"]);
    ok(&root, "git", &["checkout", "-q", "main"]);
    fs::write(
        root.join(rel),
        text.replace("tags: [base]", "tags: [base, git]"),
    )
    .expect("write");
    ok(&root, "git", &["commit", "-q", "-am", "ours"]);
    let out = run(&root, "git", &["merge", "-q", "other", "-m", "merge"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(root.join(rel)).expect("read"),
        text.replace("tags: [base]", "tags: [base, git, vcs]")
    );
}

const TWO: &str = "---\ntitle: Use gix\nstatus: active\ndate: 2026-12-01\nsources:\n  - file:a.md\n  - file:b.md\n---\n\nBody\n";

#[test]
fn an_item_commented_on_one_side_and_removed_on_the_other_conflicts_though_the_comment_text_is_elsewhere(
) {
    let ours = TWO.replace("file:a.md\n", "file:a.md  # verified\n");
    let theirs = TWO.replace(
        "  - file:a.md\n  - file:b.md\n",
        "  - file:b.md  # verified\n",
    );
    let (code, result, said) = driver(TWO, &ours, &theirs);
    assert_eq!(code, 1, "{result}\n{said}");
    assert!(result.contains("  - file:a.md  # verified\n"), "{result}");
    assert!(result.contains("<<<<<<< ours\n"), "{result}");
    assert!(
        said.contains("would lose the line `# verified` (with `file:a.md`)"),
        "{said}"
    );
}

#[test]
fn a_comment_line_before_an_item_the_other_side_removes_conflicts_though_its_text_is_in_the_body() {
    let ours = TWO.replace("  - file:a.md\n", "  # keep: reviewed\n  - file:a.md\n");
    let theirs = TWO
        .replace("  - file:a.md\n", "")
        .replace("Body\n", "Body\n\n# keep: reviewed\n");
    let (code, result, said) = driver(TWO, &ours, &theirs);
    assert_eq!(code, 1, "{result}\n{said}");
    assert!(
        result.contains("  # keep: reviewed\n  - file:a.md\n"),
        "{result}"
    );
}

#[test]
fn quoted_flow_items_with_commas_merge_cleanly_as_whole_items() {
    let base = TWO.replace(
        "sources:\n  - file:a.md\n  - file:b.md\n",
        "sources: [file:z.md, 'file:a,b.md']\n",
    );
    let ours = base.replace("]\n", ", file:a.md]\n");
    let theirs = base.replace("]\n", ", \"https://x/?a=1,2\"]\n");
    let (code, result, said) = driver(&base, &ours, &theirs);
    assert_eq!(code, 0, "{result}\n{said}");
    assert_eq!(
        result,
        TWO.replace(
            "  - file:a.md\n  - file:b.md\n",
            "  - file:z.md\n  - 'file:a,b.md'\n  - file:a.md\n  - \"https://x/?a=1,2\"\n"
        )
    );
}

/// A decision with comments in the places people put them, as fields a
/// random edit changes. Every word that can be lost is unique: `note-N`
/// (comments), `decision:dN` (sources), `tag-N`, `Title-vN`, `Body-N.`.
#[derive(Debug, Clone)]
struct Rec {
    lead: Option<u32>,
    title: u32,
    title_note: Option<u32>,
    date_note: Option<u32>,
    sources_note: Option<u32>,
    /// (item, comment line before it, comment after it)
    sources: Vec<(u32, Option<u32>, Option<u32>)>,
    sources_tail: Option<u32>,
    tags: Vec<u32>,
    tags_flow: bool,
    tags_note: Option<u32>,
    end_note: Option<u32>,
    body: Vec<u32>,
    /// Comments written from a pool of four texts (`note-0` … `note-3`),
    /// so that the same comment text stands in several places.
    pool: bool,
}

impl Rec {
    fn text(&self) -> String {
        let pooled = |n: u32| if self.pool { n % 4 } else { n };
        let note = |n: Option<u32>| n.map_or(String::new(), |n| format!(" # note-{}", pooled(n)));
        let line = |n: Option<u32>, indent: &str| {
            n.map_or(String::new(), |n| format!("{indent}# note-{}\n", pooled(n)))
        };
        let mut out = String::from("---\n");
        out += &line(self.lead, "");
        out += &format!("title: Title-v{}{}\n", self.title, note(self.title_note));
        out += "status: active\n";
        out += &format!("date: 2026-11-01{}\n", note(self.date_note));
        out += &format!("sources:{}\n", note(self.sources_note));
        for (item, before, after) in &self.sources {
            out += &line(*before, "  ");
            out += &format!("  - decision:d{item}{}\n", note(*after));
        }
        out += &line(self.sources_tail, "");
        let tags: Vec<String> = self.tags.iter().map(|t| format!("tag-{t}")).collect();
        if self.tags_flow || tags.is_empty() {
            out += &format!("tags: [{}]{}\n", tags.join(", "), note(self.tags_note));
        } else {
            out += &format!("tags:{}\n", note(self.tags_note));
            for t in &tags {
                out += &format!("  - {t}\n");
            }
        }
        out += &line(self.end_note, "");
        out += "---\n\n";
        for b in &self.body {
            out += &format!("Body-{b}.\n");
        }
        out
    }

    /// Applies one edit; `fresh` numbers this side's new comments, titles
    /// and body lines (items come from a pool both sides share).
    fn edit(&mut self, op: (u8, u32, bool), fresh: &mut u32) {
        let (what, n, flag) = op;
        *fresh += 1;
        let new = Some(*fresh).filter(|_| flag);
        let at = |len: usize| (n as usize) % len.max(1);
        match what % 10 {
            0 => self.lead = new,
            1 => self.title = *fresh,
            2 => self.title_note = new,
            3 => self.date_note = new,
            4 => self.sources_note = new,
            5 if flag || self.sources.len() < 2 => {
                let item = n % 12;
                if !self.sources.iter().any(|s| s.0 == item) {
                    let i = at(self.sources.len() + 1);
                    self.sources.insert(i, (item, None, None));
                }
            }
            5 => {
                self.sources.remove(at(self.sources.len()));
            }
            6 if !self.sources.is_empty() => {
                let i = at(self.sources.len());
                match n % 2 {
                    0 => self.sources[i].1 = new,
                    _ => self.sources[i].2 = new,
                }
            }
            6 => self.sources_tail = new,
            7 => match (flag, self.tags.is_empty()) {
                (true, _) | (false, true) => {
                    let tag = n % 8;
                    if !self.tags.contains(&tag) {
                        self.tags.push(tag);
                    }
                }
                (false, false) => {
                    self.tags.remove(at(self.tags.len()));
                }
            },
            8 => match n % 3 {
                0 => self.tags_flow = !self.tags_flow,
                1 => self.tags_note = new,
                _ => self.end_note = new,
            },
            _ => match (flag, self.body.is_empty()) {
                (true, _) | (false, true) => {
                    let i = at(self.body.len() + 1);
                    self.body.insert(i, *fresh);
                }
                (false, false) => {
                    self.body.remove(at(self.body.len()));
                }
            },
        }
    }
}

fn rec() -> impl Strategy<Value = Rec> {
    let note = || proptest::option::of(0u32..1000);
    (
        (note(), note(), note(), note()),
        prop::collection::btree_map(0u32..12, (note(), note()), 1..5),
        (
            note(),
            prop::collection::btree_set(0u32..8, 0..4),
            any::<bool>(),
        ),
        (note(), note(), prop::collection::vec(0u32..1000, 0..5)),
        any::<bool>(),
    )
        .prop_map(
            |(
                (lead, title_note, date_note, sources_note),
                s,
                (sources_tail, tags, tags_flow),
                (tags_note, end_note, body),
                pool,
            )| {
                // Base numbers are unique: body lines and notes get offsets.
                let mut body: Vec<u32> = body
                    .into_iter()
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect();
                body.reverse();
                Rec {
                    lead,
                    title: 0,
                    title_note: title_note.map(|n| n + 7000),
                    date_note: date_note.map(|n| n + 8000),
                    sources_note: sources_note.map(|n| n + 1000),
                    sources: s
                        .into_iter()
                        .map(|(i, (b, a))| (i, b.map(|n| n + 2000), a.map(|n| n + 3000)))
                        .collect(),
                    sources_tail: sources_tail.map(|n| n + 4000),
                    tags: tags.into_iter().collect(),
                    tags_flow,
                    tags_note: tags_note.map(|n| n + 5000),
                    end_note: end_note.map(|n| n + 6000),
                    body,
                    pool,
                }
            },
        )
}

fn edits() -> impl Strategy<Value = Vec<(u8, u32, bool)>> {
    prop::collection::vec((any::<u8>(), any::<u32>(), any::<bool>()), 0..6)
}

/// The words of a record that a merge must not lose, each with how many
/// times it stands in its place: a comment (`note-N`) paired with what it
/// annotates (the first word of its line, or for a comment line of the
/// next line with one), any other word on its own.
fn words(text: &str) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    let mut pending: Vec<String> = Vec::new();
    for line in text.lines() {
        let tokens: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || "[],".contains(c))
            .filter(|w| !w.is_empty())
            .collect();
        let kept = tokens.iter().filter(|w| {
            ["note-", "decision:", "tag-", "Title-", "Body-"]
                .iter()
                .any(|p| w.starts_with(p))
        });
        let notes = kept.clone().filter(|w| w.starts_with("note-"));
        // A comment line (`# note-1`, `  # note-1`) annotates the next line
        // with code, never itself.
        let code = !line.trim_start().starts_with('#');
        let Some(anchor) = tokens
            .iter()
            .find(|w| code && **w != "-" && !w.starts_with('#'))
        else {
            pending.extend(notes.map(|w| w.to_string()));
            continue;
        };
        for w in kept.filter(|w| !w.starts_with("note-")) {
            *out.entry((String::new(), w.to_string())).or_insert(0) += 1;
        }
        for w in notes.map(|w| w.to_string()).chain(pending.drain(..)) {
            *out.entry((anchor.to_string(), w)).or_insert(0) += 1;
        }
    }
    for w in pending {
        *out.entry((String::new(), w)).or_insert(0) += 1;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random edits on both sides of a commented record merge to a file
    /// holding every word both sides kept and every word either side
    /// added — comments included — or to a conflict that holds them.
    #[test]
    fn random_edits_of_commented_records_keep_every_line_both_sides_kept_or_conflict(
        base in rec(), ours_edits in edits(), theirs_edits in edits(),
    ) {
        let (mut ours, mut theirs) = (base.clone(), base.clone());
        let (mut o_fresh, mut t_fresh) = (10_000, 20_000);
        for e in ours_edits { ours.edit(e, &mut o_fresh); }
        for e in theirs_edits { theirs.edit(e, &mut t_fresh); }
        let (b, o, t) = (base.text(), ours.text(), theirs.text());
        let out = merge(What::Record(Kind::Decision), b.as_bytes(), o.as_bytes(), t.as_bytes(), &Markers::default(), 1 << 20);
        let text = String::from_utf8(out.merge.bytes).expect("utf-8");
        let (wb, wo, wt) = (words(&b), words(&o), words(&t));
        let n = |m: &BTreeMap<(String, String), usize>, w: &(String, String)| m.get(w).copied().unwrap_or(0);
        // In each place: kept by all three, plus the most either side
        // added there.
        let mut need: BTreeMap<(String, String), usize> = BTreeMap::new();
        for w in wo.keys().chain(wt.keys()) {
            let (cb, co, ct) = (n(&wb, w), n(&wo, w), n(&wt, w));
            need.insert(w.clone(), cb.min(co).min(ct) + co.saturating_sub(cb).max(ct.saturating_sub(cb)));
        }
        // A clean merge holds each in its place; a conflict holds them
        // somewhere in its blocks (a line moved by one side and next to an
        // addition of the other stands in one side's block only), so there
        // each word is counted wherever it stands.
        let (need, have) = if out.merge.conflicts.is_empty() {
            (need, words(&text))
        } else {
            let flat = |m: BTreeMap<(String, String), usize>| {
                let mut f = BTreeMap::new();
                for ((_, w), c) in m {
                    *f.entry((String::new(), w)).or_insert(0) += c;
                }
                f
            };
            (flat(need), flat(words(&text)))
        };
        for (w, &k) in &need {
            prop_assert!(
                n(&have, w) >= k,
                "{w:?} lost ({:?}, conflicts {:?}):\nbase\n{b}\nours\n{o}\ntheirs\n{t}\nresult\n{text}",
                out.how, out.merge.conflicts
            );
        }
        if out.merge.conflicts.is_empty() {
            prop_assert!(!text.contains("<<<<<<<"), "{text}");
        } else {
            prop_assert!(text.contains("<<<<<<<"), "{text}");
        }
    }
}

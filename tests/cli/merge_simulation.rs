//! Many agents, one memory, through a git remote: a bare remote and 6
//! clones; 6 agents (threads running `git` and `memlint`) do 10 rounds each,
//! all at once: pull, add a CONTEXT.md block, create a record, add a source
//! to one shared decision, commit and push (pulling again when the push is
//! rejected). With memlint's merge driver no pull conflicts and every block
//! and source is there exactly once at the end; without it, the same run
//! conflicts (which proves the run tests something).

use crate::common;

use common::{ok_on_path as ok, run_on_path as run, BIN};
use std::fs;
use std::path::{Path, PathBuf};

const AGENTS: usize = 6;
const ROUNDS: usize = 10;

const SHARED: &str = "memory/decisions/share-memory-through-git.md";

/// The remote, seeded with a workspace (and the driver's attributes when
/// `driver`), and one clone per agent.
fn setup(dir: &Path, driver: bool) -> Vec<PathBuf> {
    let remote = dir.join("remote.git");
    ok(
        dir,
        "git",
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let seed = dir.join("seed");
    fs::create_dir(&seed).expect("mkdir");
    ok(&seed, "git", &["init", "-q", "-b", "main"]);
    ok(&seed, BIN, &["init"]);
    if driver {
        ok(&seed, BIN, &["init", "--merge"]);
    }
    fs::write(
        seed.join(SHARED),
        "---\ntitle: Share memory through git\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://git-scm.com/docs/gitattributes\n---\n\nAgents share one memory repository through a remote.\n",
    )
    .expect("write");
    let context = fs::read_to_string(seed.join("CONTEXT.md")).expect("read");
    fs::write(
        seed.join("CONTEXT.md"),
        format!(
            "{}\n\n## 2026-11-01 Start\n\nThe first block.\n",
            context.trim_end()
        ),
    )
    .expect("write");
    ok(&seed, "git", &["add", "-A"]);
    ok(&seed, "git", &["commit", "-q", "-m", "seed"]);
    ok(
        &seed,
        "git",
        &["remote", "add", "origin", &remote.to_string_lossy()],
    );
    ok(&seed, "git", &["push", "-q", "origin", "main"]);
    (0..AGENTS)
        .map(|i| {
            let name = format!("agent-{i}");
            ok(
                dir,
                "git",
                &["clone", "-q", &remote.to_string_lossy(), &name],
            );
            let clone = dir.join(&name);
            // The driver is configuration, which git never clones.
            if driver {
                ok(&clone, BIN, &["init", "--merge"]);
            }
            clone
        })
        .collect()
}

/// One agent's round: the block, record and source it adds.
fn work(clone: &Path, agent: usize, round: usize) {
    let tag = format!("agent-{agent}-round-{round}");
    let context = clone.join("CONTEXT.md");
    let text = fs::read_to_string(&context).expect("read");
    let at = text.find("\n## ").map_or(text.len(), |i| i + 1);
    // Agents write the day's date; the rounds of one day follow each other.
    let block = format!("## 2026-11-02 {tag}\n\nWhat {tag} did.\n\n");
    fs::write(&context, format!("{}{block}{}", &text[..at], &text[at..])).expect("write");
    fs::write(
        clone.join(format!("knowledge/{tag}.md")),
        format!("---\ntitle: Notes of {tag}\ndescription: What {tag} learned.\nmodel_invocation: false\ndate: 2026-11-{:02}\nsources:\n  - https://example.com/{tag}\n---\n\nA note.\n", 2 + round),
    )
    .expect("write");
    let shared = clone.join(SHARED);
    let text = fs::read_to_string(&shared).expect("read");
    let text = text.replacen(
        "\n---\n\n",
        &format!("\n  - https://example.com/{tag}\n---\n\n"),
        1,
    );
    fs::write(&shared, text).expect("write");
}

/// What one agent met.
#[derive(Debug, Default, Clone, Copy)]
struct Met {
    conflicts: usize,
    rejected_pushes: usize,
    /// The most pushes rejected in one round.
    most_rejected: usize,
}

/// Pulls; on a conflict counts it and gives up the round's unpushed work
/// (a run without the driver only has to show conflicts happen).
fn pull(clone: &Path, met: &mut Met) -> bool {
    let out = run(
        clone,
        "git",
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    if out.status.success() {
        return true;
    }
    met.conflicts += 1;
    ok(clone, "git", &["merge", "--abort"]);
    ok(clone, "git", &["reset", "-q", "--hard", "origin/main"]);
    false
}

/// Most pulls and pushes an agent tries for one round before the test
/// gives up (a round takes a few when six agents race).
const TRIES: usize = 1000;

fn agent(clone: PathBuf, i: usize) -> Met {
    let mut met = Met::default();
    for round in 0..ROUNDS {
        let (mut tries, rejected_before) = (0, met.rejected_pushes);
        let mut tried = || {
            tries += 1;
            assert!(
                tries <= TRIES,
                "agent {i} could not push round {round} in {TRIES} tries"
            );
        };
        // The round's work is done again only after a conflicted pull has
        // reset the clone to the remote: done again on top of its own
        // unpushed commit, it would be there twice.
        'round: loop {
            tried();
            if !pull(&clone, &mut met) {
                continue 'round;
            }
            work(&clone, i, round);
            ok(&clone, "git", &["add", "-A"]);
            ok(
                &clone,
                "git",
                &[
                    "commit",
                    "-q",
                    "--no-verify",
                    "-m",
                    &format!("agent {i} round {round}"),
                ],
            );
            loop {
                if run(&clone, "git", &["push", "-q", "origin", "main"])
                    .status
                    .success()
                {
                    met.most_rejected =
                        met.most_rejected.max(met.rejected_pushes - rejected_before);
                    break 'round;
                }
                met.rejected_pushes += 1;
                tried();
                if !pull(&clone, &mut met) {
                    continue 'round;
                }
            }
        }
    }
    met
}

fn simulate(driver: bool) -> (tempfile::TempDir, PathBuf, Met) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().canonicalize().expect("canonical");
    let clones = setup(&dir, driver);
    let handles: Vec<_> = clones
        .into_iter()
        .enumerate()
        .map(|(i, c)| std::thread::spawn(move || agent(c, i)))
        .collect();
    let mut total = Met::default();
    for h in handles {
        let m = h.join().expect("agent");
        total.conflicts += m.conflicts;
        total.rejected_pushes += m.rejected_pushes;
        total.most_rejected = total.most_rejected.max(m.most_rejected);
    }
    let last = dir.join("agent-0");
    ok(
        &last,
        "git",
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    (tmp, last, total)
}

#[test]
fn six_agents_share_one_memory_without_conflicts_through_the_driver() {
    let started = std::time::Instant::now();
    let (_tmp, clone, met) = simulate(true);
    eprintln!(
        "with the driver: {} conflicts, {} rejected pushes ({} at most in a round), {:.1} s",
        met.conflicts,
        met.rejected_pushes,
        met.most_rejected,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(met.conflicts, 0);
    let context = fs::read_to_string(clone.join("CONTEXT.md")).expect("read");
    let shared = fs::read_to_string(clone.join(SHARED)).expect("read");
    for agent in 0..AGENTS {
        for round in 0..ROUNDS {
            let tag = format!("agent-{agent}-round-{round}");
            assert_eq!(
                context.matches(&format!(" {tag}\n")).count(),
                1,
                "block {tag}:\n{context}"
            );
            assert_eq!(
                shared.matches(&format!("/{tag}\n")).count(),
                1,
                "source {tag}:\n{shared}"
            );
            assert!(clone.join(format!("knowledge/{tag}.md")).is_file());
        }
    }
    // Newest first: each agent's rounds in reverse, above the first block.
    let at = |tag: &str| context.find(&format!(" {tag}\n")).expect("block");
    for agent in 0..AGENTS {
        for round in 1..ROUNDS {
            let (newer, older) = (
                format!("agent-{agent}-round-{round}"),
                format!("agent-{agent}-round-{}", round - 1),
            );
            assert!(at(&newer) < at(&older), "{newer} after {older}:\n{context}");
        }
    }
    assert!(
        context
            .trim_end()
            .ends_with("## 2026-11-01 Start\n\nThe first block."),
        "{context}"
    );
    let check = run(&clone, BIN, &["check"]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn six_agents_without_the_driver_conflict() {
    let (_tmp, _clone, met) = simulate(false);
    eprintln!(
        "without the driver: {} conflicts, {} rejected pushes",
        met.conflicts, met.rejected_pushes
    );
    assert!(met.conflicts > 0);
}

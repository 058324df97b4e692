//! CX-I3 follows every version of `_Msg/bus.jsonl` the repository ever held: through deletion
//! and re-creation, renames and moves of `_Msg/`, a symbolic link in between, and says
//! `cantTell` with the fix on a shallow clone (issue 21 §2). Each repository is written with
//! pinned identities and dates, so its commits are the same on every machine.

use crate::support;

use std::path::Path;

use crossverify::crossexam::{Options, transcript};
use crossverify::report::{CheckResult, Level, Outcome};

/// Four lines of a real transcript, then all eleven, then all eleven with line 1 rewritten.
struct Buses {
    head: Vec<u8>,
    full: Vec<u8>,
    rewritten: Vec<u8>,
}

fn buses() -> Buses {
    let real = support::root().join("test-vectors/crossexam/real/claim-and-concede/_Msg");
    let full = std::fs::read(real.join("bus.jsonl")).expect("bus");
    let lines: Vec<&[u8]> = full.split_inclusive(|b| *b == b'\n').collect();
    let mut rewritten = full.clone();
    let at = rewritten.windows(5).position(|w| w == b"08:05").expect("a time in line 1");
    rewritten[at + 4] = b'9';
    Buses { head: lines[..4].concat(), full, rewritten }
}

/// A project with an empty-ish `_Msg/` (task.md only), in a fresh repository.
fn project(tmp: &Path) -> std::path::PathBuf {
    let root = tmp.join("project");
    std::fs::create_dir_all(root.join("_Msg")).expect("mkdir");
    std::fs::write(root.join("_Msg/task.md"), "status: debate\n").expect("task");
    git(&root, &["init", "-q", "-b", "main", "."]);
    root
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .env("GIT_AUTHOR_NAME", "Seat")
        .env("GIT_AUTHOR_EMAIL", "seat@crossverify.invalid")
        .env("GIT_COMMITTER_NAME", "Seat")
        .env("GIT_COMMITTER_EMAIL", "seat@crossverify.invalid")
        .env("GIT_AUTHOR_DATE", "1786600000 +0000")
        .env("GIT_COMMITTER_DATE", "1786600000 +0000")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn commit(root: &Path, what: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", what]);
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
    std::fs::write(p, bytes).expect("write");
}

/// CX-I3's results for the transcript at `root/msg`.
fn i3(root: &Path, msg: &str) -> Vec<CheckResult> {
    let report = transcript(&Options::new(&root.join(msg))).expect("the transcript is readable");
    report.results.into_iter().filter(|r| r.code == "CX-I3").collect()
}

fn outcomes(results: &[CheckResult]) -> Vec<Outcome> {
    results.iter().map(|r| r.outcome).collect()
}

fn assert_fails(results: &[CheckResult], why: &str) {
    assert!(results.iter().any(|r| r.outcome == Outcome::Failed), "{why}: {results:#?}");
    assert!(results.iter().all(|r| r.outcome != Outcome::Passed), "{why}: {results:#?}");
}

#[test]
fn a_rewrite_in_a_commit_that_deletes_and_recreates_the_file_fails() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let b = buses();
    let root = project(tmp.path());
    write(&root, "_Msg/bus.jsonl", &b.head);
    commit(&root, "blind");
    git(&root, &["rm", "-q", "_Msg/bus.jsonl"]);
    write(&root, "_Msg/bus.jsonl", &b.rewritten);
    commit(&root, "deleted and re-created");
    assert_fails(&i3(&root, "_Msg"), "delete and re-create in one commit");
}

#[test]
fn a_rewrite_after_deleting_the_bus_in_an_earlier_commit_fails() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let b = buses();
    let root = project(tmp.path());
    write(&root, "_Msg/bus.jsonl", &b.full);
    commit(&root, "closed");
    std::fs::remove_file(root.join("_Msg/bus.jsonl")).expect("rm");
    commit(&root, "bus deleted");
    write(&root, "_Msg/bus.jsonl", &b.rewritten);
    commit(&root, "bus re-added, rewritten");
    let r = i3(&root, "_Msg");
    assert_fails(&r, "delete, then re-add rewritten");
    let failed = r.iter().find(|r| r.outcome == Outcome::Failed).expect("a failure");
    assert_eq!(failed.evidence.get("line").and_then(serde_json::Value::as_u64), Some(1), "{failed:#?}");
    // The work tree's copy, also rewritten against the last committed version before the
    // deletion, fails the same way when HEAD holds no bus at all.
    std::fs::remove_file(root.join("_Msg/bus.jsonl")).expect("rm");
    commit(&root, "bus deleted again");
    write(&root, "_Msg/bus.jsonl", &b.rewritten);
    assert_fails(&i3(&root, "_Msg"), "a work-tree bus after a deletion in HEAD");
}

#[test]
fn a_rewrite_in_the_commit_that_moves_msg_fails() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let b = buses();
    let root = project(tmp.path());
    write(&root, "_Msg/bus.jsonl", &b.full);
    commit(&root, "closed");
    std::fs::create_dir(root.join("debates")).expect("mkdir");
    git(&root, &["mv", "_Msg", "debates/first"]);
    write(&root, "debates/first/bus.jsonl", &b.rewritten);
    commit(&root, "archived and rewritten");
    assert_fails(&i3(&root, "debates/first"), "rename of _Msg with a rewrite");
}

#[test]
fn a_rewrite_after_a_move_in_a_later_commit_fails_and_a_clean_move_passes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let b = buses();
    let root = project(tmp.path());
    write(&root, "_Msg/bus.jsonl", &b.head);
    commit(&root, "blind");
    git(&root, &["mv", "_Msg", "panel"]);
    commit(&root, "moved");
    write(&root, "panel/bus.jsonl", &b.full);
    commit(&root, "appended after the move");
    // The move lost no line: append-only holds across it (no false reject).
    assert_eq!(outcomes(&i3(&root, "panel")), [Outcome::Passed]);
    std::fs::create_dir(root.join("again")).expect("mkdir");
    git(&root, &["mv", "panel", "again/_Msg"]);
    commit(&root, "moved again");
    std::fs::remove_dir_all(root.join("again")).expect("rm");
    commit(&root, "deleted");
    write(&root, "again/_Msg/bus.jsonl", &b.rewritten);
    write(&root, "again/_Msg/task.md", b"status: debate\n");
    commit(&root, "re-created where it was moved, rewritten");
    // Moved, deleted, re-created rewritten at the path it was moved to: the version before the
    // deletion (which came through the move) is not a prefix of the re-created one.
    assert_fails(&i3(&root, "again/_Msg"), "move, delete, re-create");
    // A bus created at a new path in a later commit starts its own history (specs/crossexam.md,
    // CX-I3): the verifier cannot tell a new panel from a moved one across commits.
    write(&root, "elsewhere/_Msg/bus.jsonl", &b.head);
    write(&root, "elsewhere/_Msg/task.md", b"status: debate\n");
    commit(&root, "a second panel");
    assert_eq!(outcomes(&i3(&root, "elsewhere/_Msg")), [Outcome::Passed]);
}

#[test]
fn a_symbolic_link_in_between_does_not_hide_a_rewrite() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let b = buses();
    let root = project(tmp.path());
    write(&root, "_Msg/bus.jsonl", &b.full);
    commit(&root, "closed");
    std::fs::remove_file(root.join("_Msg/bus.jsonl")).expect("rm");
    std::os::unix::fs::symlink("task.md", root.join("_Msg/bus.jsonl")).expect("symlink");
    commit(&root, "bus replaced by a link");
    std::fs::remove_file(root.join("_Msg/bus.jsonl")).expect("rm");
    write(&root, "_Msg/bus.jsonl", &b.rewritten);
    commit(&root, "bus back, rewritten");
    assert_fails(&i3(&root, "_Msg"), "file, link, rewritten file");
}

#[test]
fn a_shallow_clone_is_incomplete_evidence() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let b = buses();
    let root = project(tmp.path());
    write(&root, "_Msg/bus.jsonl", &b.full);
    commit(&root, "closed");
    write(&root, "_Msg/bus.jsonl", &b.rewritten);
    commit(&root, "rewritten");
    write(&root, "_Msg/synthesis.md", b"## Consensus\n");
    commit(&root, "synthesis");
    // The full history fails; a depth-1 clone of it holds one version, which the work tree
    // extends: that proves nothing about the versions before the boundary.
    assert_fails(&i3(&root, "_Msg"), "the full history");
    let url = format!("file://{}", root.display());
    git(tmp.path(), &["clone", "-q", "--depth", "1", &url, "shallow"]);
    let r = i3(&tmp.path().join("shallow"), "_Msg");
    assert!(r.iter().all(|r| r.outcome != Outcome::Passed), "{r:#?}");
    let cant = r.iter().find(|r| r.outcome == Outcome::CantTell).expect("cantTell");
    assert!(cant.message.contains("git fetch --unshallow") && cant.message.contains("--prior"), "{cant:#?}");
    assert_eq!(cant.level, Level::Error, "without a snapshot the gap makes the run inconclusive");
    // An earlier copy given with --prior decides what the clone cannot: the gap is still
    // shown, at info level, and the run is no longer inconclusive on its account.
    let prior = tmp.path().join("prior.jsonl");
    let lines: Vec<&[u8]> = b.rewritten.split_inclusive(|c| *c == b'\n').collect();
    std::fs::write(&prior, lines[..3].concat()).expect("prior");
    let mut opts = Options::new(&tmp.path().join("shallow/_Msg"));
    opts.priors.push(prior);
    let report = transcript(&opts).expect("readable");
    let r: Vec<&CheckResult> = report.results.iter().filter(|r| r.code == "CX-I3").collect();
    assert!(r.iter().any(|r| r.outcome == Outcome::Passed && r.subject == "--prior prior.jsonl"), "{r:#?}");
    assert!(r.iter().all(|r| r.outcome != Outcome::CantTell || r.level == Level::Info), "{r:#?}");
}

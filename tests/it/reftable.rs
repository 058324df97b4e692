//! git's reftable ref storage (`git init --ref-format=reftable`, the default from git 3.0) is a
//! valid repository: a ledger converted with `git refs migrate --ref-format=reftable` verifies
//! exactly as its files-backend twin, report and exit code alike.

use crate::support;

use std::path::Path;
use std::process::Output;

/// A copy of `repo` at `to` with its refs migrated to reftable (needs git ≥ 2.46).
fn reftable_twin(repo: &Path, to: &Path) {
    support::copy_dir(repo, to);
    // `git refs migrate` needs git 2.46 or later; support::git fails with git's own message.
    support::git(to, &["refs", "migrate", "--ref-format=reftable"]);
    let git_dir = if to.join(".git").is_dir() { to.join(".git") } else { to.to_owned() };
    assert!(git_dir.join("reftable/tables.list").is_file() && !git_dir.join("packed-refs").exists(), "migrated");
}

fn ledger(args: &[&str]) -> Output {
    let mut c = support::crossverify();
    c.args(["ledger"]).args(args).args(["--format", "json", "--no-cache"]);
    c.output().expect("run crossverify")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// `crossverify ledger` on a fixture and on its reftable twin: the same exit code and the same
/// report once the twin's paths read as the original's.
fn assert_twins_agree(fixture: &str, repos: &[&str], flags: &[&str]) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let files = support::materialize(fixture, &tmp.path().join("files"));
    let twin = tmp.path().join("reftable").join(fixture);
    for repo in repos {
        reftable_twin(&files.join(repo), &twin.join(repo));
    }
    let args = |root: &Path| -> Vec<String> {
        flags.iter().zip(repos).flat_map(|(f, r)| [(*f).to_owned(), path(&root.join(r)).to_owned()]).collect()
    };
    let run = |root: &Path| {
        let a = args(root);
        ledger(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (want, got) = (run(&files), run(&twin));
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!want.stdout.is_empty(), "{fixture}: the files repository gives a report: {}", stderr(&want));
    assert_eq!(got.status.code(), want.status.code(), "{fixture}: exit codes differ: {}", stderr(&got));
    let got = String::from_utf8(got.stdout).expect("UTF-8 report").replace(path(&twin), path(&files));
    let want = String::from_utf8(want.stdout).expect("UTF-8 report");
    assert_eq!(got, want, "{fixture}: reports differ");
}

/// The one difference between the twins (specs/crossaudit.md "Ref storage"): a reflog entry
/// is read through gix in the files format, and refused with the command that resolves it in
/// reftable, never resolved against the ref's current value.
#[test]
fn a_reflog_revision_in_reftable_is_refused_with_the_command() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let files = support::materialize("v1-genuine", &tmp.path().join("files"));
    let twin = tmp.path().join("twin");
    reftable_twin(&files.join("science"), &twin);
    let o = support::crossverify().args(["manifest", path(&twin), "HEAD@{1}"]).output().expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not read from reftable") && err.contains("git rev-parse 'HEAD@{1}'"), "{err}");
}

#[test]
fn paired_ledger_verifies_as_its_reftable_twin() {
    assert_twins_agree("demo", &["audit", "science"], &["--audit", "--science"]);
}

#[test]
fn local_ledger_verifies_as_its_reftable_twin() {
    assert_twins_agree("s2-local-run", &["science"], &["--audit"]);
}

// In the integration tests: the reader sits in the git layer, the fuzz properties above it.
proptest::proptest! {
    /// Random edits of a real multi-block table (overwrites, truncation, insertion) read
    /// as records that keep the fuzz property, or as an error; never a panic.
    #[test]
    fn edited_tables_keep_the_fuzz_property(
        edits in proptest::collection::vec((0usize..8033, 0u8..=255, 0u8..3), 1..8),
    ) {
        let seed = support::root().join("fuzz/corpus/reftable/sha1-compacted-blocks");
        let mut data = std::fs::read(seed).expect("seed");
        for (at, byte, how) in edits {
            let at = at % (data.len() + 1);
            match how {
                0 if at < data.len() => data[at] = byte,
                1 => data.truncate(at),
                _ => data.insert(at, byte),
            }
        }
        crossverify::fuzzing::reftable(&data);
    }
}

//! The git layer against the git CLI, which serves as the independent reference here: every
//! `git` call runs with the system and global configuration switched off.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use gix::bstr::{BString, ByteSlice};

use super::*;
use crossverify_fixtures::fixture::{Content, RepoBuilder, Stamp};

mod dag;
mod damaged;
mod deltas;
mod loose_reads;
mod opening;
mod revisions;
mod walk_diff;

/// `git` in `dir` with no system or global configuration and a throwaway `HOME`.
fn git_out(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        // Under reftable, keep one table per update (git's own test switch), so that reading
        // merges a real stack until `pack-refs` compacts it.
        .env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false")
        .env("GIT_AUTHOR_NAME", "T")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "T")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_DATE", "1786525200 +0000")
        .output()
        .expect("the git CLI runs")
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_out(dir, args);
    assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("git prints UTF-8 here")
}

fn oid(s: &str) -> ObjectId {
    ObjectId::from_hex(s.trim().as_bytes()).expect("git printed an object id")
}

/// Path of the loose object `id` in a bare repository.
fn loose(repo: &Path, id: ObjectId) -> PathBuf {
    let hex = id.to_string();
    repo.join("objects").join(&hex[..2]).join(&hex[2..])
}

fn stamp(time: i64) -> Stamp {
    Stamp { name: crossverify_fixtures::fixture::NAME.into(), email: crossverify_fixtures::fixture::EMAIL.into(), time }
}

/// Three linear commits: `a.txt` and `dir/sub/b.txt`, then a change to `a.txt`, then a
/// change inside `dir/sub`.
fn linear(dir: &Path) -> (PathBuf, Vec<ObjectId>) {
    let path = dir.join("linear.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    b.file("a.txt", "one\n").file("dir/sub/b.txt", "bee\n").file("dir/c.txt", "sea\n");
    let c0 = b.commit("first").expect("commit");
    b.file("a.txt", "two\n");
    let c1 = b.commit("second").expect("commit");
    b.file("dir/sub/b.txt", "bee 2\n");
    let c2 = b.commit("third").expect("commit");
    (path, vec![c0, c1, c2])
}

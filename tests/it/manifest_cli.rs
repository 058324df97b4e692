//! `crossverify manifest --format json` against an independent computation made with the git
//! CLI and coreutils only: `git ls-tree -r -z` lists the entries, one `git cat-file --batch`
//! extracts the blobs and `sha256sum` hashes them. The `manifest` object of the report must be
//! the same text, byte for byte, as the object built from their output.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crossverify_fixtures::fixture::{Content, RepoBuilder};
use gix::ObjectId;

fn git_cmd(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir).env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").env("HOME", dir);
    c
}

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = git_cmd(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The manifest as git and sha256sum see it, rendered like the report renders it.
fn reference(repo: &Path, rev: &str, scopes: &[&str], scratch: &Path) -> String {
    let mut args = vec!["ls-tree", "-r", "-z", rev, "--"];
    args.extend(scopes);
    let raw = git(repo, &args);
    // The same listing with git's own quoting (core.quotePath is on by default), for the keys
    // of paths that cannot be JSON keys as they are.
    let mut args = vec!["ls-tree", "-r", "--name-only", rev, "--"];
    args.extend(scopes);
    let quoted = String::from_utf8(git(repo, &args)).expect("quoted names are ASCII");
    let quoted: Vec<&str> = quoted.lines().collect();

    let entries: Vec<(String, String, Vec<u8>)> = raw
        .split(|b| *b == 0)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let tab = l.iter().position(|b| *b == b'\t').expect("tab");
            let meta = std::str::from_utf8(&l[..tab]).expect("ascii");
            let mut f = meta.split(' ');
            let mode = f.next().expect("mode").to_owned();
            let id = f.nth(1).expect("id").to_owned();
            (mode, id, l[tab + 1..].to_vec())
        })
        .collect();
    assert_eq!(entries.len(), quoted.len());

    let blobs: BTreeSet<&str> =
        entries.iter().filter(|(m, _, _)| m == "100644" || m == "100755").map(|(_, id, _)| id.as_str()).collect();
    let digests = sha256sum_blobs(repo, &blobs, scratch);

    let mut manifest = serde_json::Map::new();
    for ((mode, id, path), quoted) in entries.iter().zip(quoted) {
        let plain =
            std::str::from_utf8(path).ok().filter(|s| !s.chars().any(|c| c.is_control() || c == '"' || c == '\\'));
        let key = plain.map_or_else(|| quoted.to_owned(), str::to_owned);
        let value = match mode.as_str() {
            "120000" => "symlink".to_owned(),
            "160000" => "submodule".to_owned(),
            _ if std::str::from_utf8(path).is_err() => "non-utf8-path".to_owned(),
            _ => digests[id.as_str()].clone(),
        };
        assert!(manifest.insert(key, value.into()).is_none(), "two entries render as the same key");
    }
    // The report is pretty-printed with the manifest one level deep.
    serde_json::to_string_pretty(&manifest).expect("json").replace('\n', "\n  ")
}

/// One `git cat-file --batch` writes each blob to `scratch/<id>`; `sha256sum` hashes the files.
fn sha256sum_blobs(repo: &Path, ids: &BTreeSet<&str>, scratch: &Path) -> BTreeMap<String, String> {
    let dir = scratch.join("blobs");
    std::fs::create_dir_all(&dir).expect("scratch");
    let mut child = git_cmd(repo)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("git cat-file");
    let mut stdin = child.stdin.take().expect("stdin");
    let list: String = ids.iter().map(|id| format!("{id}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(list.as_bytes()).expect("feed cat-file"));
    let out = child.wait_with_output().expect("cat-file output");
    writer.join().expect("writer");
    assert!(out.status.success());
    let mut rest = out.stdout.as_slice();
    let mut files = Vec::new();
    while !rest.is_empty() {
        let nl = rest.iter().position(|b| *b == b'\n').expect("header line");
        let header = std::str::from_utf8(&rest[..nl]).expect("ascii header");
        let f: Vec<&str> = header.split(' ').collect();
        assert_eq!(f[1], "blob", "{header}");
        let size: usize = f[2].parse().expect("size");
        let body = &rest[nl + 1..nl + 1 + size];
        let file = dir.join(f[0]);
        std::fs::write(&file, body).expect("write blob");
        files.push(file);
        rest = &rest[nl + 1 + size + 1..];
    }
    let mut digests = BTreeMap::new();
    for chunk in files.chunks(2000) {
        let out = Command::new("sha256sum").args(chunk).output().expect("sha256sum runs");
        assert!(out.status.success());
        for line in String::from_utf8(out.stdout).expect("utf-8").lines() {
            let (hex, path) = line.split_once("  ").expect("sha256sum line");
            let id = Path::new(path).file_name().expect("name").to_string_lossy().into_owned();
            digests.insert(id, hex.to_owned());
        }
    }
    assert_eq!(digests.len(), ids.len());
    digests
}

/// Runs the CLI and returns stdout; the exit code must be 0 (verified, warnings allowed).
fn cli(repo: &Path, rev: &str, scopes: &[&str], extra: &[&str]) -> String {
    let mut c = support::crossverify();
    c.arg("manifest").arg(repo).arg(rev).args(["--format", "json"]).args(extra);
    for s in scopes {
        c.args(["--scope", s]);
    }
    let out = c.output().expect("crossverify runs");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("the report is UTF-8")
}

/// The text of the `manifest` member of a pretty-printed report.
fn manifest_text(report: &str) -> &str {
    let start = report.find("\n  \"manifest\": ").expect("a manifest section") + "\n  \"manifest\": ".len();
    let rest = &report[start..];
    if rest.starts_with("{}") {
        return &rest[..2];
    }
    let end = rest.find("\n  }").expect("end of the manifest object") + "\n  }".len();
    &rest[..end]
}

fn agree(repo: &Path, rev: &str, scopes: &[&str], scratch: &Path) -> usize {
    let want = reference(repo, rev, scopes, scratch);
    let one = cli(repo, rev, scopes, &["--threads", "1"]);
    let two = cli(repo, rev, scopes, &["--threads", "2"]);
    assert_eq!(one, two, "--threads 1 and --threads 2 give the same bytes ({rev} {scopes:?})");
    assert_eq!(manifest_text(&one), want, "{} at {rev}, scope {scopes:?}", repo.display());
    want.matches('\n').count().saturating_sub(1)
}

#[test]
fn ledger_fixtures_agree_with_git_and_sha256sum() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let plain = support::materialize("repo-plain", tmp.path()).join("repo");
    for (rev, scopes) in [
        ("HEAD", &[][..]),
        ("HEAD", &["experiments"][..]),
        ("HEAD", &["experiments/run-2"][..]),
        ("HEAD", &["experiments/run-1/results.json"][..]),
        ("HEAD", &["experiments/run-2", "experiments", "experiments/run-1"][..]),
        ("HEAD~1", &["README.md", "experiments/run-2/"][..]),
        ("HEAD~2", &[][..]),
        ("main~1", &["experiment"][..]),
    ] {
        agree(&plain, rev, scopes, tmp.path());
    }
    let special = support::materialize("repo-special", tmp.path()).join("repo");
    agree(&special, "HEAD", &[], tmp.path());
    agree(&special, "HEAD", &["experiments/run-1"], tmp.path());
}

#[test]
fn special_names_kinds_and_scopes_agree() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("kinds.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    let sub = ObjectId::from_hex(b"1111111111111111111111111111111111111111").expect("hex");
    b.file("exp/a.json", "{\"a\": 1}\n")
        .file("exp/copy.json", "{\"a\": 1}\n")
        .file("exp/empty", "")
        .put("exp/run.sh", Content::Executable(b"#!/bin/sh\necho hi\n".to_vec()))
        .put("exp/empty-exec", Content::Executable(Vec::new()))
        .put("exp/link", Content::Symlink(b"a.json".to_vec()))
        .put("exp/dangling", Content::Symlink(b"../../nowhere".to_vec()))
        .put(b"exp/l\xfe".as_slice(), Content::Symlink(b"a.json".to_vec()))
        .put("exp/vendor", Content::Submodule(sub))
        .file(b"exp/n\xffm".as_slice(), "latin-1 name\n")
        .file("exp/with space.txt", "s")
        .file("exp/tab\there", "t")
        .file("exp/quo\"te", "q")
        .file("exp/back\\slash", "b")
        .file("exp/\x7fdel", "d")
        .file("exp/résumé.md", "r")
        .file("exp/日本.csv", "1,2\n")
        .file("exp/star*", "glob chars are literal")
        .file("exp/deep/a/b/c/d/e/f.txt", "deep")
        .file("exp-2/x", "x")
        .file("exp.txt", "sibling with a longer name")
        .file("expx/y", "y")
        .file("big.bin", crossverify_fixtures::fixture::spec::generated(b"big", 1 << 20));
    b.commit("kinds").expect("commit");
    for scopes in [
        &[][..],
        &["exp"][..],
        &["exp/deep"][..],
        &["exp/deep/a/b/c/d/e/f.txt"][..],
        &["exp", "exp-2"][..],
        &["exp/deep", "exp"][..],
        &["ex"][..],
        &["exp-2/"][..],
        &["exp/*"][..],
        &["exp/star*"][..],
        &["big.bin", "expx"][..],
    ] {
        agree(&path, "main", scopes, tmp.path());
    }
}

/// The 10,240-file fixture, whole and under nested scopes.
#[test]
fn a_ten_thousand_file_tree_agrees() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = support::materialize("synthetic-10k", tmp.path()).join("repo");
    assert_eq!(agree(&repo, "HEAD", &[], tmp.path()), 10_240);
    agree(&repo, "HEAD~2", &["experiments/run-0042"], tmp.path());
    agree(
        &repo,
        "HEAD",
        &["experiments/run-0001", "experiments/run-0100/result-010000.json", "experiments/run-0100"],
        tmp.path(),
    );
}

/// A host whose git configuration and environment would change what git reads: none of it may
/// reach crossverify.
#[test]
fn the_hosts_git_configuration_and_environment_are_ignored() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = support::materialize("repo-plain", tmp.path()).join("repo");
    let clean = cli(&repo, "HEAD", &[], &[]);
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".config/git")).expect("home");
    let broken = "[core\n\tthis is not configuration\n";
    for f in [home.join(".gitconfig"), home.join(".config/git/config"), tmp.path().join("global")] {
        std::fs::write(f, broken).expect("write");
    }
    let out = support::crossverify()
        .args(["manifest"])
        .arg(&repo)
        .args(["HEAD", "--format", "json"])
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_GLOBAL", tmp.path().join("global"))
        .env("GIT_CONFIG_SYSTEM", tmp.path().join("global"))
        .env_remove("GIT_CONFIG_NOSYSTEM")
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "core.useReplaceRefs")
        .env("GIT_CONFIG_VALUE_0", "true")
        .env("GIT_DIR", tmp.path().join("elsewhere"))
        .env("GIT_OBJECT_DIRECTORY", tmp.path().join("elsewhere"))
        .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", tmp.path().join("elsewhere"))
        .env("GIT_REPLACE_REF_BASE", "refs/heads/")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).expect("utf-8"), clean);
}

mod generated {
    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone)]
    enum Kind {
        File(usize),
        Exec(usize),
        Link,
    }

    fn entries() -> impl Strategy<Value = Vec<(Vec<u8>, Kind)>> {
        let seg = prop_oneof![
            Just(b"a".to_vec()),
            Just(b"b".to_vec()),
            Just(b"exp".to_vec()),
            Just(b"r\xc3\xa9".to_vec()),
            Just(b"n\xff".to_vec()),
            Just(b"x y".to_vec())
        ];
        let path = proptest::collection::vec(seg, 1..4);
        let kind =
            prop_oneof![(0usize..3000).prop_map(Kind::File), (0usize..50).prop_map(Kind::Exec), Just(Kind::Link)];
        proptest::collection::vec((path, kind), 1..25).prop_map(|v| {
            // Drop paths that would make one entry both a file and a directory.
            let mut out: Vec<(Vec<u8>, Kind)> = Vec::new();
            for (segs, k) in v {
                let p = segs.join(&b'/');
                let clash = out.iter().any(|(q, _)| {
                    q == &p
                        || (q.starts_with(&p) && q.get(p.len()) == Some(&b'/'))
                        || (p.starts_with(q) && p.get(q.len()) == Some(&b'/'))
                });
                if !clash {
                    out.push((p, k));
                }
            }
            out
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

        /// Random trees and scopes: the CLI agrees with git + sha256sum, on one thread and two.
        #[test]
        fn random_trees_agree(files in entries(), scope in prop_oneof![Just(None), Just(Some("a")), Just(Some("exp/b")), Just(Some("b/a"))]) {
            let tmp = tempfile::tempdir().expect("tempdir");
            let path = tmp.path().join("p.git");
            let mut b = RepoBuilder::init(&path).expect("init");
            for (p, k) in &files {
                let c = match k {
                    Kind::File(n) => Content::File(crossverify_fixtures::fixture::spec::generated(p, *n)),
                    Kind::Exec(n) => Content::Executable(crossverify_fixtures::fixture::spec::generated(p, *n)),
                    Kind::Link => Content::Symlink(b"a".to_vec()),
                };
                b.put(p, c);
            }
            b.commit("random").expect("commit");
            let scopes: Vec<&str> = scope.into_iter().collect();
            agree(&path, "HEAD", &scopes, tmp.path());
        }
    }
}

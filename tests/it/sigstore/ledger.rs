//! A `v1-genuine` ledger with a Sigstore bundle committed beside its round-2 receipt, built
//! with git plumbing on the bare audit repository (shared by `tests/it/sigstore.rs` and
//! `tests/it/sigstore_untested.rs`).
#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use crate::support;

pub const CYCLE: &str = "cycles/1b03559f8f25d574c75eab8dbf6e1c9adc8af559";

/// `git` in `repo` (bare), isolated from the host's configuration, with a pinned identity.
fn git(repo: &Path, index: &Path, args: &[&str], stdin: Option<&[u8]>) -> String {
    String::from_utf8(git_raw(repo, index, args, stdin)).expect("utf-8").trim().to_owned()
}

fn git_raw(repo: &Path, index: &Path, args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    use std::io::Write as _;
    let mut c = std::process::Command::new("git");
    c.args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", repo)
        .env("GIT_INDEX_FILE", index)
        .env("GIT_AUTHOR_NAME", "auditor")
        .env("GIT_AUTHOR_EMAIL", "auditor@crossverify.invalid")
        .env("GIT_AUTHOR_DATE", "2026-06-01T00:00:10Z")
        .env("GIT_COMMITTER_NAME", "auditor")
        .env("GIT_COMMITTER_EMAIL", "auditor@crossverify.invalid")
        .env("GIT_COMMITTER_DATE", "2026-06-01T00:00:10Z")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("git runs");
    if let Some(input) = stdin {
        child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("git finishes");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// A `v1-genuine` ledger with `bundle` committed beside its round-2 receipt (a later commit,
/// as an auditor who signs after the fact would add it).
pub fn wrapped_ledger(tmp: &Path, bundle: impl FnOnce(&[u8]) -> Vec<u8>) -> std::path::PathBuf {
    let dir = support::materialize("v1-genuine", tmp);
    let audit = dir.join("audit");
    let index = tmp.join("index");
    let receipt = git_raw(&audit, &index, &["cat-file", "blob", &format!("HEAD:{CYCLE}/receipt.json")], None);
    let b = bundle(&receipt);
    let blob = git(&audit, &index, &["hash-object", "-w", "--stdin"], Some(&b));
    git(&audit, &index, &["read-tree", "HEAD"], None);
    let path = format!("{CYCLE}/receipt.json.sigstore.json");
    git(&audit, &index, &["update-index", "--add", "--cacheinfo", &format!("100644,{blob},{path}")], None);
    let tree = git(&audit, &index, &["write-tree"], None);
    let commit = git(&audit, &index, &["commit-tree", &tree, "-p", "HEAD", "-m", "sign receipt"], None);
    git(&audit, &index, &["update-ref", "HEAD", &commit], None);
    dir
}

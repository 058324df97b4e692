//! Real shallow clones (`git clone --depth 1`), whose missing objects the fixture machinery's
//! grafted repositories do not reproduce: what a shallow clone lacks is `cantTell` with the
//! `git fetch --unshallow` hint, never a failure (a commit missing from a full clone is one).

use crate::support;

use serde_json::Value;

fn shallow_clone(src: &std::path::Path, dest: &std::path::Path) {
    let url = format!("file://{}", src.display());
    let parent = dest.parent().expect("parent");
    let name = dest.file_name().expect("name").to_str().expect("utf-8");
    support::git(parent, &["clone", "-q", "--depth", "1", "--no-single-branch", &url, name]);
}

fn ledger(audit: &std::path::Path, science: &std::path::Path) -> (i32, Value) {
    let out = support::crossverify()
        .args(["ledger", "--quiet", "--format", "json", "--audit"])
        .arg(audit)
        .arg("--science")
        .arg(science)
        .output()
        .expect("runs");
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().expect("exit code"), report)
}

fn with_code<'a>(report: &'a Value, code: &str) -> Vec<&'a Value> {
    report["results"].as_array().expect("results").iter().filter(|r| r["code"] == code).collect()
}

#[test]
fn objects_missing_from_a_shallow_clone_are_unknown_not_forged() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());

    let audit = tmp.path().join("shallow-audit");
    shallow_clone(&demo.join("audit"), &audit);
    let (code, report) = ledger(&audit, &demo.join("science"));
    assert_eq!(code, 3, "inconclusive, not failed: {:#}", report["summary"]);
    let a710 = with_code(&report, "CV-A710");
    assert!(
        a710.iter().any(|r| r["outcome"] == "cantTell" && r["message"].as_str().unwrap_or("").contains("--unshallow")),
        "{a710:#?}"
    );
    assert!(
        report["results"]
            .as_array()
            .expect("results")
            .iter()
            .all(|r| r["outcome"] != "failed" || r["level"] != "error")
    );

    let science = tmp.path().join("shallow-science");
    shallow_clone(&demo.join("science"), &science);
    let (code, report) = ledger(&demo.join("audit"), &science);
    assert_eq!(code, 3, "inconclusive, not failed: {:#}", report["summary"]);
    let a701 = with_code(&report, "CV-A701");
    assert!(
        a701.iter().any(|r| r["outcome"] == "cantTell" && r["message"].as_str().unwrap_or("").contains("--unshallow")),
        "{a701:#?}"
    );
    assert!(a701.iter().all(|r| r["outcome"] != "failed"), "{a701:#?}");
}

#[test]
fn a_commit_missing_from_a_full_clone_is_a_failure() {
    // The control: the same absence without the shallow excuse is evidence against the receipt.
    // A full clone that holds the earlier audited commits but not the latest one: that one
    // receipt binds a commit the repository does not have.
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());
    let url = format!("file://{}", demo.join("science").display());
    support::git(tmp.path(), &["clone", "-q", &url, "science-without-tip"]);
    let science = tmp.path().join("science-without-tip");
    support::git(&science, &["remote", "remove", "origin"]);
    support::git(&science, &["reset", "-q", "--hard", "HEAD~1"]);
    support::git(&science, &["reflog", "expire", "--expire=now", "--all"]);
    support::git(&science, &["gc", "-q", "--prune=now"]);
    let (code, report) = ledger(&demo.join("audit"), &science);
    assert_eq!(code, 1);
    assert!(with_code(&report, "CV-A701").iter().any(|r| r["outcome"] == "failed"));
    // A repository holding none of the audited commits is the operator's wrong --science, not
    // a ledger of forgeries: could not run (exit 2), with the fix (docs/guide.md, the gate's
    // behaviour).
    let other = support::materialize("v1-genuine", tmp.path());
    let out = support::crossverify()
        .args(["ledger", "--quiet", "--audit"])
        .arg(demo.join("audit"))
        .arg("--science")
        .arg(other.join("science"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the science repository"));
}

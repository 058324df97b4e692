//! Loader and check tests on small ledgers written to a temporary directory.

use std::path::Path;

use super::*;
use crate::progress::Ctx;
use crate::report::Outcome;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("has a parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn minimal_cycle(root: &Path, dir: &str, id: &str, decision: &str, findings: &str, closed: &str) {
    write(
        root,
        &format!("{dir}/{AUDIT_RESULT}"),
        &format!(
            r#"{{"cycle_id": "{id}", "audited_commit": "abc", "decision": "{decision}", "findings": [{findings}], "verified_closed_findings": [{closed}]}}"#
        ),
    );
    write(
        root,
        &format!("{dir}/{RUN_METADATA}"),
        &format!(
            r#"{{"cycle_id": "{id}", "audited_commit": "abc", "runner": "codex-cli", "started_at": "2026-08-01T09:00:00Z", "completed_at": "2026-08-01T09:05:00Z"}}"#
        ),
    );
}

#[test]
fn projects_are_separate_ledgers_for_numbering_and_lifecycle() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let blocking =
        r#"{"finding_id": "F-001", "severity": "HIGH", "blocked_scopes": ["publish_claim"], "evidence": []}"#;
    minimal_cycle(root, "projects/a/cycles/CYCLE-000001", "CYCLE-000001", "BLOCK", blocking, "");
    minimal_cycle(root, "projects/a/cycles/CYCLE-000002", "CYCLE-000002", "PASS", "", r#""F-001""#);
    // Project b closes F-001, which only project a raised.
    minimal_cycle(root, "projects/b/cycles/CYCLE-000001", "CYCLE-000001", "PASS", "", r#""F-001""#);
    let ledger = load(root, None, Ctx::silent()).expect("loads");
    let labels: Vec<&str> = ledger.cycles.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        ["projects/a/cycles/CYCLE-000001", "projects/a/cycles/CYCLE-000002", "projects/b/cycles/CYCLE-000001"],
        "directory names repeat across projects, so subjects are paths"
    );
    let results = verify(&ledger);
    let outcome =
        |code: &str, subject: &str| results.iter().find(|r| r.code == code && r.subject == subject).map(|r| r.outcome);
    assert_eq!(outcome("CV-A011", "a"), Some(Outcome::Passed));
    assert_eq!(outcome("CV-A011", "b"), Some(Outcome::Passed));
    assert_eq!(outcome("CV-A013", "projects/a/cycles/CYCLE-000002"), Some(Outcome::Passed));
    assert_eq!(outcome("CV-A013", "projects/b/cycles/CYCLE-000001"), Some(Outcome::Failed));
    // No manifest: not hash-verifiable, and not a failure.
    assert_eq!(outcome("CV-A015", "projects/a/cycles/CYCLE-000001"), Some(Outcome::CantTell));
}

#[test]
fn nothing_shaped_like_a_ledger_is_an_error_and_a_revision_needs_a_repository() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(tmp.path(), "notes/readme.md", "hello");
    assert!(matches!(load(tmp.path(), None, Ctx::silent()), Err(LoadError::NoCycles(_))));
    assert!(matches!(load(tmp.path(), Some("HEAD"), Ctx::silent()), Err(LoadError::RevisionOnDirectory(_))));
    assert!(matches!(load(&tmp.path().join("absent"), None, Ctx::silent()), Err(LoadError::NotFound(_))));
}

#[test]
fn cycle_numbers() {
    assert_eq!(cycle_number("CYCLE-000004"), Some(4));
    assert_eq!(cycle_number("CYCLE-4"), Some(4));
    assert_eq!(cycle_number("CYCLE-x"), None);
    assert_eq!(cycle_number("CYCLE-"), None);
}

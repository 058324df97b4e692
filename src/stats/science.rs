//! Fix commits from the science repository's log (the mining script's step 5).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::figures::Science;
use crate::git::{self, Repo};

/// `F-<digits>` anywhere in a subject.
static FINDING_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"F-\d+").expect("the pattern is a valid literal regex"));

/// Whether a commit subject is a fix commit: it contains `audit CYCLE` (any case) or
/// `F-<digit>`.
#[must_use]
pub fn is_fix_subject(subject: &str) -> bool {
    subject.to_lowercase().contains("audit cycle") || FINDING_ID.is_match(subject)
}

/// Reads the fix commits of the science repository at `rev` (default `HEAD`).
///
/// The outer error means the repository or revision is unusable (could not run); the inner one
/// that the log is incomplete (a shallow clone or a missing commit), so the fix-commit figures
/// are not measured.
///
/// # Errors
/// The repository does not open or the revision does not resolve.
pub fn read(path: &Path, rev: Option<&str>) -> Result<Result<Science, String>, git::Error> {
    let repo = Repo::open(path)?;
    let tip = repo.resolve(rev.unwrap_or("HEAD"))?;
    if let Err(e) = repo.require_full_history() {
        return Ok(Err(format!("the science log is incomplete: {e}")));
    }
    let history = match repo.history(tip) {
        Ok(h) => h,
        Err(e) if e.is_evidence_gap() => return Ok(Err(format!("the science log is incomplete: {e}"))),
        Err(e) => return Err(e),
    };
    let mut fix_commits = 0;
    let mut by_finding: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // `git log` order: newest first.
    for c in history.iter().rev() {
        let subject = c.subject();
        if !is_fix_subject(subject) {
            continue;
        }
        fix_commits += 1;
        let prefix = c.id.to_string()[..12].to_owned();
        for m in FINDING_ID.find_iter(subject) {
            let list = by_finding.entry(m.as_str().to_owned()).or_default();
            if !list.contains(&prefix) {
                list.push(prefix.clone());
            }
        }
    }
    Ok(Ok(Science { commit: tip.to_string(), fix_commits, by_finding }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fix_subjects() {
        assert!(is_fix_subject("fix F-001 and F-004 (audit CYCLE-000001)"));
        assert!(is_fix_subject("Revise after Audit cycle 2"));
        assert!(is_fix_subject("F-9"));
        assert!(!is_fix_subject("refactor: F-x naming"));
        assert!(!is_fix_subject("add results"));
    }
}

//! Fix commits from a repository's log, as the protocol's [`FixRule`] recognises them.

use std::collections::BTreeMap;
use std::path::Path;

use super::figures::Science;
use super::model::FixRule;
use crate::git::{self, Repo};

/// Reads the fix commits of the science repository at `rev` (default `HEAD`): those `rule`
/// accepts (none without a rule), each credited to the findings its subject names.
///
/// The outer error means the repository or revision is unusable (could not run); the inner one
/// that the log is incomplete (a shallow clone or a missing commit), so the fix-commit figures
/// are not measured.
///
/// # Errors
/// The repository does not open or the revision does not resolve.
pub fn read(path: &Path, rev: Option<&str>, rule: Option<FixRule>) -> Result<Result<Science, String>, git::Error> {
    let repo = Repo::open(path)?;
    let tip = repo.resolve(rev.unwrap_or("HEAD"))?;
    if let Err(e) = repo.require_full_history() {
        return Ok(Err(format!("the science log is incomplete: {e}")));
    }
    let history = match repo.history_subjects(tip) {
        Ok(h) => h,
        Err(e) if e.is_evidence_gap() => return Ok(Err(format!("the science log is incomplete: {e}"))),
        Err(e) => return Err(e),
    };
    let mut fix_commits = 0;
    let mut by_finding: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // `git log` order: newest first.
    for c in history.iter().rev() {
        let subject = c.subject();
        let Some(rule) = rule.filter(|r| (r.is_fix)(subject)) else { continue };
        fix_commits += 1;
        let prefix = c.id.to_string()[..12].to_owned();
        for id in (rule.finding_ids)(subject) {
            let list = by_finding.entry(id).or_default();
            if !list.contains(&prefix) {
                list.push(prefix.clone());
            }
        }
    }
    Ok(Ok(Science { commit: tip.to_string(), fix_commits, by_finding }))
}

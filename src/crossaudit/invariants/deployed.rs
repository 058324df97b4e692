//! What the paper's invariants can and cannot show on a deployed `CYCLE-NNNNNN` ledger, which
//! has no receipts: severities (I6) and precedence (I4) from its results, append-only history
//! (I2) from git, and the rest named as not observable.

use crate::crossaudit::checks;
use crate::crossaudit::deployed::{self, DeployedLedger};
use crate::crossaudit::load;
use crate::crossaudit::model;
use crate::report::CheckResult;
use crate::report::Outcome as O;

/// The invariant checks a deployed ledger supports, in report order.
pub(crate) fn invariants(l: &DeployedLedger) -> Vec<CheckResult> {
    let mut results = Vec::new();
    for c in l.counted() {
        if let Some(r) = c.result.ok() {
            cycle_invariants(c.path.as_str(), r, &mut results);
        }
    }
    let why = [
        (
            &checks::VENDOR_HETEROGENEITY,
            "the deployment's configuration is not published: vendors cannot be compared (the paper states a Claude-based generator and an OpenAI-lineage auditor)",
        ),
        (
            &checks::CITATIONS_VALID,
            "the rulebook the findings cite (R-…, Gate n) is not published: citations cannot be checked",
        ),
        (
            &checks::ROUND_BOUND,
            "the deployed records carry no round or controller state: the revision bound cannot be replayed",
        ),
        (
            &checks::SUBJECT_BINDING,
            "the deployed format has no receipts: nothing binds a decision to the audited commit's files",
        ),
    ];
    for (c, w) in why {
        results.push(CheckResult::new(c, O::CantTell, "ledger", w));
    }
    results.push(CheckResult::new(
        &checks::ADMISSION_UNOBSERVABLE,
        O::CantTell,
        "ledger",
        "the deployment's controller state lives outside both repositories: admission cannot be observed",
    ));
    append_only(l, &mut results);
    results
}

/// CV-A201 from the git history of the ledger's `projects/` tree.
fn append_only(l: &DeployedLedger, results: &mut Vec<CheckResult>) {
    if let deployed::Origin::Git { repo, commit } = &l.origin {
        match crate::git::Repo::open(repo)
            .map_err(|e| e.to_string())
            .and_then(|r| load::history(&r, *commit, "projects", None))
        {
            Ok(h) if h.violations.is_empty() => results.push(CheckResult::new(
                &checks::LEDGER_APPEND_ONLY,
                O::Passed,
                "ledger",
                format!("{} ledger file(s), each added once and never changed", h.added.len()),
            )),
            Ok(h) => {
                for (path, first, then, what) in &h.violations {
                    results.push(CheckResult::new(
                        &checks::LEDGER_APPEND_ONLY,
                        O::Failed,
                        path,
                        format!(
                            "added in {}, {what} in {}",
                            model::short(&first.to_string()),
                            model::short(&then.to_string())
                        ),
                    ));
                }
            }
            Err(e) => results.push(CheckResult::new(
                &checks::LEDGER_APPEND_ONLY,
                O::CantTell,
                "ledger",
                format!("the audit history cannot be walked: {e}"),
            )),
        }
    } else {
        results.push(CheckResult::new(
            &checks::LEDGER_APPEND_ONLY,
            O::CantTell,
            "ledger",
            "a plain directory has no history: append-only cannot be checked (give the audit repository)",
        ));
    }
}

/// CV-A601 and CV-A401 on one cycle's recorded result.
fn cycle_invariants(subject: &str, r: &deployed::AuditResult, results: &mut Vec<CheckResult>) {
    let odd: std::collections::BTreeSet<&str> = r
        .findings
        .iter()
        .filter_map(|f| f.severity.as_deref())
        .filter(|s| *s != "BLOCKER" && *s != "ADVISORY")
        .collect();
    results.push(if odd.is_empty() {
        CheckResult::new(&checks::SEVERITY_LEVELS, O::Passed, subject, "findings use BLOCKER and ADVISORY only")
    } else {
        CheckResult::new(&checks::SEVERITY_LEVELS, O::Failed, subject, format!("severities outside the protocol's two levels: {} (the deployment's four-level ladder, a named divergence)", odd.into_iter().collect::<Vec<_>>().join(", ")))
    });
    let deterministic: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.typed_line("source:").is_some_and(|s| s.trim() == "DETERMINISTIC") && f.is_blocking())
        .map(|f| f.finding_id.as_str())
        .collect();
    results.push(if !deterministic.is_empty() && r.decision != "BLOCK" {
        CheckResult::new(
            &checks::DCL_DOMINATES,
            O::Failed,
            subject,
            format!("decision {} over deterministic blocking finding(s) {}", r.decision, deterministic.join(", ")),
        )
    } else if deterministic.is_empty() {
        CheckResult::new(&checks::DCL_DOMINATES, O::Passed, subject, "no deterministic blocking finding to outrank")
    } else {
        CheckResult::new(
            &checks::DCL_DOMINATES,
            O::Passed,
            subject,
            format!(
                "deterministic blocking finding(s) {} are not outranked (decision BLOCK)",
                deterministic.join(", ")
            ),
        )
    });
}

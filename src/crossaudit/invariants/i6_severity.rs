//! I6, severity: only BLOCKER findings gate, and only a ruling on a model finding may
//! withdraw one (`CV-A6xx`).

use std::collections::BTreeSet;

use crate::crossaudit::checks::*;
use crate::crossaudit::load::Ledger;
use crate::crossaudit::model::{ModelFinding, outcome, res};
use crate::json::Value;
use crate::report::{CheckResult, Outcome};

/// CV-A303, CV-A602 and CV-A601 on the recorded verdict and the findings' severities.
pub(crate) fn severities(
    verdict: &str,
    all_blockers: usize,
    findings: &[ModelFinding],
    dcl: Option<&crate::crossaudit::records::dcl::Output>,
    off_vocabulary: bool,
    subject: &str,
    out: &mut Vec<CheckResult>,
) {
    out.push(outcome(
        &PASS_WITH_BLOCKER,
        !(verdict == "PASS" && all_blockers > 0),
        subject,
        if verdict == "PASS" { "PASS carries no BLOCKER finding" } else { "not a PASS" },
        format!("verdict PASS while carrying {all_blockers} BLOCKER finding(s)"),
    ));
    let advisories = findings.iter().filter(|f| f.0 == "ADVISORY").count();
    out.push(outcome(
        &ADVISORY_NEVER_GATES,
        !(verdict == "BLOCKED" && all_blockers == 0),
        subject,
        if verdict == "BLOCKED" { "BLOCKED rests on a BLOCKER finding" } else { "not BLOCKED" },
        format!("verdict BLOCKED without any BLOCKER finding ({advisories} ADVISORY)"),
    ));
    let mut odd: Vec<String> = findings.iter().map(|f| f.0.clone()).collect();
    odd.extend(dcl.map(|d| d.findings.iter().map(|f| f.severity.clone()).collect::<Vec<_>>()).unwrap_or_default());
    odd.retain(|s| s != "BLOCKER" && s != "ADVISORY");
    odd.sort();
    odd.dedup();
    out.push(outcome(
        &SEVERITY_LEVELS,
        odd.is_empty(),
        subject,
        "findings use BLOCKER and ADVISORY only",
        format!(
            "severities outside the two levels: {}{}",
            odd.join(", "),
            if off_vocabulary {
                "; a reply grading a finding so is invalid (reply rule 6) and escalates: CV-A304 replays it"
            } else {
                ""
            }
        ),
    ));
}

/// CV-A603: every dispute ruling is well formed and about one model finding of its cycle.
pub(crate) fn disputes(ledger: &Ledger, out: &mut Vec<CheckResult>) {
    let subject = format!("{}/disputes.jsonl", ledger.ledger_dir);
    let lines = match &ledger.disputes {
        None => {
            out.push(res(&DISPUTES_VALID, Outcome::Inapplicable, &subject, "no disputes recorded"));
            return;
        }
        Some(Err(e)) => {
            out.push(res(&RECORD_PARSES, Outcome::Failed, &subject, e.clone()));
            out.push(res(&DISPUTES_VALID, Outcome::CantTell, &subject, "disputes.jsonl does not parse"));
            return;
        }
        Some(Ok(l)) => l,
    };
    let mut problems = Vec::new();
    let mut ruled = BTreeSet::new();
    for (n, d) in lines.iter().enumerate() {
        let line = n + 1;
        let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let (cycle, key, ruling) = (s("cycle_id"), s("finding_key"), s("ruling"));
        if ruling != "UPHELD" && ruling != "WITHDRAWN" {
            problems.push(format!("line {line}: ruling {ruling:?} is neither UPHELD nor WITHDRAWN"));
        }
        if s("grounds").trim().is_empty() {
            problems.push(format!("line {line}: a dispute without grounds"));
        }
        if !ruled.insert((cycle.clone(), key.clone())) {
            problems.push(format!("line {line}: second ruling on {key} in {cycle}"));
        }
        problems.extend(dispute_identity(ledger, d, line));
    }
    out.push(outcome(
        &DISPUTES_VALID,
        problems.is_empty(),
        &subject,
        format!(
            "{} ruling(s), one per finding, each about a model finding of its cycle (who lodged them is not recorded)",
            lines.len()
        ),
        problems.join("; "),
    ));
}

/// Every field naming the disputed finding must name the same one, and that one must be a
/// model finding the cycle's report raised exactly once: otherwise one field could withdraw
/// what another field does not show.
fn dispute_identity(ledger: &Ledger, d: &Value, line: usize) -> Vec<String> {
    let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let (cycle, key, rule, artifact) = (s("cycle_id"), s("finding_key"), s("rule"), s("artifact"));
    let mut p = Vec::new();
    let joined = format!("{rule}@{artifact}");
    if key != joined {
        p.push(format!(
            "line {line}: finding_key {key:?} is not rule@artifact {joined:?}: the fields name different findings"
        ));
    }
    if let Some(named) = [&key, &rule].into_iter().find(|x| x.starts_with("DCL:")) {
        p.push(format!("line {line}: {named} is a deterministic finding, which cannot be disputed"));
    }
    let Some(c) = ledger.cycles.iter().find(|c| c.name == cycle) else {
        p.push(format!("line {line}: cycle {cycle} is not a cycle directory of the ledger"));
        return p;
    };
    let Some((_, rep)) = &c.report else {
        p.push(format!("line {line}: {cycle} has no readable report, so no finding to dispute"));
        return p;
    };
    let same = |b: &&crate::crossaudit::records::report_md::Block| format!("{}@{}", b.rule, b.artifact) == key;
    let model = rep.model_findings.iter().filter(same).count();
    if rep.dcl_blocks.iter().any(|b| same(&b)) {
        p.push(format!("line {line}: {key} is a deterministic finding of {cycle}, which cannot be disputed"));
    } else if model == 0 && rep.invalid_reason.is_some() && rule == "CA-META-002" {
        p.push(format!(
            "line {line}: {cycle} records an invalid reply, not a finding: an invalid reply escalates (I3) and cannot be withdrawn"
        ));
    } else if model == 0 {
        p.push(format!("line {line}: {cycle}'s report has no finding {key}"));
    } else if model > 1 {
        p.push(format!("line {line}: {key} names {model} findings of {cycle}'s report: the ruling is ambiguous"));
    }
    p
}

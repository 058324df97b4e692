//! I4, precedence: no model may waive a scripted hard failure (`CV-A4xx`).

use crate::crossaudit::checks::*;
use crate::crossaudit::load::Cycle;
use crate::crossaudit::model::{outcome, res};
use crate::crossaudit::records::receipt::{Family, Receipt};
use crate::report::{CheckResult, Outcome};

/// CV-A402 and CV-A401: the deterministic layer's output is consistent with the report, and
/// the verdict does not outrank its hard failures. Returns the hard failures counted.
pub(crate) fn dcl_checks(
    r: &Receipt,
    cycle: &Cycle,
    report: Option<&crate::crossaudit::records::report_md::Report>,
    out: &mut Vec<CheckResult>,
) -> usize {
    let subject = cycle.path.as_str();
    let verdict = r.verdict.clone().unwrap_or_default();
    let dcl = cycle.dcl.as_ref().and_then(|d| d.as_ref().ok());
    let dcl_blockers = dcl.map(crate::crossaudit::records::dcl::Output::blockers);
    let report_dcl_blockers = report.map(|rep| rep.dcl_blocks.iter().filter(|b| b.severity == "BLOCKER").count());
    let blockers = dcl_blockers.unwrap_or(0).max(report_dcl_blockers.unwrap_or(0));
    let mut inconsistencies = dcl.map(crate::crossaudit::records::dcl::Output::inconsistencies).unwrap_or_default();
    if let (Some(d), Some(rep)) = (dcl, report) {
        if let Some(n) = rep.dcl_failures
            && n != d.total_hard_failures
        {
            inconsistencies.push(format!("report shows {n} hard failure(s), checks.json {}", d.total_hard_failures));
        }
        if rep.dcl_blocks.len() != d.findings.len() && r.family == Family::Schema2 {
            inconsistencies.push(format!(
                "report lists {} deterministic finding(s), checks.json {}",
                rep.dcl_blocks.len(),
                d.findings.len()
            ));
        }
        if let Some(embedded) = &rep.embedded_dcl {
            match crate::json::parse(embedded.as_bytes()) {
                Ok(v) => {
                    let file = cycle.dcl.as_ref().and_then(|x| x.as_ref().ok()).map(|_| ());
                    let _ = file;
                    if let Ok(parsed) = crate::crossaudit::records::dcl::parse(&v)
                        && parsed != *d
                    {
                        inconsistencies.push("the DCL output embedded in report.md differs from checks.json".into());
                    }
                }
                Err(e) => inconsistencies.push(format!("the DCL output embedded in report.md does not parse: {e}")),
            }
        }
    }
    if dcl.is_some() || report.is_some() {
        out.push(outcome(
            &DCL_CONSISTENT,
            inconsistencies.is_empty(),
            subject,
            "checks.json is consistent and agrees with the report",
            inconsistencies.join("; "),
        ));
    }
    if dcl.is_some() || report.is_some() {
        out.push(if blockers > 0 && (verdict == "PASS" || verdict == "DCL_ONLY") {
            res(
                &DCL_DOMINATES,
                Outcome::Failed,
                subject,
                format!("verdict {verdict} over {blockers} deterministic hard failure(s)"),
            )
        } else if blockers > 0 {
            res(
                &DCL_DOMINATES,
                Outcome::Passed,
                subject,
                format!("{blockers} deterministic hard failure(s) are not outranked (verdict {verdict})"),
            )
        } else {
            res(&DCL_DOMINATES, Outcome::Passed, subject, "no deterministic hard failure to outrank")
        });
    }

    blockers
}

//! I3, citations: a report citing no rules, or an unverifiable Constitution, never passes
//! (`CV-A3xx`).

use crate::crossaudit::checks::*;
use crate::crossaudit::model::{ModelFinding, outcome, res, short};
use crate::crossaudit::records::constitution::{Constitution, Severity};
use crate::crossaudit::records::receipt::{Family, Receipt};
use crate::report::{CheckResult, Outcome};

/// The model's findings and the rules it applied, from the recorded reply, else from the
/// report.
pub(crate) fn model_findings(
    raw_reply: Option<&crate::json::Value>,
    report: Option<&crate::crossaudit::records::report_md::Report>,
) -> (Vec<ModelFinding>, Option<Vec<String>>) {
    let mut findings: Vec<(String, String, String)> = Vec::new(); // severity, rule, observation
    let mut applied: Option<Vec<String>> = None;
    if let Some(reply) = raw_reply {
        for f in reply.get("findings").and_then(crate::json::Value::as_array).unwrap_or(&[]) {
            let s = |k: &str| f.get(k).and_then(crate::json::Value::as_str).unwrap_or("").to_owned();
            findings.push((s("severity"), s("rule"), s("observation")));
        }
        applied = reply
            .get("sections_applied")
            .and_then(crate::json::Value::as_array)
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect());
    } else if let Some(rep) = report {
        findings =
            rep.model_findings.iter().map(|b| (b.severity.clone(), b.rule.clone(), b.observation.clone())).collect();
        applied.clone_from(&rep.rules_applied);
    }
    (findings, applied)
}

/// CV-A301, CV-A302 and CV-A306 for a reply that was accepted as valid.
pub(crate) fn citations(
    con: Option<&Constitution>,
    applied: Option<&Vec<String>>,
    findings: &[ModelFinding],
    subject: &str,
    out: &mut Vec<CheckResult>,
) {
    match con {
        Some(con) => {
            let mut problems = Vec::new();
            match &applied {
                Some(a) if !a.is_empty() => {
                    let unknown: Vec<&String> = a.iter().filter(|id| !con.has(id)).collect();
                    if !unknown.is_empty() {
                        problems.push(format!("sections_applied cites rules not in the Constitution: {unknown:?}"));
                    }
                }
                Some(_) => problems.push("no sections_applied: report cites no rule coverage (CA-META-002)".into()),
                None => problems.push(
                    "the records keep no list of the rules applied (sections_applied / \"Rules applied\")".into(),
                ),
            }
            for (_, rule, _) in findings {
                if !con.has(rule) {
                    problems.push(format!("finding cites a rule not in the Constitution: {rule}"));
                }
            }
            out.push(outcome(
                &CITATIONS_VALID,
                problems.is_empty(),
                subject,
                format!(
                    "{} applied rule(s) and {} finding citation(s) exist in the Constitution in force",
                    applied.map_or(0, Vec::len),
                    findings.len()
                ),
                problems.join("; "),
            ));
            let bad: Vec<String> = findings
                .iter()
                .filter(|(s, rule, _)| {
                    s == "BLOCKER" && con.has(rule) && con.severity(rule) != Some(&Severity::Blocker)
                })
                .map(|(_, rule, _)| {
                    format!(
                        "{rule} ({})",
                        match con.severity(rule) {
                            Some(Severity::Advisory) => "ADVISORY".to_owned(),
                            Some(Severity::Other(s)) => s.clone(),
                            _ => "no severity".to_owned(),
                        }
                    )
                })
                .collect();
            out.push(outcome(
                &BLOCKER_CITES_BLOCKER,
                bad.is_empty(),
                subject,
                "every BLOCKER finding cites a BLOCKER-severity rule",
                format!("BLOCKER finding(s) citing a rule not declared BLOCKER: {}", bad.join(", ")),
            ));
        }
        None => {
            out.push(res(
                &CITATIONS_VALID,
                Outcome::CantTell,
                subject,
                "the Constitution version in force could not be read",
            ));
            out.push(res(
                &BLOCKER_CITES_BLOCKER,
                Outcome::CantTell,
                subject,
                "the Constitution version in force could not be read",
            ));
        }
    }
    let empty: Vec<&(String, String, String)> = findings.iter().filter(|f| f.2.trim().is_empty()).collect();
    out.push(outcome(
        &FINDING_EVIDENCED,
        empty.is_empty(),
        subject,
        "every model finding carries an observation",
        format!(
            "finding carries no observation: a citation without evidence ({})",
            empty.iter().map(|f| f.1.as_str()).collect::<Vec<_>>().join(", ")
        ),
    ));
}

/// CV-A305: the report cites the Constitution version the receipt binds.
pub(crate) fn constitution_cited(
    r: &Receipt,
    report: Option<&crate::crossaudit::records::report_md::Report>,
    subject: &str,
    out: &mut Vec<CheckResult>,
) {
    if let (Some(rep), Some(commit)) = (report, &r.constitution_commit) {
        let cited = rep.constitution.clone().unwrap_or_default();
        let ok = match r.family {
            Family::V1 => cited == *commit && rep.constitution_path.as_deref().is_none_or(|p| p == "AUDIT_RULES.md"),
            Family::Schema2 => cited.len() == 12 && commit.starts_with(&cited),
        };
        out.push(if commit == "unversioned" || commit.is_empty() {
            res(&CONSTITUTION_CITED, Outcome::Failed, subject, "the report cites an unversioned Constitution")
        } else if ok {
            res(
                &CONSTITUTION_CITED,
                Outcome::Passed,
                subject,
                format!("the report cites Constitution {}", short(commit)),
            )
        } else if cited.is_empty() {
            res(&CONSTITUTION_CITED, Outcome::Failed, subject, "the report cites no Constitution version")
        } else {
            res(
                &CONSTITUTION_CITED,
                Outcome::Failed,
                subject,
                format!("report cites constitution `{cited}`, receipt binds {}", short(commit)),
            )
        });
    }
}

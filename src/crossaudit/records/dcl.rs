//! Deterministic-check-layer output (`checks.json`), versions 1 (v1 reference), 2 (product
//! 2.x) and 3 (product 4.x) (formats note §5.2).

use crate::json::Value;

/// One deterministic finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `BLOCKER`, `ADVISORY` or whatever was written.
    pub severity: String,
    /// Rule (`CA-…`, `DCL:<check>` in version 3, `DCL-CRASH`).
    pub rule: String,
    /// Artifact (experiment directory in v1).
    pub artifact: String,
    /// Observation / message.
    pub observation: String,
    /// Check name, when recorded.
    pub check: Option<String>,
}

/// A parsed `checks.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// `crossaudit_dcl_version`.
    pub version: i64,
    /// `verdict` (`PASS` / `BLOCKED`).
    pub verdict: String,
    /// `total_hard_failures`.
    pub total_hard_failures: i64,
    /// Every finding, flattened (v1 `results[].findings[]`).
    pub findings: Vec<Finding>,
    /// Per-experiment `hard_failures` sums (v1 only), for the consistency check.
    pub per_result_hard_failures: Option<i64>,
}

impl Output {
    /// BLOCKER findings.
    #[must_use]
    pub fn blockers(&self) -> usize {
        self.findings.iter().filter(|f| f.severity == "BLOCKER").count()
    }

    /// Internal contradictions: verdict vs count vs findings.
    #[must_use]
    pub fn inconsistencies(&self) -> Vec<String> {
        let mut out = Vec::new();
        let blockers = i64::try_from(self.blockers()).unwrap_or(i64::MAX);
        if blockers != self.total_hard_failures {
            out.push(format!(
                "total_hard_failures is {} but {blockers} BLOCKER finding(s) are listed",
                self.total_hard_failures
            ));
        }
        if let Some(sum) = self.per_result_hard_failures.filter(|s| *s != self.total_hard_failures) {
            out.push(format!(
                "per-experiment hard_failures sum to {sum}, total_hard_failures says {}",
                self.total_hard_failures
            ));
        }
        let expected = if self.total_hard_failures > 0 { "BLOCKED" } else { "PASS" };
        if self.verdict != expected {
            out.push(format!(
                "verdict is {} with {} hard failure(s); the layer's own rule gives {expected}",
                self.verdict, self.total_hard_failures
            ));
        }
        out
    }
}

/// Parses a `checks.json` value.
///
/// # Errors
/// A message naming the first missing or mistyped field.
pub fn parse(v: &Value) -> Result<Output, String> {
    let version = v
        .get("crossaudit_dcl_version")
        .and_then(Value::as_i64)
        .ok_or("crossaudit_dcl_version missing or not an integer")?;
    let verdict = v.get("verdict").and_then(Value::as_str).ok_or("verdict missing or not a string")?.to_owned();
    let total_hard_failures =
        v.get("total_hard_failures").and_then(Value::as_i64).ok_or("total_hard_failures missing or not an integer")?;
    let text = |f: &Value, k: &str| f.get(k).and_then(Value::as_str).map(str::to_owned);
    let finding = |f: &Value, artifact: Option<&str>| -> Result<Finding, String> {
        Ok(Finding {
            severity: text(f, "severity").ok_or("a finding has no severity")?,
            rule: text(f, "rule").ok_or("a finding has no rule")?,
            artifact: text(f, "artifact").or_else(|| artifact.map(str::to_owned)).unwrap_or_default(),
            observation: text(f, "observation").or_else(|| text(f, "message")).unwrap_or_default(),
            check: text(f, "check"),
        })
    };
    let mut findings = Vec::new();
    let mut per_result = None;
    match version {
        1 => {
            let results =
                v.get("results").and_then(Value::as_array).ok_or("results missing or not a list (DCL version 1)")?;
            let mut sum = 0;
            for r in results {
                let exp = r.get("experiment").and_then(Value::as_str);
                sum += r.get("hard_failures").and_then(Value::as_i64).ok_or("a result has no integer hard_failures")?;
                for f in r.get("findings").and_then(Value::as_array).ok_or("a result has no findings list")? {
                    findings.push(finding(f, exp)?);
                }
            }
            per_result = Some(sum);
        }
        2 | 3 => {
            for f in v.get("findings").and_then(Value::as_array).ok_or("findings missing or not a list")? {
                findings.push(finding(f, None)?);
            }
        }
        other => return Err(format!("crossaudit_dcl_version {other} is not one of 1, 2, 3")),
    }
    Ok(Output { version, verdict, total_hard_failures, findings, per_result_hard_failures: per_result })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse as pj;

    #[test]
    fn versions() {
        let v1 = pj(br#"{"crossaudit_dcl_version":1,"verdict":"BLOCKED","total_hard_failures":1,"results":[{"experiment":"experiments/a","findings":[{"severity":"BLOCKER","rule":"CA-DATA-001","message":"no unit","check":"units"},{"severity":"ADVISORY","rule":"CA-REPRO-002","message":"m","check":"schema"}],"hard_failures":1}]}"#).unwrap();
        let o = parse(&v1).unwrap();
        assert_eq!((o.blockers(), o.findings[0].artifact.as_str()), (1, "experiments/a"));
        assert!(o.inconsistencies().is_empty());
        let v3 = pj(br#"{"crossaudit_dcl_version":3,"verdict":"PASS","total_hard_failures":1,"findings":[{"severity":"BLOCKER","rule":"DCL:units","artifact":"x","observation":"o","check":"units"}]}"#).unwrap();
        let o = parse(&v3).unwrap();
        assert_eq!(o.inconsistencies().len(), 1);
        assert!(
            parse(&pj(br#"{"crossaudit_dcl_version":9,"verdict":"PASS","total_hard_failures":0}"#).unwrap()).is_err()
        );
        assert!(parse(&pj(br#"{"crossaudit_dcl_version":2,"verdict":"PASS"}"#).unwrap()).is_err());
    }
}

//! JSON Lines: one record per result, then one summary record (Bowtie's trailing run record).
//!
//! Record shapes (each line is one compact JSON object; `record` comes first):
//! - `{"record":"result", "code", "level", "outcome", "subject", "message", "location"?, "evidence"}`:
//!   exactly a `results[]` entry of the JSON report;
//! - `{"record":"summary", "schemaVersion", "tool", "command", "inputs", "outcome", "exitCode",
//!   "summary", "stats", "auditOutcome"?}`: always last, so a reader that stops early knows it did not see it.
//!
//! Sections and views are not in the stream: `--format json` carries the whole report.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::report::{CheckResult, Report, Summary, Tool, Verdict};

#[derive(Serialize)]
struct ResultRecord<'a> {
    record: &'static str,
    #[serde(flatten)]
    result: &'a CheckResult,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SummaryRecord<'a> {
    record: &'static str,
    schema_version: u32,
    tool: &'a Tool,
    command: &'a str,
    inputs: &'a BTreeMap<String, Value>,
    outcome: Verdict,
    exit_code: u8,
    summary: &'a Summary,
    stats: &'a BTreeMap<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    audit_outcome: Option<&'a crate::report::AuditOutcome>,
}

pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    for r in &report.results {
        line(&mut out, &ResultRecord { record: "result", result: r });
    }
    line(
        &mut out,
        &SummaryRecord {
            record: "summary",
            schema_version: report.schema_version,
            tool: &report.tool,
            command: &report.command,
            inputs: &report.inputs,
            outcome: report.outcome,
            exit_code: report.exit_code(),
            summary: &report.summary,
            stats: &report.stats,
            audit_outcome: report.audit_outcome.as_ref(),
        },
    );
    out
}

fn line<T: Serialize>(out: &mut String, record: &T) {
    out.push_str(&serde_json::to_string(record).expect("records hold only JSON-safe values"));
    out.push('\n');
}

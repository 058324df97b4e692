//! The CrossAudit input kinds `stats` reports in `inputs.kind`, each declaring CrossAudit's
//! decisions (`BLOCK` when a finding blocks a scope, `PASS` whatever its findings), its
//! `CYCLE-NNNNNN` numbering, the words its views use (ledger positions, CYCLE numbers), the
//! mining script's fix commits and the mining and analysis scripts' two readings of a
//! verified-closed entry.

use crate::stats::model::{FixRule, Gate, InputKind, Numbering, Terms};

const fn crossaudit(id: &'static str, description: &'static str) -> InputKind {
    InputKind::new(id, description)
        .gate(Gate { exempt: Some("PASS"), blocked: Some("BLOCK") })
        .numbering(Numbering {
            name: |n| format!("CYCLE-{n:06}"),
            unnumbered: "some cycle ids carry no CYCLE-NNNNNN number",
        })
        .terms(Terms { order: "ledger", number: "CYCLE" })
        .fix_rule(FixRule { is_fix: super::rules::is_fix_subject, finding_ids: super::rules::fixed_findings })
        .second_reading(
            "verified-closed entries read differently by the mining script (leading F-<digits> of the text before ':') and the analysis script (first F-<digits> anywhere); the figures use the mining reading",
        )
}

/// A deployed ledger read from a plain directory.
pub const DEPLOYED_DIRECTORY: InputKind =
    crossaudit("deployed-ledger-directory", "a deployed CrossAudit ledger (plain directory)");
/// A deployed ledger read from git objects at a revision.
pub const DEPLOYED_GIT: InputKind =
    crossaudit("deployed-ledger-git", "a deployed CrossAudit ledger (git objects at a revision)");
/// Mined records: `cycles.jsonl` (+ `findings_lifecycle.json`, `summary.json`).
pub const MINED_RECORDS: InputKind = crossaudit("mined-records", "mined ledger records (cycles.jsonl)");
/// Analysis records: `cycles-b.json` (+ `analysis.json`).
pub const ANALYSIS_RECORDS: InputKind = crossaudit("analysis-records", "analysis records (cycles-b.json)");
/// A reference v1 ledger (receipts with `constitution_hash`).
pub const V1_LEDGER: InputKind = crossaudit("v1-ledger", "a reference v1 CrossAudit ledger");
/// A product receipt-schema-2 ledger.
pub const SCHEMA2_LEDGER: InputKind = crossaudit("schema2-ledger", "a receipt-schema-2 CrossAudit ledger");

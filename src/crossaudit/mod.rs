//! CrossAudit: verify every receipt of a published ledger, replay what is deterministic and
//! report conformance to the paper's invariants I1–I8.
//!
//! Three format families exist (formats note §1): the v1 reference, the product's receipt
//! schema 2, and the deployed `CYCLE-NNNNNN` ledger. [`ledger`] crawls a whole ledger;
//! [`receipt()`] is the CI gate for one receipt. Both build the same [`crate::report::Report`].
//! Where a reference implementation accepts something the paper forbids, crossverify
//! implements the paper and reproduces the reference's decision as a named dialect in the
//! evidence (`specs/crossaudit.md`).
//!
//! This file is the module's public surface; the commands live in `commands.rs`, the crawl
//! they share in `crawl.rs`, the per-cycle checks by invariant in `check_*.rs` (driven by `verify.rs`), the
//! cross-cycle replay in `replay.rs` and `rounds.rs`, and the conversion for `stats`
//! in `stats_input.rs`.

mod check_deployed;
mod check_format;
mod check_i1_vendors;
mod check_i2_history;
mod check_i3_citations;
mod check_i4_precedence;
mod check_i6_severity;
mod check_i7_binding;
mod check_i7_science;
mod check_i8_admission;
pub mod checks;
mod commands;
pub mod config;
pub mod constitution;
mod crawl;
pub mod dcl;
pub mod deployed;
mod derive;
mod lifecycle;
mod load;
pub mod mint;
pub mod receipt;
mod replay;
pub mod report_md;
mod rounds;
pub mod scope;
pub mod stats_input;
pub mod substitute;
pub mod synthesis;
mod verify;

use std::collections::BTreeMap;

use serde_json::{Value, json};

pub use check_i8_admission::Admission;
pub use commands::{ledger, lifecycle_records, receipt};
pub use load::{DialectChoice, Error, Options};
pub use replay::cycle_id_for;

use crate::checks::Check;
use crate::progress::Ctx;
use crate::report::{Chart, ChartKind, CheckResult, Outcome, Point, Report, Table, View};
use crawl::Run;

/// Checks owned by this module.
pub static CHECKS: &[&Check] = checks::CHECKS;

/// The invariants, with the guarantee each makes (paper Table 2).
pub const INVARIANTS: [(&str, &str); 8] = [
    ("I1", "the auditor never judges its own model family's output"),
    ("I2", "supervision history replayable from the repositories"),
    ("I3", "a report citing no rules, or an unverifiable Constitution, never passes"),
    ("I4", "no model may waive a scripted hard failure"),
    ("I5", "generator–auditor oscillation terminates"),
    ("I6", "only BLOCKER findings gate; humans are interrupted only by escalation"),
    ("I7", "a verdict binds commit, manifest and versions, or it is not a receipt"),
    ("I8", "no audit, no admission"),
];

fn inputs(report: &mut Report, opts: &Options, ledger: &load::Ledger) {
    report.input("audit", opts.audit.display().to_string());
    report.input("auditHead", ledger.audit_head.to_string());
    if let Some(r) = &opts.audit_rev {
        report.input("auditRev", r.clone());
    }
    report.input(
        "science",
        opts.science.as_ref().map_or(
            if ledger.local { "(the ledger repository: product local mode)".to_owned() } else { "(none)".to_owned() },
            |p| p.display().to_string(),
        ),
    );
    report.input(
        "dialect",
        format!("{}{}", ledger.family.as_str(), if opts.dialect == DialectChoice::Auto { " (detected)" } else { "" }),
    );
    report.input("ledgerDir", ledger.ledger_dir.clone());
    if let Some(h) = &opts.expect_audit_head {
        report.input("expectAuditHead", h.clone());
    }
    if let Some(s) = &opts.expect_sha {
        report.input("expectSha", s.clone());
    }
    if let Some(s) = &opts.expect_repo {
        report.input("expectRepo", s.clone());
    }
}

/// The I1–I8 × enforced / violated / not measured table over `results`.
#[must_use]
pub fn conformance(results: &[CheckResult]) -> Table {
    let mut rows = Vec::new();
    for (inv, guarantee) in INVARIANTS {
        let (mut ok, mut bad, mut unknown) = (0u64, 0u64, 0u64);
        for r in results {
            let Some(c) = crate::checks::find(&r.code) else { continue };
            if c.invariant != Some(inv) {
                continue;
            }
            match r.outcome {
                Outcome::Passed => ok += 1,
                Outcome::Failed if r.level == crate::report::Level::Info => {}
                Outcome::Failed => bad += 1,
                Outcome::CantTell | Outcome::Untested => unknown += 1,
                Outcome::Inapplicable => {}
            }
        }
        let status = if bad > 0 {
            "violated"
        } else if ok == 0 {
            "not measured"
        } else if unknown > 0 {
            "partly measured"
        } else {
            "enforced"
        };
        rows.push(vec![json!(inv), json!(guarantee), json!(ok), json!(bad), json!(unknown), json!(status)]);
    }
    Table {
        id: "conformance".into(),
        title: "Conformance to the invariants (results per invariant)".into(),
        columns: ["invariant", "guarantee", "enforced", "violated", "not measured", "status"].map(String::from).to_vec(),
        rows,
        note: Some("enforced = checks passed; violated = checks failed; not measured = evidence missing or unverifiable (cantTell/untested). Inapplicable checks are not counted.".into()),
        csv: false,
    }
}

/// "ready", "no: <first shortfall>" or "unknown: <what cannot be observed>" (its topic
/// only, e.g. "single use"; the `admissions` section has the sentence).
fn admission_cell(a: &Admission) -> String {
    if a.ready {
        "ready".to_owned()
    } else if let Some(s) = a.shortfalls.first() {
        format!("no: {s}")
    } else {
        let topic = a.unobservable.first().map_or("", |u| u.split(':').next().unwrap_or(u));
        format!("unknown: {topic}")
    }
}

fn views(report: &mut Report, run: &Run, admissions: &[Admission]) {
    report.views.push(View::Table(conformance(&report.results)));
    let mut failed_by_cycle: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &report.results {
        if r.outcome == Outcome::Failed && r.level != crate::report::Level::Info {
            *failed_by_cycle.entry(r.subject.split(' ').next().unwrap_or("")).or_default() += 1;
        }
    }
    let mut rows = Vec::new();
    let mut timeline = Vec::new();
    let mut bars = Vec::new();
    for (i, c) in run.ledger.cycles.iter().enumerate() {
        let f = &run.facts[i];
        let r = f.receipt.as_ref();
        let verdict = f.verdict.clone().unwrap_or_else(|| "(no receipt)".into());
        let findings =
            f.model_findings.len() + c.dcl.as_ref().and_then(|d| d.as_ref().ok()).map_or(0, |d| d.findings.len());
        rows.push(vec![
            json!(c.name),
            r.and_then(|r| r.sha.as_deref()).map_or(Value::Null, |s| json!(s)),
            f.round.map_or(Value::Null, |n| json!(n)),
            json!(verdict),
            f.integrity.as_deref().map_or(Value::Null, |s| json!(s)),
            json!(f.inputs.dcl_failures),
            json!(f.model_findings.len()),
            json!(failed_by_cycle.get(c.path.as_str()).copied().unwrap_or(0)),
            json!(admission_cell(&admissions[i])),
            c.added_in.map_or(Value::Null, |a| json!(a.0.to_string())),
        ]);
        #[allow(clippy::cast_precision_loss)]
        let count = r.map(|_| findings as f64);
        timeline.push(Point { label: c.name.clone(), value: count, category: Some(verdict) });
        bars.push(Point { label: c.name.clone(), value: count, category: None });
    }
    report.views.push(View::Table(Table {
        id: "cycles".into(),
        title: "Cycles (ledger order)".into(),
        columns: [
            "cycle",
            "commit",
            "round",
            "verdict",
            "integrity",
            "DCL failures",
            "model findings",
            "failed checks",
            "admission",
            "receipt added in",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        note: None,
        csv: true,
    }));
    report.views.push(View::Chart(Chart {
        id: "timeline".into(),
        title: "Cycles by verdict".into(),
        chart: ChartKind::Timeline,
        y_label: "findings".into(),
        points: timeline,
        note: None,
    }));
    report.views.push(View::Chart(Chart {
        id: "findings-per-cycle".into(),
        title: "Findings per cycle (deterministic + model)".into(),
        chart: ChartKind::Bars,
        y_label: "findings".into(),
        points: bars,
        note: Some("A cycle without a readable receipt is drawn as a gap (not measured).".into()),
    }));
}

fn stats(report: &mut Report, run: &Run) {
    let mut verdicts: BTreeMap<String, u64> = BTreeMap::new();
    for f in &run.facts {
        if let Some(v) = &f.verdict {
            *verdicts.entry(v.clone()).or_default() += 1;
        }
    }
    let receipts = run.facts.iter().filter(|f| f.receipt.is_some()).count();
    report.stats.insert("cycles".into(), json!(run.ledger.cycles.len()));
    report.stats.insert("receipts".into(), json!(receipts));
    report.stats.insert("verdicts".into(), json!(verdicts));
    report.stats.insert("blobsHashed".into(), json!(run.hash_stats.blobs_hashed));
    report.stats.insert("bytesHashed".into(), json!(run.hash_stats.bytes_hashed));
}

/// The description of the demo ledger that ships inside the binary.
pub const DEMO_SCENARIO: &str = include_str!("../../ledger-fixtures/demo.toml");

/// `crossverify demo`: builds the built-in demo ledger (with gix, no git CLI, no network) in a
/// temporary directory and verifies it like `crossverify ledger`.
///
/// # Errors
/// When the temporary directory cannot be written (exit 2).
pub fn demo(ctx: Ctx<'_>) -> Result<Report, Error> {
    let dir = tempfile::Builder::new()
        .prefix("crossverify-demo-")
        .tempdir()
        .map_err(|e| Error::Usage(format!("creating a temporary directory for the demo ledger: {e}")))?;
    mint::build(DEMO_SCENARIO, dir.path()).map_err(|e| Error::Usage(e.to_string()))?;
    let mut opts = Options::new(&dir.path().join("audit"));
    opts.science = Some(dir.path().join("science"));
    let mut report = ledger(&opts, ctx)?;
    report.command = "demo".into();
    // The ledger lives in a temporary directory; name it by what it is so output is stable.
    report.input("audit", "<built-in demo>/audit");
    report.input("science", "<built-in demo>/science");
    report.input("scenario", "ledger-fixtures/demo.toml");
    Ok(report)
}

//! v1 and schema-2 ledgers in the statistics record model: crawled and verified as by
//! `crossverify ledger`, then converted.
//!
//! These formats give findings no stable IDs and keep no verified-closed list, so the
//! conversion states its two readings: a finding's ID is its dispute key `<rule>@<artifact>`
//! (the product's own `finding_key`), and a finding listed in one round of a controller cycle
//! and absent from the next round of the same cycle counts as closed by that round's audit.

use std::collections::BTreeMap;

use crate::crossaudit::crawl::run::{run, wrong_science};
use crate::crossaudit::load::{Error, Ledger, Options};
use crate::crossaudit::model::CycleFacts;
use crate::crossaudit::records::receipt::Family;
use crate::progress::Ctx;
use crate::stats::model::{Closure, CycleRecord, FindingRecord, Group, Records};

fn iso(epoch: i64) -> Option<String> {
    // Days from the civil calendar (Howard Hinnant's algorithm), so no clock is consulted.
    let days = epoch.div_euclid(86_400);
    let secs = epoch.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    Some(format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60))
}

/// The statistics records of a v1 or schema-2 ledger (`crossverify stats` on such a ledger):
/// the ledger is crawled and verified as by `crossverify ledger`, then converted (this file
/// states the two readings the conversion makes).
///
/// # Errors
/// As `crossverify ledger`.
pub fn lifecycle_records(opts: &Options, ctx: Ctx<'_>) -> Result<(Records, Checked), Error> {
    let anchor = opts.sigstore.load().map_err(Error::Usage)?;
    let run = run(opts, ctx)?;
    wrong_science(opts, &run)?;
    // What `ledger` decides: the crawl's results and the Sigstore bundles' beside them.
    let sigstore = crate::crossaudit::invariants::sigstore::results(&run.ledger, run.ledger.cycles.iter(), &anchor);
    let errors = || run.results.iter().chain(&sigstore).filter(|r| r.level == crate::report::Level::Error);
    let checked = Checked {
        failed: errors().filter(|r| r.outcome == crate::report::Outcome::Failed).count(),
        undecided: errors()
            .filter(|r| matches!(r.outcome, crate::report::Outcome::CantTell | crate::report::Outcome::Untested))
            .count(),
    };
    Ok((records(&run.ledger, &run.facts), checked))
}

/// What the crawl behind the figures decided of the ledger, as `crossverify ledger` reports
/// it: the error-level results that failed and those it could not decide.
#[derive(Debug, Clone, Copy)]
pub struct Checked {
    /// Error-level results that failed.
    pub failed: usize,
    /// Error-level results that are `cantTell` or `untested`.
    pub undecided: usize,
}

/// One finding keyed `<rule>@<artifact>`, labelled with where it came from.
fn finding(rule: &str, artifact: &str, severity: &str, source: &str) -> FindingRecord {
    FindingRecord {
        id: format!("{rule}@{artifact}"),
        severity: Some(severity.to_owned()),
        scopes: None,
        source: Some(source.to_owned()),
        finding_class: None,
        rules: vec![rule.to_owned()],
        title_sha16: None,
    }
}

/// Converts a verified ledger into statistics records.
pub(crate) fn records(ledger: &Ledger, facts: &[CycleFacts]) -> Records {
    let kind = match ledger.family {
        Family::V1 => super::kind::V1_LEDGER,
        Family::Schema2 => super::kind::SCHEMA2_LEDGER,
    };
    let mut r = Records::new(kind);
    // Findings of the previous round, per controller cycle, to infer closures.
    let mut previous: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (c, f) in ledger.cycles.iter().zip(facts) {
        let receipt = f.receipt.as_ref();
        let mut findings = Vec::new();
        if let Some(Ok(d)) = &c.dcl {
            findings.extend(d.findings.iter().map(|x| finding(&x.rule, &x.artifact, &x.severity, "DETERMINISTIC")));
        }
        if let Some((_, rep)) = &c.report {
            findings.extend(rep.model_findings.iter().map(|b| finding(&b.rule, &b.artifact, &b.severity, "JUDGMENT")));
        }
        let ids: Vec<String> = findings.iter().map(|x| x.id.clone()).collect();
        let closed = f.cycle_id.as_ref().map(|cid| {
            let before = previous.insert(cid.clone(), ids.clone()).unwrap_or_default();
            before.iter().filter(|id| !ids.contains(id)).map(|id| Closure::plain(id)).collect()
        });
        let started = c
            .exchange
            .as_ref()
            .and_then(|e| e.as_ref().ok())
            .and_then(|e| e.get("started_at"))
            .and_then(crate::json::Value::as_i64)
            .and_then(iso);
        r.cycles.push(CycleRecord {
            id: c.name.clone(),
            number: None,
            audited_commit: receipt.and_then(|x| x.sha.clone()),
            decision: f.verdict.clone(),
            model: receipt.and_then(|x| x.auditor_model.clone()),
            started_at: started,
            completed_at: None,
            findings: receipt.map(|_| findings),
            verified_closed: closed,
        });
    }
    r.cannot_measure(&[Group::Durations], "v1 and schema-2 ledgers record no audit completion time");
    r.cannot_measure(&[Group::CycleNumbers], "cycle directories of v1 and schema-2 ledgers carry no cycle number");
    r.cannot_measure(
        &[Group::Scopes],
        "v1 and schema-2 findings gate the increment as a whole: there are no blocked scopes",
    );
    r.caveat("closed", "inferred: a finding listed in one round of a controller cycle and absent from the next round of the same cycle; finding IDs are `<rule>@<artifact>`");
    r
}

//! The CrossAudit report views: the conformance matrix, the cycles table and charts, the
//! admission table. The words they write and how those words read are declared with the
//! family (`checks::FAMILY`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::crossaudit::invariants::i8_admission::Admission;

use crate::crossaudit::checks::{CHECKS, INVARIANTS};

use crate::crossaudit::crawl::run::Run;
use crate::report::{
    AuditOutcome, Chart, ChartKind, CheckResult, Outcome, OutcomePart, Point, Report, Table, Tone, View,
};

/// The I1–I8 × enforced / violated / not measured table over `results`.
#[must_use]
pub fn conformance(results: &[CheckResult]) -> Table {
    // Each result's invariant, looked up once per result (the first check registered under a
    // code decides, as a scan of the registry would).
    let mut group: std::collections::HashMap<&str, Option<&str>> = std::collections::HashMap::new();
    for c in CHECKS.iter().chain(crate::crossaudit::deployed::CHECKS) {
        group.entry(c.code).or_insert(c.group);
    }
    let mut counts: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
    for r in results {
        let Some(Some(inv)) = group.get(r.code.as_str()) else { continue };
        let (ok, bad, unknown) = counts.entry(inv).or_default();
        match r.outcome {
            Outcome::Passed => *ok += 1,
            Outcome::Failed if r.level == crate::report::Level::Info => {}
            Outcome::Failed => *bad += 1,
            Outcome::CantTell | Outcome::Untested => *unknown += 1,
            Outcome::Inapplicable => {}
        }
    }
    let mut rows = Vec::new();
    for (inv, guarantee) in INVARIANTS {
        let (ok, bad, unknown) = counts.get(inv).copied().unwrap_or_default();
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

/// "ready", "no: <first shortfall> (+N more)" or "unknown: <what cannot be observed>" (its topic
/// only, e.g. "single use"; the `admissions` section has the sentence).
fn admission_cell(a: &Admission) -> String {
    if a.ready {
        "ready".to_owned()
    } else if let Some(s) = a.shortfalls.first() {
        // The first reason, and how many more the admission section lists.
        match a.shortfalls.len() - 1 {
            0 => format!("no: {s}"),
            more => format!("no: {s} (+{more} more)"),
        }
    } else {
        let topic = a.unobservable.first().map_or("", |u| u.split(':').next().unwrap_or(u));
        format!("unknown: {topic}")
    }
}

pub(crate) fn cycles(report: &mut Report, run: &Run, admissions: &[Admission]) {
    report.audit_outcome = Some(audit_outcome(run, admissions));
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
        x_label: "cycle".into(),
        category_label: "decision".into(),
        points: timeline,
        note: None,
    }));
    report.views.push(View::Chart(Chart {
        id: "findings-per-cycle".into(),
        title: "Findings per cycle (deterministic + model)".into(),
        chart: ChartKind::Bars,
        y_label: "findings".into(),
        x_label: "cycle".into(),
        category_label: String::new(),
        points: bars,
        note: Some("A cycle without a readable receipt is drawn as a gap (not measured).".into()),
    }));
}

/// What the ledger decided about the work: the latest verdict of each audited commit (a
/// commit re-audited after a BLOCK counts once, by its last round) and how many of those
/// latest receipts are admissible now. The integrity verdict says only that the records are
/// genuine; an all-BLOCKED ledger is genuine and its work did not pass.
fn audit_outcome(run: &Run, admissions: &[Admission]) -> AuditOutcome {
    let mut latest: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (c, f)) in run.ledger.cycles.iter().zip(&run.facts).enumerate() {
        let key = f.receipt.as_ref().and_then(|r| r.sha.clone()).unwrap_or_else(|| format!("cycle {}", c.name));
        latest.insert(key, i);
    }
    let (mut admissible, mut undecidable) = (0u64, 0u64);
    for &i in latest.values() {
        match admissions.get(i) {
            Some(a) if a.ready => admissible += 1,
            Some(a) if a.shortfalls.is_empty() => undecidable += 1,
            _ => {}
        }
    }
    let total = latest.len() as u64;
    let (denied, undecided) = (total - admissible - undecidable, undecidable);
    let mut said: Vec<String> = Vec::new();
    for (n, what) in [(admissible, "admissible"), (denied, "not admissible"), (undecided, "admission not observable")] {
        if n > 0 {
            said.push(format!("{n} {what}"));
        }
    }
    let decision = OutcomePart {
        label: if said.is_empty() { "nothing to admit".to_owned() } else { said.join(", ") },
        count: None,
        tone: ladder(denied > 0, admissible, total),
    };
    let verdicts = latest.values().map(|&i| run.facts[i].verdict.as_deref());
    outcome_of(verdicts, "without a readable receipt", Some(decision))
}

/// The audit outcome of a deployed `CYCLE-NNNNNN` ledger: the latest decision of each audited
/// commit of each project. The deployment publishes no receipts, so admission is not decided.
pub(crate) fn deployed_outcome(l: &crate::crossaudit::deployed::DeployedLedger) -> AuditOutcome {
    let mut latest: BTreeMap<(Option<String>, String), Option<&str>> = BTreeMap::new();
    for c in &l.cycles {
        let result = c.result.ok();
        let commit = result.and_then(|r| r.audited_commit.clone()).unwrap_or_else(|| format!("cycle {}", c.dir));
        latest.insert((c.project.clone(), commit), result.map(|r| r.decision.as_str()));
    }
    let decision = OutcomePart {
        label: "admission not published by this ledger format".to_owned(),
        count: None,
        tone: Tone::Neutral,
    };
    outcome_of(latest.into_values(), "without a readable audit_result.json", Some(decision))
}

/// Counts latest verdicts into an outcome: passed, blocked and escalated always shown (a zero
/// in a neutral tone), any other verdict word and the unreadable ones only when present.
fn outcome_of<'a>(
    verdicts: impl Iterator<Item = Option<&'a str>>,
    unreadable: &str,
    decision: Option<OutcomePart>,
) -> AuditOutcome {
    let (mut passed, mut caveats, mut blocked, mut escalated, mut unaudited, mut total) = (0u64, 0, 0, 0, 0, 0);
    let mut other: BTreeMap<String, u64> = BTreeMap::new();
    for v in verdicts {
        total += 1;
        match v {
            Some("PASS") => passed += 1,
            Some("PASS_WITH_CAVEATS") => caveats += 1,
            Some("BLOCK" | "BLOCKED") => blocked += 1,
            Some("ESCALATE") => escalated += 1,
            Some(v) => *other.entry(v.to_owned()).or_default() += 1,
            None => unaudited += 1,
        }
    }
    let part = |label: &str, count: u64, tone: Tone| OutcomePart { label: label.to_owned(), count: Some(count), tone };
    let quiet = |n: u64, tone: Tone| if n == 0 { Tone::Neutral } else { tone };
    let mut parts = vec![part("passed audit", passed, quiet(passed, Tone::Good))];
    if caveats > 0 {
        parts.push(part("passed with caveats", caveats, Tone::Unknown));
    }
    parts.push(part("blocked", blocked, quiet(blocked, Tone::Bad)));
    parts.push(part("escalated", escalated, quiet(escalated, Tone::Bad)));
    for (v, n) in &other {
        parts.push(part(v, *n, Tone::Unknown));
    }
    if unaudited > 0 {
        parts.push(part(unreadable, unaudited, Tone::Unknown));
    }
    let tone = ladder(blocked + escalated > 0, passed, total);
    AuditOutcome {
        basis: format!("latest verdict of each of {total} audited commit{}", if total == 1 { "" } else { "s" }),
        parts,
        decision,
        tone,
        decided_by: Vec::new(),
    }
}

/// Bad when anything was stopped; good only when all `total` are `good`; neutral when there is
/// nothing; unknown otherwise.
fn ladder(stopped: bool, good: u64, total: u64) -> Tone {
    if stopped {
        Tone::Bad
    } else if total > 0 && good == total {
        Tone::Good
    } else if total == 0 {
        Tone::Neutral
    } else {
        Tone::Unknown
    }
}

/// The one-row admission table of `crossverify receipt`.
pub(crate) fn admission(a: &Admission) -> View {
    View::Table(Table {
        id: "admission".into(),
        title: "Admission".into(),
        columns: vec!["ready".into(), "tier".into(), "reason".into()],
        rows: vec![vec![json!(if a.ready { "yes" } else { "no" }), json!(a.tier), json!(a.reason)]],
        note: (!a.shortfalls.is_empty() || !a.unobservable.is_empty()).then(|| {
            let mut all = a.shortfalls.clone();
            all.extend(a.unobservable.iter().map(|u| format!("not observable: {u}")));
            all.join("; ")
        }),
        csv: false,
    })
}

/// The admission decision under the verdict of `crossverify receipt`'s page; `decided_by` is
/// the code of the check that carries it into the verdict.
pub(crate) fn headline(report: &mut Report, a: &Admission, decided_by: &str) {
    let (decision, tone) = if a.ready {
        ("ready to admit", Tone::Good)
    } else if a.shortfalls.is_empty() {
        ("admission not observable", Tone::Unknown)
    } else {
        ("not admissible", Tone::Bad)
    };
    let text = if a.reason.is_empty() { decision.to_owned() } else { format!("{decision} · {}", a.reason) };
    report.hints.headline = Some(("Admission".to_owned(), text));
    // The receipt's audit outcome is its admission: the verdict banner only says it is genuine,
    // and the admission check (error level under --admit) is the decision, never a forgery.
    report.audit_outcome = Some(AuditOutcome {
        basis: "this receipt".to_owned(),
        parts: Vec::new(),
        decision: Some(OutcomePart { label: decision.to_owned(), count: None, tone }),
        tone,
        decided_by: vec![decided_by.to_owned()],
    });
}

//! One report for the whole submission: every record's results (their subjects prefixed with
//! the record's name), a `CV-N001` result per record saying whether it was verified, what was
//! received with its digests and commits, and each record's verdict and audit outcome.

use serde_json::{Value, json};

use super::checks::{RECORD_VERIFIED, REPOSITORY_VERIFIED, TRUST_ANCHORS_GIVEN};
use super::records::{Anchors, Record};
use crate::intake::Intake;
use crate::report::{CheckResult, Outcome, Report, Table, View};

/// The command name of a submission's report.
pub const COMMAND: &str = "submission";

/// Builds the report of `records` found in `intake`.
#[must_use]
pub fn build(intake: &Intake, records: &[Record], verified_at: &str, extra_inputs: &[(&str, Value)]) -> Report {
    let mut report = Report::new(COMMAND);
    report.input("verifiedAt", verified_at);
    for (k, v) in extra_inputs {
        report.input(k, v.clone());
    }
    // Each repository's HEAD, resolved once for the section, the table and CV-N002.
    let heads: Vec<Option<String>> = intake.repos.iter().map(|r| head_of(&r.path)).collect();
    report.section("received", received(intake, &heads));
    let mut rows = Vec::new();
    let mut listed = Vec::new();
    for r in records {
        let (result, row, entry) = one(r, intake);
        report.results.push(result);
        report.results.extend(anchors(r));
        rows.push(row);
        listed.push(entry);
        if let Some(sub) = &r.report {
            merge(&mut report, r, sub, intake);
        }
    }
    report.results.extend(repositories(intake, records, &heads));
    report.section("records", Value::Array(listed));
    report.views.insert(0, View::Table(records_table(rows)));
    report.views.insert(1, View::Table(received_table(intake, &heads)));
    report.finish();
    report
}

/// The `received` section: each input and what it held.
fn received(intake: &Intake, heads: &[Option<String>]) -> Value {
    let repos: Vec<Value> =
        intake.repos.iter().zip(heads).map(|(r, h)| json!({"repository": r.shown, "head": h})).collect();
    let items: Vec<Value> = intake
        .received
        .iter()
        .map(|r| json!({"name": r.shown, "kind": r.kind, "sha256": r.sha256, "members": r.entries, "bytes": r.bytes}))
        .collect();
    json!({"items": items, "repositories": repos})
}

/// The commit `HEAD` names in the repository at `path`, when it resolves.
#[must_use]
pub fn head_of(path: &std::path::Path) -> Option<String> {
    let repo = crate::git::Repo::open(path).ok()?;
    repo.resolve("HEAD").ok().map(|c| c.to_string())
}

/// A record's `CV-N003` result, when its command used a trust store.
fn anchors(r: &Record) -> Option<CheckResult> {
    let (outcome, message) = match r.anchors.as_ref()? {
        Anchors::Journal(store) => (Outcome::Passed, format!("signatures verified against the journal's {store}")),
        Anchors::SelfDeclared { store, accepted: true } => (
            Outcome::Passed,
            format!(
                "signatures verified against {store}, which the submission declares itself; accepted by the \
                 journal's --accept-self-declared-keys"
            ),
        ),
        Anchors::SelfDeclared { store, accepted: false } => (
            Outcome::CantTell,
            format!(
                "signatures verified only against {store}, which the submission declares itself; pass \
                 --trust-store FILE (the journal's anchors) or --accept-self-declared-keys"
            ),
        ),
    };
    Some(CheckResult::new(&TRUST_ANCHORS_GIVEN, outcome, &r.name, message))
}

/// One `CV-N002` result per repository: a record lies in it or was paired with it, or why
/// it was not verified.
fn repositories(intake: &Intake, records: &[Record], heads: &[Option<String>]) -> Vec<CheckResult> {
    use std::collections::BTreeMap;
    // Worked out once, so that the result is linear in repositories and records.
    let by_path: BTreeMap<&std::path::Path, &str> =
        intake.repos.iter().map(|r| (r.path.as_path(), r.shown.as_str())).collect();
    let mut inside: BTreeMap<&str, &Record> = BTreeMap::new();
    let mut paired: BTreeMap<&str, &Record> = BTreeMap::new();
    let mut passed_over: BTreeMap<&str, &Record> = BTreeMap::new();
    let mut ran_heads: BTreeMap<&str, &Record> = BTreeMap::new();
    for r in records {
        // The deepest repository holding a record is the one it lies in.
        if let Some(owner) = r.path.ancestors().find_map(|a| by_path.get(a)) {
            inside.entry(owner).or_insert(r);
        }
        for p in &r.paired {
            paired.entry(p.as_str()).or_insert(r);
        }
        // A repository holding commits a record binds is a plausible partner of it: verified
        // with another one, the record says nothing about this one, whatever else lies in it.
        for h in &r.holders {
            passed_over.entry(h.as_str()).or_insert(r);
        }
        for h in &r.ran_heads {
            ran_heads.entry(h.as_str()).or_insert(r);
        }
    }
    let mut out = Vec::new();
    for (repo, head) in intake.repos.iter().zip(heads) {
        let shown = repo.shown.as_str();
        let same_history = head.as_deref().and_then(|h| ran_heads.get(h));
        let (outcome, message) = match (head.as_deref(), inside.get(shown), paired.get(shown)) {
            // A record ran with it: verified as far as that record binds it, whatever its HEAD.
            (_, _, Some(r)) => (Outcome::Passed, format!("paired with the record {}", r.name)),
            (None, _, _) => (Outcome::CantTell, "a git repository whose HEAD does not resolve to a commit".to_owned()),
            (Some(h), _, None) if same_history.is_some() => {
                let r = same_history.expect("checked");
                (Outcome::Passed, format!("at the HEAD {h} of a repository the record {} was verified with", r.name))
            }
            (Some(_), _, None) if passed_over.contains_key(shown) => {
                let r = passed_over[shown];
                (
                    Outcome::CantTell,
                    format!(
                        "holds commits that the record {} binds, but it was verified with {}, not with this repository",
                        r.name,
                        if r.paired.is_empty() { "no repository".to_owned() } else { r.paired.join(", ") }
                    ),
                )
            }
            (Some(_), Some(r), None) => (Outcome::Passed, format!("holds the record {}", r.name)),
            (Some(_), None, None) => (
                Outcome::CantTell,
                "a git repository in which no record of any protocol was found, and with which no record was paired"
                    .to_owned(),
            ),
        };
        out.push(CheckResult::new(&REPOSITORY_VERIFIED, outcome, &repo.shown, message));
    }
    out
}

/// A record's `CV-N001` result, its row and its entry in the `records` section.
fn one(r: &Record, intake: &Intake) -> (CheckResult, Vec<Value>, Value) {
    let (outcome, message) = match (&r.report, &r.unverified) {
        (Some(sub), _) => {
            (Outcome::Passed, format!("{}: verified by `{}` ({})", r.what, r.command, sub.outcome.as_str()))
        }
        (None, why) => (Outcome::CantTell, format!("{}: {}", r.what, why.as_deref().unwrap_or("not verified"))),
    };
    let result = CheckResult::new(&RECORD_VERIFIED, outcome, &r.name, message).with("command", r.command.clone());
    let verdict = r.report.as_ref().map_or("not verified", |s| s.outcome.as_str());
    let audit = r.report.as_ref().and_then(|s| s.audit_outcome.as_ref()).map(|a| {
        let parts: Vec<String> = a.parts.iter().map(crate::report::OutcomePart::text).collect();
        format!("{}: {}", a.basis, parts.join(", "))
    });
    let row = vec![
        r.name.clone().into(),
        r.what.clone().into(),
        r.paired.join(", ").into(),
        verdict.into(),
        audit.clone().map_or(Value::Null, Value::from),
        r.unverified.clone().map_or_else(|| r.command.clone().into(), |w| intake.shown_text(&w).into()),
    ];
    let entry = json!({
        "record": r.name,
        "what": r.what,
        "command": r.command,
        "pairedWith": r.paired,
        "outcome": r.report.as_ref().map(|s| s.outcome.as_str()),
        "exitCode": r.report.as_ref().map(Report::exit_code),
        "auditOutcome": r.report.as_ref().and_then(|s| s.audit_outcome.clone()),
        "summary": r.report.as_ref().map(|s| s.summary.clone()),
        "reason": r.report.as_ref().and_then(|s| s.reason.clone()),
        "unverified": r.unverified,
        "trustAnchors": r.anchors.as_ref().map(|a| match a {
            Anchors::Journal(_) => "journal",
            Anchors::SelfDeclared { accepted: true, .. } => "self-declared, accepted",
            Anchors::SelfDeclared { accepted: false, .. } => "self-declared",
        }),
    });
    (result, row, entry)
}

/// Puts a record's report into the submission's: results (subjects prefixed with the record's
/// name), figures under the record's name, views with prefixed ids; work paths renamed.
fn merge(report: &mut Report, r: &Record, sub: &Report, intake: &Intake) {
    let text = serde_json::to_string(sub).expect("a report always serialises");
    let renamed: Report = serde_json::from_str(&intake.shown_text(&text)).unwrap_or_else(|_| sub.clone());
    for mut res in renamed.results {
        res.subject = format!("{}: {}", r.name, res.subject);
        report.results.push(res);
    }
    if !renamed.stats.is_empty() {
        report.stats.insert(r.name.clone(), Value::Object(renamed.stats.into_iter().collect()));
    }
    for mut v in renamed.views {
        match &mut v {
            View::Table(t) => {
                t.id = format!("{}/{}", r.name, t.id);
                t.title = format!("{}: {}", r.name, t.title);
            }
            View::Chart(c) => {
                c.id = format!("{}/{}", r.name, c.id);
                c.title = format!("{}: {}", r.name, c.title);
            }
        }
        report.views.push(v);
    }
}

fn records_table(rows: Vec<Vec<Value>>) -> Table {
    Table {
        id: "submission-records".into(),
        title: "Records found in the submission".into(),
        columns: ["record", "what", "paired with", "verdict", "audit outcome", "command, or why not verified"]
            .map(String::from)
            .to_vec(),
        rows,
        note: Some("Each record is verified by its own protocol's command; CV-N001 says which could not be.".into()),
        csv: true,
    }
}

fn received_table(intake: &Intake, heads: &[Option<String>]) -> Table {
    let mut rows: Vec<Vec<Value>> = intake
        .received
        .iter()
        .map(|r| vec![r.shown.clone().into(), r.kind.clone().into(), r.sha256.clone().map_or(Value::Null, Value::from)])
        .collect();
    rows.extend(intake.repos.iter().zip(heads).map(|(r, h)| {
        vec![r.shown.clone().into(), "git repository".into(), h.clone().map_or(Value::Null, Value::from)]
    }));
    Table {
        id: "submission-received".into(),
        title: "What was received".into(),
        columns: ["name", "kind", "SHA-256, or HEAD commit"].map(String::from).to_vec(),
        rows,
        note: None,
        csv: true,
    }
}

//! Published summaries and finding lifecycles, in the forms their protocol declares
//! ([`Form`]), checked against the recomputation from the records beside them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::checks::{LIFECYCLE, NOT_CHECKABLE, PUBLISHED};
use super::compare::{Keys, Stated, differences, show};
use super::figures::{Figures, Science};
use super::input::{Field, Published};
use crate::report::{CheckResult, Outcome};

/// A field the inputs given cannot check: info level, never a reason for an inconclusive run.
fn not_checkable(subject: &str, why: &str) -> CheckResult {
    CheckResult::new(&NOT_CHECKABLE, Outcome::CantTell, subject, format!("not checkable from these inputs: {why}"))
}

/// Checks one published summary object, whose fields `lookup` maps onto figures, against
/// `figs`. `basis` names the records the figures came from, for messages.
#[must_use]
pub(super) fn check_summary(
    p: &Published,
    lookup: fn(&str) -> Option<Field>,
    figs: &Figures,
    basis: &str,
    science_given: bool,
) -> Vec<CheckResult> {
    let Some(fields) = p.value.as_object() else {
        return vec![CheckResult::new(
            &PUBLISHED,
            Outcome::Failed,
            p.name,
            format!("a {}, expected an object of figures", p.value.type_name()),
        )];
    };
    let mut out = Vec::new();
    for (key, value) in fields {
        let subject = format!("{} {key}", p.name);
        let stated = Stated::from_json(value);
        let base = |outcome, msg: String| {
            CheckResult::new(&PUBLISHED, outcome, &subject, msg).with("published", stated.to_json())
        };
        let map = lookup(key);
        let (figure, got, keys) = match map {
            None => {
                out.push(base(
                    Outcome::CantTell,
                    format!("{key} is not a field crossverify knows how to recompute from {basis}"),
                ));
                continue;
            }
            Some(Field::Never(reason)) => {
                out.push(not_checkable(&subject, reason).with("published", stated.to_json()));
                continue;
            }
            Some(Field::KeysOf(f)) => {
                let got = match figs.get(f) {
                    Value::Object(m) => json!(m.keys().collect::<Vec<_>>()),
                    _ => Value::Null,
                };
                (f, got, Keys::Exact)
            }
            Some(Field::Figure(f, keys)) => (f, figs.get(f).clone(), keys),
        };
        if figure == "science_fix_commits" {
            if !science_given {
                out.push(not_checkable(&subject, p.form.needs_science).with("published", stated.to_json()));
                continue;
            }
            out.push(CheckResult::new(
                &NOT_CHECKABLE,
                Outcome::Passed,
                &subject,
                "checkable: the science repository was given; CV-S002 compares it",
            ));
        }
        if got.is_null() {
            let reason = figs.not_measured.get(figure).cloned().unwrap_or_else(|| "not measured".into());
            out.push(
                base(Outcome::CantTell, format!("{figure} is not measured from {basis}: {reason}"))
                    .with("figure", figure),
            );
            continue;
        }
        let diffs = differences(&stated, &got, None, keys);
        let r = if diffs.is_empty() {
            base(Outcome::Passed, format!("{key} = {} agrees with {figure} recomputed from {basis}", stated.show()))
        } else if figure == "severity_distinct"
            // A severity count is published in either reading; the other one agreeing passes.
            && differences(&stated, figs.get("severity_occurrences"), None, Keys::Counts).is_empty()
        {
            base(
                Outcome::Passed,
                format!(
                    "{key} agrees with the per-occurrence reading recomputed from {basis} (not the first-seen one)"
                ),
            )
        } else {
            base(
                Outcome::Failed,
                format!(
                    "{} says {key} = {}; {basis} give{} {}",
                    p.name,
                    stated.show(),
                    if basis.ends_with('s') { "" } else { "s" },
                    summarize(&diffs, &got)
                ),
            )
            .with("differences", diffs)
        };
        out.push(r.with("figure", figure).with("recomputed", got));
    }
    out
}

fn summarize(diffs: &[String], got: &Value) -> String {
    if diffs.len() == 1 && !diffs[0].starts_with('/') {
        show(got)
    } else if diffs.len() <= 3 {
        format!("{} ({})", show(got), diffs.join("; "))
    } else {
        format!("{} ({}; … {} differences)", show(got), diffs[..3].join("; "), diffs.len())
    }
}

/// Checks a published finding lifecycle against the lifecycle recomputed from the cycle records.
#[must_use]
pub(super) fn check_lifecycle(
    p: &Published,
    figs: &Figures,
    science: Option<&Science>,
    basis: &str,
) -> Vec<CheckResult> {
    let mut out = Vec::new();
    let Some(entries) = p.value.as_array() else {
        return vec![CheckResult::new(
            &LIFECYCLE,
            Outcome::Failed,
            p.name,
            format!("a {}, expected a list of findings", p.value.type_name()),
        )];
    };
    if let Some(reason) = figs.not_measured.get("closed") {
        return vec![CheckResult::new(
            &LIFECYCLE,
            Outcome::CantTell,
            p.name,
            format!("the lifecycle cannot be recomputed from {basis}: {reason}"),
        )];
    }
    let recomputed = recomputed(figs, science);
    let mut seen = BTreeSet::new();
    let mut with_fix = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(id) = e.get("finding_id").and_then(crate::json::Value::as_str) else {
            out.push(CheckResult::new(
                &LIFECYCLE,
                Outcome::Failed,
                format!("{} #{}", p.name, i + 1),
                "entry without a string finding_id",
            ));
            continue;
        };
        let subject = format!("{} {id}", p.name);
        if !seen.insert(id.to_owned()) {
            out.push(CheckResult::new(&LIFECYCLE, Outcome::Failed, &subject, "listed more than once"));
            continue;
        }
        let Some(want) = recomputed.get(id) else {
            out.push(CheckResult::new(
                &LIFECYCLE,
                Outcome::Failed,
                &subject,
                format!("no cycle in {basis} raises {id}"),
            ));
            continue;
        };
        let mut diffs = Vec::new();
        let fields = e.as_object().cloned().unwrap_or_default();
        for key in ["severity", "first_raised", "raised_in", "closed_confirmed_in", "rules_cited"] {
            let stated = fields.get(key).map_or(Stated::Null, Stated::from_json);
            for d in differences(&stated, &want[key], None, Keys::Exact) {
                diffs.push(if d.starts_with('/') { format!("{key}{d}") } else { format!("{key}: {d}") });
            }
        }
        match (fields.get("fix_commits"), science) {
            (Some(fc), None) => with_fix.push((id.to_owned(), crate::json::to_serde(fc))),
            (stated, Some(_)) => {
                let mut s: Vec<String> = stated
                    .and_then(crate::json::Value::as_array)
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                    .unwrap_or_default();
                s.sort();
                let stated = Stated::Array(s.into_iter().map(Stated::String).collect());
                for d in differences(&stated, &want["fix_commits"], None, Keys::Exact) {
                    diffs.push(format!("fix_commits (as sets): {}", d.trim_start_matches(": ")));
                }
            }
            (None, None) => {}
        }
        out.push(if diffs.is_empty() {
            CheckResult::new(
                &LIFECYCLE,
                Outcome::Passed,
                &subject,
                format!("agrees with the lifecycle recomputed from {basis}"),
            )
        } else {
            CheckResult::new(&LIFECYCLE, Outcome::Failed, &subject, diffs.join("; "))
                .with("differences", diffs)
                .with("recomputed", want.clone())
        });
    }
    for id in recomputed.keys() {
        if !seen.contains(*id) {
            out.push(CheckResult::new(
                &LIFECYCLE,
                Outcome::Failed,
                format!("{} {id}", p.name),
                format!("{id} is raised in {basis} but missing from {}", p.name),
            ));
        }
    }
    out.extend(fix_commits_checkable(p, entries, science, with_fix));
    out
}

/// The lifecycle of every finding as a published lifecycle states it, recomputed.
fn recomputed<'a>(figs: &'a Figures, science: Option<&Science>) -> BTreeMap<&'a str, Value> {
    let cid = |pos: usize| Value::String(figs.cycle_ids[pos].clone());
    figs.lifecycle
        .iter()
        .map(|l| {
            let mut v = json!({
                "severity": l.severity,
                "first_raised": cid(l.first_raised()),
                "raised_in": l.raised_in.iter().map(|p| cid(*p)).collect::<Vec<_>>(),
                "closed_confirmed_in": l.closed_in.map(cid),
                "rules_cited": l.rules,
            });
            if let Some(s) = science {
                let mut fc = s.by_finding.get(&l.id).cloned().unwrap_or_default();
                fc.sort();
                v["fix_commits"] = json!(fc);
            }
            (l.id.as_str(), v)
        })
        .collect()
}

/// CV-S005 on the entries' `fix_commits`: not checkable without the science repository.
fn fix_commits_checkable(
    p: &Published,
    entries: &[crate::json::Value],
    science: Option<&Science>,
    with_fix: Vec<(String, Value)>,
) -> Option<CheckResult> {
    if !with_fix.is_empty() {
        let ids: Vec<&str> = with_fix.iter().map(|(id, _)| id.as_str()).collect();
        Some(
            not_checkable(
                &format!("{} fix_commits", p.name),
                &format!("fix_commits of {}: {}", ids.join(", "), p.form.needs_science),
            )
            .with("fix_commits", with_fix.into_iter().collect::<serde_json::Map<_, _>>()),
        )
    } else if science.is_some() && entries.iter().any(|e| e.get("fix_commits").is_some()) {
        Some(CheckResult::new(
            &NOT_CHECKABLE,
            Outcome::Passed,
            format!("{} fix_commits", p.name),
            "checkable: the science repository was given; CV-S003 compares each entry's fix_commits",
        ))
    } else {
        None
    }
}

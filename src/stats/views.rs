//! Tables and charts for the human formats.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::figures::{Figures, Science};
use super::model::{Records, Terms};
use crate::report::{Chart, ChartKind, CheckResult, Point, Table, View};

fn compact(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::Array(a) => Value::String(a.iter().map(cell_text).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            Value::String(m.iter().map(|(k, v)| format!("{k} {}", cell_text(v))).collect::<Vec<_>>().join(", "))
        }
        other => other.clone(),
    }
}

fn cell_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(_) => super::compare::show(v),
        other => other.to_string(),
    }
}

fn part(figs: &Figures, figure: &str, keys: &[&str]) -> Value {
    match figs.get(figure) {
        Value::Object(m) => {
            let parts: Vec<String> =
                keys.iter().filter_map(|k| m.get(*k).map(|v| format!("{k} {}", cell_text(v)))).collect();
            Value::String(parts.join(", "))
        }
        _ => Value::Null,
    }
}

/// The headline figures, in the protocol's `terms`.
#[must_use]
pub(super) fn headline(figs: &Figures, terms: Terms) -> View {
    let mut rows = Vec::new();
    let mut row = |label: &str, figure: &str, value: Value| {
        let note = figs.not_measured.get(figure).or_else(|| figs.caveats.get(figure)).cloned().unwrap_or_default();
        rows.push(vec![Value::String(label.to_owned()), value, Value::String(note)]);
    };
    let whole = |f: &str| compact(figs.get(f));
    row("cycles", "cycles", whole("cycles"));
    row("decisions (in order)", "decision_sequence", whole("decision_sequence"));
    row("findings per cycle", "findings_per_cycle", whole("findings_per_cycle"));
    row("finding occurrences", "finding_occurrences", whole("finding_occurrences"));
    row("distinct findings", "distinct_findings", whole("distinct_findings"));
    row("verified closed", "closed", whole("closed"));
    row("open", "open", whole("open"));
    row("named by a fix commit", "closed_by_fix_commit", whole("closed_by_fix_commit"));
    row(
        &format!("closure lag ({} positions)", terms.order),
        "closure_lag",
        part(figs, "closure_lag", &["median", "mean", "max", "n"]),
    );
    row(
        "closure lag (cycle numbers)",
        "closure_lag_cycle_numbers",
        part(figs, "closure_lag_cycle_numbers", &["median", "mean", "max", "n"]),
    );
    row("recurring IDs", "n_recurring", whole("n_recurring"));
    row("severity (distinct, first seen)", "severity_distinct", whole("severity_distinct"));
    row("severity (occurrences)", "severity_occurrences", whole("severity_occurrences"));
    row("source (occurrences)", "source", whole("source"));
    row("scope incidences", "scopes", whole("scopes"));
    row("most cited rule", "most_cited_rule", part(figs, "most_cited_rule", &["rule", "occurrences", "cycles"]));
    row("occurrences citing exactly one rule", "single_rule_occurrences", whole("single_rule_occurrences"));
    row("audit minutes", "audit_minutes", part(figs, "audit_minutes", &["median", "min", "max", "n"]));
    row("gap minutes", "gap_minutes", part(figs, "gap_minutes", &["median", "q1", "q3", "max", "n"]));
    row("models (cycles)", "models", whole("models"));
    row("cycles without a model", "cycles_without_model", whole("cycles_without_model"));
    row("decision is definitional", "decision_is_definitional", whole("decision_is_definitional"));
    row("numbering gaps", "numbering_gaps", whole("numbering_gaps"));
    View::Table(Table {
        id: "figures".into(),
        title: "Headline figures".into(),
        columns: vec!["figure".into(), "value".into(), "note".into()],
        rows,
        note: Some("`--format json` holds every figure under `stats`; \"not measured\" means the input cannot support it (the note says why), never zero.".into()),
        csv: false,
    })
}

/// Per-finding lifecycle rows (the primary CSV).
#[must_use]
pub(super) fn findings(figs: &Figures, records: &Records, science: Option<&Science>) -> View {
    let terms = records.kind.declared_terms();
    let id = |p: usize| Value::String(figs.cycle_ids[p].clone());
    let numbers: Vec<Option<u64>> = records.cycles.iter().map(|c| c.number).collect();
    let mut columns: Vec<String> = [
        "finding_id",
        "severity",
        "first_raised",
        "raised_in",
        "times_listed",
        "closed_confirmed_in",
        "lag_positions",
        "lag_cycle_numbers",
        "state",
        "scopes",
        "source",
        "rules",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    if science.is_some() {
        columns.push("fix_commits".into());
    }
    let rows = figs
        .lifecycle
        .iter()
        .map(|l| {
            let lag_numbers = l.closed_in.and_then(|z| match (numbers[l.first_raised()], numbers[z]) {
                (Some(a), Some(z)) => Some(json!(z as i64 - a as i64)),
                _ => None,
            });
            let state = match (l.closed_in, l.reopened) {
                (None, _) => "open",
                (Some(_), false) => "closed",
                (Some(_), true) => "closed, raised again",
            };
            let mut row = vec![
                Value::String(l.id.clone()),
                l.severity.clone().map_or(Value::Null, Value::String),
                id(l.first_raised()),
                Value::String(l.raised_in.iter().map(|p| figs.cycle_ids[*p].clone()).collect::<Vec<_>>().join(";")),
                json!(l.raised_in.len()),
                l.closed_in.map_or_else(|| Value::String(String::new()), id),
                l.lag().map_or_else(|| Value::String(String::new()), |g| json!(g)),
                match (l.closed_in, lag_numbers) {
                    (None, _) => Value::String(String::new()),
                    (Some(_), v) => v.unwrap_or(Value::Null),
                },
                Value::String(state.into()),
                Value::String(l.scopes.join(";")),
                // No label on the first occurrence is "not measured" there, not an empty label.
                l.source.clone().map_or(Value::Null, Value::String),
                Value::String(l.rules.join(";")),
            ];
            if let Some(s) = science {
                row.push(Value::String(s.by_finding.get(&l.id).map(|v| v.join(";")).unwrap_or_default()));
            }
            row
        })
        .collect();
    let note = match figs.not_measured.get("closed") {
        Some(reason) => format!("Lifecycle not measured: {reason}."),
        None => format!(
            "Severity, scopes, source and rules are those of the first occurrence; lag counts {} positions and {} numbers from first raise to the first verified closure; an empty lag means the finding is still open.",
            terms.order, terms.number
        ),
    };
    View::Table(Table {
        id: "findings".into(),
        title: "Finding lifecycle".into(),
        columns,
        rows,
        note: Some(note),
        csv: true,
    })
}

/// Per-cycle rows.
#[must_use]
pub(super) fn cycles(figs: &Figures, records: &Records) -> View {
    let opt = |v: &Option<String>| v.clone().map_or(Value::Null, Value::String);
    let rows = records
        .cycles
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let findings = c.findings.as_ref();
            vec![
                json!(i + 1),
                Value::String(c.id.clone()),
                c.number.map_or(Value::Null, |n| json!(n)),
                opt(&c.decision),
                opt(&c.model),
                opt(&c.audited_commit),
                opt(&c.started_at),
                opt(&c.completed_at),
                figs.audit_minutes.get(i).copied().flatten().map_or(Value::Null, super::num::value),
                figs.gap_before.get(i).copied().flatten().map_or(Value::Null, super::num::value),
                findings.map_or(Value::Null, |f| json!(f.len())),
                findings.map_or(Value::Null, |f| {
                    Value::String(f.iter().map(|f| f.id.as_str()).collect::<Vec<_>>().join(";"))
                }),
                c.verified_closed.as_ref().map_or(Value::Null, |v| {
                    Value::String(
                        v.iter().map(|e| e.id.clone().unwrap_or_else(|| e.raw.clone())).collect::<Vec<_>>().join(";"),
                    )
                }),
            ]
        })
        .collect();
    View::Table(Table {
        id: "cycles".into(),
        title: format!("Cycles in {} order", records.kind.declared_terms().order),
        columns: [
            "position",
            "cycle_id",
            "number",
            "decision",
            "model",
            "audited_commit",
            "started_at",
            "completed_at",
            "audit_minutes",
            "gap_minutes_before",
            "findings",
            "finding_ids",
            "verified_closed",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect(),
        rows,
        note: Some(
            "\"not measured\" marks a value the records do not hold (no timestamp, no model, an unreadable record)."
                .into(),
        ),
        csv: true,
    })
}

/// The timeline, findings-per-cycle and closure-lag charts.
#[must_use]
pub(super) fn charts(figs: &Figures, records: &Records) -> Vec<View> {
    let order = records.kind.declared_terms().order;
    let per_cycle: Vec<Point> = records
        .cycles
        .iter()
        .map(|c| Point {
            label: c.id.clone(),
            value: c.findings.as_ref().map(|f| f.len() as f64),
            category: c.decision.clone(),
        })
        .collect();
    let mut bins: BTreeMap<usize, usize> = BTreeMap::new();
    for l in &figs.lifecycle {
        if let Some(g) = l.lag() {
            *bins.entry(g).or_default() += 1;
        }
    }
    // A closure comes strictly after the first raise, so lags start at 1.
    let max = bins.keys().last().copied().unwrap_or(0);
    let lag_points: Vec<Point> = if bins.is_empty() {
        Vec::new()
    } else {
        (1..=max)
            .map(|g| Point {
                label: g.to_string(),
                value: Some(bins.get(&g).copied().unwrap_or(0) as f64),
                category: None,
            })
            .collect()
    };
    vec![
        View::Chart(Chart {
            id: "timeline".into(),
            title: "Cycles by decision".into(),
            chart: ChartKind::Timeline,
            y_label: "findings".into(),
            x_label: "cycle".into(),
            category_label: "decision".into(),
            points: per_cycle.clone(),
            note: Some(format!(
                "One mark per cycle in {order} order, coloured by decision; numbering gaps are not drawn as cycles."
            )),
        }),
        View::Chart(Chart {
            id: "findings-per-cycle".into(),
            title: "Findings per cycle".into(),
            chart: ChartKind::Bars,
            y_label: "findings".into(),
            x_label: "cycle".into(),
            category_label: String::new(),
            points: per_cycle.into_iter().map(|p| Point { category: None, ..p }).collect(),
            note: None,
        }),
        View::Chart(Chart {
            id: "closure-lag".into(),
            title: "Closure lag of verified-closed findings".into(),
            chart: ChartKind::Histogram,
            y_label: "findings".into(),
            x_label: "bin".into(),
            category_label: String::new(),
            points: lag_points,
            note: Some(match figs.not_measured.get("closure_lag") {
                Some(r) => format!("Not measured: {r}."),
                None => format!(
                    "Bins are {order} positions from first raise to first verified closure; open findings are excluded, not imputed."
                ),
            }),
        }),
    ]
}

/// The claims table.
#[must_use]
pub(super) fn claims(results: &[CheckResult]) -> View {
    let rows = results
        .iter()
        .map(|r| {
            vec![
                Value::String(r.subject.clone()),
                r.evidence.get("stated").map_or(Value::Null, compact),
                r.evidence.get("recomputed").map_or(Value::Null, compact),
                Value::String(r.outcome.as_str().to_owned()),
            ]
        })
        .collect();
    View::Table(Table {
        id: "claims".into(),
        title: "Stated figures".into(),
        columns: vec!["pointer".into(), "stated".into(), "recomputed".into(), "outcome".into()],
        rows,
        note: None,
        csv: false,
    })
}

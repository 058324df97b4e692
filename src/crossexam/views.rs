//! The transcript views: the per-seat table, the phase timeline with each violation on its
//! bus line, and the bus table. The words they write and their tones are declared with the
//! family (`checks::FAMILY`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::bus::Entry;
use super::judge::Transcript;
use crate::report::{Chart, ChartKind, CheckResult, Level, Outcome, Point, Report, Table, View};

/// Per-seat counts from the bus.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct SeatRow {
    /// Claims on the bus (revealed or not).
    pub claims: u64,
    /// Verifies.
    pub verifies: u64,
    /// Challenges.
    pub challenges: u64,
    /// Concessions.
    pub concessions: u64,
    /// Claims with no later concede by the same seat.
    pub unresolved: u64,
}

/// Counts per seat (every `from` that posted a non-info message).
pub(crate) fn seats(t: &Transcript<'_>) -> BTreeMap<String, SeatRow> {
    let mut out: BTreeMap<String, SeatRow> = BTreeMap::new();
    for m in t.bus.lines.iter().filter_map(|l| l.message()) {
        let kind = m.kind();
        if !super::judge::ARGUING.contains(&kind) {
            continue;
        }
        // A seat's name is copied once, not once per message.
        let row = match out.get_mut(m.from()) {
            Some(row) => row,
            None => out.entry(m.from().to_owned()).or_default(),
        };
        match kind {
            "claim" => {
                row.claims += 1;
                row.unresolved += 1;
            }
            "verify" => row.verifies += 1,
            "challenge" => row.challenges += 1,
            _ => {
                row.concessions += 1;
                row.unresolved = 0;
            }
        }
    }
    out
}

/// Bus lines the timeline and the bus table show one by one; past them only lines with a listed
/// violation, so the views of a huge bus stay bounded (specs/crossexam.md, "Budget").
const VIEW_LINES: usize = 2000;

fn truncation(left_out: usize) -> String {
    if left_out == 0 {
        String::new()
    } else {
        format!(
            " Past bus line {VIEW_LINES}, only lines with a listed violation are shown ({left_out} lines left out)."
        )
    }
}

/// Failed warning- or error-level results per bus line (by the tool's number).
fn violations(results: &[CheckResult]) -> BTreeMap<u64, Vec<String>> {
    let mut out: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for r in results.iter().filter(|r| r.outcome == Outcome::Failed && r.level != Level::Info) {
        if let Some(n) = r.evidence.get("line").and_then(Value::as_u64).filter(|_| r.subject.starts_with("bus #")) {
            let codes = out.entry(n).or_default();
            if !codes.contains(&r.code) {
                codes.push(r.code.clone());
            }
        }
    }
    out
}

/// Adds the views and the synthesis headline to `report`.
pub(crate) fn add(report: &mut Report, t: &Transcript<'_>) {
    let lower = match &t.arena.synthesis {
        Some(Ok(b)) => Some(String::from_utf8_lossy(b).to_lowercase()),
        _ => None,
    };
    let words = lower.as_deref().map(|l| super::rules_side::Words::of_seats(l, t));
    let named = |seat: &str| match &words {
        Some(w) => json!(if w.names(seat) { "named" } else { "not named" }),
        None => Value::Null,
    };
    let rows: Vec<Vec<Value>> = seats(t)
        .into_iter()
        .map(|(seat, r)| {
            let status = if r.concessions > 0 {
                "conceded"
            } else if r.claims > 0 {
                "standing"
            } else {
                "no claim"
            };
            vec![
                json!(seat),
                json!(r.claims),
                json!(r.verifies),
                json!(r.challenges),
                json!(r.concessions),
                json!(r.unresolved),
                json!(status),
                named(&seat),
            ]
        })
        .collect();
    report.views.push(View::Table(Table {
        id: "seats".into(),
        title: "Seats".into(),
        columns: ["seat", "claims", "verifies", "challenges", "concessions", "unresolved", "status", "in synthesis"].map(String::from).to_vec(),
        rows,
        note: Some("unresolved = claims with no later concede by the same seat (the bus names no target, so a challenge resolves nothing by itself); in synthesis = named as a whole word in synthesis.md, not measured without one.".into()),
        csv: true,
    }));
    bus_views(report, t);
    let standing = super::rules_side::standing_claimants(t);
    let text = match &t.arena.synthesis {
        Some(Ok(_)) => {
            let missing: Vec<&str> =
                standing.iter().map(String::as_str).filter(|x| words.as_ref().is_some_and(|w| !w.names(x))).collect();
            if missing.is_empty() {
                "names every seat that never conceded".to_owned()
            } else {
                format!("leaves out {}", missing.join(", "))
            }
        }
        Some(Err(_)) => "unreadable".to_owned(),
        None => "none (not measured)".to_owned(),
    };
    report.hints.headline = Some(("Synthesis".to_owned(), text));
}

/// The phase timeline and the bus replay table: one mark and one row per bus line, up to
/// [`VIEW_LINES`] lines and every line with a violation.
fn bus_views(report: &mut Report, t: &Transcript<'_>) {
    let marks = violations(&report.results);
    let mut points = Vec::new();
    let mut rows = Vec::new();
    let mut row = |tool: usize, physical: usize, stage: &str, m: Option<&super::bus::Message<'_>>| {
        let codes = marks.get(&(tool as u64)).cloned().unwrap_or_default();
        #[allow(clippy::cast_precision_loss)]
        points.push(Point { label: format!("#{tool}"), value: Some(codes.len() as f64), category: Some(stage.into()) });
        rows.push(vec![
            json!(tool),
            json!(physical),
            json!(stage),
            m.map_or(Value::Null, |m| json!(m.from())),
            m.map_or_else(|| json!("(unparsed)"), |m| json!(m.kind())),
            if codes.is_empty() { json!("") } else { json!(format!("violation: {}", codes.join(" "))) },
        ]);
    };
    for entry in t.bus.entries() {
        match entry {
            Entry::Line(i, line) => {
                if line.physical <= VIEW_LINES || marks.contains_key(&(line.tool as u64)) {
                    row(line.tool, line.physical, t.replay.stages[i].as_str(), line.message());
                }
            }
            Entry::Run(run) => {
                // A line that is no message is in the phase the notes before it left (a
                // Stage's word is its phase's); only its shown lines are visited, the first
                // ones and those a listed violation marks.
                let stage = t.replay.phase_before(run.before).as_str();
                let end = (run.tool + run.pieces) as u64;
                let last_mark = marks.range(run.tool as u64..end).next_back().map(|(n, _)| *n);
                for line in run.lines() {
                    let marked = marks.contains_key(&(line.tool as u64));
                    if line.physical <= VIEW_LINES || marked {
                        row(line.tool, line.physical, stage, line.message());
                    } else if last_mark.is_none_or(|n| (line.tool as u64) > n) {
                        break;
                    }
                }
            }
        }
    }
    let left_out = t.bus.physical - rows.len();
    report.views.push(View::Chart(Chart {
        id: "phases".into(),
        title: "Phase timeline (one mark per bus line; height = violations on it)".into(),
        chart: ChartKind::Timeline,
        y_label: "violations".into(),
        x_label: "bus line (tool number)".into(),
        category_label: "phase".into(),
        points,
        note: Some(format!(
            "revealed = a sealed blind claim written by the reveal right before its debate note.{}",
            truncation(left_out)
        )),
    }));
    report.views.push(View::Table(Table {
        id: "bus".into(),
        title: "Bus replay".into(),
        columns: ["#", "physical line", "phase", "from", "type", "violations"].map(String::from).to_vec(),
        rows,
        note: Some(format!("# is the tool's number (what cxam prints and syntheses cite); violations are failed error- and warning-level rules on that line.{}", truncation(left_out))),
        csv: true,
    }));
}

//! The statistics adapter: a transcript's claims, challenges and concessions as the neutral
//! lifecycle records of `stats` — each arguing bus message is one record in bus order, each
//! claim a finding raised there, each concede closing the conceding seat's open claims — so
//! panels can be compared over time with `crossverify stats`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::manifest::Digest;
use crate::stats::Error;
use crate::stats::input::Input;
use crate::stats::model::{Closure, CycleRecord, FindingRecord, Group, InputKind, Records, Terms};

/// What `crossverify stats` read: records in bus order, numbered by the tool's bus lines. It
/// declares no gate and no numbering: its records say so ([`read`]).
pub const TRANSCRIPT: InputKind = InputKind::new("crossexam-transcript", "a CrossExam transcript (_Msg/ directory)")
    .terms(Terms { order: "bus", number: "bus line" });

/// Whether `path` looks like a `_Msg/` directory (it holds `bus.jsonl`).
#[must_use]
pub fn is_transcript(path: &Path) -> bool {
    path.is_dir() && path.join("bus.jsonl").is_file()
}

/// The records of the transcript in `dir`.
///
/// # Errors
/// [`Error::Input`] when the directory or its bus cannot be read, or a revision is asked for
/// (a transcript is read from the work tree).
pub fn read(dir: &Path, rev: Option<&str>) -> Result<Input, Error> {
    if rev.is_some() {
        return Err(Error::Input(format!(
            "{}: --rev applies to a git repository; a CrossExam transcript is read as it is on disk",
            dir.display()
        )));
    }
    let arena = super::load::read(dir).map_err(|e| Error::Input(e.to_string()))?;
    let bus = super::bus::parse(&arena.bus);
    let mut records = Records::new(TRANSCRIPT);
    records.cycles = records_of(&bus);
    records.cannot_measure(
        &[Group::FixCommits],
        "a CrossExam panel has no fix commits: a claim is resolved by its seat's concede",
    );
    records.cannot_measure(
        &[Group::Severity, Group::Labels, Group::Scopes, Group::Rules, Group::DecisionVsBlocking],
        "claims carry no severity, evidence class, scope or rule citation",
    );
    records.cannot_measure(
        &[Group::Gate],
        "a transcript's decisions are message types: none calls for a blocking finding or passes whatever its findings",
    );
    records.cannot_measure(
        &[Group::Numbering],
        "records are the arguing messages only, so the bus lines between them (other messages) leave gaps that name no missing record",
    );
    records.caveat(
        "closure_lag",
        "rounds to resolution: arguing messages (claims, verifies, challenges, concessions) from a claim to its seat's concede; closure_lag_cycle_numbers counts bus lines (the tool's numbers). The bus names no target, so a concede closes every open claim of its seat",
    );
    let mut input = Input::new(records);
    input.read.insert("bus.jsonl".into(), Digest::of(&arena.bus).hex());
    Ok(input)
}

/// One record per arguing message, in bus order.
#[must_use]
pub fn records_of(bus: &super::bus::Bus) -> Vec<CycleRecord> {
    let mut open: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut out = Vec::new();
    for line in &bus.lines {
        let Some(m) = line.message() else { continue };
        let kind = m.kind();
        if !super::judge::ARGUING.contains(&kind) {
            continue;
        }
        let seat = m.from().to_owned();
        let mut rec = CycleRecord {
            id: format!("#{}", line.tool),
            number: Some(line.tool as u64),
            decision: Some(kind.to_owned()),
            model: Some(seat.clone()),
            started_at: m.ts().map(str::to_owned),
            completed_at: m.ts().map(str::to_owned),
            findings: Some(Vec::new()),
            verified_closed: Some(Vec::new()),
            ..CycleRecord::default()
        };
        match kind {
            "claim" => {
                let id = format!("{seat}#{}", line.tool);
                rec.findings = Some(vec![FindingRecord { id: id.clone(), ..FindingRecord::default() }]);
                open.entry(seat).or_default().push(id);
            }
            "concede" => {
                rec.verified_closed =
                    Some(open.remove(&seat).unwrap_or_default().iter().map(|id| Closure::plain(id)).collect());
            }
            _ => {}
        }
        out.push(rec);
    }
    out
}

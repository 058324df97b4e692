//! Rules P1–P5 (the phase record), G1–G5 (phase-gated types) and R1–R7 (reveal blocks and
//! envelopes), over the replay.

use std::collections::{BTreeMap, BTreeSet};

use super::bus::{Content, Entry, Phase, phase_note};
use super::checks::{
    G1_BLIND_ARGUMENT, G2_SEAL_BYPASS, G3_CLOSED, G4_ONE_CLAIM, G5_LATE_CLAIM, P1_MARKER, P2_NOTE_SHAPE,
    P3_FINAL_PHASE, P4_FLIPPER, P5_TRANSITION, R1_BLOCK_SHAPE, R2_BLOCK_ORDER, R3_BLOCK_TIMING, R4_CHRONOLOGY,
    R5_NO_SUFFIX, R6_STRANDED, R7_ENVELOPE,
};
use super::judge::{ARGUING, Findings, Transcript, at_level, on_file, on_line, verdict};
use super::replay::{Block, Member, Stage, note_of, task_marker};
use crate::report::{CheckResult, Level, Outcome};
use crate::stats::time::parse_timestamp;

/// Every P, G and R rule.
pub(crate) fn check(t: &Transcript<'_>) -> Vec<CheckResult> {
    let mut out = marker(t);
    out.extend(notes(t));
    out.extend(gates(t));
    out.extend(claims_per_window(t));
    out.extend(blocks(t));
    out.extend(envelopes(t));
    out
}

fn marker(t: &Transcript<'_>) -> Vec<CheckResult> {
    let fallback = if t.legacy { "debate (tool versions before 0.6.0)" } else { "blind (tool 0.6.0+)" };
    let p1 = match &t.arena.task {
        None => {
            vec![on_file(&P1_MARKER, "task.md", format!("task.md is missing; the tool reads the phase as {fallback}"))]
        }
        Some(Err(e)) => vec![CheckResult::new(&P1_MARKER, Outcome::CantTell, "task.md", format!("task.md {e}"))],
        Some(Ok(b)) => match task_marker(&String::from_utf8_lossy(b)) {
            Some((p, _)) => verdict(&P1_MARKER, Findings::default(), 1, &format!("phase marker ({})", p.as_str())),
            None => vec![on_file(
                &P1_MARKER,
                "task.md",
                format!("no valid `status:` phase marker; the tool reads the phase as {fallback}"),
            )],
        },
    };
    let p3 =
        if t.task_readable {
            let replayed = t.replay.final_phase;
            if replayed == t.task_phase {
                verdict(&P3_FINAL_PHASE, Findings::default(), 1, &format!("final phase ({})", replayed.as_str()))
            } else {
                vec![on_file(
                &P3_FINAL_PHASE,
                "task.md",
                format!(
                    "replaying the phase notes gives {}, task.md gives {}: a forged note or a hand edit of task.md",
                    replayed.as_str(),
                    t.task_phase.as_str()
                ),
            )
            .with("replayed", replayed.as_str())
            .with("task", t.task_phase.as_str())]
            }
        } else {
            vec![CheckResult::new(
                &P3_FINAL_PHASE,
                Outcome::CantTell,
                "task.md",
                "task.md cannot be read, so its phase is unknown",
            )]
        };
    let mut out = p1;
    out.extend(p3);
    out
}

/// Seats that argued: `from` of every claim, verify, challenge or concede.
pub(crate) fn arguing_seats<'t>(t: &'t Transcript<'_>) -> BTreeSet<&'t str> {
    // Inserted one by one, not collected: a collect sorts every message of a huge bus.
    let mut out = BTreeSet::new();
    for m in t.bus.lines.iter().filter_map(|l| l.message()).filter(|m| ARGUING.contains(&m.kind())) {
        if let Some(from) = m.sender() {
            out.insert(from);
        }
    }
    out
}

fn notes(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut p2, mut p4, mut p5) = (Findings::default(), Findings::default(), Findings::default());
    let (mut shaped, mut moderator_posts) = (0, 0);
    let argued = arguing_seats(t);
    for line in &t.bus.lines {
        let Some(m) = line.message() else { continue };
        if m.kind() == "info"
            && let Some(Err(why)) = m.field("msg").and_then(phase_note)
        {
            shaped += 1;
            p2.push(on_line(
                &P2_NOTE_SHAPE,
                line,
                format!("{:?} is not a phase note the tool writes: {why}", m.field("msg").unwrap_or("")),
            ));
        }
        if m.from() == "moderator" && m.kind() != "info" {
            moderator_posts += 1;
            p4.push(on_line(
                &P4_FLIPPER,
                line,
                format!("`moderator` posts a {}: the phase-note author's name is also a seat", m.kind()),
            ));
        }
    }
    for tr in &t.replay.transitions {
        let line = &t.bus.lines[tr.line];
        let from = line.message().map_or("", |m| m.from());
        if from != "moderator" && argued.contains(from) {
            p4.push(on_line(&P4_FLIPPER, line, format!("phase note by seat {from:?}, which also argued")));
        }
        let (a, b) = (tr.from.as_str(), tr.to.as_str());
        if tr.from == tr.to {
            p5.push(at_level(on_line(&P5_TRANSITION, line, format!("repeats the phase {a}")), Level::Info));
        } else if tr.from == Phase::Blind && tr.to == Phase::Closed {
            p5.push(on_line(&P5_TRANSITION, line, "blind → closed without debate: sealed envelopes stay stranded"));
        } else if tr.to < tr.from {
            p5.push(on_line(&P5_TRANSITION, line, format!("phase moves backward, {a} → {b}")));
        }
    }
    let n = t.replay.transitions.len();
    let mut out = verdict(&P2_NOTE_SHAPE, p2, shaped + n, "phase notes");
    out.extend(verdict(&P4_FLIPPER, p4, n + moderator_posts, "phase notes"));
    out.extend(verdict(&P5_TRANSITION, p5, n, "phase changes"));
    out
}

fn gates(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut g1, mut g2, mut g3, mut g5) =
        (Findings::default(), Findings::default(), Findings::default(), Findings::default());
    let (mut blind, mut closed, mut debate_claims) = (0, 0, 0);
    for entry in t.bus.entries() {
        let (i, line) = match entry {
            Entry::Line(i, line) => (i, line),
            Entry::Run(run) => {
                // Bare objects: no kind, so in blind and debate only counted; once closed each
                // fails CX-G3, built only while listed or named.
                match Stage::of(t.replay.phase_before(run.before)) {
                    Stage::Blind => blind += run.bare,
                    Stage::Closed => {
                        closed += run.bare;
                        let bare = run.lines().filter(|l| l.message().is_some()).take(run.bare);
                        let shown = g3
                            .push_shown(bare, |line| on_line(&G3_CLOSED, &line, " by \"\" after the phase is closed"));
                        g3.count(run.bare - shown, G3_CLOSED.level, Outcome::Failed);
                    }
                    Stage::Debate | Stage::Revealed => {}
                }
                continue;
            }
        };
        let Some(m) = line.message() else { continue };
        let (kind, from) = (m.kind(), m.from());
        match t.replay.stages[i] {
            Stage::Blind => {
                blind += 1;
                if matches!(kind, "verify" | "challenge" | "concede") {
                    g1.push(on_line(&G1_BLIND_ARGUMENT, line, format!("{kind} by {from:?} while the phase is blind")));
                }
                if kind == "claim" {
                    let r = on_line(
                        &G2_SEAL_BYPASS,
                        line,
                        format!("claim by {from:?} on the bus during blind, outside any reveal block"),
                    );
                    g2.push(if t.legacy { at_level(r, Level::Info) } else { r });
                }
            }
            Stage::Closed => {
                closed += 1;
                if kind != "info" {
                    g3.push(on_line(&G3_CLOSED, line, format!("{kind} by {from:?} after the phase is closed")));
                }
            }
            Stage::Debate if kind == "claim" => {
                debate_claims += 1;
                g5.push(on_line(&G5_LATE_CLAIM, line, format!("claim by {from:?} during debate (late, not blind)")));
            }
            Stage::Debate | Stage::Revealed => {}
        }
    }
    let claims = t.bus.lines.iter().filter_map(|l| l.message()).filter(|m| m.kind() == "claim").count();
    let mut out = verdict(&G1_BLIND_ARGUMENT, g1, blind, "blind-phase messages");
    out.extend(verdict(&G2_SEAL_BYPASS, g2, blind, "blind-phase messages"));
    out.extend(verdict(&G3_CLOSED, g3, closed, "closed-phase messages"));
    out.extend(verdict(&G5_LATE_CLAIM, g5, claims.max(debate_claims), "claims"));
    out
}

/// Parsed claims per seat in each envelope file.
fn pending_claims(t: &Transcript<'_>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (stem, bytes) in &t.arena.sealed {
        let Ok(b) = bytes else { continue };
        let env = super::bus::parse(b);
        let n = env.lines.len() + env.runs.iter().map(|r| r.bare).sum::<usize>();
        if n > 0 {
            *out.entry(stem.clone()).or_default() += n;
        }
    }
    out
}

fn claims_per_window(t: &Transcript<'_>) -> Vec<CheckResult> {
    let mut per: BTreeMap<(usize, String), usize> = BTreeMap::new();
    for (i, line) in t.bus.lines.iter().enumerate() {
        let (Some(w), Some(m)) = (t.replay.window_of[i], line.message()) else { continue };
        if m.kind() == "claim" {
            *per.entry((w, m.from().to_owned())).or_default() += 1;
        }
    }
    let last = t.replay.windows.len() - 1;
    if t.task_phase == Phase::Blind && t.replay.windows[last].closed_by.is_none() {
        for (seat, n) in pending_claims(t) {
            *per.entry((last, seat)).or_default() += n;
        }
    }
    let failures = per
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|((w, seat), n)| {
            let end = t.replay.windows[*w]
                .closed_by
                .map_or_else(|| "still open".to_owned(), |i| format!("ending at {}", t.bus.lines[i].label()));
            on_file(
                &G4_ONE_CLAIM,
                "bus.jsonl",
                format!("seat {seat:?} made {n} claims in blind window {} ({end})", w + 1),
            )
            .with("seat", seat.as_str())
            .with("claims", *n)
        })
        .collect();
    verdict(&G4_ONE_CLAIM, failures, per.len(), "seat blind windows")
}

fn ts_of(t: &Transcript<'_>, i: usize) -> String {
    t.bus.lines[i].message().and_then(|m| m.ts()).unwrap_or_default().to_owned()
}

fn block_shape_and_order(t: &Transcript<'_>, b: &Block, r1: &mut Findings, r2: &mut Findings) {
    let note = &t.bus.lines[b.note];
    if (b.len() as u64) < b.announced {
        r1.push(on_line(
            &R1_BLOCK_SHAPE,
            note,
            format!("the note announces {} revealed claims, only {} parsed lines precede it", b.announced, b.len()),
        ));
    }
    let not_claim = |label: String, kind: &str| {
        on_line(
            &R1_BLOCK_SHAPE,
            note,
            format!("the note announces {} revealed claims, {label} is a `{kind}` line", b.announced),
        )
    };
    // A member's reveal key, and its ts for the message: a bare object's are empty.
    let key = |j: usize| (ts_of(t, j), format!("{}.jsonl", t.bus.lines[j].message().map_or("", |m| m.from())));
    let bare_key = || (String::new(), ".jsonl".to_owned());
    let mut prev: Option<(String, String)> = None;
    for member in &b.members {
        match *member {
            Member::Message(j) => {
                let kind = t.bus.lines[j].message().map_or("", |m| m.kind());
                if kind != "claim" {
                    r1.push(not_claim(t.bus.lines[j].label(), kind));
                }
                let k = key(j);
                if let Some(p) = prev.as_ref().filter(|p| k < **p) {
                    r2.push(out_of_order(&t.bus.lines[j], &k.0, &p.0));
                }
                prev = Some(k);
            }
            Member::Bare { run, first, count } => {
                // Each is a `` line, built only while listed or named; among themselves they
                // are in order (equal keys), so only the first can follow a greater key.
                let run = &t.bus.runs[run];
                let bare = || run.lines().filter(|l| l.message().is_some()).skip(first).take(count);
                let shown = r1.push_shown(bare(), |line| not_claim(line.label(), ""));
                r1.count(count - shown, R1_BLOCK_SHAPE.level, Outcome::Failed);
                let k = bare_key();
                if let Some(p) = prev.as_ref().filter(|p| k < **p)
                    && let Some(line) = bare().next()
                {
                    r2.push(out_of_order(&line, &k.0, &p.0));
                }
                prev = Some(k);
            }
        }
    }
}

/// CX-R2 on a revealed line whose ts `ts` sorts before the previous one's, `before`.
fn out_of_order(line: &super::bus::Line<'_>, ts: &str, before: &str) -> CheckResult {
    on_line(
        &R2_BLOCK_ORDER,
        line,
        format!("revealed out of the reveal's order (ts {ts:?} after {before:?}, then by file name)"),
    )
}

/// The instant a blind window opened: the latest `phase -> blind` note before `first`.
/// `Some(None)` when no note opened it: `cxam init` writes nothing, and envelopes sealed
/// before the first bus line are normal, so the first line (the note's other reading) is no
/// bound (specs/crossexam.md, dialect note on R3). `None` when the note's `ts` is unreadable.
fn window_start(t: &Transcript<'_>, blind_notes: &[usize], first: usize) -> Option<Option<i64>> {
    let opener = blind_notes.partition_point(|j| *j < first).checked_sub(1).map(|k| blind_notes[k]);
    match opener {
        None => Some(None),
        Some(j) => parse_timestamp(&ts_of(t, j)).map(|x| Some(x.micros())),
    }
}

fn block_timing(t: &Transcript<'_>, blind_notes: &[usize], b: &Block, r3: &mut Findings, r4: &mut Findings) {
    let note = &t.bus.lines[b.note];
    // A bare object has no ts: a block holding one has no instants.
    let messages: Option<Vec<usize>> =
        b.members.iter().map(|m| if let Member::Message(j) = m { Some(*j) } else { None }).collect();
    let instants: Option<Vec<i64>> = messages
        .as_ref()
        .and_then(|messages| messages.iter().map(|j| parse_timestamp(&ts_of(t, *j)).map(|x| x.micros())).collect());
    let bounds = parse_timestamp(&ts_of(t, b.note))
        .map(|x| x.micros())
        .zip(messages.as_ref().and_then(|m| m.first()).and_then(|f| window_start(t, blind_notes, *f)));
    let members = messages.unwrap_or_default();
    let (Some(instants), Some((end, start))) = (instants, bounds) else {
        let why = "a timestamp of the block, its note or its window start is not RFC 3339";
        r3.push(CheckResult::new(&R3_BLOCK_TIMING, Outcome::CantTell, note.label(), why));
        r4.push(CheckResult::new(&R4_CHRONOLOGY, Outcome::CantTell, note.label(), why));
        return;
    };
    for (j, at) in members.iter().zip(&instants) {
        if *at > end || start.is_some_and(|s| *at < s) {
            let side = if *at > end { "after the note announcing it" } else { "before its blind window opened" };
            r3.push(on_line(&R3_BLOCK_TIMING, &t.bus.lines[*j], format!("revealed ts {:?} is {side}", ts_of(t, *j))));
        }
    }
    if instants.windows(2).any(|w| w[1] < w[0]) {
        r4.push(on_line(
            &R4_CHRONOLOGY,
            note,
            "the reveal order (by ts string) differs from the order of the instants (mixed UTC offsets or an edited block)",
        ));
    }
}

fn blocks(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut r1, mut r2, mut r3, mut r4, mut r5) =
        (Findings::default(), Findings::default(), Findings::default(), Findings::default(), Findings::default());
    let blind_notes: Vec<usize> =
        t.replay.transitions.iter().filter(|tr| tr.to == Phase::Blind).map(|tr| tr.line).collect();
    for b in &t.replay.blocks {
        block_shape_and_order(t, b, &mut r1, &mut r2);
        block_timing(t, &blind_notes, b, &mut r3, &mut r4);
    }
    // Blind-stage claims per blind window, counted once rather than per note.
    let mut blind_claims: BTreeMap<usize, usize> = BTreeMap::new();
    for (j, line) in t.bus.lines.iter().enumerate() {
        if t.replay.stages[j] == Stage::Blind
            && line.message().is_some_and(|m| m.kind() == "claim")
            && let Some(w) = t.replay.window_of[j]
        {
            *blind_claims.entry(w).or_default() += 1;
        }
    }
    let mut bare = 0;
    for tr in t.replay.transitions.iter().filter(|tr| tr.to == Phase::Debate && tr.from == Phase::Blind) {
        let line = &t.bus.lines[tr.line];
        if note_of(&line.content).is_some_and(|n| n.revealed.is_some()) || t.legacy {
            continue;
        }
        bare += 1;
        let bypasses = t.replay.window_of[tr.line].and_then(|w| blind_claims.get(&w)).copied().unwrap_or(0);
        if bypasses > 0 {
            r5.push(on_line(&R5_NO_SUFFIX, line, format!("debate opened with no reveal although {bypasses} claim(s) were on the bus during blind: all seal bypasses (CX-G2)")));
        }
    }
    let n = t.replay.blocks.len();
    let mut out = verdict(&R1_BLOCK_SHAPE, r1, n, "reveal blocks");
    out.extend(verdict(&R2_BLOCK_ORDER, r2, n, "reveal blocks"));
    out.extend(if r3.iter().all(|r| r.outcome == Outcome::CantTell) && !r3.is_empty() {
        r3.into_results(&R3_BLOCK_TIMING)
    } else {
        verdict(&R3_BLOCK_TIMING, r3, n, "reveal blocks")
    });
    out.extend(if r4.iter().all(|r| r.outcome == Outcome::CantTell) && !r4.is_empty() {
        r4.into_results(&R4_CHRONOLOGY)
    } else {
        verdict(&R4_CHRONOLOGY, r4, n, "reveal blocks")
    });
    out.extend(verdict(&R5_NO_SUFFIX, r5, bare, "debate notes without a reveal count"));
    out
}

fn envelopes(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut r6, mut r7) = (Findings::default(), Findings::default());
    let mut lines = 0;
    for (stem, bytes) in &t.arena.sealed {
        let file = format!(".sealed/{stem}.jsonl");
        let b = match bytes {
            Ok(b) => b,
            Err(e) => {
                r7.push(CheckResult::new(&R7_ENVELOPE, Outcome::CantTell, file.clone(), format!("{file} {e}")));
                continue;
            }
        };
        let env = super::bus::parse(b);
        let mut parsed = 0;
        for entry in env.entries() {
            let line = match entry {
                Entry::Line(_, line) => line,
                Entry::Run(run) => {
                    // Lines that are no message or bare objects, built only while listed or named.
                    let dropped = run.count - run.blank;
                    parsed += dropped;
                    lines += dropped;
                    let shown =
                        r7.push_shown(run.lines().filter(|l| l.content != Content::Blank).take(dropped), |line| {
                            let problem = match &line.content {
                                Content::NotUtf8(_) => "is not UTF-8".to_owned(),
                                // A bare object: no `type`, so no claim.
                                Content::Message(m) => format!("is a {}, not a claim", m.kind()),
                                _ => format!(
                                    "is not a JSON object ({}); the reveal drops it silently",
                                    super::bus::malformed_reason(line.text.unwrap_or(""))
                                ),
                            };
                            on_file(&R7_ENVELOPE, &file, format!("{file} line {} {problem}", line.physical))
                                .with("physical", line.physical)
                        });
                    r7.count(dropped - shown, R7_ENVELOPE.level, Outcome::Failed);
                    continue;
                }
            };
            let problem = match &line.content {
                Content::Message(m) if m.kind() != "claim" => format!("is a {}, not a claim", m.kind()),
                Content::Message(m) if m.from() != stem => format!("is signed {:?} in {stem}'s envelope", m.from()),
                _ => String::new(),
            };
            parsed += 1;
            lines += 1;
            if !problem.is_empty() {
                r7.push(
                    on_file(&R7_ENVELOPE, &file, format!("{file} line {} {problem}", line.physical))
                        .with("physical", line.physical),
                );
            }
        }
        if parsed > 0 {
            let r = on_file(
                &R6_STRANDED,
                &file,
                format!("{parsed} sealed line(s) in {file} while task.md says {}", t.task_phase.as_str()),
            );
            r6.push(if t.task_phase == Phase::Blind { at_level(r, Level::Info) } else { r });
        }
    }
    let mut out = verdict(&R6_STRANDED, r6, 1, "envelope directory");
    out.extend(verdict(&R7_ENVELOPE, r7, lines, "envelope lines"));
    out
}

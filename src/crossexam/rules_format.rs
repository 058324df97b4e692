//! Rules F1–F11: framing and schema of the bus, `task.md` and the envelopes.

use super::bus::{Content, Entry, Line, valid_seat};
use super::checks::{
    F1_UTF8, F2_LINE_END, F3_PARSE, F4_DRIFT, F5_FIELDS, F6_TYPE, F7_SEAT, F8_LENGTH, F9_VIA, F10_TS, F11_FINGERPRINT,
};
use super::judge::{Findings, Transcript, at_level, on_file, on_line, verdict};
use crate::report::{CheckResult, Level, Outcome};
use crate::stats::time::parse_timestamp;

const TYPES: [&str; 5] = ["claim", "verify", "challenge", "concede", "info"];

/// Every F rule.
pub(crate) fn check(t: &Transcript<'_>) -> Vec<CheckResult> {
    let mut out = utf8(t);
    out.extend(line_ends(t));
    out.extend(parse_and_drift(t));
    out.extend(fields(t));
    out
}

fn utf8_problem(bytes: &[u8]) -> Option<String> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Some("starts with a UTF-8 byte-order mark".into());
    }
    std::str::from_utf8(bytes).err().map(|e| format!("invalid UTF-8 at byte {}", e.valid_up_to()))
}

fn utf8(t: &Transcript<'_>) -> Vec<CheckResult> {
    let mut failures = Findings::default();
    let mut judged = 1;
    if t.bus.bom {
        failures.push(on_file(
            &F1_UTF8,
            "bus.jsonl",
            "bus.jsonl starts with a byte-order mark: the tool cannot parse line 1",
        ));
    }
    for run in t.bus.runs.iter().filter(|r| r.not_utf8() > 0) {
        // Taken no further than the run's last such line: a run is read again only that far.
        let undecoded = run
            .lines()
            .filter_map(|l| if let Content::NotUtf8(at) = l.content { Some((l, at)) } else { None })
            .take(run.not_utf8());
        let shown = failures.push_shown(undecoded, |(line, at)| {
            on_line(
                &F1_UTF8,
                &line,
                format!(
                    "line {} holds invalid UTF-8 at byte {at}; the tool would crash reading the bus",
                    line.physical
                ),
            )
            .with("byteOffset", at)
        });
        failures.count(run.not_utf8() - shown, F1_UTF8.level, Outcome::Failed);
    }
    let mut side = |name: String, bytes: &[u8]| {
        judged += 1;
        if let Some(p) = utf8_problem(bytes) {
            failures.push(on_file(&F1_UTF8, &name, format!("{name} {p}")));
        }
    };
    if let Some(Ok(task)) = &t.arena.task {
        side("task.md".into(), task);
    }
    for (stem, bytes) in &t.arena.sealed {
        if let Ok(b) = bytes {
            side(format!(".sealed/{stem}.jsonl"), b);
        }
    }
    verdict(&F1_UTF8, failures, judged, "files")
}

fn line_ends(t: &Transcript<'_>) -> Vec<CheckResult> {
    if t.arena.bus.is_empty() {
        return verdict(&F2_LINE_END, Findings::default(), 0, "non-empty bus");
    }
    let mut failures = Findings::default();
    if !t.bus.ends_with_newline {
        failures.push(on_file(&F2_LINE_END, "bus.jsonl", "the last line has no line end: a torn write or a hand edit"));
    }
    if t.bus.mixed_line_ends() {
        failures.push(at_level(
            on_file(&F2_LINE_END, "bus.jsonl", "the bus mixes LF and CRLF line ends (writers on different systems)"),
            Level::Info,
        ));
    }
    verdict(&F2_LINE_END, failures, 1, "bus ending")
}

fn parse_and_drift(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut parse, mut drift) = (Findings::default(), Findings::default());
    let mut shift = 0;
    // Messages parse; blank and malformed lines are in runs, whose lines are rebuilt only for
    // the findings listed or named.
    for entry in t.bus.entries() {
        match entry {
            Entry::Line(_, line) => {
                if !line.drift.is_empty() {
                    shift += line.pieces.saturating_sub(1);
                    drift.push(drift_finding(line, shift));
                }
            }
            Entry::Run(run) => {
                let (mut blank, mut malformed) = (0, 0);
                let skipped = run
                    .lines()
                    .filter(|l| matches!(l.content, Content::Blank | Content::Malformed))
                    .take(run.blank + run.malformed);
                parse.push_shown(skipped, |line| {
                    if line.content == Content::Blank {
                        blank += 1;
                        at_level(
                            on_line(&F3_PARSE, &line, "blank line: the tool skips it but it uses up a number"),
                            Level::Warning,
                        )
                    } else {
                        malformed += 1;
                        on_line(
                            &F3_PARSE,
                            &line,
                            format!(
                                "line {} is not a JSON object ({}); the tool skips it as malformed",
                                line.physical,
                                super::bus::malformed_reason(line.text.unwrap_or(""))
                            ),
                        )
                    }
                });
                parse.count(run.blank - blank, Level::Warning, Outcome::Failed);
                parse.count(run.malformed - malformed, F3_PARSE.level, Outcome::Failed);
                let before = shift;
                let drifting = run.lines().filter(|l| !l.drift.is_empty()).take(run.drifting);
                let shown = drift.push_shown(drifting, |line| {
                    shift += line.pieces.saturating_sub(1);
                    drift_finding(&line, shift)
                });
                drift.count(run.drifting - shown, F4_DRIFT.level, Outcome::Failed);
                // Every line but a drifting one is one piece.
                shift = before + (run.pieces - run.count);
            }
        }
    }
    let n = t.bus.physical;
    let mut out = verdict(&F3_PARSE, parse, n, "bus lines");
    out.extend(verdict(&F4_DRIFT, drift, n, "bus lines"));
    out
}

/// CX-F4 on a line with splitlines characters, `shift` the tool's lead over the physical
/// numbers after it.
fn drift_finding(line: &Line<'_>, shift: usize) -> CheckResult {
    let chars: Vec<String> = line.drift.iter().map(|c| format!("U+{:04X}", u32::from(c))).collect();
    on_line(
        &F4_DRIFT,
        line,
        format!(
            "raw {} splits this line into {} pieces for the tool, which drops it; later tool numbers are {shift} above the physical ones",
            chars.join(", "),
            line.pieces
        ),
    )
    .with("shift", shift)
}

fn field_problems(m: &super::bus::Message) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["ts", "from", "type", "msg"] {
        match m.type_of(key) {
            None => out.push(format!("`{key}` is missing")),
            Some(t) if t != "string" => out.push(format!("`{key}` is a {t}, not a string")),
            Some(_) => {}
        }
    }
    for key in ["ref", "via"] {
        if let Some(t) = m.type_of(key).filter(|t| *t != "string") {
            out.push(format!("`{key}` is a {t}, not a string"));
        }
    }
    out
}

/// F5–F11 on one message line, into the per-rule failure lists (built only while listed or
/// named).
fn message_rules(t: &Transcript<'_>, line: &Line, m: &super::bus::Message, f: &mut [Findings; 7]) {
    // Absent, or a string: only then are the fields right, so most messages skip the list.
    if !["ts", "from", "type", "msg"].iter().all(|k| m.type_of(k) == Some("string"))
        || ["ref", "via"].iter().any(|k| m.type_of(k).is_some_and(|t| t != "string"))
    {
        f[0].push_failed(F5_FIELDS.level, || on_line(&F5_FIELDS, line, field_problems(m).join("; ")));
    }
    if let Some(kind) = m.field("type").filter(|k| !TYPES.contains(k)) {
        f[1].push_failed(F6_TYPE.level, || {
            on_line(&F6_TYPE, line, format!("type {kind:?} is not one of {}", TYPES.join(", ")))
        });
    }
    if let Some(from) = m.sender().filter(|s| !valid_seat(s)) {
        let level = if t.legacy { Level::Warning } else { F7_SEAT.level };
        f[2].push_failed(level, || {
            let r = on_line(
                &F7_SEAT,
                line,
                format!("seat name {from:?} is not a valid seat name (letters, digits, `._-`, 1–64)"),
            );
            if t.legacy { at_level(r, Level::Warning) } else { r }
        });
    }
    if let Some(n) = m.field("msg").map(|s| s.chars().count()).filter(|n| *n > 1200) {
        f[3].push_failed(F8_LENGTH.level, || {
            on_line(&F8_LENGTH, line, format!("msg has {n} code points (limit 1200)")).with("codePoints", n)
        });
    }
    if let Some(via) = m.field("via").filter(|v| !matches!(*v, "api" | "clipboard")) {
        f[4].push_failed(F9_VIA.level, || on_line(&F9_VIA, line, format!("via {via:?} is not api or clipboard")));
    }
    if let Some(ts) = m.ts().filter(|ts| parse_timestamp(ts).is_none()) {
        f[5].push_failed(F10_TS.level, || {
            on_line(&F10_TS, line, format!("ts {ts:?} is not an RFC 3339 timestamp with an offset"))
        });
    }
    if !line.tool_form {
        f[6].push_failed(F11_FINGERPRINT.level, || not_tool_form(line));
    }
}

fn not_tool_form(line: &Line) -> CheckResult {
    on_line(&F11_FINGERPRINT, line, "not byte-identical to any tool writer's serialisation (hand-written line)")
}

fn fields(t: &Transcript<'_>) -> Vec<CheckResult> {
    let mut f: [Findings; 7] = Default::default();
    let mut judged = [0usize; 7];
    for entry in t.bus.entries() {
        let line = match entry {
            Entry::Line(_, line) => line,
            Entry::Run(run) => {
                // Bare objects hold no string field: each fails CX-F5 and CX-F11 and no other
                // F rule judges it; built only while listed or named.
                judged[0] += run.bare;
                judged[6] += run.bare;
                let bare = || run.lines().filter(|l| l.message().is_some()).take(run.bare);
                let shown = f[0].push_shown(bare(), |line| {
                    let problems = line.message().map(field_problems).unwrap_or_default();
                    on_line(&F5_FIELDS, &line, problems.join("; "))
                });
                f[0].count(run.bare - shown, F5_FIELDS.level, Outcome::Failed);
                let shown = f[6].push_shown(bare(), |line| not_tool_form(&line));
                f[6].count(run.bare - shown, F11_FINGERPRINT.level, Outcome::Failed);
                continue;
            }
        };
        let Some(m) = line.message() else { continue };
        judged[0] += 1;
        judged[1] += usize::from(m.field("type").is_some());
        judged[2] += usize::from(m.sender().is_some());
        judged[3] += usize::from(m.field("msg").is_some());
        judged[4] += usize::from(m.field("via").is_some());
        judged[5] += usize::from(m.ts().is_some());
        judged[6] += 1;
        message_rules(t, line, m, &mut f);
    }
    let checks = [&F5_FIELDS, &F6_TYPE, &F7_SEAT, &F8_LENGTH, &F9_VIA, &F10_TS, &F11_FINGERPRINT];
    let what = ["messages", "types", "seat names", "messages", "via fields", "timestamps", "messages"];
    let mut out = Vec::new();
    for (i, failures) in f.into_iter().enumerate() {
        out.extend(verdict(checks[i], failures, judged[i], what[i]));
    }
    out
}

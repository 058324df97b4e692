//! What every rule module shares: the replayed transcript and how one rule's findings become
//! results (one failure per violation, else one pass, or inapplicable when nothing was there
//! to judge).

use super::bus::{Bus, Line, Phase};
use super::load::Arena;
use super::replay::Replay;
use crate::checks::Check;
use crate::report::{CheckResult, Level, Outcome};

/// The transcript as the rules see it.
pub(crate) struct Transcript<'a> {
    /// The directory as read.
    pub arena: &'a Arena,
    /// The bus.
    pub bus: &'a Bus<'a>,
    /// Its replay.
    pub replay: &'a Replay,
    /// Transcripts from before sealed envelopes (0.1.0–0.4.x).
    pub legacy: bool,
    /// `task.md`'s phase as the tool reads it (blind without a valid marker; debate in legacy).
    pub task_phase: Phase,
    /// Whether `task.md` was readable at all (its phase is then known, valid or not).
    pub task_readable: bool,
}

/// A failure of `check` on a bus line.
pub(crate) fn on_line(check: &Check, line: &Line, message: impl Into<String>) -> CheckResult {
    CheckResult::new(check, Outcome::Failed, line.label(), message)
        .with("line", line.tool)
        .with("physical", line.physical)
        .at(Some("transcript"), Some("bus.jsonl"), None)
}

/// A failure of `check` on a file of the transcript.
pub(crate) fn on_file(check: &Check, file: &str, message: impl Into<String>) -> CheckResult {
    CheckResult::new(check, Outcome::Failed, file, message).at(Some("transcript"), Some(file), None)
}

/// A result at a level other than the rule's own (the note's dialect levels: blank lines,
/// legacy seat names and blind claims, repeats, pending envelopes).
pub(crate) fn at_level(mut r: CheckResult, level: Level) -> CheckResult {
    r.level = level;
    r
}

/// How many findings of one rule are listed one by one; the rest are counted in one result, so
/// a bus of a million bad lines costs a bounded report (specs/crossexam.md, "Budget").
pub(crate) const LISTED: usize = 100;

/// How many subjects of the findings past [`LISTED`] that one result names.
const NAMED: usize = 10;

/// One rule's findings: the first [`LISTED`] kept, the rest counted with their most severe
/// level (so the summary never weakens the verdict) and their first few subjects.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    kept: Vec<CheckResult>,
    more: usize,
    level: Option<Level>,
    outcome: Option<Outcome>,
    subjects: Vec<String>,
}

impl Findings {
    pub(crate) fn push(&mut self, r: CheckResult) {
        if self.kept.len() < LISTED {
            self.kept.push(r);
            return;
        }
        self.more += 1;
        // Error < Warning < Info: the minimum is the most severe.
        self.level = Some(self.level.map_or(r.level, |l| l.min(r.level)));
        if r.outcome == Outcome::Failed || self.outcome.is_none() {
            self.outcome = Some(r.outcome);
        }
        if self.subjects.len() < NAMED {
            self.subjects.push(r.subject);
        }
    }

    /// Pushes a finding per item, `make` building each, for as long as they are listed or
    /// named; returns how many. The rest are then [`Self::count`]ed, unbuilt, so that a run of
    /// a million bad lines builds 110 results, not a million.
    pub(crate) fn push_shown<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut make: impl FnMut(T) -> CheckResult,
    ) -> usize {
        let mut items = items.into_iter();
        let mut pushed = 0;
        while self.kept.len() < LISTED || self.subjects.len() < NAMED {
            let Some(item) = items.next() else { break };
            self.push(make(item));
            pushed += 1;
        }
        pushed
    }

    /// Pushes the failure `make` builds, at `level`, while findings are listed or named; past
    /// them counts it unbuilt (a label, a message and evidence a line cost a third of a replay
    /// of one-field objects).
    pub(crate) fn push_failed(&mut self, level: Level, make: impl FnOnce() -> CheckResult) {
        if self.kept.len() < LISTED || self.subjects.len() < NAMED {
            self.push(make());
        } else {
            self.count(1, level, Outcome::Failed);
        }
    }

    /// Counts `n` findings past those listed and named, as `n` pushes of results at `level`
    /// with `outcome` would.
    pub(crate) fn count(&mut self, n: usize, level: Level, outcome: Outcome) {
        if n == 0 {
            return;
        }
        debug_assert!(self.kept.len() >= LISTED && self.subjects.len() >= NAMED, "counted while still shown");
        self.more += n;
        self.level = Some(self.level.map_or(level, |l| l.min(level)));
        if outcome == Outcome::Failed || self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// The listed findings (the counted ones share their outcome kinds).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &CheckResult> {
        self.kept.iter()
    }

    /// The listed findings and, past [`LISTED`], one result counting the rest.
    pub(crate) fn into_results(self, check: &Check) -> Vec<CheckResult> {
        let mut out = self.kept;
        if let (Some(level), Some(outcome)) = (self.level, self.outcome) {
            let named = self.subjects.join(", ");
            let r = CheckResult::new(
                check,
                outcome,
                "bus.jsonl",
                format!(
                    "{} more findings of this rule, not listed one by one (first: {named}{})",
                    self.more,
                    if self.more > self.subjects.len() { ", …" } else { "" }
                ),
            )
            .with("more", self.more)
            .with("subjects", self.subjects)
            .at(Some("transcript"), Some("bus.jsonl"), None);
            out.push(at_level(r, level));
        }
        out
    }
}

impl FromIterator<CheckResult> for Findings {
    fn from_iter<I: IntoIterator<Item = CheckResult>>(iter: I) -> Self {
        let mut f = Findings::default();
        for r in iter {
            f.push(r);
        }
        f
    }
}

/// `failures` when there are any; else one pass over the `judged` things, or inapplicable
/// when there were none.
pub(crate) fn verdict(check: &Check, failures: Findings, judged: usize, what: &str) -> Vec<CheckResult> {
    if !failures.is_empty() {
        return failures.into_results(check);
    }
    let r = if judged == 0 {
        CheckResult::new(check, Outcome::Inapplicable, "transcript", format!("no {what} to judge"))
    } else {
        CheckResult::new(check, Outcome::Passed, "transcript", format!("{judged} {what} checked"))
    };
    vec![r.with("judged", judged)]
}

/// The message kinds that argue (everything but info).
pub(crate) const ARGUING: [&str; 4] = ["claim", "verify", "challenge", "concede"];

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::crossexam::load::Arena;
    use crate::report::{Level, Outcome};

    fn arena(bus: Vec<u8>) -> Arena {
        Arena {
            dir: Path::new("/nonexistent-crossverify-test/_Msg").to_owned(),
            bus,
            task: Some(Ok(b"status: debate\n".to_vec())),
            sealed: Vec::new(),
            seen: Vec::new(),
            synthesis: None,
            lock_dirs: Vec::new(),
        }
    }

    /// The replay runs on every core (lines read in parallel, rule groups side by side): the
    /// report is the same for one thread and for four on a bus long enough to be split.
    #[test]
    fn the_report_is_the_same_for_any_number_of_threads() {
        let kinds: [&[u8]; 6] = [
            br#"{"ts": "2026-11-30T12:00:00+00:00", "from": "a", "type": "claim", "msg": "x"}"#,
            br#"{"ts": "2026-11-30T12:00:01+00:00", "from": "moderator", "type": "info", "msg": "phase -> debate (2 sealed claim(s) revealed)"}"#,
            br#"{"ts": "2026-11-30T12:00:02+00:00", "from": "b\u0062", "type": "verify", "msg": "q \"y\"", "ref": "r"}"#,
            b"",
            b"not json \xff",
            br#"{"ts": "1", "ts": "2"}"#,
        ];
        let bus: Vec<u8> = (0..6000).flat_map(|i| [kinds[(i * 7 + i / 13) % kinds.len()], b"\n"].concat()).collect();
        let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("pool");
        let arena = arena(bus);
        let judge = |n: usize| pool(n).install(|| crate::crossexam::judge(&arena, false));
        assert_eq!(judge(1), judge(4));
    }

    #[test]
    fn findings_past_the_list_are_counted_at_their_most_severe_level() {
        // 150 blank lines (warnings), then one non-JSON line (an error) past the listed 100.
        let mut bus = vec![b'\n'; 150];
        bus.extend_from_slice(b"x\n");
        let report = crate::crossexam::judge(&arena(bus), false);
        let f3: Vec<_> = report.results.iter().filter(|r| r.code == "CX-F3").collect();
        assert_eq!(f3.len(), super::LISTED + 1);
        assert!(f3[..super::LISTED].iter().all(|r| r.level == Level::Warning));
        let counted = f3.iter().find(|r| r.evidence.contains_key("more")).expect("a counting result");
        assert_eq!((counted.outcome, counted.level), (Outcome::Failed, Level::Error), "{counted:#?}");
        assert_eq!(counted.evidence["more"], 51);
        assert!(
            counted.message.starts_with("51 more findings") && counted.message.contains("bus #101"),
            "{counted:#?}"
        );
        // The views show the first lines and every line with a listed violation, and say so.
        let bus_table = report
            .views
            .iter()
            .find_map(|v| match v {
                crate::report::View::Table(t) if t.id == "bus" => Some(t),
                _ => None,
            })
            .expect("the bus table");
        assert_eq!(bus_table.rows.len(), 151, "under the view limit every line is shown");
    }

    #[test]
    fn a_huge_bus_has_bounded_views() {
        let report = crate::crossexam::judge(&arena(vec![b'\n'; 5000]), false);
        let bus_table = report
            .views
            .iter()
            .find_map(|v| match v {
                crate::report::View::Table(t) if t.id == "bus" => Some(t),
                _ => None,
            })
            .expect("the bus table");
        // The first 2,000 lines, plus the 100 listed blank-line findings (all among them).
        assert_eq!(bus_table.rows.len(), 2000);
        assert!(bus_table.note.as_deref().is_some_and(|n| n.contains("3000 lines left out")), "{:?}", bus_table.note);
    }
}

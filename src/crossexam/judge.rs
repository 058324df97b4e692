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
    pub bus: &'a Bus,
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

/// `failures` when there are any; else one pass over the `judged` things, or inapplicable
/// when there were none.
pub(crate) fn verdict(check: &Check, failures: Vec<CheckResult>, judged: usize, what: &str) -> Vec<CheckResult> {
    if !failures.is_empty() {
        return failures;
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

//! CrossExam transcripts (`_Msg/` directories): the bus replayed as the tool numbers it, the
//! phase notes, reveal blocks and sealed envelopes, and every numbered rule of the format note
//! §12 as a check whose code is the rule ID (`CX-G1`). See `specs/crossexam.md`.
//!
//! Layers inside: `bus` splits and numbers the bytes (pure, fuzzed), [`load`] reads the
//! directory, `replay` derives phases and reveal blocks, the `rules_*`/`refs`/`history`
//! modules judge, `views` draws, [`stats_input`] converts to the neutral records of `stats`.

pub(crate) mod bus;
pub mod checks;
mod history;
mod judge;
pub mod load;
mod phase;
pub mod protocol;
mod refs;
pub(crate) mod replay;
mod rules_format;
mod rules_phase;
mod rules_side;
mod serial;
pub mod stats_input;
mod views;

use std::path::{Path, PathBuf};

use serde_json::json;

pub use checks::{CHECKS, FAMILY};
pub use load::Error;
pub use refs::{anchors, slug};

use crate::report::Report;

/// What `crossverify transcript` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The `_Msg/` directory.
    pub dir: PathBuf,
    /// Transcripts from before sealed envelopes (0.1.0–0.4.x): blind claims on the bus are
    /// legal, seat names unchecked, a missing phase marker reads as debate.
    pub legacy: bool,
    /// Earlier snapshots of `bus.jsonl` that must be byte prefixes of it.
    pub priors: Vec<PathBuf>,
}

impl Options {
    /// Options for `dir` with defaults.
    #[must_use]
    pub fn new(dir: &Path) -> Self {
        Options { dir: dir.to_owned(), ..Options::default() }
    }
}

/// `crossverify transcript`: replays the transcript and reports every rule.
///
/// # Errors
/// [`Error::Input`] when the directory or its `bus.jsonl` cannot be read.
pub fn transcript(opts: &Options) -> Result<Report, Error> {
    let arena = load::read(&opts.dir)?;
    let mut report = Report::new("transcript");
    report.input("transcript", opts.dir.display().to_string());
    report.input("bus", opts.dir.join("bus.jsonl").display().to_string());
    report.input("legacy", opts.legacy);
    if !opts.priors.is_empty() {
        report.input("prior", opts.priors.iter().map(|p| p.display().to_string()).collect::<Vec<_>>());
    }
    let mut i3 = history::priors(&opts.priors, &arena.bus);
    i3.extend(history::git(&opts.dir, &arena.bus, !opts.priors.is_empty()));
    if i3.is_empty() {
        i3.push(crate::report::CheckResult::new(
            &checks::I3_PREFIX,
            crate::report::Outcome::CantTell,
            "bus.jsonl",
            "no earlier snapshot (--prior) and no git history: append-only cannot be proved from one snapshot",
        ));
    }
    // History first, on its own: it holds earlier versions of the bus, and the replay's peak
    // should not stack on them. The digest runs beside the bus's parse.
    let mut digest = String::new();
    judge_into(&mut report, &arena, opts.legacy, i3, || digest = crate::manifest::Digest::of(&arena.bus).hex());
    report.input("busSha256", digest);
    report.finish();
    Ok(report)
}

/// Every rule but CX-I3 (which needs history) on an arena already read, twice the same for the
/// same arena; the fuzz target `crossexam_bus` runs this on arenas built in memory.
#[must_use]
pub fn judge(arena: &load::Arena, legacy: bool) -> Report {
    let mut report = Report::new("transcript");
    judge_into(&mut report, arena, legacy, Vec::new(), || ());
    report.finish();
    report
}

/// Judges `arena` into `report`, with `history`'s results (CX-I3) last, running `beside` next
/// to the bus's parse. Parts that do not depend on each other run on every core; each part's
/// results keep their place, so the report is the same for any number of threads.
fn judge_into(
    report: &mut Report,
    arena: &load::Arena,
    legacy: bool,
    history: Vec<crate::report::CheckResult>,
    beside: impl FnOnce() + Send,
) {
    let (bus, ()) = rayon::join(|| bus::parse(&arena.bus), beside);
    let replayed = replay::replay(&bus);
    let (task_phase, task_readable) = match &arena.task {
        Some(Ok(b)) => (replay::task_marker(&String::from_utf8_lossy(b)).map(|m| m.0), true),
        Some(Err(_)) => (None, false),
        None => (None, true),
    };
    let fallback = if legacy { bus::Phase::Debate } else { bus::Phase::Blind };
    let t = judge::Transcript {
        arena,
        bus: &bus,
        replay: &replayed,
        legacy,
        task_phase: task_phase.unwrap_or(fallback),
        task_readable,
    };
    let (mut results, later) = rayon::join(
        || {
            let mut r = rules_format::check(&t);
            r.extend(rules_phase::check(&t));
            r
        },
        || {
            let mut r = refs::check(&t);
            r.extend(rules_side::check(&t));
            r
        },
    );
    results.extend(later);
    results.extend(history);
    report.results = results;
    add_stats(report, &t);
    views::add(report, &t);
}

fn add_stats(report: &mut Report, t: &judge::Transcript<'_>) {
    const KINDS: [&str; 5] = ["claim", "verify", "challenge", "concede", "info"];
    // One pass over the bus, without a list of its messages.
    let (mut messages, mut counts) = (0usize, [0usize; KINDS.len()]);
    for m in t.bus.lines.iter().filter_map(|l| l.message()) {
        messages += 1;
        if let Some(k) = KINDS.iter().position(|k| *k == m.kind()) {
            counts[k] += 1;
        }
    }
    // Bare objects are messages the runs count.
    messages += t.bus.runs.iter().map(|r| r.bare).sum::<usize>();
    let s = &mut report.stats;
    s.insert("physicalLines".into(), t.bus.physical.into());
    s.insert("toolLines".into(), t.bus.tool_count.into());
    s.insert("messages".into(), messages.into());
    for (k, n) in KINDS.iter().zip(counts) {
        s.insert(format!("{k}s"), n.into());
    }
    s.insert("seats".into(), json!(views::seats(t).keys().collect::<Vec<_>>()));
    s.insert("revealBlocks".into(), t.replay.blocks.len().into());
    s.insert("replayedPhase".into(), t.replay.final_phase.as_str().into());
    s.insert("taskPhase".into(), t.task_phase.as_str().into());
    s.insert(
        "phaseSequence".into(),
        json!(
            t.replay
                .transitions
                .iter()
                .map(|x| format!("{}@#{}", x.to.as_str(), t.bus.lines[x.line].tool))
                .collect::<Vec<_>>()
        ),
    );
}

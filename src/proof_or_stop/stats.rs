//! The statistics adapter: a story's `findings.json` (or a directory of stories) as the
//! neutral records of [`crate::stats`], one cycle per review round, so the generic
//! finding-lifecycle figures (opened and closed per round, closure lag in rounds) apply
//! unchanged. Open findings on stories that reached `done` are this module's own result.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::review::{self, Findings};
use crate::manifest::Digest;
use crate::report::{CheckResult, Outcome};
use crate::stats::Error;
use crate::stats::input::Input;
use crate::stats::model::{Closure, CycleRecord, FindingRecord, Group, InputKind, Numbering, Records, Terms};

/// The input kind `stats` reports.
pub const KIND: InputKind =
    InputKind::new("proof-or-stop-findings", "Proof-or-Stop findings.json records, one cycle per review round")
        .numbering(Numbering { name: |n| format!("R{n}"), unnumbered: "some review rounds carry no number" })
        .terms(Terms { order: "round", number: "round" });

const FINDINGS: &str = "findings.json";

/// The `findings.json` files of `path`: its own, or those of its subdirectories (one per
/// story), sorted.
fn story_files(path: &Path) -> Vec<PathBuf> {
    if path.join(FINDINGS).is_file() {
        return vec![path.join(FINDINGS)];
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(path)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path().join(FINDINGS)).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Whether `path` is a Proof-or-Stop evidence directory (a story's, or a directory of them).
#[must_use]
pub fn is_evidence(path: &Path) -> bool {
    path.is_dir() && !story_files(path).is_empty()
}

/// Reads the evidence directory into the neutral records.
///
/// # Errors
/// [`Error::Input`] naming the file when a `findings.json` is unreadable or malformed.
pub fn read(path: &Path) -> Result<Input, Error> {
    let mut stories = Vec::new();
    let mut read = BTreeMap::new();
    for f in story_files(path) {
        let bytes = super::live::read_file(&f, review::MAX_FINDINGS_BYTES as u64).map_err(Error::Input)?;
        let parsed = review::findings(&bytes).map_err(|e| Error::Input(format!("{}: {e}", f.display())))?;
        let rel = f.strip_prefix(path).unwrap_or(&f).to_string_lossy().into_owned();
        read.insert(rel, Digest::of(&bytes).hex());
        stories.push(parsed);
    }
    let mut input = Input::new(records(&stories));
    input.read = read;
    input.results.push(open_on_done(&stories));
    Ok(input)
}

/// One cycle per round: the findings filed in it, and those resolved or dismissed in it.
#[must_use]
pub fn records(stories: &[Findings]) -> Records {
    let mut r = Records::new(KIND);
    let last = stories
        .iter()
        .flat_map(|s| s.findings.iter())
        .flat_map(|f| std::iter::once(f.filed_round).chain(f.resolution.iter().map(|(round, _)| *round)))
        .max()
        .unwrap_or(0);
    for round in 1..=last {
        let mut c = CycleRecord {
            id: format!("R{round}"),
            number: u64::try_from(round).ok(),
            findings: Some(Vec::new()),
            verified_closed: Some(Vec::new()),
            ..CycleRecord::default()
        };
        for s in stories {
            for f in &s.findings {
                let id = format!("{}/{}", s.story, f.id);
                if f.filed_round == round
                    && let Some(list) = c.findings.as_mut()
                {
                    list.push(FindingRecord {
                        id: id.clone(),
                        severity: Some(f.severity.clone()),
                        ..Default::default()
                    });
                }
                let closed =
                    f.resolution.iter().any(|(at, a)| *at == round && matches!(a.as_str(), "resolve" | "dismiss"));
                if closed && let Some(list) = c.verified_closed.as_mut() {
                    list.push(Closure::plain(&id));
                }
            }
        }
        r.cycles.push(c);
    }
    r.cannot_measure(&[Group::Durations], "findings.json records rounds, not times");
    r.cannot_measure(&[Group::Models], "review records name lanes and hosts, not models");
    r.cannot_measure(
        &[Group::Decisions, Group::Gate, Group::DecisionVsBlocking],
        "a review round has no single decision",
    );
    r.cannot_measure(&[Group::Scopes, Group::Rules], "Proof-or-Stop findings cite no rules and block no scopes");
    r.cannot_measure(&[Group::Labels], "Proof-or-Stop findings carry no source or class label");
    r.cannot_measure(&[Group::FixCommits], "resolutions name rounds, not fix commits");
    r
}

/// Open findings on stories that reached `done` (the paper reports 41 in its corpus: done
/// does not mean "no known issues").
fn open_on_done(stories: &[Findings]) -> CheckResult {
    let open: Vec<String> = stories
        .iter()
        .filter(|s| s.phase == "done")
        .flat_map(|s| s.findings.iter().filter(|f| f.status == "open").map(move |f| format!("{}/{}", s.story, f.id)))
        .collect();
    let done = stories.iter().filter(|s| s.phase == "done").count();
    CheckResult::new(
        &super::DONE_GATE,
        Outcome::Inapplicable,
        "stories marked done",
        format!(
            "{} open finding(s) on {done} story(ies) marked done (reported, not gated: stats reads no live state)",
            open.len()
        ),
    )
    .with("openOnDone", open.len())
    .with("findings", open)
}

//! `crossverify floor`: the review-assurance floor (paper Eq. 4–5) and the done gate (§8).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::commands::{Error, read_input};
use super::identity::EMPTY_STORY_FILES_HASH;
use super::live::{self, Live, Sources};
use super::review::{self, Finding, Findings, Kind, Record};
use super::trust_store::TrustStore;
use super::{DONE_GATE, FLOOR, RECORD_REJECTED};
use crate::git::Repo;
use crate::report::{CheckResult, Outcome as O, Report, Table, View};

/// What `crossverify floor` was asked.
#[derive(Debug, Clone)]
pub struct FloorOptions {
    /// The evidence directory.
    pub evidence: PathBuf,
    /// The repository.
    pub repo: PathBuf,
    /// Its revision (default `HEAD`).
    pub rev: Option<String>,
    /// The trust store.
    pub trust_store: PathBuf,
    /// R (default: the live policy's).
    pub rounds: Option<u32>,
    /// K (default: the live policy's).
    pub per_round: Option<u32>,
    /// The live configuration.
    pub sources: Sources,
}

/// Largest K searched for (pairwise independence over K-subsets).
pub const MAX_PER_ROUND: usize = 16;

/// Whether a verified record is bound to the live state: `materialHash` equal, or
/// `storyFilesHash` equal with neither side the empty-story hash; and the live policy.
#[must_use]
pub fn fresh(r: &Record, live: &Live) -> bool {
    let b = &r.binding;
    let sfh = &b["storyFilesHash"];
    b["policyHash"] == live.policy_hash
        && (b["materialHash"] == live.material_hash
            || (*sfh == live.story_files_hash
                && sfh != EMPTY_STORY_FILES_HASH
                && live.story_files_hash != EMPTY_STORY_FILES_HASH))
}

/// Whether `passes` hold `k` records pairwise different in host, session and key.
#[must_use]
pub fn independent(passes: &[&Record], k: usize) -> bool {
    fn pick(passes: &[&Record], k: usize, start: usize, chosen: &mut Vec<usize>) -> bool {
        if chosen.len() == k {
            return true;
        }
        for i in start..passes.len() {
            let p = &passes[i].producer;
            let apart = chosen.iter().all(|&j| {
                let q = &passes[j].producer;
                p.host != q.host && p.session != q.session && p.key_id != q.key_id
            });
            if apart {
                chosen.push(i);
                if pick(passes, k, i + 1, chosen) {
                    return true;
                }
                chosen.pop();
            }
        }
        false
    }
    pick(passes, k, 0, &mut Vec::new())
}

/// Whether an open finding blocks done at `round` under the live policy.
#[must_use]
pub fn blocks(f: &Finding, round: i64, live: &Live) -> bool {
    let p = &live.policy;
    if f.status != "open" {
        return false;
    }
    if f.evidence_state.as_deref() != Some("verified") && !p.unverified_blocks {
        return false;
    }
    match f.severity.as_str() {
        "critical" => true,
        "high" => round < p.high_advisory_from,
        "medium" => round < p.medium_advisory_from,
        "low" => round < p.low_advisory_from,
        _ => true,
    }
}

/// The verified records by file name, and a result for each rejected one.
type Read = (Vec<(String, Record)>, Vec<CheckResult>);

fn read_records(o: &FloorOptions, store: &TrustStore) -> Result<Read, Error> {
    let dir = o.evidence.join("verdicts");
    let mut names: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| Error::Input(format!("{}: {e}", dir.display())))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::Input(format!("{}: {e}", dir.display()))),
    };
    names.retain(|p| p.extension().is_some_and(|x| x == "json"));
    names.sort();
    let mut ok = Vec::new();
    let mut results = Vec::new();
    for p in names {
        let name = format!("verdicts/{}", p.file_name().map(|f| f.to_string_lossy()).unwrap_or_default());
        let bytes = read_input(&p, super::envelope::MAX_BUNDLE_BYTES as u64 + 1)?;
        match review::verify(&bytes, store) {
            Ok(r) => ok.push((name, r)),
            Err(rej) => results.push(
                CheckResult::new(
                    &RECORD_REJECTED,
                    O::Failed,
                    &name,
                    format!("{}: {} {}", rej.reason().as_str(), rej.step.as_str(), rej.detail),
                )
                .with("reason", rej.reason().as_str()),
            ),
        }
    }
    Ok((ok, results))
}

/// `crossverify floor`.
///
/// # Errors
/// [`Error`] when an input cannot be read or the live state cannot be established.
pub fn floor(o: &FloorOptions) -> Result<Report, Error> {
    let store = super::commands::load_trust(&super::Trust::Store(o.trust_store.clone()))?;
    let fpath = o.evidence.join("findings.json");
    let findings: Findings = review::findings(&read_input(&fpath, review::MAX_FINDINGS_BYTES as u64 + 1)?)
        .map_err(|e| Error::Input(format!("{}: {e}", fpath.display())))?;
    let repo = Repo::open(&o.repo)?.shared().with_tree_cache().local();
    let rev = o.rev.as_deref().unwrap_or("HEAD");
    let live = live::load(&repo, rev, &findings.story, &o.sources)?;
    let (records, mut results) = read_records(o, &store)?;
    if results.is_empty() {
        let m = format!("all {} review records verified", records.len());
        results.push(CheckResult::new(&RECORD_REJECTED, O::Passed, "verdicts/", m));
    }
    let (r_need, k_need) =
        (o.rounds.map_or(live.policy.rounds, i64::from), o.per_round.map_or(live.policy.per_round, i64::from));
    let k = usize::try_from(k_need).ok().filter(|k| (1..=MAX_PER_ROUND).contains(k)).ok_or_else(|| {
        Error::Input(format!("independent passes per round {k_need} is not between 1 and {MAX_PER_ROUND}"))
    })?;
    let mut usable = Vec::new();
    for (name, r) in &records {
        let why = if r.story != findings.story {
            Some(format!("stale: about story {}, not {}", r.story, findings.story))
        } else if !fresh(r, &live) {
            Some("stale: bound to another materialHash (and no storyFilesHash allowance) or policy".to_owned())
        } else {
            None
        };
        match why {
            Some(m) => results.push(CheckResult::new(&RECORD_REJECTED, O::Failed, name, m).with("reason", "stale")),
            None => usable.push(r),
        }
    }
    let current =
        usable.iter().map(|r| r.round).chain(findings.findings.iter().map(|f| f.filed_round)).max().unwrap_or(1);
    let mut per_round: BTreeMap<i64, Vec<&Record>> = BTreeMap::new();
    for r in usable.iter().filter(|r| matches!(&r.kind, Kind::Verdict { verdict, .. } if verdict == "pass")) {
        per_round.entry(r.round).or_default().push(r);
    }
    let qualifying: Vec<i64> = per_round.iter().filter(|(_, v)| independent(v, k)).map(|(r, _)| *r).collect();
    let met = i64::try_from(qualifying.len()).unwrap_or(i64::MAX) >= r_need;
    let degraded = usable.iter().any(|r| matches!(r.kind, Kind::Degradation { .. }));
    let assurance = if met {
        "full-quorum"
    } else if degraded {
        "degraded-single-host"
    } else {
        "none"
    };
    let subject = findings.story.clone();
    let msg = format!(
        "{} of {r_need} rounds have {k} independent fresh passes{}",
        qualifying.len(),
        if degraded && !met {
            " (degraded-single-host recorded: local assurance only, never a full quorum)"
        } else {
            ""
        }
    );
    results.push(
        CheckResult::new(&FLOOR, if met { O::Passed } else { O::Failed }, &subject, msg).with("assurance", assurance),
    );
    let gate = gate(&findings, &usable, current, &live);
    let blocked = gate.iter().any(|(_, b, _)| *b);
    results.extend(gate.iter().map(|(f, b, why)| {
        CheckResult::new(&DONE_GATE, if *b { O::Failed } else { O::Passed }, &f.id, why.clone())
            .with("severity", f.severity.clone())
    }));
    if gate.is_empty() {
        results.push(CheckResult::new(&DONE_GATE, O::Passed, &subject, "no open finding"));
    }
    let mut report = Report::new("floor");
    report.input("evidence", o.evidence.display().to_string());
    report.input("repo", o.repo.display().to_string());
    report.input("rev", rev);
    report.input("commit", live.head.to_string());
    report.identify("repo", &o.repo, Some(&live.head.to_string()));
    report.input("rounds", r_need);
    report.input("perRound", k_need);
    report.results = results;
    report.section("floor", json!({"assurance": assurance, "met": met, "qualifyingRounds": qualifying, "rounds": r_need, "perRound": k_need}));
    report.section("doneGate", json!({"round": current, "blocked": blocked, "phase": findings.phase}));
    report.section(
        "identities",
        json!({"live": {"materialHash": live.material_hash, "headHash": live.head.to_string(), "storyFilesHash": live.story_files_hash}}),
    );
    report.views.push(floor_view(&per_round, &qualifying, k));
    report.views.push(findings_view(&gate, current));
    report.hints.headline = Some(("assurance".into(), assurance.into()));
    report.finish();
    Ok(report)
}

/// Every open finding (and every finding a lane's latest signed `finding` verdict names that
/// `findings.json` lacks) with whether it blocks and why.
fn gate(findings: &Findings, usable: &[&Record], round: i64, live: &Live) -> Vec<(Finding, bool, String)> {
    let mut out: Vec<(Finding, bool, String)> = Vec::new();
    for f in findings.findings.iter().filter(|f| f.status == "open") {
        let b = blocks(f, round, live);
        let word = if b { "blocks" } else { "is advisory for" };
        out.push((f.clone(), b, format!("open {} finding {word} done at round {round}", f.severity)));
    }
    let mut latest: BTreeMap<&str, &Record> = BTreeMap::new();
    for r in usable {
        if let Kind::Verdict { lane, seq, .. } = &r.kind {
            let newer =
                latest.get(lane.as_str()).is_none_or(|l| matches!(&l.kind, Kind::Verdict { seq: s, .. } if seq > s));
            if newer {
                latest.insert(lane, r);
            }
        }
    }
    for r in latest.values() {
        if let Kind::Verdict { finding_ids, lane, .. } = &r.kind {
            for id in finding_ids.iter().filter(|id| !findings.findings.iter().any(|f| &f.id == *id)) {
                let f = Finding {
                    id: id.clone(),
                    lane: lane.clone(),
                    filed_round: r.round,
                    severity: "unknown".into(),
                    status: "open".into(),
                    evidence_state: None,
                    category: None,
                    title: None,
                    resolution: Vec::new(),
                };
                out.push((f, true, format!("lane {lane}'s latest signed verdict names {id}, which findings.json omits: open, severity unknown, blocks")));
            }
        }
    }
    out
}

fn floor_view(per_round: &BTreeMap<i64, Vec<&Record>>, qualifying: &[i64], k: usize) -> View {
    let rows = per_round
        .iter()
        .map(|(r, v)| {
            let hosts: Vec<&str> = v.iter().map(|x| x.producer.host.as_str()).collect();
            vec![
                Value::from(*r),
                Value::from(v.len()),
                hosts.join(", ").into(),
                if qualifying.contains(r) { "met" } else { "not met" }.into(),
            ]
        })
        .collect();
    View::Table(Table {
        id: "pos-floor".into(),
        title: format!("Review floor: {k} independent fresh passes per round"),
        columns: vec!["round".into(), "fresh passes".into(), "hosts".into(), "floor".into()],
        rows,
        note: Some("Independent: different host, session and key. Fresh: the live materialHash, or the live storyFilesHash when neither side is the empty-story hash.".into()),
        csv: true,
    })
}

fn findings_view(gate: &[(Finding, bool, String)], round: i64) -> View {
    let rows = gate
        .iter()
        .map(|(f, b, _)| {
            vec![
                Value::from(f.id.clone()),
                f.severity.clone().into(),
                f.filed_round.into(),
                f.evidence_state.clone().map_or(Value::Null, Value::from),
                if *b { "block" } else { "advisory" }.into(),
            ]
        })
        .collect();
    View::Table(Table {
        id: "pos-findings".into(),
        title: format!("Open findings at round {round}"),
        columns: vec![
            "finding".into(),
            "severity".into(),
            "filed in round".into(),
            "evidenceState".into(),
            "done gate".into(),
        ],
        rows,
        note: Some("Critical always blocks; high until round 3; medium until round 2; low never.".into()),
        csv: true,
    })
}

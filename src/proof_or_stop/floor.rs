//! `crossverify floor`: the review-assurance floor (paper Eq. 4–5) and the done gate (§8).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::checks::{DONE_GATE, FLOOR, RECORD_REJECTED};
use super::commands::{Error, Trust, load_trust, read_input};
use super::identity::{self, EMPTY_STORY_FILES_HASH};
use super::live::{self, Live, Sources};
use super::review::{self, Finding, Findings, Kind, Record};
use super::trust_store::TrustStore;
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

/// The paper's review floor (Eq. 4): R = 3 rounds of K = 2 independent passes. The live policy
/// and the command line may raise it; nothing lowers it (zero rounds is not a floor).
pub const PAPER_FLOOR: (i64, i64) = (3, 2);

/// The paper's finding gate (§8): high advisory from round 3, medium from 2, low from 1. An
/// unsigned policy may make findings block longer, never shorter.
pub const PAPER_ADVISORY_FROM: (i64, i64, i64) = (3, 2, 1);

/// Whether a verified record was judged against the live review context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    /// Same policy, object format and scope, and the live `materialHash` (or the live
    /// non-empty `storyFilesHash`).
    Fresh,
    /// Bound to something else than the live context (why).
    Stale(String),
    /// Everything it binds matches, but it does not bind its scope: whether it was judged
    /// against the live one cannot be told (why).
    Unknown(String),
}

/// Whether a verified record is bound to the live review context: the live policy (it decides
/// the metadata roots and the floor), the repository's object format, the live scope (it
/// decides which files are story files), and the source: `materialHash` equal, or
/// `storyFilesHash` equal with neither side the empty-story hash.
///
/// A record that does not bind its scope is compared through what the live scope derives:
/// `derive(headHash)` is the `storyFilesHash` the live scope gives at the record's head
/// (`None` when it cannot be computed); a different one proves another set of story files was
/// judged (stale), an equal one does not prove the same scope (unknown).
#[must_use]
pub fn freshness(r: &Record, live: &Live, derive: impl Fn(&str) -> Option<String>) -> Freshness {
    let b = &r.binding;
    let sfh = &b["storyFilesHash"];
    if b["policyHash"] != live.policy_hash {
        return Freshness::Stale(format!(
            "stale: judged under policyHash {}, not the live {} (the policy decides the metadata roots and the floor)",
            b["policyHash"], live.policy_hash
        ));
    }
    if b["objectFormat"] != live.object_format {
        return Freshness::Stale(format!(
            "stale: objectFormat {} is not the repository's {}",
            b["objectFormat"], live.object_format
        ));
    }
    if let Some(h) = r.scope_hash.as_deref().filter(|h| *h != live.scope_hash) {
        return Freshness::Stale(format!(
            "stale: judged against scopeHash {h}, not the live scope's {} (the scope decides the story files)",
            live.scope_hash
        ));
    }
    let source = b["materialHash"] == live.material_hash
        || (*sfh == live.story_files_hash
            && sfh != EMPTY_STORY_FILES_HASH
            && live.story_files_hash != EMPTY_STORY_FILES_HASH);
    if !source {
        return Freshness::Stale("stale: bound to another materialHash (and no storyFilesHash allowance)".to_owned());
    }
    if r.scope_hash.is_some() {
        return Freshness::Fresh;
    }
    match derive(&b["headHash"]) {
        Some(d) if d != *sfh => Freshness::Stale(format!(
            "stale: binds no story.scopeHash, and the live scope gives storyFilesHash {d} at its head, not its {sfh}: \
             it judged another set of story files"
        )),
        _ => Freshness::Unknown(format!(
            "binds no story.scopeHash: whether it was judged against the live scope {} cannot be told, so it is not \
             counted",
            live.scope_hash
        )),
    }
}

/// The `storyFilesHash` the live scope gives at `head` (hex commit id), when it can be computed.
fn derive_story_files(repo: &Repo, live: &Live, head: &str) -> Option<String> {
    let id = gix::ObjectId::from_hex(head.as_bytes()).ok().filter(|id| repo.has(*id))?;
    identity::story_files_hash(repo, live.scope.base, id, &live.scope.allowed, &live.policy.roots).ok()
}

/// R and K: the paper's floor, raised by the live policy and by `--rounds`/`--per-round`;
/// a flag below the paper's floor is a usage error (it would lower it).
fn requirement(o: &FloorOptions, policy: &live::Policy) -> Result<(i64, i64), Error> {
    let (pr, pk) = PAPER_FLOOR;
    for (flag, v, min) in [("--rounds", o.rounds, pr), ("--per-round", o.per_round, pk)] {
        if let Some(v) = v.map(i64::from).filter(|v| *v < min) {
            return Err(Error::Input(format!(
                "{flag} {v} is below the paper's review floor of {pr} rounds of {pk} independent passes (Eq. 4): \
                 the floor can be raised, never lowered; pass {flag} {min} or more, or leave it out"
            )));
        }
    }
    let r = pr.max(policy.rounds).max(o.rounds.map_or(0, i64::from));
    let k = pk.max(policy.per_round).max(o.per_round.map_or(0, i64::from));
    Ok((r, k))
}

/// The `pass` verdicts of `records` by round.
fn passes<'a>(records: impl Iterator<Item = &'a Record>) -> BTreeMap<i64, Vec<&'a Record>> {
    let mut per_round: BTreeMap<i64, Vec<&Record>> = BTreeMap::new();
    for r in records.filter(|r| matches!(&r.kind, Kind::Verdict { verdict, .. } if verdict == "pass")) {
        per_round.entry(r.round).or_default().push(r);
    }
    per_round
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

/// Whether an open finding blocks done at `round` under the live policy, which may delay the
/// paper's advisory rounds but never advance them.
#[must_use]
pub fn blocks(f: &Finding, round: i64, live: &Live) -> bool {
    let p = &live.policy;
    if f.status != "open" {
        return false;
    }
    if f.evidence_state.as_deref() != Some("verified") && !p.unverified_blocks {
        return false;
    }
    let (high, medium, low) = PAPER_ADVISORY_FROM;
    match f.severity.as_str() {
        "critical" => true,
        "high" => round < p.high_advisory_from.max(high),
        "medium" => round < p.medium_advisory_from.max(medium),
        "low" => round < p.low_advisory_from.max(low),
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

/// The records of a story, sorted for the floor and the gate.
struct Sorted<'a> {
    /// Fresh: they count toward the floor and set the current round.
    usable: Vec<&'a Record>,
    /// Bound to everything but a scope: whether they were judged against the live one cannot be told.
    unknown: Vec<&'a Record>,
    /// Every verified record of the story, fresh or not: a finding a signed verdict raised
    /// stands until its resolution is recorded, whatever changed since.
    signed: Vec<&'a Record>,
}

/// Sorts the verified records by story and freshness, adding a result for each that is about
/// another story, stale, or of unknown scope.
fn sort_records<'a>(
    records: &'a [(String, Record)],
    story: &str,
    live: &Live,
    repo: &Repo,
    results: &mut Vec<CheckResult>,
) -> Sorted<'a> {
    let mut sorted = Sorted { usable: Vec::new(), unknown: Vec::new(), signed: Vec::new() };
    for (name, r) in records {
        if r.story != story {
            let m = format!("stale: about story {}, not {story}", r.story);
            results.push(CheckResult::new(&RECORD_REJECTED, O::Failed, name, m).with("reason", "stale"));
            continue;
        }
        sorted.signed.push(r);
        if matches!(r.kind, Kind::FindingEvent { .. }) {
            // A finding's event is a fact about its life, not a judgement of the live tree: a
            // resolve stays a resolve after the code moves on, and it neither counts toward the
            // floor nor sets the current round.
            continue;
        }
        match freshness(r, live, |h| derive_story_files(repo, live, h)) {
            Freshness::Fresh => sorted.usable.push(r),
            Freshness::Stale(m) => {
                results.push(CheckResult::new(&RECORD_REJECTED, O::Failed, name, m).with("reason", "stale"));
            }
            Freshness::Unknown(m) => {
                results.push(CheckResult::new(&RECORD_REJECTED, O::CantTell, name, m));
                sorted.unknown.push(r);
            }
        }
    }
    sorted
}

/// CV-P101's result, whether the floor is met, and the assurance word: `r_need` rounds of `k`
/// independent fresh passes; counting the records whose scope cannot be told as well, if that
/// would meet the floor, the answer is "cannot tell", never a pass.
fn floor_result(
    usable: &[&Record],
    unknown: &[&Record],
    (r_need, k): (i64, usize),
    qualifying: &[i64],
    live: &Live,
    subject: &str,
) -> (CheckResult, bool, &'static str) {
    let enough = |n: usize| i64::try_from(n).unwrap_or(i64::MAX) >= r_need;
    let met = enough(qualifying.len());
    let with_unknown = passes(usable.iter().chain(unknown.iter()).copied());
    let could = enough(with_unknown.values().filter(|v| independent(v, k)).count());
    let degraded = usable.iter().any(|r| matches!(r.kind, Kind::Degradation { .. }));
    let assurance = if met {
        "full-quorum"
    } else if degraded {
        "degraded-single-host"
    } else {
        "none"
    };
    let msg = format!(
        "{} of {r_need} rounds have {k} independent fresh passes{}",
        qualifying.len(),
        if degraded && !met {
            " (degraded-single-host recorded: local assurance only, never a full quorum)"
        } else {
            ""
        }
    );
    let floor_outcome = if met {
        O::Passed
    } else if could {
        O::CantTell
    } else {
        O::Failed
    };
    let (pr, pk) = (live.policy.rounds, live.policy.per_round);
    let msg = if pr < PAPER_FLOOR.0 || pk < PAPER_FLOOR.1 {
        format!("{msg} (the live policy asks for {pr} rounds of {pk}, below the paper's floor, which applies)")
    } else {
        msg
    };
    let msg = if floor_outcome == O::CantTell {
        format!("{msg}; counting the records that bind no scopeHash would meet it, so whether it is met cannot be told")
    } else {
        msg
    };
    (CheckResult::new(&FLOOR, floor_outcome, subject, msg).with("assurance", assurance), met, assurance)
}

/// `crossverify floor`: over one story's evidence directory, or over a directory of them
/// (each story gated alone, in one report).
///
/// # Errors
/// [`Error`] when an input cannot be read or the live state cannot be established (for any
/// story of a directory of them: a story left unverified leaves the directory unverified).
pub fn floor(o: &FloorOptions) -> Result<Report, Error> {
    let stories = super::evidence::stories(&o.evidence);
    match stories.as_slice() {
        [] => floor_story(o),
        [one] if *one == o.evidence => floor_story(o),
        many => floor_stories(o, many),
    }
}

/// The floor and the done gate of one story.
fn floor_story(o: &FloorOptions) -> Result<Report, Error> {
    let store = load_trust(&Trust::Store(o.trust_store.clone()))?;
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
    // A signed record elsewhere in the story (a receipt, a done claim) is not one the floor
    // reads: it is named, so that its signature is never taken as verified by this run.
    for name in super::evidence::signed_outside_verdicts(&o.evidence) {
        let m = "a signed record outside verdicts/: the floor reads verdicts/*.json only, so it is not verified \
                 here and counts for nothing (`crossverify bundle` verifies a receipt bundle)";
        results.push(CheckResult::new(&RECORD_REJECTED, O::Untested, &name, m));
    }
    let (r_need, k_need) = requirement(o, &live.policy)?;
    let k = usize::try_from(k_need).ok().filter(|k| (1..=MAX_PER_ROUND).contains(k)).ok_or_else(|| {
        Error::Input(format!("independent passes per round {k_need} is not between 1 and {MAX_PER_ROUND}"))
    })?;
    let Sorted { usable, unknown, signed } = sort_records(&records, &findings.story, &live, &repo, &mut results);
    // The current round is the signed verdicts' (unsigned findings.json cannot advance it and
    // so make findings advisory); a finding filed later is graded at this round, which is stricter.
    let current = usable.iter().map(|r| r.round).max().unwrap_or(1);
    let per_round = passes(usable.iter().copied());
    let qualifying: Vec<i64> = per_round.iter().filter(|(_, v)| independent(v, k)).map(|(r, _)| *r).collect();
    let subject = findings.story.clone();
    let (floor_result, met, assurance) = floor_result(&usable, &unknown, (r_need, k), &qualifying, &live, &subject);
    results.push(floor_result);
    let gate = gate(&findings, &signed, current, &live);
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

/// What `verify` adds to the statistics of stories holding only unsigned findings: the floor
/// was not run, since nothing signed is there to run it on. `untested` makes the run
/// inconclusive (exit 3), so figures of a file anyone can write never read as verified evidence.
#[must_use]
pub fn not_run_on_unsigned(path: &std::path::Path) -> CheckResult {
    CheckResult::new(
        &FLOOR,
        O::Untested,
        path.display().to_string(),
        "no signed review record, receipt or done claim: the review floor and the done gate were not run, and the \
         figures are those of the unsigned findings.json, which anyone can write; nothing here is verified evidence",
    )
}

/// Assurance words from the weakest to the strongest: a directory of stories has its weakest
/// story's.
const ASSURANCE: [&str; 3] = ["none", "degraded-single-host", "full-quorum"];

/// The floor and the done gate of each story of a directory of them, in one report: every
/// result under its story's directory name, the sections by story, the tables with a story
/// column. The live configuration is read beside each story when it was to be read beside
/// the directory.
fn floor_stories(o: &FloorOptions, stories: &[PathBuf]) -> Result<Report, Error> {
    let mut each: Vec<(String, Report)> = Vec::new();
    for dir in stories {
        let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
        let mut one = o.clone();
        one.evidence.clone_from(dir);
        if o.sources.dir.as_deref() == Some(o.evidence.as_path()) {
            one.sources.dir = Some(dir.clone());
        }
        let report = floor_story(&one).map_err(|e| Error::Input(format!("story {}: {e}", dir.display())))?;
        each.push((name, report));
    }
    let mut report = Report::new("floor");
    report.input("evidence", o.evidence.display().to_string());
    report.input("stories", each.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>());
    let mut sections: BTreeMap<&str, serde_json::Map<String, Value>> = BTreeMap::new();
    let mut weakest = ASSURANCE.len() - 1;
    for (name, r) in &each {
        for (k, v) in &r.inputs {
            match k.as_str() {
                // The largest requirement any story was held to.
                "rounds" | "perRound" => {
                    let top = report.inputs.get(k).and_then(Value::as_i64).max(v.as_i64());
                    report.input(k, top);
                }
                "evidence" => {}
                _ => {
                    report.inputs.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        report.results.extend(r.results.iter().cloned().map(|mut x| {
            x.subject = format!("{name}/{}", x.subject);
            x
        }));
        for (k, v) in &r.sections {
            sections.entry(k.as_str()).or_default().insert(name.clone(), v.clone());
        }
        let word = r.sections.get("floor").and_then(|f| f["assurance"].as_str()).unwrap_or("none");
        weakest = weakest.min(ASSURANCE.iter().position(|a| *a == word).unwrap_or(0));
        for v in &r.views {
            add_story_rows(&mut report.views, name, v);
        }
    }
    let met = sections.get("floor").is_some_and(|m| m.values().all(|v| v["met"] == true));
    let blocked = sections.get("doneGate").is_some_and(|m| m.values().any(|v| v["blocked"] == true));
    let assurance = ASSURANCE[weakest];
    let floor = sections.remove("floor").unwrap_or_default();
    let gate = sections.remove("doneGate").unwrap_or_default();
    report.section("floor", json!({"assurance": assurance, "met": met, "stories": floor}));
    report.section("doneGate", json!({"blocked": blocked, "stories": gate}));
    for (k, v) in sections {
        report.section(k, json!({"stories": v}));
    }
    report.hints.headline = Some(("assurance".into(), assurance.into()));
    report.finish();
    Ok(report)
}

/// Adds a story's table rows to the combined report's table of the same id (created on
/// first use), under a leading story column.
fn add_story_rows(views: &mut Vec<View>, story: &str, view: &View) {
    let View::Table(t) = view else { return };
    let rows = t.rows.iter().map(|r| std::iter::once(Value::from(story)).chain(r.iter().cloned()).collect());
    if let Some(View::Table(mine)) = views.iter_mut().find(|v| matches!(v, View::Table(m) if m.id == t.id)) {
        mine.rows.extend(rows);
        return;
    }
    let mut columns = vec!["story".to_owned()];
    columns.extend(t.columns.iter().cloned());
    views.push(View::Table(Table { columns, rows: rows.collect(), ..t.clone() }));
}

/// Every finding that keeps the story from done, or is advisory for it, with why.
///
/// The signed records decide: a finding id a verified verdict of the story named (any lane,
/// any run, fresh or not: a later pass resolves nothing), or a signed `finding-event/v1` added,
/// blocks whatever the unsigned `findings.json` says of its severity, evidence state or
/// resolution trail, until a signed `finding-event/v1` resolves or dismisses it in or after the
/// round it was last raised in (see [`closing_event`]); and while `findings.json` still marks
/// a closed one open, the stricter reading holds. `findings.json` may add findings: its other
/// open findings are graded by severity and round.
fn gate(findings: &Findings, signed: &[&Record], round: i64, live: &Live) -> Vec<(Finding, bool, String)> {
    let (raised, events) = signed_lives(signed);
    let mut out: Vec<(Finding, bool, String)> = Vec::new();
    for f in &findings.findings {
        if let Some(&(at, lane)) = raised.get(f.id.as_str()) {
            let closing = closing_event(events.get(f.id.as_str()).map_or(&[][..], Vec::as_slice), at);
            match (closing, f.status.as_str()) {
                (Some(_), "open") => out.push((
                    f.clone(),
                    true,
                    format!(
                        "raised by a signed record of lane {lane} in round {at} and closed by a signed finding-event, \
                         but findings.json still marks it open: the stricter reading holds, blocks"
                    ),
                )),
                (Some(_), _) => {}
                (None, "open") => out.push((
                    f.clone(),
                    true,
                    format!(
                        "raised by a signed record of lane {lane} in round {at}: open, blocks (its severity and \
                         evidenceState in the unsigned findings.json cannot make it advisory)"
                    ),
                )),
                (None, status) => out.push((
                    f.clone(),
                    true,
                    format!(
                        "raised by a signed record of lane {lane} in round {at}; findings.json marks it {status}, but \
                         no signed finding-event resolves or dismisses it in round {at} or later (the unsigned \
                         resolution trail closes nothing): open, blocks"
                    ),
                )),
            }
        } else if f.status == "open" {
            let b = blocks(f, round, live);
            let word = if b { "blocks" } else { "is advisory for" };
            out.push((f.clone(), b, format!("open {} finding {word} done at round {round}", f.severity)));
        }
    }
    for (id, (at, lane)) in raised.iter().filter(|(id, _)| !findings.findings.iter().any(|f| f.id == **id)) {
        if closing_event(events.get(id).map_or(&[][..], Vec::as_slice), *at).is_some() {
            continue;
        }
        let f = Finding {
            id: (*id).to_owned(),
            lane: (*lane).to_owned(),
            filed_round: *at,
            severity: "unknown".into(),
            status: "open".into(),
            evidence_state: None,
            category: None,
            title: None,
            resolution: Vec::new(),
        };
        out.push((
            f,
            true,
            format!(
                "a signed record of lane {lane} names {id}, which findings.json omits: open, severity unknown, blocks"
            ),
        ));
    }
    out
}

/// From the signed records: each finding id with the latest round a verdict named it in or an
/// `add` event filed it in (and that record's lane), and each id's `(round, action)` events.
type Lives<'a> = (BTreeMap<&'a str, (i64, &'a str)>, BTreeMap<&'a str, Vec<(i64, &'a str)>>);

fn signed_lives<'a>(signed: &[&'a Record]) -> Lives<'a> {
    let mut raised: BTreeMap<&str, (i64, &str)> = BTreeMap::new();
    let mut events: BTreeMap<&str, Vec<(i64, &str)>> = BTreeMap::new();
    let mut raise = |id: &'a str, round: i64, lane: &'a str| {
        let e = raised.entry(id).or_insert((round, lane));
        if round > e.0 {
            *e = (round, lane);
        }
    };
    for r in signed {
        match &r.kind {
            Kind::Verdict { finding_ids, lane, .. } => {
                for id in finding_ids {
                    raise(id, r.round, lane);
                }
            }
            Kind::FindingEvent { finding_id, action } => {
                if action == "add" {
                    raise(finding_id, r.round, &r.producer.lane);
                }
                events.entry(finding_id).or_default().push((r.round, action));
            }
            Kind::Degradation { .. } => {}
        }
    }
    (raised, events)
}

/// The signed event that closes a finding last raised in round `raised`: among its `resolve`,
/// `dismiss` and `reopen` events from that round on, those of the latest round, when none of
/// them is a `reopen` (events carry no order within a round, so a round that both closes and
/// reopens leaves the finding open: fail closed).
fn closing_event<'a>(events: &[(i64, &'a str)], raised: i64) -> Option<&'a str> {
    let moves = || events.iter().filter(|(r, a)| *r >= raised && matches!(*a, "resolve" | "dismiss" | "reopen"));
    let last = moves().map(|(r, _)| *r).max()?;
    let in_last: Vec<&str> = moves().filter(|(r, _)| *r == last).map(|(_, a)| *a).collect();
    if in_last.contains(&"reopen") { None } else { in_last.first().copied() }
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

//! Cross-cycle replay: the controller state machine over each cycle's receipts (I5, the I3
//! escalation lock, the parent-receipt chain), the published admission records and the
//! admission decision for one receipt (I8), and the ledger-wide I2 checks.

use std::collections::{BTreeMap, BTreeSet};

use super::checks::*;
use super::load::{Cycle, Ledger};
use super::receipt::Family;
use super::synthesis::{self, Rule};
use super::verify::{CycleFacts, short};
use crate::json::Value;
use crate::manifest::Digest;
use crate::report::{CheckResult, Outcome};

fn res(c: &crate::checks::Check, o: Outcome, subject: &str, msg: impl Into<String>) -> CheckResult {
    CheckResult::new(c, o, subject, msg)
}

/// `cycle_id_for(repo, root)`: first 16 hex of SHA-256 of `<repo>\n<root>`.
#[must_use]
pub fn cycle_id_for(repo: &str, root: &str) -> String {
    Digest::of(format!("{repo}\n{root}").as_bytes()).hex()[..16].to_owned()
}

/// The admission decision for one receipt.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Admission {
    /// Admissible now.
    pub ready: bool,
    /// One sentence.
    pub reason: String,
    /// Every reason it is not admissible (reference wording where one exists).
    pub shortfalls: Vec<String>,
    /// What the ledger cannot show (single use where controller state is unpublished).
    pub unobservable: Vec<String>,
    /// Admission tier the evidence supports.
    pub tier: String,
}

/// Per-cycle position in its controller group.
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupInfo {
    /// A later receipt of the same cycle supersedes this one.
    pub superseded_by: Option<String>,
    /// A later receipt in the ledger audits the same science commit (whatever cycle it
    /// claims): the commit's latest audit is that one.
    pub reaudited_by: Option<String>,
    /// The cycle moved on to another commit after this receipt.
    pub moved_to: Option<String>,
    /// Receipt file hash already consumed (v1 state).
    pub consumed: bool,
    /// The ledger order is unknown (no full history), so freshness cannot be decided.
    pub unknown_order: bool,
}

/// Replays the controller; returns results and per-cycle group facts (index-aligned).
#[allow(clippy::too_many_lines)]
pub(crate) fn controller(ledger: &Ledger, facts: &mut [CycleFacts]) -> (Vec<CheckResult>, Vec<GroupInfo>) {
    let mut out = Vec::new();
    let mut info = vec![GroupInfo::default(); ledger.cycles.len()];
    if let Err(why) = &ledger.history {
        // Without the audit history the order receipts were committed in is unknown, and every
        // fact of the replay depends on it. Ordering by the receipts' own round claims would
        // verify them against themselves.
        unordered(ledger, facts, why, &mut info, &mut out);
        return (out, info);
    }
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in facts.iter().enumerate() {
        if let Some(id) = &f.cycle_id {
            groups.entry(id.clone()).or_default().push(i);
        }
    }
    for (id, members) in &groups {
        if id == "no-controller" {
            for &i in members {
                let s = ledger.cycles[i].path.as_str();
                for c in [&ROUND_SEQUENCE, &EXHAUSTION_ESCALATES] {
                    out.push(res(
                        c,
                        Outcome::Inapplicable,
                        s,
                        "cycle_id no-controller: the audit ran without the controller, every audit is its own round 1",
                    ));
                }
                replay_precedence(&ledger.cycles[i], &facts[i], &mut out);
            }
            continue;
        }
        let first = members[0];
        let root = facts[first].root_sha.clone().or_else(|| facts[first].sha.clone()).unwrap_or_default();
        // A round whose receipt cannot be read is missing from the group, so its neighbours'
        // sequence and chain cannot be judged: the gap may be that round. Directory names
        // start with the commit's first 12 digits in every dialect.
        let blind: Option<String> = {
            let shas: BTreeSet<String> = std::iter::once(root.clone())
                .chain(members.iter().filter_map(|&i| facts[i].sha.clone()))
                .filter_map(|s| s.get(..12).map(str::to_owned))
                .collect();
            ledger
                .cycles
                .iter()
                .zip(facts.iter())
                .find(|(c, f)| {
                    f.receipt.is_none()
                        && c.name.get(..12).is_some_and(|p| shas.contains(p))
                        // An interrupted attempt a later attempt completed hides no round.
                        && ledger.interrupted_attempt(c).is_none_or(|i| i.superseded_by.is_none())
                })
                .map(|(c, _)| c.path.clone())
        };
        let mut status = "OPEN";
        let mut prev_round: Option<i64> = None;
        let mut prev_identity: Option<Digest> = None;
        let mut prev_active: Option<String> = None;
        for (k, &i) in members.iter().enumerate() {
            let cycle = &ledger.cycles[i];
            let s = cycle.path.as_str();
            let f = &mut facts[i];
            let round = f.round.unwrap_or(0);
            let max = f.max_rounds.unwrap_or(3);
            let verdict = f.verdict.clone().unwrap_or_default();
            let mut seq = Vec::new();
            // Under the escalation lock the controller neither advances the round nor moves the
            // cycle to the new commit (R2b `blocked_by_escalation`).
            let locked = status == "ESCALATED";
            let expected_round = prev_round.map_or(1, |p| if locked { p } else { p.saturating_add(1) });
            let reattempt = cycle.name.rsplit_once('.').is_some_and(|(_, n)| n.parse::<u32>().is_ok());
            if round != expected_round && !(reattempt && Some(round) == prev_round) {
                seq.push(format!("round {round} where the controller's sequence gives {expected_round}"));
            }
            if let Some(repo) = &f.science_repo {
                let want = cycle_id_for(repo, &root);
                if *id != want {
                    seq.push(format!("cycle_id {id} is not cycle_id_for({repo}, {}) = {want}", short(&root)));
                }
            }
            if let Some(r) = &f.root_sha
                && *r != root
            {
                seq.push(format!("root_sha {} differs from the cycle's first commit {}", short(r), short(&root)));
            }
            // The controller opens a cycle at the commit it audits (`open`: root = active =
            // sha); a round-1 receipt naming another root claims a cycle nothing opened. Under
            // the lock a child commit's receipt keeps the escalated round and root.
            if round == 1
                && !locked
                && let (Some(r), Some(sha)) = (&f.root_sha, &f.sha)
                && r != sha
            {
                seq.push(format!(
                    "round 1 audits {} but claims root_sha {}: a cycle's first round audits its root commit",
                    short(sha),
                    short(r)
                ));
            }
            // The lock returns the escalated cycle unchanged, so a child commit's receipt keeps
            // active_sha on the escalated commit (product controller/state.py, open_or_advance).
            if let Some(r) = &f.receipt
                && let (Some(a), Some(sha)) = (&r.active_sha, &r.sha)
            {
                let held = prev_active.as_ref().filter(|_| locked && verdict == "ESCALATE");
                match held {
                    Some(h) if a != h => seq.push(format!(
                        "active_sha {} under the escalation lock, where the controller keeps the escalated commit {}",
                        short(a),
                        short(h)
                    )),
                    None if a != sha => {
                        seq.push(format!("active_sha {} is not the audited commit {}", short(a), short(sha)));
                    }
                    _ => {}
                }
            }
            let unjudgeable = |msg: String| match &blind {
                Some(b) => (
                    Outcome::CantTell,
                    format!("{msg}, but the receipt at {b} cannot be read and may be the missing round"),
                ),
                None => (Outcome::Failed, msg),
            };
            out.push(
                if seq.is_empty() {
                    res(&ROUND_SEQUENCE, Outcome::Passed, s, format!("round {round} of cycle {id}"))
                } else if seq.len() == 1 && round != expected_round {
                    let (o, m) = unjudgeable(seq.join("; "));
                    res(&ROUND_SEQUENCE, o, s, m)
                } else {
                    res(&ROUND_SEQUENCE, Outcome::Failed, s, seq.join("; "))
                }
                .with("round", round)
                .with("expectedRound", expected_round)
                .with("cycleId", id.as_str()),
            );
            out.push(if round > max {
                res(&ROUND_BOUND, Outcome::Failed, s, format!("round {round} exceeds max_rounds {max}"))
                    .with("maxRounds", max)
            } else {
                res(
                    &ROUND_BOUND,
                    Outcome::Passed,
                    s,
                    format!(
                        "round {round} ≤ max_rounds {max}{}",
                        if f.max_rounds_default { " (default: crossaudit.yml does not set it)" } else { "" }
                    ),
                )
                .with("maxRounds", max)
            });
            // After the cycle escalated, only the lock's forced ESCALATE may follow.
            let lock = status == "ESCALATED";
            if lock {
                let msg = if verdict == "PASS" {
                    format!("PASS after the cycle escalated (round {round})")
                } else {
                    format!("{verdict} in round {round} after the cycle escalated")
                };
                out.push(if verdict == "ESCALATE" {
                    res(&EXHAUSTION_ESCALATES, Outcome::Passed, s, "the escalation lock forced ESCALATE")
                } else if f.product {
                    res(&EXHAUSTION_ESCALATES, Outcome::CantTell, s, format!("{msg}: product v4 lets a human reopen an escalated cycle, and that resolution is not in the published ledger"))
                } else {
                    res(&EXHAUSTION_ESCALATES, Outcome::Failed, s, msg)
                });
            } else if status == "PASSED" || status == "CONSUMED" {
                out.push(res(
                    &EXHAUSTION_ESCALATES,
                    Outcome::Failed,
                    s,
                    format!(
                        "a round after the cycle passed (round {round}): the controller re-opened a finished cycle"
                    ),
                ));
            } else {
                out.push(res(
                    &EXHAUSTION_ESCALATES,
                    Outcome::Passed,
                    s,
                    "the cycle had not escalated before this round",
                ));
            }
            f.inputs.lock = lock;
            // Parent chain (schema 2).
            if f.product {
                let want = prev_identity.map(|d| d.hex()).unwrap_or_default();
                let got = f.parent_receipt.clone().unwrap_or_default();
                out.push(
                    if got == want {
                        res(
                            &PARENT_CHAIN,
                            Outcome::Passed,
                            s,
                            if want.is_empty() {
                                "first round: empty parent_receipt".to_owned()
                            } else {
                                format!("parent_receipt is the previous round's receipt {}", short(&want))
                            },
                        )
                    } else if want.is_empty() {
                        let (o, m) = unjudgeable(format!(
                            "parent_receipt {} names a receipt, but no earlier round of this cycle is in the ledger",
                            short(&got)
                        ));
                        res(&PARENT_CHAIN, o, s, m)
                    } else if blind.is_some() {
                        let (o, m) = unjudgeable(format!(
                            "parent_receipt {} is not the digest of the previous readable round's receipt ({})",
                            short(&got),
                            short(&want)
                        ));
                        res(&PARENT_CHAIN, o, s, m)
                    } else {
                        res(
                            &PARENT_CHAIN,
                            Outcome::Failed,
                            s,
                            format!(
                                "parent_receipt {} is not the digest of the previous round's receipt ({})",
                                short(&got),
                                short(&want)
                            ),
                        )
                    }
                    .with("parentReceipt", got.as_str())
                    .with("previousReceipt", want.as_str()),
                );
            }
            status = match verdict.as_str() {
                "PASS" => "PASSED",
                "ESCALATE" | "DCL_ONLY" => "ESCALATED",
                "BLOCKED" if round >= max => "ESCALATED",
                "BLOCKED" => "BLOCKED",
                _ => status,
            };
            prev_round = Some(round);
            prev_identity = f.identity;
            if !locked {
                prev_active = f.receipt.as_ref().and_then(|r| r.active_sha.clone());
            }
            if let Some(&next) = members.get(k + 1) {
                info[i].superseded_by = Some(ledger.cycles[next].path.clone());
            }
            let last_sha = members.last().and_then(|&j| facts_sha(facts, j));
            if last_sha.is_some() && last_sha != facts_sha(facts, i) {
                info[i].moved_to = last_sha;
            }
            replay_precedence(cycle, &facts[i], &mut out);
        }
    }
    reaudits(ledger, facts, &mut info);
    // Receipts without a cycle id still get the precedence replay.
    for (i, f) in facts.iter().enumerate() {
        if f.cycle_id.is_none() && f.verdict.is_some() {
            replay_precedence(&ledger.cycles[i], f, &mut out);
        }
    }
    if ledger.family == Family::V1 {
        state_checks(ledger, facts, &groups, &mut info, &mut out);
    }
    (out, info)
}

/// Marks every receipt that a later receipt (in ledger order) audits the same commit of. The
/// cycle a receipt claims (`cycle_id`, `root_sha`) is the receipt's own word; which audit of a
/// commit is the latest is decided by what was audited and the order the ledger recorded it in,
/// so a later BLOCKED audit claiming another root still supersedes an earlier PASS.
fn reaudits(ledger: &Ledger, facts: &[CycleFacts], info: &mut [GroupInfo]) {
    let mut latest: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, f) in facts.iter().enumerate().rev() {
        let Some(sha) = f.sha.as_deref().filter(|_| f.receipt.is_some()) else { continue };
        match latest.get(sha) {
            Some(&j) => info[i].reaudited_by = Some(ledger.cycles[j].path.clone()),
            None => {
                latest.insert(sha, i);
            }
        }
    }
}

fn unordered(ledger: &Ledger, facts: &[CycleFacts], why: &str, info: &mut [GroupInfo], out: &mut Vec<CheckResult>) {
    let msg = format!("the order receipts were committed in is unknown: {why}");
    for (i, f) in facts.iter().enumerate() {
        if f.verdict.is_none() {
            continue;
        }
        let s = ledger.cycles[i].path.as_str();
        let mut codes = vec![&ROUND_SEQUENCE, &EXHAUSTION_ESCALATES];
        if f.product {
            codes.push(&PARENT_CHAIN);
        }
        for c in codes {
            out.push(res(c, Outcome::CantTell, s, msg.clone()));
        }
        let max = f.max_rounds.unwrap_or(3);
        let round = f.round.unwrap_or(0);
        out.push(if round > max {
            res(&ROUND_BOUND, Outcome::Failed, s, format!("round {round} exceeds max_rounds {max}"))
                .with("maxRounds", max)
        } else {
            res(&ROUND_BOUND, Outcome::Passed, s, format!("round {round} ≤ max_rounds {max}")).with("maxRounds", max)
        });
        // The lock depends on earlier rounds: an ESCALATE only the lock would explain is unknown.
        let recorded = f.verdict.as_deref().unwrap_or("");
        let paper = synthesis::synthesize(Rule::Paper, &f.inputs);
        if recorded == "ESCALATE" && !paper.allows(recorded) {
            out.push(res(
                &VERDICT_PRECEDENCE,
                Outcome::CantTell,
                s,
                format!("ESCALATE may be the escalation lock of an earlier round; {msg}"),
            ));
        } else {
            replay_precedence(&ledger.cycles[i], f, out);
        }
        info[i].unknown_order = true;
    }
    if ledger.family == Family::V1 {
        out.push(res(&ADMISSION_RECORDS, Outcome::CantTell, "controller/state.json", msg.clone()));
    }
}

fn facts_sha(facts: &[CycleFacts], i: usize) -> Option<String> {
    facts[i].sha.clone()
}

fn replay_precedence(cycle: &Cycle, f: &CycleFacts, out: &mut Vec<CheckResult>) {
    let Some(recorded) = f.verdict.as_deref() else { return };
    let s = cycle.path.as_str();
    let paper = synthesis::synthesize(Rule::Paper, &f.inputs);
    let dialect = synthesis::synthesize(Rule::DclFirst, &f.inputs);
    let why = synthesis::explain(&f.inputs);
    let dialect_name = Rule::DclFirst.name(f.product);
    let ev = |r: CheckResult| {
        r.with("recorded", recorded)
            .with("paper", paper.describe())
            .with(dialect_name, dialect.describe())
            .with("inputs", why.clone())
    };
    out.push(if paper.allows(recorded) {
        ev(res(
            &VERDICT_PRECEDENCE,
            Outcome::Passed,
            s,
            format!("{recorded} is what the paper's precedence gives ({why})"),
        ))
    } else if dialect.allows(recorded) {
        ev(res(
            &VERDICT_PRECEDENCE,
            Outcome::Failed,
            s,
            format!(
                "recorded {recorded} ({dialect_name} rule); the paper's I3 precedence gives {}: {why}",
                paper.describe()
            ),
        ))
    } else {
        ev(res(
            &VERDICT_PRECEDENCE,
            Outcome::Failed,
            s,
            format!(
                "recorded {recorded} matches no synthesis rule: the paper gives {}, {dialect_name} gives {} ({why})",
                paper.describe(),
                dialect.describe()
            ),
        ))
    });
}

fn state_checks(
    ledger: &Ledger,
    facts: &[CycleFacts],
    groups: &BTreeMap<String, Vec<usize>>,
    info: &mut [GroupInfo],
    out: &mut Vec<CheckResult>,
) {
    let subject = "controller/state.json";
    let state = match &ledger.state {
        None => {
            out.push(res(
                &ADMISSION_RECORDS,
                Outcome::CantTell,
                subject,
                "no controller/state.json at the audit revision: admissions cannot be checked",
            ));
            return;
        }
        Some(Err(e)) => {
            out.push(res(&RECORD_PARSES, Outcome::Failed, subject, e.clone()));
            out.push(res(&ADMISSION_RECORDS, Outcome::CantTell, subject, "controller/state.json does not parse"));
            return;
        }
        Some(Ok(v)) => v,
    };
    let Some(cycles) = state.get("cycles").and_then(Value::as_object) else {
        out.push(res(&ADMISSION_RECORDS, Outcome::Failed, subject, "controller/state.json has no cycles object"));
        return;
    };
    let mut problems = undone_admissions(ledger, facts, groups, cycles, info, out);
    let mut seen_consumed = BTreeSet::new();
    for (id, c) in cycles {
        let members = groups.get(id).map_or(&[][..], Vec::as_slice);
        let str_of = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let status = str_of("status");
        let consumed: Vec<String> = c
            .get("consumed")
            .and_then(Value::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect();
        if members.is_empty() {
            if !consumed.is_empty() || status == "PASSED" || status == "CONSUMED" {
                problems.push(format!("cycle {id} is {status} in the state but has no receipt in the ledger"));
            }
            continue;
        }
        let latest = *members.last().expect("non-empty");
        let latest_hash = facts[latest].identity.map(|d| d.hex()).unwrap_or_default();
        for h in &consumed {
            if !seen_consumed.insert(h.clone()) {
                problems.push(format!("receipt {} consumed twice (replay)", short(h)));
            }
            match members.iter().find(|&&i| facts[i].identity.is_some_and(|d| d.hex() == *h)) {
                Some(&i) => {
                    info[i].consumed = true;
                    let f = &facts[i];
                    if f.verdict.as_deref() != Some("PASS") || f.integrity.as_deref() != Some("OK") {
                        problems.push(format!(
                            "cycle {id} consumed receipt {} whose verdict is {} (integrity {})",
                            short(h),
                            f.verdict.as_deref().unwrap_or("?"),
                            f.integrity.as_deref().unwrap_or("?")
                        ));
                    }
                    if i != latest {
                        problems
                            .push(format!("cycle {id} consumed receipt {} that a later round superseded", short(h)));
                    }
                }
                None => problems.push(format!("cycle {id} consumed receipt {} that is not in the ledger", short(h))),
            }
        }
        if status == "CONSUMED" && consumed.is_empty() {
            problems.push(format!("cycle {id} is CONSUMED with no consumed receipt"));
        }
        let parent = str_of("parent_receipt");
        let chain = if parent == latest_hash {
            res(
                &PARENT_CHAIN,
                Outcome::Passed,
                subject,
                format!("cycle {id}: the state names the latest receipt {}", short(&latest_hash)),
            )
        } else {
            res(
                &PARENT_CHAIN,
                Outcome::Failed,
                subject,
                format!(
                    "cycle {id}: the state's parent_receipt {} is not the latest receipt {}",
                    short(&parent),
                    short(&latest_hash)
                ),
            )
        };
        out.push(chain);
        let active = members.iter().rev().find(|&&i| !facts[i].inputs.lock).copied().unwrap_or(latest);
        if let Some(sha) = facts_sha(facts, active)
            && str_of("active_sha") != sha
        {
            problems.push(format!(
                "cycle {id}: active_sha {} is not the cycle's latest active commit {}",
                short(&str_of("active_sha")),
                short(&sha)
            ));
        }
    }
    out.push(if problems.is_empty() {
        res(
            &ADMISSION_RECORDS,
            Outcome::Passed,
            subject,
            format!("{} cycle record(s): every admission was of an admissible, current receipt", cycles.len()),
        )
    } else {
        res(&ADMISSION_RECORDS, Outcome::Failed, subject, problems.join("; "))
    });
}

/// Replays the consumption records of every version of `controller/state.json` in the audit
/// history: a receipt consumed in any version counts as consumed, and a later version (the
/// head's above all) that no longer records it undoes an admission, which the append-only
/// controller never does. Returns the problems found; marks consumed receipts in `info`.
fn undone_admissions(
    ledger: &Ledger,
    facts: &[CycleFacts],
    groups: &BTreeMap<String, Vec<usize>>,
    head: &BTreeMap<String, Value>,
    info: &mut [GroupInfo],
    out: &mut Vec<CheckResult>,
) -> Vec<String> {
    let mut problems = Vec::new();
    // (cycle, receipt) → commit that first recorded its consumption.
    let mut recorded: BTreeMap<(String, String), String> = BTreeMap::new();
    for (commit, version) in &ledger.state_history {
        let commit = commit.to_string();
        let Some(cycles) = version.as_ref().ok().and_then(|v| v.get("cycles")).and_then(Value::as_object) else {
            out.push(res(
                &ADMISSION_RECORDS,
                Outcome::CantTell,
                "controller/state.json",
                format!(
                    "the version committed in {} does not parse: its admissions cannot be replayed",
                    short(&commit)
                ),
            ));
            continue;
        };
        for ((id, receipt), first) in &recorded {
            if !consumed_in(cycles, id).contains(receipt) {
                problems.push(format!(
                    "cycle {id}: the admission of receipt {} recorded in {} is undone in {}",
                    short(receipt),
                    short(first),
                    short(&commit)
                ));
            }
        }
        recorded.retain(|(id, receipt), _| consumed_in(cycles, id).contains(receipt));
        for id in cycles.keys() {
            for receipt in consumed_in(cycles, id) {
                recorded.entry((id.clone(), receipt)).or_insert_with(|| commit.clone());
            }
        }
    }
    // Every receipt ever consumed stays consumed, whatever the head says.
    for (id, receipt) in problems_consumed(ledger, head) {
        let members = groups.get(&id).map_or(&[][..], Vec::as_slice);
        if let Some(&i) = members.iter().find(|&&i| facts[i].identity.is_some_and(|d| d.hex() == receipt)) {
            info[i].consumed = true;
        }
    }
    problems
}

/// The receipts a state's `cycles` object records as consumed for cycle `id`.
fn consumed_in(cycles: &BTreeMap<String, Value>, id: &str) -> BTreeSet<String> {
    cycles
        .get(id)
        .and_then(|c| c.get("consumed"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// (cycle, receipt) pairs consumed in some version of the state but not at the head.
fn problems_consumed(ledger: &Ledger, head: &BTreeMap<String, Value>) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (_, version) in &ledger.state_history {
        let Some(cycles) = version.as_ref().ok().and_then(|v| v.get("cycles")).and_then(Value::as_object) else {
            continue;
        };
        for id in cycles.keys() {
            let now = consumed_in(head, id);
            out.extend(consumed_in(cycles, id).into_iter().filter(|r| !now.contains(r)).map(|r| (id.clone(), r)));
        }
    }
    out
}

/// The admission decision for the receipt of `cycle`.
pub(crate) fn admission(
    ledger: &Ledger,
    f: &CycleFacts,
    g: &GroupInfo,
    consumed: Option<&BTreeSet<String>>,
) -> Admission {
    let mut a = Admission::default();
    let Some(r) = &f.receipt else {
        a.reason = "absent: no readable receipt".into();
        a.shortfalls.push(a.reason.clone());
        return a;
    };
    a.tier = match r.family {
        Family::Schema2 if r.audit_repo.as_deref() == Some("local") => "local".into(),
        Family::Schema2 => "paired".into(),
        Family::V1 if ledger.local => "local".into(),
        Family::V1 => "paired".into(),
    };
    if !f.bound {
        a.shortfalls.push(format!("not verified: {}", f.binding_failures.first().cloned().unwrap_or_default()));
    }
    let verdict = f.verdict.clone().unwrap_or_default();
    if verdict != "PASS" {
        a.shortfalls.push(if verdict == "DCL_ONLY" {
            "verdict is DCL_ONLY, not PASS: a deterministic-tier result never admits".into()
        } else {
            format!("verdict is {verdict}, not PASS")
        });
    }
    if let Some(i) = &f.integrity
        && i != "OK"
    {
        a.shortfalls.push(format!("audit integrity is {i}"));
    }
    // A PASS the recorded inputs do not give under the paper's precedence (an invalid reply the
    // report still shows, a deterministic failure) is not the auditor's verdict to admit.
    let paper = synthesis::synthesize(Rule::Paper, &f.inputs);
    if verdict == "PASS" && !paper.allows(&verdict) {
        a.shortfalls.push(format!(
            "verdict PASS is not what the recorded inputs give ({}): {}",
            paper.describe(),
            synthesis::explain(&f.inputs)
        ));
    }
    if !f.isolation_shortfall.is_empty() {
        a.shortfalls.push(format!("isolation evidence is missing {:?}", f.isolation_shortfall));
    }
    if let Some(next) = &g.superseded_by {
        a.shortfalls.push(format!("stale: superseded by {next} (a later round of the same cycle)"));
    }
    if let Some(later) = &g.reaudited_by
        && g.superseded_by.as_ref() != Some(later)
    {
        a.shortfalls.push(format!(
            "stale: {later} is a later audit of the same commit {} (whatever cycle its receipt claims)",
            short(f.sha.as_deref().unwrap_or(""))
        ));
    }
    if let Some(moved) = &g.moved_to {
        a.shortfalls.push(format!("stale: the cycle's active commit is now {}", short(moved)));
    }
    let identity = r.identity().hex();
    let caller_consumed = consumed.map(|set| set.iter().any(|c| identity.starts_with(c.as_str())));
    if g.consumed || caller_consumed == Some(true) {
        a.shortfalls.push("receipt already consumed (replay)".into());
    }
    if g.unknown_order {
        a.unobservable
            .push("freshness: without the full audit history the cycle's latest receipt cannot be determined".into());
    }
    if r.family == Family::Schema2 {
        let mode = r.install_mode.clone().unwrap_or_default();
        let admissible: &[&str] = if r.v4 { &["wheel", "frozen-app"] } else { &["wheel"] };
        if !admissible.contains(&mode.as_str()) {
            a.shortfalls.push(format!(
                "install mode '{mode}' may verify but never admit: its code can change under the digest it reports"
            ));
        }
        if caller_consumed.is_none() {
            a.unobservable.push(
                "single use: the product keeps its controller state in .crossaudit/, which is not published \
                 (give the gate's own record with --consumed FILE)"
                    .into(),
            );
        }
    } else if ledger.state.is_none() && caller_consumed.is_none() {
        a.unobservable.push("single use: no controller/state.json is published at the audit revision".into());
    }
    a.ready = a.shortfalls.is_empty() && a.unobservable.is_empty();
    a.reason = if a.ready {
        "admissible: verified, PASS, integrity OK, latest of its cycle, not consumed".into()
    } else if let Some(s) = a.shortfalls.first() {
        format!("not admissible: {s}")
    } else {
        format!("cannot be established: {}", a.unobservable.join("; "))
    };
    a
}

/// Ledger-wide checks: presence of cycles, layout, append-only history, the pinned head,
/// disputes and what admission the ledger cannot show.
#[allow(clippy::too_many_lines)]
pub(crate) fn ledger_checks(
    ledger: &Ledger,
    facts: &[CycleFacts],
    expect_head: Option<&str>,
    out: &mut Vec<CheckResult>,
) {
    let audit = ledger.audit.local();
    let head = short(&ledger.audit_head.to_string());
    out.push(if ledger.cycles.is_empty() {
        res(
            &LEDGER_HAS_CYCLES,
            Outcome::CantTell,
            "ledger",
            format!("no cycle directory under `{}/` at audit commit {head}", ledger.ledger_dir),
        )
    } else {
        res(
            &LEDGER_HAS_CYCLES,
            Outcome::Passed,
            "ledger",
            format!(
                "{} cycle director{} under `{}/`",
                ledger.cycles.len(),
                if ledger.cycles.len() == 1 { "y" } else { "ies" },
                ledger.ledger_dir
            ),
        )
    });
    if ledger.strays.is_empty() {
        out.push(res(
            &LEDGER_LAYOUT,
            Outcome::Passed,
            "ledger",
            "everything under the ledger directory belongs to a cycle directory",
        ));
    }
    for s in &ledger.strays {
        out.push(res(
            &LEDGER_LAYOUT,
            Outcome::Failed,
            s,
            format!("not a cycle directory of the {} layout", ledger.family.as_str()),
        ));
    }
    match &ledger.history {
        Ok(h) => {
            if h.violations.is_empty() {
                out.push(res(
                    &LEDGER_APPEND_ONLY,
                    Outcome::Passed,
                    "ledger",
                    format!("{} ledger file(s), each added once and never changed", h.added.len()),
                ));
            }
            for (path, first, then, what) in &h.violations {
                out.push(
                    res(
                        &LEDGER_APPEND_ONLY,
                        Outcome::Failed,
                        path,
                        format!("added in {}, {what} in {}", short(&first.to_string()), short(&then.to_string())),
                    )
                    .with("addedIn", first.to_string())
                    .with("changedIn", then.to_string())
                    .at(Some("audit"), Some(path), Some(&then.to_string())),
                );
            }
        }
        Err(e) => out.push(res(
            &LEDGER_APPEND_ONLY,
            Outcome::CantTell,
            "ledger",
            format!("the audit history cannot be walked: {e}"),
        )),
    }
    match expect_head {
        None => out.push(res(&AUDIT_HEAD_PINNED, Outcome::Inapplicable, "audit head", "no --expect-audit-head given")),
        Some(pin) => {
            let ev = |r: CheckResult| r.with("pinned", pin).with("auditHead", ledger.audit_head.to_string());
            out.push(ev(match audit.resolve(pin) {
                Ok(id) => match audit.is_ancestor(id, ledger.audit_head) {
                    Ok(true) => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::Passed,
                        "audit head",
                        format!("pinned {} is an ancestor of {head}", short(&id.to_string())),
                    ),
                    Ok(false) => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::Failed,
                        "audit head",
                        format!("pinned {} is not an ancestor of {head} (history rewritten)", short(&id.to_string())),
                    ),
                    Err(e) => res(&AUDIT_HEAD_PINNED, Outcome::CantTell, "audit head", e.to_string()),
                },
                Err(_) => match audit.shallow_hint() {
                    Some(hint) => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::CantTell,
                        "audit head",
                        format!("pinned head {} is not in the audit repository, but {hint}", short(pin)),
                    ),
                    None => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::Failed,
                        "audit head",
                        format!(
                            "pinned head {} is not in the audit repository (history rewritten, or the wrong repository)",
                            short(pin)
                        ),
                    ),
                },
            }));
        }
    }
    disputes(ledger, out);
    if ledger.family == Family::Schema2 {
        out.push(res(
            &ADMISSION_RECORDS,
            Outcome::Inapplicable,
            "ledger",
            "the product keeps controller state outside the ledger (.crossaudit/state.json)",
        ));
        let tiers: BTreeSet<&str> = facts
            .iter()
            .filter_map(|f| f.receipt.as_ref())
            .map(|r| if r.audit_repo.as_deref() == Some("local") { "local" } else { "paired" })
            .collect();
        let tier = tiers.into_iter().collect::<Vec<_>>().join(", ");
        out.push(
            res(&ADMISSION_UNOBSERVABLE, Outcome::CantTell, "ledger", format!("single use is not observable: the product keeps controller state in .crossaudit/ (not published); evidence supports tier `{tier}`, never `enforced` (branch protection is not in git)"))
                .with("tier", tier),
        );
    } else {
        let tier = if ledger.local { "local" } else { "paired" };
        let enforced =
            "`enforced` needs platform evidence (branch protection, required status checks) that no ledger holds";
        out.push(if matches!(ledger.state, Some(Ok(_))) {
            res(&ADMISSION_UNOBSERVABLE, Outcome::Passed, "ledger", format!("single use is observable in the published controller/state.json; evidence supports tier `{tier}`; {enforced}")).with("tier", tier)
        } else {
            res(&ADMISSION_UNOBSERVABLE, Outcome::CantTell, "ledger", format!("single use is not observable: no readable controller/state.json at the audit revision; evidence supports tier `{tier}`; {enforced}")).with("tier", tier)
        });
    }
}

fn disputes(ledger: &Ledger, out: &mut Vec<CheckResult>) {
    let subject = format!("{}/disputes.jsonl", ledger.ledger_dir);
    let lines = match &ledger.disputes {
        None => {
            out.push(res(&DISPUTES_VALID, Outcome::Inapplicable, &subject, "no disputes recorded"));
            return;
        }
        Some(Err(e)) => {
            out.push(res(&RECORD_PARSES, Outcome::Failed, &subject, e.clone()));
            out.push(res(&DISPUTES_VALID, Outcome::CantTell, &subject, "disputes.jsonl does not parse"));
            return;
        }
        Some(Ok(l)) => l,
    };
    let mut problems = Vec::new();
    let mut ruled = BTreeSet::new();
    for (n, d) in lines.iter().enumerate() {
        let line = n + 1;
        let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let (cycle, key, ruling) = (s("cycle_id"), s("finding_key"), s("ruling"));
        if ruling != "UPHELD" && ruling != "WITHDRAWN" {
            problems.push(format!("line {line}: ruling {ruling:?} is neither UPHELD nor WITHDRAWN"));
        }
        if s("grounds").trim().is_empty() {
            problems.push(format!("line {line}: a dispute without grounds"));
        }
        if !ruled.insert((cycle.clone(), key.clone())) {
            problems.push(format!("line {line}: second ruling on {key} in {cycle}"));
        }
        problems.extend(dispute_identity(ledger, d, line));
    }
    out.push(if problems.is_empty() {
        res(&DISPUTES_VALID, Outcome::Passed, &subject, format!("{} ruling(s), one per finding, each about a model finding of its cycle (who lodged them is not recorded)", lines.len()))
    } else {
        res(&DISPUTES_VALID, Outcome::Failed, &subject, problems.join("; "))
    });
}

/// Every field naming the disputed finding must name the same one, and that one must be a
/// model finding the cycle's report raised exactly once: otherwise one field could withdraw
/// what another field does not show.
fn dispute_identity(ledger: &Ledger, d: &Value, line: usize) -> Vec<String> {
    let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let (cycle, key, rule, artifact) = (s("cycle_id"), s("finding_key"), s("rule"), s("artifact"));
    let mut p = Vec::new();
    let joined = format!("{rule}@{artifact}");
    if key != joined {
        p.push(format!(
            "line {line}: finding_key {key:?} is not rule@artifact {joined:?}: the fields name different findings"
        ));
    }
    if let Some(named) = [&key, &rule].into_iter().find(|x| x.starts_with("DCL:")) {
        p.push(format!("line {line}: {named} is a deterministic finding, which cannot be disputed"));
    }
    let Some(c) = ledger.cycles.iter().find(|c| c.name == cycle) else {
        p.push(format!("line {line}: cycle {cycle} is not a cycle directory of the ledger"));
        return p;
    };
    let Some((_, rep)) = &c.report else {
        p.push(format!("line {line}: {cycle} has no readable report, so no finding to dispute"));
        return p;
    };
    let same = |b: &&super::report_md::Block| format!("{}@{}", b.rule, b.artifact) == key;
    let model = rep.model_findings.iter().filter(same).count();
    if rep.dcl_blocks.iter().any(|b| same(&b)) {
        p.push(format!("line {line}: {key} is a deterministic finding of {cycle}, which cannot be disputed"));
    } else if model == 0 && rep.invalid_reason.is_some() && rule == "CA-META-002" {
        p.push(format!(
            "line {line}: {cycle} records an invalid reply, not a finding: an invalid reply escalates (I3) and cannot be withdrawn"
        ));
    } else if model == 0 {
        p.push(format!("line {line}: {cycle}'s report has no finding {key}"));
    } else if model > 1 {
        p.push(format!("line {line}: {key} names {model} findings of {cycle}'s report: the ruling is ambiguous"));
    }
    p
}

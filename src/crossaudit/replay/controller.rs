//! Cross-cycle replay: the controller state machine over each cycle's receipts (I5 rounds, the
//! escalation lock, the parent-receipt chain) and the precedence replay of each verdict (I4).
//! The admission records it feeds are I8's (`invariants/i8_admission.rs`).

use std::collections::{BTreeMap, BTreeSet};

use crate::crossaudit::checks::*;
use crate::crossaudit::invariants::i8_admission::state_checks;
use crate::crossaudit::load::{Cycle, Ledger};
use crate::crossaudit::model::{CycleFacts, GroupInfo, facts_sha, res, short};
use crate::crossaudit::records::receipt::Family;
use crate::crossaudit::records::synthesis::{self, Rule};
use crate::manifest::Digest;
use crate::report::{CheckResult, Outcome};

/// `cycle_id_for(repo, root)`: first 16 hex of SHA-256 of `<repo>\n<root>`.
#[must_use]
pub fn cycle_id_for(repo: &str, root: &str) -> String {
    Digest::of(format!("{repo}\n{root}").as_bytes()).hex()[..16].to_owned()
}

/// Replays the controller; returns results and per-cycle group facts (index-aligned).
pub(crate) fn controller(ledger: &Ledger, facts: &mut [CycleFacts]) -> (Vec<CheckResult>, Vec<GroupInfo>) {
    // Each cycle gets its round checks and its precedence replay: five results, mostly.
    let mut out = Vec::with_capacity(facts.len() * 5);
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
        let blind = blind_round(ledger, facts, members, &root);
        let mut walk = Walk { status: "OPEN", prev_round: None, prev_identity: None, prev_active: None };
        for (k, &i) in members.iter().enumerate() {
            let cycle = &ledger.cycles[i];
            round_checks(cycle, id, &root, blind.as_deref(), &mut walk, &mut facts[i], &mut out);
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

/// The controller's state as it walks one cycle's receipts in ledger order.
struct Walk {
    status: &'static str,
    prev_round: Option<i64>,
    prev_identity: Option<Digest>,
    prev_active: Option<String>,
}

/// A round whose receipt cannot be read is missing from the group, so its neighbours'
/// sequence and chain cannot be judged: the gap may be that round. Directory names start with
/// the commit's first 12 digits in every dialect.
fn blind_round(ledger: &Ledger, facts: &[CycleFacts], members: &[usize], root: &str) -> Option<String> {
    let shas: BTreeSet<String> = std::iter::once(root.to_owned())
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
}

/// What a finding becomes when a round may be missing: the gap, not the receipt, may be at
/// fault.
fn unjudgeable(blind: Option<&str>, msg: String) -> (Outcome, String) {
    match blind {
        Some(b) => {
            (Outcome::CantTell, format!("{msg}, but the receipt at {b} cannot be read and may be the missing round"))
        }
        None => (Outcome::Failed, msg),
    }
}

/// CV-A501, CV-A502, CV-A503 and CV-A712 for one round, in the controller's order; then the
/// walk moves on.
fn round_checks(
    cycle: &Cycle,
    id: &str,
    root: &str,
    blind: Option<&str>,
    walk: &mut Walk,
    f: &mut CycleFacts,
    out: &mut Vec<CheckResult>,
) {
    let s = cycle.path.as_str();
    let round = f.round.unwrap_or(0);
    let max = f.max_rounds.unwrap_or(3);
    let verdict = f.verdict.clone().unwrap_or_default();
    // Under the escalation lock the controller neither advances the round nor moves the
    // cycle to the new commit (R2b `blocked_by_escalation`).
    let locked = walk.status == "ESCALATED";
    let expected_round = walk.prev_round.map_or(1, |p| if locked { p } else { p.saturating_add(1) });
    let seq = sequence_problems(cycle, id, root, f, walk, expected_round);
    out.push(
        if seq.is_empty() {
            res(&ROUND_SEQUENCE, Outcome::Passed, s, format!("round {round} of cycle {id}"))
        } else if seq.len() == 1 && round != expected_round {
            let (o, m) = unjudgeable(blind, seq.join("; "));
            res(&ROUND_SEQUENCE, o, s, m)
        } else {
            res(&ROUND_SEQUENCE, Outcome::Failed, s, seq.join("; "))
        }
        .with("round", round)
        .with("expectedRound", expected_round)
        .with("cycleId", id),
    );
    out.push(if round > max {
        res(&ROUND_BOUND, Outcome::Failed, s, format!("round {round} exceeds max_rounds {max}")).with("maxRounds", max)
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
    let lock = walk.status == "ESCALATED";
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
    } else if walk.status == "PASSED" || walk.status == "CONSUMED" {
        out.push(res(
            &EXHAUSTION_ESCALATES,
            Outcome::Failed,
            s,
            format!("a round after the cycle passed (round {round}): the controller re-opened a finished cycle"),
        ));
    } else {
        out.push(res(&EXHAUSTION_ESCALATES, Outcome::Passed, s, "the cycle had not escalated before this round"));
    }
    f.inputs.lock = lock;
    // Parent chain (schema 2).
    if f.product {
        parent_chain(f, s, blind, walk, out);
    }
    walk.status = match verdict.as_str() {
        "PASS" => "PASSED",
        "ESCALATE" | "DCL_ONLY" => "ESCALATED",
        "BLOCKED" if round >= max => "ESCALATED",
        "BLOCKED" => "BLOCKED",
        _ => walk.status,
    };
    walk.prev_round = Some(round);
    walk.prev_identity = f.identity;
    if !locked {
        walk.prev_active = f.receipt.as_ref().and_then(|r| r.active_sha.clone());
    }
}

/// Where the round's receipt departs from the controller's sequence (CV-A503's reasons).
fn sequence_problems(
    cycle: &Cycle,
    id: &str,
    root: &str,
    f: &CycleFacts,
    walk: &Walk,
    expected_round: i64,
) -> Vec<String> {
    let round = f.round.unwrap_or(0);
    let verdict = f.verdict.clone().unwrap_or_default();
    let locked = walk.status == "ESCALATED";
    let mut seq = Vec::new();
    let reattempt = cycle.name.rsplit_once('.').is_some_and(|(_, n)| n.parse::<u32>().is_ok());
    if round != expected_round && !(reattempt && Some(round) == walk.prev_round) {
        seq.push(format!("round {round} where the controller's sequence gives {expected_round}"));
    }
    if let Some(repo) = &f.science_repo {
        let want = cycle_id_for(repo, root);
        if *id != want {
            seq.push(format!("cycle_id {id} is not cycle_id_for({repo}, {}) = {want}", short(root)));
        }
    }
    if let Some(r) = &f.root_sha
        && *r != root
    {
        seq.push(format!("root_sha {} differs from the cycle's first commit {}", short(r), short(root)));
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
        let held = walk.prev_active.as_ref().filter(|_| locked && verdict == "ESCALATE");
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
    seq
}

/// CV-A712: a schema-2 receipt's parent is the previous round's receipt.
fn parent_chain(f: &CycleFacts, s: &str, blind: Option<&str>, walk: &Walk, out: &mut Vec<CheckResult>) {
    let want = walk.prev_identity.map(|d| d.hex()).unwrap_or_default();
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
            let (o, m) = unjudgeable(
                blind,
                format!(
                    "parent_receipt {} names a receipt, but no earlier round of this cycle is in the ledger",
                    short(&got)
                ),
            );
            res(&PARENT_CHAIN, o, s, m)
        } else if blind.is_some() {
            let (o, m) = unjudgeable(
                blind,
                format!(
                    "parent_receipt {} is not the digest of the previous readable round's receipt ({})",
                    short(&got),
                    short(&want)
                ),
            );
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

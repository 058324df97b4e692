//! I8, admission: no audit, no admission. The published admission records (v1
//! `controller/state.json`, every version of it), what the ledger cannot show of single use,
//! and the admission decision for one receipt (`CV-A8xx`).

use std::collections::{BTreeMap, BTreeSet};

use crate::crossaudit::checks::*;
use crate::crossaudit::load::Ledger;
use crate::crossaudit::model::{CycleFacts, GroupInfo, facts_sha, outcome, res, short};
use crate::crossaudit::records::receipt::Family;
use crate::crossaudit::records::synthesis::{self, Rule};
use crate::json::Value;
use crate::report::{CheckResult, Outcome};

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

pub(crate) fn state_checks(
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
    let mut problems = undone_admissions(ledger, facts, groups, info, out);
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
        problems.extend(consumed_problems(id, &consumed, members, facts, info, &mut seen_consumed));
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
    out.push(outcome(
        &ADMISSION_RECORDS,
        problems.is_empty(),
        subject,
        format!("{} cycle record(s): every admission was of an admissible, current receipt", cycles.len()),
        problems.join("; "),
    ));
}

/// What the state's consumption records of one cycle show against the ledger: each receipt
/// consumed once, admissible, and the cycle's latest.
fn consumed_problems(
    id: &str,
    consumed: &[String],
    members: &[usize],
    facts: &[CycleFacts],
    info: &mut [GroupInfo],
    seen_consumed: &mut BTreeSet<String>,
) -> Vec<String> {
    let latest = *members.last().expect("non-empty");
    let mut problems = Vec::new();
    for h in consumed {
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
                    problems.push(format!("cycle {id} consumed receipt {} that a later round superseded", short(h)));
                }
            }
            None => problems.push(format!("cycle {id} consumed receipt {} that is not in the ledger", short(h))),
        }
    }
    problems
}

/// Replays the consumption records of every version of `controller/state.json` in the audit
/// history: a receipt consumed in any version counts as consumed, and a later version (the
/// head's above all) that no longer records it undoes an admission, which the append-only
/// controller never does. Returns the problems found; marks consumed receipts in `info`.
fn undone_admissions(
    ledger: &Ledger,
    facts: &[CycleFacts],
    groups: &BTreeMap<String, Vec<usize>>,
    info: &mut [GroupInfo],
    out: &mut Vec<CheckResult>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut ever: BTreeSet<(String, String)> = BTreeSet::new();
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
                ever.insert((id.clone(), receipt.clone()));
                recorded.entry((id.clone(), receipt)).or_insert_with(|| commit.clone());
            }
        }
    }
    // Every receipt ever consumed stays consumed, whatever the head says.
    for (id, receipt) in ever {
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

/// The admission decision for the receipt of `cycle`.
pub(crate) fn admission(
    ledger: &Ledger,
    f: &CycleFacts,
    g: &GroupInfo,
    consumed: Option<&BTreeSet<String>>,
) -> Admission {
    let mut a = Admission { tier: NO_TIER.into(), ..Admission::default() };
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
    if !f.binding.is_bound() {
        a.shortfalls.push(format!("not verified: {}", f.binding.failures().first().cloned().unwrap_or_default()));
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
    // Fail closed: a receipt whose identity is unknown cannot be shown not to be consumed.
    let identity = r.identity().map(|d| d.hex());
    let caller_consumed =
        consumed.map(|set| identity.as_ref().is_none_or(|i| set.iter().any(|c| i.starts_with(c.as_str()))));
    if identity.is_none() {
        a.shortfalls.push("the receipt's identity digest is unknown: whether it was consumed cannot be told".into());
    } else if g.consumed || caller_consumed == Some(true) {
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
    } else if !a.shortfalls.is_empty() {
        denial(&a.shortfalls)
    } else {
        format!("cannot be established: {}", a.unobservable.join("; "))
    };
    a
}

/// The tier named when no readable receipt supports any: never an empty name.
pub(crate) const NO_TIER: &str = "none (no readable receipt)";

/// The one-sentence denial naming every shortfall, so a CI log shows all that must change, not
/// only the first.
pub(crate) fn denial(shortfalls: &[String]) -> String {
    match shortfalls {
        [one] => format!("not admissible: {one}"),
        many => format!("not admissible ({} shortfalls): {}", many.len(), many.join("; ")),
    }
}

/// CV-A802 and CV-A803: what the ledger can show of single use, and the tier its evidence
/// supports.
pub(crate) fn admission_observable(ledger: &Ledger, facts: &[CycleFacts], out: &mut Vec<CheckResult>) {
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
        let tier = if tiers.is_empty() { NO_TIER.to_owned() } else { tiers.into_iter().collect::<Vec<_>>().join(", ") };
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

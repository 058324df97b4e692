//! Checks that compare receipts with each other rather than with their own records: what the
//! deterministic layer recorded over the same inputs (I4) and the Constitution a cycle's rounds
//! bind (paper §6). Both read the facts `verify` gathered, in ledger order.

use std::collections::BTreeMap;

use crate::crossaudit::checks::{DCL_DETERMINISTIC, STANDARDS_FROZEN};
use crate::crossaudit::load::Ledger;
use crate::crossaudit::model::{CycleFacts, DclRun, res, short};
use crate::crossaudit::records::receipt::{Family, Receipt};
use crate::manifest::Digest;
use crate::report::{CheckResult, Outcome};

/// Both cross-receipt checks. A receipt either fails is not verified, so admission denies it.
pub(crate) fn checks(ledger: &Ledger, facts: &mut [CycleFacts], out: &mut Vec<CheckResult>) {
    let start = out.len();
    determinism(ledger, facts, out);
    freeze(ledger, facts, out);
    for r in &out[start..] {
        if r.outcome != Outcome::Failed {
            continue;
        }
        if let Some(i) = ledger.cycles.iter().position(|c| c.path == r.subject) {
            facts[i].binding.fail(r.message.clone());
        }
    }
}

/// Elements of `a` not matched in `b`, counting repeats.
fn minus(a: &[String], b: &[String]) -> Vec<String> {
    let mut left: BTreeMap<&str, usize> = BTreeMap::new();
    for x in b {
        *left.entry(x).or_default() += 1;
    }
    a.iter()
        .filter(|x| match left.get_mut(x.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// CV-A403: receipts sharing the layer's inputs record the same hard failures.
fn determinism(ledger: &Ledger, facts: &[CycleFacts], out: &mut Vec<CheckResult>) {
    let mut sharing: BTreeMap<Digest, Vec<usize>> = BTreeMap::new();
    for (i, f) in facts.iter().enumerate() {
        if let Some(DclRun { key: Some(k), hard: Some(_) }) = &f.dcl_run {
            sharing.entry(*k).or_default().push(i);
        }
    }
    for (i, f) in facts.iter().enumerate() {
        let Some(run) = &f.dcl_run else { continue };
        let s = ledger.cycles[i].path.as_str();
        let (Some(key), Some(hard)) = (&run.key, &run.hard) else {
            let why = if run.hard.is_none() {
                "no readable checks.json: what the deterministic layer found cannot be compared"
            } else {
                "the receipt does not bind the tree, bound paths, check list and check-layer digest"
            };
            out.push(res(&DCL_DETERMINISTIC, Outcome::CantTell, s, why));
            continue;
        };
        let group = &sharing[key];
        if group.len() == 1 {
            out.push(res(
                &DCL_DETERMINISTIC,
                Outcome::Inapplicable,
                s,
                "no other receipt ran the deterministic layer over the same tree, files, checks and digest",
            ));
            continue;
        }
        let first = group[0];
        let other = ledger.cycles[first].path.as_str();
        if first == i {
            out.push(res(
                &DCL_DETERMINISTIC,
                Outcome::Passed,
                s,
                format!("first of {} receipts over the same deterministic inputs", group.len()),
            ));
            continue;
        }
        let theirs = facts[first].dcl_run.as_ref().and_then(|r| r.hard.clone()).unwrap_or_default();
        let (missing, extra) = (minus(&theirs, hard), minus(hard, &theirs));
        out.push(if missing.is_empty() && extra.is_empty() {
            res(
                &DCL_DETERMINISTIC,
                Outcome::Passed,
                s,
                format!("records the same {} hard failure(s) as {other} over the same inputs", hard.len()),
            )
        } else {
            let mut msg = format!(
                "records {} hard failure(s) where {other} recorded {} over the same tree, files, checks and DCL digest",
                hard.len(),
                theirs.len()
            );
            if !missing.is_empty() {
                msg.push_str(&format!("; missing here: {}", missing.join(", ")));
            }
            if !extra.is_empty() {
                msg.push_str(&format!("; only here: {}", extra.join(", ")));
            }
            res(&DCL_DETERMINISTIC, Outcome::Failed, s, msg)
                .with("comparedWith", other)
                .with("missing", missing)
                .with("extra", extra)
        });
    }
}

/// The Constitution version a receipt binds: content where the dialect binds it, else commit.
fn version(r: &Receipt) -> Option<(String, String)> {
    let commit = r.constitution_commit.clone()?;
    Some(match (&r.family, &r.constitution_sha256) {
        (Family::Schema2, Some(d)) => (d.clone(), format!("{} (sha256 {})", short(&commit), short(d))),
        _ => (commit.clone(), short(&commit)),
    })
}

/// CV-A308: standards freeze within a cycle.
fn freeze(ledger: &Ledger, facts: &[CycleFacts], out: &mut Vec<CheckResult>) {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in facts.iter().enumerate() {
        if let (Some(id), Some(_)) = (f.cycle_id.as_deref(), &f.receipt)
            && id != "no-controller"
        {
            groups.entry(id).or_default().push(i);
        }
    }
    for members in groups.values() {
        if let [only] = members[..] {
            let s = ledger.cycles[only].path.as_str();
            out.push(res(&STANDARDS_FROZEN, Outcome::Inapplicable, s, "a cycle of one round"));
            continue;
        }
        let first = members[0];
        let Some((want, want_text)) = facts[first].receipt.as_ref().and_then(version) else { continue };
        for &i in &members[1..] {
            let s = ledger.cycles[i].path.as_str();
            let round = facts[i].round.unwrap_or(0);
            let first_path = ledger.cycles[first].path.as_str();
            let Some((got, got_text)) = facts[i].receipt.as_ref().and_then(version) else {
                out.push(res(&STANDARDS_FROZEN, Outcome::CantTell, s, "the receipt binds no Constitution version"));
                continue;
            };
            out.push(if got == want {
                res(
                    &STANDARDS_FROZEN,
                    Outcome::Passed,
                    s,
                    format!("round {round} binds the Constitution of the cycle's first round ({first_path})"),
                )
            } else {
                res(
                    &STANDARDS_FROZEN,
                    Outcome::Failed,
                    s,
                    format!(
                        "round {round} binds Constitution {got_text}, the cycle's first round ({first_path}) bound {want_text}: standards freeze within a cycle (paper §6)"
                    ),
                )
                .with("firstRound", first_path)
                .with("paper", "failed: amendments take effect between cycles")
                .with(
                    if facts[i].product { "product (v2/v4)" } else { "v1" },
                    "accepted: the Constitution is read afresh at every round",
                )
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::minus;

    fn v(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn multiset_difference_counts_repeats() {
        assert_eq!(minus(&v(&["a", "a", "b"]), &v(&["a"])), v(&["a", "b"]));
        assert_eq!(minus(&v(&["a"]), &v(&["a", "a"])), v(&[]));
        assert!(minus(&v(&[]), &v(&["x"])).is_empty());
    }
}

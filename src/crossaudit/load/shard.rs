//! Sharding one ledger over machines (issue 14, `docs/scale.md`).
//!
//! What costs is CV-A702: inflating and hashing every bound blob. A shard (`--shard K/N`) runs
//! it only for its own cycles — cycle `i` (0-based, ledger order) belongs to shard
//! `i mod N + 1` — and records the results and binding failures it produced. Everything else (parsing, the other per-cycle checks, the ledger-level replay) is
//! cheap and runs in every shard, so each shard report is a report on its own: its cycles in
//! full, the others' CV-A702 `untested` with the shard that has it.
//!
//! `merge` re-runs the ledger (at the same audit head, which it checks) with the shards'
//! CV-A702 records in place of hashing. The merged report is then built by the very code an
//! unsharded run uses, so its bytes are the same (tested for N = 1, 2, 3).

use super::ledger::Ledger;
use crate::crossaudit::checks::MANIFEST_MATCHES;
use crate::report::{CheckResult, Outcome};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

/// `--shard K/N`: the Kth (1-based) of N slices of the cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// K, from 1.
    pub index: u32,
    /// N.
    pub of: u32,
}

impl Shard {
    /// Parses `K/N` with `1 <= K <= N <= 4096`.
    ///
    /// # Errors
    /// What is wrong with the text.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or_else(|| format!("`{s}` is not K/N (e.g. 2/4)"))?;
        let num = |t: &str| t.parse::<u32>().map_err(|_| format!("`{s}`: `{t}` is not a whole number"));
        let (index, of) = (num(k)?, num(n)?);
        if !(1..=4096).contains(&of) || !(1..=of).contains(&index) {
            return Err(format!("`{s}`: K must be 1 to N and N 1 to 4096"));
        }
        Ok(Shard { index, of })
    }

    fn owner(self, cycle_index: usize) -> u32 {
        // `of` is at most 4096, so both conversions are exact.
        u32::try_from(cycle_index % self.of as usize).expect("a remainder below N fits") + 1
    }
}

/// What one cycle's CV-A702 stage produced.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Recorded {
    results: Vec<CheckResult>,
    failures: Vec<String>,
}

#[derive(Debug)]
pub(crate) enum Mode {
    Own(Shard),
    /// `merge`: each shard's records (shard 1 first) of a run over `of` shards.
    Replay {
        of: u32,
        shards: Vec<BTreeMap<String, Recorded>>,
    },
}

/// How a run treats CV-A702 per cycle: a shard's own part, or the shards' records (`merge`).
#[derive(Debug)]
pub struct Plan {
    mode: Mode,
    pub(crate) owners: OnceLock<HashMap<String, u32>>,
    pub(crate) recorded: Mutex<BTreeMap<String, Recorded>>,
    /// `merge`: the records each cycle's owner made, once the ledger says who owns what.
    replay: OnceLock<BTreeMap<String, Recorded>>,
    /// `merge`: records a shard made about cycles it does not own (the set is refused).
    pub(crate) foreign: OnceLock<Vec<String>>,
}

impl Plan {
    pub(crate) fn new(mode: Mode) -> Self {
        Plan {
            mode,
            owners: OnceLock::new(),
            recorded: Mutex::default(),
            replay: OnceLock::new(),
            foreign: OnceLock::new(),
        }
    }

    /// Assigns the cycles of `ledger` (crawl, once the ledger is loaded). For `merge`, keeps of
    /// each shard only the records about its own cycles, and lists the others.
    pub(crate) fn assign(&self, ledger: &Ledger) {
        let owners_of = |s: Shard| -> HashMap<String, u32> {
            ledger.cycles.iter().enumerate().map(|(i, c)| (c.path.clone(), s.owner(i))).collect()
        };
        match &self.mode {
            Mode::Own(s) => {
                let _ = self.owners.set(owners_of(*s));
            }
            Mode::Replay { of, shards } => {
                let owners = owners_of(Shard { index: 1, of: *of });
                let (mut kept, mut foreign) = (BTreeMap::new(), Vec::new());
                for (k, records) in (1..).zip(shards) {
                    for (cycle, rec) in records {
                        match owners.get(cycle) {
                            Some(owner) if *owner == k => {
                                kept.insert(cycle.clone(), rec.clone());
                            }
                            Some(owner) => foreign.push(format!(
                                "shard {k}/{of} holds a CV-A702 record about {cycle}, which belongs to shard {owner}/{of}"
                            )),
                            None => foreign.push(format!(
                                "shard {k}/{of} holds a CV-A702 record about {cycle}, which is not a cycle of the ledger"
                            )),
                        }
                    }
                }
                let _ = self.replay.set(kept);
                let _ = self.foreign.set(foreign);
                let _ = self.owners.set(HashMap::new());
            }
        }
    }

    fn record(&self, subject: &str, rec: Recorded) {
        self.recorded.lock().expect("never poisoned: nothing panics while holding it").insert(subject.to_owned(), rec);
    }
}

/// The CV-A702 stage of cycle `subject` under `plan`: run (and recorded, for a shard's own
/// cycle), replayed from a shard's record, or left `untested` for the shard that owns it.
pub(crate) fn manifest_part(
    plan: Option<&Plan>,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
    run: impl FnOnce(&mut Vec<CheckResult>, &mut Vec<String>),
) {
    let Some(plan) = plan else { return run(out, failed) };
    match &plan.mode {
        Mode::Own(s) => match plan.owners.get().and_then(|o| o.get(subject)).copied() {
            Some(owner) if owner != s.index => {
                let by = format!("shard {owner}/{}", s.of);
                out.push(CheckResult::new(
                    &MANIFEST_MATCHES,
                    Outcome::Untested,
                    subject,
                    format!("the manifest is verified by {by}; `crossverify merge` combines the shards"),
                ));
                failed.push(format!("manifest verified by {by}, not this shard"));
            }
            _ => {
                let mut rec = Recorded::default();
                run(&mut rec.results, &mut rec.failures);
                out.extend(rec.results.iter().cloned());
                failed.extend(rec.failures.iter().cloned());
                plan.record(subject, rec);
            }
        },
        Mode::Replay { .. } => match plan.replay.get().and_then(|r| r.get(subject)) {
            Some(rec) => {
                out.extend(rec.results.iter().cloned());
                failed.extend(rec.failures.iter().cloned());
            }
            None => run(out, failed),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_deal_cycles_round_robin() {
        let s = Shard::parse("2/3").expect("parses");
        assert_eq!((s.index, s.of), (2, 3));
        assert_eq!((0..7).map(|i| s.owner(i)).collect::<Vec<_>>(), [1, 2, 3, 1, 2, 3, 1]);
        for bad in ["0/3", "4/3", "1/0", "x/2", "2", "1/5000", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}

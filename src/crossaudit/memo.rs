//! The per-receipt cache (issue 14, `docs/scale.md`): one cycle's results and the facts the
//! ledger-level replay needs, kept between runs so that re-verifying a grown ledger re-reads
//! only the cycles it has not seen.
//!
//! A cycle's verification is a pure function of immutable inputs only under conditions, so the
//! key and the rules below are deliberately narrow:
//! - The key hashes everything [`super::verify::check_cycle`] reads that is not content-addressed
//!   by it: the tool build, the run's options that reach per-cycle results, the ledger's
//!   layout, and the cycle itself (its files' blob ids, the commits that added its receipt and
//!   report, the receipt's position in the audit history). The receipt's bytes, the science
//!   commit it names, the Constitution, config and check-layer blobs are all reached from those
//!   ids, so they are covered without being read.
//! - Three answers depend on repositories that grow: whether the science repository holds the
//!   audited commit, and whether the audit repository holds the report commit and has it in
//!   the audit head's history. They are stored with the entry and asked again on every hit; a
//!   changed answer is a miss.
//! - Only definite cycles are stored: a cycle with an `untested` result, or a `cantTell` other
//!   than the records' own (CV-A708), or a shallow science repository (missing history, an
//!   object not fetched yet) is recomputed every run, since the evidence it lacked may arrive. So are receipts given on the command line, sharded and
//!   merged runs, and ledgers without full history.
//!
//! Everything across cycles (history, rounds, admission, replay) is recomputed every run.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::load::{Cycle, Ledger, Options};
use super::verify::{self, CycleFacts};
use crate::cache::Cache;
use crate::git::{ObjectId, Repo};
use crate::report::{CheckResult, Outcome};

/// What a stored entry means; bump when the payload or the key's parts change meaning.
const LAYOUT: &str = "crossaudit-cycle/1";

/// Prefix of the table keys of this kind of entry.
pub(crate) const KIND: &str = "cycle/";

/// What one cycle's entry holds.
#[derive(Serialize, Deserialize)]
struct Stored {
    deps: Deps,
    results: Vec<CheckResult>,
    facts: CycleFacts,
}

/// The answers asked again on every hit.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Deps {
    /// The audited commit, and whether the science repository holds it.
    science: Option<(String, bool)>,
    /// The receipt's report commit, whether the audit repository holds it, and whether it is in
    /// the audit head's history.
    report_commit: Option<(String, bool, bool)>,
}

/// The per-receipt cache of one run.
pub(super) struct Memo<'a> {
    cache: Option<&'a Cache>,
    base: [u8; 32],
    /// Every commit in the audit head's history (the ledger's history walk).
    history: Option<&'a HashMap<ObjectId, usize>>,
}

impl<'a> Memo<'a> {
    /// The cache for `ledger` under `opts`; off without a cache, for shards and merges (whose
    /// per-cycle results depend on the plan), and without the full audit history.
    pub(super) fn new(opts: &'a Options, ledger: &'a Ledger) -> Self {
        let history = ledger.history.as_ref().ok().map(|h| &h.position);
        let cache = opts.cache.as_deref().filter(|_| opts.shard.is_none() && history.is_some());
        let mut h = Sha256::new();
        let mut part = |b: &[u8]| {
            h.update((b.len() as u64).to_le_bytes());
            h.update(b);
        };
        part(LAYOUT.as_bytes());
        part(env!("CARGO_PKG_VERSION").as_bytes());
        part(crate::report::BUILD_COMMIT.unwrap_or("").as_bytes());
        // Results name these paths and options; a change to any is another run.
        part(opts.audit.to_string_lossy().as_bytes());
        part(opts.science.as_ref().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default().as_bytes());
        part(format!("{:?}", opts.dialect).as_bytes());
        part(opts.expect_sha.as_deref().unwrap_or("\0").as_bytes());
        part(opts.expect_repo.as_deref().unwrap_or("\0").as_bytes());
        part(ledger.family.as_str().as_bytes());
        part(ledger.ledger_dir.as_bytes());
        part(&[u8::from(ledger.local), u8::from(ledger.science.is_some())]);
        Memo { cache, base: h.finalize().into(), history }
    }

    /// The cycle's results and facts: from the cache when an authenticated entry exists and
    /// its dependencies still hold, else computed (and stored when definite).
    pub(super) fn cycle(
        &self,
        vctx: &verify::Ctx<'_>,
        audit: &Repo,
        science: Option<&Repo>,
        cycle: &Cycle,
        buf: &mut Vec<u8>,
    ) -> (Vec<CheckResult>, CycleFacts) {
        let compute = |buf: &mut Vec<u8>| verify::check_cycle(vctx, audit, science, cycle, buf);
        let (Some(cache), Some(key)) = (self.cache, self.key(cycle)) else { return compute(buf) };
        let payload = cache.get(&key);
        let cached = payload.as_deref().and_then(|p| serde_json::from_slice::<Stored>(p).ok());
        if payload.is_some() && cached.is_none() {
            cache.unusable(&key);
        }
        let current = cached.as_ref().map(|s| self.deps(audit, science, &s.facts));
        if let (Some(stored), Some(current)) = (&cached, &current)
            && stored.deps != *current
        {
            // The repositories changed under the entry: a miss, and the entry is replaced.
            cache.superseded(&key);
        }
        if let Some(stored) = cached
            && current.as_ref() == Some(&stored.deps)
        {
            if !cache.is_auditing() {
                return (stored.results, stored.facts);
            }
            // `--cache-audit`: the entry must be exactly what this run computes.
            let (results, facts) = compute(buf);
            let again = Stored { deps: self.deps(audit, science, &facts), results, facts };
            let fresh = serde_json::to_vec(&again).ok();
            let agreed = fresh == payload;
            cache.audit_result(agreed);
            if let Some(p) = fresh.filter(|_| !agreed && definite(cycle, science, &again.results, &again.facts)) {
                cache.put(&key, &p);
            }
            return (again.results, again.facts);
        }
        let (results, facts) = compute(buf);
        if definite(cycle, science, &results, &facts) {
            let stored = Stored { deps: self.deps(audit, science, &facts), results, facts };
            if let Ok(payload) = serde_json::to_vec(&stored) {
                cache.put(&key, &payload);
            }
            return (stored.results, stored.facts);
        }
        (results, facts)
    }

    /// The table key of `cycle`, or `None` when its result is not a function of its ids.
    fn key(&self, cycle: &Cycle) -> Option<Vec<u8>> {
        let (receipt, (added, position)) = (cycle.receipt_blob?, cycle.added_in?);
        if cycle.receipt_given.is_some() || cycle.unrecorded {
            return None;
        }
        let mut h = Sha256::new();
        let mut part = |b: &[u8]| {
            h.update((b.len() as u64).to_le_bytes());
            h.update(b);
        };
        part(&self.base);
        part(cycle.name.as_bytes());
        part(cycle.path.as_bytes());
        for (name, (kind, id)) in &cycle.files {
            part(name.as_bytes());
            part(format!("{kind:?}").as_bytes());
            part(id.as_bytes());
        }
        part(receipt.as_bytes());
        part(added.as_bytes());
        part(&(position as u64).to_le_bytes());
        part(cycle.report_added_in.as_ref().map_or(&[][..], |i| i.as_bytes()));
        part(&cycle.report.as_ref().map_or([0; 32], |(d, _)| d.0));
        Some([KIND.as_bytes(), h.finalize().as_slice()].concat())
    }

    fn deps(&self, audit: &Repo, science: Option<&Repo>, facts: &CycleFacts) -> Deps {
        let id = |s: &str| ObjectId::from_hex(s.as_bytes()).ok();
        let science = facts.sha.as_ref().map(|sha| {
            let held = id(sha).zip(science).is_some_and(|(i, s)| s.has(i));
            (sha.clone(), held)
        });
        let report_commit = facts.receipt.as_ref().and_then(|r| r.report_commit.as_ref()).map(|rc| {
            let i = id(rc);
            let held = i.is_some_and(|i| audit.has(i));
            let in_history = i.zip(self.history).is_some_and(|(i, h)| h.contains_key(&i));
            (rc.clone(), held, in_history)
        });
        Deps { science, report_commit }
    }
}

/// A cycle worth storing: its receipt parsed, its science repository complete, and no result
/// waiting for evidence that may still arrive. CV-A708's `cantTell` is a property of the
/// records (digests bound to files the ledger never publishes), not of what was fetched.
fn definite(cycle: &Cycle, science: Option<&Repo>, results: &[CheckResult], facts: &CycleFacts) -> bool {
    facts.receipt.is_some()
        && cycle.receipt_given.is_none()
        && science.is_none_or(|s| s.shallow_hint().is_none())
        && results.iter().all(|r| match r.outcome {
            Outcome::Untested => false,
            Outcome::CantTell => super::check_i7_binding::cant_tell_is_permanent(&r.code),
            _ => true,
        })
}

/// Whether `data` reads as a stored entry (the fuzz target's entry point).
pub(super) fn read_payload(data: &[u8]) -> bool {
    serde_json::from_slice::<Stored>(data).is_ok()
}

//! The per-receipt cache (issue 14, `docs/scale.md`): one cycle's results and the facts the
//! ledger-level replay needs, kept between runs so that re-verifying a grown ledger re-reads
//! only the cycles it has not seen.
//!
//! A cycle's verification is a pure function of immutable inputs only under conditions, so the
//! key and the rules below are deliberately narrow:
//! - The key hashes everything [`crate::crossaudit::crawl::verify::check_cycle`] reads that is not content-addressed
//!   by it: the tool build, the run's options that reach per-cycle results, the ledger's
//!   layout, and the cycle itself (its files' blob ids, the commits that added its receipt and
//!   report, the receipt's position in the audit history). The receipt's bytes, the science
//!   commit it names, the Constitution, config and check-layer blobs are all reached from those
//!   ids, so they are covered without being read.
//! - Three answers depend on repositories that grow: whether the science repository holds the
//!   audited commit, and whether the audit repository holds the report commit and has it in
//!   the audit head's history. They are stored with the entry and asked again on every hit; a
//!   changed answer is a miss.
//! - Objects can also disappear (a partial clone, a pruned or damaged repository): an entry is
//!   used only while the repositories still hold every object its cycle could have read
//!   (`Memo::held`, a superset), and while their storage is undamaged and was once read in
//!   full ([`crate::manifest::sealed`]), so the cache never answers for evidence that is gone
//!   or no longer reads as it did.
//! - Only definite cycles are stored: a cycle with an `untested` result, or a `cantTell` other
//!   than the records' own (CV-A708), or a shallow science repository (missing history, an
//!   object not fetched yet) is recomputed every run, since the evidence it lacked may arrive. So are receipts given on the command line, sharded and
//!   merged runs, and ledgers without full history.
//!
//! Everything across cycles (history, rounds, admission, replay) is recomputed every run.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::cache::Cache;
use crate::crossaudit::crawl::verify;
use crate::crossaudit::load::{Cycle, Ledger, Options};
use crate::crossaudit::model::{self, CycleFacts};
use crate::git::{EntryKind, ObjectId, PackIndexes, Repo};
use crate::manifest::{sealed, verified_packs};
use crate::report::{CheckResult, Outcome};

/// What a stored entry means; bump when the payload or the key's parts change meaning.
const LAYOUT: &str = "crossaudit-cycle/3";

/// Prefix of the table keys of this kind of entry.
pub(crate) const KIND: &str = "cycle/";

/// Prefix of the table keys recording a tree found whole, with the packs it was found in
/// ([`Memo::whole`]).
/// The `1` is the layout: what "whole" means (every tree and blob below, submodules not
/// followed, git's depth limit) and the payload (`1`, then the pack and index checksums of
/// the packs the closure was found in; `0`: found not whole under `--cache-audit`).
const HELD: &[u8] = b"held-tree/1/";

/// What one cycle's entry holds.
#[derive(Serialize, Deserialize)]
struct Stored {
    deps: Deps,
    results: Vec<CheckResult>,
    facts: CycleFacts,
    /// The repository paths as given, when the results or facts spell one of them (a git
    /// error names its repository): such an entry answers only a run given the same paths.
    /// Every other entry is a function of object ids alone and answers a run over any clone.
    paths: Option<[String; 2]>,
}

impl Stored {
    /// The entry for a cycle verified over repositories at `here` (audit, science): carrying
    /// the paths exactly when its serialised results or facts contain one of them (as JSON
    /// spells it), so that no path-free entry can answer with another run's path.
    fn new(deps: Deps, results: Vec<CheckResult>, facts: CycleFacts, here: &[String; 2]) -> Stored {
        let mut stored = Stored { deps, results, facts, paths: None };
        let text = serde_json::to_string(&(&stored.results, &stored.facts)).unwrap_or_default();
        let spelled = here.iter().filter(|p| !p.is_empty()).any(|p| {
            let quoted = serde_json::to_string(p).unwrap_or_default();
            quoted.get(1..quoted.len().saturating_sub(1)).is_some_and(|inner| text.contains(inner))
        });
        if spelled || text.is_empty() {
            stored.paths = Some(here.clone());
        }
        stored
    }
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
pub(crate) struct Memo<'a> {
    cache: Option<&'a Cache>,
    base: [u8; 32],
    /// Every commit in the audit head's history (the ledger's history walk).
    history: Option<&'a HashMap<ObjectId, usize>>,
    /// Every (commit, tree) of that history.
    commits: &'a [(ObjectId, ObjectId)],
    /// Whether the audit repository still holds every object of that history (asked once per
    /// run, on the first entry found).
    audit_whole: OnceLock<bool>,
    /// What each repository was found to hold, for [`Memo::whole`].
    whole: [Mutex<Held>; 2],
    /// Each repository's pack indexes, when the seal verified every one this run (read once
    /// per run).
    indexes: [OnceLock<Option<PackIndexes>>; 2],
}

/// Trees found whole (every tree and blob below them held), with the packs their closure was
/// found in, or not whole (`None`); and the blobs found held. A blob sits in hundreds of the
/// trees of a history: asked of the indexes once, then of this map (on the 1,000-cycle bench
/// ledger, 60,000 index lookups instead of 4 million).
#[derive(Default)]
struct Held {
    trees: gix::hashtable::HashMap<ObjectId, Option<u64>>,
    blobs: gix::hashtable::HashMap<ObjectId, u64>,
    buf: Vec<u8>,
}

/// In a [`Held`] mask, bit `i < 63` is the `i`th verified pack index; this bit is an object
/// found only through the live store.
const LIVE: u64 = 1 << 63;

/// The packs a stored `held-tree` payload names, as a mask over `indexes`; `None` unless it
/// says whole (`1`) and every pack it names is among them.
fn stored_mask(payload: &[u8], indexes: &PackIndexes, hash_len: usize) -> Option<u64> {
    let (b'1', pairs) = payload.split_first()? else { return None };
    if pairs.len() % (2 * hash_len) != 0 {
        return None;
    }
    pairs.chunks(2 * hash_len).try_fold(0u64, |mask, pair| {
        let (pack, index) = pair.split_at(hash_len);
        let at = indexes.pairs().iter().position(|(p, i)| p.as_bytes() == pack && i.as_bytes() == index)?;
        (at < 63).then(|| mask | (1 << at))
    })
}

/// Which repository a tree is in, for [`Memo::whole`].
#[derive(Clone, Copy)]
enum Side {
    Audit = 0,
    Science = 1,
}

impl<'a> Memo<'a> {
    /// The cache for `ledger` under `opts`; off without a cache, for shards and merges (whose
    /// per-cycle results depend on the plan), and without the full audit history.
    pub(crate) fn new(opts: &'a Options, ledger: &'a Ledger) -> Self {
        let history = ledger.history.as_ref().ok().map(|h| &h.position);
        let commits = ledger.history.as_ref().map_or(&[][..], |h| h.commits.as_slice());
        let cache = opts.cache.as_deref().filter(|_| opts.shard.is_none() && history.is_some());
        let mut h = Sha256::new();
        let mut part = |b: &[u8]| {
            h.update((b.len() as u64).to_le_bytes());
            h.update(b);
        };
        part(LAYOUT.as_bytes());
        part(env!("CARGO_PKG_VERSION").as_bytes());
        part(crate::report::BUILD_COMMIT.unwrap_or("").as_bytes());
        // Results depend on these options; a change to any is another run. The repositories'
        // paths are not part of the key (a clone elsewhere holds the same ids): an entry whose
        // results spell a path carries the paths and answers only for them (`Stored::paths`).
        part(format!("{:?}", opts.dialect).as_bytes());
        part(opts.expect_sha.as_deref().unwrap_or("\0").as_bytes());
        part(opts.expect_repo.as_deref().unwrap_or("\0").as_bytes());
        part(ledger.family.as_str().as_bytes());
        part(ledger.ledger_dir.as_bytes());
        part(&[u8::from(ledger.local), u8::from(ledger.science.is_some())]);
        Memo {
            cache,
            base: h.finalize().into(),
            history,
            commits,
            audit_whole: OnceLock::new(),
            whole: [Mutex::default(), Mutex::default()],
            indexes: [OnceLock::new(), OnceLock::new()],
        }
    }

    /// Establishes the repositories' seals (`crate::manifest::sealed`) for this run, so that
    /// the workers find them established.
    pub(crate) fn seal(&self, audit: &Repo, science: Option<&Repo>) {
        if let Some(cache) = self.cache {
            let _ = sealed(cache, audit) && science.is_none_or(|s| sealed(cache, s));
        }
    }

    /// The cycle's results and facts: from the cache when an authenticated entry exists and
    /// its dependencies still hold, else computed (and stored when definite).
    pub(crate) fn cycle(
        &self,
        vctx: &model::Ctx<'_>,
        audit: &Repo,
        science: Option<&Repo>,
        cycle: &Cycle,
        scratch: &mut crate::crossaudit::model::Scratch,
    ) -> (Vec<CheckResult>, CycleFacts) {
        let compute = |s: &mut crate::crossaudit::model::Scratch| verify::check_cycle(vctx, audit, science, cycle, s);
        // A damaged storage neither reads nor writes the cache (`crate::manifest::sealed`): an
        // entry stood for undamaged objects, and one computed now could stand for damage.
        let cache = self.cache.filter(|c| sealed(c, audit) && science.is_none_or(|s| sealed(c, s)));
        let (Some(cache), Some(key)) = (cache, self.key(cycle)) else { return compute(scratch) };
        let here =
            [audit.path().display().to_string(), science.map(|s| s.path().display().to_string()).unwrap_or_default()];
        let payload = cache.get(&key);
        let cached = payload.as_deref().and_then(|p| serde_json::from_slice::<Stored>(p).ok());
        if payload.is_some() && cached.is_none() {
            cache.unusable(&key);
        }
        // An entry stands for objects read when it was written: it answers only while the
        // repositories still hold them (a partial clone, a pruned or damaged repository would
        // make the computation below report them missing), and, when its results spell the
        // repositories' paths, only for those paths.
        let current = cached
            .as_ref()
            .filter(|s| s.paths.as_ref().is_none_or(|p| *p == here))
            .filter(|s| self.held(audit, science, cycle, &s.facts))
            .map(|s| self.deps(audit, science, &s.facts));
        if let Some(stored) = &cached
            && current.as_ref() != Some(&stored.deps)
        {
            // The repositories changed under the entry, or it spells other paths: a miss, and
            // the entry is replaced.
            cache.superseded(&key);
        }
        if let Some(stored) = cached
            && current.as_ref() == Some(&stored.deps)
        {
            if !cache.is_auditing() {
                return (stored.results, stored.facts);
            }
            // `--cache-audit`: the entry must be exactly what this run computes.
            let (results, facts) = compute(scratch);
            let again = Stored::new(self.deps(audit, science, &facts), results, facts, &here);
            let fresh = serde_json::to_vec(&again).ok();
            let agreed = fresh == payload;
            cache.audit_result(agreed);
            if let Some(p) = fresh.filter(|_| !agreed && definite(cycle, science, &again.results, &again.facts)) {
                cache.put(&key, &p);
            }
            return (again.results, again.facts);
        }
        let (results, facts) = compute(scratch);
        if definite(cycle, science, &results, &facts) {
            let stored = Stored::new(self.deps(audit, science, &facts), results, facts, &here);
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

    /// Whether every object the cycle's verification could have read is still readable: the
    /// cycle's files and receipt, every commit of the audit history with every tree and blob
    /// below it (the Constitution, config and check layer in force, the reports), and the
    /// audited science commit and its first parent with every tree and blob below them. A
    /// superset of what was read, so an object that is gone and was never read costs a
    /// recomputation, never a wrong answer.
    fn held(&self, audit: &Repo, science: Option<&Repo>, cycle: &Cycle, facts: &CycleFacts) -> bool {
        if !cycle.receipt_blob.into_iter().chain(cycle.files.values().map(|(_, id)| *id)).all(|id| audit.has(id)) {
            return false;
        }
        let audit_whole = *self.audit_whole.get_or_init(|| {
            self.commits.iter().all(|(commit, tree)| audit.has(*commit) && self.whole(audit, Side::Audit, *tree))
        });
        if !audit_whole {
            return false;
        }
        let (Some(science), Some(sha)) = (science, facts.sha.as_deref()) else { return true };
        let Some(id) = ObjectId::from_hex(sha.as_bytes()).ok().filter(|i| science.has(*i)) else {
            // Not held when stored either, or [`Deps`] tells the difference.
            return true;
        };
        let Ok(commit) = science.commit(id) else { return false };
        let parent = match commit.parents.first() {
            None => Some(None),
            Some(p) => science.commit(*p).ok().map(|c| Some(c.tree)),
        };
        let Some(parent) = parent else { return false };
        self.whole(science, Side::Science, commit.tree) && parent.is_none_or(|t| self.whole(science, Side::Science, t))
    }

    /// Whether `repo` holds `tree` and every tree and blob below it (submodules are other
    /// repositories). Remembered per tree id, so shared subtrees are read once per run; one
    /// thread reads at a time, so two workers never read the same subtrees.
    ///
    /// Kept between runs as `held-tree` entries: a tree found whole through the pack indexes
    /// the seal verified this run is stored with the (pack, index) checksum pairs its closure
    /// was found in, and answers a later run whose verified packs include all of them. A
    /// re-verification reads none of the trees it met before (on the 1,000-cycle bench ledger,
    /// 41,000 trees and most of a re-verification's time), also after a fetch added a pack.
    /// An object found only through the live store (a loose object, a pack beyond the 63rd)
    /// makes the answer good for this run only: the store can gain or lose objects while the
    /// run reads it (a fetch, a `gc`), and only the verified indexes are a fixed set.
    fn whole(&self, repo: &Repo, side: Side, tree: ObjectId) -> bool {
        let indexed = self.cache.and_then(|c| {
            let indexes = self.indexes[side as usize].get_or_init(|| {
                let verified = verified_packs(c, repo)?;
                repo.pack_indexes().filter(|ix| ix.pairs().iter().all(|p| verified.contains(p)))
            });
            indexes.as_ref().map(|ix| (c, ix))
        });
        let mut held = self.whole[side as usize].lock().expect("never poisoned: nothing panics while holding it");
        if let Some(known) = held.trees.get(&tree) {
            return known.is_some();
        }
        // A tree outside the verified packs (loose: just fetched or committed) cannot be kept,
        // so the cache is not asked for it and reports no miss for it on every run.
        let kept = indexed
            .filter(|(_, ix)| ix.locate(tree).is_some())
            .map(|(c, ix)| (c, ix, [HELD, tree.as_bytes()].concat()));
        if let Some((c, ix, key)) = &kept
            && let Some(payload) = c.get(key)
        {
            match stored_mask(&payload, ix, repo.object_hash().len_in_bytes()) {
                Some(mask) if !c.is_auditing() => {
                    held.trees.insert(tree, Some(mask));
                    return true;
                }
                Some(_) => {
                    let again = held.whole(repo, tree, Some(ix)).is_some();
                    c.audit_result(again);
                    if !again {
                        c.put(key, b"0");
                    }
                    return again;
                }
                // A pack it was found in is gone (or it was found not whole under audit).
                None => c.superseded(key),
            }
        }
        let found = held.whole(repo, tree, indexed.map(|(_, ix)| ix));
        if let (Some(mask), Some((c, ix, key))) = (found, kept)
            && mask & LIVE == 0
        {
            let mut payload = vec![b'1'];
            for pair in (0..63).filter(|b| mask & (1 << b) != 0).filter_map(|b| ix.pairs().get(b)) {
                payload.extend_from_slice(pair.0.as_bytes());
                payload.extend_from_slice(pair.1.as_bytes());
            }
            c.put(&key, &payload);
        }
        found.is_some()
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

impl Held {
    /// [`Memo::whole`] with an explicit stack (a hostile history can nest trees as deep as
    /// git allows) of trees still being read, each with its subtrees not yet answered and the
    /// packs found so far. `None`: not whole.
    fn whole(&mut self, repo: &Repo, root: ObjectId, indexes: Option<&PackIndexes>) -> Option<u64> {
        if let Some(known) = self.trees.get(&root) {
            return *known;
        }
        let mut stack: Vec<(ObjectId, Vec<ObjectId>, u64)> = Vec::new();
        let mut next = Some(root);
        loop {
            if let Some(id) = next.take() {
                // Deeper than git reads is not whole (remembered so for this run, whichever
                // path reached the tree: it costs a recomputation, never a wrong answer).
                let opened = if stack.len() > crate::git::MAX_TREE_DEPTH { None } else { self.open(repo, id, indexes) };
                let Some((subtrees, mask)) = opened else {
                    // Every tree on the stack holds this one: none of them is whole.
                    self.trees.insert(id, None);
                    for (t, _, _) in stack {
                        self.trees.insert(t, None);
                    }
                    return None;
                };
                stack.push((id, subtrees, mask));
            }
            let (_, subtrees, _) = stack.last_mut()?;
            match subtrees.pop() {
                None => {
                    let (id, _, mask) = stack.pop()?;
                    self.trees.insert(id, Some(mask));
                    match stack.last_mut() {
                        Some(parent) => parent.2 |= mask,
                        None => return Some(mask),
                    }
                }
                Some(sub) => match self.trees.get(&sub) {
                    Some(Some(m)) => {
                        let m = *m;
                        if let Some(top) = stack.last_mut() {
                            top.2 |= m;
                        }
                    }
                    Some(None) => {
                        for (t, _, _) in stack {
                            self.trees.insert(t, None);
                        }
                        return None;
                    }
                    None => next = Some(sub),
                },
            }
        }
    }

    /// Reads one tree: its subtrees not yet known, and the packs it and its blobs were found
    /// in; `None` when it is unreadable or it, or a blob in it, is not held.
    fn open(&mut self, repo: &Repo, tree: ObjectId, indexes: Option<&PackIndexes>) -> Option<(Vec<ObjectId>, u64)> {
        let locate = |id: ObjectId| -> Option<u64> {
            match indexes.and_then(|ix| ix.locate(id)) {
                Some(at) if at < 63 => Some(1 << at),
                _ => repo.has(id).then_some(LIVE),
            }
        };
        let mut mask = locate(tree)?;
        let (mut subtrees, mut missing) = (Vec::new(), false);
        let (blobs, known) = (&mut self.blobs, &self.trees);
        let read = repo.tree_ids_into(tree, &mut self.buf, |kind, id| match kind {
            EntryKind::Tree => match known.get(&id) {
                Some(Some(m)) => mask |= m,
                Some(None) => missing = true,
                None => subtrees.push(id),
            },
            EntryKind::Submodule => {}
            _ if missing => {}
            _ => match blobs.get(&id) {
                Some(m) => mask |= m,
                None => match locate(id) {
                    Some(m) => {
                        blobs.insert(id, m);
                        mask |= m;
                    }
                    None => missing = true,
                },
            },
        });
        (read.is_ok() && !missing).then_some((subtrees, mask))
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
            Outcome::CantTell => crate::crossaudit::invariants::i7::binding::cant_tell_is_permanent(&r.code),
            _ => true,
        })
}

/// Whether `data` reads as a stored entry (the fuzz target's entry point).
#[cfg(feature = "fuzzing")]
pub(crate) fn read_payload(data: &[u8]) -> bool {
    serde_json::from_slice::<Stored>(data).is_ok()
}

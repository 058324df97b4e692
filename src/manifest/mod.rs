//! Manifest re-derivation: the SHA-256 of every tracked regular file under some scope at a
//! commit, read from git objects (never a working tree).
//!
//! Hashing goes through a [`BlobHashes`] cache keyed by blob id: a blob shared by many
//! commits, receipts or cycles is inflated and hashed once per run, and the distinct blobs
//! are hashed in parallel, each worker with its own repository handle. Entries that are not
//! regular files (symlinks, submodules) and paths that are not UTF-8 are reported as such,
//! never silently hashed or dropped.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use gix::bstr::{BString, ByteSlice};
use rayon::prelude::*;
use sha2::Digest as _;

use crate::git::{self, EntryKind, ObjectId, Repo, Scope, SharedRepo};
use crate::progress::{Ctx, Interrupted};

mod seal;
pub use seal::{sealed, verified_packs};

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// SHA-256 of `bytes`.
    #[must_use]
    pub fn of(bytes: &[u8]) -> Self {
        Digest(sha2::Sha256::digest(bytes).into())
    }

    /// Lowercase hex.
    #[must_use]
    pub fn hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Whether `s` is exactly this digest in lowercase hex: the same answer as
    /// `Digest::from_hex(s) == Some(*self)` with no uppercase digit in `s`, without decoding
    /// (ten million manifest entries per bench ledger are compared this way).
    #[must_use]
    pub fn is_lower_hex(&self, s: &str) -> bool {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let s = s.as_bytes();
        s.len() == 64
            && self
                .0
                .iter()
                .zip(s.chunks_exact(2))
                .all(|(b, pair)| pair[0] == DIGITS[usize::from(b >> 4)] && pair[1] == DIGITS[usize::from(b & 0x0f)])
    }

    /// Parses 64 lowercase or uppercase hex digits.
    #[must_use]
    pub fn from_hex(s: &str) -> Option<Self> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).ok().map(|()| Digest(out))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.hex())
    }
}

/// Failure to derive a manifest at all (as opposed to one unreadable blob, which is an entry).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Commit or trees could not be read.
    #[error(transparent)]
    Git(#[from] git::Error),
    /// The caller interrupted the run.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// Counters of a [`BlobHashes`] cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HashStats {
    /// Distinct blobs inflated and hashed.
    pub blobs_hashed: u64,
    /// Bytes hashed.
    pub bytes_hashed: u64,
    /// Lookups answered from the cache.
    pub cache_hits: u64,
    /// Of `blobs_hashed`, those whose digest came from the persistent cache (counted in
    /// `blobs_hashed` and `bytes_hashed` all the same, so a report does not depend on the cache).
    pub from_persistent: u64,
    /// The bytes of those blobs (counted in `bytes_hashed` all the same).
    pub bytes_from_persistent: u64,
}

/// SHA-256 of blobs by id, computed at most once per run: in bulk ([`BlobHashes::hash_all`])
/// or on demand from many threads at once ([`BlobHashes::get_or_hash`]), where the first
/// thread to ask hashes a blob and the others wait for its answer.
pub struct BlobHashes {
    /// Sharded by the first byte of the id: workers that look up different blobs rarely wait
    /// for one another (ledgers look up tens of millions of manifest entries).
    shards: Vec<Mutex<IdMap<Slot>>>,
    hashed: AtomicU64,
    bytes: AtomicU64,
    /// Per shard, each on its own cache line: two workers counting hits in one shared counter
    /// ten million times spent more on the contended line than on the lookups.
    hits: Vec<PaddedCounter>,
    persistent: Option<Arc<crate::cache::Cache>>,
    from_persistent: AtomicU64,
    bytes_from_persistent: AtomicU64,
    ahead: Option<Ahead>,
    /// Tells this table's [`Recent`] from another's.
    serial: u64,
}

/// The digests one thread was given by one [`BlobHashes`] for its last list of ids
/// ([`BlobHashes::known_many_after`]). Consecutive receipts of a ledger bind the same blobs at
/// the same manifest positions but for the files that changed: those are answered by comparing
/// ids in order instead of ten thousand lookups in a table of megabytes, each a cache miss.
#[derive(Default)]
pub(crate) struct Recent {
    table: u64,
    ids: Vec<Option<ObjectId>>,
    digests: Vec<Option<Digest>>,
}

impl Recent {
    /// Remembers `digests`, which must be what `table` gave for `ids` (from
    /// [`BlobHashes::known_many_after`] or [`BlobHashes::get_or_hash`]; `None` for an id not
    /// asked or whose blob could not be read): they are taken as the table's answers later.
    pub(crate) fn remember(&mut self, table: &BlobHashes, ids: Vec<Option<ObjectId>>, digests: Vec<Option<Digest>>) {
        *self = Recent { table: table.serial, ids, digests };
    }
}

/// Blobs hashed before they are asked for ([`BlobHashes::with_hash_ahead`]).
struct Ahead {
    /// Read from the repository of the first blob hashed ahead, once `after` blobs, and a
    /// 64th of the objects its packs hold, were read afresh: reading every pack entry's header
    /// then costs less than those reads did, and a run that hashes a few blobs (a cycle
    /// appended to a cached ledger, a small ledger over a large repository) does not pay it.
    families: OnceLock<git::DeltaFamilies>,
    after: u64,
    packed: OnceLock<u64>,
    fresh: AtomicU64,
    /// Digest and size of each blob hashed ahead and not asked for yet.
    stash: Mutex<IdMap<(Digest, u64)>>,
    /// Bytes of the blobs asked for and read (or taken from the stash), and of the blobs in the
    /// stash: hashing ahead stops while the second would exceed the first.
    asked: AtomicU64,
    stashed: AtomicU64,
}

impl Default for BlobHashes {
    fn default() -> Self {
        BlobHashes {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            hashed: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            hits: (0..SHARDS).map(|_| PaddedCounter::default()).collect(),
            persistent: None,
            from_persistent: AtomicU64::new(0),
            bytes_from_persistent: AtomicU64::new(0),
            ahead: None,
            serial: {
                static TABLES: AtomicU64 = AtomicU64::new(1);
                TABLES.fetch_add(1, Ordering::Relaxed)
            },
        }
    }
}

/// The persistent cache's key of a blob's digest: the kind, then the raw object id.
fn persistent_key(id: ObjectId) -> Vec<u8> {
    [b"blob-sha256/".as_slice(), id.as_bytes()].concat()
}

/// Digest then size (little-endian): the payload stored per blob.
fn persistent_payload(d: Digest, n: u64) -> Vec<u8> {
    [d.0.as_slice(), &n.to_le_bytes()].concat()
}

fn parse_persistent(p: &[u8]) -> Option<(Digest, u64)> {
    let d: [u8; 32] = p.get(..32)?.try_into().ok()?;
    let n: [u8; 8] = p.get(32..)?.try_into().ok()?;
    Some((Digest(d), u64::from_le_bytes(n)))
}

const SHARDS: usize = 64;

/// Blobs a run reads afresh before it starts hashing ahead ([`BlobHashes::with_hash_ahead`]).
const AHEAD_AFTER: u64 = 1024;

/// The shard of `id`, by its first byte (ids are uniformly distributed already).
fn shard_index(id: ObjectId) -> usize {
    usize::from(id.as_bytes()[0]) % SHARDS
}

/// Object ids are uniformly distributed already: gix's table hashes them by their first bytes
/// instead of SipHash over all twenty (ten million lookups per ledger).
type IdMap<V> = gix::hashtable::HashMap<ObjectId, V>;

#[derive(Default)]
#[repr(align(64))]
struct PaddedCounter(AtomicU64);

/// A blob's digest and size, or why it could not be read.
type Cell = Arc<OnceLock<Result<(Digest, u64), String>>>;

/// A blob's place in the table.
#[derive(Clone)]
enum Slot {
    /// Hashed, and held in the table itself: a lookup reads it without following a pointer to
    /// a cell (ten million lookups per ledger, most of their time waiting on memory).
    Known(Digest),
    /// Being hashed, or found unreadable.
    Pending(Cell),
}

impl Slot {
    fn value(&self) -> Option<Result<Digest, String>> {
        match self {
            Slot::Known(d) => Some(Ok(*d)),
            Slot::Pending(c) => c.get().cloned().map(|r| r.map(|(d, _)| d)),
        }
    }
}

impl BlobHashes {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        BlobHashes::default()
    }

    /// An empty cache backed by `persistent`: a blob's digest is taken from it when an
    /// authenticated entry exists (recomputed and compared under `--cache-audit`), and every
    /// digest computed is handed to it for writing.
    #[must_use]
    pub fn with_persistent(persistent: Arc<crate::cache::Cache>) -> Self {
        BlobHashes { persistent: Some(persistent), ..BlobHashes::default() }
    }

    /// This cache, hashing ahead along the repository's delta families ([`git::DeltaFamilies`]):
    /// after reading a blob asked for, it also
    /// hashes the blobs stored as deltas of it (and theirs), while the delta cache still holds
    /// their base, and keeps their digests until asked. A ledger asks for each version of a
    /// file at a different receipt, long after the version it is a delta of left the delta
    /// cache; without this, every version replays its chain from the full base.
    ///
    /// Counters and the persistent cache see a blob when it is asked for, as without this, so
    /// reports do not change. What is hashed ahead and never asked is wasted: its bytes never
    /// exceed those of the blobs asked for.
    #[must_use]
    pub fn with_hash_ahead(self) -> Self {
        self.with_hash_ahead_after(AHEAD_AFTER)
    }

    /// [`BlobHashes::with_hash_ahead`], starting after `after` blobs read afresh.
    #[must_use]
    pub(crate) fn with_hash_ahead_after(mut self, after: u64) -> Self {
        self.ahead = Some(Ahead {
            after,
            packed: OnceLock::new(),
            families: OnceLock::new(),
            fresh: AtomicU64::new(0),
            stash: Mutex::default(),
            asked: AtomicU64::new(0),
            stashed: AtomicU64::new(0),
        });
        self
    }

    fn hit(&self, id: ObjectId) {
        self.hits[shard_index(id)].0.fetch_add(1, Ordering::Relaxed);
    }

    fn shard(&self, id: ObjectId) -> std::sync::MutexGuard<'_, IdMap<Slot>> {
        self.lock(shard_index(id))
    }

    /// The digest when known, else the cell in which it is (being) computed.
    fn lock(&self, shard: usize) -> std::sync::MutexGuard<'_, IdMap<Slot>> {
        self.shards[shard].lock().expect("hash cache lock is never poisoned: nothing panics while holding it")
    }

    fn cell(&self, id: ObjectId) -> Result<Digest, Cell> {
        match self.shard(id).entry(id).or_insert_with(|| Slot::Pending(Cell::default())) {
            Slot::Known(d) => Ok(*d),
            Slot::Pending(c) => Err(c.clone()),
        }
    }

    fn record(&self, n: u64) {
        self.hashed.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(n, Ordering::Relaxed);
    }

    /// Hashes every blob in `ids` that is not cached yet, in parallel. Unreadable blobs are
    /// remembered with their reason; only an interrupt aborts.
    ///
    /// # Errors
    /// [`Interrupted`] when the caller asked to stop.
    pub fn hash_all(
        &self,
        repo: &SharedRepo,
        ids: impl IntoIterator<Item = ObjectId>,
        ctx: Ctx<'_>,
    ) -> Result<(), Interrupted> {
        let todo: Vec<ObjectId> = {
            let mut seen = std::collections::HashSet::new();
            ids.into_iter()
                .filter(|id| self.shard(*id).get(id).is_none_or(|s| s.value().is_none()) && seen.insert(*id))
                .collect()
        };
        // Blobs are read in the order given (tree order for a manifest), which follows the
        // order git writes packs in; sorting by id would scatter the reads over the pack.
        if todo.is_empty() {
            return Ok(());
        }
        ctx.progress.start("hashing blobs", todo.len() as u64);
        todo.par_iter()
            .map_init(
                || (repo.local(), Vec::new()),
                |(r, buf), id| {
                    if ctx.check().is_err() {
                        return None;
                    }
                    // An unreadable blob is remembered in its cell; the manifest reports it.
                    let _ = self.hash_into_cell(r, *id, buf, ctx);
                    ctx.progress.advance(1);
                    Some(())
                },
            )
            .collect::<Option<Vec<()>>>()
            .ok_or(Interrupted)?;
        ctx.progress.finish();
        Ok(())
    }

    fn hash_into_cell(&self, repo: &Repo, id: ObjectId, buf: &mut Vec<u8>, ctx: Ctx<'_>) -> Result<Digest, String> {
        let cell = match self.cell(id) {
            Ok(d) => return Ok(d),
            Err(cell) => cell,
        };
        let mut read = false;
        let (d, n) = cell.get_or_init(|| self.compute(repo, id, buf, ctx, &mut read)).clone()?;
        // Later lookups read the digest in place. Threads already holding the cell still read
        // the same value from it.
        self.shard(id).insert(id, Slot::Known(d));
        // After the cell is set: a thread waiting for this digest does not wait for the family.
        if read && let Some(a) = &self.ahead {
            self.hash_ahead(a, repo, id, n, buf, ctx);
        }
        Ok(d)
    }

    /// The digest and size of `id`; `read` tells whether it was read from the repository.
    fn compute(
        &self,
        repo: &Repo,
        id: ObjectId,
        buf: &mut Vec<u8>,
        ctx: Ctx<'_>,
        read: &mut bool,
    ) -> Result<(Digest, u64), String> {
        // A damaged storage neither reads nor writes the cache: a digest read from it now could
        // be of bytes the id does not name, and one stored earlier stood for the undamaged bytes.
        let persistent = self.persistent.as_deref().filter(|c| sealed(c, repo));
        let key = persistent.map(|_| persistent_key(id));
        let payload = persistent.zip(key.as_ref()).and_then(|(c, k)| c.get(k));
        let cached = payload.as_deref().and_then(parse_persistent);
        if let (Some(c), Some(k), Some(_), None) = (persistent, &key, &payload, cached) {
            c.unusable(k);
        }
        // A cached digest stands for bytes the repository must still hold: a blob missing from
        // it is reported missing, as without the cache.
        if let (Some(c), Some((d, n))) = (persistent, cached)
            && !c.is_auditing()
        {
            if repo.has(id) {
                self.record(n);
                self.from_persistent.fetch_add(1, Ordering::Relaxed);
                self.bytes_from_persistent.fetch_add(n, Ordering::Relaxed);
                return Ok((d, n));
            }
            // Found but not used: counted a miss, as the figures line would otherwise claim
            // hits for blobs reported missing.
            if let Some(k) = &key {
                c.superseded(k);
            }
        }
        let (d, n) = match self.take_ahead(id) {
            Some(found) => found,
            None => {
                let data = repo.blob_into(id, buf).map_err(|e| e.to_string())?;
                *read = true;
                (Digest::of(data), data.len() as u64)
            }
        };
        ctx.progress.bytes(n);
        self.record(n);
        // Only digests are kept: an unreadable blob may be readable next time (a fetch, a repack).
        if let (Some(c), Some(k)) = (persistent, key) {
            match cached {
                Some(was) if was == (d, n) => c.audit_result(true),
                Some(_) => {
                    c.audit_result(false);
                    c.put(&k, &persistent_payload(d, n));
                }
                None => c.put(&k, &persistent_payload(d, n)),
            }
        }
        Ok((d, n))
    }

    /// How many blobs, of how many bytes, wait in the stash ([`BlobHashes::with_hash_ahead`]).
    #[cfg(test)]
    fn stashed(&self) -> (usize, u64) {
        self.ahead.as_ref().map_or((0, 0), |a| {
            (a.stash.lock().expect("stash lock is never poisoned").len(), a.stashed.load(Ordering::Relaxed))
        })
    }

    /// The digest of `id` if it was hashed ahead, taken out of the stash.
    fn take_ahead(&self, id: ObjectId) -> Option<(Digest, u64)> {
        let a = self.ahead.as_ref()?;
        let found = a.stash.lock().expect("stash lock is never poisoned").remove(&id)?;
        a.stashed.fetch_sub(found.1, Ordering::Relaxed);
        a.asked.fetch_add(found.1, Ordering::Relaxed);
        Some(found)
    }

    /// Once enough blobs were read afresh ([`Ahead::families`]), hashes the delta family below
    /// `id` (`size` bytes, just read, so in the delta cache) depth first, each blob right after the
    /// one it is a delta of, into the stash. Skipped: blobs asked for or
    /// stashed already, blobs the persistent cache holds, blobs that cannot be read (they are
    /// read again, and the error reported, when asked), and blobs that would take the stash
    /// past the bytes asked for (with the blobs below them).
    fn hash_ahead(&self, a: &Ahead, repo: &Repo, id: ObjectId, size: u64, buf: &mut Vec<u8>, ctx: Ctx<'_>) {
        a.asked.fetch_add(size, Ordering::Relaxed);
        let reads = a.fresh.fetch_add(1, Ordering::Relaxed) + 1;
        if reads < a.after || reads < *a.packed.get_or_init(|| repo.packed_objects()) / 64 {
            return;
        }
        let persistent = self.persistent.as_deref().filter(|c| sealed(c, repo));
        let families = a.families.get_or_init(|| repo.delta_families());
        let mut todo: Vec<ObjectId> = families.children(&id).iter().rev().copied().collect();
        let mut seen = std::collections::HashSet::new();
        while let Some(c) = todo.pop() {
            if ctx.check().is_err() {
                return;
            }
            if !seen.insert(c)
                || self.shard(c).contains_key(&c)
                || a.stash.lock().expect("stash lock is never poisoned").contains_key(&c)
                || persistent.is_some_and(|p| p.holds(&persistent_key(c)))
            {
                continue;
            }
            // Its bytes are reserved before it is read: neither a large blob nor two threads
            // at once take the stash past the bytes asked for.
            let Ok(size) = repo.blob_size(c) else { continue };
            if a.stashed.fetch_add(size, Ordering::Relaxed) + size > a.asked.load(Ordering::Relaxed) {
                a.stashed.fetch_sub(size, Ordering::Relaxed);
                continue;
            }
            match repo.blob_into(c, buf) {
                Ok(data) if data.len() as u64 == size => {
                    let hashed = Digest::of(data);
                    a.stash.lock().expect("stash lock is never poisoned").insert(c, (hashed, size));
                    todo.extend(families.children(&c).iter().rev().copied());
                }
                _ => {
                    a.stashed.fetch_sub(size, Ordering::Relaxed);
                }
            }
        }
    }

    /// The digest of `id`, hashing it with `repo` unless some thread already did (or is doing
    /// so: then this one waits for that answer). `buf` is reused between calls.
    ///
    /// # Errors
    /// Why the blob could not be read.
    pub fn get_or_hash(&self, repo: &Repo, id: ObjectId, buf: &mut Vec<u8>) -> Result<Digest, String> {
        // The common case (a ledger looks up each blob once per receipt binding it): the digest
        // is known, read under the shard's lock without taking a handle on its cell.
        if let Some(Slot::Known(d)) = self.shard(id).get(&id) {
            self.hit(id);
            return Ok(*d);
        }
        let cell = match self.cell(id) {
            Ok(d) => {
                self.hit(id);
                return Ok(d);
            }
            Err(cell) => cell,
        };
        if let Some(v) = cell.get() {
            self.hit(id);
            return v.clone().map(|(d, _)| d);
        }
        self.hash_into_cell(repo, id, buf, Ctx::silent())
    }

    /// The digests already known of `ids` (in their order; `None` for a blob not hashed yet,
    /// unreadable, or not asked for). Each shard is locked once for all of its ids: a lock
    /// per id is a fence per id, which kept a receipt's ten thousand lookups from overlapping
    /// their cache misses (the table is megabytes, the ids random), and the lookups were a
    /// tenth of a cold ledger run.
    #[must_use]
    pub fn known_many(&self, ids: &[Option<ObjectId>]) -> Vec<Option<Digest>> {
        // Positions grouped by shard: a counting sort, linear in the ids.
        let mut start = [0usize; SHARDS + 1];
        for id in ids.iter().flatten() {
            start[shard_index(*id) + 1] += 1;
        }
        for s in 0..SHARDS {
            start[s + 1] += start[s];
        }
        let mut fill = start;
        let mut order = vec![0u32; start[SHARDS]];
        for (i, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                let s = shard_index(*id);
                order[fill[s]] = u32::try_from(i).expect("a manifest holds fewer than 2^32 entries");
                fill[s] += 1;
            }
        }
        let mut out = vec![None; ids.len()];
        for s in 0..SHARDS {
            let positions = &order[start[s]..start[s + 1]];
            if positions.is_empty() {
                continue;
            }
            let map = self.lock(s);
            let mut found = 0;
            for &i in positions {
                let i = i as usize;
                if let Some(Slot::Known(d)) = ids[i].and_then(|id| map.get(&id)) {
                    out[i] = Some(*d);
                    found += 1;
                }
            }
            drop(map);
            self.hits[s].0.fetch_add(found, Ordering::Relaxed);
        }
        out
    }

    /// [`BlobHashes::known_many`], answering first the ids that sit at the same position in
    /// `recent` (this table's answer to this thread's previous list): a digest this table gave
    /// is known in it for good, so the answers, and the lookups counted, are the same.
    #[must_use]
    pub(crate) fn known_many_after(&self, ids: &[Option<ObjectId>], recent: &Recent) -> Vec<Option<Digest>> {
        if recent.table != self.serial {
            return self.known_many(ids);
        }
        let mut answered = vec![None; ids.len()];
        let mut ask = ids.to_vec();
        let mut same = 0;
        for (i, id) in ids.iter().enumerate() {
            if let (Some(id), Some(Some(was)), Some(Some(d))) = (id, recent.ids.get(i), recent.digests.get(i))
                && id == was
            {
                answered[i] = Some(*d);
                ask[i] = None;
                same += 1;
            }
        }
        self.hits[0].0.fetch_add(same, Ordering::Relaxed);
        for (a, found) in answered.iter_mut().zip(self.known_many(&ask)) {
            if a.is_none() {
                *a = found;
            }
        }
        answered
    }

    /// The digest of a blob hashed earlier, or why it could not be read. `None` when the blob
    /// was never hashed.
    #[must_use]
    pub fn get(&self, id: ObjectId) -> Option<Result<Digest, String>> {
        let hit = self.shard(id).get(&id).and_then(Slot::value);
        if hit.is_some() {
            self.hit(id);
        }
        hit
    }

    /// Counters so far.
    #[must_use]
    pub fn stats(&self) -> HashStats {
        HashStats {
            blobs_hashed: self.hashed.load(Ordering::Relaxed),
            bytes_hashed: self.bytes.load(Ordering::Relaxed),
            cache_hits: self.hits.iter().map(|h| h.0.load(Ordering::Relaxed)).sum(),
            from_persistent: self.from_persistent.load(Ordering::Relaxed),
            bytes_from_persistent: self.bytes_from_persistent.load(Ordering::Relaxed),
        }
    }
}

/// What a manifest entry records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// SHA-256 of a regular file's blob.
    Digest(Digest),
    /// A symbolic link: not hashed.
    Symlink,
    /// A submodule (gitlink): nothing to hash here.
    Submodule,
    /// A regular file whose path is not UTF-8: cannot be a JSON manifest key.
    NonUtf8Path,
    /// The blob could not be read.
    Unreadable(String),
}

impl Value {
    /// The JSON value: the hex digest, or a marker string.
    #[must_use]
    pub fn marker(&self) -> String {
        match self {
            Value::Digest(d) => d.hex(),
            Value::Symlink => "symlink".to_owned(),
            Value::Submodule => "submodule".to_owned(),
            Value::NonUtf8Path => "non-utf8-path".to_owned(),
            Value::Unreadable(_) => "unreadable".to_owned(),
        }
    }
}

/// One manifest entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Raw path bytes.
    pub path: BString,
    /// The path as shown in reports (C-quoted when not UTF-8).
    pub display: String,
    /// Tree entry kind.
    pub kind: EntryKind,
    /// Object id of the entry.
    pub id: ObjectId,
    /// Recorded value.
    pub value: Value,
}

/// A derived manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The commit it was derived from.
    pub commit: ObjectId,
    /// That commit's tree.
    pub tree: ObjectId,
    /// The scope used.
    pub scope: Scope,
    /// Entries sorted by raw path bytes.
    pub entries: Vec<Entry>,
}

impl Manifest {
    /// `path → digest or marker`, in path order, for JSON output.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Map<String, serde_json::Value> {
        self.entries.iter().map(|e| (e.display.clone(), serde_json::Value::String(e.value.marker()))).collect()
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is in scope.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Lists the entries in scope at `commit` without hashing.
///
/// # Errors
/// Missing or corrupt commit/trees.
pub fn list(repo: &Repo, commit: ObjectId, scope: &Scope) -> Result<(ObjectId, Vec<git::TreeEntry>), git::Error> {
    let tree = repo.commit(commit)?.tree;
    Ok((tree, repo.walk(tree, scope)?))
}

/// Derives the manifest of `commit` under `scope`, hashing through `hashes`.
///
/// # Errors
/// Missing or corrupt commit/trees, or an interrupt. Unreadable blobs become
/// [`Value::Unreadable`] entries instead.
pub fn derive(
    repo: &Repo,
    commit: ObjectId,
    scope: &Scope,
    hashes: &BlobHashes,
    ctx: Ctx<'_>,
) -> Result<Manifest, Error> {
    let (tree, listed) = list(repo, commit, scope)?;
    hashes.hash_all(&repo.shared(), listed.iter().filter(|e| e.kind.is_file()).map(|e| e.id), ctx)?;
    Ok(assemble(commit, tree, scope, listed, hashes))
}

/// Builds a manifest from listed entries whose blobs are already in `hashes`.
#[must_use]
pub fn assemble(
    commit: ObjectId,
    tree: ObjectId,
    scope: &Scope,
    listed: Vec<git::TreeEntry>,
    hashes: &BlobHashes,
) -> Manifest {
    let entries = listed
        .into_iter()
        .map(|e| {
            let value = match e.kind {
                EntryKind::Symlink => Value::Symlink,
                EntryKind::Submodule => Value::Submodule,
                _ if e.path.to_str().is_err() => Value::NonUtf8Path,
                _ => match hashes.get(e.id) {
                    Some(Ok(d)) => Value::Digest(d),
                    Some(Err(reason)) => Value::Unreadable(reason),
                    None => Value::Unreadable("blob was not hashed".to_owned()),
                },
            };
            Entry { display: git::display_path(e.path.as_bstr()), path: e.path, kind: e.kind, id: e.id, value }
        })
        .collect();
    Manifest { commit, tree, scope: scope.clone(), entries }
}

#[cfg(test)]
mod tests;

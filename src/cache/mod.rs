//! The persistent cache: what is a pure function of immutable inputs (the SHA-256 of a blob,
//! keyed by its git object id), kept between runs in an embedded database, authenticated
//! entry by entry.
//!
//! The directory is untrusted: CI restores it from caches that pull requests can write. No
//! link planted in it is followed, and a directory or file others may write is not used
//! (`place.rs`). Every entry carries an HMAC-SHA-256 under a key kept outside the directory
//! ([`key`]); an entry that fails it, was written by another version, or does not parse is
//! dropped and counted, and the computation runs as if the cache were empty. The database is redb (`docs/scale.md`
//! says why): copy-on-write B-trees with checksummed commits, so a killed run leaves the last
//! committed state, and one writer at a time, so two runs that finish together both land.
//!
//! A run loads the table once when it starts (on a thread of its own, which the first lookup
//! waits for) and writes what it computed in one transaction when it ends
//! ([`Cache::flush`]); the database is open only for those moments, so concurrent runs wait
//! for each other for milliseconds, not for a whole verification. The blob digests, nine in
//! ten of a ledger's entries, are loaded only when the run first asks for one (`DEFERRED`): a
//! re-verification whose receipts all hit never does.

pub mod entry;
pub mod key;
mod place;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redb::TableDefinition;

pub use entry::{Key, Reject};
pub use place::{Chosen, create_dir};

use place::{Access, Dir, Refusal};

/// The version written into (and required of) every entry: the crate version and the layout
/// of the payloads this version stores.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "/payloads-2");

/// The database file inside the cache directory.
pub const FILE: &str = "cache.redb";

const TABLE: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("entries");

/// The kind of entry (table key prefix) loaded on first use rather than when the cache opens:
/// on the 1,000-cycle bench ledger 59,950 of 66,019 entries, and half of a re-verification's
/// time in opening the cache.
const DEFERRED: &[u8] = b"blob-sha256/";

/// Which entries [`load`] reads.
#[derive(Clone, Copy)]
enum Part {
    /// Every entry but the [`DEFERRED`] kind.
    Eager,
    /// The [`DEFERRED`] kind only.
    Deferred,
}

/// How long a run waits for another run holding the database before going on without it.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// What a run opens the database for.
#[derive(Clone, Copy)]
enum Use {
    /// Reading every entry of a range once (`check`: after verifying every page's checksum).
    Read { check: bool },
    /// Writing one transaction.
    Write,
}

impl Use {
    /// redb's page cache. A read visits each page once, so a cache holds pages nobody asks for
    /// again: at 16 MB, re-verifying the 1,000-cycle bench ledger peaked 6 to 12 MB higher (20
    /// MB with a cycle appended). A write keeps 16 MB for the pages it rewrites.
    fn cache_size(self) -> usize {
        match self {
            Use::Read { .. } => 1 << 20,
            Use::Write => 16 << 20,
        }
    }
}

/// Whether `dir` (which exists) and the database in it may be used ([`Cache::open`] checks
/// again what it opens): for a caller that has more to do before opening the cache, such as
/// making a key, and would not do it for a cache it cannot use.
///
/// # Errors
/// Why not, in one sentence naming the directory or the file.
pub fn vet_dir(dir: &Path, chosen: Chosen) -> Result<(), String> {
    Dir::open(dir, chosen)?.vet(FILE)
}

/// The cache directory when none is given: `$XDG_CACHE_HOME/crossverify`, else
/// `$HOME/.cache/crossverify`.
#[must_use]
pub fn default_dir() -> Option<PathBuf> {
    xdg_dir("XDG_CACHE_HOME", ".cache")
}

/// `$VAR/crossverify` when `VAR` holds an absolute path (the XDG rule), else
/// `$HOME/<home_rel>/crossverify`.
fn xdg_dir(var: &str, home_rel: &str) -> Option<PathBuf> {
    let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty()).map(PathBuf::from);
    nonempty(var)
        .filter(|p| p.is_absolute())
        .or_else(|| nonempty("HOME").map(|h| h.join(home_rel)))
        .map(|d| d.join("crossverify"))
}

/// What the cache did in one run. Reported beside the report (stderr, `docs/scale.md`), never
/// in it: the report's bytes are the same with and without the cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Lookups answered by an authenticated entry.
    pub hits: u64,
    /// Lookups with no usable entry.
    pub misses: u64,
    /// Entries found but not used: written with another key (their MAC does not verify under
    /// this one: another machine's key, another secret, or an alteration) or malformed.
    pub dropped: u64,
    /// Entries found but written by another version.
    pub stale: u64,
    /// `--cache-audit`: entries whose recomputed value differed from the authenticated one.
    pub audit_mismatches: u64,
    /// Entries written at the end of the run.
    pub written: u64,
    /// Why the database was not used, or was started afresh.
    pub notes: Vec<String>,
    /// Hits and misses by kind of entry (the table key up to its first `/`: `blob-sha256`,
    /// `cycle`), since one receipt's hit stands for thousands of blob lookups not made.
    pub by_kind: std::collections::BTreeMap<String, KindStats>,
}

impl Stats {
    /// What the cache did, in one line for standard error: `cache: 3 hits, 1 misses, 0 written
    /// with another key (not used), 0 stale (another version), 1 written`. An entry whose MAC
    /// does not verify was written by whoever did not hold this key (another machine's key
    /// file, another `CROSSVERIFY_CACHE_KEY`, or an alteration): it is not used, and said so
    /// without calling every changed key an attack.
    #[must_use]
    pub fn line(&self) -> String {
        format!(
            "cache: {} hits, {} misses, {} unused (written with another key, or altered), {} stale (another version), {} written",
            self.hits, self.misses, self.dropped, self.stale, self.written
        )
    }
}

/// Lookups of one kind of entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindStats {
    /// Answered by an authenticated entry.
    pub hits: u64,
    /// No usable entry.
    pub misses: u64,
    /// Written at the end of the run.
    pub written: u64,
}

/// The kind of a table key: the bytes before its first `/`.
fn kind(table_key: &[u8]) -> String {
    let end = table_key.iter().position(|b| *b == b'/').unwrap_or(table_key.len());
    String::from_utf8_lossy(&table_key[..end]).into_owned()
}

/// An open cache for one run.
pub struct Cache {
    /// The database file, for what is said about it; it is opened through [`Cache::dir`] only.
    path: PathBuf,
    dir: Arc<Dir>,
    key: Key,
    version: String,
    audit: bool,
    /// The database opening on a thread of its own ([`Cache::open`]), until first waited for.
    opening: Mutex<Option<std::thread::JoinHandle<Opened>>>,
    opened: std::sync::OnceLock<Opened>,
    /// The [`DEFERRED`] entries, read on the first lookup of one.
    deferred: std::sync::OnceLock<HashMap<Vec<u8>, Vec<u8>>>,
    /// Said when the cache opened, before anything the database said.
    early_notes: Vec<String>,
    pending: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
    hits: AtomicU64,
    misses: AtomicU64,
    dropped: AtomicU64,
    stale: AtomicU64,
    mismatches: AtomicU64,
    notes: Mutex<Vec<String>>,
    written: AtomicU64,
    kinds: Mutex<std::collections::BTreeMap<String, KindStats>>,
    /// Facts about this run's inputs that decide whether entries may answer, asked once each
    /// ([`Cache::once_per_run`]).
    facts: Mutex<std::collections::BTreeMap<String, Option<Vec<u8>>>>,
}

/// What opening the database found.
struct Opened {
    loaded: HashMap<Vec<u8>, Vec<u8>>,
    /// Whether the database passed its integrity check: a database that was busy, or failed
    /// the check (and could not be moved aside), is not read later.
    checked: bool,
    /// The file was refused ([`place`]): not read, and not written at the end either.
    refused: bool,
    notes: Vec<String>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let entries = self.opened().loaded.len();
        f.debug_struct("Cache").field("path", &self.path).field("entries", &entries).finish_non_exhaustive()
    }
}

impl Drop for Cache {
    /// A cache dropped unused still finishes opening, so that the next one opened on the same
    /// directory finds the database as this one left it (a damaged file moved aside).
    fn drop(&mut self) {
        let opening = self.opening.get_mut().map_or(None, Option::take);
        if let Some(h) = opening {
            let _ = h.join();
        }
    }
}

impl Cache {
    /// Opens (or starts) the cache in `dir` with `key`. The database is checked and its entries
    /// read on a thread of its own, which the first lookup waits for. A database that cannot be
    /// read is moved aside to `cache.redb.damaged` and a new one started; the note says so.
    ///
    /// `dir` is one the user named ([`Chosen::ByUser`]): a link there is followed, none in it.
    ///
    /// # Errors
    /// When `dir` cannot be created, or it or the database is not this user's alone to write,
    /// or the database is a link (`src/cache/place.rs`); the caller runs without the cache.
    pub fn open(dir: &Path, key: Key) -> Result<Cache, String> {
        Cache::open_chosen(dir, key, Chosen::ByUser)
    }

    /// [`Cache::open`] for a directory chosen as `chosen` says.
    ///
    /// # Errors
    /// As [`Cache::open`].
    pub fn open_chosen(dir: &Path, key: Key, chosen: Chosen) -> Result<Cache, String> {
        Cache::open_in(dir, key, VERSION, chosen)
    }

    /// [`Cache::open`] as if this were tool version `version`: entries of any other version are
    /// not used. For tests of version changes.
    ///
    /// # Errors
    /// As [`Cache::open`].
    pub fn open_as(dir: &Path, key: Key, version: &str) -> Result<Cache, String> {
        Cache::open_in(dir, key, version, Chosen::ByUser)
    }

    fn open_in(dir_path: &Path, key: Key, version: &str, chosen: Chosen) -> Result<Cache, String> {
        create_dir(dir_path, chosen)?;
        let dir = Arc::new(Dir::open(dir_path, chosen)?);
        // Said before anything is opened; what the opening thread opens is checked again.
        dir.vet(FILE)?;
        let path = dir.shown(FILE);
        let mut notes = Vec::new();
        if !dir.holds(FILE) {
            // A cache appears in the user's home on a run that asked for nothing: where it is
            // and where its key is are said once, on the run that creates it.
            notes.push(format!(
                "keeping authenticated results between runs in {} (key: {}); --no-cache or CROSSVERIFY_NO_CACHE=1 runs without",
                path.display(),
                key::default_file()
                    .filter(|_| std::env::var_os(key::ENV).is_none())
                    .map_or_else(|| format!("from {}", key::ENV), |f| f.display().to_string())
            ));
        }
        // The integrity check reads the whole file on one core (18 ms of a 0.2 s re-verification
        // of the 1,000-cycle bench ledger); meanwhile the run opens its repositories and hashes
        // their packs for the seal, which it needs before its first lookup anyway.
        let opening = {
            let dir = dir.clone();
            std::thread::Builder::new().name("crossverify-cache-open".into()).spawn(move || open_db(&dir))
        };
        let (opening, opened) = match opening {
            Ok(h) => (Some(h), std::sync::OnceLock::new()),
            Err(_) => (None, std::sync::OnceLock::from(open_db(&dir))),
        };
        Ok(Cache {
            path,
            dir,
            key,
            version: version.to_owned(),
            audit: false,
            opening: Mutex::new(opening),
            opened,
            deferred: std::sync::OnceLock::new(),
            early_notes: notes,
            pending: Mutex::default(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            stale: AtomicU64::new(0),
            mismatches: AtomicU64::new(0),
            notes: Mutex::default(),
            written: AtomicU64::new(0),
            kinds: Mutex::default(),
            facts: Mutex::default(),
        })
    }

    /// `compute()` once per run (per opened cache) for `name`, remembered: a fact about the
    /// inputs that every entry's use depends on (a repository's storage being undamaged) is
    /// worth establishing once, not per entry. Threads asking before an answer is stored each
    /// compute one, and all get the first stored: a caller that must not compute twice asks
    /// once before it starts its threads.
    pub fn once_per_run(&self, name: &str, compute: impl FnOnce() -> bool) -> bool {
        self.once_per_run_value(name, || compute().then(Vec::new)).is_some()
    }

    /// [`Cache::once_per_run`] for a fact that carries a value (`None`: the fact does not hold).
    pub fn once_per_run_value(&self, name: &str, compute: impl FnOnce() -> Option<Vec<u8>>) -> Option<Vec<u8>> {
        // No lock is held while computing. The seal hashes on rayon's threads, and a thread
        // waiting for rayon runs other queued jobs: a verifier's next cycle asked for the same
        // fact under the lock this thread held, and the run hung (CI, `--threads 4`).
        let facts = || self.facts.lock().expect("never poisoned: nothing panics while holding it");
        if let Some(known) = facts().get(name) {
            return known.clone();
        }
        let answer = compute();
        facts().entry(name.to_owned()).or_insert(answer).clone()
    }

    /// `--cache-audit`: every lookup is recomputed by the caller and compared
    /// ([`Cache::audit_result`]).
    #[must_use]
    pub fn auditing(mut self) -> Self {
        self.audit = true;
        self
    }

    /// Whether the caller must recompute every value and report it with [`Cache::audit_result`].
    #[must_use]
    pub fn is_auditing(&self) -> bool {
        self.audit
    }

    /// The authenticated payload under `table_key`, or `None` (counted as a miss, and as
    /// dropped or stale when an entry was there but unusable).
    #[must_use]
    pub fn get(&self, table_key: &[u8]) -> Option<Vec<u8>> {
        let table = if table_key.starts_with(DEFERRED) { self.deferred() } else { &self.opened().loaded };
        let found = table.get(table_key).map(|bytes| entry::decode(&self.key, &self.version, table_key, bytes));
        let payload = match found {
            None => None,
            Some(Ok(p)) => Some(p.to_vec()),
            Some(Err(r)) => {
                let counter = if r == Reject::OtherVersion { &self.stale } else { &self.dropped };
                counter.fetch_add(1, Ordering::Relaxed);
                None
            }
        };
        let hit = payload.is_some();
        (if hit { &self.hits } else { &self.misses }).fetch_add(1, Ordering::Relaxed);
        let mut kinds = self.kinds.lock().expect("kind counters are never poisoned");
        let k = kinds.entry(kind(table_key)).or_default();
        if hit {
            k.hits += 1;
        } else {
            k.misses += 1;
        }
        payload
    }

    /// Whether an entry is stored under `table_key`, without reading it as a lookup (not
    /// counted, not authenticated): for deciding what is worth computing ahead of a lookup.
    #[must_use]
    pub fn holds(&self, table_key: &[u8]) -> bool {
        let table = if table_key.starts_with(DEFERRED) { self.deferred() } else { &self.opened().loaded };
        table.contains_key(table_key)
    }

    /// What opening the database found, waited for on first use.
    fn opened(&self) -> &Opened {
        self.opened.get_or_init(|| {
            let opening = self.opening.lock().expect("the opening lock is never poisoned").take();
            opening.and_then(|h| h.join().ok()).unwrap_or_else(|| Opened {
                loaded: HashMap::new(),
                checked: false,
                refused: false,
                notes: vec![format!("{}: the database reader stopped; reading nothing", self.path.display())],
            })
        })
    }

    /// The [`DEFERRED`] entries, read now if not yet. The database was checked whole when the
    /// cache opened; a file replaced since (another run's commit) is read as it is now, which
    /// is as good: every entry is authenticated on its own.
    fn deferred(&self) -> &HashMap<Vec<u8>, Vec<u8>> {
        self.deferred.get_or_init(|| {
            if !self.opened().checked || !self.dir.holds(FILE) {
                return HashMap::new();
            }
            read_unchecked(&self.dir, Part::Deferred).unwrap_or_else(|e| {
                let why = match e {
                    Open::Busy => format!("another run held the database for {}s", LOCK_WAIT.as_secs()),
                    Open::Damaged(why) | Open::Refused(why) => why,
                };
                self.notes
                    .lock()
                    .expect("notes lock is never poisoned")
                    .push(format!("{}: blob digests not read ({why}); computing them", self.path.display()));
                HashMap::new()
            })
        })
    }

    /// The payload [`Cache::get`] returned for `table_key` authenticated but does not read as
    /// what its kind stores: counted as dropped instead of a hit (and as a disagreement under
    /// `--cache-audit`), since only a holder of the key, or a bug, writes such an entry.
    pub fn unusable(&self, table_key: &[u8]) {
        self.hits.fetch_sub(1, Ordering::Relaxed);
        self.misses.fetch_add(1, Ordering::Relaxed);
        self.dropped.fetch_add(1, Ordering::Relaxed);
        if self.audit {
            self.mismatches.fetch_add(1, Ordering::Relaxed);
        }
        let mut kinds = self.kinds.lock().expect("kind counters are never poisoned");
        let k = kinds.entry(kind(table_key)).or_default();
        k.hits = k.hits.saturating_sub(1);
        k.misses += 1;
    }

    /// The payload [`Cache::get`] returned for `table_key` is authentic but no longer applies
    /// (what it depends on outside its key changed): counted as a miss, not a hit.
    pub fn superseded(&self, table_key: &[u8]) {
        self.hits.fetch_sub(1, Ordering::Relaxed);
        self.misses.fetch_add(1, Ordering::Relaxed);
        let mut kinds = self.kinds.lock().expect("kind counters are never poisoned");
        let k = kinds.entry(kind(table_key)).or_default();
        k.hits = k.hits.saturating_sub(1);
        k.misses += 1;
    }

    /// Records the value computed for `table_key`, to be written by [`Cache::flush`].
    pub fn put(&self, table_key: &[u8], payload: &[u8]) {
        let bytes = entry::encode(&self.key, &self.version, table_key, payload);
        self.lock_pending().push((table_key.to_vec(), bytes));
    }

    /// `--cache-audit`: the value recomputed for `table_key` agreed (or not) with the cache.
    pub fn audit_result(&self, agreed: bool) {
        if !agreed {
            self.mismatches.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, Vec<(Vec<u8>, Vec<u8>)>> {
        self.pending.lock().expect("the pending list is never poisoned: nothing panics while holding it")
    }

    /// Writes what this run computed, in one transaction: all of it lands or none.
    pub fn flush(&self) {
        // Not before the database has opened: it may yet be moved aside.
        let refused = self.opened().refused;
        let pending = std::mem::take(&mut *self.lock_pending());
        // A refused file was said so when the cache opened, once.
        if pending.is_empty() || refused {
            return;
        }
        let n = pending.len() as u64;
        let mut per_kind: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
        for (k, _) in &pending {
            *per_kind.entry(kind(k)).or_default() += 1;
        }
        // Checked when the run started; a second full check before writing would cost as much
        // again for nothing read (what is written is this run's own).
        let result = with_db(&self.dir, Use::Write, |db| {
            let tx = db.begin_write().map_err(|e| e.to_string())?;
            {
                let mut t = tx.open_table(TABLE).map_err(|e| e.to_string())?;
                for (k, v) in &pending {
                    t.insert(k.as_slice(), v.as_slice()).map_err(|e| e.to_string())?;
                }
            }
            tx.commit().map_err(|e| e.to_string())
        });
        let note = match result {
            Ok(()) => {
                self.written.fetch_add(n, Ordering::Relaxed);
                let mut kinds = self.kinds.lock().expect("kind counters are never poisoned");
                for (k, w) in per_kind {
                    kinds.entry(k).or_default().written += w;
                }
                return;
            }
            Err(Open::Busy) => {
                format!("{}: another run held the database; {n} entries not written", self.path.display())
            }
            Err(Open::Damaged(why)) => format!("{}: {n} entries not written ({why})", self.path.display()),
            Err(Open::Refused(why)) => format!("{n} entries not written: {why}"),
        };
        self.notes.lock().expect("notes lock is never poisoned").push(note);
    }

    /// What the cache did so far.
    #[must_use]
    pub fn stats(&self) -> Stats {
        Stats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            stale: self.stale.load(Ordering::Relaxed),
            audit_mismatches: self.mismatches.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            notes: [
                &self.early_notes,
                &self.opened().notes,
                &*self.notes.lock().expect("notes lock is never poisoned"),
            ]
            .into_iter()
            .flatten()
            .cloned()
            .collect(),
            by_kind: self.kinds.lock().expect("kind counters are never poisoned").clone(),
        }
    }
}

/// A pure function's value through `cache`: the authenticated entry under `key` when it
/// decodes and `held` says every object it was computed from is still readable, else
/// `compute()`, written back. One policy for every kind of entry: an entry that
/// authenticates but does not decode is [`Cache::unusable`]; one whose objects are gone (a
/// partial clone, a pruned repository) is [`Cache::superseded`], since `compute` would not
/// have read them either; under `--cache-audit` the value is always computed, compared and,
/// when it differs, written back. An `Err` from `compute` (a blob not readable today) is
/// returned and nothing is stored.
///
/// # Errors
/// What `compute` returns.
pub fn through<T: PartialEq, E>(
    cache: Option<&Cache>,
    key: &[u8],
    decode: impl Fn(&[u8]) -> Option<T>,
    encode: impl Fn(&T) -> Vec<u8>,
    held: impl Fn(&T) -> bool,
    compute: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let Some(c) = cache else { return compute() };
    let payload = c.get(key);
    let mut cached = payload.as_deref().and_then(&decode);
    if payload.is_some() && cached.is_none() {
        c.unusable(key);
    }
    if cached.as_ref().is_some_and(|v| !held(v)) {
        c.superseded(key);
        cached = None;
    }
    if let Some(found) = cached {
        if !c.is_auditing() {
            return Ok(found);
        }
        let fresh = compute()?;
        let agreed = fresh == found;
        c.audit_result(agreed);
        if !agreed {
            c.put(key, &encode(&fresh));
        }
        return Ok(fresh);
    }
    let fresh = compute()?;
    c.put(key, &encode(&fresh));
    Ok(fresh)
}

enum Open {
    Busy,
    Damaged(String),
    /// Not a file the cache may use ([`place`]): said, and left as it is.
    Refused(String),
}

/// Opens the database in `dir`, checking it whole, and reads its eager entries; a database
/// that cannot be read is moved aside and started afresh.
fn open_db(dir: &Dir) -> Opened {
    let path = dir.shown(FILE);
    let mut notes = Vec::new();
    let (mut checked, mut refused) = (false, false);
    let loaded = match with_db(dir, Use::Read { check: true }, |db| load(db, Part::Eager)) {
        Ok(m) => {
            checked = true;
            m
        }
        Err(Open::Busy) => {
            notes.push(format!(
                "{}: another run held the database for {}s; reading nothing",
                path.display(),
                LOCK_WAIT.as_secs()
            ));
            HashMap::new()
        }
        Err(Open::Refused(why)) => {
            refused = true;
            notes.push(why);
            HashMap::new()
        }
        Err(Open::Damaged(why)) => {
            let aside_name = format!("{FILE}.damaged");
            let aside = dir.shown(&aside_name);
            let moved = dir.rename(FILE, &aside_name);
            notes.push(match moved {
                Ok(()) => {
                    format!("{}: unreadable ({why}); moved to {} and started afresh", path.display(), aside.display())
                }
                Err(e) => format!("{}: unreadable ({why}), and could not be moved aside ({e})", path.display()),
            });
            HashMap::new()
        }
    };
    Opened { loaded, checked, refused, notes }
}

fn load(db: &impl redb::ReadableDatabase, part: Part) -> Result<HashMap<Vec<u8>, Vec<u8>>, String> {
    let tx = db.begin_read().map_err(|e| e.to_string())?;
    let table = match tx.open_table(TABLE) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(HashMap::new()),
        Err(e) => return Err(e.to_string()),
    };
    // Keys sort bytewise, so a kind's entries are one range: from its prefix to the prefix with
    // its last byte (`/`) raised by one.
    let mut past = DEFERRED.to_vec();
    if let Some(last) = past.last_mut() {
        *last += 1;
    }
    let ranges = match part {
        Part::Eager => vec![table.range::<&[u8]>(..DEFERRED), table.range::<&[u8]>(past.as_slice()..)],
        Part::Deferred => vec![table.range::<&[u8]>(DEFERRED..past.as_slice())],
    };
    let mut out = HashMap::new();
    for range in ranges {
        for row in range.map_err(|e| e.to_string())? {
            let (k, v) = row.map_err(|e| e.to_string())?;
            out.insert(k.value().to_vec(), v.value().to_vec());
        }
    }
    Ok(out)
}

/// The entries of `part`, read without the integrity check (the database passed it when the
/// run opened it) and without writing: read-only. Opened as a writer, as before, redb records
/// its state on closing, with five `fdatasync`s, although nothing was written
/// (`benches/README.md`, the thirteenth pass). A database read-only redb refuses (left unclean
/// by a writer killed meanwhile) is opened as a writer, as before, which repairs it or says
/// why it cannot be read.
fn read_unchecked(dir: &Dir, part: Part) -> Result<HashMap<Vec<u8>, Vec<u8>>, Open> {
    let read_only = || {
        let file = dir.file(FILE, Access::Read).map_err(Failure::File)?;
        redb::Builder::new()
            .set_cache_size(Use::Read { check: false }.cache_size())
            .open_read_only_with_backend(redb::backends::FileBackend::new(file).map_err(Failure::Db)?)
            .map_err(Failure::Db)
    };
    match opening(read_only, |db| load(db, part)) {
        Err(Open::Damaged(_)) => with_db(dir, Use::Read { check: false }, |db| load(db, part)),
        other => other,
    }
}

/// Opens the database (waiting while another run holds it), runs `f`, closes it. The
/// integrity check on open verifies every page's checksum, so a damaged file is refused
/// instead of trusted; a panic inside redb on a hostile file is caught and treated the same.
/// redb is handed the file [`place`] opened and checked, never the path, so no link planted
/// in the directory is followed whatever redb does with paths.
fn with_db<T>(dir: &Dir, purpose: Use, f: impl Fn(&redb::Database) -> Result<T, String>) -> Result<T, Open> {
    let check = matches!(purpose, Use::Read { check: true });
    opening(
        || {
            let file = dir.file(FILE, Access::Write).map_err(Failure::File)?;
            redb::Builder::new()
                .set_check_integrity_on_open(check)
                .set_cache_size(purpose.cache_size())
                .create_with_backend(redb::backends::FileBackend::new(file).map_err(Failure::Db)?)
                .map_err(Failure::Db)
        },
        f,
    )
}

/// Why a database was not opened: the file ([`place`]), or redb.
enum Failure {
    File(Refusal),
    Db(redb::DatabaseError),
}

/// Opens a database with `open` (waiting while another run holds it), runs `f`, closes it; a
/// panic inside redb, opening or reading, is caught and reported as damage.
fn opening<D, T>(open: impl Fn() -> Result<D, Failure>, f: impl Fn(&D) -> Result<T, String>) -> Result<T, Open> {
    let start = Instant::now();
    loop {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(&open)) {
            Ok(Ok(db)) => {
                return std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&db)))
                    .unwrap_or_else(|_| Err("the database reader panicked".to_owned()))
                    .map_err(Open::Damaged);
            }
            Ok(Err(Failure::Db(redb::DatabaseError::DatabaseAlreadyOpen))) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(Err(Failure::Db(redb::DatabaseError::DatabaseAlreadyOpen))) => return Err(Open::Busy),
            Ok(Err(Failure::Db(e))) => return Err(Open::Damaged(e.to_string())),
            Ok(Err(Failure::File(Refusal::Unsafe(why)))) => return Err(Open::Refused(why)),
            Ok(Err(Failure::File(Refusal::Io(e)))) => return Err(Open::Damaged(e.to_string())),
            Err(_) => return Err(Open::Damaged("the database opener panicked".to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn entries_of_another_key_are_not_called_an_attack() {
        let s = super::Stats { hits: 3, misses: 1, dropped: 2, written: 1, ..super::Stats::default() };
        let line = s.line();
        assert!(line.contains("2 unused (written with another key, or altered)"), "{line}");
        assert!(!line.contains("authentication"), "{line}");
    }

    /// A fact asked again while it is being computed, on the same thread, as rayon's work
    /// stealing does: answered (each computation is its own), never waited for. Before
    /// `e593c7b` the lock was held while computing and this hung; the channel's timeout turns
    /// a hang into a failure.
    #[test]
    fn a_fact_asked_while_it_is_computed_does_not_wait_for_itself() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache =
            std::sync::Arc::new(super::Cache::open(dir.path(), super::Key::from_bytes([7; 32])).expect("cache opens"));
        let (tx, rx) = std::sync::mpsc::channel();
        let c = cache.clone();
        std::thread::spawn(move || {
            let outer = c.once_per_run_value("sealed:x", || {
                let inner = c.once_per_run_value("sealed:x", || Some(b"inner".to_vec()));
                assert_eq!(inner.as_deref(), Some(&b"inner"[..]));
                Some(b"outer".to_vec())
            });
            let _ = tx.send(outer);
        });
        let outer = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("answered, not hung");
        // The first answer stored is every later asker's.
        assert_eq!(outer.as_deref(), Some(&b"inner"[..]));
        assert_eq!(cache.once_per_run_value("sealed:x", || None).as_deref(), Some(&b"inner"[..]));
    }

    /// The database opens on a thread of its own: a cache dropped before any lookup has still
    /// moved a damaged file aside, and what opening said comes after what the open itself said.
    #[test]
    fn a_cache_opening_in_the_background_finishes_and_keeps_its_notes_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = || super::Key::from_bytes([9; 32]);
        std::fs::write(dir.path().join(super::FILE), b"not a database").expect("write");
        drop(super::Cache::open(dir.path(), key()).expect("opens"));
        assert!(dir.path().join(format!("{}.damaged", super::FILE)).exists(), "moved aside on drop");
        std::fs::write(dir.path().join(super::FILE), b"still not a database").expect("write");
        let cache = super::Cache::open(dir.path(), key()).expect("opens");
        assert_eq!(cache.get(b"cycle/x"), None);
        let notes = cache.stats().notes;
        assert!(notes.len() == 1 && notes[0].contains("unreadable"), "{notes:?}");
        let fresh = tempfile::tempdir().expect("tempdir");
        let cache = super::Cache::open(&fresh.path().join("c"), key()).expect("opens");
        cache.put(b"cycle/x", b"payload");
        cache.flush();
        let notes = cache.stats().notes;
        assert!(notes.len() == 1 && notes[0].starts_with("keeping authenticated results"), "{notes:?}");
        drop(cache);
        let cache = super::Cache::open(&fresh.path().join("c"), key()).expect("opens");
        assert_eq!(cache.get(b"cycle/x").as_deref(), Some(&b"payload"[..]));
        assert!(cache.stats().notes.is_empty());
    }

    /// Reading the blob digests writes nothing: the file is byte for byte what the last
    /// writer left. Opened as a writer, redb recorded its state again on closing.
    #[test]
    fn reading_the_deferred_entries_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = || super::Key::from_bytes([3; 32]);
        let cache = super::Cache::open(dir.path(), key()).expect("opens");
        cache.put(b"blob-sha256/y", b"digest");
        cache.flush();
        drop(cache);
        // The open checks the file whole, which itself commits: the file to compare is the one
        // after that open.
        let cache = super::Cache::open(dir.path(), key()).expect("opens");
        let db = dir.path().join(super::FILE);
        // Waits for the open.
        let _ = cache.holds(b"cycle/none");
        let before = std::fs::read(&db).expect("read");
        assert_eq!(cache.get(b"blob-sha256/y").as_deref(), Some(&b"digest"[..]));
        drop(cache);
        assert!(std::fs::read(&db).expect("read") == before, "the file was written");
    }
}

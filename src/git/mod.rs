//! Read-only git access on gix, isolated from the user's and the system's git configuration.
//!
//! Everything a verdict depends on is read from git objects, never from a working tree, and
//! every failure is typed: a shallow history, a missing or corrupt object and a revision that
//! does not resolve are [`Error`] variants that checks turn into `cantTell` with the reason.
//! [`Repo`] is one thread's handle; [`SharedRepo`] hands out per-thread handles to rayon workers.

pub mod reftable;
mod signature;
mod tree;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};

pub use signature::CommitSignature;
pub use tree::{Change, EntryKind, Scope, TreeEntry, TreeError, decode_tree};

/// Deepest tree nesting read, as git's default `core.maxTreeDepth`: deeper trees are refused
/// as corrupt rather than walked (their paths alone would grow quadratically).
pub const MAX_TREE_DEPTH: usize = 4096;

/// Largest object crossverify reads into memory as a record (receipts, reports, configs).
/// Manifest hashing reads blobs of any size; records above this are refused by name.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// A git access failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path is not a readable repository.
    #[error("{path}: not a readable git repository ({reason})")]
    Open {
        /// The path given.
        path: PathBuf,
        /// Why gix refused it.
        reason: String,
    },
    /// A revision did not resolve to a commit.
    #[error("{path}: revision `{rev}` does not resolve to a commit ({reason})")]
    Revision {
        /// Repository.
        path: PathBuf,
        /// The revision given.
        rev: String,
        /// Why.
        reason: String,
    },
    /// An object the history or a tree refers to is not in the object database.
    #[error("{path}: {what} {id} is missing from the object database{hint}")]
    MissingObject {
        /// Repository.
        path: PathBuf,
        /// The missing object (boxed, as in the other variants: a SHA-256 id is 32 bytes, and an
        /// error this size travels through every `Result` of the crate).
        id: Box<ObjectId>,
        /// What it was expected to be (`commit`, `tree`, `blob`).
        what: &'static str,
        /// A suggestion, e.g. to unshallow.
        hint: String,
    },
    /// An object exists but cannot be decoded, or has the wrong kind.
    #[error("{path}: {what} {id} is corrupt or of the wrong kind ({reason})")]
    CorruptObject {
        /// Repository.
        path: PathBuf,
        /// The object.
        id: Box<ObjectId>,
        /// What it was expected to be.
        what: &'static str,
        /// Decoder message.
        reason: String,
    },
    /// The repository is a shallow clone, so history-dependent facts cannot be established.
    #[error("{path}: shallow clone: history before {boundary} is missing; run `git fetch --unshallow` in {path}")]
    Shallow {
        /// Repository.
        path: PathBuf,
        /// First grafted commit.
        boundary: String,
    },
    /// A record is larger than [`MAX_RECORD_BYTES`].
    #[error("{path}: {what} {id} is {size} bytes, more than the {limit}-byte limit for records")]
    TooLarge {
        /// Repository.
        path: PathBuf,
        /// Object.
        id: Box<ObjectId>,
        /// What it holds.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// An object could not be written (only test harnesses write).
    #[error("{path}: could not write an object ({reason})")]
    Write {
        /// Repository.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl Error {
    /// Whether the failure means "evidence unavailable" (missing/corrupt object, shallow
    /// history) rather than a misuse such as an unknown path.
    #[must_use]
    pub fn is_evidence_gap(&self) -> bool {
        matches!(
            self,
            Error::MissingObject { .. } | Error::CorruptObject { .. } | Error::Shallow { .. } | Error::TooLarge { .. }
        )
    }
}

/// Result alias for this module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Author or committer of a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// Name.
    pub name: String,
    /// Email.
    pub email: String,
    /// Seconds since the epoch.
    pub time: i64,
    /// Offset from UTC in seconds.
    pub offset: i32,
}

/// A decoded commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// Its id.
    pub id: ObjectId,
    /// Root tree.
    pub tree: ObjectId,
    /// Parents in order.
    pub parents: Vec<ObjectId>,
    /// Author.
    pub author: Person,
    /// Committer.
    pub committer: Person,
    /// Full message.
    pub message: String,
}

impl Commit {
    /// First line of the message.
    #[must_use]
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

/// One thread's handle on a repository.
pub struct Repo {
    inner: gix::Repository,
    path: PathBuf,
    shallow: Option<Vec<ObjectId>>,
    trees: Option<TreeCache>,
    /// The refs of a reftable repository, which gix cannot read; `None` in the files format.
    reftable: Option<Arc<reftable::RefMap>>,
}

/// Memo of [`Repo::last_change_memo`]: (commit, path) → the commit that last changed the path.
pub type LastChangeMemo = Mutex<HashMap<(ObjectId, String), Option<ObjectId>>>;

/// The entries of one tree: name, kind, id, in git order.
pub type Children = Arc<Vec<(BString, EntryKind, ObjectId)>>;

/// Decoded trees by id, shared by every handle of a run that reads many commits of one
/// history (a ledger's receipts): unchanged subtrees are decoded once, not once per commit.
type TreeCache = Arc<Mutex<HashMap<ObjectId, Children>>>;

/// A handle that can be shared with worker threads.
#[derive(Clone)]
pub struct SharedRepo {
    inner: gix::ThreadSafeRepository,
    path: PathBuf,
    shallow: Option<Vec<ObjectId>>,
    trees: Option<TreeCache>,
    delta_cache: Option<usize>,
    reftable: Option<Arc<reftable::RefMap>>,
}

impl SharedRepo {
    /// Handles that keep up to `bytes` of resolved delta bases each. A ledger stores every
    /// version of its receipts and trees as a delta of the next; read newest first, each read
    /// then applies one delta to a cached base instead of replaying the whole chain.
    #[must_use]
    pub fn with_delta_cache(mut self, bytes: usize) -> Self {
        self.delta_cache = Some(bytes);
        self
    }

    /// The same repository with a tree cache shared by all its handles. Memory grows with the
    /// number of distinct trees read, so only runs over many commits (ledgers) want it; a
    /// single manifest does not.
    #[must_use]
    pub fn with_tree_cache(mut self) -> Self {
        self.trees = Some(Arc::default());
        self
    }

    /// A handle for the current thread, with the object cache off (one-pass hashing is decode
    /// bound and a cache only costs; crates.md §4c).
    #[must_use]
    pub fn local(&self) -> Repo {
        let mut inner = self.inner.to_thread_local();
        inner.object_cache_size(0);
        if let Some(bytes) = self.delta_cache {
            inner.objects.set_pack_cache(move || Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(bytes)));
        }
        Repo {
            inner,
            path: self.path.clone(),
            shallow: self.shallow.clone(),
            trees: self.trees.clone(),
            reftable: self.reftable.clone(),
        }
    }
}

impl Repo {
    /// Opens a repository (work tree, `.git` directory or bare), reading no configuration but
    /// the repository's own and no environment variables.
    ///
    /// # Errors
    /// [`Error::Open`] when the path is not a repository.
    pub fn open(path: &Path) -> Result<Repo> {
        if !path.exists() {
            return Err(Error::Open { path: path.to_owned(), reason: "no such file or directory".into() });
        }
        // Replace refs (`refs/replace/*`) would let a repository substitute what a commit's
        // hashes commit to; a third-party verifier reads the committed objects themselves.
        let opts =
            gix::open::Options::isolated().with(gix::sec::Trust::Full).config_overrides(["core.useReplaceRefs=false"]);
        let inner = gix::open_opts(path, opts)
            .map_err(|e| Error::Open { path: path.to_owned(), reason: first_line(&e.to_string()) })?;
        // gix reads only the files ref format; under reftable `HEAD` holds a placeholder and
        // the refs live in tables this module reads itself.
        let reftable = if inner
            .config_snapshot()
            .string("extensions.refStorage")
            .is_some_and(|v| v.eq_ignore_ascii_case(b"reftable"))
            || inner.common_dir().join("reftable").is_dir()
        {
            Some(Arc::new(read_reftable(&inner)?))
        } else {
            None
        };
        let shallow = match inner.shallow_commits() {
            Ok(Some(c)) => Some(c.iter().copied().collect()),
            Ok(None) => None,
            Err(e) => {
                return Err(Error::Open { path: path.to_owned(), reason: format!("unreadable shallow file: {e}") });
            }
        };
        Ok(Repo { inner, path: path.to_owned(), shallow, trees: None, reftable })
    }

    /// The path this handle was opened from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A thread-safe handle for worker threads.
    #[must_use]
    pub fn shared(&self) -> SharedRepo {
        SharedRepo {
            inner: self.inner.clone().into_sync(),
            path: self.path.clone(),
            shallow: self.shallow.clone(),
            trees: self.trees.clone(),
            delta_cache: None,
            reftable: self.reftable.clone(),
        }
    }

    /// This handle, keeping up to `bytes` of resolved delta bases ([`SharedRepo::with_delta_cache`]).
    #[must_use]
    pub fn with_delta_cache(mut self, bytes: usize) -> Self {
        self.inner
            .objects
            .set_pack_cache(move || Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(bytes)));
        self
    }

    /// Where each of `ids` is stored: (pack, offset) for a packed object, `None` for a loose or
    /// missing one. Reading objects in this order reads a delta's bases before it (a pack keeps
    /// bases first), which the delta cache then holds.
    #[must_use]
    pub fn pack_locations(&self, ids: &[ObjectId]) -> Vec<Option<(u32, u64)>> {
        // From the pack indices directly: a binary search each, nothing decoded. Only an
        // ordering hint, so an index that cannot be read is skipped.
        let dir = self.inner.common_dir().join("objects").join("pack");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let indices: Vec<gix::odb::pack::index::File> =
            files.iter().filter_map(|p| gix::odb::pack::index::File::at(p, self.inner.object_hash()).ok()).collect();
        ids.iter()
            .map(|id| {
                indices.iter().zip(0u32..).find_map(|(f, n)| f.lookup(id).map(|i| (n, f.pack_offset_at_index(i))))
            })
            .collect()
    }

    /// The grafted boundary commits when this is a shallow clone.
    #[must_use]
    pub fn shallow_boundary(&self) -> Option<&[ObjectId]> {
        self.shallow.as_deref()
    }

    /// On a shallow clone, the sentence that says so and how to fix it: an object missing from
    /// a shallow clone may exist upstream, so its absence proves nothing.
    #[must_use]
    pub fn shallow_hint(&self) -> Option<String> {
        self.shallow
            .as_ref()
            .map(|_| format!("{} is a shallow clone: run `git fetch --unshallow` in it", self.path.display()))
    }

    /// Fails with [`Error::Shallow`] on a shallow clone.
    ///
    /// # Errors
    /// On a shallow clone.
    pub fn require_full_history(&self) -> Result<()> {
        match &self.shallow {
            Some(b) => Err(Error::Shallow {
                path: self.path.clone(),
                boundary: b.first().map(ToString::to_string).unwrap_or_default(),
            }),
            None => Ok(()),
        }
    }

    fn missing(&self, id: ObjectId, what: &'static str) -> Error {
        let hint = if self.shallow.is_some() {
            format!(" (shallow clone: run `git fetch --unshallow` in {})", self.path.display())
        } else if self.path.join(".git/objects/info/alternates").exists()
            || self.path.join("objects/info/alternates").exists()
        {
            " (the repository borrows objects through alternates; verify the full clone)".to_owned()
        } else {
            String::new()
        };
        Error::MissingObject { path: self.path.clone(), id: Box::new(id), what, hint }
    }

    fn corrupt(&self, id: ObjectId, what: &'static str, reason: impl std::fmt::Display) -> Error {
        Error::CorruptObject {
            path: self.path.clone(),
            id: Box::new(id),
            what,
            reason: first_line(&reason.to_string()),
        }
    }

    /// Raw object data of the expected kind.
    fn object(&self, id: ObjectId, kind: gix::object::Kind, what: &'static str) -> Result<Vec<u8>> {
        match self.inner.try_find_object(id) {
            Ok(Some(obj)) => {
                if obj.kind != kind {
                    return Err(self.corrupt(id, what, format!("it is a {}", obj.kind)));
                }
                Ok(obj.detach().data)
            }
            Ok(None) => Err(self.missing(id, what)),
            Err(e) => Err(self.corrupt(id, what, e)),
        }
    }

    /// Whether the object database holds `id` (never an id of the other object format: a
    /// SHA-1 id names nothing in a SHA-256 repository, and the reverse).
    #[must_use]
    pub fn has(&self, id: ObjectId) -> bool {
        id.kind() == self.inner.object_hash() && self.inner.has_object(id)
    }

    /// The repository's object format (`extensions.objectFormat`; SHA-1 when unset).
    #[must_use]
    pub fn object_hash(&self) -> gix::hash::Kind {
        self.inner.object_hash()
    }

    /// Resolves a revision (`HEAD`, a branch, a full or abbreviated id, `main~2`) to a commit.
    ///
    /// # Errors
    /// [`Error::Revision`] when it does not name a commit.
    pub fn resolve(&self, rev: &str) -> Result<ObjectId> {
        let spec_err = |reason: String| Error::Revision { path: self.path.clone(), rev: rev.to_owned(), reason };
        let rewritten;
        let expr = match &self.reftable {
            Some(refs) => {
                rewritten = reftable_rev(refs, rev).map_err(spec_err)?;
                rewritten.as_str()
            }
            None => rev,
        };
        // gix's top-level message is about the parser ("couldn't parse revision"); its first
        // cause says what is actually wrong ("Reference \"x\" could not be found").
        let id = self
            .inner
            .rev_parse_single(expr)
            .map_err(|e| {
                // An unborn HEAD fails every revision with gix's "Could not peel 'HEAD'": say
                // what the user can act on instead.
                // (Under reftable the `HEAD` file is a placeholder that always looks unborn;
                // `reftable_rev` has already answered for an unborn HEAD there.)
                if self.reftable.is_none() && self.inner.head().is_ok_and(|h| h.is_unborn()) {
                    return spec_err("the repository has no commits".to_owned());
                }
                let cause = std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
                spec_err(revision_reason(&first_line(&cause)))
            })?
            .detach();
        let obj = self
            .inner
            .try_find_object(id)
            .map_err(|e| spec_err(e.to_string()))?
            .ok_or_else(|| self.missing(id, "object"))?;
        // Name the kind the revision reached rather than gix's peeling trace ("Last
        // encountered object … was blob").
        let named = match obj.kind {
            gix::object::Kind::Blob => Some(("blob", "a file's contents")),
            gix::object::Kind::Tree => Some(("tree", "a directory")),
            gix::object::Kind::Commit | gix::object::Kind::Tag => None,
        };
        if let Some((kind, what)) = named {
            return Err(spec_err(format!("it names the {kind} {} ({what}), not a commit", short_id(id))));
        }
        let peeled = obj.peel_to_kind(gix::object::Kind::Commit).map_err(|e| {
            let reason = first_line(&e.to_string());
            spec_err(if reason.contains("Last encountered object") {
                "it is a tag that does not point to a commit".to_owned()
            } else {
                reason
            })
        })?;
        Ok(peeled.id)
    }

    /// Reads and decodes a commit.
    ///
    /// # Errors
    /// Missing or corrupt commit.
    pub fn commit(&self, id: ObjectId) -> Result<Commit> {
        let data = self.object(id, gix::object::Kind::Commit, "commit")?;
        let c = gix::objs::CommitRef::from_bytes(&data, self.inner.object_hash())
            .map_err(|e| self.corrupt(id, "commit", e))?;
        let person = |s: gix::actor::SignatureRef<'_>| -> Result<Person> {
            let t = s.time().map_err(|e| self.corrupt(id, "commit", e))?;
            Ok(Person {
                name: s.name.to_str_lossy().into_owned(),
                email: s.email.to_str_lossy().into_owned(),
                time: t.seconds,
                offset: t.offset,
            })
        };
        Ok(Commit {
            id,
            tree: c.tree(),
            parents: c.parents().collect(),
            author: person(c.author().map_err(|e| self.corrupt(id, "commit", e))?)?,
            committer: person(c.committer().map_err(|e| self.corrupt(id, "commit", e))?)?,
            message: c.message.to_str_lossy().into_owned(),
        })
    }

    /// Size of a blob without reading it.
    ///
    /// # Errors
    /// Missing object.
    pub fn blob_size(&self, id: ObjectId) -> Result<u64> {
        match self.inner.try_find_header(id) {
            Ok(Some(h)) => Ok(h.size()),
            Ok(None) => Err(self.missing(id, "blob")),
            Err(e) => Err(self.corrupt(id, "blob", e)),
        }
    }

    /// Stores `data` as a loose blob. Verification never writes; this serves harnesses that
    /// substitute a record's bytes in a throwaway copy of a ledger (see `crossaudit::substitute`).
    ///
    /// # Errors
    /// The object database is not writable.
    pub fn write_blob(&self, data: &[u8]) -> Result<ObjectId> {
        self.inner
            .write_blob(data)
            .map(gix::Id::detach)
            .map_err(|e| Error::Write { path: self.path.clone(), reason: e.to_string() })
    }

    /// A blob's bytes, any size (manifest hashing).
    ///
    /// # Errors
    /// Missing or corrupt blob.
    pub fn blob(&self, id: ObjectId) -> Result<Vec<u8>> {
        self.object(id, gix::object::Kind::Blob, "blob")
    }

    /// A blob's bytes read into `buf`, which callers reuse across blobs: one-pass hashing of a
    /// large tree then allocates (and the kernel zeroes) no fresh memory per blob.
    ///
    /// # Errors
    /// Missing or corrupt blob, or an object of another kind.
    pub fn blob_into<'a>(&self, id: ObjectId, buf: &'a mut Vec<u8>) -> Result<&'a [u8]> {
        use gix::objs::Find as _;
        match self.inner.objects.try_find(&id, buf) {
            Ok(Some(data)) if data.kind == gix::object::Kind::Blob => Ok(data.data),
            Ok(Some(data)) => Err(self.corrupt(id, "blob", format!("it is a {}", data.kind))),
            Ok(None) => Err(self.missing(id, "blob")),
            Err(e) => Err(self.corrupt(id, "blob", e)),
        }
    }

    /// A blob holding a record, refused above [`MAX_RECORD_BYTES`] before it is read.
    ///
    /// # Errors
    /// Missing, corrupt or too large.
    pub fn record(&self, id: ObjectId, what: &str) -> Result<Vec<u8>> {
        let size = self.blob_size(id)?;
        if size > MAX_RECORD_BYTES {
            return Err(Error::TooLarge {
                path: self.path.clone(),
                id: Box::new(id),
                what: what.to_owned(),
                size,
                limit: MAX_RECORD_BYTES,
            });
        }
        self.blob(id)
    }

    /// Entries of one tree (not recursive), in git order.
    ///
    /// # Errors
    /// Missing or corrupt tree.
    pub fn tree_children(&self, id: ObjectId) -> Result<Children> {
        if let Some(cache) = &self.trees
            && let Some(hit) = cache.lock().expect("tree cache lock is never poisoned").get(&id)
        {
            return Ok(hit.clone());
        }
        let data = self.object(id, gix::object::Kind::Tree, "tree")?;
        let children: Children =
            Arc::new(decode_tree(&data, self.inner.object_hash()).map_err(|e| self.corrupt(id, "tree", e))?);
        if let Some(cache) = &self.trees {
            cache.lock().expect("tree cache lock is never poisoned").insert(id, children.clone());
        }
        Ok(children)
    }

    /// The entry at `path` (`/`-separated) below `tree`, if any.
    ///
    /// # Errors
    /// Missing or corrupt trees on the way.
    pub fn entry(&self, tree: ObjectId, path: &BStr) -> Result<Option<TreeEntry>> {
        let mut current = tree;
        let mut parts = path.split_str("/").filter(|p| !p.is_empty()).peekable();
        while let Some(part) = parts.next() {
            let children = self.tree_children(current)?;
            let found =
                children.iter().find(|(name, _, _)| name.as_slice() == part).map(|(n, k, i)| (n.clone(), *k, *i));
            match found {
                None => return Ok(None),
                Some((_, kind, id)) if parts.peek().is_none() => {
                    return Ok(Some(TreeEntry { path: path.to_owned(), kind, id }));
                }
                Some((_, EntryKind::Tree, id)) => current = id,
                Some(_) => return Ok(None),
            }
        }
        Ok(Some(TreeEntry { path: path.to_owned(), kind: EntryKind::Tree, id: tree }))
    }

    /// The bytes of the regular file at `path` in `commit`, `None` when absent or not a file.
    ///
    /// # Errors
    /// Missing or corrupt objects, or a record above [`MAX_RECORD_BYTES`].
    pub fn file_at(&self, commit: ObjectId, path: &str) -> Result<Option<Vec<u8>>> {
        let tree = self.commit(commit)?.tree;
        match self.entry(tree, path.into())? {
            Some(e) if e.kind.is_file() => Ok(Some(self.record(e.id, path)?)),
            _ => Ok(None),
        }
    }

    /// All commits reachable from `tip`, parents before children (a topological order that
    /// breaks ties by commit time, then id, so it is deterministic).
    ///
    /// # Errors
    /// A missing commit (with the unshallow hint on shallow clones).
    pub fn history(&self, tip: ObjectId) -> Result<Vec<Commit>> {
        let mut commits: BTreeMap<ObjectId, Commit> = BTreeMap::new();
        let mut stack = vec![tip];
        let grafted: HashSet<ObjectId> = self.shallow.iter().flatten().copied().collect();
        while let Some(id) = stack.pop() {
            if commits.contains_key(&id) {
                continue;
            }
            let mut c = self.commit(id)?;
            if grafted.contains(&id) {
                // git treats a grafted commit as a root; so do we, and callers that need the
                // whole history check `require_full_history` first.
                c.parents.clear();
            }
            stack.extend(c.parents.iter().copied());
            commits.insert(id, c);
        }
        Ok(topo_sort(commits))
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    ///
    /// # Errors
    /// A missing commit on the way, or [`Error::Shallow`] when the answer would be "no" but the
    /// walk reached a shallow boundary, beyond which the history is unknown.
    pub fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> Result<bool> {
        if ancestor == descendant {
            return Ok(true);
        }
        let mut seen = HashSet::new();
        let mut stack = vec![descendant];
        let mut boundary = None;
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let parents = self.commit(id)?.parents;
            if parents.contains(&ancestor) {
                return Ok(true);
            }
            if self.is_grafted(id) {
                // The parents are named by the commit but absent: we cannot look past them.
                boundary.get_or_insert(id);
                continue;
            }
            stack.extend(parents);
        }
        match boundary {
            Some(b) => Err(Error::Shallow { path: self.path.clone(), boundary: b.to_string() }),
            None => Ok(false),
        }
    }

    fn is_grafted(&self, id: ObjectId) -> bool {
        self.shallow.as_ref().is_some_and(|g| g.contains(&id))
    }

    /// `git log -1 --format=%H <tip> -- <path>` with git's default history simplification: a
    /// commit whose entry at `path` (kind and id; `path` may be a directory) equals that of a
    /// parent is skipped in favour of the first such parent; the first commit with no such
    /// parent changed the path. A root (or shallow boundary) commit is compared with the empty
    /// tree. A path deleted on the way yields the deleting commit; `None` when no commit on the
    /// simplified line ever had the path.
    ///
    /// # Errors
    /// Missing objects on the way.
    pub fn last_change(&self, tip: ObjectId, path: &str) -> Result<Option<ObjectId>> {
        self.last_change_memo(tip, path, &LastChangeMemo::default())
    }

    /// [`last_change`](Self::last_change) with answers remembered in `memo` across calls, so
    /// that many receipts of one long history each cost a lookup instead of a walk: every
    /// commit on the simplified line shares the answer of the commit the walk stops at.
    ///
    /// # Errors
    /// Missing objects on the way.
    pub fn last_change_memo(&self, tip: ObjectId, path: &str, memo: &LastChangeMemo) -> Result<Option<ObjectId>> {
        let key = |c: ObjectId| (c, path.to_owned());
        let lookup = |c: ObjectId| memo.lock().expect("memo lock is never poisoned").get(&key(c)).copied();
        if let Some(hit) = lookup(tip) {
            return Ok(hit);
        }
        let at = |tree: ObjectId| -> Result<Option<(EntryKind, ObjectId)>> {
            Ok(self.entry(tree, path.into())?.map(|e| (e.kind, e.id)))
        };
        let mut visited = Vec::new();
        let mut current = self.commit(tip)?;
        let here = at(current.tree)?;
        let answer = loop {
            if let Some(hit) = lookup(current.id) {
                break hit;
            }
            visited.push(current.id);
            if current.parents.is_empty() || self.is_grafted(current.id) {
                break here.is_some().then_some(current.id);
            }
            let mut same = None;
            for p in &current.parents {
                let pc = self.commit(*p)?;
                if at(pc.tree)? == here {
                    same = Some(pc);
                    break;
                }
            }
            match same {
                Some(pc) => current = pc,
                None => break Some(current.id),
            }
        };
        let mut m = memo.lock().expect("memo lock is never poisoned");
        for c in visited {
            m.insert(key(c), answer);
        }
        Ok(answer)
    }

    /// Every entry below `tree` inside `scope`, recursively, sorted by path bytes.
    ///
    /// # Errors
    /// Missing or corrupt trees.
    pub fn walk(&self, tree: ObjectId, scope: &Scope) -> Result<Vec<TreeEntry>> {
        let mut out = Vec::new();
        tree::walk(self, tree, scope, &mut out)?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Changes from `old` to `new` (trees), descending only into subtrees whose ids differ.
    ///
    /// # Errors
    /// Missing or corrupt trees.
    pub fn diff(&self, old: Option<ObjectId>, new: Option<ObjectId>) -> Result<Vec<Change>> {
        let mut out = Vec::new();
        tree::diff(self, old, new, &mut out)?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

fn topo_sort(mut commits: BTreeMap<ObjectId, Commit>) -> Vec<Commit> {
    // Kahn's algorithm over child counts; ready commits are taken in (time, id) order so the
    // result does not depend on hash-map iteration.
    let mut pending: BTreeMap<ObjectId, usize> = BTreeMap::new();
    for c in commits.values() {
        let n = c.parents.iter().filter(|p| commits.contains_key(*p)).count();
        pending.insert(c.id, n);
    }
    let mut children: BTreeMap<ObjectId, Vec<ObjectId>> = BTreeMap::new();
    for c in commits.values() {
        for p in &c.parents {
            children.entry(*p).or_default().push(c.id);
        }
    }
    let mut ready: BTreeMap<(i64, ObjectId), ()> = BTreeMap::new();
    let ids: Vec<ObjectId> = pending.iter().filter(|(_, n)| **n == 0).map(|(id, _)| *id).collect();
    for id in ids {
        ready.insert((commits[&id].committer.time, id), ());
    }
    let mut out = Vec::with_capacity(commits.len());
    while let Some(((_, id), ())) = ready.pop_first() {
        if let Some(kids) = children.get(&id) {
            for k in kids {
                if let Some(n) = pending.get_mut(k) {
                    *n -= 1;
                    if *n == 0 {
                        ready.insert((commits[k].committer.time, *k), ());
                    }
                }
            }
        }
        out.push(commits.remove(&id).expect("every ready id is a collected commit"));
    }
    out
}

/// Creates an empty bare repository at `path` (created if missing) with `HEAD` on `main`,
/// opened isolated from user and system configuration: the demo ledger and the test fixtures
/// are written through it, so their bytes never depend on the machine. The error names why.
///
/// # Errors
/// When the directory cannot be created or initialised.
pub fn init_bare(path: &Path) -> std::result::Result<gix::Repository, String> {
    std::fs::create_dir_all(path).map_err(|e| e.to_string())?;
    let opts = gix::open::Options::isolated().config_overrides(["init.defaultBranch=main"]);
    gix::ThreadSafeRepository::init_opts(path, gix::create::Kind::Bare, gix::create::Options::default(), opts)
        .map(|r| r.to_thread_local())
        .map_err(|e| e.to_string())
}

/// Reads a reftable repository's refs: the shared stack, and for a linked worktree its own
/// stack, whose per-worktree refs (`HEAD`, `refs/worktree/`, `refs/bisect/`, `refs/rewritten/`)
/// replace the shared ones.
fn read_reftable(inner: &gix::Repository) -> Result<reftable::RefMap> {
    let open_err = |e: reftable::ReftableError| Error::Open { path: e.path, reason: e.reason };
    let mut refs = reftable::read_stack(&inner.common_dir().join("reftable"), inner.object_hash()).map_err(open_err)?;
    let own = inner.git_dir().join("reftable");
    if inner.git_dir() != inner.common_dir() && own.join("tables.list").exists() {
        let per_worktree = |name: &BStr| {
            !name.starts_with(b"refs/")
                || [&b"refs/worktree/"[..], b"refs/bisect/", b"refs/rewritten/"].iter().any(|p| name.starts_with(p))
        };
        refs.retain(|name, _| !per_worktree(name.as_bstr()));
        let mine = reftable::read_stack(&own, inner.object_hash()).map_err(open_err)?;
        refs.extend(mine.into_iter().filter(|(name, _)| per_worktree(name.as_bstr())));
    }
    Ok(refs)
}

/// Most symbolic refs followed before giving up (git's own limit).
const MAX_SYMREF_DEPTH: usize = 5;

/// `rev` with its leading ref name replaced by the id it holds in `refs`, so that gix's parser
/// (which cannot read reftable) sees only an id and the navigation after it (`~2`, `^{commit}`).
/// The name is looked up as `git rev-parse` does: as given, then under `refs/`, `refs/tags/`,
/// `refs/heads/`, `refs/remotes/` and `refs/remotes/<name>/HEAD`.
fn reftable_rev(refs: &reftable::RefMap, rev: &str) -> std::result::Result<String, String> {
    // A ref name cannot contain `~`, `^`, `:` or `@{`, so the first of them ends it.
    let cut = rev.find(['~', '^', ':']).into_iter().chain(rev.find("@{")).min().unwrap_or(rev.len());
    let (name, rest) = rev.split_at(cut);
    if name.is_empty() {
        return Ok(rev.to_owned());
    }
    let name = if name == "@" { "HEAD" } else { name };
    // A full-length id names its object even where a ref has that name, as in `git rev-parse`.
    if matches!(name.len(), 40 | 64) && name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(rev.to_owned());
    }
    let candidates = [
        name.to_owned(),
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/heads/{name}"),
        format!("refs/remotes/{name}"),
        format!("refs/remotes/{name}/HEAD"),
    ];
    let Some((mut current, mut value)) =
        candidates.iter().find_map(|c| refs.get_key_value(c.as_bytes().as_bstr()).map(|(k, v)| (k.clone(), v)))
    else {
        if name.len() >= 4 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(rev.to_owned());
        }
        return Err(format!("no branch, tag or commit is called `{name}`"));
    };
    for _ in 0..=MAX_SYMREF_DEPTH {
        match value {
            reftable::RefValue::Id(id) => return Ok(format!("{id}{rest}")),
            reftable::RefValue::Symbolic(target) => match refs.get(target) {
                Some(next) => {
                    current = target.clone();
                    value = next;
                }
                None if name == "HEAD" => return Err("the repository has no commits".to_owned()),
                None => return Err(format!("`{current}` points to `{target}`, which does not exist")),
            },
        }
    }
    Err(format!("`{name}` is a chain of more than {MAX_SYMREF_DEPTH} symbolic refs"))
}

/// gix's revision-parser messages in the words of someone who typed a revision.
fn revision_reason(cause: &str) -> String {
    if let Some(name) = cause.strip_prefix("Reference \"").and_then(|r| r.strip_suffix("\" could not be found")) {
        return format!("no branch, tag or commit is called `{name}`");
    }
    // "Commit 54db207 has 1 ancestors along the first parent and ancestor number 5 is out of range"
    let words: Vec<&str> = cause.split(' ').collect();
    if let [
        "Commit",
        id,
        "has",
        n,
        "ancestors",
        "along",
        "the",
        "first",
        "parent",
        "and",
        "ancestor",
        "number",
        m,
        "is",
        "out",
        "of",
        "range",
    ] = words.as_slice()
    {
        return format!("the history before {id} is only {n} commit(s) deep along the first parent, not {m}");
    }
    cause.to_owned()
}

fn short_id(id: ObjectId) -> String {
    let hex = id.to_string();
    hex.get(..12).unwrap_or(&hex).to_owned()
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_owned()
}

/// Renders a path like git's `core.quotePath`: as is when it is printable UTF-8, otherwise
/// C-quoted with octal escapes (`"experiments/\303\251.json"`).
#[must_use]
pub fn display_path(path: &BStr) -> String {
    match path.to_str() {
        Ok(s) if !s.chars().any(|c| c.is_control() || c == '"' || c == '\\') => s.to_owned(),
        _ => c_quote(path),
    }
}

/// Whether git's default `core.quotePath` writes `path` C-quoted: a control byte, `"`, `\\`,
/// DEL or any byte of a multi-byte character.
#[must_use]
pub fn needs_c_quote(path: &BStr) -> bool {
    path.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f)
}

/// The bytes behind a C-quoted path (`"a\\303\\251"` → `aé`); `None` unless `quoted` is one
/// well-formed quoted string (escapes `\\a \\b \\t \\n \\v \\f \\r \\" \\\\` and three octal digits).
#[must_use]
pub fn c_unquote(quoted: &str) -> Option<BString> {
    let inner = quoted.strip_prefix('"')?.strip_suffix('"')?.as_bytes();
    let mut out = BString::default();
    let mut i = 0;
    while let Some(&b) = inner.get(i) {
        i += 1;
        if b == b'"' {
            return None;
        }
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let e = *inner.get(i)?;
        i += 1;
        out.push(match e {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'"' | b'\\' => e,
            b'0'..=b'3' => {
                let d = inner.get(i..i + 2)?;
                if !d.iter().all(|c| (b'0'..=b'7').contains(c)) {
                    return None;
                }
                i += 2;
                (e - b'0') * 64 + (d[0] - b'0') * 8 + (d[1] - b'0')
            }
            _ => return None,
        });
    }
    Some(out)
}

/// git's C-quoting of a path.
#[must_use]
pub fn c_quote(path: &BStr) -> String {
    let mut out = String::from("\"");
    for &b in path.as_bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;

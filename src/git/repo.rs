//! One repository handle: opening it isolated, reading its objects by kind and size, and the
//! per-thread handles ([`SharedRepo`]) that rayon workers read through. The readers built on
//! it (trees, history, revisions, signatures) each add their methods in their own file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};

use super::deltas::DeltaFamilies;
use super::error::{Error, Result};
use super::loose::{self, Loose};
use super::reftable;
use super::storage::{self, Pack};
use super::tree::{EntryKind, TreeEntry, decode_tree, find_child};

/// Largest object crossverify reads into memory as a record (receipts, reports, configs).
/// Manifest hashing reads blobs of any size; records above this are refused by name.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

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
    pub(super) inner: gix::Repository,
    pub(super) path: PathBuf,
    pub(super) shallow: Option<Vec<ObjectId>>,
    trees: Option<TreeCache>,
    /// The refs of a reftable repository, which gix cannot read; `None` in the files format.
    pub(super) reftable: Option<Arc<reftable::RefMap>>,
    /// Loose objects read without gix's maps; `None` when there are none.
    loose: Option<Arc<Loose>>,
}

/// Memo of [`Repo::last_change_memo`]: (commit, path) → the commit that last changed the path.
pub type LastChangeMemo = Mutex<HashMap<(ObjectId, String), Option<ObjectId>>>;

/// The entries of one tree: name, kind, id, in git order.
pub type Children = Arc<Vec<(BString, EntryKind, ObjectId)>>;

/// Decoded trees by id, shared by every handle of a run that reads many commits of one
/// history (a ledger's receipts): unchanged subtrees are decoded once, not once per commit.
type TreeCache = Arc<Mutex<Generations>>;

/// Tree entries one generation of the tree cache holds (about 20 MB of names and ids).
const TREE_GENERATION_ENTRIES: usize = 1 << 17;

/// A bounded cache in two generations: lookups find a tree in either, a tree found in the old
/// one moves to the young one, and when the young one holds [`TREE_GENERATION_ENTRIES`] it
/// becomes the old one and the old one is dropped. Neighbouring commits share most subtrees,
/// so the trees a run is reading stay young; memory stays under two generations however long
/// the history (unbounded, a 1,000-cycle ledger kept every tree of both repositories).
#[derive(Default)]
struct Generations {
    young: HashMap<ObjectId, Children>,
    old: HashMap<ObjectId, Children>,
    young_entries: usize,
}

impl Generations {
    fn get(&mut self, id: &ObjectId) -> Option<Children> {
        if let Some(hit) = self.young.get(id) {
            return Some(hit.clone());
        }
        let hit = self.old.remove(id)?;
        self.insert(*id, hit.clone());
        Some(hit)
    }

    fn insert(&mut self, id: ObjectId, children: Children) {
        self.young_entries += children.len().max(1);
        self.young.insert(id, children);
        if self.young_entries >= TREE_GENERATION_ENTRIES {
            self.old = std::mem::take(&mut self.young);
            self.young_entries = 0;
        }
    }
}

/// How a read goes on after [`Repo::loose_read`].
enum Via {
    /// Answered from the object's loose file.
    Loose(Result<gix::object::Kind>),
    /// gix answers; with `check`, a loose file is there that gix may read, so what it answers
    /// must hash to the id.
    Gix { check: bool },
}

/// A handle that can be shared with worker threads.
#[derive(Clone)]
pub struct SharedRepo {
    inner: gix::ThreadSafeRepository,
    path: PathBuf,
    shallow: Option<Vec<ObjectId>>,
    trees: Option<TreeCache>,
    delta_cache: Option<usize>,
    reftable: Option<Arc<reftable::RefMap>>,
    loose: Option<Arc<Loose>>,
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
            loose: self.loose.clone(),
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
        let loose = Loose::at(inner.objects.store_ref().path()).map(Arc::new);
        Ok(Repo { inner, path: path.to_owned(), shallow, trees: None, reftable, loose })
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
            loose: self.loose.clone(),
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

    /// How this repository's packs store objects as deltas of one another: an order for reads,
    /// not evidence ([`DeltaFamilies`]).
    #[must_use]
    pub fn delta_families(&self) -> DeltaFamilies {
        super::deltas::read(self.inner.objects.store_ref().path(), self.inner.object_hash())
    }

    /// How many objects this repository's pack indexes list.
    #[must_use]
    pub fn packed_objects(&self) -> u64 {
        super::deltas::packed_objects(self.inner.objects.store_ref().path(), self.inner.object_hash())
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

    pub(super) fn missing(&self, id: ObjectId, what: &'static str) -> Error {
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

    pub(super) fn corrupt(&self, id: ObjectId, what: &'static str, reason: impl std::fmt::Display) -> Error {
        Error::CorruptObject {
            path: self.path.clone(),
            id: Box::new(id),
            what,
            reason: first_line(&reason.to_string()),
        }
    }

    /// Raw object data of the expected kind.
    pub(super) fn object(&self, id: ObjectId, kind: gix::object::Kind, what: &'static str) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        let check = match self.loose_read(id, what, &mut buf, u64::MAX) {
            Via::Loose(found) => return self.of_kind(id, found?, kind, what).map(|()| buf),
            Via::Gix { check } => check,
        };
        match self.inner.try_find_object(id) {
            Ok(Some(obj)) => {
                // The id first: a loose file holding another object explains a wrong kind.
                if check {
                    self.same_id(id, obj.kind, &obj.data, what)?;
                }
                self.of_kind(id, obj.kind, kind, what)?;
                Ok(obj.detach().data)
            }
            Ok(None) => Err(self.missing(id, what)),
            Err(e) => Err(self.corrupt(id, what, e)),
        }
    }

    /// `id` read from its loose file when [`Loose`] takes it (at most `cap` bytes), else how
    /// gix is to answer. The empty tree is gix's to answer: it needs no storage.
    fn loose_read(&self, id: ObjectId, what: &'static str, buf: &mut Vec<u8>, cap: u64) -> Via {
        let Some(store) = self.loose.as_ref().filter(|_| id != ObjectId::empty_tree(id.kind())) else {
            return Via::Gix { check: false };
        };
        match store.read(&id, buf, cap) {
            None => Via::Gix { check: false },
            Some(loose::Read::Declined) => Via::Gix { check: true },
            Some(loose::Read::Object(kind)) => Via::Loose(Ok(kind)),
            Some(loose::Read::Other { path, actual }) => Via::Loose(Err(self.other_object(id, what, &path, actual))),
        }
    }

    /// What gix read, held to `id` when a loose file it may have read is there ([`Via::Gix`]):
    /// gix does not recompute ids.
    fn same_id(&self, id: ObjectId, kind: gix::object::Kind, data: &[u8], what: &'static str) -> Result<()> {
        let actual = gix::objs::compute_hash(id.kind(), kind, data).map_err(|e| self.corrupt(id, what, e))?;
        match self.loose.as_ref() {
            Some(store) if actual != id => Err(self.other_object(id, what, &store.path(&id), actual)),
            _ => Ok(()),
        }
    }

    fn other_object(&self, id: ObjectId, what: &'static str, path: &Path, actual: ObjectId) -> Error {
        self.corrupt(id, what, format!("its loose file {} holds another object ({actual})", path.display()))
    }

    fn of_kind(
        &self,
        id: ObjectId,
        found: gix::object::Kind,
        kind: gix::object::Kind,
        what: &'static str,
    ) -> Result<()> {
        if found == kind { Ok(()) } else { Err(self.corrupt(id, what, format!("it is a {found}"))) }
    }

    /// Raw object data of the expected kind, read into `buf` (whose allocation callers reuse):
    /// a loose object by plain reads ([`Loose`]), anything else, and every error, through gix.
    pub(super) fn object_into<'a>(
        &self,
        id: ObjectId,
        kind: gix::object::Kind,
        what: &'static str,
        buf: &'a mut Vec<u8>,
    ) -> Result<&'a [u8]> {
        use gix::objs::Find as _;
        let check = match self.loose_read(id, what, buf, u64::MAX) {
            Via::Loose(found) => return self.of_kind(id, found?, kind, what).map(|()| &buf[..]),
            Via::Gix { check } => check,
        };
        match self.inner.objects.try_find(&id, buf) {
            Ok(Some(data)) => {
                if check {
                    self.same_id(id, data.kind, data.data, what)?;
                }
                self.of_kind(id, data.kind, kind, what)?;
                Ok(data.data)
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

    /// The object storage checked as files (every pack and index against its checksum, every
    /// loose object in full, alternates included): the packs, or the first damaged file and why.
    /// [`Repo::has`] answers from an index and cannot tell a damaged object from a sound one.
    ///
    /// # Errors
    /// The damaged or unreadable file, named, with the reason.
    pub fn storage(&self) -> std::result::Result<Vec<Pack>, String> {
        storage::inspect(
            self.inner.objects.store_ref().path(),
            self.object_hash(),
            &std::sync::atomic::AtomicBool::new(false),
        )
    }

    /// The pack indexes as they are now, each checked against its trailer; `None` when a
    /// multi-pack index is there or an index does not read.
    #[must_use]
    pub fn pack_indexes(&self) -> Option<storage::PackIndexes> {
        storage::pack_indexes(self.inner.objects.store_ref().path(), self.object_hash())
    }

    /// Checks `pack`'s bytes (one of [`Repo::storage`]'s) against its trailer checksum, and
    /// returns their fingerprint.
    ///
    /// # Errors
    /// The pack and the reason, when it does not read or does not match its trailer.
    pub fn read_pack(&self, pack: &Pack) -> std::result::Result<storage::Fingerprint, String> {
        storage::read_pack(pack, self.object_hash())
    }

    /// The fingerprint of `pack`'s bytes as they are now ([`Repo::read_pack`] took it when it
    /// checked them).
    ///
    /// # Errors
    /// The pack and the reason, when it does not read.
    pub fn pack_fingerprint(&self, pack: &Pack) -> std::result::Result<storage::Fingerprint, String> {
        storage::fingerprint(pack)
    }

    /// Reads every object of `pack` (one of [`Repo::storage`]'s) in full, as `git verify-pack`.
    ///
    /// # Errors
    /// The pack and the reason, when an object in it is damaged.
    pub fn verify_pack(&self, pack: &Pack) -> std::result::Result<(), String> {
        storage::verify_pack(pack, self.object_hash(), &std::sync::atomic::AtomicBool::new(false))
    }

    /// The repository's object format (`extensions.objectFormat`; SHA-1 when unset).
    #[must_use]
    pub fn object_hash(&self) -> gix::hash::Kind {
        self.inner.object_hash()
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
        self.object_into(id, gix::object::Kind::Blob, "blob", buf)
    }

    /// A blob holding a record, refused above [`MAX_RECORD_BYTES`] before it is read.
    ///
    /// # Errors
    /// Missing, corrupt or too large.
    pub fn record(&self, id: ObjectId, what: &str) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        // A record our reader declines (above the cap, say) is read by `blob`, which holds
        // gix's answer to the id.
        if let Via::Loose(kind) = self.loose_read(id, "blob", &mut buf, MAX_RECORD_BYTES) {
            return self.of_kind(id, kind?, gix::object::Kind::Blob, "blob").map(|()| buf);
        }
        self.record_size(id, what)?;
        self.blob(id)
    }

    /// [`Repo::record`] into `buf`, whose allocation is reused: a ledger reads a thousand
    /// receipts of a megabyte each, and a fresh buffer per receipt costs fresh pages.
    ///
    /// # Errors
    /// Missing, corrupt or too large.
    pub fn record_into<'a>(&self, id: ObjectId, what: &str, buf: &'a mut Vec<u8>) -> Result<&'a [u8]> {
        if let Via::Loose(kind) = self.loose_read(id, "blob", buf, MAX_RECORD_BYTES) {
            return self.of_kind(id, kind?, gix::object::Kind::Blob, "blob").map(|()| &buf[..]);
        }
        self.record_size(id, what)?;
        self.blob_into(id, buf)
    }

    /// Refuses a record above [`MAX_RECORD_BYTES`] from its header, before it is inflated.
    fn record_size(&self, id: ObjectId, what: &str) -> Result<()> {
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
        Ok(())
    }

    /// Entries of one tree (not recursive), in git order.
    ///
    /// # Errors
    /// Missing or corrupt tree.
    pub fn tree_children(&self, id: ObjectId) -> Result<Children> {
        if let Some(cache) = &self.trees
            && let Some(hit) = cache.lock().expect("tree cache lock is never poisoned").get(&id)
        {
            return Ok(hit);
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
            match find_child(&children, part) {
                None => return Ok(None),
                Some((kind, id)) if parts.peek().is_none() => {
                    return Ok(Some(TreeEntry { path: path.to_owned(), kind, id }));
                }
                Some((EntryKind::Tree, id)) => current = id,
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

pub(super) fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_owned()
}

#[cfg(test)]
mod generations {
    use super::*;

    fn tree(entries: usize) -> Children {
        let zero = ObjectId::null(gix::hash::Kind::Sha1);
        Arc::new(vec![(BString::from("f"), EntryKind::File, zero); entries])
    }

    fn id(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    #[test]
    fn the_tree_cache_keeps_what_is_used_and_drops_the_rest() {
        let mut g = Generations::default();
        g.insert(id(1), tree(1));
        g.insert(id(2), tree(TREE_GENERATION_ENTRIES));
        // The young generation filled: both trees are now old, and still found.
        assert!(g.young.is_empty() && g.old.len() == 2);
        assert!(g.get(&id(1)).is_some(), "a hit in the old generation");
        assert!(g.young.contains_key(&id(1)), "moves the tree to the young one");
        g.insert(id(3), tree(TREE_GENERATION_ENTRIES));
        assert!(g.get(&id(2)).is_none(), "a tree not used for a whole generation is dropped");
        assert!(g.get(&id(1)).is_some() && g.get(&id(3)).is_some());
        assert!(g.young.len() + g.old.len() <= 3);
    }
}

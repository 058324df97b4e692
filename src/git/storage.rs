//! The object storage read as files: packs, their indexes and loose objects, with their own
//! checksums. A cache of results is sound only while the objects it stood for are still
//! readable as they were, and "the object database has the id" (an index lookup) does not say
//! that: a damaged pack or loose file still answers the lookup. What this module proves
//! instead: every index matches its trailer checksum and names the checksum its pack's trailer
//! states, every loose object inflates and hashes to its id, and a pack's bytes are either
//! checked against its trailer ([`read_pack`], which also takes their fingerprint) or found to
//! be the bytes of an earlier such check ([`fingerprint`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use gix::ObjectId;

/// One pack of a repository (or of one of its alternates), its index's checksum verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pack {
    /// The `.idx` file.
    pub index: PathBuf,
    /// The `.pack` file.
    pub pack: PathBuf,
    /// The pack's trailer checksum as the pack's last bytes and its index both state it; it
    /// names the pack's content only once [`Repo::read_pack`](super::Repo::read_pack) has
    /// checked it against the bytes, or [`Repo::pack_fingerprint`](super::Repo::pack_fingerprint)
    /// has found the bytes of such a check.
    pub checksum: ObjectId,
    /// The index's trailer checksum, verified against its bytes: it names which objects a
    /// lookup finds (an index can leave out an object its pack holds).
    pub index_checksum: ObjectId,
}

/// The pack indexes of a store, opened and checked against their trailers. A lookup in them
/// answers for exactly the objects of those (pack, index) pairs, whatever the live store does
/// meanwhile (a fetch or a `gc` running beside the verifier).
pub struct PackIndexes {
    files: Vec<gix::odb::pack::index::File>,
    pairs: Vec<(ObjectId, ObjectId)>,
}

impl PackIndexes {
    /// The position of the first index that lists `id`.
    #[must_use]
    pub fn locate(&self, id: ObjectId) -> Option<usize> {
        self.files.iter().position(|f| f.lookup(id).is_some())
    }

    /// Every (pack checksum, index checksum), by position.
    #[must_use]
    pub fn pairs(&self) -> &[(ObjectId, ObjectId)] {
        &self.pairs
    }
}

/// [`PackIndexes`] of the object directory `objects` and its alternates, or `None` when a
/// multi-pack index is there (lookups would go through it instead) or an index is unreadable
/// or damaged.
pub(super) fn pack_indexes(objects: &Path, kind: gix::hash::Kind) -> Option<PackIndexes> {
    let (mut pairs, mut files) = (Vec::new(), Vec::new());
    for dir in object_dirs(objects).ok()? {
        let pack_dir = dir.join("pack");
        if pack_dir.join("multi-pack-index").exists() {
            return None;
        }
        for path in index_files(&pack_dir).ok()? {
            let file = gix::odb::pack::index::File::at(&path, kind).ok()?;
            let index_checksum = file.verify_checksum(&mut gix::progress::Discard, &AtomicBool::new(false)).ok()?;
            pairs.push((file.pack_checksum(), index_checksum));
            files.push(file);
        }
    }
    Some(PackIndexes { files, pairs })
}

/// The `.idx` files of a pack directory, sorted (the first damaged file named is the same on
/// every run); none when the directory does not exist.
pub(super) fn index_files(pack_dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut indexes = Vec::new();
    match std::fs::read_dir(pack_dir) {
        Ok(entries) => {
            for entry in entries {
                let path = entry.map_err(|e| format!("{}: {e}", pack_dir.display()))?.path();
                if path.extension().is_some_and(|x| x == "idx") {
                    indexes.push(path);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", pack_dir.display())),
    }
    indexes.sort();
    Ok(indexes)
}

/// Every object directory the store reads: `objects` and its alternates, in resolution order.
pub(super) fn object_dirs(objects: &Path) -> Result<Vec<PathBuf>, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let alternates = gix::odb::alternate::resolve(objects.to_owned(), &cwd)
        .map_err(|e| format!("{}: its alternates cannot be resolved ({e})", objects.display()))?;
    Ok(std::iter::once(objects.to_owned()).chain(alternates).collect())
}

/// Checks the storage of the object directory `objects` (and its alternates): every index
/// against its trailer checksum and against the checksum its pack's trailer states, the
/// multi-pack index's checksum, and every loose object in full (inflated and hashed). The packs'
/// bytes are not read: [`read_pack`] or [`fingerprint`] does that.
///
/// # Errors
/// The first file that is unreadable or damaged, named, with the reason.
pub(super) fn inspect(objects: &Path, kind: gix::hash::Kind, interrupt: &AtomicBool) -> Result<Vec<Pack>, String> {
    let mut packs = Vec::new();
    for dir in object_dirs(objects)? {
        let pack_dir = dir.join("pack");
        for index in index_files(&pack_dir)? {
            packs.push(checked_pack(&index, kind, interrupt)?);
        }
        let midx = pack_dir.join("multi-pack-index");
        if midx.is_file() {
            let file =
                gix::odb::pack::multi_index::File::at(&midx, None).map_err(|e| format!("{}: {e}", midx.display()))?;
            file.verify_checksum(&mut gix::progress::Discard, interrupt)
                .map_err(|e| format!("{}: checksum does not match ({e})", midx.display()))?;
        }
        super::loose::verify_all(&dir, kind, interrupt)
            .map_err(|e| format!("{}: a loose object is damaged: {e}", dir.display()))?;
    }
    Ok(packs)
}

fn checked_pack(index: &Path, kind: gix::hash::Kind, interrupt: &AtomicBool) -> Result<Pack, String> {
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", index.display());
    let file = gix::odb::pack::index::File::at(index, kind).map_err(|e| named(&e))?;
    let index_checksum = file
        .verify_checksum(&mut gix::progress::Discard, interrupt)
        .map_err(|e| named(&format_args!("checksum does not match ({e})")))?;
    let pack = index.with_extension("pack");
    let stated = trailer(&pack, kind)?;
    if file.pack_checksum() != stated {
        return Err(named(&"indexes another pack than the one beside it"));
    }
    Ok(Pack { index: index.to_owned(), pack, checksum: stated, index_checksum })
}

/// The checksum a pack file's last bytes state.
fn trailer(pack: &Path, kind: gix::hash::Kind) -> Result<ObjectId, String> {
    use std::io::{Read as _, Seek as _};
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", pack.display());
    let mut f = std::fs::File::open(pack).map_err(|e| named(&e))?;
    let n = kind.len_in_bytes();
    let len = f.metadata().map_err(|e| named(&e))?.len();
    // A pack holds at least its 12-byte header and its trailer.
    if len < 12 + n as u64 {
        return Err(named(&format_args!("{len} bytes, too short to be a pack")));
    }
    f.seek(std::io::SeekFrom::Start(len - n as u64)).map_err(|e| named(&e))?;
    let mut id = vec![0; n];
    f.read_exact(&mut id).map_err(|e| named(&e))?;
    ObjectId::try_from(id.as_slice()).map_err(|e| named(&e))
}

/// What a cached run compares a pack's bytes with: their BLAKE3 digest, taken by
/// [`Repo::read_pack`](super::Repo::read_pack) when the pack was checked in full.
pub type Fingerprint = [u8; 32];

/// Bytes read at a time; large enough that BLAKE3 hashes one chunk on every core.
const CHUNK: usize = 4 << 20;

/// Calls `each` with the file's bytes in order, one chunk at a time, and returns how many
/// there were. The next chunk is read while `each` runs: the bench ledger's two 120 MB packs
/// took 52 ms to fingerprint when reading and hashing took turns, and overlapped they take
/// what hashing the mapped files took (41 ms). Mapping is not used: a read error in a mapped
/// file (a bad sector) is a SIGBUS that ends the process, where a read returns it and the
/// repository stays unsealed.
fn chunks(path: &Path, mut each: impl FnMut(&[u8]) + Send) -> Result<u64, String> {
    let named = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut f = std::fs::File::open(path).map_err(named)?;
    let (mut this, mut next) = (vec![0; CHUNK], vec![0; CHUNK]);
    let mut n = fill(&mut f, &mut this).map_err(named)?;
    let mut total = 0;
    while n > 0 {
        let (bytes, file, into) = (&this[..n], &mut f, &mut next);
        let ((), read) = rayon::join(|| each(bytes), || fill(file, into));
        total += n as u64;
        n = read.map_err(named)?;
        std::mem::swap(&mut this, &mut next);
    }
    Ok(total)
}

/// Reads into `buf` until it is full or the file ends, and returns how many bytes it holds.
fn fill(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read as _;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A stream that arrives in pieces, passed on except for its last `n` bytes (a pack's trailer
/// is not part of what it checksums): those are held back until more arrive.
struct HeldBack {
    n: usize,
    tail: Vec<u8>,
}

impl HeldBack {
    fn new(n: usize) -> Self {
        HeldBack { n, tail: Vec::with_capacity(n) }
    }

    fn feed(&mut self, bytes: &[u8], mut pass: impl FnMut(&[u8])) {
        if bytes.len() >= self.n {
            pass(&self.tail);
            pass(&bytes[..bytes.len() - self.n]);
            self.tail.clear();
            self.tail.extend_from_slice(&bytes[bytes.len() - self.n..]);
        } else {
            self.tail.extend_from_slice(bytes);
            let over = self.tail.len().saturating_sub(self.n);
            pass(&self.tail[..over]);
            self.tail.drain(..over);
        }
    }
}

/// Checks `pack`'s bytes against its trailer checksum (SHA-1 with git's collision detection,
/// or SHA-256), and returns their [`Fingerprint`], taken in the same read.
///
/// # Errors
/// The pack and the reason, when it does not read or its bytes do not match its trailer.
pub(super) fn read_pack(pack: &Pack, kind: gix::hash::Kind) -> Result<Fingerprint, String> {
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", pack.pack.display());
    let (mut sha, mut blake) = (gix::hash::hasher(kind), blake3::Hasher::new());
    let mut held = HeldBack::new(kind.len_in_bytes());
    let total = chunks(&pack.pack, |bytes| {
        rayon::join(|| blake.update_rayon(bytes), || held.feed(bytes, |b| sha.update(b)));
    })?;
    let tail = held.tail;
    let stated = ObjectId::try_from(tail.as_slice())
        .map_err(|_| named(&format_args!("{total} bytes, too short to be a pack")))?;
    let actual = sha.try_finalize().map_err(|e| named(&e))?;
    if actual != stated {
        return Err(named(&format_args!(
            "checksum does not match (its bytes hash to {actual}, its trailer states {stated})"
        )));
    }
    if stated != pack.checksum {
        return Err(named(&format_args!(
            "changed while read (its trailer now states {stated}, before {})",
            pack.checksum
        )));
    }
    Ok(*blake.finalize().as_bytes())
}

/// The [`Fingerprint`] of `pack`'s bytes as they are now.
///
/// # Errors
/// The pack and the reason, when it does not read.
pub(super) fn fingerprint(pack: &Pack) -> Result<Fingerprint, String> {
    let mut blake = blake3::Hasher::new();
    chunks(&pack.pack, |bytes| {
        blake.update_rayon(bytes);
    })?;
    Ok(*blake.finalize().as_bytes())
}

/// Reads every object of `pack` in full: each entry inflated, its delta chain resolved, its CRC
/// and its id recomputed (git's `verify-pack`). With [`read_pack`]'s trailer check this proves
/// a later run reads exactly these objects from any file with the same checksum, and with the
/// fingerprint [`read_pack`] took, from any file whose bytes have it.
///
/// # Errors
/// The pack and the reason, when any object in it is damaged.
pub(super) fn verify_pack(pack: &Pack, kind: gix::hash::Kind, interrupt: &AtomicBool) -> Result<(), String> {
    let bundle = gix::odb::pack::Bundle::at(&pack.index, kind).map_err(|e| format!("{}: {e}", pack.index.display()))?;
    bundle
        .verify_integrity(
            &mut gix::progress::Discard,
            interrupt,
            gix::odb::pack::index::verify::integrity::Options::default(),
        )
        .map(|_| ())
        .map_err(|e| format!("{}: an object is damaged ({e})", bundle.pack.path().display()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// The fingerprint of a later run is the one the full check took while it also checked
    /// the trailer, whatever the file's length against the chunk: otherwise no pack would
    /// ever seal.
    #[test]
    fn a_later_fingerprint_is_the_one_the_full_read_took() {
        let dir = tempfile::tempdir().expect("tempdir");
        for len in [0usize, 100, (4 << 20) - 20, 4 << 20, (8 << 20) - 20, (8 << 20) + 12_345] {
            let mut bytes: Vec<u8> = (0..len).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
            let mut sha = gix::hash::hasher(gix::hash::Kind::Sha1);
            sha.update(&bytes);
            let checksum = sha.try_finalize().expect("hashes");
            bytes.extend_from_slice(checksum.as_bytes());
            let path = dir.path().join(format!("pack-{len}.pack"));
            std::fs::write(&path, &bytes).expect("write");
            let pack = super::Pack {
                index: path.with_extension("idx"),
                pack: path,
                checksum,
                index_checksum: gix::ObjectId::null(gix::hash::Kind::Sha1),
            };
            let read = super::read_pack(&pack, gix::hash::Kind::Sha1).expect("the trailer matches");
            assert_eq!(super::fingerprint(&pack), Ok(read), "{len} bytes");
            assert_eq!(read, *blake3::hash(&bytes).as_bytes(), "{len} bytes");
        }
        // A read that fails (here a directory, which opens but does not read) is an error
        // naming the file, never a signal.
        let pack = super::Pack {
            index: dir.path().join("x.idx"),
            pack: dir.path().to_owned(),
            checksum: gix::ObjectId::null(gix::hash::Kind::Sha1),
            index_checksum: gix::ObjectId::null(gix::hash::Kind::Sha1),
        };
        let err = super::fingerprint(&pack).expect_err("a directory does not read");
        assert!(err.starts_with(&dir.path().display().to_string()), "{err}");
    }

    proptest! {
        /// Whatever pieces a read returns, everything but the last `n` bytes is passed on, in
        /// order, and those are held.
        #[test]
        fn held_back_passes_all_but_the_tail(data in proptest::collection::vec(any::<u8>(), 0..200), cuts in proptest::collection::vec(0usize..200, 0..12), n in 0usize..40) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
            cuts.push(0);
            cuts.push(data.len());
            cuts.sort_unstable();
            let mut held = super::HeldBack::new(n);
            let mut passed = Vec::new();
            for w in cuts.windows(2) {
                held.feed(&data[w[0]..w[1]], |b| passed.extend_from_slice(b));
            }
            let keep = data.len().min(n);
            prop_assert_eq!(&passed[..], &data[..data.len() - keep]);
            prop_assert_eq!(&held.tail[..], &data[data.len() - keep..]);
        }
    }
}

//! The object storage read as files: packs, their indexes and loose objects, with their own
//! checksums. A cache of results is sound only while the objects it stood for are still
//! readable as they were, and "the object database has the id" (an index lookup) does not say
//! that: a damaged pack or loose file still answers the lookup. What this module proves
//! instead: every pack and index matches its trailer checksum (so its bytes are the ones a full
//! verification saw, see [`verify_pack`]), and every loose object inflates and hashes to its id.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use gix::ObjectId;

/// One pack of a repository (or of one of its alternates), its checksums verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pack {
    /// The `.idx` file.
    pub index: PathBuf,
    /// The pack's trailer checksum, verified against its bytes: it names the pack's content.
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
fn index_files(pack_dir: &Path) -> Result<Vec<PathBuf>, String> {
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
fn object_dirs(objects: &Path) -> Result<Vec<PathBuf>, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let alternates = gix::odb::alternate::resolve(objects.to_owned(), &cwd)
        .map_err(|e| format!("{}: its alternates cannot be resolved ({e})", objects.display()))?;
    Ok(std::iter::once(objects.to_owned()).chain(alternates).collect())
}

/// Checks the storage of the object directory `objects` (and its alternates): every pack and
/// index against its trailer checksum, the index's record of its pack's checksum, the
/// multi-pack index's checksum, and every loose object in full (inflated and hashed). Returns
/// the packs, for [`verify_pack`].
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
        gix::odb::loose::Store::at(&dir, kind)
            .verify_integrity(&mut gix::progress::Discard, interrupt)
            .map_err(|e| format!("{}: a loose object is damaged ({e})", dir.display()))?;
    }
    Ok(packs)
}

fn checked_pack(index: &Path, kind: gix::hash::Kind, interrupt: &AtomicBool) -> Result<Pack, String> {
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", index.display());
    let bundle = gix::odb::pack::Bundle::at(index, kind).map_err(|e| named(&e))?;
    let checksum = bundle
        .pack
        .verify_checksum(&mut gix::progress::Discard, interrupt)
        .map_err(|e| format!("{}: checksum does not match ({e})", bundle.pack.path().display()))?;
    let index_checksum = bundle
        .index
        .verify_checksum(&mut gix::progress::Discard, interrupt)
        .map_err(|e| named(&format_args!("checksum does not match ({e})")))?;
    if bundle.index.pack_checksum() != checksum {
        return Err(named(&"indexes another pack than the one beside it"));
    }
    Ok(Pack { index: index.to_owned(), checksum, index_checksum })
}

/// Reads every object of `pack` in full: each entry inflated, its delta chain resolved, its CRC
/// and its id recomputed (git's `verify-pack`). With [`inspect`]'s trailer check this proves a
/// later run reads exactly these objects from any file with the same checksum.
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

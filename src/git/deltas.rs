//! Which packed objects are stored as deltas of which (read from the packs' entry headers, no
//! object decoded). A reader that takes a delta family base first, each member while the one it
//! is a delta of is still in the delta cache, applies one delta per object instead of replaying
//! the chain from its full base every time.
//!
//! Only a hint for the order of reads: a pack or an entry that cannot be read is skipped, and
//! nothing here is evidence.

use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::odb::pack::data::entry::Header;

use super::storage;

/// Packed objects by the object they are stored as deltas of, over the packs of one repository.
#[derive(Default)]
pub struct DeltaFamilies {
    children: gix::hashtable::HashMap<ObjectId, Vec<ObjectId>>,
}

impl DeltaFamilies {
    /// The objects stored as deltas of `id` (empty when none, or `id` is not packed).
    #[must_use]
    pub fn children(&self, id: &ObjectId) -> &[ObjectId] {
        self.children.get(id).map_or(&[], Vec::as_slice)
    }

    /// How many objects have deltas stored against them.
    #[must_use]
    pub fn bases(&self) -> usize {
        self.children.len()
    }
}

/// The index files of `objects/pack` and of its alternates' (the same files the seal checks);
/// none where a directory cannot be listed.
fn indexes(objects: &Path) -> Vec<PathBuf> {
    storage::object_dirs(objects)
        .unwrap_or_default()
        .iter()
        .flat_map(|dir| storage::index_files(&dir.join("pack")).unwrap_or_default())
        .collect()
}

/// How many objects the indexes of [`indexes`] list (each index's count, from its header).
pub(super) fn packed_objects(objects: &Path, hash: gix::hash::Kind) -> u64 {
    indexes(objects)
        .iter()
        .filter_map(|idx| gix::odb::pack::index::File::at(idx, hash).ok())
        .map(|index| u64::from(index.num_objects()))
        .sum()
}

/// The delta families of the packs of [`indexes`]: one pass over each index and one header
/// read per entry, linear in the objects (an id per delta kept).
pub(super) fn read(objects: &Path, hash: gix::hash::Kind) -> DeltaFamilies {
    let mut out = DeltaFamilies::default();
    for idx in indexes(objects) {
        let Ok(index) = gix::odb::pack::index::File::at(&idx, hash) else { continue };
        let Ok(data) = gix::odb::pack::data::File::at(idx.with_extension("pack"), hash) else { continue };
        let mut at: Vec<(u64, ObjectId)> = index.iter().map(|e| (e.pack_offset, e.oid)).collect();
        at.sort_unstable();
        let id_at = |offset: u64| at.binary_search_by_key(&offset, |(o, _)| *o).ok().map(|i| at[i].1);
        // In pack order: the headers are read front to back.
        for &(offset, id) in &at {
            let Ok(entry) = data.entry(offset) else { continue };
            let base = match entry.header {
                Header::OfsDelta { base_distance } => entry.checked_base_pack_offset(base_distance).and_then(id_at),
                Header::RefDelta { base_id } => Some(base_id),
                _ => None,
            };
            if let Some(b) = base.filter(|b| *b != id) {
                out.children.entry(b).or_default().push(id);
            }
        }
    }
    out
}

//! Whether a repository's stored objects are still the ones a cached answer stood for.
//!
//! An entry of the persistent cache (a blob's digest, a cycle's results, a tree diff) was
//! computed from objects read at the time; it may answer again only while reading those objects
//! now would give the same bytes, or a run through the cache would differ from `--no-cache` on
//! a damaged repository. "The object database has the id" is an index lookup and says nothing
//! about a damaged pack or loose file. A repository is **sealed** for a run when:
//! - every pack and its index match their trailer checksums and every loose object inflates
//!   and hashes to its id (checked once per run: reading the storage's bytes, without
//!   inflating the packs), and
//! - every pack, named by its checksum, has once been read in full by a run with this cache
//!   key (every object inflated, its delta chain resolved, its id recomputed), the fact kept as
//!   an authenticated cache entry. A pack seen for the first time (a fresh clone) is read in
//!   full once; a pack that fails is never recorded, so its repository stays unsealed.
//!
//! An unsealed repository gets no answer from the cache: everything is recomputed and the
//! damage is reported where a check reads it, exactly as without the cache.

use sha2::{Digest as _, Sha256};

use crate::cache::Cache;
use crate::git::Repo;

/// Prefix of the table keys recording a pack read in full.
const KIND: &[u8] = b"pack-verified/";

/// Whether entries of `cache` may answer for objects of `repo` in this run.
pub fn sealed(cache: &Cache, repo: &Repo) -> bool {
    seal(cache, repo).is_some()
}

/// For a sealed repository whose objects are all in packs (no loose object), a name for the
/// set of objects it holds: the digest of its packs' checksums, sorted. Two runs that see the
/// same name see the same objects, so a fact about which objects are present (every tree and
/// blob below a tree is held) can be kept between runs under it. `None` otherwise.
#[must_use]
pub fn storage_id(cache: &Cache, repo: &Repo) -> Option<[u8; 32]> {
    seal(cache, repo).and_then(|id| id.try_into().ok())
}

/// `None` when not sealed; the storage's name ([`storage_id`]) when it has one, else empty.
fn seal(cache: &Cache, repo: &Repo) -> Option<Vec<u8>> {
    let name = format!("sealed:{}", repo.path().display());
    cache.once_per_run_value(&name, || {
        let packs = repo.storage().ok()?;
        let all_read = packs.iter().all(|pack| {
            let key = [KIND, pack.checksum.as_bytes()].concat();
            if cache.get(&key).is_some() {
                return true;
            }
            let whole = repo.verify_pack(pack).is_ok();
            if whole {
                cache.put(&key, b"");
            }
            whole
        });
        if !all_read {
            return None;
        }
        if repo.has_loose_objects() {
            return Some(Vec::new());
        }
        let mut sums: Vec<&[u8]> = packs.iter().map(|p| p.checksum.as_bytes()).collect();
        sums.sort_unstable();
        let mut h = Sha256::new();
        for s in sums {
            h.update((s.len() as u64).to_le_bytes());
            h.update(s);
        }
        Some(h.finalize().to_vec())
    })
}

//! Whether a repository's stored objects are still the ones a cached answer stood for.
//!
//! An entry of the persistent cache (a blob's digest, a cycle's results, a tree diff) was
//! computed from objects read at the time; it may answer again only while reading those objects
//! now would give the same bytes, or a run through the cache would differ from `--no-cache` on
//! a damaged repository. "The object database has the id" is an index lookup and says nothing
//! about a damaged pack or loose file. A repository is **sealed** for a run when:
//! - every index matches its trailer checksum and states its pack's, and every loose object
//!   inflates and hashes to its id (checked once per run), and
//! - every pack, named by its checksum with its index's, has once been read in full through
//!   that index by a run with this cache key (every object inflated, its delta chain resolved,
//!   its id recomputed, its bytes checked against its trailer), the fact kept as an
//!   authenticated cache entry with the BLAKE3 fingerprint of those bytes, and its bytes have
//!   that fingerprint now (read once per run, without inflating anything). A pack seen for the
//!   first time (a fresh clone), or with another index, is read in full once; a pack that
//!   fails is never recorded, so its repository stays unsealed.
//!
//! The fingerprint stands in for the trailer checksum on later runs because it names the same
//! bytes, and the pack's bytes are what a damaged disk or a rewritten file changes: a trailer
//! check would have read every byte too, at a third of the speed (SHA-1 with git's collision
//! detection, on one core; BLAKE3 hashes on every core).
//!
//! An unsealed repository gets no answer from the cache: everything is recomputed and the
//! damage is reported where a check reads it, exactly as without the cache.

use crate::cache::Cache;
use crate::git::{ObjectId, Repo};

/// Prefix of the table keys recording a pack read in full through an index: the `2` is the
/// layout (the key names the pack and its index; the payload is the fingerprint of the pack's
/// bytes as read). Entries of layout 1 named the pack alone and held nothing.
const KIND: &[u8] = b"pack-verified/2/";

/// Whether entries of `cache` may answer for objects of `repo` in this run.
pub fn sealed(cache: &Cache, repo: &Repo) -> bool {
    seal(cache, repo).is_some()
}

/// The (pack checksum, index checksum) pairs of a sealed repository, as the seal verified them
/// this run (each pack read in full once, each pack and index matching its trailer); `None`
/// when not sealed. A fact about which objects a lookup finds may be kept between runs under
/// such pairs, when it was learnt through indexes with those checksums
/// ([`crate::git::PackIndexes`]).
#[must_use]
pub fn verified_packs(cache: &Cache, repo: &Repo) -> Option<Vec<(ObjectId, ObjectId)>> {
    let bytes = seal(cache, repo)?;
    let n = repo.object_hash().len_in_bytes();
    bytes
        .chunks(2 * n)
        .map(|c| Some((ObjectId::try_from(c.get(..n)?).ok()?, ObjectId::try_from(c.get(n..)?).ok()?)))
        .collect()
}

/// `None` when not sealed; else the verified pairs, concatenated.
fn seal(cache: &Cache, repo: &Repo) -> Option<Vec<u8>> {
    let name = format!("sealed:{}", repo.path().display());
    cache.once_per_run_value(&name, || {
        let packs = repo.storage().ok()?;
        let all_read = packs.iter().all(|pack| {
            // The index decides which bytes of the pack a lookup reads: a full read stands for
            // the index it went through, so another index (rewritten, with its checksum
            // recomputed) is read in full again with its pack.
            let key = [KIND, pack.checksum.as_bytes(), pack.index_checksum.as_bytes()].concat();
            let now = || repo.pack_fingerprint(pack).ok();
            // Hashed before the lookup, which waits for the cache to open: a pack read before
            // is hashed meanwhile. One seen for the first time pays this hash beside its full
            // read (20 ms for 120 MB, against seconds).
            let fingerprint = now();
            if cache.get(&key).is_some_and(|f| f.len() == 32 && fingerprint.is_some_and(|n| n == f[..])) {
                return true;
            }
            // Its bytes read the same before and after the full read, so the fingerprint kept is
            // of the bytes that read whole.
            let Ok(before) = repo.read_pack(pack) else { return false };
            let whole = repo.verify_pack(pack).is_ok() && now() == Some(before);
            if whole {
                cache.put(&key, &before);
            }
            whole
        });
        all_read
            .then(|| packs.iter().flat_map(|p| [p.checksum.as_bytes(), p.index_checksum.as_bytes()].concat()).collect())
    })
}

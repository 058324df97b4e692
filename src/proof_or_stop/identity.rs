//! The state identities a bundle binds: `materialHash` (`pos-lstree-v1`), `storyFilesHash`
//! (`pos-storyfiles-v1`) and `headHash`, computed from git's tree objects through
//! [`crate::git`]. Only tree objects are read: the records carry blob ids, so no blob is
//! inflated (the shared blob cache is not needed for them; output logs are hashed separately).

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};
use sha2::{Digest, Sha256};

use crate::git::{EntryKind, Repo, Scope, TreeEntry};

/// The metadata roots every policy excludes (the paper's `.proof-or-stop/` and the legacy
/// `.lattice/`); a policy may add more.
pub const DEFAULT_METADATA_ROOTS: [&str; 2] = [".lattice", ".proof-or-stop"];

/// Algorithm id of [`material_hash`].
pub const MATERIAL_ALG: &str = "pos-lstree-v1";
/// Algorithm id of [`story_files_hash`].
pub const STORY_FILES_ALG: &str = "pos-storyfiles-v1";
/// The hash of an empty story-owned diff: it carries no story-owned signal, so it never
/// supplies the `storyFilesHash` freshness allowance.
pub const EMPTY_STORY_FILES_HASH: &str = "sha256:2b5101841bd9e8645d985f1b45a16688a0c758c4782d6cb7172384fe8214291c";

const MATERIAL_DOMAIN: &[u8] = b"proof-or-stop/material/v1";
const STORY_DOMAIN: &[u8] = b"proof-or-stop/story-files/v1";

/// Whether `path` is a metadata root or lies below one.
#[must_use]
pub fn is_metadata(path: &BStr, roots: &[String]) -> bool {
    roots.iter().any(|r| {
        let r = r.as_bytes();
        path.starts_with(r) && (path.len() == r.len() || path.get(r.len()) == Some(&b'/'))
    })
}

/// One `git ls-tree -r` record without its terminator: `<mode> SP <type> SP <oid> TAB <path>`.
fn record(kind: EntryKind, id: &ObjectId, path: &BStr, out: &mut Vec<u8>) {
    let (mode, ty) = match kind {
        EntryKind::File => ("100644", "blob"),
        EntryKind::Executable => ("100755", "blob"),
        EntryKind::Symlink => ("120000", "blob"),
        EntryKind::Submodule => ("160000", "commit"),
        EntryKind::Tree => ("040000", "tree"),
    };
    out.extend_from_slice(mode.as_bytes());
    out.push(b' ');
    out.extend_from_slice(ty.as_bytes());
    out.push(b' ');
    let mut hex = [0u8; 64];
    let hex = &mut hex[..2 * id.as_bytes().len()];
    hex::encode_to_slice(id.as_bytes(), hex).expect("the buffer holds two digits per byte");
    out.extend_from_slice(hex);
    out.push(b'\t');
    out.extend_from_slice(path);
}

/// A domain-separated SHA-256 over NUL-terminated records, each written into one reused
/// buffer (a 10,000-file tree is 10,000 records: no list of them is built).
struct Records {
    h: Sha256,
    buf: Vec<u8>,
}

impl Records {
    fn new(domain: &[u8]) -> Self {
        let mut h = Sha256::new();
        h.update(domain);
        h.update([0]);
        Records { h, buf: Vec::with_capacity(256) }
    }

    fn push(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        self.buf.clear();
        write(&mut self.buf);
        self.buf.push(0);
        self.h.update(&self.buf);
    }

    fn finish(self) -> String {
        format!("sha256:{}", hex::encode(self.h.finalize()))
    }
}

/// The tracked non-metadata entries of `commit`'s tree, sorted by raw path bytes.
///
/// # Errors
/// Missing or corrupt commit or tree objects.
pub fn material_entries(repo: &Repo, commit: ObjectId, roots: &[String]) -> crate::git::Result<Vec<TreeEntry>> {
    let tree = repo.commit(commit)?.tree;
    let mut entries = repo.walk(tree, &Scope::all())?;
    entries.retain(|e| !is_metadata(e.path.as_bstr(), roots));
    // `walk` sorts already; the identity must not depend on that, so sort here too.
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(entries)
}

/// `materialHash` of `commit`: domain-separated SHA-256 over its path-sorted `ls-tree -r`
/// records minus the metadata roots.
///
/// # Errors
/// Missing or corrupt commit or tree objects.
pub fn material_hash(repo: &Repo, commit: ObjectId, roots: &[String]) -> crate::git::Result<String> {
    let mut records = Records::new(MATERIAL_DOMAIN);
    for e in material_entries(repo, commit, roots)? {
        records.push(|r| record(e.kind, &e.id, e.path.as_bstr(), r));
    }
    Ok(records.finish())
}

/// `storyFilesHash` of `head`: the paths changed from `base` to `head` that match one of
/// `allowed` (globs) and lie outside the metadata roots, each as its record at `head`
/// (a deleted path as `000000 blob <zero oid>`).
///
/// # Errors
/// Missing or corrupt commit or tree objects.
pub fn story_files_hash(
    repo: &Repo,
    base: ObjectId,
    head: ObjectId,
    allowed: &[String],
    roots: &[String],
) -> crate::git::Result<String> {
    let (bt, ht) = (repo.commit(base)?.tree, repo.commit(head)?.tree);
    let mut changes = repo.diff(Some(bt), Some(ht))?;
    changes.retain(|c| !is_metadata(c.path.as_bstr(), roots) && allowed.iter().any(|g| glob(g, &c.path)));
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    let zero = ObjectId::null(head.kind());
    let mut records = Records::new(STORY_DOMAIN);
    for c in &changes {
        records.push(|r| match c.new {
            Some((kind, id)) => record(kind, &id, c.path.as_bstr(), r),
            None => {
                r.extend_from_slice(format!("000000 blob {}\t", zero.to_hex()).as_bytes());
                r.extend_from_slice(&c.path);
            }
        });
    }
    Ok(records.finish())
}

/// Whether `path` matches `pattern`: `**` any run of bytes including `/`, `*` any run
/// without `/`, `?` one byte other than `/`, everything else literally.
#[must_use]
pub fn glob(pattern: &str, path: &[u8]) -> bool {
    let p = pattern.as_bytes();
    // Backtracking points for the last `*` and the last `**`: enough for these wildcards
    // without recursion (a hostile pattern cannot exhaust the stack).
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    let mut deep: Option<(usize, usize)> = None;
    while si < path.len() {
        if p.get(pi..pi + 2) == Some(b"**") {
            deep = Some((pi + 2, si));
            star = None;
            pi += 2;
        } else if p.get(pi) == Some(&b'*') {
            star = Some((pi + 1, si));
            pi += 1;
        } else if p.get(pi).is_some_and(|&c| c == path[si] || (c == b'?' && path[si] != b'/')) {
            pi += 1;
            si += 1;
        } else if let Some((sp, ss)) = star
            && path[ss] != b'/'
        {
            star = Some((sp, ss + 1));
            (pi, si) = (sp, ss + 1);
        } else if let Some((dp, ds)) = deep {
            deep = Some((dp, ds + 1));
            star = None;
            (pi, si) = (dp, ds + 1);
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Whether the committed `head_hash` is fresh against the live `live` commit: equal, or an
/// ancestor whose diff to `live` touches only metadata roots (recording evidence does not
/// perturb what it is bound to).
///
/// # Errors
/// Missing objects, or a shallow boundary that hides the answer.
pub fn head_is_fresh(repo: &Repo, claimed: ObjectId, live: ObjectId, roots: &[String]) -> crate::git::Result<bool> {
    if claimed == live {
        return Ok(true);
    }
    if !repo.has(claimed) || !repo.is_ancestor(claimed, live)? {
        return Ok(false);
    }
    let (a, b) = (repo.commit(claimed)?.tree, repo.commit(live)?.tree);
    Ok(repo.diff(Some(a), Some(b))?.iter().all(|c| is_metadata(c.path.as_bstr(), roots)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_the_documented_rules() {
        assert!(glob("src/**", b"src/a/b.rs"));
        assert!(glob("src/*.rs", b"src/a.rs"));
        assert!(!glob("src/*.rs", b"src/a/b.rs"));
        assert!(glob("**/*.md", b"a/b/c.md"));
        assert!(!glob("src/**", b"srcx/a"));
        assert!(glob("a?c", b"abc") && !glob("a?c", b"a/c"));
        assert!(glob("**", b"x") && !glob("", b"x"));
    }

    #[test]
    fn metadata_roots_match_whole_components() {
        let roots = vec![".proof-or-stop".to_owned()];
        assert!(is_metadata(b".proof-or-stop/x".as_bstr(), &roots));
        assert!(is_metadata(b".proof-or-stop".as_bstr(), &roots));
        assert!(!is_metadata(b".proof-or-stopx/y".as_bstr(), &roots));
    }

    #[test]
    fn empty_hashes_are_the_notes_constants() {
        assert_eq!(
            Records::new(MATERIAL_DOMAIN).finish(),
            "sha256:109ca23d0a0d65565ded9d90efd850731db9216bd9b8355aef320a46fcd08ecf"
        );
        assert_eq!(Records::new(STORY_DOMAIN).finish(), EMPTY_STORY_FILES_HASH);
    }
}

//! The append-only history of every ledger file, and the versions of the controller state.

use crate::git::{self, EntryKind, ObjectId, Repo};
use crate::json;
use gix::bstr::ByteSlice;
use std::collections::{BTreeMap, HashMap};

use super::ledger::{History, read_json};

/// Walks the audit history and records, for every file under the ledger directory, the commit
/// that added it; any later modification or deletion is a violation (append-only JSON Lines
/// files may grow but never change what they held).
pub(crate) fn history(
    repo: &Repo,
    head: ObjectId,
    ledger_dir: &str,
    cache: Option<&crate::cache::Cache>,
) -> Result<History, String> {
    history_from(repo, walk(repo, head, ledger_dir)?, ledger_dir, cache)
}

/// The part of [`history`] that never consults the cache: the commits, and the ledger
/// directory's tree in each. A run takes it while the cache opens (which the seal, and so
/// every tree diff, waits for).
pub(crate) struct Walk {
    commits: Vec<git::Commit>,
    /// Each commit's root tree: the ledger directory's tree in it, or why it could not be read
    /// (reported where [`history_from`] meets it, as when each was read on the way).
    subtree: HashMap<ObjectId, Result<Option<ObjectId>, String>>,
}

/// The [`Walk`] of `head`'s history.
pub(crate) fn walk(repo: &Repo, head: ObjectId, ledger_dir: &str) -> Result<Walk, String> {
    repo.require_full_history().map_err(|e| e.to_string())?;
    let commits = repo.history(head).map_err(|e| e.to_string())?;
    let mut subtree = HashMap::with_capacity(commits.len());
    // Newest first, as `history_from` diffs them: git stores each version of a tree as a delta
    // of the next one.
    for c in commits.iter().rev() {
        subtree.entry(c.tree).or_insert_with(|| {
            repo.entry(c.tree, ledger_dir.into())
                .map(|e| e.filter(|e| e.kind == EntryKind::Tree).map(|e| e.id))
                .map_err(|e| e.to_string())
        });
    }
    Ok(Walk { commits, subtree })
}

/// [`history`] from its [`Walk`], on `repo`.
pub(crate) fn history_from(
    repo: &Repo,
    walk: Walk,
    ledger_dir: &str,
    cache: Option<&crate::cache::Cache>,
) -> Result<History, String> {
    let Walk { commits, subtree } = walk;
    let mut h = History {
        added: BTreeMap::new(),
        position: HashMap::new(),
        commits: commits.iter().map(|c| (c.id, c.tree)).collect(),
        violations: Vec::new(),
    };
    // Every tree asked for is a commit's, and the walk read each commit's: the fallback is
    // never taken.
    let sub = |tree: ObjectId| subtree.get(&tree).cloned().unwrap_or(Ok(None));
    let trees: HashMap<ObjectId, ObjectId> = commits.iter().map(|c| (c.id, c.tree)).collect();
    // Diffed newest first: git stores each version of the ledger's trees as a delta of the
    // next one, so with the delta cache every tree read costs one delta, not a whole chain.
    let mut changes = vec![Vec::new(); commits.len()];
    for (pos, c) in commits.iter().enumerate().rev() {
        let new = sub(c.tree)?;
        let old = match c.parents.first().and_then(|p| trees.get(p)) {
            Some(t) => sub(*t)?,
            None => None,
        };
        changes[pos] = diff_cached(repo, old, new, cache)?;
    }
    for ((pos, c), changed) in commits.iter().enumerate().zip(changes) {
        h.position.insert(c.id, pos);
        for ch in changed {
            let path = format!("{ledger_dir}/{}", git::display_path(ch.path.as_bstr()));
            match (&ch.new, h.added.get(&path)) {
                (Some((_, id)), None) => {
                    h.added.insert(path, (c.id, *id));
                }
                (Some((_, id)), Some((first, blob))) if id != blob => {
                    let kind =
                        if path.ends_with(".jsonl") && grows(repo, *blob, *id) { None } else { Some("modified") };
                    match kind {
                        Some(k) => h.violations.push((path.clone(), *first, c.id, k)),
                        None => {
                            let first = *first;
                            h.added.insert(path, (first, *id));
                        }
                    }
                }
                (None, Some((first, _))) => h.violations.push((path, *first, c.id, "deleted")),
                _ => {}
            }
        }
    }
    Ok(h)
}

/// `repo.diff(old, new)`, kept in the persistent cache: the changes between two trees are a
/// function of their ids, and a ledger's history is thousands of such pairs, each a tree of
/// every cycle directory to decode twice. The entry also lists the trees the diff read (the
/// two roots and every directory above a change, on either side): it is used only while the
/// repository still holds them all, since a diff computed today would fail without them.
fn diff_cached(
    repo: &Repo,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    cache: Option<&crate::cache::Cache>,
) -> Result<Vec<git::Change>, String> {
    if old == new {
        return Ok(Vec::new());
    }
    let id = |t: Option<ObjectId>| t.map(|i| i.to_string()).unwrap_or_default();
    let key = format!("tree-diff/{}..{}", id(old), id(new)).into_bytes();
    let compute = || -> Result<ReadDiff, String> {
        let changes = repo.diff(old, new).map_err(|e| e.to_string())?;
        let trees = trees_read(repo, old, new, &changes)?;
        Ok(ReadDiff { trees, changes })
    };
    let held = |d: &ReadDiff| d.trees.iter().all(|t| repo.has(*t));
    // A damaged storage neither reads nor writes the cache (`crate::manifest::sealed`).
    let cache = cache.filter(|c| crate::manifest::sealed(c, repo));
    crate::cache::through(cache, &key, decode_changes, encode_changes, held, compute).map(|d| d.changes)
}

/// A tree diff with the trees it was computed from.
#[derive(Debug, PartialEq)]
struct ReadDiff {
    trees: Vec<ObjectId>,
    changes: Vec<git::Change>,
}

/// The trees [`Repo::diff`] descends into for `changes`: the roots and, on each side, every
/// directory above a changed path (the diff reads only subtrees whose ids differ, and each such
/// subtree holds a change).
fn trees_read(
    repo: &Repo,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    changes: &[git::Change],
) -> Result<Vec<ObjectId>, String> {
    let mut dirs = std::collections::BTreeSet::new();
    for c in changes {
        let mut at = c.path.len();
        while let Some(slash) = c.path[..at].iter().rposition(|b| *b == b'/') {
            if !dirs.insert(c.path[..slash].to_vec()) {
                break;
            }
            at = slash;
        }
    }
    let mut trees: std::collections::BTreeSet<ObjectId> = old.into_iter().chain(new).collect();
    for root in old.into_iter().chain(new) {
        for dir in &dirs {
            if let Some(e) = repo.entry(root, dir.as_bstr()).map_err(|e| e.to_string())?
                && e.kind == EntryKind::Tree
            {
                trees.insert(e.id);
            }
        }
    }
    Ok(trees.into_iter().collect())
}

type Side = Option<(String, String)>;

/// The stored form: the trees read, then the changes.
type Stored = (Vec<String>, Vec<(Vec<u8>, Side, Side)>);

fn encode_changes(d: &ReadDiff) -> Vec<u8> {
    let side = |s: &Option<(EntryKind, ObjectId)>| -> Side { s.map(|(k, i)| (format!("{k:?}"), i.to_string())) };
    let rows: Vec<(&[u8], Side, Side)> =
        d.changes.iter().map(|c| (c.path.as_slice(), side(&c.old), side(&c.new))).collect();
    let trees: Vec<String> = d.trees.iter().map(ToString::to_string).collect();
    serde_json::to_vec(&(trees, rows)).unwrap_or_default()
}

/// Whether `data` reads as a stored tree diff (the fuzz target's entry point).
#[cfg(feature = "fuzzing")]
pub(crate) fn read_changes_payload(data: &[u8]) -> bool {
    decode_changes(data).is_some()
}

fn decode_changes(bytes: &[u8]) -> Option<ReadDiff> {
    let (trees, rows): Stored = serde_json::from_slice(bytes).ok()?;
    let trees = trees.iter().map(|t| ObjectId::from_hex(t.as_bytes()).ok()).collect::<Option<Vec<_>>>()?;
    let side = |s: Side| -> Option<Option<(EntryKind, ObjectId)>> {
        let Some((k, i)) = s else { return Some(None) };
        let kind = match k.as_str() {
            "File" => EntryKind::File,
            "Executable" => EntryKind::Executable,
            "Symlink" => EntryKind::Symlink,
            "Submodule" => EntryKind::Submodule,
            "Tree" => EntryKind::Tree,
            _ => return None,
        };
        Some(Some((kind, ObjectId::from_hex(i.as_bytes()).ok()?)))
    };
    let changes = rows
        .into_iter()
        .map(|(p, o, n)| Some(git::Change { path: p.into(), old: side(o)?, new: side(n)? }))
        .collect::<Option<Vec<_>>>()?;
    Some(ReadDiff { trees, changes })
}

/// The versions of `controller/state.json` along the audit history, oldest first; a version is
/// listed once, at the first commit (in topological order) that holds it.
pub(crate) fn state_history(
    repo: &Repo,
    history: &Result<History, String>,
) -> Vec<(ObjectId, Result<json::Value, String>)> {
    const PATH: &str = "controller/state.json";
    let Ok(h) = history else { return Vec::new() };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for &(commit, tree) in &h.commits {
        let Ok(Some(e)) = repo.entry(tree, PATH.into()) else { continue };
        if e.kind.is_file() && seen.insert(e.id) {
            out.push((commit, read_json(repo, e.id, PATH)));
        }
    }
    out
}

/// Whether the blob `new` starts with the whole of blob `old` (an append).
fn grows(repo: &Repo, old: ObjectId, new: ObjectId) -> bool {
    match (repo.blob(old), repo.blob(new)) {
        (Ok(a), Ok(b)) => b.starts_with(&a),
        _ => false,
    }
}

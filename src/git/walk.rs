//! Trees read through a [`Repo`]: every entry below a tree inside a scope, and the changes
//! between two trees, each with an explicit stack and git's own nesting limit.

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice, ByteVec};

use super::error::{Error, Result};
use super::repo::{Children, Repo};
use super::tree::{Change, EntryKind, Scope, TreeEntry};

/// Deepest tree nesting read, as git's default `core.maxTreeDepth`: deeper trees are refused
/// as corrupt rather than walked (their paths alone would grow quadratically).
pub const MAX_TREE_DEPTH: usize = 4096;

impl Repo {
    /// Every entry below `tree` inside `scope`, recursively, sorted by path bytes.
    ///
    /// # Errors
    /// Missing or corrupt trees.
    pub fn walk(&self, tree: ObjectId, scope: &Scope) -> Result<Vec<TreeEntry>> {
        let mut out = Vec::new();
        walk(self, tree, scope, &mut out)?;
        // Sorted already for trees git would write, which are the only ones decoded; a sort
        // of sorted input compares neighbours only.
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// The kind and id of every entry of the tree `id`, read into `buf` (reused across trees)
    /// and handed to `f` without building a name or a list: a pass over every tree of a history
    /// that needs only ids (is everything below still held?) would otherwise allocate a path
    /// per entry, millions of them on a large ledger.
    ///
    /// # Errors
    /// Missing or corrupt tree.
    pub fn tree_ids_into(&self, id: ObjectId, buf: &mut Vec<u8>, mut f: impl FnMut(EntryKind, ObjectId)) -> Result<()> {
        let data = self.object_into(id, gix::object::Kind::Tree, "tree", buf)?;
        for entry in gix::objs::TreeRefIter::from_bytes(data, self.object_hash()) {
            let e = entry.map_err(|e| self.corrupt(id, "tree", e))?;
            f(EntryKind::from_mode(e.mode), e.oid.to_owned());
        }
        Ok(())
    }

    /// Changes from `old` to `new` (trees), descending only into subtrees whose ids differ.
    ///
    /// # Errors
    /// Missing or corrupt trees.
    pub fn diff(&self, old: Option<ObjectId>, new: Option<ObjectId>) -> Result<Vec<Change>> {
        self.diff_within(old, new, &Scope::all())
    }

    /// [`Repo::diff`] limited to `scope`: a subtree that cannot hold a path of the scope is
    /// not read, so the cost follows the changes inside the scope, not the whole tree's.
    ///
    /// # Errors
    /// Missing or corrupt trees inside the scope.
    pub fn diff_within(&self, old: Option<ObjectId>, new: Option<ObjectId>, scope: &Scope) -> Result<Vec<Change>> {
        let mut out = Vec::new();
        diff(self, old, new, scope, &mut out)?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

fn join(base: &BString, name: &BStr) -> BString {
    // Sized once: a clone of `base` grown by the push reallocated for every entry walked.
    let mut p = BString::from(Vec::with_capacity(base.len() + 1 + name.len()));
    p.push_str(base);
    if !p.is_empty() {
        p.push_byte(b'/');
    }
    p.push_str(name);
    p
}

fn walk(repo: &Repo, tree: ObjectId, scope: &Scope, out: &mut Vec<TreeEntry>) -> Result<()> {
    // Depth first, each tree's entries in stored order, a subtree entered where it is met: git
    // stores `d` as `d/`, so this is the order of the paths' bytes, and the caller's sort
    // finds nothing to move (a stack popped last-in-first-out made it sort ten thousand paths
    // per receipt). Of two damaged subtrees, the error names the first in path order (the
    // last, before 377e50f). An explicit stack instead of recursion: a hostile tree cannot
    // exhaust the thread's stack.
    let mut stack = vec![(repo.tree_children(tree)?, 0usize, BString::default())];
    while let Some((children, next, base)) = stack.last_mut() {
        let Some((name, kind, child)) = children.get(*next) else {
            stack.pop();
            continue;
        };
        *next += 1;
        let (kind, child) = (*kind, *child);
        let path = join(base, name.as_bstr());
        if kind == EntryKind::Tree {
            if scope.may_contain(path.as_bstr()) {
                // The root is depth 0; this subtree is one deeper than the trees on the stack.
                if stack.len() > MAX_TREE_DEPTH {
                    return Err(too_deep(repo, child));
                }
                stack.push((repo.tree_children(child)?, 0, path));
            }
        } else if scope.contains(path.as_bstr()) {
            out.push(TreeEntry { path, kind, id: child });
        }
    }
    Ok(())
}

fn too_deep(repo: &Repo, id: ObjectId) -> Error {
    repo.corrupt(
        id,
        "tree",
        format!("trees nested deeper than {MAX_TREE_DEPTH} levels (git's default core.maxTreeDepth)"),
    )
}

fn diff(repo: &Repo, old: Option<ObjectId>, new: Option<ObjectId>, scope: &Scope, out: &mut Vec<Change>) -> Result<()> {
    let list = |t: Option<ObjectId>| -> Result<Children> {
        let Some(t) = t else { return Ok(Children::default()) };
        let v = repo.tree_children(t)?;
        // git orders a tree `d` as `d/`; a plain name order pairs `d` (file) with `d` (tree).
        // Most trees are in both orders, and are used as the cache holds them, uncopied.
        if v.is_sorted_by(|x, y| x.0 <= y.0) {
            return Ok(v);
        }
        let mut v = v.as_ref().clone();
        v.sort_by(|x, y| x.0.cmp(&y.0));
        Ok(Children::new(v))
    };
    let mut stack = vec![(old, new, BString::default(), 0usize)];
    while let Some((old, new, base, depth)) = stack.pop() {
        if old == new {
            continue;
        }
        if depth > MAX_TREE_DEPTH {
            return Err(too_deep(repo, new.or(old).expect("old != new, so one side is present")));
        }
        let a = list(old)?;
        let b = list(new)?;
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let ord = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x.0.cmp(&y.0),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, _) => std::cmp::Ordering::Greater,
            };
            let (left, right) = match ord {
                std::cmp::Ordering::Less => {
                    i += 1;
                    (Some(&a[i - 1]), None)
                }
                std::cmp::Ordering::Greater => {
                    j += 1;
                    (None, Some(&b[j - 1]))
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                    (Some(&a[i - 1]), Some(&b[j - 1]))
                }
            };
            let lt = left.filter(|e| e.1 == EntryKind::Tree).map(|e| e.2);
            let rt = right.filter(|e| e.1 == EntryKind::Tree).map(|e| e.2);
            let lf = left.filter(|e| e.1 != EntryKind::Tree).map(|e| (e.1, e.2));
            let rf = right.filter(|e| e.1 != EntryKind::Tree).map(|e| (e.1, e.2));
            if lf == rf && lt == rt {
                // Unchanged: no path is built for it (most entries of most trees compared).
                continue;
            }
            let path = join(&base, left.or(right).expect("one side is present").0.as_bstr());
            if lf != rf && scope.contains(path.as_bstr()) {
                out.push(Change { path: path.clone(), old: lf, new: rf });
            }
            if lt != rt && scope.may_contain(path.as_bstr()) {
                stack.push((lt, rt, path, depth + 1));
            }
        }
    }
    Ok(())
}

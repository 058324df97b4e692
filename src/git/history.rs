//! History: the commits reachable from a tip in a deterministic topological order, ancestry
//! and `last_change` (git log's history simplification), all aware of a shallow boundary.

use std::collections::{BTreeMap, HashSet};

use gix::ObjectId;

use super::error::{Error, Result};
use super::repo::{Commit, LastChangeMemo, Repo};
use super::tree::EntryKind;

impl Repo {
    /// All commits reachable from `tip`, parents before children (a topological order that
    /// breaks ties by commit time, then id, so it is deterministic).
    ///
    /// # Errors
    /// A missing commit (with the unshallow hint on shallow clones).
    pub fn history(&self, tip: ObjectId) -> Result<Vec<Commit>> {
        self.commits_from(tip, false)
    }

    /// [`Repo::history`] with each message cut to its subject line: a log read for subjects
    /// keeps a few bytes a commit, whatever the authors wrote below them (a hundred messages of
    /// 4 MiB held 504 MB).
    ///
    /// # Errors
    /// As [`Repo::history`].
    pub fn history_subjects(&self, tip: ObjectId) -> Result<Vec<Commit>> {
        self.commits_from(tip, true)
    }

    fn commits_from(&self, tip: ObjectId, subjects: bool) -> Result<Vec<Commit>> {
        let mut commits: Vec<Commit> = Vec::new();
        let mut at: Commits<usize> = Commits::default();
        let mut stack = vec![tip];
        let grafted: HashSet<ObjectId> = self.shallow.iter().flatten().copied().collect();
        while let Some(id) = stack.pop() {
            if at.contains_key(&id) {
                continue;
            }
            let mut c = self.commit(id)?;
            if subjects {
                let end = c.message.find('\n').map_or(c.message.len(), |i| i + 1);
                c.message.truncate(end);
                c.message.shrink_to_fit();
            }
            if grafted.contains(&id) {
                // git treats a grafted commit as a root; so do we, and callers that need the
                // whole history check `require_full_history` first.
                c.parents.clear();
            }
            stack.extend(c.parents.iter().copied());
            at.insert(id, commits.len());
            commits.push(c);
        }
        Ok(topo_sort(commits, &at))
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
}

/// Maps keyed by commit id, to small values. Hashed, not ordered: the order comes from the
/// ready set alone, never from iterating these.
type Commits<V> = gix::hashtable::HashMap<ObjectId, V>;

/// `commits` in topological order; `at` gives each one's index.
fn topo_sort(commits: Vec<Commit>, at: &Commits<usize>) -> Vec<Commit> {
    // Kahn's algorithm over counts of parents not yet taken; ready commits are taken in (time, id) order so the
    // result does not depend on hash-map iteration.
    let mut pending: Vec<usize> =
        commits.iter().map(|c| c.parents.iter().filter(|p| at.contains_key(*p)).count()).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); commits.len()];
    for (i, c) in commits.iter().enumerate() {
        for p in c.parents.iter().filter_map(|p| at.get(p)) {
            children[*p].push(i);
        }
    }
    let mut ready: BTreeMap<(i64, ObjectId), usize> = BTreeMap::new();
    for (i, c) in commits.iter().enumerate().filter(|(i, _)| pending[*i] == 0) {
        ready.insert((c.committer.time, c.id), i);
    }
    let mut slots: Vec<Option<Commit>> = commits.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    while let Some((_, i)) = ready.pop_first() {
        for &k in &children[i] {
            pending[k] -= 1;
            if pending[k] == 0
                && let Some(c) = &slots[k]
            {
                ready.insert((c.committer.time, c.id), k);
            }
        }
        out.extend(slots[i].take());
    }
    out
}

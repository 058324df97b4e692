use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice, ByteVec};

use super::{MAX_TREE_DEPTH, Repo, Result};

/// What a tree entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// A regular file (mode 100644).
    File,
    /// An executable regular file (mode 100755).
    Executable,
    /// A symbolic link (mode 120000).
    Symlink,
    /// A submodule (gitlink, mode 160000).
    Submodule,
    /// A directory.
    Tree,
}

impl EntryKind {
    pub(crate) fn from_mode(mode: gix::objs::tree::EntryMode) -> Self {
        use gix::objs::tree::EntryKind as K;
        match mode.kind() {
            K::Blob => EntryKind::File,
            K::BlobExecutable => EntryKind::Executable,
            K::Link => EntryKind::Symlink,
            K::Commit => EntryKind::Submodule,
            K::Tree => EntryKind::Tree,
        }
    }

    /// Regular file, executable or not.
    #[must_use]
    pub fn is_file(self) -> bool {
        matches!(self, EntryKind::File | EntryKind::Executable)
    }

    /// Name used in reports (`file`, `symlink`, …).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Executable => "executable",
            EntryKind::Symlink => "symlink",
            EntryKind::Submodule => "submodule",
            EntryKind::Tree => "tree",
        }
    }
}

/// A tracked entry with its full repository-relative path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    /// `/`-separated path, raw bytes (git paths need not be UTF-8).
    pub path: BString,
    /// Kind.
    pub kind: EntryKind,
    /// Object id (blob, tree or submodule commit).
    pub id: ObjectId,
}

/// One changed path between two trees (files only; directories are descended into).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Path.
    pub path: BString,
    /// Before, if it existed.
    pub old: Option<(EntryKind, ObjectId)>,
    /// After, if it exists.
    pub new: Option<(EntryKind, ObjectId)>,
}

/// Path prefixes a walk is limited to. A path is in scope when it equals a prefix or lies
/// below it as a directory (`git ls-tree -r <rev> -- <prefix>` semantics); no prefix means the
/// whole tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    prefixes: Vec<BString>,
}

impl Scope {
    /// The whole tree.
    #[must_use]
    pub fn all() -> Self {
        Scope::default()
    }

    /// Builds a scope from prefixes; leading `./`, leading and trailing `/` are ignored and an
    /// empty prefix means the whole tree.
    #[must_use]
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<str>>(prefixes: I) -> Self {
        let mut out: Vec<BString> = Vec::new();
        for p in prefixes {
            let p = p.as_ref().trim_start_matches("./").trim_matches('/');
            if p.is_empty() || p == "." {
                return Scope::all();
            }
            out.push(p.into());
        }
        out.sort();
        out.dedup();
        Scope { prefixes: out }
    }

    /// The normalised prefixes (empty for the whole tree).
    #[must_use]
    pub fn prefixes(&self) -> Vec<String> {
        self.prefixes.iter().map(|p| p.to_str_lossy().into_owned()).collect()
    }

    /// Whether `path` is inside the scope.
    #[must_use]
    pub fn contains(&self, path: &BStr) -> bool {
        self.prefixes.is_empty() || self.prefixes.iter().any(|p| under(path, p.as_bstr()))
    }

    /// Whether a directory at `dir` may hold in-scope paths.
    fn may_contain(&self, dir: &BStr) -> bool {
        self.prefixes.is_empty() || self.prefixes.iter().any(|p| under(dir, p.as_bstr()) || under(p.as_bstr(), dir))
    }
}

fn under(path: &BStr, prefix: &BStr) -> bool {
    path == prefix || (path.starts_with(prefix) && path.get(prefix.len()) == Some(&b'/'))
}

fn join(base: &BString, name: &BStr) -> BString {
    let mut p = base.clone();
    if !p.is_empty() {
        p.push_byte(b'/');
    }
    p.push_str(name);
    p
}

pub(super) fn walk(repo: &Repo, tree: ObjectId, scope: &Scope, out: &mut Vec<TreeEntry>) -> Result<()> {
    // An explicit stack instead of recursion: a hostile tree cannot exhaust the thread's stack.
    let mut stack = vec![(tree, BString::default(), 0usize)];
    while let Some((id, base, depth)) = stack.pop() {
        if depth > MAX_TREE_DEPTH {
            return Err(too_deep(repo, id));
        }
        for (name, kind, child) in repo.tree_children(id)? {
            let path = join(&base, name.as_bstr());
            if kind == EntryKind::Tree {
                if scope.may_contain(path.as_bstr()) {
                    stack.push((child, path, depth + 1));
                }
            } else if scope.contains(path.as_bstr()) {
                out.push(TreeEntry { path, kind, id: child });
            }
        }
    }
    Ok(())
}

fn too_deep(repo: &Repo, id: ObjectId) -> super::Error {
    repo.corrupt(
        id,
        "tree",
        format!("trees nested deeper than {MAX_TREE_DEPTH} levels (git's default core.maxTreeDepth)"),
    )
}

pub(super) fn diff(repo: &Repo, old: Option<ObjectId>, new: Option<ObjectId>, out: &mut Vec<Change>) -> Result<()> {
    let list = |t: Option<ObjectId>| -> Result<Vec<(BString, EntryKind, ObjectId)>> {
        let mut v = match t {
            Some(t) => repo.tree_children(t)?,
            None => Vec::new(),
        };
        // git orders a tree `d` as `d/`; a plain name order pairs `d` (file) with `d` (tree).
        v.sort_by(|x, y| x.0.cmp(&y.0));
        Ok(v)
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
            let name = left.or(right).expect("one side is present").0.as_bstr();
            let path = join(&base, name);
            let lt = left.filter(|e| e.1 == EntryKind::Tree).map(|e| e.2);
            let rt = right.filter(|e| e.1 == EntryKind::Tree).map(|e| e.2);
            let lf = left.filter(|e| e.1 != EntryKind::Tree).map(|e| (e.1, e.2));
            let rf = right.filter(|e| e.1 != EntryKind::Tree).map(|e| (e.1, e.2));
            if lf != rf {
                out.push(Change { path: path.clone(), old: lf, new: rf });
            }
            if lt != rt {
                stack.push((lt, rt, path, depth + 1));
            }
        }
    }
    Ok(())
}

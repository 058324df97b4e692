use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};

use super::quote::display_path;

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

/// Why the data of a tree object was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TreeError {
    /// Not parseable as a tree.
    #[error("{0}")]
    Parse(String),
    /// An entry git itself would never write (`git fsck` reports it).
    #[error("entry {name}: {problem}")]
    Entry {
        /// The name, as [`display_path`](super::display_path) shows it.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// Decodes the data of a tree object (without its `tree <size>\0` header) into
/// `(name, kind, id)` in stored order. Pure, so it can be fuzzed without a repository.
///
/// Trees git would not write are refused rather than guessed at, because each way of being
/// malformed makes two readers disagree about the files: a name with `/`, an empty name, `.`
/// or `..`, two entries with one name (a manifest keyed by path would silently keep one of
/// them), entries out of git's order (how duplicates hide), and a mode git does not write
/// (git reads an unknown mode as a blob, gix as a submodule).
///
/// # Errors
/// Data that is not a tree, or a tree git would not write.
pub fn decode_tree(data: &[u8], hash: gix::hash::Kind) -> Result<Vec<(BString, EntryKind, ObjectId)>, TreeError> {
    let tree = gix::objs::TreeRef::from_bytes(data, hash).map_err(|e| TreeError::Parse(e.to_string()))?;
    let bad = |name: &BStr, problem: String| TreeError::Entry { name: display_path(name), problem };
    // The names of the entries that are not trees. In git's order, the only repeated name
    // that gets past the order check is a tree `d` after a file `d` (the tree sorts as `d/`).
    let mut files = foldhash::HashSet::default();
    let mut spelt = raw_modes(data, hash.len_in_bytes());
    for (i, e) in tree.entries.iter().enumerate() {
        let name = e.filename;
        if name.is_empty() || name == "." || name == ".." || name.contains(&b'/') {
            return Err(bad(name, "not a valid file name (empty, `.`, `..` or containing `/`)".into()));
        }
        // 100664 is the one non-canonical mode git still accepts from old repositories, and
        // 040000 the zero-padded tree mode old tools wrote. The mode's bytes are compared, not
        // gix's reading of them: gix folds every mode whose type bits read 14 (`140000`,
        // `140644`) into a tree, which git reads as a submodule.
        let mode = spelt.next().unwrap_or_default();
        if !CANONICAL_MODES.contains(&mode) {
            return Err(bad(name, format!("mode {} is not one git writes", String::from_utf8_lossy(mode))));
        }
        if i > 0 && tree.entries[i - 1].cmp(e) != std::cmp::Ordering::Less {
            return Err(bad(name, "entries are out of git's order (or repeated)".into()));
        }
        if !e.mode.is_tree() {
            files.insert(name);
        } else if files.contains(name) {
            return Err(bad(name, "two entries have this name".into()));
        }
    }
    Ok(tree.entries.iter().map(|e| (e.filename.to_owned(), EntryKind::from_mode(e.mode), e.oid.to_owned())).collect())
}

/// git's order of a tree's entries: names compared byte by byte, a tree's name as if it ended
/// in `/` (git's `base_name_compare`).
#[must_use]
pub(super) fn git_order(a: &[u8], a_tree: bool, b: &[u8], b_tree: bool) -> std::cmp::Ordering {
    let common = a.len().min(b.len());
    a[..common].cmp(&b[..common]).then_with(|| {
        // Past the shorter name: `None` (its end) sorts before any byte, as git's NUL does.
        let next = |name: &[u8], tree: bool| name.get(common).copied().or(tree.then_some(b'/'));
        next(a, a_tree).cmp(&next(b, b_tree))
    })
}

/// The kind and id of the entry named `name` among `children`, the entries of a tree
/// [`decode_tree`] accepted: in git's order, each name once. A binary search for each of the
/// two places the name can sort at: a ledger's directory of cycles has thousands of entries,
/// and the history looks one up in every version of it.
#[must_use]
pub(super) fn find_child(children: &[(BString, EntryKind, ObjectId)], name: &[u8]) -> Option<(EntryKind, ObjectId)> {
    [false, true].into_iter().find_map(|tree| {
        let at = children.binary_search_by(|(n, k, _)| git_order(n, *k == EntryKind::Tree, name, tree)).ok()?;
        children.get(at).map(|(_, k, id)| (*k, *id))
    })
}

/// The modes git writes in a tree, byte for byte.
const CANONICAL_MODES: [&[u8]; 7] = [b"100644", b"100755", b"100664", b"120000", b"160000", b"40000", b"040000"];

/// The mode bytes of each entry of tree data that gix has already parsed (`<mode> <name>\0<id>`).
fn raw_modes(data: &[u8], id_len: usize) -> impl Iterator<Item = &[u8]> {
    let mut rest = data;
    std::iter::from_fn(move || {
        let space = rest.iter().position(|b| *b == b' ')?;
        let nul = space + rest.get(space..)?.iter().position(|b| *b == 0)?;
        let mode = rest.get(..space)?;
        rest = rest.get(nul + 1 + id_len..)?;
        Some(mode)
    })
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
    pub(super) fn may_contain(&self, dir: &BStr) -> bool {
        self.prefixes.is_empty() || self.prefixes.iter().any(|p| under(dir, p.as_bstr()) || under(p.as_bstr(), dir))
    }
}

fn under(path: &BStr, prefix: &BStr) -> bool {
    path == prefix || (path.starts_with(prefix) && path.get(prefix.len()) == Some(&b'/'))
}

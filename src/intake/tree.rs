//! What a received tree holds: git repositories (work trees with `.git`, bare repositories),
//! bundles and archives, found without following a symlink; and the two ways a tree can hold
//! files without the history that proves them: no `.git` at all (a release download), or a
//! shallow or partial clone.

use std::path::{Path, PathBuf};

use super::archive::{Kind, kind_of};

/// Directories deeper than this below the root are not searched.
pub const MAX_DEPTH: usize = 8;

/// A git repository found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundRepo {
    /// Its directory (the work tree, or the bare repository).
    pub path: PathBuf,
    /// Its path below the root, `/`-separated (`.` for the root itself).
    pub rel: String,
    /// What it lacks, when it is not a complete clone.
    pub incomplete: Option<Incomplete>,
}

/// Why a repository cannot prove its records from its own objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incomplete {
    /// A shallow clone: its history stops at a boundary.
    Shallow,
    /// A partial clone: objects were left on a promisor remote.
    Partial,
    /// A linked work tree or submodule: `.git` is a file naming a directory elsewhere.
    GitFile,
}

impl Incomplete {
    /// In words.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Incomplete::Shallow => "a shallow clone (its history stops at a boundary)",
            Incomplete::Partial => "a partial clone (objects were left on the remote it was cloned from)",
            Incomplete::GitFile => "a linked work tree or submodule (`.git` is a file naming a directory elsewhere)",
        }
    }
}

/// What the tree holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// Git repositories, by path.
    pub repos: Vec<FoundRepo>,
    /// Files that are git bundles or archives, with their kind.
    pub packed: Vec<(PathBuf, Kind)>,
    /// Every directory searched, below the root (`/`-separated), outside repositories' `.git`.
    pub dirs: Vec<String>,
    /// Regular files seen outside `.git` directories.
    pub files: u64,
    /// Regular files named `*.toml` or `*.json` outside `.git` directories (claims files,
    /// trust stores, receipt bundles), at most [`MAX_NAMED`].
    pub named: Vec<PathBuf>,
}

/// The most `*.toml` and `*.json` files listed.
pub const MAX_NAMED: usize = 10_000;

/// Searches `root` (at most [`MAX_DEPTH`] levels, symlinks not followed, a repository's
/// `.git` not entered, a bare repository not entered).
#[must_use]
pub fn search(root: &Path) -> Found {
    let mut found = Found::default();
    visit(root, root, 0, &mut found);
    found.repos.sort_by(|a, b| a.rel.cmp(&b.rel));
    found.packed.sort();
    found.dirs.sort();
    found.named.sort();
    found
}

fn rel_of(root: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if parts.is_empty() { ".".to_owned() } else { parts.join("/") }
}

fn visit(root: &Path, dir: &Path, depth: usize, found: &mut Found) {
    let rel = rel_of(root, dir);
    if is_bare(dir) {
        found.repos.push(FoundRepo { incomplete: incomplete(dir), path: dir.to_owned(), rel });
        return;
    }
    let git = dir.join(".git");
    match std::fs::symlink_metadata(&git) {
        Ok(m) if m.is_dir() => {
            found.repos.push(FoundRepo { incomplete: incomplete(&git), path: dir.to_owned(), rel: rel.clone() });
        }
        Ok(m) if m.is_file() => found.repos.push(FoundRepo {
            incomplete: Some(Incomplete::GitFile),
            path: dir.to_owned(),
            rel: rel.clone(),
        }),
        _ => {}
    }
    found.dirs.push(rel);
    let Ok(read) = std::fs::read_dir(dir) else { return };
    let mut children: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    children.sort();
    for child in children {
        if child.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&child) else { continue };
        if meta.is_dir() && depth < MAX_DEPTH {
            visit(root, &child, depth + 1, found);
        } else if meta.is_file() {
            found.files += 1;
            let ext = child.extension().and_then(|e| e.to_str()).unwrap_or_default();
            if matches!(ext, "toml" | "json") && found.named.len() < MAX_NAMED {
                found.named.push(child.clone());
            }
            if let Ok(Some(kind)) = kind_of(&child) {
                found.packed.push((child, kind));
            }
        }
    }
}

/// A bare repository: `HEAD`, `objects/` and `refs/` side by side.
fn is_bare(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// What the git directory `gitdir` lacks: a `shallow` file, or a promisor remote.
fn incomplete(gitdir: &Path) -> Option<Incomplete> {
    if gitdir.join("shallow").is_file() {
        return Some(Incomplete::Shallow);
    }
    let config = crate::files::read_capped(&gitdir.join("config"), 1 << 20).unwrap_or_default();
    let config = String::from_utf8_lossy(&config).to_ascii_lowercase();
    let promisor_pack = std::fs::read_dir(gitdir.join("objects/pack"))
        .map(|d| d.filter_map(Result::ok).any(|e| e.path().extension().is_some_and(|x| x == "promisor")))
        .unwrap_or(false);
    let partial = config.contains("partialclone") || config.replace(' ', "").contains("promisor=true");
    (partial || promisor_pack).then_some(Incomplete::Partial)
}

/// The work trees a tree that holds files but no repository (a release download) is made of:
/// below any chain of single wrapping directories, each directory is one repository's work
/// tree; a level holding files is one work tree itself (named by its directory, `None` for
/// the root).
#[must_use]
pub fn working_trees(root: &Path) -> Vec<Option<String>> {
    let mut dir = root.to_owned();
    loop {
        let Ok(read) = std::fs::read_dir(&dir) else { return Vec::new() };
        let (mut dirs, mut files) = (Vec::new(), 0);
        for e in read.filter_map(Result::ok) {
            match e.file_type() {
                Ok(t) if t.is_dir() => dirs.extend(e.file_name().to_str().map(str::to_owned)),
                Ok(_) => files += 1,
                Err(_) => {}
            }
        }
        dirs.sort();
        let name = (dir != root).then(|| dir.file_name().map(|n| n.to_string_lossy().into_owned())).flatten();
        match (dirs.as_slice(), files) {
            ([one], 0) => dir = dir.join(one),
            (_, 0) if !dirs.is_empty() => return dirs.into_iter().map(Some).collect(),
            _ => return vec![name],
        }
    }
}

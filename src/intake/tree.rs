//! What a received tree holds: git repositories (work trees with `.git`, bare repositories),
//! bundles and archives, found without following a symlink; and the two ways a tree can hold
//! files without the history that proves them: no `.git` at all (a release download), or a
//! shallow or partial clone.

use std::path::{Path, PathBuf};

use super::archive::{Kind, kind_of};
pub use super::refusal::Incomplete;

/// A git repository found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundRepo {
    /// Its directory (the work tree, or the bare repository), exactly as on disk.
    pub path: PathBuf,
    /// Its path below the root as shown, `/`-separated (`.` for the root itself), with any
    /// byte of a name that is not UTF-8 escaped (`\xff`), so two names never read alike.
    pub rel: String,
    /// What it lacks, when it is not a complete clone.
    pub incomplete: Option<Incomplete>,
}

/// What the tree holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// Git repositories, by path.
    pub repos: Vec<FoundRepo>,
    /// Files that are git bundles or archives, with their kind.
    pub packed: Vec<(PathBuf, Kind)>,
    /// Every directory searched (the root included), exactly as on disk, outside
    /// repositories' `.git`.
    pub dirs: Vec<PathBuf>,
    /// Regular files seen outside `.git` directories.
    pub files: u64,
    /// Regular files whose names say they are claims files (`*claims*.toml`) or trust stores
    /// (`*trust*store*.json`), outside `.git` directories.
    pub named: Vec<PathBuf>,
    /// The first directory found deeper than the depth searched, when one is: what lies below
    /// it was not searched, so the caller must refuse rather than verify part of the tree.
    pub too_deep: Option<PathBuf>,
    /// Symlinks outside `.git` directories (not followed): the caller decides where each may lead.
    pub links: Vec<PathBuf>,
}

/// Searches `root` (at most `max_depth` levels, symlinks not followed, a repository's `.git`
/// not entered, a bare repository not entered).
#[must_use]
pub fn search(root: &Path, max_depth: u64) -> Found {
    let mut found = Found::default();
    visit(root, root, 0, max_depth, &mut found);
    found.repos.sort_by(|a, b| a.rel.cmp(&b.rel));
    found.packed.sort();
    found.dirs.sort();
    found.named.sort();
    found.links.sort();
    found
}

/// `rel` below `root`, `/`-separated, non-UTF-8 bytes escaped.
#[must_use]
pub fn shown_rel(root: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    let parts: Vec<String> = rel.components().map(|c| shown_name(c.as_os_str())).collect();
    if parts.is_empty() { ".".to_owned() } else { parts.join("/") }
}

/// Names only a repository's root holds: a level holding one is a work tree, not a wrapper.
const ROOT_MARKS: [&str; 4] = [".gitignore", ".gitattributes", ".gitmodules", ".github"];

/// A file a release's wrapper directory holds beside the trees it wraps.
fn is_documentation(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["readme", "license", "licence", "copying", "notice", "changelog", "citation", "authors"]
        .iter()
        .any(|p| lower.starts_with(p))
        || [".md", ".txt", ".rst", ".pdf", ".html"].iter().any(|x| lower.ends_with(x))
}

/// Directories beside the repositories found that hold something but are no repository and
/// hold none: a working tree whose `.git` was left out (an audit repository copied as a
/// folder beside its science clone), for the message that names it.
#[must_use]
pub fn trees_beside(found: &Found) -> Vec<PathBuf> {
    use std::collections::BTreeSet;
    // Every repository and every directory above one: a directory among them holds a
    // repository and is no lost work tree. Built once, so that the cost follows the number of
    // repositories and their depth, not its square (a thousand empty repositories took 50 s).
    let mut holding: BTreeSet<&Path> = BTreeSet::new();
    for r in &found.repos {
        holding.extend(r.path.ancestors());
    }
    // Only beside repositories at the top of the tree: a folder inside another repository's
    // work tree is part of that repository.
    let repos: BTreeSet<&Path> = found.repos.iter().map(|r| r.path.as_path()).collect();
    let top = found.repos.iter().filter(|r| r.rel != "." && !r.path.ancestors().skip(1).any(|a| repos.contains(a)));
    let parents: BTreeSet<&Path> = top.filter_map(|r| r.path.parent()).collect();
    let mut out = Vec::new();
    for parent in parents {
        let Ok(read) = std::fs::read_dir(parent) else { continue };
        for e in read.filter_map(Result::ok) {
            let p = e.path();
            let name = e.file_name();
            // Dot-directories (`.idea`, `.vscode`) and an archiver's `__MACOSX` are no
            // repositories; a symlink is not followed: the file type is the entry's own.
            if name.as_encoded_bytes().starts_with(b".") || name == "__MACOSX" {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir())
                && !holding.contains(p.as_path())
                && std::fs::read_dir(&p).is_ok_and(|mut d| d.next().is_some())
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A file name as text: UTF-8 as it is but a backslash doubled, any other byte as `\xNN`.
#[must_use]
pub fn shown_name(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let mut out = String::new();
        for chunk in name.as_bytes().utf8_chunks() {
            // A backslash is doubled, so the text `\xff` and the byte 0xff never read alike; a
            // control character is escaped too, so that no name moves the terminal's cursor or
            // ends a one-line message.
            for c in chunk.valid().chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
                    c => out.push(c),
                }
            }
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
        out
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned()
    }
}

/// Whether a file's name says it is a claims file or a trust store.
#[must_use]
pub fn is_named(path: &Path) -> bool {
    let name = path.file_name().map(shown_name).unwrap_or_default().to_ascii_lowercase();
    (name.ends_with(".toml") && name.contains("claims"))
        || (name.ends_with(".json") && name.contains("trust") && name.contains("store"))
}

/// The names git keeps in a git directory: a bare repository's own, never searched for records.
const GIT_NAMES: &[&str] =
    &["objects", "refs", "logs", "info", "hooks", "branches", "worktrees", "modules", "lfs", "rr-cache", "reftable"];

fn visit(root: &Path, dir: &Path, depth: u64, max_depth: u64, found: &mut Found) {
    let rel = shown_rel(root, dir);
    let git = dir.join(".git");
    // A work tree first: one that tracks files named `HEAD`, `objects` and `refs` is no bare
    // repository, and what is nested in it must still be found.
    let bare = match std::fs::symlink_metadata(&git) {
        Ok(m) if m.is_dir() => {
            found.repos.push(FoundRepo { incomplete: incomplete(&git), path: dir.to_owned(), rel });
            false
        }
        Ok(m) if m.is_file() || m.is_symlink() => {
            found.repos.push(FoundRepo { incomplete: Some(Incomplete::GitFile), path: dir.to_owned(), rel });
            false
        }
        _ if is_bare(dir) => {
            found.repos.push(FoundRepo { incomplete: incomplete(dir), path: dir.to_owned(), rel });
            true
        }
        _ => false,
    };
    if !bare {
        found.dirs.push(dir.to_owned());
    }
    let Ok(read) = std::fs::read_dir(dir) else { return };
    let mut children: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    children.sort();
    for child in children {
        let name = child.file_name().unwrap_or_default();
        // A bare repository's own directories are git's; anything else in it is searched,
        // since a repository or record placed there would otherwise drop out unseen.
        if name == ".git" || (bare && GIT_NAMES.iter().any(|g| name == *g)) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&child) else { continue };
        if meta.is_symlink() {
            found.links.push(child);
        } else if meta.is_dir() {
            if depth < max_depth {
                visit(root, &child, depth + 1, max_depth, found);
            } else if found.too_deep.is_none() {
                found.too_deep = Some(child);
            }
        } else if meta.is_file() && !bare {
            found.files += 1;
            if is_named(&child) {
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
    // A linked work tree's shallow file is its common directory's (gix reads it there).
    let common = crate::files::read_capped(&gitdir.join("commondir"), 1 << 16)
        .ok()
        .map(|t| gitdir.join(String::from_utf8_lossy(&t).trim()));
    if gitdir.join("shallow").exists() || common.is_some_and(|c| c.join("shallow").exists()) {
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
/// the root), unless its files are only a wrapper's documentation (a README beside
/// `science/` and `audit/`) and nothing marks it as a repository's root (`.gitignore`,
/// `.gitattributes`, `.gitmodules`, `.github`): then each directory is one.
#[must_use]
pub fn working_trees(root: &Path) -> Vec<Option<String>> {
    let mut dir = root.to_owned();
    loop {
        let Ok(read) = std::fs::read_dir(&dir) else { return Vec::new() };
        let (mut dirs, mut files, mut wrapper) = (Vec::new(), 0, true);
        for e in read.filter_map(Result::ok) {
            let name = e.file_name();
            if ROOT_MARKS.iter().any(|m| name.as_encoded_bytes() == m.as_bytes()) {
                wrapper = false;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => dirs.push(shown_name(&name)),
                Ok(_) => {
                    files += 1;
                    wrapper &= is_documentation(&name.to_string_lossy());
                }
                Err(_) => {}
            }
        }
        dirs.sort();
        let name = (dir != root).then(|| dir.file_name().map(shown_name)).flatten();
        match (dirs.as_slice(), files) {
            (_, 1..) if wrapper && dirs.len() > 1 => return dirs.into_iter().map(Some).collect(),
            ([_], 0) => {
                let Some(only) = std::fs::read_dir(&dir).ok().and_then(|r| r.filter_map(Result::ok).next()) else {
                    return Vec::new();
                };
                dir = only.path();
            }
            (_, 0) if !dirs.is_empty() => return dirs.into_iter().map(Some).collect(),
            _ => return vec![name],
        }
    }
}

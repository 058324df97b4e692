//! Finding and reading the cycle directories of a deployed ledger, from a plain directory or
//! from git objects at a revision.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::model::{
    AUDIT_RESULT, DeployedCycle, DeployedLedger, Origin, REPORT_MANIFEST, RUN_METADATA, Record, parse_audit_result,
    parse_report_manifest, parse_run_metadata,
};
use crate::git::{self, EntryKind, ObjectId, Repo};
use crate::progress::{Ctx, Interrupted};

/// Why a ledger could not be read at all (per-record problems are not errors: they are kept in
/// the ledger as [`Record::Malformed`] and reported by the checks).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The path does not exist.
    #[error("{0}: not found")]
    NotFound(PathBuf),
    /// The path is a file, or something else that is not a directory.
    #[error("{0}: is a file, not a directory: a ledger is a repository or a directory of cycles")]
    NotADirectory(PathBuf),
    /// Git access failed.
    #[error(transparent)]
    Git(#[from] git::Error),
    /// A directory could not be listed.
    #[error("{path}: {reason}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// Nothing shaped like a deployed ledger.
    #[error("{0}: no deployed-ledger cycle directories (expected projects/<p>/cycles/CYCLE-NNNNNN/ or CYCLE-NNNNNN/)")]
    NoCycles(PathBuf),
    /// `--rev` was given for a directory that is not a repository.
    #[error("{0}: a revision was given, but this is a plain directory, not a git repository")]
    RevisionOnDirectory(PathBuf),
    /// The caller interrupted.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// Whether `path` is a git repository (work tree, `.git` directory or bare) rather than a
/// plain directory. A path that looks like a repository but does not open is an error.
///
/// # Errors
/// [`git::Error::Open`] for a damaged repository.
pub fn is_repository(path: &Path) -> Result<bool, git::Error> {
    let looks = path.join(".git").exists() || (path.join("HEAD").is_file() && path.join("objects").is_dir());
    if !looks {
        return Ok(false);
    }
    Repo::open(path).map(|_| true)
}

/// Reads a deployed ledger from `path`: from git objects at `rev` (default `HEAD`) when it is
/// a repository, else from the directory as it is on disk. `path` may be a ledger root (holding
/// `projects/<p>/cycles/CYCLE-*` or bare `CYCLE-*` directories), a `cycles/` directory, or a
/// single `CYCLE-*` directory.
///
/// # Errors
/// See [`LoadError`]; a ledger with no cycle directory is [`LoadError::NoCycles`].
pub fn load(path: &Path, rev: Option<&str>, ctx: Ctx<'_>) -> Result<DeployedLedger, LoadError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Err(LoadError::NotFound(path.to_owned()));
    }
    if !path.is_dir() {
        return Err(LoadError::NotADirectory(path.to_owned()));
    }
    if is_repository(path)? {
        let repo = Repo::open(path)?;
        let commit = repo.resolve(rev.unwrap_or("HEAD"))?;
        return load_git(&repo, commit, ctx);
    }
    if rev.is_some() {
        return Err(LoadError::RevisionOnDirectory(path.to_owned()));
    }
    load_dir(path, ctx)
}

/// Reads a deployed ledger from a plain directory.
///
/// # Errors
/// See [`LoadError`].
pub fn load_dir(root: &Path, ctx: Ctx<'_>) -> Result<DeployedLedger, LoadError> {
    let src = Source::Dir(root.to_owned());
    let origin = Origin::Directory { root: root.to_owned() };
    // A single cycle directory named directly is a ledger of one.
    let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if is_cycle_name(&name) && src.list("")?.iter().any(|(n, k)| n == AUDIT_RESULT && k.is_file()) {
        let parent = root.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let psrc = Source::Dir(parent);
        let cycles = read_cycles(&psrc, vec![(None, name.clone(), name)], ctx)?;
        return Ok(DeployedLedger { origin, cycles });
    }
    finish(root, origin, &src, ctx)
}

/// Reads a deployed ledger from git objects at `commit`.
///
/// # Errors
/// See [`LoadError`].
pub fn load_git(repo: &Repo, commit: ObjectId, ctx: Ctx<'_>) -> Result<DeployedLedger, LoadError> {
    let tree = repo.commit(commit)?.tree;
    let src = Source::Git(repo, tree);
    let origin = Origin::Git { repo: repo.path().to_owned(), commit };
    finish(repo.path(), origin, &src, ctx)
}

/// Paths of the deployed `CYCLE-*` directories at `commit`, without reading them: auto-detection
/// must know every layout a ledger holds before it picks one (a copied-in deployed folder must
/// not switch a tampered receipt ledger to the receipt-less deployed checks).
///
/// # Errors
/// When the tree cannot be read.
pub fn cycle_dirs_git(repo: &Repo, commit: ObjectId) -> Result<Vec<String>, LoadError> {
    let tree = repo.commit(commit)?.tree;
    Ok(discover(&Source::Git(repo, tree))?.into_iter().map(|d| d.2).collect())
}

fn finish(root: &Path, origin: Origin, src: &Source<'_>, ctx: Ctx<'_>) -> Result<DeployedLedger, LoadError> {
    let dirs = discover(src)?;
    if dirs.is_empty() {
        return Err(LoadError::NoCycles(root.to_owned()));
    }
    let cycles = read_cycles(src, dirs, ctx)?;
    Ok(DeployedLedger { origin, cycles })
}

fn is_cycle_name(name: &str) -> bool {
    name.starts_with("CYCLE-")
}

/// `NNNNNN` of `CYCLE-NNNNNN`.
#[must_use]
pub fn cycle_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("CYCLE-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// (project, directory name, path) of every cycle directory, sorted by path.
fn discover(src: &Source<'_>) -> Result<Vec<(Option<String>, String, String)>, LoadError> {
    let mut out = Vec::new();
    let cycles_in = |dir: &str, project: Option<&str>, out: &mut Vec<_>| -> Result<(), LoadError> {
        for (name, kind) in src.list(dir)? {
            if kind == EntryKind::Tree && is_cycle_name(&name) {
                let path = if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") };
                out.push((project.map(str::to_owned), name, path));
            }
        }
        Ok(())
    };
    let top = src.list("")?;
    cycles_in("", None, &mut out)?;
    if top.iter().any(|(n, k)| n == "cycles" && *k == EntryKind::Tree) {
        cycles_in("cycles", None, &mut out)?;
    }
    if top.iter().any(|(n, k)| n == "projects" && *k == EntryKind::Tree) {
        for (project, kind) in src.list("projects")? {
            if kind != EntryKind::Tree {
                continue;
            }
            let pdir = format!("projects/{project}");
            if src.list(&pdir)?.iter().any(|(n, k)| n == "cycles" && *k == EntryKind::Tree) {
                cycles_in(&format!("{pdir}/cycles"), Some(&project), &mut out)?;
            }
        }
    }
    out.sort_by(|a, b| a.2.cmp(&b.2));
    Ok(out)
}

fn read_cycles(
    src: &Source<'_>,
    dirs: Vec<(Option<String>, String, String)>,
    ctx: Ctx<'_>,
) -> Result<Vec<DeployedCycle>, LoadError> {
    let names: BTreeSet<&str> = dirs.iter().map(|d| d.1.as_str()).collect();
    let unique = names.len() == dirs.len();
    ctx.progress.start("reading cycles", dirs.len() as u64);
    let mut cycles = Vec::with_capacity(dirs.len());
    for (project, dir, path) in &dirs {
        ctx.check()?;
        let mut files = BTreeMap::new();
        let mut unreadable = BTreeMap::new();
        for (name, kind) in src.list(path)? {
            if kind == EntryKind::Tree {
                continue;
            }
            if !kind.is_file() {
                unreadable.insert(name, format!("{}, not a regular file", kind.as_str()));
                continue;
            }
            match src.read(&format!("{path}/{name}")) {
                Ok(bytes) => {
                    files.insert(name, bytes);
                }
                Err(reason) => {
                    unreadable.insert(name, reason);
                }
            }
        }
        let record = |name: &str| -> Record<&[u8]> {
            match (files.get(name), unreadable.get(name)) {
                (Some(b), _) => Record::Ok(b.as_slice()),
                (None, Some(reason)) => Record::Malformed(format!("unreadable: {reason}")),
                (None, None) => Record::Missing,
            }
        };
        let result = match record(AUDIT_RESULT) {
            Record::Ok(b) => parse_audit_result(b).map_or_else(Record::Malformed, Record::Ok),
            Record::Malformed(m) => Record::Malformed(m),
            Record::Missing => Record::Missing,
        };
        let metadata = match record(RUN_METADATA) {
            Record::Ok(b) => parse_run_metadata(b).map_or_else(Record::Malformed, Record::Ok),
            Record::Malformed(m) => Record::Malformed(m),
            Record::Missing => Record::Missing,
        };
        let manifest = match record(REPORT_MANIFEST) {
            Record::Ok(b) => parse_report_manifest(b).map_or_else(Record::Malformed, Record::Ok),
            Record::Malformed(m) => Record::Malformed(m),
            Record::Missing => Record::Missing,
        };
        cycles.push(DeployedCycle {
            project: project.clone(),
            dir: dir.clone(),
            path: path.clone(),
            label: if unique { dir.clone() } else { path.clone() },
            number: cycle_number(dir),
            files,
            unreadable,
            result,
            metadata,
            manifest,
        });
        ctx.progress.advance(1);
    }
    ctx.progress.finish();
    Ok(cycles)
}

/// A tree to read from: a directory on disk or a git tree.
enum Source<'a> {
    Dir(PathBuf),
    Git(&'a Repo, ObjectId),
}

impl Source<'_> {
    /// Children of `dir` (relative, `/`-separated; `""` is the root): name and kind. Names that
    /// are not UTF-8 cannot be cycle directories or record files and are skipped.
    fn list(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, LoadError> {
        match self {
            Source::Dir(root) => {
                let path = if dir.is_empty() { root.clone() } else { root.join(dir) };
                let rd = std::fs::read_dir(&path)
                    .map_err(|e| LoadError::Io { path: path.clone(), reason: e.to_string() })?;
                let mut out = Vec::new();
                for entry in rd {
                    let entry = entry.map_err(|e| LoadError::Io { path: path.clone(), reason: e.to_string() })?;
                    let Ok(name) = entry.file_name().into_string() else { continue };
                    let ft =
                        entry.file_type().map_err(|e| LoadError::Io { path: path.clone(), reason: e.to_string() })?;
                    let kind = if ft.is_dir() {
                        EntryKind::Tree
                    } else if ft.is_symlink() {
                        EntryKind::Symlink
                    } else {
                        EntryKind::File
                    };
                    out.push((name, kind));
                }
                out.sort();
                Ok(out)
            }
            Source::Git(repo, tree) => {
                let id = if dir.is_empty() {
                    *tree
                } else {
                    match repo.entry(*tree, dir.into())? {
                        Some(e) if e.kind == EntryKind::Tree => e.id,
                        _ => return Ok(Vec::new()),
                    }
                };
                Ok(repo
                    .tree_children(id)?
                    .iter()
                    .filter_map(|(name, kind, _)| String::from_utf8(name.to_vec()).ok().map(|n| (n, *kind)))
                    .collect())
            }
        }
    }

    /// The bytes of a record file, refused above [`git::MAX_RECORD_BYTES`].
    fn read(&self, file: &str) -> Result<Vec<u8>, String> {
        match self {
            Source::Dir(root) => {
                let path = root.join(file);
                let size = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
                if size > git::MAX_RECORD_BYTES {
                    return Err(format!("{size} bytes, more than the {}-byte record limit", git::MAX_RECORD_BYTES));
                }
                std::fs::read(&path).map_err(|e| e.to_string())
            }
            Source::Git(repo, tree) => match repo.entry(*tree, file.into()) {
                Ok(Some(e)) => repo.record(e.id, file).map_err(|e| e.to_string()),
                Ok(None) => Err("not in the tree".into()),
                Err(e) => Err(e.to_string()),
            },
        }
    }
}

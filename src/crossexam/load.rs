//! Reading a `_Msg/` directory: the bus, `task.md`, envelopes, cursors, the synthesis and lock
//! leftovers, refusing what a verifier must not follow (symlinks, huge files).

use std::path::{Path, PathBuf};

use crate::git::MAX_RECORD_BYTES;

/// Why a transcript could not be read at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory crossverify must read is missing, a symlink, too large or unreadable.
    #[error("{}: {reason}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Reading the bus's git history failed.
    #[error("git history of {}: {source}", path.display())]
    Git {
        /// The bus.
        path: PathBuf,
        /// The git error.
        source: crate::git::Error,
    },
}

/// A side file: its bytes, or why it could not be read.
pub type Side = Result<Vec<u8>, String>;

/// What a `_Msg/` directory holds, as read.
#[derive(Debug)]
pub struct Arena {
    /// The `_Msg/` directory.
    pub dir: PathBuf,
    /// `bus.jsonl`.
    pub bus: Vec<u8>,
    /// `task.md`, `None` when absent.
    pub task: Option<Side>,
    /// `.sealed/<stem>.jsonl`, by stem.
    pub sealed: Vec<(String, Side)>,
    /// `.seen/<name>`, by name.
    pub seen: Vec<(String, Side)>,
    /// `synthesis.md`, `None` when absent.
    pub synthesis: Option<Side>,
    /// `*.lock` entries that are directories, relative to `_Msg/`.
    pub lock_dirs: Vec<String>,
}

/// Reads a regular file that is not a symlink and not above the record limit.
pub(crate) fn read_regular(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
    if meta.file_type().is_symlink() {
        return Err("is a symbolic link; crossverify does not follow links out of a transcript".into());
    }
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > MAX_RECORD_BYTES {
        return Err(format!("is {} bytes, above the {MAX_RECORD_BYTES} byte limit", meta.len()));
    }
    // The limit holds for what is read, not only for what the size said: a file that grows
    // between the two is refused.
    let max = usize::try_from(MAX_RECORD_BYTES).unwrap_or(usize::MAX);
    crate::files::read_capped(path, max).map_err(|e| match e {
        crate::files::ReadError::TooLarge(_) => {
            format!("grew past the {MAX_RECORD_BYTES} byte limit while it was read")
        }
        crate::files::ReadError::Io(e) => e.to_string(),
    })
}

fn optional(path: &Path) -> Option<Side> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        _ => Some(read_regular(path)),
    }
}

/// Entries of `dir` (sorted by name; names that are not UTF-8 are kept lossily and marked
/// unreadable by the caller), empty when it does not exist.
fn entries(dir: &Path) -> Vec<(String, PathBuf, bool)> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(String, PathBuf, bool)> = rd
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name();
            let utf8 = name.to_str().is_some();
            (name.to_string_lossy().into_owned(), e.path(), utf8)
        })
        .collect();
    out.sort();
    out
}

fn side_files(dir: &Path, keep: impl Fn(&str) -> Option<String>) -> Vec<(String, Side)> {
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        // Its files could be anywhere; the rules that need them cannot tell.
        return vec![("*".to_owned(), Err("is in a directory that is a symbolic link (not followed)".to_owned()))];
    }
    let mut out = Vec::new();
    for (name, path, utf8) in entries(dir) {
        let Some(key) = keep(&name) else { continue };
        let is_lock_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if is_lock_dir && name.ends_with(".lock") {
            continue;
        }
        let side = if utf8 { read_regular(&path) } else { Err("file name is not UTF-8".into()) };
        out.push((key, side));
    }
    out
}

/// Reads `dir` (the `_Msg/` directory).
///
/// # Errors
/// [`Error::Input`] when `dir` is not a directory or `bus.jsonl` cannot be read.
pub fn read(dir: &Path) -> Result<Arena, Error> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| Error::Input {
        path: dir.to_owned(),
        reason: if e.kind() == std::io::ErrorKind::NotFound { "does not exist".into() } else { e.to_string() },
    })?;
    if meta.file_type().is_symlink() {
        return Err(Error::Input {
            path: dir.to_owned(),
            reason: "is a symbolic link; give the _Msg/ directory itself (crossverify does not follow links)".into(),
        });
    }
    if !meta.is_dir() {
        return Err(Error::Input {
            path: dir.to_owned(),
            reason: "is not a directory (give the _Msg/ directory)".into(),
        });
    }
    let bus_path = dir.join("bus.jsonl");
    if std::fs::symlink_metadata(&bus_path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Err(Error::Input {
            path: dir.to_owned(),
            reason: "holds no bus.jsonl, so it is not a CrossExam transcript (give the _Msg/ directory of a panel)"
                .into(),
        });
    }
    let bus = read_regular(&bus_path).map_err(|reason| Error::Input { path: bus_path, reason })?;
    let sealed = side_files(&dir.join(".sealed"), |n| n.strip_suffix(".jsonl").map(str::to_owned));
    let seen = side_files(&dir.join(".seen"), |n| (!n.ends_with(".lock")).then(|| n.to_owned()));
    let mut lock_dirs = Vec::new();
    for (sub, prefix) in [(dir.to_owned(), ""), (dir.join(".sealed"), ".sealed/"), (dir.join(".seen"), ".seen/")] {
        for (name, path, _) in entries(&sub) {
            if name.ends_with(".lock") && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
                lock_dirs.push(format!("{prefix}{name}"));
            }
        }
    }
    Ok(Arena {
        dir: dir.to_owned(),
        bus,
        task: optional(&dir.join("task.md")),
        sealed,
        seen,
        synthesis: optional(&dir.join("synthesis.md")),
        lock_dirs,
    })
}

//! Where the cache's MAC key comes from: never the cache directory, which CI shares with the
//! pull requests whose receipts it verifies.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use super::entry::Key;

/// The environment variable holding a secret the key is derived from (CI: a repository secret).
pub const ENV: &str = "CROSSVERIFY_CACHE_KEY";

/// Where the key came from, for the run's note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `CROSSVERIFY_CACHE_KEY`.
    Env,
    /// A key file under the user's state directory.
    File(PathBuf),
}

/// The key file when `CROSSVERIFY_CACHE_KEY` is unset: `$XDG_STATE_HOME/crossverify/cache-key`,
/// else `$HOME/.local/state/crossverify/cache-key`.
#[must_use]
pub fn default_file() -> Option<PathBuf> {
    super::xdg_dir("XDG_STATE_HOME", ".local/state").map(|d| d.join("cache-key"))
}

/// The key for a cache in `cache_dir`: from `CROSSVERIFY_CACHE_KEY`, else from `file` (created
/// with 32 random bytes, mode 0600, when missing).
///
/// # Errors
/// Why no usable key exists; the caller then runs without the cache and says so.
pub fn find(cache_dir: &Path, file: Option<&Path>) -> Result<(Key, Source), String> {
    find_with(std::env::var_os(ENV), cache_dir, file)
}

/// [`find`] with the value of `CROSSVERIFY_CACHE_KEY` given (`None`: unset).
///
/// # Errors
/// As [`find`].
pub fn find_with(
    env: Option<std::ffi::OsString>,
    cache_dir: &Path,
    file: Option<&Path>,
) -> Result<(Key, Source), String> {
    if let Some(v) = env {
        if v.is_empty() {
            return Err(format!("{ENV} is set but empty"));
        }
        return Ok((Key::derive(v.as_encoded_bytes()), Source::Env));
    }
    let file = file.ok_or_else(|| format!("no key: set {ENV}, or HOME or XDG_STATE_HOME for a key file"))?;
    outside(file, cache_dir)?;
    read_or_create(file).map(|k| (k, Source::File(file.to_owned())))
}

/// How many symbolic links a path may pass through (Linux's own limit).
const MAX_LINKS: usize = 40;

/// `path` with every symbolic link followed, including a last one that points nowhere, and
/// components that do not exist yet kept as written; `None` for a loop of links.
fn resolved(path: &Path) -> Option<PathBuf> {
    let mut p = std::path::absolute(path).ok()?;
    for _ in 0..MAX_LINKS {
        if let Ok(real) = std::fs::canonicalize(&p) {
            return Some(real);
        }
        match std::fs::read_link(&p) {
            // A dangling link: its target, relative to the link's directory.
            Ok(target) => p = p.parent().map_or_else(|| target.clone(), |d| d.join(&target)),
            // Not there yet: the directory it will be made in, resolved, then the name.
            Err(_) => {
                let (parent, name) = (p.parent()?, p.file_name()?);
                return Some(resolved(parent)?.join(name));
            }
        }
    }
    None
}

/// Refuses a key file that is, by what it resolves to, written where the cache's writer
/// writes: a path (symbolic links followed, the last one and every directory on the way)
/// inside the cache directory, or a hard link to a file in it.
fn outside(file: &Path, cache_dir: &Path) -> Result<(), String> {
    let refuse = |how: &str| {
        Err(format!(
            "the key file {} {how} the cache directory {}: anyone who can write the cache could forge entries",
            file.display(),
            cache_dir.display()
        ))
    };
    let (Some(key), Some(dir)) = (resolved(file), resolved(cache_dir)) else {
        return refuse("(a loop of symbolic links) cannot be placed relative to");
    };
    if key.starts_with(&dir) {
        return refuse("lies inside");
    }
    if hard_linked_into(&key, &dir) {
        return refuse("is a hard link to a file in");
    }
    Ok(())
}

/// Whether `file` is another name of a file below `dir` (same device and inode). Only a file
/// with more than one name is looked for, and the cache directory holds a handful of files.
#[cfg(unix)]
fn hard_linked_into(file: &Path, dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(meta) = std::fs::metadata(file) else { return false };
    if meta.nlink() < 2 {
        return false;
    }
    let mut todo = vec![dir.to_owned()];
    let mut seen = 0usize;
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            seen += 1;
            // A cache directory of more files than this was not made by crossverify: refuse
            // rather than walk it.
            if seen > 10_000 {
                return true;
            }
            let Ok(m) = std::fs::symlink_metadata(e.path()) else { continue };
            if m.is_dir() {
                todo.push(e.path());
            } else if m.dev() == meta.dev() && m.ino() == meta.ino() {
                return true;
            }
        }
    }
    false
}

#[cfg(not(unix))]
fn hard_linked_into(_file: &Path, _dir: &Path) -> bool {
    false
}

fn read_or_create(file: &Path) -> Result<Key, String> {
    let shown = file.display();
    match std::fs::read(file) {
        Ok(bytes) => {
            private(file)?;
            let raw: [u8; 32] = bytes
                .try_into()
                .map_err(|b: Vec<u8>| format!("{shown}: a cache key file holds 32 bytes, this one {}", b.len()))?;
            Ok(Key::from_bytes(raw))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(file).is_ok() {
                // Creating the key would write through the link, or fail on its name forever.
                return Err(format!("{shown}: a symbolic link to nothing; remove it or make its target"));
            }
            create(file)
        }
        Err(e) => Err(format!("{shown}: {e}")),
    }
}

#[cfg(unix)]
fn private(file: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?.permissions().mode();
    if mode & 0o077 == 0 {
        Ok(())
    } else {
        Err(format!("{}: mode {:o} lets others read the key; it must be 0600", file.display(), mode & 0o777))
    }
}

#[cfg(not(unix))]
fn private(_file: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(unix)]
fn create(file: &Path) -> Result<Key, String> {
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    let shown = file.display();
    if let Some(dir) = file.parent() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(|e| format!("{shown}: {e}"))?;
    }
    let mut raw = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut raw))
        .map_err(|e| format!("/dev/urandom: {e}"))?;
    // A temporary file renamed into place: a concurrent run reads either no key or a whole one.
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(&raw).and_then(|()| f.sync_all()));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", tmp.display()));
    }
    // The first run to link its key wins; the others read that one.
    match std::fs::hard_link(&tmp, file) {
        Ok(()) => {
            let _ = std::fs::remove_file(&tmp);
            Ok(Key::from_bytes(raw))
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = std::fs::remove_file(&tmp);
            read_or_create(file)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(format!("{shown}: {e}"))
        }
    }
}

#[cfg(not(unix))]
fn create(file: &Path) -> Result<Key, String> {
    Err(format!("{}: no key file, and none is created on this platform: set {ENV}", file.display()))
}

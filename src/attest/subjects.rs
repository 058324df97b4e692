//! The files an attestation names as its subjects, read beside it: a subject's name comes from
//! someone else's statement, so it is resolved only inside the attestation's own directory
//! (never the current one), and a name that is absolute, climbs with `..`, or passes through a
//! symbolic link is refused before anything is opened. A file is hashed as it is read, so a
//! subject of any size costs a fixed buffer; a FIFO or device in a subject's place is refused
//! by its type, never read (it could block or never end).

use std::io::Read as _;
use std::path::{Component, Path};

use sha2::{Digest as _, Sha256};

/// Why a subject's file was not hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// The name may not be resolved (absolute, `..`, a link on the way, an odd byte): why.
    Refused(String),
    /// Nothing is at the name.
    Absent,
    /// Something is there that is not a regular file (a directory, a FIFO, a device): what.
    NotAFile(String),
    /// It could not be read: the error.
    Io(String),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Refused(why) => write!(f, "refused: {why}"),
            Unread::Absent => f.write_str("not found"),
            Unread::NotAFile(what) => write!(f, "{what}, not a regular file"),
            Unread::Io(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

/// Longest name resolved (Linux's `PATH_MAX`): no file beside an attestation has a longer one.
pub const MAX_NAME_BYTES: usize = 4096;

/// The components of `name` below the attestation's directory, or why it may not be resolved.
///
/// # Errors
/// The name is empty, longer than [`MAX_NAME_BYTES`], absolute, holds a `..` component, a
/// backslash or a NUL.
pub fn components(name: &str) -> Result<Vec<&str>, Unread> {
    if name.is_empty() {
        return Err(Unread::Refused("an empty name".into()));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Unread::Refused(format!(
            "a name of {} bytes, longer than any path ({MAX_NAME_BYTES})",
            name.len()
        )));
    }
    if name.contains('\0') || name.contains('\\') {
        return Err(Unread::Refused("a name holding a NUL or a backslash names no file beside the attestation".into()));
    }
    let mut out = Vec::new();
    for c in Path::new(name).components() {
        match c {
            Component::Normal(part) => out.push(part.to_str().unwrap_or_default()),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(Unread::Refused("a `..` component would read outside the attestation's directory".into()));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(Unread::Refused(
                    "an absolute name; only files beside the attestation (below its directory) are read".into(),
                ));
            }
        }
    }
    if out.is_empty() { Err(Unread::Refused("a name that is no file".into())) } else { Ok(out) }
}

/// The hex SHA-256 of the regular file `name` below `dir`, read without following any link.
///
/// # Errors
/// Why it was not hashed ([`Unread`]).
pub fn sha256(dir: &Path, name: &str) -> Result<String, Unread> {
    Beside::new(dir).sha256(name)
}

/// The files beside one attestation, each read at most once however many spellings
/// (`a/b`, `./a/./b`) a statement gives it: a statement cannot make one large file be hashed
/// once per subject.
#[derive(Debug)]
pub struct Beside<'a> {
    dir: &'a Path,
    done: std::collections::HashMap<String, Result<String, Unread>>,
}

impl<'a> Beside<'a> {
    /// The files below `dir`.
    #[must_use]
    pub fn new(dir: &'a Path) -> Self {
        Beside { dir, done: std::collections::HashMap::new() }
    }

    /// The hex SHA-256 of the regular file `name` below the directory, as [`sha256`].
    ///
    /// # Errors
    /// Why it was not hashed ([`Unread`]).
    pub fn sha256(&mut self, name: &str) -> Result<String, Unread> {
        let parts = components(name)?;
        let key = parts.join("/");
        if let Some(known) = self.done.get(&key) {
            return known.clone();
        }
        let got = imp::open(self.dir, &parts).and_then(|f| hash(f).map_err(|e| Unread::Io(e.to_string())));
        self.done.insert(key, got.clone());
        got
    }
}

fn hash(mut file: std::fs::File) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(hex::encode(hasher.finalize())),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn kind(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt as _;
            if ft.is_fifo() {
                return "a FIFO";
            }
            if ft.is_char_device() || ft.is_block_device() {
                return "a device";
            }
            if ft.is_socket() {
                return "a socket";
            }
        }
        "something else"
    }
}

/// On Unix each component is opened relative to the one before with `O_NOFOLLOW`, so a link
/// swapped in between a check and an open is refused too.
#[cfg(unix)]
mod imp {
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, Mode, OFlags};
    use rustix::io::Errno;

    use super::Unread;

    fn why(at: &OwnedFd, part: &str, shown: &str, e: Errno) -> Unread {
        if e == Errno::NOENT {
            return Unread::Absent;
        }
        match rustix::fs::statat(at, part, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink => {
                Unread::Refused(format!(
                    "{shown:?} is a symbolic link, which is not followed out of someone else's input"
                ))
            }
            Ok(_) if e == Errno::NOTDIR => {
                Unread::NotAFile(format!("{shown:?} is not a directory; the name needs one"))
            }
            _ => Unread::Io(std::io::Error::from(e).to_string()),
        }
    }

    pub(super) fn open(dir: &Path, parts: &[&str]) -> Result<std::fs::File, Unread> {
        let io = |e: Errno| Unread::Io(format!("{}: {}", dir.display(), std::io::Error::from(e)));
        let mut at = rustix::fs::open(dir, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| if e == Errno::NOENT { Unread::Absent } else { io(e) })?;
        let (last, parents) = parts.split_last().ok_or(Unread::Absent)?;
        let mut shown = String::new();
        for part in parents {
            shown = if shown.is_empty() { (*part).to_owned() } else { format!("{shown}/{part}") };
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            at = rustix::fs::openat(&at, *part, flags, Mode::empty()).map_err(|e| why(&at, part, &shown, e))?;
        }
        let shown = if shown.is_empty() { (*last).to_owned() } else { format!("{shown}/{last}") };
        // NONBLOCK: a FIFO opens at once and is then refused by its type, instead of blocking.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&at, *last, flags, Mode::empty()).map_err(|e| why(&at, last, &shown, e))?;
        let file = std::fs::File::from(fd);
        let meta = file.metadata().map_err(|e| Unread::Io(e.to_string()))?;
        if !meta.is_file() {
            return Err(Unread::NotAFile(super::kind(meta.file_type()).to_owned()));
        }
        Ok(file)
    }
}

/// Elsewhere each component's own entry is looked at (links not followed) before it is used.
#[cfg(not(unix))]
mod imp {
    use std::path::Path;

    use super::Unread;

    pub(super) fn open(dir: &Path, parts: &[&str]) -> Result<std::fs::File, Unread> {
        let mut path = dir.to_path_buf();
        for (i, part) in parts.iter().enumerate() {
            path.push(part);
            let meta = std::fs::symlink_metadata(&path).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Unread::Absent,
                _ => Unread::Io(e.to_string()),
            })?;
            let shown = parts[..=i].join("/");
            if meta.file_type().is_symlink() {
                return Err(Unread::Refused(format!(
                    "{shown:?} is a symbolic link, which is not followed out of someone else's input"
                )));
            }
            if i + 1 < parts.len() && !meta.is_dir() {
                return Err(Unread::NotAFile(format!("{shown:?} is not a directory; the name needs one")));
            }
            if i + 1 == parts.len() && !meta.is_file() {
                return Err(Unread::NotAFile(super::kind(meta.file_type()).to_owned()));
            }
        }
        std::fs::File::open(&path).map_err(|e| Unread::Io(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_directory_are_refused_before_anything_is_opened() {
        let long = "a/".repeat(MAX_NAME_BYTES / 2) + "b";
        for name in ["", "/etc/passwd", "../x", "a/../../x", "a\\b", "a\0b", ".", "./", &long] {
            assert!(matches!(components(name), Err(Unread::Refused(_))), "{name:?}");
        }
        assert_eq!(components("./a/b.zip").expect("inside"), ["a", "b.zip"]);
    }

    #[test]
    fn a_file_is_read_once_however_it_is_spelled() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("a")).expect("dir");
        std::fs::write(dir.path().join("a/f"), b"abc").expect("write");
        let mut beside = Beside::new(dir.path());
        let first = beside.sha256("a/f").expect("hashed");
        // Gone from disk: another spelling of the same name is answered without a read.
        std::fs::remove_file(dir.path().join("a/f")).expect("remove");
        assert_eq!(beside.sha256("./a/./f"), Ok(first));
        assert_eq!(Beside::new(dir.path()).sha256("a/f"), Err(Unread::Absent));
    }

    #[cfg(unix)]
    #[test]
    fn links_fifos_and_directories_are_not_read_and_a_file_is_hashed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        std::fs::write(d.join("f"), b"abc").expect("write");
        std::fs::create_dir(d.join("sub")).expect("dir");
        std::fs::write(d.join("sub/g"), b"").expect("write");
        std::os::unix::fs::symlink(d.join("f"), d.join("link")).expect("link");
        std::os::unix::fs::symlink(d.join("sub"), d.join("linkdir")).expect("link");
        let fifo = std::process::Command::new("mkfifo").arg(d.join("fifo")).status();
        assert_eq!(sha256(d, "f").expect("hashed"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256(d, "sub/g").expect("hashed"), hex::encode(Sha256::digest(b"")));
        assert!(matches!(sha256(d, "link"), Err(Unread::Refused(_))));
        assert!(matches!(sha256(d, "linkdir/g"), Err(Unread::Refused(_))));
        assert!(matches!(sha256(d, "sub"), Err(Unread::NotAFile(_))));
        assert!(matches!(sha256(d, "f/g"), Err(Unread::NotAFile(_))));
        assert_eq!(sha256(d, "missing"), Err(Unread::Absent));
        assert_eq!(sha256(d, "nodir/x"), Err(Unread::Absent));
        if fifo.is_ok_and(|s| s.success()) {
            assert_eq!(sha256(d, "fifo"), Err(Unread::NotAFile("a FIFO".into())));
        }
    }
}

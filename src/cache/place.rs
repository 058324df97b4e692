//! The cache directory and the files in it, opened so that nothing planted there points the
//! cache elsewhere (issue 46). CI restores the directory from archives that pull requests can
//! write, and an archive holds links: a `cache.redb` that is a link to a file outside had redb
//! create that file, or write a database into it.
//!
//! The rule, as ssh's for a key file others can write:
//!
//! - The directory is opened once, by the path given, and checked open: owned by this user
//!   and not writable by group or others. A link the user made as the directory they named
//!   is theirs to make and is followed ([`Chosen::ByUser`]); the default directory, which
//!   nobody named, is not followed when it is a link ([`Chosen::ByDefault`]). Everything
//!   after works relative to that open directory, so renaming a directory on its path
//!   afterwards changes nothing.
//! - Every file in it is opened with `O_NOFOLLOW` (a link is an error, not a path to
//!   follow), created with `O_EXCL` (mode 0600), and checked open: a regular file with one
//!   name (a hard link to a file outside is refused too), owned by this user, not writable by
//!   group or others. redb is handed the open file, never a path, so the check holds whatever
//!   redb does.
//! - A damaged file is moved aside by `renameat` in the directory, which replaces a link at
//!   the new name instead of following it.
//!
//! Anything refused means the run goes on without the cache, saying why in one line; a
//! directory named with `--cache DIR` that merely cannot be written still stops the run, as
//! before (the binary's `CacheArgs::open`).

use std::path::{Path, PathBuf};

/// Who chose the cache directory, which decides whether a link in its place is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    /// Named by the user (`--cache DIR`, `CROSSVERIFY_CACHE_DIR`): a link there is theirs.
    ByUser,
    /// The platform default, which nobody named: a link in its place was planted, and is not
    /// followed.
    ByDefault,
}

/// How a file of the cache is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read only; a missing file is an error.
    Read,
    /// Read and write; created (mode 0600) when missing.
    Write,
}

/// Why a file of the cache was not opened.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// Not a file this user's cache may use (a link, a file of another user's or with other
    /// names, one others may write): not read, not written, not moved aside.
    Unsafe(String),
    /// Could not be opened (missing, unreadable).
    Io(std::io::Error),
}

/// Creates `dir` when missing, private (mode 0700, and so any parent made on the way), without
/// following a link in place of the default directory.
///
/// # Errors
/// Why it could not be created, or a default directory that is a link.
pub fn create_dir(dir: &Path, chosen: Chosen) -> Result<(), String> {
    let shown = dir.display();
    if chosen == Chosen::ByDefault && std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!("{shown}: {}", imp::NOT_FOLLOWED_DEFAULT));
    }
    imp::create_dir(dir).map_err(|e| format!("{shown}: {e}"))
}

pub(crate) use imp::Dir;

/// On Unix: descriptors, and every file opened relative to the directory's.
#[cfg(unix)]
mod imp {
    use super::{Access, Chosen, Path, PathBuf, Refusal};

    use std::os::fd::OwnedFd;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};

    pub(super) const NOT_FOLLOWED_DEFAULT: &str = "a symbolic link in place of the default cache directory, not followed (name the directory it points to with --cache or CROSSVERIFY_CACHE_DIR to use it)";

    pub(super) fn create_dir(dir: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::DirBuilderExt as _;
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }

    /// The cache directory, open.
    #[derive(Debug)]
    pub(crate) struct Dir {
        fd: OwnedFd,
        shown: PathBuf,
    }

    impl Dir {
        /// Opens `dir` (which exists) and checks it may hold this user's cache.
        ///
        /// # Errors
        /// Why not, in one sentence naming the directory.
        pub(crate) fn open(dir: &Path, chosen: Chosen) -> Result<Dir, String> {
            let shown = dir.display();
            let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            if chosen == Chosen::ByDefault {
                flags |= OFlags::NOFOLLOW;
            }
            let fd = rustix::fs::open(dir, flags, Mode::empty()).map_err(|e| {
                if chosen == Chosen::ByDefault
                    && std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink())
                {
                    format!("{shown}: {NOT_FOLLOWED_DEFAULT}")
                } else {
                    format!("{shown}: {}", std::io::Error::from(e))
                }
            })?;
            let st = rustix::fs::fstat(&fd).map_err(|e| format!("{shown}: {}", std::io::Error::from(e)))?;
            private(&st, "directory").map_err(|why| format!("{shown}: {why}"))?;
            Ok(Dir { fd, shown: dir.to_owned() })
        }

        /// `name` in this directory, for what is said about it.
        pub(crate) fn shown(&self, name: &str) -> PathBuf {
            self.shown.join(name)
        }

        /// Whether anything is at `name` (a link counts, and is not followed).
        pub(crate) fn holds(&self, name: &str) -> bool {
            rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
        }

        /// Why what is at `name` could not be used, judged by its name alone (`Ok` when
        /// nothing is there): a refusal said before anything is opened. [`Dir::file`] checks
        /// again what it opens.
        pub(crate) fn vet(&self, name: &str) -> Result<(), String> {
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => usable(&st).map_err(|why| format!("{}: {why}", self.shown(name).display())),
                Err(_) => Ok(()),
            }
        }

        /// Opens `name` in this directory for `access`: never through a link, and only a
        /// regular file of this user's with one name that others cannot write.
        pub(crate) fn file(&self, name: &str, access: Access) -> Result<std::fs::File, Refusal> {
            let shown = self.shown(name);
            let refuse = |why: String| Refusal::Unsafe(format!("{}: {why}", shown.display()));
            // Not blocking: a FIFO planted there would block a read-only open until a writer
            // came. Cleared below once the file is known to be a regular one.
            let base = OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
            let rw = match access {
                Access::Read => OFlags::RDONLY,
                Access::Write => OFlags::RDWR,
            };
            let mut opened = rustix::fs::openat(&self.fd, name, base | rw, Mode::empty());
            if access == Access::Write && matches!(opened, Err(rustix::io::Errno::NOENT)) {
                // Exclusive: a link planted meanwhile makes this fail, never followed. A run
                // creating it at the same moment wins, and its file is opened as above.
                let create = base | rw | OFlags::CREATE | OFlags::EXCL;
                opened = match rustix::fs::openat(&self.fd, name, create, Mode::RUSR | Mode::WUSR) {
                    Err(rustix::io::Errno::EXIST) => rustix::fs::openat(&self.fd, name, base | rw, Mode::empty()),
                    other => other,
                };
            }
            let fd = opened.map_err(|e| {
                // A link is refused by `O_NOFOLLOW` with an error that does not say so (ELOOP
                // on Linux and macOS, EMLINK on FreeBSD): the name is looked at to say it.
                match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => refuse(LINK.to_owned()),
                    _ => Refusal::Io(e.into()),
                }
            })?;
            let st = rustix::fs::fstat(&fd).map_err(|e| Refusal::Io(e.into()))?;
            usable(&st).map_err(refuse)?;
            rustix::fs::fcntl_setfl(
                &fd,
                rustix::fs::fcntl_getfl(&fd).map_err(|e| Refusal::Io(e.into()))? - OFlags::NONBLOCK,
            )
            .map_err(|e| Refusal::Io(e.into()))?;
            Ok(std::fs::File::from(fd))
        }

        /// Renames `from` to `to` in this directory: a link at `to` is replaced, not followed.
        pub(crate) fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
            rustix::fs::renameat(&self.fd, from, &self.fd, to).map_err(Into::into)
        }
    }

    const LINK: &str = "a symbolic link, not followed (remove it to use the cache)";

    /// Why `st` is not a file the cache may use.
    fn usable(st: &rustix::fs::Stat) -> Result<(), String> {
        match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => {}
            FileType::Symlink => return Err(LINK.to_owned()),
            other => {
                let what = match other {
                    FileType::Directory => "a directory",
                    FileType::Fifo => "a FIFO",
                    FileType::Socket => "a socket",
                    FileType::CharacterDevice | FileType::BlockDevice => "a device",
                    _ => "something",
                };
                return Err(format!("{what}, not a regular file (remove it to use the cache)"));
            }
        }
        if st.st_nlink != 1 {
            return Err(format!(
                "has {} names (a hard link, perhaps to a file outside the cache), not used (remove it to use the cache)",
                st.st_nlink
            ));
        }
        private(st, "file")
    }

    /// Why `st` is not this user's alone to write.
    fn private(st: &rustix::fs::Stat, what: &str) -> Result<(), String> {
        let me = rustix::process::geteuid().as_raw();
        if st.st_uid != me {
            return Err(format!(
                "a {what} owned by uid {}, not by this user (uid {me}); the cache is not used",
                st.st_uid
            ));
        }
        let mode = Mode::from_raw_mode(st.st_mode);
        if mode.intersects(Mode::WGRP | Mode::WOTH) {
            return Err(format!(
                "a {what} of mode {:o}, which others may write; the cache is not used (chmod go-w it)",
                mode.bits() & 0o7777
            ));
        }
        Ok(())
    }
}

/// Elsewhere, paths: a link is looked for before opening, and files are created exclusively.
#[cfg(not(unix))]
mod imp {
    use super::{Access, Chosen, Path, PathBuf, Refusal};

    pub(super) const NOT_FOLLOWED_DEFAULT: &str = "a symbolic link in place of the default cache directory, not followed (name the directory it points to with --cache or CROSSVERIFY_CACHE_DIR to use it)";

    pub(super) fn create_dir(dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)
    }

    /// The cache directory.
    #[derive(Debug)]
    pub(crate) struct Dir {
        path: PathBuf,
    }

    impl Dir {
        pub(crate) fn open(dir: &Path, _chosen: Chosen) -> Result<Dir, String> {
            match std::fs::metadata(dir) {
                Ok(m) if m.is_dir() => Ok(Dir { path: dir.to_owned() }),
                Ok(_) => Err(format!("{}: not a directory", dir.display())),
                Err(e) => Err(format!("{}: {e}", dir.display())),
            }
        }

        pub(crate) fn shown(&self, name: &str) -> PathBuf {
            self.path.join(name)
        }

        pub(crate) fn holds(&self, name: &str) -> bool {
            std::fs::symlink_metadata(self.path.join(name)).is_ok()
        }

        pub(crate) fn vet(&self, name: &str) -> Result<(), String> {
            match std::fs::symlink_metadata(self.path.join(name)) {
                Ok(m) if !m.is_file() => Err(format!("{}: not a regular file, not used", self.shown(name).display())),
                _ => Ok(()),
            }
        }

        pub(crate) fn file(&self, name: &str, access: Access) -> Result<std::fs::File, Refusal> {
            self.vet(name).map_err(Refusal::Unsafe)?;
            let path = self.path.join(name);
            let mut o = std::fs::OpenOptions::new();
            o.read(true).write(access == Access::Write);
            match o.open(&path) {
                Err(e) if access == Access::Write && e.kind() == std::io::ErrorKind::NotFound => {
                    o.create_new(true).open(&path).map_err(Refusal::Io)
                }
                other => other.map_err(Refusal::Io),
            }
        }

        pub(crate) fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
            std::fs::rename(self.path.join(from), self.path.join(to))
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::{Access, Chosen, Dir, Refusal};

    use std::os::unix::fs::{PermissionsExt as _, symlink};

    fn unsafe_why(r: Result<std::fs::File, Refusal>) -> String {
        match r {
            Err(Refusal::Unsafe(why)) => why,
            Err(Refusal::Io(e)) => panic!("an I/O error, not a refusal: {e}"),
            Ok(_) => panic!("opened"),
        }
    }

    /// What is opened is checked open, not only by its name beforehand (`Dir::vet`, which a
    /// file swapped in meanwhile would pass): each planted kind of file is refused by
    /// `Dir::file` itself, for reading and for writing, and its target left as it was. A FIFO
    /// is refused without waiting for a writer.
    #[test]
    fn the_opened_file_itself_is_checked() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = Dir::open(tmp.path(), Chosen::ByUser).expect("a private directory");
        let outside = tmp.path().join("outside");
        std::fs::write(&outside, b"").expect("outside");
        symlink(&outside, tmp.path().join("link")).expect("symlink");
        symlink(tmp.path().join("nowhere"), tmp.path().join("dangling")).expect("symlink");
        std::fs::hard_link(&outside, tmp.path().join("hard")).expect("hard link");
        std::fs::write(tmp.path().join("open"), b"").expect("file");
        std::fs::set_permissions(tmp.path().join("open"), std::fs::Permissions::from_mode(0o620)).expect("chmod");
        let fifo = std::process::Command::new("mkfifo").arg(tmp.path().join("fifo")).status();
        let has_fifo = fifo.is_ok_and(|s| s.success());
        for access in [Access::Read, Access::Write] {
            for (name, says) in [
                ("link", "symbolic link"),
                ("dangling", "symbolic link"),
                ("hard", "2 names"),
                ("open", "others may write"),
                ("fifo", "a FIFO"),
            ] {
                if name == "fifo" && !has_fifo {
                    continue;
                }
                let why = unsafe_why(dir.file(name, access));
                assert!(why.contains(says), "{name} {access:?}: {why}");
            }
        }
        assert!(!tmp.path().join("nowhere").exists(), "created through the dangling link");
        assert_eq!(std::fs::read(&outside).expect("outside"), b"");
        assert!(matches!(dir.file("missing", Access::Read), Err(Refusal::Io(_))));
        drop(dir.file("made", Access::Write).expect("created"));
        let mode = std::fs::metadata(tmp.path().join("made")).expect("made").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }

    /// The default directory is not followed when it is a link; a named one is.
    #[test]
    fn only_a_named_directory_may_be_a_link() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).expect("real");
        let link = tmp.path().join("link");
        symlink(&real, &link).expect("symlink");
        assert!(Dir::open(&link, Chosen::ByUser).is_ok());
        let why = Dir::open(&link, Chosen::ByDefault).expect_err("a default directory that is a link");
        assert!(why.contains("not followed"), "{why}");
        let why = super::create_dir(&link.join("below"), Chosen::ByDefault).map(|()| "made");
        assert_eq!(why, Ok("made"), "only the last component is the default directory's own");
        assert!(super::create_dir(&link, Chosen::ByDefault).is_err_and(|w| w.contains("not followed")));
    }
}

//! Unpacking a submitted archive (`.zip`, `.tar`, `.tar.gz`/`.tgz`) into a private directory,
//! as hostile input: the member names, types, counts and sizes are the sender's, so every one
//! is checked before anything is written, and the decompressed stream is metered against the
//! compressed bytes it came from, so a zip or gzip bomb is refused after a bounded amount of
//! work and memory rather than unpacked (`specs/intake.md`, "Unpacking").
//!
//! The formats are read by the `tar`, `flate2` and `zip` crates; this file decides only what
//! may be written and where.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read};
use std::path::Path;
use std::rc::Rc;

pub use super::budget::{Budget, Limits};
use super::refusal::{Cap, Refusal, RefusalKind};
use crate::progress::Ctx;

/// The archive formats a submission may arrive in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A zip archive.
    Zip,
    /// An uncompressed tar archive.
    Tar,
    /// A gzip-compressed tar archive (`.tar.gz`, `.tgz`).
    TarGz,
    /// A git bundle (`git bundle create`), read by git itself (`bundle.rs`).
    Bundle,
    /// Both a tar and a zip archive by its first bytes (a polyglot): refused.
    Ambiguous,
}

impl Kind {
    /// The format's name in messages.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Zip => "zip archive",
            Kind::Tar => "tar archive",
            Kind::TarGz => "gzip-compressed tar archive",
            Kind::Bundle => "git bundle",
            Kind::Ambiguous => "file that is both a tar and a zip archive",
        }
    }
}

/// What an archive held once unpacked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unpacked {
    /// Members written (files, directories and links).
    pub entries: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// The format of the file at `path`: by its first bytes, else by its name; `None` when it is
/// neither an archive nor a bundle.
///
/// # Errors
/// The file cannot be read.
pub fn kind_of(path: &Path) -> io::Result<Option<Kind>> {
    let mut head = Vec::with_capacity(512);
    std::fs::File::open(path)?.take(512).read_to_end(&mut head)?;
    Ok(kind_of_bytes(&head).or_else(|| kind_of_name(path)))
}

/// The format the first bytes of a file announce.
#[must_use]
pub fn kind_of_bytes(head: &[u8]) -> Option<Kind> {
    let zip = head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06");
    let tar = head.get(257..262) == Some(b"ustar");
    if head.starts_with(b"# v2 git bundle\n") || head.starts_with(b"# v3 git bundle\n") {
        Some(Kind::Bundle)
    } else if head.starts_with(&[0x1f, 0x8b]) {
        Some(Kind::TarGz)
    } else if zip && tar {
        // A file both readers accept would unpack to different trees for different tools.
        Some(Kind::Ambiguous)
    } else if zip {
        Some(Kind::Zip)
    } else if tar {
        Some(Kind::Tar)
    } else {
        None
    }
}

fn kind_of_name(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let ends = |s: &str| name.ends_with(s);
    if ends(".zip") {
        Some(Kind::Zip)
    } else if ends(".tar.gz") || ends(".tgz") {
        Some(Kind::TarGz)
    } else if ends(".tar") {
        Some(Kind::Tar)
    } else if ends(".bundle") {
        Some(Kind::Bundle)
    } else {
        None
    }
}

/// Unpacks the archive at `archive` (shown as `shown` in refusals) into `dest`, an empty
/// directory the caller owns, spending `budget`. Nothing is written outside `dest`; on `Err`
/// the caller removes `dest` with whatever was written before the refusal.
///
/// # Errors
/// The first member refused (traversal, absolute name, link leaving the tree, device or FIFO,
/// duplicate or case-colliding name, a cap exceeded, a truncated or malformed archive), or
/// `Kind::Bundle` (bundles are cloned by `bundle::clone`, not unpacked).
pub fn unpack(
    archive: &Path,
    shown: &str,
    kind: Kind,
    dest: &Path,
    budget: &mut Budget,
    ctx: Ctx<'_>,
) -> Result<Unpacked, Refusal> {
    let file =
        std::fs::File::open(archive).map_err(|e| Refusal::whole(shown, RefusalKind::Unreadable(e.to_string())))?;
    unpack_from(io::BufReader::new(file), shown, kind, dest, budget, ctx)
}

/// [`unpack`] from any reader (the fuzz target reads bytes in memory).
///
/// # Errors
/// As [`unpack`].
pub fn unpack_from<R: Read + io::Seek>(
    reader: R,
    shown: &str,
    kind: Kind,
    dest: &Path,
    budget: &mut Budget,
    ctx: Ctx<'_>,
) -> Result<Unpacked, Refusal> {
    let (entries0, bytes0) = (budget.entries, budget.written);
    let mut sink = Sink::new(dest, budget);
    let result = match kind {
        Kind::Zip => zip(reader, &mut sink, ctx),
        Kind::Tar => tar(reader, &mut sink, None, ctx),
        Kind::TarGz => {
            let consumed = Rc::new(Cell::new(0));
            let counted = Counting { inner: reader, count: Rc::clone(&consumed) };
            // Every gzip member, as GNU tar reads them: a second member after the first's end
            // is part of the archive, not trailing bytes to ignore.
            tar(flate2::read::MultiGzDecoder::new(counted), &mut sink, Some(consumed), ctx)
        }
        Kind::Bundle => {
            Err(("(the archive)".to_owned(), RefusalKind::Malformed("a git bundle is cloned, not unpacked".to_owned())))
        }
        Kind::Ambiguous => Err((
            "(the archive)".to_owned(),
            RefusalKind::Malformed(
                "its first bytes make it both a tar and a zip archive, which other tools would unpack differently"
                    .to_owned(),
            ),
        )),
    };
    result.and_then(|()| sink.links_stay_inside()).map_err(|(member, kind)| Refusal::member(shown, member, kind))?;
    Ok(Unpacked { entries: budget.entries - entries0, bytes: budget.written - bytes0 })
}

/// A member refused: its name and why.
type Refused = (String, RefusalKind);

/// What a member is, as far as writing it goes.
enum Entry<'a> {
    Dir,
    File(&'a mut dyn Read),
    Symlink(String),
    HardLink(String),
}

/// Everything written so far, and the rules for what may come next.
struct Sink<'a> {
    dest: &'a Path,
    budget: &'a mut Budget,
    /// Each name written, by its lower-case form: a case-insensitive file system (macOS,
    /// Windows) would put two of them in one file.
    names: BTreeMap<String, (String, bool)>,
    /// Symlinks written: nothing may be written below one.
    symlinks: BTreeSet<String>,
}

impl<'a> Sink<'a> {
    fn new(dest: &'a Path, budget: &'a mut Budget) -> Self {
        Sink { dest, budget, names: BTreeMap::new(), symlinks: BTreeSet::new() }
    }

    /// Writes one member, or says why it is refused.
    fn put(&mut self, raw: &[u8], entry: Entry<'_>) -> Result<(), RefusalKind> {
        let is_dir = matches!(entry, Entry::Dir);
        let Some(rel) = self.admit(raw, is_dir)? else { return Ok(()) };
        let path = self.dest.join(&rel);
        let io = |what: &'static str, e: io::Error| RefusalKind::Write { what, detail: e.to_string() };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("creating its directory", e))?;
        }
        match entry {
            Entry::Dir => std::fs::create_dir_all(&path).map_err(|e| io("creating the directory", e)),
            Entry::File(r) => self.write_file(&path, r),
            Entry::Symlink(target) => self.symlink(&rel, &path, &target),
            Entry::HardLink(target) => self.hard_link(&rel, &path, &target),
        }
    }

    /// The member's name as a path inside the tree, once it is known to be safe and new;
    /// `None` for the archive's root directory (`./`).
    fn admit(&mut self, raw: &[u8], is_dir: bool) -> Result<Option<String>, RefusalKind> {
        self.budget.entry()?;
        let rel = clean_name(raw)?;
        if rel.is_empty() {
            return if is_dir { Ok(None) } else { Err(RefusalKind::EmptyName) };
        }
        if let Some(link) = self.symlinks.iter().find(|l| rel.starts_with(&format!("{l}/"))) {
            return Err(RefusalKind::BelowSymlink { link: link.clone() });
        }
        match self.names.get(&rel.to_lowercase()) {
            Some((earlier, true)) if *earlier == rel && is_dir => return Ok(None),
            Some((earlier, _)) if *earlier == rel => return Err(RefusalKind::Duplicate),
            Some((earlier, _)) => return Err(RefusalKind::CaseCollision { earlier: earlier.clone() }),
            None => {}
        }
        self.names.insert(rel.to_lowercase(), (rel.clone(), is_dir));
        Ok(Some(rel))
    }

    /// Copies a member's bytes, at most what the budget still allows: the bytes written are
    /// counted, whatever the member declared.
    fn write_file(&mut self, path: &Path, r: &mut dyn Read) -> Result<(), RefusalKind> {
        // `create_new`: never over an existing file, and never through a symlink at the end.
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| RefusalKind::Write { what: "creating the file", detail: e.to_string() })?;
        let (room, cap) = self.budget.room();
        let written = io::copy(&mut r.take(room.saturating_add(1)), &mut out).map_err(|e| read_error(&e))?;
        if written > room {
            self.budget.written += room;
            return Err(self.budget.over(cap));
        }
        self.budget.written += written;
        Ok(())
    }

    fn symlink(&mut self, rel: &str, path: &Path, target: &str) -> Result<(), RefusalKind> {
        if target.is_empty() || target.contains('\0') {
            return Err(RefusalKind::BadLinkTarget);
        }
        if target.starts_with('/') || target.contains('\\') || has_drive(target) {
            return Err(RefusalKind::AbsoluteLink { target: target.to_owned() });
        }
        let parent = rel.rsplit_once('/').map_or("", |(p, _)| p);
        if resolve(parent, target).is_none() {
            return Err(RefusalKind::LinkLeaves { target: target.to_owned() });
        }
        self.symlinks.insert(rel.to_owned());
        symlink(target, path).map_err(|e| RefusalKind::Write { what: "creating the symlink", detail: e.to_string() })
    }

    fn hard_link(&mut self, rel: &str, path: &Path, target: &str) -> Result<(), RefusalKind> {
        let refused = || RefusalKind::HardLink { target: target.to_owned() };
        let t = clean_name(target.as_bytes()).map_err(|_| refused())?;
        let earlier = self.names.get(&t.to_lowercase()).filter(|(n, dir)| *n == t && !dir);
        if earlier.is_none() || self.symlinks.contains(&t) || t == rel {
            return Err(refused());
        }
        // A copy, not a link: the tree shares no inode with anything, and the copy's bytes
        // are written, so they are counted like any member's.
        let mut from = std::fs::File::open(self.dest.join(&t))
            .map_err(|e| RefusalKind::Write { what: "reading its target", detail: e.to_string() })?;
        self.write_file(path, &mut from)
    }

    /// After the last member: every symlink resolves inside the tree on disk too (a link may
    /// go through another link, which the names alone do not show), or nowhere.
    fn links_stay_inside(&self) -> Result<(), Refused> {
        let root = self.dest.canonicalize().map_err(|e| {
            ("(the archive)".to_owned(), RefusalKind::Write { what: "the tree", detail: e.to_string() })
        })?;
        for l in &self.symlinks {
            if let Ok(real) = self.dest.join(l).canonicalize()
                && !real.starts_with(&root)
            {
                return Err((l.clone(), RefusalKind::LinkChainLeaves));
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn symlink(target: &str, path: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

#[cfg(not(unix))]
fn symlink(_target: &str, _path: &Path) -> io::Result<()> {
    Err(io::Error::other("symlinks are unpacked on Unix only"))
}

fn has_drive(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// A member's name as a relative path of `/`-separated components, or why it is refused.
/// `.` and empty components are dropped; `..`, an absolute name, a drive letter, a
/// backslash, a NUL or a name that is not UTF-8 are refused.
///
/// # Errors
/// The rule the name breaks.
pub fn clean_name(raw: &[u8]) -> Result<String, RefusalKind> {
    let name = std::str::from_utf8(raw).map_err(|_| RefusalKind::NameNotUtf8)?;
    if name.contains('\0') {
        return Err(RefusalKind::NameWithNul);
    }
    if name.starts_with('/') || has_drive(name) {
        return Err(RefusalKind::AbsoluteName);
    }
    if name.contains('\\') {
        return Err(RefusalKind::Backslash);
    }
    let mut parts = Vec::new();
    for c in name.split('/') {
        match c {
            "" | "." => {}
            ".." => return Err(RefusalKind::ParentComponent),
            c => parts.push(c),
        }
    }
    Ok(parts.join("/"))
}

/// `target` resolved lexically from the directory `parent` (both relative to the tree's
/// root), or `None` when it climbs above the root.
fn resolve(parent: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = parent.split('/').filter(|p| !p.is_empty()).collect();
    for c in target.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

fn read_error(e: &io::Error) -> RefusalKind {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => RefusalKind::Malformed("the archive ends inside this member".into()),
        _ => RefusalKind::Unreadable(e.to_string()),
    }
}

/// Counts the bytes read through it (the compressed side of a gzip stream).
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Stops a decompressed stream once it has produced more than `slack + ratio × consumed`.
struct Metered<R> {
    inner: R,
    produced: u64,
    consumed: Rc<Cell<u64>>,
    limits: Limits,
    tripped: Rc<Cell<bool>>,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.produced += n as u64;
        let allowed = self.consumed.get().saturating_mul(self.limits.max_ratio).saturating_add(self.limits.ratio_slack);
        if self.produced > allowed {
            self.tripped.set(true);
            return Err(io::Error::other("decompression bomb"));
        }
        Ok(n)
    }
}

fn tar<R: Read>(inner: R, sink: &mut Sink<'_>, consumed: Option<Rc<Cell<u64>>>, ctx: Ctx<'_>) -> Result<(), Refused> {
    let tripped = Rc::new(Cell::new(false));
    let limits = sink.budget.limits;
    let metered = Metered {
        inner,
        produced: 0,
        consumed: consumed.unwrap_or_else(|| Rc::new(Cell::new(u64::MAX / 2))),
        limits,
        tripped: Rc::clone(&tripped),
    };
    let mut archive = tar::Archive::new(metered);
    let mut last = String::from("(the first member)");
    let bomb = |last: &str| -> Refused { (last.to_owned(), RefusalKind::GzipBomb { ratio: limits.max_ratio }) };
    let entries =
        archive.entries().map_err(|e| (last.clone(), RefusalKind::Malformed(format!("not a tar archive: {e}"))))?;
    for entry in entries {
        ctx.check().map_err(|_| (last.clone(), RefusalKind::Cancelled))?;
        let mut entry = match entry {
            Ok(e) => e,
            Err(_) if tripped.get() => return Err(bomb(&last)),
            Err(e) => return Err((format!("after {last}"), RefusalKind::Malformed(e.to_string()))),
        };
        let raw = entry.path_bytes().into_owned();
        last = String::from_utf8_lossy(&raw).into_owned();
        // A PAX sparse member (GNU.sparse.*) is stored under a name that is not its own: the
        // tar crate would write it there, where GNU tar restores the real one.
        let sparse = entry
            .pax_extensions()
            .ok()
            .flatten()
            .is_some_and(|mut x| x.any(|e| e.is_ok_and(|e| e.key_bytes().starts_with(b"GNU.sparse"))));
        if sparse {
            return Err((last, RefusalKind::SpecialFile { what: "a sparse file (PAX GNU.sparse)".to_owned() }));
        }
        let link = || -> Result<String, RefusalKind> {
            let t = entry.link_name_bytes().ok_or(RefusalKind::BadLinkTarget)?;
            String::from_utf8(t.into_owned()).map_err(|_| RefusalKind::BadLinkTarget)
        };
        let special = |what: &str| Err(RefusalKind::SpecialFile { what: what.to_owned() });
        let kind = entry.header().entry_type();
        let put = match kind {
            tar::EntryType::Directory => sink.put(&raw, Entry::Dir),
            tar::EntryType::Regular | tar::EntryType::Continuous => sink.put(&raw, Entry::File(&mut entry)),
            tar::EntryType::Symlink => link().and_then(|t| sink.put(&raw, Entry::Symlink(t))),
            tar::EntryType::Link => link().and_then(|t| sink.put(&raw, Entry::HardLink(t))),
            tar::EntryType::XGlobalHeader => Ok(()),
            tar::EntryType::Char => special("a character device file"),
            tar::EntryType::Block => special("a block device file"),
            tar::EntryType::Fifo => special("a FIFO (named pipe)"),
            other => special(&format!("an entry of a type not unpacked ({other:?})")),
        };
        match put {
            Ok(()) => {}
            Err(_) if tripped.get() => return Err(bomb(&last)),
            Err(why) => return Err((last, why)),
        }
    }
    if tripped.get() {
        return Err(bomb(&last));
    }
    // After the end-of-archive blocks only zeros may follow: a second tar, or a zip whose
    // directory sits at the end, would be a tree other tools unpack and this reader never saw.
    let mut rest = archive.into_inner();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match rest.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) if buf.get(..n).is_some_and(|b| b.iter().all(|x| *x == 0)) => {}
            Ok(_) => {
                return Err((
                    format!("after {last}"),
                    RefusalKind::Malformed(
                        "data follows the end-of-archive blocks (a second archive, which other tools would unpack)"
                            .to_owned(),
                    ),
                ));
            }
            Err(_) if tripped.get() => return Err(bomb(&last)),
            Err(e) => return Err((format!("after {last}"), RefusalKind::Malformed(e.to_string()))),
        }
    }
}

fn zip<R: Read + io::Seek>(reader: R, sink: &mut Sink<'_>, ctx: Ctx<'_>) -> Result<(), Refused> {
    let whole = |why: RefusalKind| ("(the central directory)".to_owned(), why);
    let mut archive = zip::ZipArchive::new(reader)
        .map_err(|e| whole(RefusalKind::Malformed(format!("not a readable zip archive: {e}"))))?;
    let limits = sink.budget.limits;
    if sink.budget.entries.saturating_add(archive.len() as u64) > limits.max_entries {
        return Err(whole(sink.budget.over(Cap::Entries)));
    }
    for i in 0..archive.len() {
        ctx.check().map_err(|_| whole(RefusalKind::Cancelled))?;
        let mut f = archive
            .by_index(i)
            .map_err(|e| (format!("#{i}"), RefusalKind::Malformed(format!("member #{i} cannot be read: {e}"))))?;
        let raw = f.name_raw().to_vec();
        let shown = String::from_utf8_lossy(&raw).into_owned();
        let mode = f.unix_mode().unwrap_or(0);
        let compressed = f.compressed_size();
        let special = |what: &str| Err(RefusalKind::SpecialFile { what: what.to_owned() });
        let (room, _) = sink.budget.room();
        let put = match mode & 0o170_000 {
            0o020_000 => special("a character device file"),
            0o060_000 => special("a block device file"),
            0o010_000 => special("a FIFO (named pipe)"),
            0o140_000 => special("a socket"),
            0o120_000 => {
                let mut target = Vec::new();
                (&mut f).take(4096).read_to_end(&mut target).map_err(|e| (shown.clone(), read_error(&e)))?;
                String::from_utf8(target)
                    .map_err(|_| RefusalKind::BadLinkTarget)
                    .and_then(|t| sink.put(&raw, Entry::Symlink(t)))
            }
            _ if f.is_dir() => sink.put(&raw, Entry::Dir),
            // The declared size is the sender's word: more than the budget leaves, refused
            // before a byte is written; less than the truth, the metered copy still stops at
            // the budget (members that overlap each other's data are caught the same way).
            _ if f.size() > room => Err(RefusalKind::ZipBomb { declared: f.size(), compressed, room }),
            _ => sink.put(&raw, Entry::File(&mut f)),
        };
        put.map_err(|why| (shown, why))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cleaned_or_refused() {
        assert_eq!(clean_name(b"./a//b/./c").as_deref(), Ok("a/b/c"));
        assert_eq!(clean_name(b"./").as_deref(), Ok(""));
        for bad in [&b"../x"[..], b"a/../../x", b"/etc/passwd", b"C:/x", b"a\\b", b"a\0b", b"\xff"] {
            assert!(clean_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn link_targets_resolve_lexically_inside_or_not_at_all() {
        assert_eq!(resolve("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(resolve("a", "../c").as_deref(), Some("c"));
        assert_eq!(resolve("a", "../../c"), None);
        assert_eq!(resolve("", ".."), None);
    }

    #[test]
    fn kinds_are_told_by_their_first_bytes() {
        assert_eq!(kind_of_bytes(b"# v2 git bundle\nabc"), Some(Kind::Bundle));
        assert_eq!(kind_of_bytes(&[0x1f, 0x8b, 8]), Some(Kind::TarGz));
        assert_eq!(kind_of_bytes(b"PK\x03\x04"), Some(Kind::Zip));
        let mut tar = vec![0u8; 512];
        tar[257..262].copy_from_slice(b"ustar");
        assert_eq!(kind_of_bytes(&tar), Some(Kind::Tar));
        assert_eq!(kind_of_bytes(b"hello"), None);
        tar[..4].copy_from_slice(b"PK\x03\x04");
        assert_eq!(kind_of_bytes(&tar), Some(Kind::Ambiguous), "a tar whose first member is named PK\\x03\\x04");
    }

    /// A tar of `n` one-byte files named 0, 1, 2…
    fn tar_of(n: usize) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for i in 0..n {
            let mut h = tar::Header::new_gnu();
            h.set_size(1);
            h.set_mode(0o644);
            b.append_data(&mut h, i.to_string(), &b"x"[..]).expect("member");
        }
        b.into_inner().expect("tar")
    }

    fn limits(max_entries: u64, max_bytes: u64, max_ratio: u64, ratio_slack: u64) -> Limits {
        Limits { max_entries, max_bytes, max_ratio, ratio_slack, ..Limits::default() }
    }

    fn run(data: &[u8], kind: Kind, limits: Limits) -> Result<Unpacked, Refusal> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut budget = Budget::new(limits);
        budget.receive(data.len() as u64);
        unpack_from(io::Cursor::new(data), "a.tar", kind, dir.path(), &mut budget, Ctx::silent())
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        io::Write::write_all(&mut gz, data).expect("gzip");
        gz.finish().expect("gzip")
    }

    #[test]
    fn the_member_and_byte_caps_hold_exactly() {
        let small = limits(3, 3, 200, 1 << 20);
        assert_eq!(run(&tar_of(3), Kind::Tar, small), Ok(Unpacked { entries: 3, bytes: 3 }));
        let e = run(&tar_of(4), Kind::Tar, small).expect_err("four members");
        assert_eq!(e.member.as_deref(), Some("3"));
        assert_eq!(e.kind, RefusalKind::Limit { cap: Cap::Entries, limit: 3 });
        let e = run(&tar_of(4), Kind::Tar, Limits { max_entries: 9, ..small }).expect_err("four bytes");
        assert_eq!(e.kind, RefusalKind::Limit { cap: Cap::Bytes, limit: 3 });
    }

    #[test]
    fn a_gzip_stream_is_metered_against_its_compressed_bytes() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(4 << 20);
        h.set_mode(0o644);
        b.append_data(&mut h, "zeros", io::repeat(0).take(4 << 20)).expect("member");
        let bomb = gzip(&b.into_inner().expect("tar"));
        let tight = limits(9, 1 << 30, 10, 1 << 16);
        let e = run(&bomb, Kind::TarGz, tight).expect_err("a bomb");
        assert_eq!((e.member.as_deref(), &e.kind), (Some("zeros"), &RefusalKind::GzipBomb { ratio: 10 }), "{e}");
        let loose = Limits { max_ratio: 2000, ..tight };
        assert_eq!(run(&bomb, Kind::TarGz, loose).map(|u| u.bytes), Ok(4 << 20));
    }

    /// Hard links are copies, and copies are written: 100 links to a 1 MiB file in a gzip of
    /// a few kilobytes would write 101 MiB (issue 46: 95 KB unpacked to 604 MB before).
    #[test]
    fn hard_links_spend_the_budget_as_the_copies_they_are() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(1 << 20);
        h.set_mode(0o644);
        b.append_data(&mut h, "data", io::repeat(7).take(1 << 20)).expect("member");
        for i in 0..100 {
            let mut l = tar::Header::new_gnu();
            l.set_entry_type(tar::EntryType::Link);
            l.set_size(0);
            b.append_link(&mut l, format!("copy{i}"), "data").expect("link");
        }
        let bomb = gzip(&b.into_inner().expect("tar"));
        assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
        let e = run(&bomb, Kind::TarGz, limits(1000, 1 << 40, 200, 4 << 20)).expect_err("refused");
        assert_eq!(e.kind, RefusalKind::Limit { cap: Cap::Ratio, limit: 200 }, "{e}");
    }

    /// A zip whose central directory lists `n` members that all point at the one local
    /// member's data: each member's compressed size is honest, the total is not.
    fn overlapping_zip(n: usize, size: u64) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        w.start_file("a", zip::write::SimpleFileOptions::default()).expect("member");
        io::copy(&mut io::repeat(0).take(size), &mut w).expect("write");
        let bytes = w.finish().expect("zip").into_inner();
        let cd = bytes.windows(4).position(|x| x == b"PK\x01\x02").expect("central directory");
        let eocd = bytes.windows(4).rposition(|x| x == b"PK\x05\x06").expect("end record");
        let record = bytes[cd..eocd].to_vec();
        let name_at = 46;
        let mut out = bytes[..cd].to_vec();
        for i in 0..n {
            let mut r = record.clone();
            r[name_at] = b'a' + u8::try_from(i % 26).expect("small");
            if i >= 26 {
                // Names must differ: a longer one would change the record's length, so the
                // first 26 use letters and the rest are refused as duplicates if reached.
                r[name_at] = b'A' + u8::try_from(i % 26).expect("small");
            }
            out.extend_from_slice(&r);
        }
        let cd_size = u32::try_from(record.len() * n).expect("small");
        let mut end = bytes[eocd..].to_vec();
        let count = u16::try_from(n).expect("small").to_le_bytes();
        end[8..10].copy_from_slice(&count);
        end[10..12].copy_from_slice(&count);
        end[12..16].copy_from_slice(&cd_size.to_le_bytes());
        end[16..20].copy_from_slice(&u32::try_from(cd).expect("small").to_le_bytes());
        out.extend_from_slice(&end);
        out
    }

    /// Overlapping zip members (issue 46: 104 KB unpacked to 537 MB before) stop at the
    /// submission's budget, which counts what is written.
    #[test]
    fn overlapping_zip_members_stop_at_the_budget() {
        let zip = overlapping_zip(20, 4 << 20);
        assert!(zip.len() < 64 << 10, "{} bytes", zip.len());
        let dir = tempfile::tempdir().expect("tempdir");
        let mut budget = Budget::new(limits(1000, 1 << 40, 200, 16 << 20));
        budget.receive(zip.len() as u64);
        let got = unpack_from(io::Cursor::new(&zip), "o.zip", Kind::Zip, dir.path(), &mut budget, Ctx::silent());
        let e = got.expect_err("refused");
        assert!(matches!(e.kind, RefusalKind::Limit { cap: Cap::Ratio, .. } | RefusalKind::ZipBomb { .. }), "{e}");
        assert!(budget.written() <= (16 << 20) + 200 * zip.len() as u64, "{} written", budget.written());
    }

    /// One budget for the whole submission: two archives spend it together.
    #[test]
    fn archives_of_one_submission_share_one_budget() {
        let tar = tar_of(3);
        let mut budget = Budget::new(limits(5, 1 << 20, 200, 1 << 20));
        budget.receive(2 * tar.len() as u64);
        let d1 = tempfile::tempdir().expect("tempdir");
        let d2 = tempfile::tempdir().expect("tempdir");
        let one = unpack_from(io::Cursor::new(&tar), "1.tar", Kind::Tar, d1.path(), &mut budget, Ctx::silent());
        assert_eq!(one, Ok(Unpacked { entries: 3, bytes: 3 }));
        let two = unpack_from(io::Cursor::new(&tar), "2.tar", Kind::Tar, d2.path(), &mut budget, Ctx::silent());
        assert_eq!(two.expect_err("over").kind, RefusalKind::Limit { cap: Cap::Entries, limit: 5 });
    }

    /// Every gzip member is read, as GNU tar reads them: a tar split over two members unpacks
    /// whole (the first member alone was taken before, hiding what followed).
    #[test]
    fn every_gzip_member_is_read() {
        let member = |name: &str| {
            let mut b = tar::Builder::new(Vec::new());
            let mut h = tar::Header::new_gnu();
            h.set_size(1);
            h.set_mode(0o644);
            b.append_data(&mut h, name, &b"x"[..]).expect("member");
            let mut tar = b.into_inner().expect("tar");
            tar.truncate(tar.len() - 1024);
            gzip(&tar)
        };
        let mut two = member("one");
        two.extend(member("two"));
        let dir = tempfile::tempdir().expect("tempdir");
        let mut budget = Budget::new(limits(9, 1 << 20, 200, 1 << 20));
        budget.receive(two.len() as u64);
        let got = unpack_from(io::Cursor::new(&two), "two.tgz", Kind::TarGz, dir.path(), &mut budget, Ctx::silent());
        assert_eq!(got.map(|u| u.entries), Ok(2));
        assert!(dir.path().join("two").is_file());
    }

    /// Data after the end-of-archive blocks (a second tar, a zip appended) is refused: other
    /// tools would unpack a tree this reader never saw.
    #[test]
    fn data_after_the_end_of_the_archive_is_refused() {
        let mut two = tar_of(1);
        two.extend(tar_of(2));
        let e = run(&two, Kind::Tar, limits(9, 1 << 20, 200, 1 << 20)).expect_err("refused");
        assert!(matches!(e.kind, RefusalKind::Malformed(ref m) if m.contains("end-of-archive")), "{e}");
        let mut padded = tar_of(1);
        padded.extend(vec![0u8; 10240]);
        assert!(run(&padded, Kind::Tar, limits(9, 1 << 20, 200, 1 << 20)).is_ok(), "zeros after the end are padding");
    }

    /// A PAX sparse member is stored under a name that is not its own: refused.
    #[test]
    fn a_pax_sparse_member_is_refused() {
        let mut b = tar::Builder::new(Vec::new());
        b.append_pax_extensions([("GNU.sparse.major", &b"1"[..]), ("GNU.sparse.name", &b"repo/HEAD"[..])])
            .expect("pax");
        let mut h = tar::Header::new_ustar();
        h.set_size(1);
        h.set_mode(0o644);
        b.append_data(&mut h, "repo/GNUSparseFile.0/HEAD", &b"x"[..]).expect("member");
        let e = run(&b.into_inner().expect("tar"), Kind::Tar, limits(9, 1 << 20, 200, 1 << 20)).expect_err("refused");
        assert!(matches!(e.kind, RefusalKind::SpecialFile { .. }), "{e}");
    }

    /// A zip bomb declared small (its sizes rewritten to 1): refused by the reader or by the
    /// metered copy, having written no more than the cap.
    #[test]
    fn a_zip_member_lying_about_its_size_is_still_capped() {
        let mut w = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        w.start_file("zeros", zip::write::SimpleFileOptions::default()).expect("member");
        io::copy(&mut io::repeat(0).take(4 << 20), &mut w).expect("write");
        let mut bytes = w.finish().expect("zip").into_inner();
        for (sig, at) in [(&b"PK\x03\x04"[..], 22), (&b"PK\x01\x02"[..], 24)] {
            let i = bytes.windows(4).position(|x| x == sig).expect("header");
            bytes[i + at..i + at + 4].copy_from_slice(&1u32.to_le_bytes());
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let mut budget = Budget::new(limits(9, 1 << 30, 10, 1 << 16));
        budget.receive(bytes.len() as u64);
        let got = unpack_from(io::Cursor::new(&bytes), "lying.zip", Kind::Zip, dir.path(), &mut budget, Ctx::silent());
        assert!(got.is_err(), "{got:?}");
        let written = std::fs::metadata(dir.path().join("zeros")).map_or(0, |m| m.len());
        assert!(written <= (bytes.len() as u64) * 10 + (1 << 16) + 1, "{written} bytes written");
    }
}

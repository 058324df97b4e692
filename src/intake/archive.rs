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

use crate::progress::Ctx;

/// The caps an archive is unpacked within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Members (files, directories, links) in one archive.
    pub max_entries: u64,
    /// Bytes written for one archive, all members together.
    pub max_bytes: u64,
    /// Bytes a member may expand to per compressed byte (zip: per member; gzip: the stream).
    pub max_ratio: u64,
    /// Bytes any stream may produce before the ratio applies (small archives compress well).
    pub ratio_slack: u64,
}

impl Default for Limits {
    /// 200,000 members, 16 GiB, 200 bytes per compressed byte after the first 64 MiB: a
    /// repository's objects are compressed already, so an honest archive of clones expands a
    /// few times at most, and deflate's own ceiling is about 1,032.
    fn default() -> Self {
        Limits { max_entries: 200_000, max_bytes: 16 << 30, max_ratio: 200, ratio_slack: 64 << 20 }
    }
}

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
        }
    }
}

/// An archive, or a member of it, that is refused (exit 2): which, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{archive}: member {member:?}: {reason}")]
pub struct Refused {
    /// The archive as given.
    pub archive: String,
    /// The member's name as the archive spells it (or what part of the archive is at fault).
    pub member: String,
    /// Why.
    pub reason: String,
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
    if head.starts_with(b"# v2 git bundle\n") || head.starts_with(b"# v3 git bundle\n") {
        Some(Kind::Bundle)
    } else if head.starts_with(&[0x1f, 0x8b]) {
        Some(Kind::TarGz)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(Kind::Zip)
    } else if head.get(257..262) == Some(b"ustar") {
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
/// directory the caller owns. Nothing is written outside `dest`; on `Err` the caller removes
/// `dest` with whatever was written before the refusal.
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
    limits: Limits,
    ctx: Ctx<'_>,
) -> Result<Unpacked, Refused> {
    let file = std::fs::File::open(archive).map_err(|e| Refused {
        archive: shown.to_owned(),
        member: "(the archive)".to_owned(),
        reason: format!("cannot be read: {e}"),
    })?;
    unpack_from(io::BufReader::new(file), shown, kind, dest, limits, ctx)
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
    limits: Limits,
    ctx: Ctx<'_>,
) -> Result<Unpacked, Refused> {
    let refuse =
        |member: &str, reason: String| Refused { archive: shown.to_owned(), member: member.to_owned(), reason };
    let mut sink = Sink::new(dest, limits);
    let result = match kind {
        Kind::Zip => zip(reader, &mut sink, ctx),
        Kind::Tar => tar(reader, &mut sink, None, ctx),
        Kind::TarGz => {
            let consumed = Rc::new(Cell::new(0));
            let counted = Counting { inner: reader, count: Rc::clone(&consumed) };
            tar(flate2::read::GzDecoder::new(counted), &mut sink, Some(consumed), ctx)
        }
        Kind::Bundle => Err(("(the archive)".to_owned(), "a git bundle is cloned, not unpacked".to_owned())),
    };
    result.and_then(|()| sink.links_stay_inside()).map_err(|(member, reason)| refuse(&member, reason))?;
    Ok(Unpacked { entries: sink.entries, bytes: sink.bytes })
}

/// A member refused: its name and why.
type Refusal = (String, String);

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
    limits: Limits,
    entries: u64,
    bytes: u64,
    /// Each name written, by its lower-case form: a case-insensitive file system (macOS,
    /// Windows) would put two of them in one file.
    names: BTreeMap<String, (String, bool)>,
    /// Symlinks written: nothing may be written below one.
    symlinks: BTreeSet<String>,
}

impl<'a> Sink<'a> {
    fn new(dest: &'a Path, limits: Limits) -> Self {
        Sink { dest, limits, entries: 0, bytes: 0, names: BTreeMap::new(), symlinks: BTreeSet::new() }
    }

    /// Writes one member, or says why it is refused. `compressed` is the member's compressed
    /// size when the format says it (zip), for the ratio check.
    fn put(&mut self, raw: &[u8], entry: Entry<'_>, compressed: Option<u64>) -> Result<(), String> {
        let is_dir = matches!(entry, Entry::Dir);
        let Some(rel) = self.admit(raw, is_dir)? else { return Ok(()) };
        let path = self.dest.join(&rel);
        let io = |what: &str, e: io::Error| format!("{what}: {e}");
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("creating its directory", e))?;
        }
        match entry {
            Entry::Dir => std::fs::create_dir_all(&path).map_err(|e| io("creating the directory", e)),
            Entry::File(r) => self.write_file(&path, r, compressed),
            Entry::Symlink(target) => self.symlink(&rel, &path, &target),
            Entry::HardLink(target) => self.hard_link(&rel, &path, &target),
        }
    }

    /// The member's name as a path inside the tree, once it is known to be safe and new;
    /// `None` for the archive's root directory (`./`).
    fn admit(&mut self, raw: &[u8], is_dir: bool) -> Result<Option<String>, String> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(format!("the archive holds more than {} members", self.limits.max_entries));
        }
        let rel = clean_name(raw)?;
        if rel.is_empty() {
            return if is_dir { Ok(None) } else { Err("names no file (an empty path)".into()) };
        }
        if let Some(link) = self.symlinks.iter().find(|l| rel.starts_with(&format!("{l}/"))) {
            return Err(format!("lies below the symlink {link:?}, so writing it would follow the link"));
        }
        match self.names.get(&rel.to_lowercase()) {
            Some((earlier, true)) if *earlier == rel && is_dir => return Ok(None),
            Some((earlier, _)) if *earlier == rel => {
                return Err("appears twice in the archive (a duplicate name)".into());
            }
            Some((earlier, _)) => {
                return Err(format!(
                    "differs from the member {earlier:?} only in case; a case-insensitive file system would unpack them into one file"
                ));
            }
            None => {}
        }
        self.names.insert(rel.to_lowercase(), (rel.clone(), is_dir));
        Ok(Some(rel))
    }

    fn write_file(&mut self, path: &Path, r: &mut dyn Read, compressed: Option<u64>) -> Result<(), String> {
        // `create_new`: never over an existing file, and never through a symlink at the end.
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| format!("creating the file: {e}"))?;
        let room = self.limits.max_bytes.saturating_sub(self.bytes);
        let ratio_cap =
            compressed.map(|c| c.saturating_mul(self.limits.max_ratio).saturating_add(self.limits.ratio_slack));
        let cap = ratio_cap.map_or(room, |r| r.min(room));
        let written = io::copy(&mut r.take(cap.saturating_add(1)), &mut out).map_err(|e| read_error(&e))?;
        if written > cap {
            return Err(if ratio_cap.is_some_and(|r| r < room) {
                format!(
                    "expands to more than {cap} bytes from {} compressed (more than {} times): a zip bomb",
                    compressed.unwrap_or_default(),
                    self.limits.max_ratio
                )
            } else {
                format!("the archive unpacks to more than {} bytes", self.limits.max_bytes)
            });
        }
        self.bytes += written;
        Ok(())
    }

    fn symlink(&mut self, rel: &str, path: &Path, target: &str) -> Result<(), String> {
        if target.is_empty() || target.contains('\0') {
            return Err("a symlink with an empty or NUL-bearing target".into());
        }
        if target.starts_with('/') || target.contains('\\') || has_drive(target) {
            return Err(format!("a symlink to the absolute path {target:?}, outside the archive"));
        }
        let parent = rel.rsplit_once('/').map_or("", |(p, _)| p);
        if resolve(parent, target).is_none() {
            return Err(format!("a symlink to {target:?}, which leaves the archive's tree"));
        }
        self.symlinks.insert(rel.to_owned());
        symlink(target, path).map_err(|e| format!("creating the symlink: {e}"))
    }

    fn hard_link(&mut self, rel: &str, path: &Path, target: &str) -> Result<(), String> {
        let t = clean_name(target.as_bytes()).map_err(|why| format!("a hard link whose target {target:?} {why}"))?;
        let earlier = self.names.get(&t.to_lowercase()).filter(|(n, dir)| *n == t && !dir);
        if earlier.is_none() || self.symlinks.contains(&t) || t == rel {
            return Err(format!("a hard link to {target:?}, which is not a file unpacked before it from this archive"));
        }
        // A copy, not a link: the tree shares no inode with anything, and the bytes count.
        let mut from = std::fs::File::open(self.dest.join(&t)).map_err(|e| format!("reading its target: {e}"))?;
        self.write_file(path, &mut from, None)
    }

    /// After the last member: every symlink resolves inside the tree on disk too (a link may
    /// go through another link, which the names alone do not show), or nowhere.
    fn links_stay_inside(&self) -> Result<(), Refusal> {
        let root = self.dest.canonicalize().map_err(|e| ("(the archive)".to_owned(), e.to_string()))?;
        for l in &self.symlinks {
            if let Ok(real) = self.dest.join(l).canonicalize()
                && !real.starts_with(&root)
            {
                return Err((
                    l.clone(),
                    "a symlink that resolves outside the archive's tree (through another link)".into(),
                ));
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
pub fn clean_name(raw: &[u8]) -> Result<String, String> {
    let name = std::str::from_utf8(raw).map_err(|_| "a name that is not UTF-8".to_owned())?;
    if name.contains('\0') {
        return Err("a name holding a NUL byte".into());
    }
    if name.starts_with('/') || has_drive(name) {
        return Err("an absolute path: unpacking it would write outside the archive's tree".into());
    }
    if name.contains('\\') {
        return Err(
            "a name holding a backslash (a Windows path separator, read as `..` or a drive by some tools)".into()
        );
    }
    let mut parts = Vec::new();
    for c in name.split('/') {
        match c {
            "" | "." => {}
            ".." => return Err("a `..` component: unpacking it would write outside the archive's tree".into()),
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

fn read_error(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "the archive ends inside this member (truncated)".into(),
        _ => format!("cannot be read: {e}"),
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

fn tar<R: Read>(inner: R, sink: &mut Sink<'_>, consumed: Option<Rc<Cell<u64>>>, ctx: Ctx<'_>) -> Result<(), Refusal> {
    let tripped = Rc::new(Cell::new(false));
    let ratio = sink.limits.max_ratio;
    let metered = Metered {
        inner,
        produced: 0,
        consumed: consumed.unwrap_or_else(|| Rc::new(Cell::new(u64::MAX / 2))),
        limits: sink.limits,
        tripped: Rc::clone(&tripped),
    };
    let mut archive = tar::Archive::new(metered);
    let mut last = String::from("(the first member)");
    let bomb = |last: &str| -> Refusal {
        (last.to_owned(), format!("the gzip stream expands more than {ratio} times its compressed size: a gzip bomb"))
    };
    let entries = archive.entries().map_err(|e| (last.clone(), format!("not a tar archive: {e}")))?;
    for entry in entries {
        ctx.check().map_err(|e| (last.clone(), e.to_string()))?;
        let mut entry = match entry {
            Ok(e) => e,
            Err(_) if tripped.get() => return Err(bomb(&last)),
            Err(e) => return Err((format!("after {last}"), format!("the archive is truncated or malformed: {e}"))),
        };
        let raw = entry.path_bytes().into_owned();
        last = String::from_utf8_lossy(&raw).into_owned();
        let link = || -> Result<String, String> {
            let t = entry.link_name_bytes().ok_or("a link without a target")?;
            String::from_utf8(t.into_owned()).map_err(|_| "a link target that is not UTF-8".to_owned())
        };
        let kind = entry.header().entry_type();
        let put = match kind {
            tar::EntryType::Directory => sink.put(&raw, Entry::Dir, None),
            tar::EntryType::Regular | tar::EntryType::Continuous => sink.put(&raw, Entry::File(&mut entry), None),
            tar::EntryType::Symlink => link().and_then(|t| sink.put(&raw, Entry::Symlink(t), None)),
            tar::EntryType::Link => link().and_then(|t| sink.put(&raw, Entry::HardLink(t), None)),
            tar::EntryType::XGlobalHeader => Ok(()),
            tar::EntryType::Char => Err("a character device file".into()),
            tar::EntryType::Block => Err("a block device file".into()),
            tar::EntryType::Fifo => Err("a FIFO (named pipe)".into()),
            other => Err(format!("an entry of a type not unpacked ({other:?})")),
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
    Ok(())
}

fn zip<R: Read + io::Seek>(reader: R, sink: &mut Sink<'_>, ctx: Ctx<'_>) -> Result<(), Refusal> {
    let whole = |why: String| ("(the central directory)".to_owned(), why);
    let mut archive = zip::ZipArchive::new(reader).map_err(|e| whole(format!("not a readable zip archive: {e}")))?;
    if archive.len() as u64 > sink.limits.max_entries {
        return Err(whole(format!(
            "the archive holds {} members, more than {}",
            archive.len(),
            sink.limits.max_entries
        )));
    }
    for i in 0..archive.len() {
        ctx.check().map_err(|e| whole(e.to_string()))?;
        let mut f = archive.by_index(i).map_err(|e| (format!("#{i}"), format!("cannot be read: {e}")))?;
        let raw = f.name_raw().to_vec();
        let shown = String::from_utf8_lossy(&raw).into_owned();
        let mode = f.unix_mode().unwrap_or(0);
        let compressed = f.compressed_size();
        let put = match mode & 0o170_000 {
            0o020_000 => Err("a character device file".into()),
            0o060_000 => Err("a block device file".into()),
            0o010_000 => Err("a FIFO (named pipe)".into()),
            0o140_000 => Err("a socket".into()),
            0o120_000 => {
                let mut target = Vec::new();
                (&mut f).take(4096).read_to_end(&mut target).map_err(|e| (shown.clone(), read_error(&e)))?;
                String::from_utf8(target)
                    .map_err(|_| "a symlink target that is not UTF-8".to_owned())
                    .and_then(|t| sink.put(&raw, Entry::Symlink(t), None))
            }
            _ if f.is_dir() => sink.put(&raw, Entry::Dir, None),
            // The declared size is the sender's word: too large, refused before a byte is
            // written; too small, the metered copy still stops at the cap.
            _ if f.size()
                > compressed.saturating_mul(sink.limits.max_ratio).saturating_add(sink.limits.ratio_slack) =>
            {
                Err(format!(
                    "declares {} bytes from {compressed} compressed (more than {} times): a zip bomb",
                    f.size(),
                    sink.limits.max_ratio
                ))
            }
            _ => sink.put(&raw, Entry::File(&mut f), Some(compressed)),
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

    fn run(data: &[u8], kind: Kind, limits: Limits) -> Result<Unpacked, Refused> {
        let dir = tempfile::tempdir().expect("tempdir");
        unpack_from(io::Cursor::new(data), "a.tar", kind, dir.path(), limits, Ctx::silent())
    }

    #[test]
    fn the_member_and_byte_caps_hold_exactly() {
        let small = Limits { max_entries: 3, max_bytes: 3, max_ratio: 200, ratio_slack: 1 << 20 };
        assert_eq!(run(&tar_of(3), Kind::Tar, small), Ok(Unpacked { entries: 3, bytes: 3 }));
        let e = run(&tar_of(4), Kind::Tar, small).expect_err("four members");
        assert_eq!((e.member.as_str(), e.reason.as_str()), ("3", "the archive holds more than 3 members"));
        let e = run(&tar_of(4), Kind::Tar, Limits { max_entries: 9, ..small }).expect_err("four bytes");
        assert!(e.reason.contains("more than 3 bytes"), "{e}");
    }

    #[test]
    fn a_gzip_stream_is_metered_against_its_compressed_bytes() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(4 << 20);
        h.set_mode(0o644);
        b.append_data(&mut h, "zeros", io::repeat(0).take(4 << 20)).expect("member");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        io::Write::write_all(&mut gz, &b.into_inner().expect("tar")).expect("gzip");
        let bomb = gz.finish().expect("gzip");
        let tight = Limits { max_entries: 9, max_bytes: 1 << 30, max_ratio: 10, ratio_slack: 1 << 16 };
        let e = run(&bomb, Kind::TarGz, tight).expect_err("a bomb");
        assert!(e.reason.contains("gzip bomb") && e.member == "zeros", "{e}");
        let loose = Limits { max_ratio: 2000, ..tight };
        assert_eq!(run(&bomb, Kind::TarGz, loose).map(|u| u.bytes), Ok(4 << 20));
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
        let tight = Limits { max_entries: 9, max_bytes: 1 << 30, max_ratio: 10, ratio_slack: 1 << 16 };
        let dir = tempfile::tempdir().expect("tempdir");
        let got = unpack_from(io::Cursor::new(&bytes), "lying.zip", Kind::Zip, dir.path(), tight, Ctx::silent());
        assert!(got.is_err(), "{got:?}");
        let written = std::fs::metadata(dir.path().join("zeros")).map_or(0, |m| m.len());
        assert!(written <= (bytes.len() as u64) * 10 + (1 << 16) + 1, "{written} bytes written");
    }
}

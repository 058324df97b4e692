//! Loose objects read with plain `read`s. gix maps every loose file it reads, and in a process
//! with more than one thread each unmapping is a cross-core TLB shootdown: a Proof-or-Stop
//! bundle, whose story diff reads a hundred loose trees beside the `materialHash` walk, spent
//! 8–16% of its samples in them (`benches/README.md`).
//!
//! The reader reads what gix would read (the file `objects/xx/rest`, its header
//! `<kind> <size>\0` decoded by gix, the body inflated to exactly that size and to the end of
//! its zlib stream, checksum included) and hands anything else back to gix, which then answers
//! (and names the error) exactly as before: a file that is not there, not a regular file, larger
//! than [`MAX_FILE_BYTES`] (a map costs less than a copy then), or that does not inflate cleanly.
//! One answer differs, on purpose: the id is recomputed, and a file whose bytes hash to another
//! id is named as damage ([`Read::Other`]). gix answered such a file's bytes as the object,
//! even where a pack holds the object and git reads the pack. The storage seal
//! (`storage::inspect`) checks every loose object through [`verify_all`], which reads each file
//! the same way on every core (gix's own check mapped them one at a time).

use std::cell::RefCell;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use flate2::{Decompress, FlushDecompress, Status};
use gix::ObjectId;
use gix::object::Kind;

/// Largest loose file read into memory; larger ones are left to gix's map.
pub(super) const MAX_FILE_BYTES: u64 = 1 << 20;

/// Bytes of a header: `commit 18446744073709551615\0` is 28.
const HEADER_BYTES: usize = 64;

/// The loose objects of one object directory (not its alternates: gix reads those).
#[derive(Debug)]
pub(super) struct Loose {
    dir: PathBuf,
    /// One bit per first byte of an id: whether `objects/xx` was a directory at open. An id
    /// whose directory was not there goes to gix without a failed `open`, so a packed
    /// repository (no such directory) pays nothing.
    fanout: [u64; 4],
}

thread_local! {
    /// The compressed bytes and the inflater, reused by every read on a thread.
    static SCRATCH: RefCell<(Vec<u8>, Decompress)> = RefCell::new((Vec::new(), Decompress::new(true)));
}

impl Loose {
    /// The loose store of `objects`, or `None` when it has no fan-out directory.
    pub(super) fn at(objects: &Path) -> Option<Loose> {
        let mut fanout = [0u64; 4];
        for entry in std::fs::read_dir(objects).ok()?.flatten() {
            if let Some(byte) = fan_byte(entry.file_name().as_encoded_bytes())
                && entry.file_type().is_ok_and(|t| t.is_dir())
            {
                fanout[usize::from(byte >> 6)] |= 1 << (byte & 63);
            }
        }
        fanout.iter().any(|w| *w != 0).then(|| Loose { dir: objects.to_owned(), fanout })
    }

    fn may_hold(&self, id: &ObjectId) -> bool {
        let byte = id.as_bytes()[0];
        self.fanout[usize::from(byte >> 6)] & (1 << (byte & 63)) != 0
    }

    /// Where `id`'s loose file is.
    pub(super) fn path(&self, id: &ObjectId) -> PathBuf {
        let hex = id.to_hex().to_string();
        let mut path = self.dir.join(&hex[..2]);
        path.push(&hex[2..]);
        path
    }

    /// Reads the compressed file of `id` into `compressed`, if [`Loose::may_hold`] it.
    fn read_file(&self, id: &ObjectId, compressed: &mut Vec<u8>) -> Taken {
        if self.may_hold(id) { read_file(&self.path(id), compressed) } else { Taken::Absent }
    }

    /// `id`'s kind, its bytes in `out` (cleared first), when its loose file holds at most `cap`
    /// bytes that inflate cleanly; `None` when no regular file is there. The id is recomputed: a
    /// file whose bytes hash to another id is [`Read::Other`], never an answer. gix does not
    /// recompute it, and answers such a file even where a pack holds the object (git reads
    /// the pack first).
    pub(super) fn read(&self, id: &ObjectId, out: &mut Vec<u8>, cap: u64) -> Option<Read> {
        SCRATCH.with_borrow_mut(|(compressed, inflater)| {
            match self.read_file(id, compressed) {
                Taken::Absent => return None,
                Taken::Declined => return Some(Read::Declined),
                Taken::Read => {}
            }
            let Some(kind) = inflate(inflater, compressed, out, cap) else { return Some(Read::Declined) };
            let Ok(actual) = gix::objs::compute_hash(id.kind(), kind, out) else { return Some(Read::Declined) };
            Some(if actual == *id { Read::Object(kind) } else { Read::Other { path: self.path(id), actual } })
        })
    }
}

/// What [`Loose::read`] found in a regular file at an id's loose path.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// A file this reader does not take (too large, above the cap, or not a clean stream):
    /// gix reads it, and what gix answers must hash to the id.
    Declined,
    /// The object, of this kind.
    Object(Kind),
    /// Another object than the one the file's name promises.
    Other {
        /// The file.
        path: PathBuf,
        /// The id its bytes hash to.
        actual: ObjectId,
    },
}

/// What [`read_file`] did with a path.
enum Taken {
    /// No regular file there.
    Absent,
    /// A regular file, not read (empty, above [`MAX_FILE_BYTES`], or unreadable).
    Declined,
    /// Its bytes are in the buffer.
    Read,
}

/// Reads the compressed file at `path` into `compressed`.
fn read_file(path: &Path, compressed: &mut Vec<u8>) -> Taken {
    // The type first: opening a FIFO for reading waits for a writer (gix asks `is_file` too).
    let Ok(meta) = std::fs::metadata(path) else { return Taken::Absent };
    if !meta.is_file() {
        return Taken::Absent;
    }
    let len = meta.len();
    if len == 0 || len > MAX_FILE_BYTES {
        return Taken::Declined;
    }
    let Ok(mut file) = std::fs::File::open(path) else { return Taken::Declined };
    // Git never rewrites a loose file in place; a file cut short meanwhile fails the read, one
    // grown meanwhile leaves a stream that does not end, and gix answers either way.
    compressed.clear();
    compressed.resize(usize::try_from(len).expect("at most MAX_FILE_BYTES"), 0);
    if file.read_exact(compressed).is_ok() { Taken::Read } else { Taken::Declined }
}

/// The loose file at `path`, which names `id`, read as a lookup reads it: its kind, and its
/// bytes in `out`.
fn read_at(path: &Path, id: &ObjectId, objects: &Path, out: &mut Vec<u8>) -> Result<Kind, String> {
    let ours = SCRATCH.with_borrow_mut(|(compressed, inflater)| match read_file(path, compressed) {
        Taken::Read => inflate(inflater, compressed, out, u64::MAX),
        Taken::Absent | Taken::Declined => None,
    });
    if let Some(kind) = ours {
        return Ok(kind);
    }
    match gix::odb::loose::Store::at(objects, id.kind()).try_find(id, out) {
        Ok(Some(data)) => {
            let (kind, len) = (data.kind, data.data.len());
            out.truncate(len);
            Ok(kind)
        }
        Ok(None) => Err("removed while it was read".to_owned()),
        Err(e) => Err(e.to_string().lines().next().unwrap_or_default().to_owned()),
    }
}

/// Checks every loose object of the object directory `objects` in full: each file under a
/// fan-out directory (`objects/xx`, followed if a symbolic link, since a lookup follows it)
/// whose name completes an id inflates, hashes to that id and decodes as its kind (what gix's
/// `verify_integrity` checks, on every core and without a map per file). Other files are
/// never read by a lookup and are skipped.
///
/// # Errors
/// The first damaged or unreadable object by id (the same on every run), named, with the reason.
pub(super) fn verify_all(objects: &Path, hash: gix::hash::Kind, interrupt: &AtomicBool) -> Result<(), String> {
    use rayon::prelude::*;
    let files = object_files(objects, hash)?;
    let results: Vec<Result<(), String>> = files
        .par_iter()
        .map_init(Vec::new, |buf, (id, path)| {
            if interrupt.load(Ordering::Relaxed) {
                return Err("interrupted".to_owned());
            }
            verify_one(path, id, objects, buf).map_err(|reason| format!("{} ({id}): {reason}", path.display()))
        })
        .collect();
    results.into_iter().find_map(Result::err).map_or(Ok(()), Err)
}

fn verify_one(path: &Path, id: &ObjectId, objects: &Path, buf: &mut Vec<u8>) -> Result<(), String> {
    // A lookup asks `is_file` before it opens (gix's `contains`): anything else under an
    // object's name (a FIFO, whose opening would wait for a writer; a directory; a dangling
    // link) is never read, so it holds nothing to check.
    if !path.is_file() {
        return Ok(());
    }
    let kind = read_at(path, id, objects, buf)?;
    let actual = gix::objs::compute_hash(id.kind(), kind, buf).map_err(|e| e.to_string())?;
    if actual != *id {
        return Err(format!("its bytes hash to {actual}"));
    }
    gix::objs::Data::new(buf, kind, id.kind()).decode().map_err(|e| format!("it does not decode as a {kind} ({e})"))?;
    Ok(())
}

/// Every (id, path) of a loose file in `objects`, sorted by id.
fn object_files(objects: &Path, hash: gix::hash::Kind) -> Result<Vec<(ObjectId, PathBuf)>, String> {
    let named = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let mut files = Vec::new();
    let top = match std::fs::read_dir(objects) {
        Ok(top) => top,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(e) => return Err(named(objects, e)),
    };
    let rest = hash.len_in_hex() - 2;
    let mut fans = Vec::new();
    for entry in top {
        let entry = entry.map_err(|e| named(objects, e))?;
        let fan = entry.file_name();
        if fan.len() == 2 && is_hex(fan.as_encoded_bytes()) && entry.path().is_dir() {
            fans.push(fan);
        }
    }
    // In name order, so that an unreadable directory is named the same on every run.
    fans.sort();
    for fan in fans {
        let dir = objects.join(&fan);
        for file in std::fs::read_dir(&dir).map_err(|e| named(&dir, e))? {
            let file = file.map_err(|e| named(&dir, e))?;
            let name = file.file_name();
            if name.len() != rest || !is_hex(name.as_encoded_bytes()) {
                continue;
            }
            let hex = [fan.as_encoded_bytes(), name.as_encoded_bytes()].concat().to_ascii_lowercase();
            let id = ObjectId::from_hex(&hex).map_err(|e| format!("{}: {e}", file.path().display()))?;
            files.push((id, file.path()));
        }
    }
    files.sort();
    Ok(files)
}

fn is_hex(name: &[u8]) -> bool {
    name.iter().all(u8::is_ascii_hexdigit)
}

/// The kind and body of the loose object whose file holds `compressed`, the body in `out`
/// (cleared first); `None` unless the stream inflates cleanly to a header and exactly the body
/// it states. (The fuzz target's and the tests' entry; reads go through [`Loose::read`].)
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn decode(compressed: &[u8], out: &mut Vec<u8>) -> Option<Kind> {
    SCRATCH.with_borrow_mut(|(_, inflater)| inflate(inflater, compressed, out, u64::MAX))
}

/// [`decode`] on the thread's inflater, refusing (`None`) an object stated above `cap` bytes.
fn inflate(inflater: &mut Decompress, compressed: &[u8], out: &mut Vec<u8>, cap: u64) -> Option<Kind> {
    let head = Head::inflate(inflater, compressed)?;
    // Deflate cannot expand a byte to more than 1,032: a header stating more is damaged, and
    // gix names that.
    if head.size > cap || head.size > (compressed.len() as u64).saturating_mul(1032) {
        return None;
    }
    let size = usize::try_from(head.size).ok()?;
    let body = head.body();
    if body.len() > size {
        return None;
    }
    out.clear();
    out.try_reserve_exact(size).ok()?;
    out.extend_from_slice(body);
    let status = if head.ended {
        Status::StreamEnd
    } else {
        // `decompress_vec` writes into the spare capacity only; the one spare byte lets a
        // stream longer than its header states show as such.
        out.try_reserve_exact(1).ok()?;
        let consumed = usize::try_from(inflater.total_in()).ok()?;
        inflater.decompress_vec(&compressed[consumed..], out, FlushDecompress::Finish).ok()?
    };
    (status == Status::StreamEnd && out.len() == size).then_some(head.kind)
}

/// The first bytes of a loose object's stream, inflated, and its header decoded.
struct Head {
    bytes: [u8; HEADER_BYTES],
    produced: usize,
    /// Where the body starts in `bytes`.
    body: usize,
    kind: Kind,
    size: u64,
    /// Whether the stream ended within `bytes` (a small object).
    ended: bool,
}

impl Head {
    fn inflate(inflater: &mut Decompress, compressed: &[u8]) -> Option<Head> {
        inflater.reset(true);
        let mut bytes = [0u8; HEADER_BYTES];
        let status = inflater.decompress(compressed, &mut bytes, FlushDecompress::None).ok()?;
        let produced = usize::try_from(inflater.total_out()).ok()?;
        let (kind, size, body) = gix::objs::decode::loose_header(&bytes[..produced]).ok()?;
        Some(Head { bytes, produced, body, kind, size, ended: status == Status::StreamEnd })
    }

    fn body(&self) -> &[u8] {
        &self.bytes[self.body..self.produced]
    }
}

/// The byte a fan-out directory's two-hex-digit name stands for.
fn fan_byte(name: &[u8]) -> Option<u8> {
    let [hi, lo] = name else { return None };
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    Some(digit(*hi)? << 4 | digit(*lo)?)
}

//! A read-only reader of git's reftable ref storage (`git init --ref-format=reftable`), written
//! from git's format description (Documentation/technical/reftable): gix reads only the files
//! format. Only ref blocks are read; log, object and index blocks carry nothing a verdict needs.
//!
//! Every byte is untrusted: reads are bounds-checked, files are size-capped, the expanded ref
//! names of a table are capped at a small multiple of its size (prefix compression could
//! otherwise make them quadratic), and every failure names the file and the reason.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::BString;

/// Largest table read; a ledger repository holds a handful of refs.
pub(crate) const MAX_TABLE_BYTES: u64 = 64 << 20;
/// Largest `tables.list` read.
pub(crate) const MAX_LIST_BYTES: u64 = 1 << 20;
/// Longest ref name accepted (git's files backend is bounded by `PATH_MAX` alike).
pub(crate) const MAX_NAME_BYTES: usize = 4096;

/// What a ref holds once tables are merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefValue {
    /// An object id (for an annotated tag: the tag object, not the peeled id).
    Id(ObjectId),
    /// A symbolic ref to another ref name.
    Symbolic(BString),
}

/// Merged refs by full name (`HEAD`, `refs/heads/main`).
pub(crate) type RefMap = BTreeMap<BString, RefValue>;

/// A reftable that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub(crate) struct ReftableError {
    /// The file at fault.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// One table's ref records in table order: `None` is a deletion.
pub(crate) type Records = Vec<(BString, Option<RefValue>)>;

/// Reads the stack in `dir` (a `reftable` directory): the tables named in `tables.list`, oldest
/// first, merged so that a newer table's record of a name wins and a deletion hides it.
///
/// # Errors
/// A missing, oversized or malformed `tables.list` or table, named with the reason.
pub(crate) fn read_stack(dir: &Path, hash: gix::hash::Kind) -> Result<RefMap, ReftableError> {
    let list_path = dir.join("tables.list");
    let list = read_capped(&list_path, MAX_LIST_BYTES)?;
    let err = |reason: String| ReftableError { path: list_path.clone(), reason };
    let list = std::str::from_utf8(&list).map_err(|_| err("not UTF-8".into()))?;
    let mut refs = RefMap::new();
    for name in list.lines() {
        // A table name is a plain file name in this directory, never a path.
        let plain = !name.is_empty()
            && !name.starts_with('.')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
        if !plain {
            return Err(err(format!("`{}` is not a table file name", name.escape_debug())));
        }
        let path = dir.join(name);
        let data = read_capped(&path, MAX_TABLE_BYTES)?;
        let records = parse_table(&data, hash).map_err(|reason| ReftableError { path: path.clone(), reason })?;
        for (name, value) in records {
            match value {
                Some(v) => refs.insert(name, v),
                None => refs.remove(&name),
            };
        }
    }
    Ok(refs)
}

/// Reads a regular file (never through a symlink) of at most `limit` bytes.
fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, ReftableError> {
    let err = |reason: String| ReftableError { path: path.to_owned(), reason };
    let meta = std::fs::symlink_metadata(path).map_err(|e| err(e.to_string()))?;
    if !meta.file_type().is_file() {
        return Err(err("not a regular file".into()));
    }
    let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let mut data = Vec::new();
    file.take(limit + 1).read_to_end(&mut data).map_err(|e| err(e.to_string()))?;
    if data.len() as u64 > limit {
        return Err(err(format!("larger than the {limit}-byte limit")));
    }
    Ok(data)
}

/// Bounds-checked big-endian reads over a byte slice.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let stop = self.pos.checked_add(n).filter(|&s| s <= self.end).ok_or_else(|| format!("truncated {what}"))?;
        let out = &self.data[self.pos..stop];
        self.pos = stop;
        Ok(out)
    }

    fn byte(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    /// git's offset varint: each continuation adds one before shifting, so every value has a
    /// single encoding.
    fn varint(&mut self, what: &str) -> Result<u64, String> {
        let mut b = self.byte(what)?;
        let mut val = u64::from(b & 0x7f);
        while b & 0x80 != 0 {
            b = self.byte(what)?;
            val = val
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .map(|v| v | u64::from(b & 0x7f))
                .ok_or_else(|| format!("{what} overflows"))?;
        }
        Ok(val)
    }
}

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// CRC-32 (IEEE, reflected), as the footer's checksum; the footer is 68 or 72 bytes, so the
/// bitwise form costs nothing.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Decodes one table's ref records. `hash` is the repository's object format, which the table's
/// own (version 2 states it; version 1 is SHA-1) must match.
///
/// # Errors
/// Why the table is malformed.
pub(crate) fn parse_table(data: &[u8], hash: gix::hash::Kind) -> Result<Records, String> {
    let (header_len, body_end) = ref_section(data, hash)?;
    let block_size = usize::try_from(be(&data[5..8])).map_err(|_| "block size")?;
    let hash_len = hash.len_in_bytes();
    // Expanded names may not outgrow the table by more than a small factor.
    let name_budget = data.len().saturating_mul(4).saturating_add(1 << 20);
    let mut names_total = 0usize;
    let mut records = Records::new();
    let mut prev: Vec<u8> = Vec::new();
    let mut start = 0usize;
    let mut first = true;
    loop {
        // The first block shares its bytes with the file header; its length counts them.
        let type_at = if first { header_len } else { start };
        if type_at >= body_end {
            break;
        }
        let mut c = Cursor { data, pos: type_at, end: body_end };
        let kind = c.byte("block header")?;
        if kind != b'r' {
            break;
        }
        let block_len = usize::try_from(be(c.take(3, "block header")?)).map_err(|_| "block length")?;
        let block_end = start
            .checked_add(block_len)
            .filter(|&e| e <= body_end && e >= c.pos + 2)
            .ok_or_else(|| format!("the ref block at offset {start} has an impossible length {block_len}"))?;
        if block_size > 0 && block_len > block_size {
            return Err(format!("the ref block at offset {start} is longer than the block size {block_size}"));
        }
        let restarts = usize::try_from(be(&data[block_end - 2..block_end])).map_err(|_| "restart count")?;
        let records_end = (block_end - 2)
            .checked_sub(restarts * 3)
            .filter(|&e| e >= c.pos)
            .ok_or_else(|| format!("the ref block at offset {start} has more restart points than room"))?;
        if restarts == 0 {
            return Err(format!("the ref block at offset {start} has no restart point"));
        }
        c.end = records_end;
        let mut block_first = true;
        while c.pos < records_end {
            let prefix = usize::try_from(c.varint("record")?).map_err(|_| "prefix length")?;
            let suffix_and_type = c.varint("record")?;
            let suffix = usize::try_from(suffix_and_type >> 3).map_err(|_| "suffix length")?;
            // A block's first record is a restart point and shares nothing; names still
            // ascend across blocks, so `prev` is kept for the order check.
            if block_first && prefix != 0 {
                return Err(format!("the ref block at offset {start} begins with a compressed name"));
            }
            block_first = false;
            if prefix > prev.len() {
                return Err(format!("a ref record at offset {} shares more than the previous name", c.pos));
            }
            let suffix_bytes = c.take(suffix, "ref name")?;
            let mut name = prev[..prefix].to_vec();
            name.extend_from_slice(suffix_bytes);
            if name.len() > MAX_NAME_BYTES {
                return Err(format!("a ref name is longer than {MAX_NAME_BYTES} bytes"));
            }
            if name <= prev {
                return Err(format!("ref names out of order at offset {}", c.pos));
            }
            names_total = names_total.saturating_add(name.len());
            if names_total > name_budget {
                return Err("the expanded ref names are implausibly large for the table".into());
            }
            c.varint("update index")?;
            let value = ref_value(&mut c, suffix_and_type & 7, hash_len)?;
            records.push((BString::from(name.clone()), value));
            prev = name;
        }
        first = false;
        // Aligned blocks are padded with zeros to the block size; a writer may also leave
        // them unpadded, and then the next block's type byte (never zero) follows at once.
        let padded = block_size > 0 && data.get(block_end).is_some_and(|&b| b == 0);
        start = if padded { start + block_size } else { block_end };
    }
    Ok(records)
}

/// The header's length and where the ref section ends, after checking the header, the footer's
/// copy of it and the footer's CRC.
fn ref_section(data: &[u8], hash: gix::hash::Kind) -> Result<(usize, usize), String> {
    if data.len() < 24 || &data[..4] != b"REFT" {
        return Err("not a reftable (no `REFT` header)".into());
    }
    let version = data[4];
    let (header_len, table_hash) = match version {
        1 => (24, gix::hash::Kind::Sha1),
        2 => {
            let id = data.get(24..28).ok_or("truncated header")?;
            let kind = match id {
                b"sha1" => gix::hash::Kind::Sha1,
                b"s256" => gix::hash::Kind::Sha256,
                _ => return Err(format!("unknown hash id {:?}", String::from_utf8_lossy(id))),
            };
            (28, kind)
        }
        v => return Err(format!("unsupported reftable version {v}")),
    };
    if table_hash != hash {
        return Err(format!("its ids are {table_hash}, the repository's are {hash}"));
    }
    let footer_len = header_len + 44;
    let body_end = data.len().checked_sub(footer_len).filter(|&e| e >= header_len).ok_or("truncated: no footer")?;
    let footer = &data[body_end..];
    if footer[..header_len] != data[..header_len] {
        return Err("the footer's copy of the header differs from the header".into());
    }
    let stored = u32::try_from(be(&footer[footer_len - 4..])).map_err(|_| "footer CRC")?;
    if crc32(&footer[..footer_len - 4]) != stored {
        return Err("the footer's CRC-32 does not match".into());
    }
    // The ref section ends where the footer says the next section begins (0: absent).
    let mut ref_end = body_end;
    for (at, shift) in [(0, 0), (8, 5), (24, 0)] {
        let pos = be(&footer[header_len + at..header_len + at + 8]) >> shift;
        if pos > 0 {
            ref_end = ref_end.min(usize::try_from(pos).unwrap_or(usize::MAX));
        }
    }
    Ok((header_len, ref_end))
}

/// A ref record's value of type `value_type` (0 deletion, 1 id, 2 id and peeled id, 3 symref).
fn ref_value(c: &mut Cursor<'_>, value_type: u64, hash_len: usize) -> Result<Option<RefValue>, String> {
    Ok(match value_type {
        0 => None,
        1 | 2 => {
            let id = ObjectId::try_from(c.take(hash_len, "object id")?).map_err(|e| e.to_string())?;
            if value_type == 2 {
                c.take(hash_len, "peeled id")?;
            }
            Some(RefValue::Id(id))
        }
        3 => {
            let len = usize::try_from(c.varint("symref")?).map_err(|_| "symref length")?;
            let target = c.take(len, "symref target")?;
            if target.len() > MAX_NAME_BYTES {
                return Err(format!("a symref target is longer than {MAX_NAME_BYTES} bytes"));
            }
            Some(RefValue::Symbolic(target.into()))
        }
        t => return Err(format!("unknown ref value type {t}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_use_git_offset_encoding() {
        let mut c = Cursor { data: &[0x7f, 0x80, 0x00, 0x80, 0x7f], pos: 0, end: 5 };
        assert_eq!(c.varint("v"), Ok(127));
        assert_eq!(c.varint("v"), Ok(128));
        assert_eq!(c.varint("v"), Ok(255));
        assert!(c.varint("v").is_err(), "exhausted input is an error");
    }

    /// git's offset varint, the inverse of `Cursor::varint`.
    fn put_varint(out: &mut Vec<u8>, mut v: u64) {
        let mut buf = vec![(v & 0x7f) as u8];
        while v >= 0x80 {
            v = (v >> 7) - 1;
            buf.push(0x80 | (v & 0x7f) as u8);
        }
        out.extend(buf.iter().rev());
    }

    /// A record to write: prefix length, suffix, value type, value bytes.
    type Raw<'a> = (usize, &'a [u8], u8, Vec<u8>);

    /// A version-1 table of ref blocks, one per entry of `blocks`, padded to `block_size` unless `unpadded`.
    fn table(block_size: usize, unpadded: bool, blocks: &[Vec<Raw<'_>>]) -> Vec<u8> {
        let mut header = b"REFT\x01".to_vec();
        header.extend_from_slice(&(block_size as u32).to_be_bytes()[1..]);
        header.extend_from_slice(&[0; 16]);
        let mut out = header.clone();
        for (i, records) in blocks.iter().enumerate() {
            let start = if i == 0 { 0 } else { out.len() };
            out.push(b'r');
            let len_at = out.len();
            out.extend_from_slice(&[0; 3]);
            let first = out.len() - start;
            for (prefix, suffix, kind, value) in records {
                put_varint(&mut out, *prefix as u64);
                put_varint(&mut out, ((suffix.len() as u64) << 3) | u64::from(*kind));
                out.extend_from_slice(suffix);
                put_varint(&mut out, 0);
                out.extend_from_slice(value);
            }
            out.extend_from_slice(&(first as u32).to_be_bytes()[1..]);
            out.extend_from_slice(&[0, 1]);
            let len = (out.len() - start) as u32;
            out[len_at..len_at + 3].copy_from_slice(&len.to_be_bytes()[1..]);
            if !unpadded && i + 1 < blocks.len() {
                out.resize(start + block_size, 0);
            }
        }
        let mut footer = header;
        footer.extend_from_slice(&[0; 40]);
        let crc = crc32(&footer);
        footer.extend_from_slice(&crc.to_be_bytes());
        out.extend_from_slice(&footer);
        out
    }

    fn id(n: u8) -> Vec<u8> {
        vec![n; 20]
    }

    #[test]
    fn padded_and_unpadded_blocks_read_alike() {
        let blocks = vec![
            vec![(0, &b"HEAD"[..], 3, [&[15u8][..], b"refs/heads/main"].concat()), (0, b"refs/heads/a", 1, id(1))],
            vec![(0, &b"refs/heads/b"[..], 2, [id(2), id(3)].concat()), (11, b"c", 0, vec![]), (11, b"main", 1, id(4))],
        ];
        let padded = parse_table(&table(256, false, &blocks), gix::hash::Kind::Sha1).expect("padded");
        let unpadded = parse_table(&table(256, true, &blocks), gix::hash::Kind::Sha1).expect("unpadded");
        assert_eq!(padded, unpadded);
        let names: Vec<_> = padded.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(names, ["HEAD", "refs/heads/a", "refs/heads/b", "refs/heads/c", "refs/heads/main"]);
        assert_eq!(padded[0].1, Some(RefValue::Symbolic("refs/heads/main".into())));
        assert_eq!(padded[2].1, Some(RefValue::Id(ObjectId::try_from(&id(2)[..]).expect("id"))));
        assert_eq!(padded[3].1, None);
        let e = parse_table(&table(256, false, &blocks), gix::hash::Kind::Sha256).expect_err("wrong format");
        assert!(e.contains("repository's are"), "{e}");
    }

    #[test]
    fn malformed_records_are_refused_with_a_reason() {
        let cases: [(Vec<Raw<'_>>, &str); 4] = [
            (vec![(0, b"b", 1, id(1)), (0, b"a", 1, id(1))], "out of order"),
            (vec![(0, b"a", 1, id(1)), (2, b"b", 1, id(1))], "shares more"),
            (vec![(0, b"a", 7, vec![])], "unknown ref value type"),
            (vec![(0, b"a", 3, vec![40, b'x'])], "truncated"),
        ];
        for (records, want) in cases {
            let e = parse_table(&table(0, true, &[records]), gix::hash::Kind::Sha1).expect_err(want);
            assert!(e.contains(want), "{want}: {e}");
        }
        let second = vec![vec![(0, &b"a"[..], 1, id(1))], vec![(1, &b"b"[..], 1, id(1))]];
        let e = parse_table(&table(0, true, &second), gix::hash::Kind::Sha1).expect_err("restart");
        assert!(e.contains("begins with a compressed name"), "{e}");
    }

    /// Prefix compression lets each record add one byte to a name it shares whole: names grow
    /// quadratically in the bytes unless capped.
    #[test]
    fn ever_longer_shared_names_are_capped() {
        let records: Vec<Raw<'_>> = (0..MAX_NAME_BYTES + 1).map(|i| (i, &b"a"[..], 0, vec![])).collect();
        let data = table(0, true, &[records]);
        let e = parse_table(&data, gix::hash::Kind::Sha1).expect_err("capped");
        assert!(e.contains("implausibly large"), "{e}");
        // Without the quadratic growth, a single name past the cap is refused by its length.
        let long = vec![b'a'; MAX_NAME_BYTES + 1];
        let e = parse_table(&table(0, true, &[vec![(0, &long[..], 0, vec![])]]), gix::hash::Kind::Sha1)
            .expect_err("too long");
        assert!(e.contains("longer than"), "{e}");
    }

    /// The committed fuzz seeds are real tables git 2.47 wrote.
    #[test]
    fn git_written_seeds_parse() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/reftable");
        for (seed, hash, at_least) in [
            ("sha1-commit", gix::hash::Kind::Sha1, 1),
            ("sha1-deletion", gix::hash::Kind::Sha1, 1),
            ("sha1-symref", gix::hash::Kind::Sha1, 1),
            ("sha256-tag", gix::hash::Kind::Sha256, 1),
            ("sha1-compacted-blocks", gix::hash::Kind::Sha1, 250),
        ] {
            let data = std::fs::read(dir.join(seed)).expect("seed");
            let records = parse_table(&data, hash).unwrap_or_else(|e| panic!("{seed}: {e}"));
            assert!(records.len() >= at_least, "{seed}: {} records", records.len());
        }
    }

    #[test]
    fn crc32_matches_the_ieee_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }
}

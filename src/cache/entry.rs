//! The bytes of one cache entry, and their authentication.
//!
//! The cache directory is untrusted input (CI caches are restored from pull requests), so every
//! value read back is parsed as hostile bytes: a length that overruns, a version of another
//! tool, or a MAC that does not verify rejects the entry, never the run.
//!
//! Layout: `FORMAT` (1 byte), the writer's version length `n` (1 byte) and its `n` bytes, the
//! payload length (4 bytes, little-endian) and the payload, then HMAC-SHA-256 (32 bytes) over
//! a domain tag, the table key and everything before the MAC. The table key is inside the MAC
//! so that a valid entry moved under another key (one blob's digest under another blob's id)
//! fails.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The layout version written in the first byte.
pub const FORMAT: u8 = 1;

/// The longest version string an entry may carry.
const MAX_VERSION: usize = 64;

/// Why an entry read back was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reject {
    /// The bytes do not follow the layout (truncated, overlong, another format).
    Malformed,
    /// Written by another version of the tool: its checks may have meant something else.
    OtherVersion,
    /// The MAC does not verify: written without the key, or altered since.
    BadMac,
}

/// A 32-byte MAC key; never stored in the cache directory.
#[derive(Clone)]
pub struct Key(pub(crate) [u8; 32]);

impl Key {
    /// A key from 32 raw bytes.
    #[must_use]
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Key(bytes)
    }

    /// A key derived from a secret of any length (the `CROSSVERIFY_CACHE_KEY` value).
    #[must_use]
    pub fn derive(secret: &[u8]) -> Self {
        use sha2::Digest as _;
        let mut h = Sha256::new();
        h.update(b"crossverify cache key v1\0");
        h.update(secret);
        Key(h.finalize().into())
    }

    fn mac(&self, table_key: &[u8], body: &[u8]) -> Hmac<Sha256> {
        let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        m.update(b"crossverify cache entry\0");
        m.update(&(table_key.len() as u64).to_le_bytes());
        m.update(table_key);
        m.update(body);
        m
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is a secret: never in a log or a panic message.
        f.write_str("Key(…)")
    }
}

/// The stored bytes of `payload` under `table_key`, written by tool `version`.
///
/// # Panics
/// When `version` is longer than 64 bytes or `payload` longer than 4 GiB (callers pass
/// constants and small payloads).
#[must_use]
pub fn encode(key: &Key, version: &str, table_key: &[u8], payload: &[u8]) -> Vec<u8> {
    assert!(version.len() <= MAX_VERSION, "a cache version string is at most {MAX_VERSION} bytes");
    let len = u32::try_from(payload.len()).expect("cache payloads are small");
    let mut out = Vec::with_capacity(2 + version.len() + 4 + payload.len() + 32);
    out.push(FORMAT);
    out.push(u8::try_from(version.len()).expect("checked above"));
    out.extend_from_slice(version.as_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(payload);
    let tag = key.mac(table_key, &out).finalize().into_bytes();
    out.extend_from_slice(&tag);
    out
}

/// The payload of `bytes` stored under `table_key`, when it was written by `version` with
/// `key` and not altered since.
///
/// # Errors
/// Why the entry is not used.
pub fn decode<'a>(key: &Key, version: &str, table_key: &[u8], bytes: &'a [u8]) -> Result<&'a [u8], Reject> {
    let (&format, rest) = bytes.split_first().ok_or(Reject::Malformed)?;
    if format != FORMAT {
        return Err(Reject::Malformed);
    }
    let (&n, rest) = rest.split_first().ok_or(Reject::Malformed)?;
    let n = usize::from(n);
    if n > MAX_VERSION {
        return Err(Reject::Malformed);
    }
    let written_by = rest.get(..n).ok_or(Reject::Malformed)?;
    let rest = &rest[n..];
    let len_bytes: [u8; 4] = rest.get(..4).and_then(|b| b.try_into().ok()).ok_or(Reject::Malformed)?;
    let len = usize::try_from(u32::from_le_bytes(len_bytes)).map_err(|_| Reject::Malformed)?;
    let rest = &rest[4..];
    if rest.len() != len.checked_add(32).ok_or(Reject::Malformed)? {
        return Err(Reject::Malformed);
    }
    let (payload, tag) = rest.split_at(len);
    let body = &bytes[..bytes.len() - 32];
    // The MAC first: an unauthenticated version string says nothing about who wrote it.
    key.mac(table_key, body).verify_slice(tag).map_err(|_| Reject::BadMac)?;
    if written_by != version.as_bytes() {
        return Err(Reject::OtherVersion);
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_single_byte_flip_is_rejected() {
        let key = Key::derive(b"k");
        let bytes = encode(&key, "1.0", b"blob/1", b"payload");
        assert_eq!(decode(&key, "1.0", b"blob/1", &bytes), Ok(&b"payload"[..]));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 1;
            assert!(decode(&key, "1.0", b"blob/1", &b).is_err(), "flip at byte {i} accepted");
        }
        for cut in 0..bytes.len() {
            assert!(decode(&key, "1.0", b"blob/1", &bytes[..cut]).is_err(), "truncation to {cut} accepted");
        }
    }

    #[test]
    fn another_key_another_table_key_or_another_version_is_rejected() {
        let key = Key::derive(b"k");
        let bytes = encode(&key, "1.0", b"blob/1", b"payload");
        assert_eq!(decode(&Key::derive(b"other"), "1.0", b"blob/1", &bytes), Err(Reject::BadMac));
        assert_eq!(decode(&key, "1.0", b"blob/2", &bytes), Err(Reject::BadMac));
        assert_eq!(decode(&key, "1.1", b"blob/1", &bytes), Err(Reject::OtherVersion));
    }
}

//! The SSH wire encoding (RFC 4251 §5): `string` is a big-endian u32 length, then the bytes.

/// Reads SSH wire fields from a byte slice, refusing truncated or oversized fields.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { rest: bytes }
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.rest.split_first_chunk::<4>()?;
        self.rest = rest;
        Some(u32::from_be_bytes(*head))
    }

    pub(crate) fn string(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.u32()?).ok()?;
        if len > self.rest.len() {
            return None;
        }
        let (s, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(s)
    }

    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }
}

/// Appends `s` as an SSH `string`.
pub(crate) fn put_string(out: &mut Vec<u8>, s: &[u8]) {
    let len = u32::try_from(s.len()).expect("SSH fields written here are far below 4 GiB");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(s);
}

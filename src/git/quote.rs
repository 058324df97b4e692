//! Paths as git prints them: `core.quotePath`'s C-quoting and its inverse.

use gix::bstr::{BStr, BString, ByteSlice};

/// Renders a path like git's `core.quotePath`: as is when it is printable UTF-8, otherwise
/// C-quoted with octal escapes (`"experiments/\303\251.json"`).
#[must_use]
pub fn display_path(path: &BStr) -> String {
    match path.to_str() {
        Ok(s) if !s.chars().any(|c| c.is_control() || c == '"' || c == '\\') => s.to_owned(),
        _ => c_quote(path),
    }
}

/// Whether git's default `core.quotePath` writes `path` C-quoted: a control byte, `"`, `\\`,
/// DEL or any byte of a multi-byte character.
#[must_use]
pub fn needs_c_quote(path: &BStr) -> bool {
    path.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f)
}

/// The bytes behind a C-quoted path (`"a\\303\\251"` → `aé`); `None` unless `quoted` is one
/// well-formed quoted string (escapes `\\a \\b \\t \\n \\v \\f \\r \\" \\\\` and three octal digits).
#[must_use]
pub fn c_unquote(quoted: &str) -> Option<BString> {
    let inner = quoted.strip_prefix('"')?.strip_suffix('"')?.as_bytes();
    let mut out = BString::default();
    let mut i = 0;
    while let Some(&b) = inner.get(i) {
        i += 1;
        if b == b'"' {
            return None;
        }
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let e = *inner.get(i)?;
        i += 1;
        out.push(match e {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'"' | b'\\' => e,
            b'0'..=b'3' => {
                let d = inner.get(i..i + 2)?;
                if !d.iter().all(|c| (b'0'..=b'7').contains(c)) {
                    return None;
                }
                i += 2;
                (e - b'0') * 64 + (d[0] - b'0') * 8 + (d[1] - b'0')
            }
            _ => return None,
        });
    }
    Some(out)
}

/// git's C-quoting of a path.
#[must_use]
pub fn c_quote(path: &BStr) -> String {
    let mut out = String::from("\"");
    for &b in path.as_bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

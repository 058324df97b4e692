//! How the tool writes one field of a message (format note §2.1): what rule F11 compares a
//! line with, byte for byte.

/// Strips `key` and then `value` as [`crate::json::quote`] writes it from the front of `rest`.
pub(crate) fn take_field(rest: &mut &str, key: &str, value: &str) -> bool {
    let Some(after_key) = rest.strip_prefix(key) else { return false };
    if let Some(open) = after_key.strip_prefix('"')
        && std::ptr::eq(open.as_ptr(), value.as_ptr())
    {
        // The value was borrowed from this very place of the line, so it is a run without
        // quote, backslash or control character that a quote ends: its quoted form is there.
        return match open.get(value.len()..).and_then(|r| r.strip_prefix('"')) {
            Some(r) => {
                *rest = r;
                true
            }
            None => false,
        };
    }
    // Most values need no escape: then the quoted form is the value between quotes. A fold
    // without a short cut, so that the test runs on whole vector registers.
    let plain = value.bytes().fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
    let after = if plain {
        after_key.strip_prefix('"').and_then(|r| r.strip_prefix(value)).and_then(|r| r.strip_prefix('"'))
    } else {
        after_key.strip_prefix(crate::json::quote(value).as_str())
    };
    match after {
        Some(r) => {
            *rest = r;
            true
        }
        None => false,
    }
}

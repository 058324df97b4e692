use std::fmt::Write as _;

use super::float::python_float_repr;
use super::value::{Number, Value};

/// Python's `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`, the
/// form whose SHA-256 is a schema-2 receipt's identity (formats note §5.6).
#[must_use]
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    canonical_chunks(value, &mut |chunk| out.push_str(chunk));
    out
}

/// Python's `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=...)`: the bytes the v1
/// runner writes (`ensure_ascii = true`, no trailing newline) and the layout of schema-2 files.
#[must_use]
pub fn python_pretty(value: &Value, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_pretty(value, 0, ensure_ascii, &mut out);
    out
}

/// Converts to a `serde_json` value for report evidence. Integers that fit `i64`/`u64` stay
/// integers; other numbers become floats when finite, else their source token as a string.
#[must_use]
pub fn to_serde(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => {
            let t = n.as_str();
            if let Ok(i) = t.parse::<i64>() {
                i.into()
            } else if let Ok(u) = t.parse::<u64>() {
                u.into()
            } else {
                t.parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| serde_json::Value::String(t.to_owned()), serde_json::Value::Number)
            }
        }
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Array(a) => serde_json::Value::Array(a.iter().map(to_serde).collect()),
        Value::Object(m) => serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), to_serde(v))).collect()),
    }
}

/// [`canonical`] handed to `sink` in chunks of about 64 KiB instead of one string: hashing a
/// megabyte receipt does not need a megabyte copy of it.
pub fn canonical_chunks(value: &Value, sink: &mut dyn FnMut(&str)) {
    let mut buf = String::with_capacity(CHUNK + 1024);
    compact_chunked(value, &mut buf, sink);
    if !buf.is_empty() {
        sink(&buf);
    }
}

pub(super) const CHUNK: usize = 1 << 16;

fn compact_chunked(value: &Value, out: &mut String, sink: &mut dyn FnMut(&str)) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact_chunked(item, out, sink);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, false, out);
                out.push(':');
                compact_chunked(v, out, sink);
                if out.len() >= CHUNK {
                    sink(out);
                    out.clear();
                }
            }
            out.push('}');
        }
        scalar => write_scalar(scalar, false, out),
    }
}

fn write_pretty(value: &Value, level: usize, ascii: bool, out: &mut String) {
    let pad = |out: &mut String, level: usize| {
        out.push('\n');
        for _ in 0..level {
            out.push_str("  ");
        }
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, level + 1);
                write_pretty(item, level + 1, ascii, out);
            }
            pad(out, level);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, level + 1);
                write_string(k, ascii, out);
                out.push_str(": ");
                write_pretty(v, level + 1, ascii, out);
            }
            pad(out, level);
            out.push('}');
        }
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
        scalar => write_scalar(scalar, ascii, out),
    }
}

fn write_scalar(value: &Value, ascii: bool, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(&python_number(n)),
        Value::String(s) => write_string(s, ascii, out),
        Value::Array(_) | Value::Object(_) => unreachable!("containers are handled by the callers"),
    }
}

/// How Python prints a number it read with `json.loads`: integers via `int`, everything
/// else via `float.__repr__`.
pub(crate) fn python_number(n: &Number) -> String {
    let t = n.as_str();
    if n.is_integer() {
        // Python reads "-0" as the int 0.
        return if t.trim_start_matches('-').bytes().all(|b| b == b'0') { "0".to_owned() } else { t.to_owned() };
    }
    let f: f64 = t.parse().expect("tokens are validated by the parser");
    python_float_repr(f)
}

/// Python's `json.dumps(s, ensure_ascii=False)` of a string, which is also RFC 8785's string
/// form: `"`, `\\` and the C0 controls escaped (the short forms where JSON has them), nothing else.
#[must_use]
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(s, false, &mut out);
    out
}

pub(super) fn write_string(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    // Most strings (paths, digests) need no escape at all.
    if needs_no_escape(s.as_bytes(), ascii) {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !(' '..='~').contains(&c) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// No byte of `s` is escaped. Tested in blocks without an early exit inside one, which the
/// compiler turns into vector compares: a byte-at-a-time test was 3% of a cold ledger run,
/// hashing every receipt's canonical form.
pub(super) fn needs_no_escape(s: &[u8], ascii: bool) -> bool {
    let escaped = |b: u8| (b < 0x20) | (b == b'"') | (b == b'\\') | (ascii & (b > 0x7e));
    s.chunks(32).all(|block| !block.iter().fold(false, |any, &b| any | escaped(b)))
}

//! The JSON texts the minter writes, in the layouts of Python's `json.dumps` that the runners
//! use, over `serde_json` values.
//!
//! The verifier has its own writer for the same layouts (`crossverify::json`), which it uses to
//! re-derive what records bind. The minter must not borrow it: a bug shared by the writer that
//! makes the fixtures and the one that checks them would make wrong bytes look genuine. Keys
//! are sorted here, whatever order the map keeps.

use std::fmt::Write as _;

use serde_json::{Number, Value};

/// `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`: the form whose
/// SHA-256 is a schema-2 receipt's identity.
#[must_use]
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    compact(v, &mut out);
    out
}

/// `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=ascii)` (no trailing newline).
#[must_use]
pub fn pretty(v: &Value, ascii: bool) -> String {
    let mut out = String::new();
    indented(v, 0, ascii, &mut out);
    out
}

/// `json.dumps(v, sort_keys=True)` of a flat object: the default separators `, ` and `: `.
#[must_use]
pub fn line(v: &Value) -> String {
    let Value::Object(m) = v else { return canonical(v) };
    let mut out = String::from("{");
    for (i, (k, v)) in sorted(m).into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        string(k, false, &mut out);
        out.push_str(": ");
        compact(v, &mut out);
    }
    out.push('}');
    out
}

fn sorted(m: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut pairs: Vec<_> = m.iter().collect();
    // Python sorts keys by code point, which is the byte order of their UTF-8.
    pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    pairs
}

fn compact(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact(item, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in sorted(m).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(k, false, out);
                out.push(':');
                compact(v, out);
            }
            out.push('}');
        }
        scalar => atom(scalar, false, out),
    }
}

fn indented(v: &Value, depth: usize, ascii: bool, out: &mut String) {
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i > 0 { "," } else { "" });
                newline(out, depth + 1);
                indented(item, depth + 1, ascii, out);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(m) if !m.is_empty() => {
            out.push('{');
            for (i, (k, v)) in sorted(m).into_iter().enumerate() {
                out.push_str(if i > 0 { "," } else { "" });
                newline(out, depth + 1);
                string(k, ascii, out);
                out.push_str(": ");
                indented(v, depth + 1, ascii, out);
            }
            newline(out, depth);
            out.push('}');
        }
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
        scalar => atom(scalar, ascii, out),
    }
}

fn atom(v: &Value, ascii: bool, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => string(s, ascii, out),
        Value::Array(_) | Value::Object(_) => out.push_str("null"),
    }
}

/// Python's `int` and `float.__repr__` spellings.
fn number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    float_repr(n.as_f64().unwrap_or(f64::NAN))
}

/// `repr(float)`: the shortest digits that read back as the same double, in positional form
/// unless the exponent is below -4 or at least 16; always with a `.` or an exponent.
fn float_repr(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        }
        .to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    // Rust's `{:e}` gives the same shortest round-trip digits; only the layout differs.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let sign = if f < 0.0 { "-" } else { "" };
    let body = if !(-4..16).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        format!("{first}{rest}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs())
    } else if exponent < 0 {
        let zeros = "0".repeat(usize::try_from(-exponent - 1).unwrap_or(0));
        format!("0.{zeros}{digits}")
    } else {
        let point = usize::try_from(exponent + 1).unwrap_or(0);
        if digits.len() <= point {
            format!("{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{sign}{body}")
}

/// A JSON string as Python's encoder writes it: `"`, `\` and C0 controls escaped (short forms
/// where JSON has them), and, under `ensure_ascii`, everything outside `' '..='~'` as UTF-16
/// `\uXXXX` escapes.
fn string(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 || (ascii && !(' '..='~').contains(&c)) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Spellings checked against CPython 3.12's `json.dumps` by hand.
    #[test]
    fn python_layouts() {
        let v = json!({"b": [1, {"z": null, "a": true}], "a": "é\u{7f}\n\"", "c": {}, "d": []});
        assert_eq!(canonical(&v), "{\"a\":\"é\u{7f}\\n\\\"\",\"b\":[1,{\"a\":true,\"z\":null}],\"c\":{},\"d\":[]}");
        assert_eq!(
            pretty(&v, true),
            "{\n  \"a\": \"\\u00e9\\u007f\\n\\\"\",\n  \"b\": [\n    1,\n    {\n      \"a\": true,\n      \"z\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}"
        );
        assert_eq!(line(&json!({"to": "x", "from": 1})), "{\"from\": 1, \"to\": \"x\"}");
        assert_eq!(pretty(&json!("😀"), true), "\"\\ud83d\\ude00\"");
    }

    #[test]
    fn python_float_reprs() {
        for (f, want) in [
            (0.1, "0.1"),
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (123_456_789_012_345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1.5e300, "1.5e+300"),
        ] {
            assert_eq!(float_repr(f), want, "{f}");
        }
    }
}

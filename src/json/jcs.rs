//! RFC 8785 (JSON Canonicalization Scheme) for the payloads crossverify signs and verifies.
//!
//! Our profile is the one the Proof-or-Stop note adopts: no nulls and no numbers but integers
//! of at most 2^53 in magnitude. ECMAScript's number formatting is exact for those, so two
//! independent writers agree byte for byte; a float or a null is refused with the JSON Pointer
//! of the offending member instead of being rounded or dropped (dropping a null is one of the
//! verifier bugs the Proof-or-Stop paper reports).

use super::Value;

/// Why a value has no canonical form in our profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JcsError {
    /// A number that is not an integer of magnitude at most 2^53.
    #[error("{pointer}: number {token} is not an integer within ±2^53 (floats are outside the canonical profile)")]
    Float {
        /// JSON Pointer of the number.
        pointer: String,
        /// The number as written.
        token: String,
    },
    /// A `null`.
    #[error("{pointer}: null is outside the canonical profile")]
    Null {
        /// JSON Pointer of the null.
        pointer: String,
    },
}

const MAX_SAFE: u64 = 1 << 53;

/// The RFC 8785 serialisation of `value` (UTF-8, no whitespace, members sorted by UTF-16 code
/// units).
///
/// # Errors
/// [`JcsError`] for a float or a null anywhere in `value`.
pub fn to_canonical(value: &Value) -> Result<String, JcsError> {
    let mut out = String::new();
    write(value, &mut String::new(), &mut out)?;
    Ok(out)
}

/// [`to_canonical`] for a `serde_json` value (the report model's representation).
///
/// # Errors
/// [`JcsError`] for a float or a null anywhere in `value`.
pub fn to_canonical_serde(value: &serde_json::Value) -> Result<String, JcsError> {
    to_canonical(&from_serde(value))
}

fn from_serde(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Number(super::Number(n.to_string())),
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(from_serde).collect()),
        serde_json::Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), from_serde(v))).collect()),
    }
}

fn write(value: &Value, pointer: &mut String, out: &mut String) -> Result<(), JcsError> {
    match value {
        Value::Null => return Err(JcsError::Null { pointer: pointer.clone() }),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(
            &integer(n.as_str())
                .ok_or_else(|| JcsError::Float { pointer: pointer.clone(), token: n.as_str().to_owned() })?,
        ),
        Value::String(s) => out.push_str(&super::quote(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                with_segment(pointer, &i.to_string(), |p| write(item, p, out))?;
            }
            out.push(']');
        }
        Value::Object(members) => {
            // Our objects are sorted by code point; RFC 8785 sorts by UTF-16 code units, which
            // differs once a key holds characters above U+FFFF next to ones in U+E000..U+FFFF.
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&super::quote(key));
                out.push(':');
                let escaped = key.replace('~', "~0").replace('/', "~1");
                with_segment(pointer, &escaped, |p| write(&members[key], p, out))?;
            }
            out.push('}');
        }
    }
    Ok(())
}

fn with_segment<T>(pointer: &mut String, segment: &str, f: impl FnOnce(&mut String) -> T) -> T {
    let len = pointer.len();
    pointer.push('/');
    pointer.push_str(segment);
    let r = f(pointer);
    pointer.truncate(len);
    r
}

/// The ECMAScript form of an integer token within ±2^53 (`-0` is `0`), or `None`.
fn integer(token: &str) -> Option<String> {
    if token.contains(['.', 'e', 'E']) {
        return None;
    }
    let (negative, digits) = token.strip_prefix('-').map_or((false, token), |d| (true, d));
    let magnitude: u64 = digits.parse().ok()?;
    if magnitude > MAX_SAFE {
        return None;
    }
    Some(if negative && magnitude != 0 { format!("-{magnitude}") } else { magnitude.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> Result<String, JcsError> {
        to_canonical(&crate::json::parse(text.as_bytes()).expect("test input is JSON"))
    }

    #[test]
    fn members_sort_by_utf16_code_units_not_code_points() {
        // U+1F600 is D83D DE00 in UTF-16, below U+FB01; by code point it sorts after.
        assert_eq!(canon("{\"\u{fb01}\":1,\"\u{1f600}\":2}").unwrap(), "{\"\u{1f600}\":2,\"\u{fb01}\":1}");
        assert_eq!(
            canon(r#"{"b":[true,false],"a":{"d":"x","c":-0}}"#).unwrap(),
            r#"{"a":{"c":0,"d":"x"},"b":[true,false]}"#
        );
    }

    #[test]
    fn strings_escape_only_what_rfc_8785_escapes() {
        assert_eq!(canon(r#""\u0001\u001f\n\"\\/\u2028é""#).unwrap(), "\"\\u0001\\u001f\\n\\\"\\\\/\u{2028}é\"");
    }

    #[test]
    fn floats_and_nulls_are_refused_with_their_pointer() {
        assert_eq!(canon(r#"{"a":[1,{"b~/":null}]}"#), Err(JcsError::Null { pointer: "/a/1/b~0~1".into() }));
        assert!(matches!(canon(r#"{"x":1.0}"#), Err(JcsError::Float { pointer, .. }) if pointer == "/x"));
        assert!(canon("1e2").is_err());
        assert_eq!(canon("9007199254740992").unwrap(), "9007199254740992");
        assert!(canon("9007199254740993").is_err());
        assert!(canon("-9007199254740993").is_err());
    }

    #[test]
    fn serde_values_take_the_same_path() {
        let v = serde_json::json!({"z": 1, "a": ["x", true]});
        assert_eq!(to_canonical_serde(&v).unwrap(), r#"{"a":["x",true],"z":1}"#);
        assert!(to_canonical_serde(&serde_json::json!({"f": 0.5})).is_err());
    }
}

//! Strict JSON: whatever `json::parse` accepts, its canonical form (and both Python pretty
//! forms) re-parse, and re-serialise to the same canonical bytes. Numbers are normalised the
//! way Python prints them, so "the same value" is judged by the canonical form.
#![no_main]

use crossverify::json::{self, Value};
use libfuzzer_sys::fuzz_target;

/// A number token beyond f64's range: Python reads it as ±inf and writes `Infinity`, which is
/// not JSON. `canonical` reproduces Python, so such documents cannot round-trip.
fn has_non_finite(v: &Value) -> bool {
    match v {
        Value::Number(n) => !n.is_integer() && n.as_f64().is_none_or(|f| !f.is_finite()),
        Value::Array(a) => a.iter().any(has_non_finite),
        Value::Object(m) => m.values().any(has_non_finite),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(v) = json::parse(data) else { return };
    let canonical = json::canonical(&v);
    if has_non_finite(&v) {
        assert!(canonical.contains("Infinity"), "{canonical}");
        return;
    }
    let again = json::parse(canonical.as_bytes()).expect("the canonical form re-parses");
    assert_eq!(json::canonical(&again), canonical, "canonical is a fixed point");
    for ascii in [true, false] {
        let pretty = json::python_pretty(&v, ascii);
        let back = json::parse(pretty.as_bytes()).expect("the pretty form re-parses");
        assert_eq!(json::canonical(&back), canonical, "pretty (ensure_ascii={ascii}) holds the same value");
    }
});

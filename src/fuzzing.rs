//! The properties the cargo-fuzz targets in `fuzz/` check, one function per target, in the
//! library so that `tests/fuzz_corpus.rs` replays the committed seeds (`fuzz/corpus/<target>/`)
//! through exactly what each target runs, on the stable toolchain and in ordinary CI.
//!
//! Each function panics when its property fails; that is the finding a fuzzer reports.

use std::path::Path;

use gix::bstr::ByteSlice;

use crate::crossaudit::config::Config;
use crate::crossaudit::constitution::{self, Constitution, Syntax};
use crate::crossaudit::receipt::{Family, Receipt, manifest_key_problem};
use crate::crossaudit::substitute::Substitute;
use crate::crossaudit::{dcl, deployed, report_md, scope};
use crate::json::{self, Value};
use crate::manifest::Digest;
use crate::report::{Level, Outcome};

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

/// `json_parse`: whatever `json::parse` accepts, its canonical form and both Python pretty
/// forms re-parse to the same canonical bytes.
pub fn json_parse(data: &[u8]) {
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
}

/// `receipt_parse`: a receipt or an error for any bytes, deterministic, digest of the bytes.
pub fn receipt_parse(data: &[u8]) {
    let Ok(r) = Receipt::parse(data) else { return };
    assert_eq!(r.file_sha256, Digest::of(data), "the file digest is of the bytes read");
    let again = Receipt::parse(data).expect("a receipt that parsed once parses again");
    assert_eq!(r, again, "parsing is deterministic");
    let _ = r.identity();
}

/// `ledger_text`: `report.md`, `crossaudit.yml` (both readings) and the Constitution parsers
/// take any UTF-8 text, deterministically; extracted rule IDs have a rule ID's shape.
pub fn ledger_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    assert_eq!(format!("{:?}", report_md::parse(text)), format!("{:?}", report_md::parse(text)));
    assert_eq!(format!("{:?}", Config::parse(text)), format!("{:?}", Config::parse(text)));
    assert_eq!(format!("{:?}", Config::parse_product(text)), format!("{:?}", Config::parse_product(text)));
    for syntax in [Syntax::V1, Syntax::Product] {
        let c = Constitution::parse(text, syntax);
        for id in c.rules.keys() {
            assert!(constitution::is_rule_id(id), "{id:?}");
        }
    }
}

/// `ledger_json_records`: `checks.json` and the deployed records give a record or an error.
pub fn ledger_json_records(data: &[u8]) {
    if let Ok(v) = json::parse(data) {
        let _ = dcl::parse(&v);
    }
    let _ = deployed::parse_audit_result(data);
    let _ = deployed::parse_run_metadata(data);
    let _ = deployed::parse_report_manifest(data);
}

/// `claims_parse`: claims files and JSON Pointers give claims or an error.
pub fn claims_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = crate::stats::claims::parse(text);
    let _ = crate::stats::claims::parse_pointer(text);
}

/// `tree_decode`: a tree object's data gives entries or an error; an accepted tree,
/// re-encoded by gix, decodes to the same entries.
pub fn tree_decode(data: &[u8]) {
    use gix::objs::WriteTo as _;
    let Ok(entries) = crate::git::decode_tree(data, gix::hash::Kind::Sha1) else { return };
    let Ok(tree) = gix::objs::TreeRef::from_bytes(data, gix::hash::Kind::Sha1) else {
        panic!("decode_tree accepted what gix refuses");
    };
    let mut out = Vec::new();
    // gix refuses to write some names it reads (e.g. containing `/`); nothing to compare then.
    if tree.write_to(&mut out).is_err() {
        return;
    }
    let again = crate::git::decode_tree(&out, gix::hash::Kind::Sha1).expect("a re-encoded tree decodes");
    assert_eq!(again, entries);
}

/// `manifest_keys`: any bytes as a tree path. Each dialect spells a path with at most one key,
/// that key passes the key rules exactly when the path is a repository path, and (v1) the
/// C-quoted spelling unquotes to the path's bytes. Any bytes as a key: the key rules never panic.
pub fn manifest_keys(data: &[u8]) {
    let path = data.as_bstr();
    let repo_path = !data.is_empty()
        && !data.contains(&0)
        && data.split(|&b| b == b'/').all(|c| !c.is_empty() && c != b"." && c != b"..");
    for family in [Family::V1, Family::Schema2] {
        match scope::manifest_key(family, path) {
            Some(key) => {
                assert_eq!(manifest_key_problem(&key, family).is_none(), repo_path, "{family:?} {key:?}");
                if family == Family::V1 && key.starts_with('"') {
                    assert_eq!(
                        crate::git::c_unquote(&key).as_ref().map(|b| b.as_slice()),
                        Some(data),
                        "unquoting inverts quoting"
                    );
                }
            }
            None => assert!(family == Family::Schema2 && data.to_str().is_err(), "only schema 2 lacks spellings"),
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = manifest_key_problem(text, Family::V1);
        let _ = manifest_key_problem(text, Family::Schema2);
        let _ = crate::git::c_unquote(text);
    }
}

/// Marks where a `receipt_verify` input's receipt ends and its report begins.
pub const REPORT_SEPARATOR: &[u8] = b"\n--- report.md ---\n";

/// The demo cycle whose records `receipt_verify` replaces: round 2 of the first increment.
pub const RECEIPT_VERIFY_CYCLE: &str = "cycles/946b514c0d72-r2";

/// `receipt_verify`: the demo ledger, minted once, with its second cycle's records replaced.
pub struct ReceiptVerify {
    /// Round 2 (the default target), then round 1 (inputs starting with [`ROUND_ONE`]).
    slots: [Slot; 2],
}

/// One substitutable cycle and its genuine records.
struct Slot {
    sub: Substitute,
    report: Vec<u8>,
    receipt: Vec<u8>,
}

/// An input starting with these bytes replaces round 1 instead, so that a forged round there
/// meets the arithmetic of the rounds after it.
pub const ROUND_ONE: &[u8] = b"@r1\n";

/// The first increment's round 1 in the demo ledger.
const ROUND_ONE_CYCLE: &str = "cycles/739e7b6f5ebf-r1";

impl ReceiptVerify {
    /// Writes the built-in demo ledger into `dir` (which must be empty or absent) and selects
    /// [`RECEIPT_VERIFY_CYCLE`] (a PASS in round 2, so the parent chain and round sequence are
    /// in play).
    ///
    /// # Panics
    /// When the demo cannot be minted or loaded: a harness without its ledger checks nothing.
    #[must_use]
    pub fn demo(dir: &Path) -> ReceiptVerify {
        crate::crossaudit::demo::unpack(dir).expect("the demo ledger unpacks");
        let mut opts = crate::crossaudit::Options::new(&dir.join("audit"));
        opts.science = Some(dir.join("science"));
        let repo = crate::git::Repo::open(&dir.join("audit")).expect("the demo audit repository opens");
        let head = repo.resolve("HEAD").expect("HEAD");
        let slot = |cycle: &str| {
            let read = |f: &str| repo.file_at(head, &format!("{cycle}/{f}")).ok().flatten().expect("a record");
            let sub = Substitute::open(&opts, cycle).expect("the demo ledger loads");
            Slot { sub, receipt: read("receipt.json"), report: read("report.md") }
        };
        ReceiptVerify { slots: [slot(RECEIPT_VERIFY_CYCLE), slot(ROUND_ONE_CYCLE)] }
    }

    /// The genuine records of round 2 as one input (a seed).
    #[must_use]
    pub fn genuine_input(&self) -> Vec<u8> {
        let g = &self.slots[0];
        [g.receipt.as_slice(), REPORT_SEPARATOR, g.report.as_slice()].concat()
    }

    /// Runs one input: the bytes before [`REPORT_SEPARATOR`] are the receipt, the bytes after it
    /// the report (the genuine report when there is no separator); a leading [`ROUND_ONE`]
    /// targets round 1. The whole ledger verifies without a panic, twice to the same results;
    /// the genuine records fail no error-level check.
    pub fn check(&mut self, data: &[u8]) {
        let (slot, data) = match data.strip_prefix(ROUND_ONE) {
            Some(rest) => (&mut self.slots[1], rest),
            None => (&mut self.slots[0], data),
        };
        let (receipt, report) = match data.find(REPORT_SEPARATOR) {
            Some(i) => (&data[..i], data[i + REPORT_SEPARATOR.len()..].to_vec()),
            None => (data, slot.report.clone()),
        };
        let first = slot.sub.verify(receipt, &report).expect("the receipt is stored");
        let second = slot.sub.verify(receipt, &report).expect("the receipt is stored");
        assert_eq!(first, second, "verification is a function of the records");
        assert!(first.iter().any(|r| r.subject.starts_with(slot.sub.cycle_path())), "the cycle is judged");
        if receipt == slot.receipt.as_slice() && report == slot.report {
            let failed: Vec<_> =
                first.iter().filter(|r| r.outcome == Outcome::Failed && r.level == Level::Error).collect();
            assert!(failed.is_empty(), "the genuine records fail {failed:?}");
        }
    }
}

/// `cache_entry`: any bytes read back from the cache directory decode to a payload or a
/// rejection, never a panic; an accepted entry is exactly the encoding of its payload (no
/// second spelling of an entry authenticates), and a payload encodes to bytes that decode to it.
pub fn cache_entry(data: &[u8]) {
    use crate::cache::entry::{self, Key};
    let key = Key::derive(b"fuzz");
    let version = crate::cache::VERSION;
    if let Ok(payload) = entry::decode(&key, version, b"blob-sha256/fuzz", data) {
        assert_eq!(entry::encode(&key, version, b"blob-sha256/fuzz", payload), data, "one spelling per entry");
    }
    let stored = entry::encode(&key, version, b"blob-sha256/fuzz", data);
    assert_eq!(entry::decode(&key, version, b"blob-sha256/fuzz", &stored), Ok(data), "round trip");
    assert!(entry::decode(&key, version, b"blob-sha256/other", &stored).is_err(), "bound to its table key");
}

//! The properties the cargo-fuzz targets in `fuzz/` check, one function per target, in the
//! library so that `tests/it/fuzz_corpus.rs` replays the committed seeds (`fuzz/corpus/<target>/`)
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
    assert_eq!(r.file_sha256, Some(Digest::of(data)), "the file digest is of the bytes read");
    let again = Receipt::parse(data).expect("a receipt that parsed once parses again");
    assert_eq!(r, again, "parsing is deterministic");
    assert!(r.identity().is_some(), "a parsed receipt has its identity");
    let lean = Receipt::parse_identity(data).expect("a receipt that parsed once parses without the file digest");
    assert_eq!(lean.identity(), r.identity(), "one identity with or without the file digest");
    assert_eq!(Receipt { file_sha256: r.file_sha256, ..lean }, r, "the file digest is all that differs");
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

/// `conformance_suite`: a suite index, a manifest or a recorded-decisions file gives its content
/// or an error, never a panic; an accepted index has unique case ids and only arguments naming
/// its inputs, and an accepted manifest only paths inside the suite.
pub fn conformance_suite(data: &[u8]) {
    use crate::conformance::{parse_index, parse_manifest, parse_recorded};
    if let Ok(index) = parse_index(data) {
        let ids: std::collections::BTreeSet<&str> = index.cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), index.cases.len(), "duplicate case ids accepted");
        for c in &index.cases {
            for a in &c.args {
                if let Some(name) = a.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                    assert!(c.inputs.contains_key(name), "argument {a} names no input");
                }
            }
        }
    }
    if let Ok(m) = parse_manifest(data) {
        for p in m.files.keys().chain(std::iter::once(&m.index)) {
            assert!(!p.starts_with('/') && !p.split('/').any(|c| c == ".." || c.is_empty()), "path {p} accepted");
        }
    }
    let _ = parse_recorded(data);
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

/// `reftable`: any bytes as a reftable of either object format: records or an error, never a
/// panic; what is accepted has ascending non-empty names within the length cap, ids of the
/// format's length, and no more records than the bytes can encode (each takes at least four).
pub fn reftable(data: &[u8]) {
    use crate::git::reftable::{MAX_NAME_BYTES, RefValue, parse_table};
    for hash in [gix::hash::Kind::Sha1, gix::hash::Kind::Sha256] {
        let Ok(records) = parse_table(data, hash) else { continue };
        assert!(records.len() <= data.len() / 4, "{} records from {} bytes", records.len(), data.len());
        for pair in records.windows(2) {
            assert!(pair[0].0 < pair[1].0, "names ascend");
        }
        for (name, value) in &records {
            assert!(!name.is_empty() && name.len() <= MAX_NAME_BYTES);
            if let Some(RefValue::Id(id)) = value {
                assert_eq!(id.kind(), hash);
            }
        }
        assert_eq!(parse_table(data, hash).ok(), Some(records), "parsing is deterministic");
    }
}

/// `loose_object`: any bytes as a loose object's file. The reader answers nothing (gix then
/// answers) or a kind and body that the whole zlib stream, inflated by flate2's reader, holds
/// after a header stating exactly that kind and size; never more than 1,032 bytes per byte read.
pub fn loose_object(data: &[u8]) {
    use std::io::Read as _;
    let mut out = Vec::new();
    let Some(kind) = crate::git::loose::decode(data, &mut out) else { return };
    assert!(out.len() as u64 <= data.len() as u64 * 1032, "{} bytes from {}", out.len(), data.len());
    let mut whole = Vec::new();
    // A header is at most 64 bytes; 64 more show a stream that runs past the body.
    flate2::read::ZlibDecoder::new(data)
        .take(out.len() as u64 + 128)
        .read_to_end(&mut whole)
        .expect("what the reader accepted inflates");
    let (stated, size, used) = gix::objs::decode::loose_header(&whole).expect("a header");
    assert_eq!((stated, size), (kind, out.len() as u64));
    assert_eq!(&whole[used..], &out[..], "the body is the rest of the stream");
    let mut again = Vec::new();
    assert_eq!(crate::git::loose::decode(data, &mut again), Some(kind), "deterministic");
    assert_eq!(again, out);
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

/// `pos_envelope`: any bytes give a Proof-or-Stop bundle container or a rejection at a
/// container step (A1–B1′); an accepted container is then verified against the golden key and
/// can only fail at B2 or B3, and verification is a function of the bytes.
pub fn pos_envelope(data: &[u8]) {
    use crate::proof_or_stop::envelope::Unverified;
    use crate::proof_or_stop::reason::Step;
    let parsed = Unverified::parse(data);
    match &parsed {
        Err(r) => assert!(matches!(r.step, Step::A1 | Step::A2 | Step::B1 | Step::B1b), "{r:?}"),
        Ok(u) => {
            let store = pos_golden_store();
            let first = u.clone().verify(&store).map(|v| v.payload().to_vec());
            let second = u.clone().verify(&store).map(|v| v.payload().to_vec());
            assert_eq!(first, second, "verification is a function of the bytes");
            if let Err(r) = first {
                assert!(matches!(r.step, Step::B2 | Step::B3), "{r:?}");
            }
        }
    }
}

fn pos_golden_store() -> crate::proof_or_stop::trust_store::TrustStore {
    // The RFC 8032 test-1 key, the corpus's golden signer.
    let key = crate::proof_or_stop::trust_store::parse_trusted_key(
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    )
    .expect("the RFC 8032 test-1 key is a valid strong key");
    crate::proof_or_stop::trust_store::TrustStore::single(key)
}

/// `pos_statement`: any payload bytes give a statement or a reason; an accepted statement is
/// exactly its RFC 8785 form (one representation per value), and its predicate reads as done
/// evidence or is refused, never a panic.
pub fn pos_statement(data: &[u8]) {
    use crate::proof_or_stop::format;
    let accepted = [format::DONE_EVIDENCE, format::REVIEW_VERDICT, format::DEGRADATION];
    let Ok(st) = format::statement(data, &accepted) else { return };
    let canon = json::jcs::to_canonical(&st.value).expect("an accepted statement has no null and no float");
    assert_eq!(canon.as_bytes(), data, "an accepted payload is its canonical form");
    let _ = format::done_evidence(&st);
}

/// `pos_trust_store`: any bytes give a trust store or an error; every key of an accepted store
/// is found under its own recomputed key id.
pub fn pos_trust_store(data: &[u8]) {
    let Ok(store) = crate::proof_or_stop::trust_store::TrustStore::parse(data) else { return };
    let v = json::parse(data).expect("an accepted store is JSON");
    for k in v.get("keys").and_then(Value::as_array).unwrap_or_default() {
        let id = k.get("keyId").and_then(Value::as_str).expect("an accepted key has an id");
        let found = store.get(id).expect("every listed key is in the store");
        assert_eq!(found.key.key_id(), id, "key ids are recomputed");
    }
}

/// Python's `len(text.splitlines())` after universal newlines, written independently of
/// `crossexam::bus` so the property compares two readings.
fn python_line_count(text: &str) -> usize {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut count = 0;
    let mut open = false;
    for c in text.chars() {
        if matches!(c, '\n' | '\u{0b}' | '\u{0c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}')
        {
            count += 1;
            open = false;
        } else {
            open = true;
        }
    }
    count + usize::from(open)
}

/// Whether `text` is what the tool writes of `m`, found by writing it as the tool does
/// (`json.dumps` of the fields in the writer's order) and comparing whole: the reference for
/// `bus::tool_serialised`, which compares piece by piece in place.
fn tool_form_by_writing(m: &crate::crossexam::bus::Message<'_>, text: &str) -> bool {
    let (Some(ts), Some(from), Some(kind), Some(msg)) = (m.ts(), m.sender(), m.field("type"), m.field("msg")) else {
        return false;
    };
    let q = json::quote;
    let mut out = format!("{{\"ts\": {}, \"from\": {}, \"type\": {}, \"msg\": {}", q(ts), q(from), q(kind), q(msg));
    let mut keys = 4;
    for key in ["via", "ref"] {
        if m.type_of(key).is_some() {
            match m.field(key) {
                // The tool leaves an empty ref out rather than writing it.
                Some(v) if !(key == "ref" && v.is_empty()) => out.push_str(&format!(", \"{key}\": {}", q(v))),
                _ => return false,
            }
            keys += 1;
        }
    }
    out.push('}');
    m.keys == keys && out == text
}

/// Separates the bus from an envelope in a `crossexam_bus` input.
pub const SEALED_SEPARATOR: &[u8] = b"\n==sealed/alpha.jsonl==\n";

/// `crossexam_bus`: `bus.jsonl` line splitting, envelopes and reveal blocks. The bytes before
/// [`SEALED_SEPARATOR`] are the bus, the bytes after it `.sealed/alpha.jsonl`. The tool's
/// numbering equals Python's `splitlines` count, physical and tool numbers are consistent,
/// invalid UTF-8 is kept as such (never replaced), reveal blocks lie before their notes, and
/// every rule but CX-I3 yields a result (at most 101: the budget's cap), the same twice.
pub fn crossexam_bus(data: &[u8]) {
    use crate::crossexam::{self, bus, load::Arena, replay};
    let (bus_bytes, sealed) = match data.find(SEALED_SEPARATOR) {
        Some(i) => (&data[..i], Some(data[i + SEALED_SEPARATOR.len()..].to_vec())),
        None => (data, None),
    };
    let parsed = bus::parse(bus_bytes);
    assert_eq!(parsed, bus::parse(bus_bytes), "splitting is a function of the bytes");
    let mut next = 1;
    // Every line, those of runs rebuilt from the run's bytes.
    for ((i, l), seg) in parsed.every_line().enumerate().zip(bus_bytes.split(|b| *b == b'\n')) {
        assert_eq!((l.physical, l.tool), (i + 1, next), "numbers run on");
        assert_eq!(l.text.is_none(), matches!(l.content, bus::Content::NotUtf8(_)), "undecodable lines stay undecoded");
        assert!(matches!(l.content, bus::Content::Message(_)) || !l.tool_form, "only a message is in the tool's form");
        // The field reader decides as the whole parse would, and the tool's form is judged on
        // the line's own text.
        let line_text = std::str::from_utf8(seg).ok();
        let line_text = line_text.map(|t| if l.crlf { t.strip_suffix('\r').unwrap_or(t) } else { t });
        assert_eq!(l.text, line_text, "the text is the physical line's, without its line end");
        match (&l.content, line_text.map(|t| (t, json::parse(t.as_bytes())))) {
            (bus::Content::Message(m), Some((t, Ok(v)))) => {
                assert_eq!(Some(&**m), bus::Message::new(v).as_ref(), "fields as the object's");
                assert_eq!(l.tool_form, tool_form_by_writing(m, t), "the tool's form, as the tool would write it");
            }
            (bus::Content::Message(_), _) => panic!("a message line that the whole parse refuses"),
            (bus::Content::Malformed, Some((_, w))) => assert!(!matches!(w, Ok(Value::Object(_))), "an object refused"),
            _ => {}
        }
        next += l.pieces;
    }
    assert_eq!(parsed.tool_count, next - 1);
    let ends_with_newline = bus_bytes.is_empty() || bus_bytes.ends_with(b"\n");
    let physical = bus_bytes.split(|b| *b == b'\n').count() - usize::from(ends_with_newline);
    assert_eq!(parsed.physical, physical, "a line per physical line");
    assert_eq!(parsed.every_line().count(), physical, "a line per physical line");
    assert!(parsed.lines.iter().all(|l| l.message().is_some()), "only messages are records");
    if let Ok(text) = std::str::from_utf8(bus_bytes) {
        assert_eq!(parsed.tool_count, python_line_count(text), "the tool's count is splitlines'");
    }
    let r = replay::replay(&parsed);
    assert_eq!(r.stages.len(), parsed.lines.len());
    for b in &r.blocks {
        let before = |m: &replay::Member| match *m {
            replay::Member::Message(j) => j < b.note,
            replay::Member::Bare { run, .. } => parsed.runs[run].before <= b.note,
        };
        assert!(b.members.iter().all(before) && b.len() as u64 <= b.announced);
    }
    let arena = Arena {
        dir: Path::new("/nonexistent-crossverify-fuzz/_Msg").to_owned(),
        bus: bus_bytes.to_vec(),
        task: Some(Ok(b"status: debate\n".to_vec())),
        sealed: sealed.map(|s| vec![("alpha".to_owned(), Ok(s))]).unwrap_or_default(),
        seen: vec![("alpha".to_owned(), Ok(b"3\n".to_vec()))],
        synthesis: Some(Ok(b"## Consensus\nalpha #2\n## Disagreements\nnone\n".to_vec())),
        lock_dirs: Vec::new(),
    };
    let first = crossexam::judge(&arena, false);
    assert_eq!(first, crossexam::judge(&arena, false), "judging is a function of the arena");
    for c in crossexam::CHECKS.iter().filter(|c| c.code != "CX-I3") {
        let n = first.results.iter().filter(|r| r.code == c.code).count();
        assert!(n > 0, "{} yields no result", c.code);
        // The memory budget: past 100 listed findings, one result counts the rest.
        assert!(n <= 101, "{} yields {n} results", c.code);
    }
}

/// The artifact the `sigstore_bundle` seeds sign.
#[cfg(feature = "sigstore")]
pub const SIGSTORE_FUZZ_ARTIFACT: &[u8] = b"crossverify fuzz receipt\n";

/// `sigstore_bundle`: any bytes, read as a Sigstore bundle over [`SIGSTORE_FUZZ_ARTIFACT`] and
/// verified against the minted test trusted root (`test-vectors/sigstore/minted/`), give a
/// verdict without a panic, the same twice; a verdict that passes every step is the genuine
/// seed's (the same signature, certificate and log entry: a forgery would have to break ECDSA).
/// The same bytes read as a trusted root give a root or an error.
#[cfg(feature = "sigstore")]
pub fn sigstore_bundle(data: &[u8]) {
    use crate::trust::sigstore::{Artifact, Policy, Step, TrustedRoot, verify};
    let _ = TrustedRoot::parse(data);
    let root = TrustedRoot::parse(include_bytes!("../test-vectors/sigstore/minted/trusted_root.json"))
        .expect("the committed test trusted root parses");
    let policy =
        Policy { identity: "receipts@crossverify.invalid".into(), issuer: "https://issuer.crossverify.invalid".into() };
    let first = verify(data, Artifact::of(SIGSTORE_FUZZ_ARTIFACT), &root, Some(&policy));
    let second = verify(data, Artifact::of(SIGSTORE_FUZZ_ARTIFACT), &root, Some(&policy));
    assert_eq!(first, second, "verification is a function of the bytes");
    let steps = [&first.bundle, &first.certificate, &first.identity, &first.signature, &first.log_entry, &first.set];
    if steps.iter().all(|s| **s == Step::Passed) && first.inclusion == Step::Passed {
        let genuine: &[u8] = include_bytes!("../fuzz/corpus/sigstore_bundle/genuine");
        let signed = |b: &[u8]| {
            let v = json::to_serde(&json::parse(b).expect("a verified bundle is JSON"));
            [
                "/messageSignature/signature",
                "/verificationMaterial/certificate/rawBytes",
                "/verificationMaterial/tlogEntries/0/canonicalizedBody",
            ]
            .map(|p| v.pointer(p).cloned())
        };
        assert_eq!(signed(data), signed(genuine), "only the genuine signature, certificate and entry verify");
    }
}

/// `sshsig`: an armored SSH signature decodes or is refused for any bytes, deterministically;
/// a decoded one verifies (or not) without panicking, and never verifies over a message it was
/// not made for when its key is a usable Ed25519 key.
pub fn sshsig(data: &[u8]) {
    use crate::trust::sshsig;
    let _ = sshsig::parse_blob(data);
    let _ = sshsig::Armor::of(data);
    let Ok(sig) = sshsig::parse_armored(data) else { return };
    assert_eq!(sshsig::parse_armored(data).as_ref(), Ok(&sig), "decoding is deterministic");
    let _ = sig.signed_data(b"tree 0\n");
    if let Ok(key) = sig.verify(b"fuzzed message", "git") {
        // A forgery over a chosen message would need the key's private half; the only way to
        // get here is a key and signature the input carries, which must then also hold strictly.
        assert!(key.verify_strict(&sig.signed_data(b"fuzzed message"), &sig.signature).is_ok());
    }
}

/// `allowed_signers`: a file parses or is refused with a line number inside the file; a
/// parsed one decides any key without panicking, and never allows a key it does not list.
pub fn allowed_signers(data: &[u8]) {
    use crate::trust::allowed_signers::{Decision, parse};
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse(text) {
        Err(e) => assert!(e.line <= text.lines().count(), "the error names a line of the file: {e}"),
        Ok(signers) => {
            let stranger = crate::trust::ed25519::SigningKey::from_seed([0x5a; 32]).public();
            let listed = signers.entries.iter().any(|e| e.key == Some(stranger));
            for principal in ["lab@example.invalid", "", "*"] {
                let d = signers.decide(&stranger, principal, "git", 1_786_525_200);
                assert!(listed || d == Decision::Unknown, "an unlisted key is unknown, got {d:?}");
            }
            let _ = signers.unsupported().count();
        }
    }
}

/// `dsse_envelope`: an envelope parses or is refused; a parsed one re-serialises to an
/// envelope that parses to the same value, and its statement and signature checks decide
/// without panicking (a fixed key never verifies a fuzzed signature).
pub fn dsse_envelope(data: &[u8]) {
    use crate::trust::dsse::Envelope;
    let Ok(env) = Envelope::parse(data) else { return };
    let again = Envelope::parse(env.to_json().as_bytes()).expect("the written envelope re-parses");
    assert_eq!(again, env, "to_json round-trips");
    let key = crate::trust::ed25519::SigningKey::from_seed([0x42; 32]);
    let r = crate::anchors::reports::signature_result(&env, &key.public(), "fuzz");
    let signed_here = env
        .signatures
        .iter()
        .any(|s| s.sig == key.sign(&crate::trust::dsse::pae(&env.payload_type, &env.payload)).to_vec());
    assert!(signed_here || r.outcome != Outcome::Passed, "a fixed key verified a fuzzed signature");
    let _ = crate::anchors::reports::statement_result(&env, "fuzz");
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
    // An authenticated payload is still read as hostile bytes by each kind's reader.
    crate::crossaudit::read_cache_payloads(data);
}

/// `n` bytes of `unit` repeated, inside `open` … `close`.
fn repeat(open: &str, unit: &str, close: &str, n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + open.len() + close.len() + unit.len());
    v.extend_from_slice(open.as_bytes());
    while v.len() + unit.len() + close.len() <= n {
        v.extend_from_slice(unit.as_bytes());
    }
    v.extend_from_slice(close.as_bytes());
    v
}

/// A JSON object of distinct short keys.
fn many_keys(n: usize) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(n + 32);
    s.push('{');
    let mut i = 0usize;
    while s.len() + 16 < n {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "\"{i:x}\":0");
        i += 1;
    }
    s.push('}');
    s.into_bytes()
}

/// The caps the archive property unpacks within: small, so that a bomb stops after a
/// megabyte and a fuzzing run stays fast; the rules are the same as a journal's.
pub const ARCHIVE_LIMITS: crate::intake::Limits = crate::intake::Limits {
    max_entries: 4096,
    max_bytes: 16 << 20,
    max_ratio: 200,
    ratio_slack: 1 << 20,
    max_nesting: 3,
    max_depth: 64,
};

/// `archive_unpack`: any bytes as a zip, a tar and a gzip-compressed tar (each format the
/// bytes could be), unpacked into a fresh directory under the system's temporary directory:
/// a refusal or the tree, never a panic; what is written stays within the caps (members,
/// bytes, and bytes per byte received: hard links, overlapping members), every symlink written
/// resolves inside the tree or nowhere, and a second unpacking of the same bytes gives the
/// same answer. Then the bytes are received whole as a submission (`intake::receive`), which
/// takes the archives nested inside to the nesting limit within the same budget. The
/// directories are removed afterwards.
pub fn archive_unpack(data: &[u8]) {
    unpack_each_kind(data);
    receive_whole(data);
}

/// The bytes received as one submission file: a refusal or repositories, never a panic, never
/// more written than the budget allows, everything under the work directory.
fn receive_whole(data: &[u8]) {
    static RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let base = std::env::temp_dir().join(format!("crossverify-fuzz-receive-{}-{n}", std::process::id()));
    let work = base.join("work");
    std::fs::create_dir_all(&work).expect("the temporary directory is writable");
    let input = base.join("submission.bin");
    std::fs::write(&input, data).expect("the input is written");
    let got = crate::intake::receive(&[input], &work, ARCHIVE_LIMITS, crate::progress::Ctx::silent());
    if let Ok(intake) = &got {
        let (entries, bytes) = intake.written;
        let l = ARCHIVE_LIMITS;
        assert!(entries <= l.max_entries && bytes <= l.max_bytes, "{entries} entries, {bytes} bytes");
        assert!(bytes <= l.ratio_slack + l.max_ratio * data.len() as u64, "{bytes} bytes from {}", data.len());
        assert_tree_inside(&work, l.max_bytes);
    }
    std::fs::remove_dir_all(&base).expect("the received tree is removed");
}

fn unpack_each_kind(data: &[u8]) {
    use crate::intake::{Kind, unpack_from};
    static RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    for kind in [Kind::Zip, Kind::Tar, Kind::TarGz] {
        let mut answers = Vec::new();
        for _ in 0..2 {
            let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dest = std::env::temp_dir().join(format!("crossverify-fuzz-archive-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&dest).expect("the temporary directory is writable");
            let mut budget = crate::intake::Budget::new(ARCHIVE_LIMITS);
            budget.receive(data.len() as u64);
            let got = unpack_from(
                std::io::Cursor::new(data),
                "fuzz",
                kind,
                &dest,
                &mut budget,
                crate::progress::Ctx::silent(),
            );
            if let Ok(u) = &got {
                let l = ARCHIVE_LIMITS;
                assert!(u.entries <= l.max_entries && u.bytes <= l.max_bytes, "{u:?}");
                assert!(u.bytes <= l.ratio_slack + l.max_ratio * data.len() as u64, "{u:?} from {}", data.len());
                assert_tree_inside(&dest, l.max_bytes);
            }
            std::fs::remove_dir_all(&dest).expect("the unpacked tree is removed");
            answers.push(got.map_err(|e| e.to_string()));
        }
        assert_eq!(answers[0], answers[1], "unpacking is deterministic");
    }
}

/// Every file below `root` is a directory, a regular file or a symlink resolving inside
/// `root` (or nowhere), and the regular files hold at most `max_bytes` together.
fn assert_tree_inside(root: &Path, max_bytes: u64) {
    let real_root = root.canonicalize().expect("the root resolves");
    let (mut stack, mut bytes) = (vec![root.to_owned()], 0u64);
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("readable").filter_map(Result::ok) {
            let meta = std::fs::symlink_metadata(e.path()).expect("metadata");
            if meta.is_symlink() {
                if let Ok(real) = e.path().canonicalize() {
                    assert!(real.starts_with(&real_root), "{} leaves the tree", e.path().display());
                }
            } else if meta.is_dir() {
                stack.push(e.path());
            } else {
                assert!(meta.is_file(), "{} is neither file, directory nor symlink", e.path().display());
                bytes += meta.len();
            }
        }
    }
    assert!(bytes <= max_bytes, "{bytes} bytes written");
}

/// The hostile input shapes of the memory-budget test and the parsers bench, each about `n`
/// bytes: many tiny items, long lines, deep nesting, many keys, separators, control characters,
/// blank lines, in the syntaxes the parsers read (JSON, YAML, Markdown, key and armor lines).
#[must_use]
pub fn hostile_inputs(n: usize) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("JSON array of zeros", repeat("[", "0,", "0]", n)),
        ("JSON array of empty arrays", repeat("[", "[],", "[]]", n)),
        ("JSON array of empty objects", repeat("[", "{},", "{}]", n)),
        ("JSON object, many keys", many_keys(n)),
        ("JSON string of escaped controls", repeat("\"", "\\u0001", "\"", n)),
        ("JSON string, one long", repeat("\"", "a", "\"", n)),
        ("deep nesting", repeat("", "[", "", n)),
        ("blank lines", repeat("", "\n", "", n)),
        ("CRLF lines", repeat("", "\r\n", "", n)),
        ("one long line", repeat("", "a", "", n)),
        ("control characters", repeat("", "\u{1}", "", n)),
        ("separators", repeat("", ",:|-", "", n)),
        ("YAML keys", repeat("", "a: 1\n", "", n)),
        ("YAML list", repeat("", "- a\n", "", n)),
        ("YAML flow nesting", repeat("", "{a: [", "", n)),
        ("Markdown table rows", repeat("", "|a|b|\n", "", n)),
        ("Markdown headings", repeat("", "### [BLOCKER] CA-DATA-001 x\n", "", n)),
        ("key lines", repeat("", "a ssh-ed25519 AAAA\n", "", n)),
        ("armor lines", repeat("-----BEGIN SSH SIGNATURE-----\n", "AAAA\n", "-----END SSH SIGNATURE-----\n", n)),
        ("JSON Lines of objects", repeat("", "{}\n", "", n)),
    ]
}

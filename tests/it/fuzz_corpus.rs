//! The fuzz targets' properties on the stable toolchain: every committed seed under
//! `fuzz/corpus/<target>/` (the starting corpus of each cargo-fuzz target, and every crasher
//! found, kept as a regression seed) runs through the same `crossverify::fuzzing` function the
//! target calls. A target without seeds fails, so a new target cannot go unreplayed.

use crate::support;

use std::path::PathBuf;

use crossverify::fuzzing;

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = support::root().join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds for {target}");
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).expect("seed"))).collect()
}

/// Every target of `fuzz/Cargo.toml` has a seed directory and a replay below.
#[test]
fn every_target_is_replayed() {
    let manifest = std::fs::read_to_string(support::root().join("fuzz/Cargo.toml")).expect("fuzz/Cargo.toml");
    let targets: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|n| *n != "crossverify-fuzz")
        .collect();
    let replayed = [
        "json_parse",
        "tree_decode",
        "receipt_parse",
        "ledger_text",
        "ledger_json_records",
        "claims_parse",
        "manifest_keys",
        "receipt_verify",
        "sshsig",
        "allowed_signers",
        "dsse_envelope",
        "pos_envelope",
        "pos_statement",
        "pos_trust_store",
        "crossexam_bus",
        "sigstore_bundle",
        "cache_entry",
        "reftable",
        "loose_object",
        "archive_unpack",
        "conformance_suite",
    ];
    let mut sorted = targets.clone();
    sorted.sort_unstable();
    let mut want = replayed.to_vec();
    want.sort_unstable();
    assert_eq!(sorted, want, "fuzz/Cargo.toml targets and the replays here differ");
}

/// A target's name and the property it runs.
type Target = (&'static str, fn(&[u8]));

#[test]
fn parser_seeds_hold() {
    let cases: [Target; 12] = [
        ("json_parse", fuzzing::json_parse),
        ("tree_decode", fuzzing::tree_decode),
        ("receipt_parse", fuzzing::receipt_parse),
        ("ledger_text", fuzzing::ledger_text),
        ("ledger_json_records", fuzzing::ledger_json_records),
        ("claims_parse", fuzzing::claims_parse),
        ("manifest_keys", fuzzing::manifest_keys),
        ("cache_entry", fuzzing::cache_entry),
        ("reftable", fuzzing::reftable),
        ("loose_object", fuzzing::loose_object),
        ("archive_unpack", fuzzing::archive_unpack),
        ("conformance_suite", fuzzing::conformance_suite),
    ];
    for (target, property) in cases {
        for (path, data) in seeds(target) {
            let r = std::panic::catch_unwind(|| property(&data));
            assert!(r.is_ok(), "{target}: seed {} fails its property", path.display());
        }
    }
}

#[test]
fn trust_seeds_hold() {
    let cases: [Target; 3] = [
        ("sshsig", fuzzing::sshsig),
        ("allowed_signers", fuzzing::allowed_signers),
        ("dsse_envelope", fuzzing::dsse_envelope),
    ];
    for (target, property) in cases {
        for (path, data) in seeds(target) {
            let r = std::panic::catch_unwind(|| property(&data));
            assert!(r.is_ok(), "{target}: seed {} fails its property", path.display());
        }
    }
}

#[test]
fn receipt_verify_seeds_hold() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut h = fuzzing::ReceiptVerify::demo(&tmp.path().join("demo"));
    let all = seeds("receipt_verify");
    // The committed genuine seed is the demo's record pair as minted today.
    let genuine = all.iter().find(|(p, _)| p.ends_with("genuine")).expect("a genuine seed");
    assert_eq!(genuine.1, h.genuine_input(), "fuzz/corpus/receipt_verify/genuine is stale");
    for (path, data) in &all {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.check(data)));
        assert!(r.is_ok(), "receipt_verify: seed {} fails its property", path.display());
    }
}

/// The Proof-or-Stop parsers' seeds (envelope, statement, trust store).
#[test]
fn pos_seeds_hold() {
    let cases: [Target; 3] = [
        ("pos_envelope", fuzzing::pos_envelope),
        ("pos_statement", fuzzing::pos_statement),
        ("pos_trust_store", fuzzing::pos_trust_store),
    ];
    for (target, property) in cases {
        for (path, data) in seeds(target) {
            let r = std::panic::catch_unwind(|| property(&data));
            assert!(r.is_ok(), "{target}: seed {} fails its property", path.display());
        }
    }
}

#[test]
fn crossexam_bus_seeds_hold() {
    for (path, data) in seeds("crossexam_bus") {
        let r = std::panic::catch_unwind(|| fuzzing::crossexam_bus(&data));
        assert!(r.is_ok(), "crossexam_bus: seed {} fails its property", path.display());
    }
}

//! The JSON records of a ledger other than receipts: `checks.json` (the deterministic layer's
//! output) and the deployed ledger's `audit_result.json`, `codex_run_metadata.json` and
//! `report_manifest.json`. Any bytes give a record or an error, never a panic.
//! The property lives in `crossverify::fuzzing::ledger_json_records`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::ledger_json_records(data));

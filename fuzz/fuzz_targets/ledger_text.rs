//! The text records beside a receipt: `report.md`, `crossaudit.yml` and the Constitution
//! (`AUDIT_RULES.md`, both heading syntaxes). Each parser takes any UTF-8 text without
//! panicking, and gives the same answer twice.
//! The property lives in `crossverify::fuzzing::ledger_text`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::ledger_text(data));

//! Whole receipt verification: fuzzed `receipt.json` and `report.md` bytes (split at
//! `crossverify::fuzzing::REPORT_SEPARATOR`) replace round 2 of the built-in demo ledger, minted
//! once into a temporary directory, and every check of the ledger runs. No panic, the same
//! results twice, and the genuine records fail nothing. The property lives in
//! `crossverify::fuzzing::ReceiptVerify`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use std::sync::{Mutex, OnceLock};

use crossverify::fuzzing::ReceiptVerify;
use libfuzzer_sys::fuzz_target;

static HARNESS: OnceLock<Mutex<ReceiptVerify>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let h = HARNESS.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("crossverify-fuzz-receipt-verify-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Mutex::new(ReceiptVerify::demo(&dir))
    });
    h.lock().unwrap_or_else(std::sync::PoisonError::into_inner).check(data);
});

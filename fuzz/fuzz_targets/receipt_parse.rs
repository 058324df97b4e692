//! Receipts (`receipt.json`, both families): `Receipt::parse` returns a receipt or an error for
//! any bytes, never panics, and is a function of the bytes: parsing twice gives the same
//! receipt, whose file digest is the SHA-256 of exactly those bytes.
//! The property lives in `crossverify::fuzzing::receipt_parse`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::receipt_parse(data));

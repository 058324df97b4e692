//! Receipts (`receipt.json`, both families): `Receipt::parse` returns a receipt or an error for
//! any bytes, never panics, and is a function of the bytes: parsing twice gives the same
//! receipt, whose file digest is the SHA-256 of exactly those bytes.
#![no_main]

use crossverify::crossaudit::receipt::Receipt;
use crossverify::manifest::Digest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(r) = Receipt::parse(data) else { return };
    assert_eq!(r.file_sha256, Digest::of(data), "the file digest is of the bytes read");
    let again = Receipt::parse(data).expect("a receipt that parsed once parses again");
    assert_eq!(r, again, "parsing is deterministic");
    let _ = r.identity();
});

//! Sigstore bundles (and trusted roots) from untrusted bytes: a verdict or an error, never a
//! panic, the same twice, and only the genuine signature verifies.
//! The property lives in `crossverify::fuzzing::sigstore_bundle`; `tests/it/sigstore.rs` replays
//! the seeds (the target needs the `sigstore` feature, which this package enables).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::sigstore_bundle(data));

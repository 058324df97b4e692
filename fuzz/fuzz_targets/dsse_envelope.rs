//! DSSE envelopes: parsed or refused; a parsed one round-trips through to_json; a fixed key never verifies a fuzzed signature.
//! The property lives in `crossverify::fuzzing::dsse_envelope`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::dsse_envelope(data));

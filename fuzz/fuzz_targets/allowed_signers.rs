//! Allowed-signers files: parsed or refused with a line of the file; never allows a key they do not list.
//! The property lives in `crossverify::fuzzing::allowed_signers`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::allowed_signers(data));

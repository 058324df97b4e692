//! Claims files (`--claims`, TOML keyed by JSON Pointer): any text gives claims or an error,
//! never a panic, and every accepted pointer parses on its own.
//! The property lives in `crossverify::fuzzing::claims_parse`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::claims_parse(data));

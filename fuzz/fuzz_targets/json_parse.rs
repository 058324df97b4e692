//! Strict JSON: whatever `json::parse` accepts, its canonical form (and both Python pretty
//! forms) re-parse, and re-serialise to the same canonical bytes. Numbers are normalised the
//! way Python prints them, so "the same value" is judged by the canonical form.
//! The property lives in `crossverify::fuzzing::json_parse`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::json_parse(data));

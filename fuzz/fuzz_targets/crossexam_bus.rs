//! CrossExam `bus.jsonl` splitting (Python's `splitlines` numbering), envelopes and reveal
//! blocks: any bytes give a replay and a result for every rule, never a panic.
//! The property lives in `crossverify::fuzzing::crossexam_bus`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::crossexam_bus(data));

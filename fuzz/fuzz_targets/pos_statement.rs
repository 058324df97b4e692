//! Proof-or-Stop parser of untrusted input (`pos_statement`): see `crossverify::fuzzing::pos_statement`, which
//! `tests/it/fuzz_corpus.rs` replays on every committed seed.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::pos_statement(data));

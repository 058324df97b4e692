//! Reftables (git's reftable ref storage): records or an error naming the reason, never a panic.
//! The property lives in `crossverify::fuzzing::reftable`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::reftable(data));

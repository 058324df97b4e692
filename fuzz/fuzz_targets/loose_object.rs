//! Loose object files: nothing, or exactly the kind and body their zlib stream states, never a
//! panic. The property lives in `crossverify::fuzzing::loose_object`, which
//! `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::loose_object(data));

//! Cache entries read back from the (untrusted) cache directory: any bytes decode to a payload
//! or a rejection, never a panic, and only the exact encoding of a payload authenticates.
//! The property lives in `crossverify::fuzzing::cache_entry`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::cache_entry(data));

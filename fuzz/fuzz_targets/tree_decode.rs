//! Tree objects from untrusted repositories: decoding arbitrary bytes returns entries or an
//! error, never a panic; and what decodes, re-encoded by gix, decodes to the same entries.
//! The property lives in `crossverify::fuzzing::tree_decode`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::tree_decode(data));

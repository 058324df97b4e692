//! Tree names and manifest keys: each dialect spells any byte name with at most one key, the
//! key rules accept it exactly when it is a repository path, and C-quoting round-trips.
//! The property lives in `crossverify::fuzzing::manifest_keys`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::manifest_keys(data));

//! SSH signatures: an armored block decodes or is refused, deterministically; a decoded one verifies only strictly.
//! The property lives in `crossverify::fuzzing::sshsig`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::sshsig(data));

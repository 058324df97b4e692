//! Submitted archives (zip, tar, tar.gz): a refusal naming the member or a tree inside the
//! caps, never a panic, never a file outside the destination.
//! The property lives in `crossverify::fuzzing::archive_unpack`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::archive_unpack(data));

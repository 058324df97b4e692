//! Conformance suites (`test-vectors/conformance/`): any bytes given as a suite index, a
//! manifest or recorded decisions give their content or an error, never a panic; what is
//! accepted names only its own inputs and only paths inside the suite.
//! The property lives in `crossverify::fuzzing::conformance_suite`, which `tests/it/fuzz_corpus.rs` replays.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crossverify::fuzzing::conformance_suite(data));

//! Claims files (`--claims`, TOML keyed by JSON Pointer): any text gives claims or an error,
//! never a panic, and every accepted pointer parses on its own.
#![no_main]

use crossverify::stats::claims;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = claims::parse(text);
    let _ = claims::parse_pointer(text);
});

//! The JSON records of a ledger other than receipts: `checks.json` (the deterministic layer's
//! output) and the deployed ledger's `audit_result.json`, `codex_run_metadata.json` and
//! `report_manifest.json`. Any bytes give a record or an error, never a panic.
#![no_main]

use crossverify::crossaudit::{dcl, deployed as model};
use crossverify::json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = json::parse(data) {
        let _ = dcl::parse(&v);
    }
    let _ = model::parse_audit_result(data);
    let _ = model::parse_run_metadata(data);
    let _ = model::parse_report_manifest(data);
});

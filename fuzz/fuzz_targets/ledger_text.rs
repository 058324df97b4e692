//! The text records beside a receipt: `report.md`, `crossaudit.yml` and the Constitution
//! (`AUDIT_RULES.md`, both heading syntaxes). Each parser takes any UTF-8 text without
//! panicking, and gives the same answer twice.
#![no_main]

use crossverify::crossaudit::config::Config;
use crossverify::crossaudit::constitution::{Constitution, Syntax};
use crossverify::crossaudit::report_md;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    assert_eq!(format!("{:?}", report_md::parse(text)), format!("{:?}", report_md::parse(text)));
    assert_eq!(format!("{:?}", Config::parse(text)), format!("{:?}", Config::parse(text)));
    for syntax in [Syntax::V1, Syntax::Product] {
        let c = Constitution::parse(text, syntax);
        // Every rule it extracts has an ID of the Constitution's shape.
        for id in c.rules.keys() {
            assert!(crossverify::crossaudit::constitution::is_rule_id(id), "{id:?}");
        }
    }
});

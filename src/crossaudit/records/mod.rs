//! The ledger's record formats, each read strictly from bytes: receipts (and what the product's
//! builder derives in them), `crossaudit.yml`, the Constitution, the deterministic layer's
//! `checks.json`, `report.md`, the manifest scope, and the verdict synthesis. They know no
//! ledger and no check.

pub mod config;
pub mod constitution;
pub mod dcl;
mod derive;
mod manifest;
pub mod receipt;
pub mod report_md;
pub mod scope;
pub mod synthesis;

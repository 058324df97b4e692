//! CrossAudit ledgers and receipts.

pub mod deployed;
pub mod mint;

use crate::checks::Check;

/// Checks owned by this module.
pub static CHECKS: &[&Check] = deployed::CHECKS;

//! CrossAudit ledgers and receipts.

use crate::checks::Check;

/// Checks owned by this module.
pub static CHECKS: &[&Check] = &[];

//! Finding-lifecycle statistics.

use crate::checks::Check;

/// Checks owned by this module.
pub static CHECKS: &[&Check] = &[];

//! What `stats` reads: the neutral [`Records`] with the published files beside them. Each
//! protocol detects its own inputs and converts them into these, so this layer names no
//! protocol.

use std::collections::BTreeMap;

use super::model::Records;
use crate::json::Value;
use crate::report::CheckResult;

/// `cycles.jsonl`.
pub const CYCLES_JSONL: &str = "cycles.jsonl";
/// `cycles-b.json`.
pub const CYCLES_B: &str = "cycles-b.json";
/// `summary.json`.
pub const SUMMARY: &str = "summary.json";
/// `findings_lifecycle.json`.
pub const LIFECYCLE: &str = "findings_lifecycle.json";
/// `analysis.json`.
pub const ANALYSIS: &str = "analysis.json";

/// A published file beside the records.
#[derive(Debug, Clone)]
pub struct Published {
    /// File name (`summary.json`).
    pub name: &'static str,
    /// Parsed content.
    pub value: Value,
}

/// Everything read from the input path.
#[derive(Debug)]
pub struct Input {
    /// The primary records (the figures in `stats`).
    pub records: Records,
    /// Mined records, when present beside analysis records (the published `summary.json` and
    /// `findings_lifecycle.json` are checked against their own records).
    pub mined: Option<Records>,
    /// Analysis records, when present.
    pub analysis: Option<Records>,
    /// Published summaries beside the records.
    pub published: Vec<Published>,
    /// Results about reading the input (`CV-S004`) and the protocol's own consistency checks of
    /// it, in report order.
    pub results: Vec<CheckResult>,
    /// Files read: name relative to the input → SHA-256 (plain files and directories only).
    pub read: BTreeMap<String, String>,
    /// The commit a git input was read at.
    pub commit: Option<String>,
}

impl Input {
    /// An input holding `records` and nothing else yet.
    #[must_use]
    pub fn new(records: Records) -> Self {
        Input {
            records,
            mined: None,
            analysis: None,
            published: Vec::new(),
            results: Vec::new(),
            read: BTreeMap::new(),
            commit: None,
        }
    }
}

//! A loaded ledger: its cycle directories, their records at the audit revision, and the
//! append-only history of the ledger directory.

use crate::crossaudit::records::dcl;
use crate::crossaudit::records::receipt::Family;
use crate::crossaudit::records::report_md;
use crate::git::{EntryKind, ObjectId, Repo, SharedRepo};
use crate::json;
use crate::manifest::Digest;
use std::collections::{BTreeMap, HashMap};

/// A record read from the ledger, or why it could not be.
pub(crate) type Read<T> = Option<Result<T, String>>;

/// One cycle directory and what it holds.
pub(crate) struct Cycle {
    /// Directory name (`9c604cba4273-r2`).
    pub name: String,
    /// Repository-relative directory path.
    pub path: String,
    /// Files directly in it.
    pub files: BTreeMap<String, (EntryKind, ObjectId)>,
    /// Blob of `receipt.json` when it is a regular file. Receipts are parsed during
    /// verification, one per worker, and dropped after: a ledger of a thousand receipts binding
    /// ten thousand files each never sits in memory at once.
    pub receipt_blob: Option<ObjectId>,
    pub report: Option<(Digest, report_md::Report)>,
    pub dcl: Read<dcl::Output>,
    pub exchange: Read<json::Value>,
    /// Commit that added `receipt.json` and its position in the audit history.
    pub added_in: Option<(ObjectId, usize)>,
    /// Commit that added `report.md`.
    pub report_added_in: Option<ObjectId>,
    /// The bytes of the receipt a caller gave, verified instead of the committed blob.
    pub receipt_given: Option<Vec<u8>>,
    /// The receipt is not committed in the ledger (CV-A715).
    pub unrecorded: bool,
}

impl Cycle {
    pub(crate) fn file(&self, name: &str) -> String {
        format!("{}/{name}", self.path)
    }
}

impl Ledger {
    /// For a schema-2 cycle directory holding `report.md` but no `receipt.json` — the product's
    /// run and audit verbs commit the report before the receipt (the receipt binds the report's
    /// commit), so an interruption between the two commits leaves exactly this — the later
    /// attempt of the same round (`<sha12>-r<n>.<k>`) that does hold a receipt, if any.
    pub(crate) fn interrupted_attempt(&self, cycle: &Cycle) -> Option<Interrupted<'_>> {
        let file = |c: &Cycle, f: &str| c.files.get(f).is_some_and(|(k, _)| k.is_file());
        if self.family != Family::Schema2 || file(cycle, "receipt.json") || !file(cycle, "report.md") {
            return None;
        }
        let base = attempt_base(&cycle.name);
        let later = self
            .cycles
            .iter()
            .filter(|c| attempt_base(&c.name) == base && attempt_number(&c.name) > attempt_number(&cycle.name))
            .find(|c| file(c, "receipt.json"))
            .map(|c| c.path.as_str());
        Some(Interrupted { superseded_by: later })
    }
}

/// An interrupted attempt of a round (see [`Ledger::interrupted_attempt`]).
pub(crate) struct Interrupted<'a> {
    /// The later attempt of the same round that completed, if any.
    pub superseded_by: Option<&'a str>,
}

/// `<sha12>-r<n>` of `<sha12>-r<n>.<k>`.
fn attempt_base(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, k)) if k.parse::<u32>().is_ok() => base,
        _ => name,
    }
}

/// `k` of `<sha12>-r<n>.<k>`; the first attempt has no suffix and counts as 1.
fn attempt_number(name: &str) -> u32 {
    name.rsplit_once('.').and_then(|(_, k)| k.parse().ok()).unwrap_or(1)
}

/// Append-only facts about the ledger directory.
pub(crate) struct History {
    /// Path → (commit that added it, its blob then).
    pub added: BTreeMap<String, (ObjectId, ObjectId)>,
    /// Commit id → topological position (0 = oldest).
    pub position: HashMap<ObjectId, usize>,
    /// (commit, its tree) in topological order, oldest first: later walks reuse this one.
    pub commits: Vec<(ObjectId, ObjectId)>,
    /// (path, commit that added it, commit that changed it, "modified"/"deleted"/"truncated").
    pub violations: Vec<(String, ObjectId, ObjectId, &'static str)>,
}

/// A loaded ledger.
pub(crate) struct Ledger {
    /// Handles for any thread (`local()` gives one to the current thread).
    pub audit: SharedRepo,
    pub audit_head: ObjectId,
    pub family: Family,
    /// The family was detected (no `--dialect`): the ledger was found to hold one layout.
    pub detected: bool,
    pub ledger_dir: String,
    pub science: Option<SharedRepo>,
    /// The science repository is the ledger repository (product local mode).
    pub local: bool,
    pub cycles: Vec<Cycle>,
    /// Ledger-dir entries that are not cycle directories.
    pub strays: Vec<String>,
    pub history: Result<History, String>,
    /// v1 `controller/state.json` at the audit head.
    pub state: Read<json::Value>,
    /// Every version of v1 `controller/state.json` in the audit history (oldest first, each
    /// with the commit that wrote it): single use is read from all of them, so an admission
    /// recorded once cannot be undone by a later commit. Empty without the full history.
    pub state_history: Vec<(ObjectId, Result<json::Value, String>)>,
    /// `disputes.jsonl` lines at the head.
    pub disputes: Read<Vec<json::Value>>,
}

const V1_FILES: [&str; 4] = ["report.md", "checks.json", "raw_exchange.json", "receipt.json"];

const S2_FILES: [&str; 3] = ["report.md", "checks.json", "receipt.json"];

pub(crate) const S2_LEDGER_FILES: [&str; 3] = ["README.md", "disputes.jsonl", "routing.jsonl"];

/// Files a cycle directory of `family` holds.
pub(crate) fn artefacts(family: Family) -> &'static [&'static str] {
    match family {
        Family::V1 => &V1_FILES,
        Family::Schema2 => &S2_FILES,
    }
}

pub(crate) fn read_json(repo: &Repo, id: ObjectId, path: &str) -> Result<json::Value, String> {
    let bytes = repo.record(id, path).map_err(|e| e.to_string())?;
    json::parse(&bytes).map_err(|e| format!("{path}: {e}"))
}

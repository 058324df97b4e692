//! The facts about one cycle that every check reads and the per-cycle stages hand on: the
//! shared context, the parsed and bound receipt, the binding state (I7), the deterministic
//! layer's run, and the facts the cross-cycle replay and the tables need.

use crate::crossaudit::load::{Cycle, Ledger};
use crate::crossaudit::records::config::Config;
use crate::crossaudit::records::constitution::Constitution;
use crate::crossaudit::records::receipt::{Family, Receipt};
use crate::crossaudit::records::synthesis::Inputs;
use crate::manifest::{BlobHashes, Digest};

/// What a cycle's verification found, beyond its results: the facts the cross-cycle replay
/// and the tables need.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct CycleFacts {
    pub verdict: Option<String>,
    pub integrity: Option<String>,
    pub round: Option<i64>,
    pub cycle_id: Option<String>,
    pub sha: Option<String>,
    pub root_sha: Option<String>,
    pub science_repo: Option<String>,
    pub parent_receipt: Option<String>,
    pub identity: Option<Digest>,
    pub inputs: Inputs,
    pub blockers: usize,
    pub max_rounds: Option<i64>,
    pub max_rounds_default: bool,
    /// Whether the error-level binding checks all passed (admission needs this), and if not
    /// why: only the binding stage can mark a receipt bound.
    pub binding: Binding,
    pub isolation_shortfall: Vec<String>,
    pub model_findings: Vec<(String, String)>,
    pub product: bool,
    /// The parsed receipt without its manifest (which is dropped once compared).
    pub receipt: Option<Receipt>,
    /// The deterministic layer's inputs and hard failures, for CV-A403.
    pub dcl_run: Option<DclRun>,
}

/// Shared, read-only context for per-cycle verification.
pub(crate) struct Ctx<'a> {
    pub ledger: &'a Ledger,
    pub hashes: &'a BlobHashes,
    /// The Constitution's last change per audit commit, shared by all receipts.
    pub last_change: &'a crate::git::LastChangeMemo,
    pub expect_sha: Option<&'a str>,
    pub expect_repo: Option<&'a str>,
    /// Sharding: whose CV-A702 stage this run runs (`load/shard.rs`).
    pub shard: Option<&'a crate::crossaudit::load::shard::Plan>,
}

/// What a worker keeps from one cycle to the next, on one pair of repository handles: a
/// buffer for the objects it reads, and the product's last selection (I7), patched for the
/// next commit instead of walked again.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub buf: Vec<u8>,
    pub selections: crate::crossaudit::records::scope::AuditReuse,
}

/// Stage one: what the receipt says, parsed and nothing more. Only the binding stage (I7's
/// `bind`) turns it into a receipt the replay may use.
pub(crate) struct Parsed {
    pub(crate) receipt: Receipt,
}

/// Whether a receipt's verdict binds commit, manifest and versions (I7). Only the binding stage
/// (`bind`) marks a receipt verified; a later stage may add a failure, never remove one.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Binding {
    verified: bool,
    failures: Vec<String>,
}

impl Binding {
    /// What the binding stage (I7, `bind`) concludes: bound unless `failures` names a reason.
    /// Only that stage calls this; a later stage may add a failure, never remove one.
    pub(crate) fn verified(failures: Vec<String>) -> Self {
        Binding { verified: true, failures }
    }

    /// Verified by the binding checks, and no stage has found a failure since.
    pub(crate) fn is_bound(&self) -> bool {
        self.verified && self.failures.is_empty()
    }

    /// Why the receipt is not bound, first failure first.
    pub(crate) fn failures(&self) -> &[String] {
        &self.failures
    }

    /// A later stage found the receipt does not bind what it claims.
    pub(crate) fn fail(&mut self, why: String) {
        self.failures.push(why);
    }
}

/// Stage two: a receipt after every binding check, with what those checks read on the way.
pub(crate) struct Bound {
    pub(crate) receipt: Receipt,
    pub(crate) binding: Binding,
    pub(crate) config: Option<Result<Config, String>>,
    pub(crate) constitution: Option<Constitution>,
}

/// What a receipt's deterministic layer ran on and what it found.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct DclRun {
    /// Digest of everything that determines the layer's output; `None` when the receipt does
    /// not bind all of it.
    pub key: Option<Digest>,
    /// Hard failures (`rule[/check]@artifact`), sorted; `None` without a readable `checks.json`.
    pub hard: Option<Vec<String>>,
}

/// The deterministic layer's inputs and hard failures for one receipt, taken while its
/// manifest is still held.
pub(crate) fn dcl_run(r: &Receipt, cycle: &Cycle) -> DclRun {
    let checks = match r.family {
        // v1 runs every `checks/*.py`, which the source digest already covers.
        Family::V1 => Some("checks/*.py"),
        Family::Schema2 => r.dcl_checks.as_deref(),
    };
    let key = match (&r.tree, checks, &r.dcl_source_sha256, &r.manifest) {
        (Some(tree), Some(checks), Some(dcl), Some(m)) => {
            use sha2::Digest as _;
            let mut h = sha2::Sha256::new();
            for part in [r.family.as_str(), tree, checks, dcl] {
                h.update(part.as_bytes());
                h.update([0]);
            }
            for k in m.keys() {
                h.update(k.as_bytes());
                h.update([0]);
            }
            Some(Digest(h.finalize().into()))
        }
        _ => None,
    };
    let hard = cycle.dcl.as_ref().and_then(|d| d.as_ref().ok()).map(|d| {
        let mut v: Vec<String> = d
            .findings
            .iter()
            .filter(|f| f.severity == "BLOCKER")
            .map(|f| match &f.check {
                Some(c) if !f.rule.ends_with(c.as_str()) => format!("{}/{c}@{}", f.rule, f.artifact),
                _ => format!("{}@{}", f.rule, f.artifact),
            })
            .collect();
        v.sort();
        v
    });
    DclRun { key, hard }
}

/// Per-cycle position in its controller group.
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupInfo {
    /// A later receipt of the same cycle supersedes this one.
    pub superseded_by: Option<String>,
    /// A later receipt in the ledger audits the same science commit (whatever cycle it
    /// claims): the commit's latest audit is that one.
    pub reaudited_by: Option<String>,
    /// The cycle moved on to another commit after this receipt.
    pub moved_to: Option<String>,
    /// Receipt file hash already consumed (v1 state).
    pub consumed: bool,
    /// The ledger order is unknown (no full history), so freshness cannot be decided.
    pub unknown_order: bool,
}

pub(crate) fn facts_sha(facts: &[CycleFacts], i: usize) -> Option<String> {
    facts[i].sha.clone()
}

/// A model finding as recorded: severity, rule, observation.
pub(crate) type ModelFinding = (String, String, String);

//! The scenario file's shape (`ledger-fixtures/*.toml`), read with serde, closed.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Scenario {
    pub(super) dialect: String,
    #[serde(default)]
    pub(super) mode: Option<String>,
    #[serde(default = "default_repo")]
    pub(super) science_repo: String,
    #[serde(default = "default_audit_repo")]
    pub(super) audit_repo: String,
    #[serde(default = "default_version")]
    pub(super) product_version: String,
    #[serde(default)]
    pub(super) verb: Option<String>,
    #[serde(default = "default_scope")]
    pub(super) scope: String,
    #[serde(default)]
    pub(super) scope_dirs: Option<Vec<String>>,
    #[serde(default)]
    pub(super) max_rounds: Option<i64>,
    #[serde(default = "default_generator")]
    pub(super) generator_vendor: Option<String>,
    #[serde(default = "default_auditor")]
    pub(super) auditor_vendor: String,
    #[serde(default = "default_model")]
    pub(super) auditor_model: String,
    #[serde(default = "default_provider")]
    pub(super) provider: String,
    #[serde(default)]
    pub(super) isolation_minimum: BTreeMap<String, bool>,
    #[serde(default)]
    pub(super) constitution: Option<String>,
    #[serde(default)]
    pub(super) dcl_sources: BTreeMap<String, String>,
    #[serde(default)]
    pub(super) publish_state: Option<bool>,
    /// Marks the n-th commit of the ledger repository (0 = oldest) as a shallow boundary, as
    /// `git clone --depth` would.
    #[serde(default)]
    pub(super) shallow_ledger: Option<usize>,
    /// Signs every ledger commit (`allowed`, `unknown`, `bad`, `unsigned`, `openpgp`: see
    /// `signing::Mode`) and writes `allowed_signers` beside the repositories.
    #[serde(default)]
    pub(super) sign_ledger: Option<String>,
    /// Re-signs the ledger's final commit another way (the others keep `sign_ledger`'s).
    #[serde(default)]
    pub(super) sign_ledger_tip: Option<String>,
    #[serde(default)]
    pub(super) science: Vec<ScienceCommit>,
    #[serde(default)]
    pub(super) cycle: Vec<CycleSpec>,
    #[serde(default)]
    pub(super) dispute: Vec<DisputeSpec>,
    #[serde(default)]
    pub(super) tamper: Vec<Tamper>,
}

pub(super) fn default_repo() -> String {
    "lab/water-dimer".into()
}
pub(super) fn default_audit_repo() -> String {
    "lab/water-dimer-audit".into()
}
pub(super) fn default_version() -> String {
    "4.14.0".into()
}
pub(super) fn default_scope() -> String {
    "experiments".into()
}
#[allow(clippy::unnecessary_wraps)]
pub(super) fn default_generator() -> Option<String> {
    Some("anthropic".into())
}
pub(super) fn default_auditor() -> String {
    "openai".into()
}
pub(super) fn default_model() -> String {
    "gpt-5".into()
}
pub(super) fn default_provider() -> String {
    "openai_compat".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScienceCommit {
    pub(super) label: String,
    pub(super) message: String,
    #[serde(default)]
    pub(super) remove: Vec<String>,
    #[serde(default)]
    pub(super) file: Vec<toml::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DclFinding {
    #[serde(default = "blocker")]
    pub(super) severity: String,
    pub(super) rule: String,
    pub(super) check: String,
    #[serde(default)]
    pub(super) artifact: String,
    pub(super) message: String,
}

pub(super) fn blocker() -> String {
    "BLOCKER".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelFinding {
    pub(super) severity: String,
    pub(super) rule: String,
    #[serde(default)]
    pub(super) artifact: String,
    #[serde(default)]
    pub(super) observation: String,
    #[serde(default)]
    pub(super) required: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Reply {
    pub(super) verdict: String,
    #[serde(default)]
    pub(super) sections_applied: Vec<String>,
    #[serde(default)]
    pub(super) findings: Vec<ModelFinding>,
    #[serde(default)]
    pub(super) notes: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CycleSpec {
    pub(super) science: String,
    #[serde(default)]
    pub(super) dcl: Vec<DclFinding>,
    #[serde(default)]
    pub(super) reply: Option<Reply>,
    #[serde(default)]
    pub(super) invalid: Option<String>,
    #[serde(default)]
    pub(super) call_failed: bool,
    #[serde(default)]
    pub(super) bound_exceeded: i64,
    #[serde(default)]
    pub(super) replay_provider: bool,
    #[serde(default)]
    pub(super) precedence: Option<String>,
    #[serde(default)]
    pub(super) admit: bool,
    /// Text appended to the Constitution in its own ledger commit just before this cycle's
    /// audit (an amendment, as the product's `amend` lane commits it).
    #[serde(default)]
    pub(super) amend: Option<String>,
    /// The product's `audit` without `--write-ledger` (schema 2): the cycle's files are written
    /// uncommitted under `<out>/unrecorded/<cycle dir>/`, with an empty `ledger.report_commit`.
    #[serde(default)]
    pub(super) unrecorded: bool,
    /// Schema 2: the round stops after its report commit, as when the product is interrupted
    /// between its two ledger commits: no receipt, no controller verdict, so the next cycle on
    /// the same commit re-runs the round in `<sha12>-r<n>.2`.
    #[serde(default)]
    pub(super) interrupted: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DisputeSpec {
    pub(super) cycle: usize,
    pub(super) rule: String,
    pub(super) artifact: String,
    pub(super) ruling: String,
    #[serde(default = "grounds")]
    pub(super) grounds: String,
    /// Recorded `finding_key` when it is not `rule@artifact` (a tamper of the ruling's identity).
    #[serde(default)]
    pub(super) finding_key: Option<String>,
}

pub(super) fn grounds() -> String {
    "The principal disputes this finding on the stated criterion.".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Tamper {
    #[serde(default)]
    pub(super) cycle: Option<usize>,
    pub(super) file: String,
    pub(super) op: String,
    #[serde(default)]
    pub(super) pointer: Option<String>,
    #[serde(default)]
    pub(super) value: Option<toml::Value>,
    #[serde(default)]
    pub(super) from: Option<String>,
    #[serde(default)]
    pub(super) to: Option<String>,
    #[serde(default)]
    pub(super) text: Option<String>,
    #[serde(default = "rewrite")]
    pub(super) mode: String,
}

pub(super) fn rewrite() -> String {
    "rewrite".into()
}

//! Fixture ledgers from plain-text scenarios: emulates the v1 reference runner and the
//! product (receipt schema 2) closely enough that their ledgers are genuine under every rule
//! in the formats note, with pinned identities and dates so commit ids are stable.
//!
//! A scenario (`ledger-fixtures/*.toml`) lists science commits, audit cycles (deterministic
//! findings, the auditor's reply or its failure) and optional tampers applied to the minted
//! records, either as if minted so (`mode = "rewrite"`), before the receipt binds the report
//! (`mode = "forge"`: the forger wrote the receipt too) or as a later commit on the audit
//! branch (`mode = "commit"`). A TOML file with `[[repo]]` tables instead is a plain
//! repository description ([`crate::fixture::spec`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crossverify::git::{ObjectId, Repo};
use serde_json::{Map, Number, Value};

use crate::pyjson;

use crate::fixture::{self, Error, RepoBuilder};
use crate::rules::{self, Bound, Family, Precedence, sha256_hex};

/// Builds the fixture described by the TOML file at `path` into `out`.
///
/// # Errors
/// Unreadable or malformed description, or a write failure.
pub fn build_file(path: &Path, out: &Path) -> Result<(), Error> {
    let text = resolve(path, 0)?;
    build(&text, out)
}

/// Reads a scenario, merging it over the scenario its `base` key names (a sibling file, without
/// `.toml`): top-level keys of the derived scenario replace the base's, except `tamper`, which
/// is appended.
fn resolve(path: &Path, depth: usize) -> Result<String, Error> {
    let err = |m: String| Error { path: path.to_owned(), message: m };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let mut t: toml::Table = text.parse().map_err(|e: toml::de::Error| err(format!("invalid TOML: {e}")))?;
    let Some(base) = t.remove("base") else { return Ok(text) };
    let name = base.as_str().ok_or_else(|| err("base must be a fixture name".into()))?;
    if depth > 4 {
        return Err(err("base chain deeper than 4".into()));
    }
    let base_path = path.with_file_name(format!("{name}.toml"));
    let mut merged: toml::Table =
        resolve(&base_path, depth + 1)?.parse().map_err(|e: toml::de::Error| err(e.to_string()))?;
    for (k, v) in t {
        match (k.as_str(), merged.get_mut("tamper"), v) {
            ("tamper", Some(toml::Value::Array(existing)), toml::Value::Array(more)) => existing.extend(more),
            (_, _, v) => {
                merged.insert(k, v);
            }
        }
    }
    toml::to_string(&merged).map_err(|e| err(e.to_string()))
}

/// Builds the fixture described by `text` into `out`: `out/science` and, in paired mode,
/// `out/audit` for a scenario; `out/<name>` for each `[[repo]]` of a repository description.
///
/// # Errors
/// Malformed description or a write failure.
pub fn build(text: &str, out: &Path) -> Result<(), Error> {
    let err = |m: String| Error { path: out.to_owned(), message: m };
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| err(format!("invalid TOML: {e}")))?;
    if table.contains_key("repo") {
        return fixture::spec::build(text, out);
    }
    let s: Scenario = toml::from_str(text).map_err(|e| err(format!("invalid scenario: {e}")))?;
    Minter::new(s, out)?.run()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    dialect: String,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default = "default_repo")]
    science_repo: String,
    #[serde(default = "default_audit_repo")]
    audit_repo: String,
    #[serde(default = "default_version")]
    product_version: String,
    #[serde(default)]
    verb: Option<String>,
    #[serde(default = "default_scope")]
    scope: String,
    #[serde(default)]
    scope_dirs: Option<Vec<String>>,
    #[serde(default)]
    max_rounds: Option<i64>,
    #[serde(default = "default_generator")]
    generator_vendor: Option<String>,
    #[serde(default = "default_auditor")]
    auditor_vendor: String,
    #[serde(default = "default_model")]
    auditor_model: String,
    #[serde(default = "default_provider")]
    provider: String,
    #[serde(default)]
    isolation_minimum: BTreeMap<String, bool>,
    #[serde(default)]
    constitution: Option<String>,
    #[serde(default)]
    dcl_sources: BTreeMap<String, String>,
    #[serde(default)]
    publish_state: Option<bool>,
    /// Marks the n-th commit of the ledger repository (0 = oldest) as a shallow boundary, as
    /// `git clone --depth` would.
    #[serde(default)]
    shallow_ledger: Option<usize>,
    /// Signs every ledger commit (`allowed`, `unknown`, `bad`, `unsigned`, `openpgp`: see
    /// `signing::Mode`) and writes `allowed_signers` beside the repositories.
    #[serde(default)]
    sign_ledger: Option<String>,
    /// Re-signs the ledger's final commit another way (the others keep `sign_ledger`'s).
    #[serde(default)]
    sign_ledger_tip: Option<String>,
    #[serde(default)]
    science: Vec<ScienceCommit>,
    #[serde(default)]
    cycle: Vec<CycleSpec>,
    #[serde(default)]
    dispute: Vec<DisputeSpec>,
    #[serde(default)]
    tamper: Vec<Tamper>,
}

fn default_repo() -> String {
    "lab/water-dimer".into()
}
fn default_audit_repo() -> String {
    "lab/water-dimer-audit".into()
}
fn default_version() -> String {
    "4.14.0".into()
}
fn default_scope() -> String {
    "experiments".into()
}
#[allow(clippy::unnecessary_wraps)]
fn default_generator() -> Option<String> {
    Some("anthropic".into())
}
fn default_auditor() -> String {
    "openai".into()
}
fn default_model() -> String {
    "gpt-5".into()
}
fn default_provider() -> String {
    "openai_compat".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScienceCommit {
    label: String,
    message: String,
    #[serde(default)]
    remove: Vec<String>,
    #[serde(default)]
    file: Vec<toml::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct DclFinding {
    #[serde(default = "blocker")]
    severity: String,
    rule: String,
    check: String,
    #[serde(default)]
    artifact: String,
    message: String,
}

fn blocker() -> String {
    "BLOCKER".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFinding {
    severity: String,
    rule: String,
    #[serde(default)]
    artifact: String,
    #[serde(default)]
    observation: String,
    #[serde(default)]
    required: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Reply {
    verdict: String,
    #[serde(default)]
    sections_applied: Vec<String>,
    #[serde(default)]
    findings: Vec<ModelFinding>,
    #[serde(default)]
    notes: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CycleSpec {
    science: String,
    #[serde(default)]
    dcl: Vec<DclFinding>,
    #[serde(default)]
    reply: Option<Reply>,
    #[serde(default)]
    invalid: Option<String>,
    #[serde(default)]
    call_failed: bool,
    #[serde(default)]
    bound_exceeded: i64,
    #[serde(default)]
    replay_provider: bool,
    #[serde(default)]
    precedence: Option<String>,
    #[serde(default)]
    admit: bool,
    /// Text appended to the Constitution in its own ledger commit just before this cycle's
    /// audit (an amendment, as the product's `amend` lane commits it).
    #[serde(default)]
    amend: Option<String>,
    /// The product's `audit` without `--write-ledger` (schema 2): the cycle's files are written
    /// uncommitted under `<out>/unrecorded/<cycle dir>/`, with an empty `ledger.report_commit`.
    #[serde(default)]
    unrecorded: bool,
    /// Schema 2: the round stops after its report commit, as when the product is interrupted
    /// between its two ledger commits: no receipt, no controller verdict, so the next cycle on
    /// the same commit re-runs the round in `<sha12>-r<n>.2`.
    #[serde(default)]
    interrupted: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct DisputeSpec {
    cycle: usize,
    rule: String,
    artifact: String,
    ruling: String,
    #[serde(default = "grounds")]
    grounds: String,
    /// Recorded `finding_key` when it is not `rule@artifact` (a tamper of the ruling's identity).
    #[serde(default)]
    finding_key: Option<String>,
}

fn grounds() -> String {
    "The principal disputes this finding on the stated criterion.".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Tamper {
    #[serde(default)]
    cycle: Option<usize>,
    file: String,
    op: String,
    #[serde(default)]
    pointer: Option<String>,
    #[serde(default)]
    value: Option<toml::Value>,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default = "rewrite")]
    mode: String,
}

fn rewrite() -> String {
    "rewrite".into()
}

/// Files of a cycle directory; a tamper naming any other file targets that path in the ledger
/// repository (changed in the same commit as its cycle, in rewrite mode).
const CYCLE_FILES: [&str; 4] = ["report.md", "checks.json", "receipt.json", "raw_exchange.json"];

const V1_CONSTITUTION: &str =
    include_str!("../../test-vectors/real/crossaudit/examples/minimal/audit-repo/AUDIT_RULES.md");
const V1_DCL_SOURCE: &str = "\"\"\"Deterministic check layer runner (fixture copy).\"\"\"\nimport json, sys\n\ndef main():\n    json.dump({\"crossaudit_dcl_version\": 1}, sys.stdout)\n";

/// Controller record (v1 R2b / product state machine).
#[derive(Debug, Clone)]
struct CtlCycle {
    id: String,
    repo: String,
    root_sha: String,
    active_sha: String,
    round: i64,
    status: &'static str,
    parent_receipt: String,
    consumed: Vec<String>,
}

struct Minter {
    s: Scenario,
    family: Family,
    local: bool,
    v4: bool,
    science: RepoBuilder,
    audit: Option<RepoBuilder>,
    labels: BTreeMap<String, ObjectId>,
    /// Science label → the previous science label (parent for controller matching).
    science_parent: BTreeMap<String, Option<String>>,
    next_science: usize,
    ctl: Vec<CtlCycle>,
    history: Vec<Value>,
    dirs: Vec<String>,
    /// What each minted cycle was, for tamper placeholders.
    minted: Vec<Minted>,
    /// SHA-256 of science blobs already hashed (a synthetic ledger binds the same files a
    /// thousand times).
    digests: std::collections::HashMap<ObjectId, String>,
    /// The Constitution's blob and the commit that last changed it, while it stays unchanged.
    constitution_memo: Option<(ObjectId, String)>,
    /// The science repository was generated elsewhere: no bootstrap commit there.
    science_external: bool,
    ledger_dir: String,
    out: std::path::PathBuf,
}

#[derive(Debug, Clone)]
struct Minted {
    sha: String,
    cycle_id: String,
    identity: String,
    dir: String,
    constitution: String,
}

/// What one round records, settled before any of its records is written.
struct RoundFacts {
    n: usize,
    /// Index of the round's cycle in the controller.
    ci: usize,
    sha: String,
    tree: String,
    round: i64,
    verdict: String,
    integrity: &'static str,
    offline: bool,
    model: String,
    provider: String,
    prompt: String,
    constitution_commit: String,
    constitution_bytes: Vec<u8>,
    dcl_source: String,
    manifest: BTreeMap<String, Value>,
    dir: String,
    run_verb: bool,
}

/// A round's report and DCL output as written (`None`: a tamper deleted it).
struct Records {
    report: Option<String>,
    dcl: Option<String>,
    /// Digest of the report the receipt binds (before any later tamper).
    report_digest: String,
}

fn jstr(s: &str) -> Value {
    Value::String(s.to_owned())
}

fn jint(i: i64) -> Value {
    Value::Number(Number::from(i))
}

fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A JSON object from a map built in key order.
fn object(m: BTreeMap<String, Value>) -> Value {
    Value::Object(m.into_iter().collect())
}

fn toml_to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => jint(*i),
        toml::Value::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(t.iter().map(|(k, v)| (k.clone(), toml_to_json(v))).collect()),
    }
}

impl Minter {
    fn new(s: Scenario, out: &Path) -> Result<Self, Error> {
        let err = |m: String| Error { path: out.to_owned(), message: m };
        let family = match s.dialect.as_str() {
            "v1" => Family::V1,
            "schema2" => Family::Schema2,
            other => return Err(err(format!("dialect {other:?} is not v1 or schema2"))),
        };
        let local = s.mode.as_deref() == Some("local");
        if family == Family::V1 && local {
            return Err(err("the v1 reference has no local mode".into()));
        }
        let science = RepoBuilder::init(&out.join("science"))?;
        let audit = if local { None } else { Some(RepoBuilder::init(&out.join("audit"))?) };
        let v4 = s.product_version.starts_with('4');
        Ok(Minter::assemble(s, family, local, v4, science, audit, out))
    }

    fn assemble(
        s: Scenario,
        family: Family,
        local: bool,
        v4: bool,
        science: RepoBuilder,
        audit: Option<RepoBuilder>,
        out: &Path,
    ) -> Self {
        Minter {
            s,
            family,
            local,
            v4,
            science,
            audit,
            labels: BTreeMap::new(),
            science_parent: BTreeMap::new(),
            next_science: 0,
            ctl: Vec::new(),
            history: Vec::new(),
            dirs: Vec::new(),
            minted: Vec::new(),
            digests: std::collections::HashMap::new(),
            constitution_memo: None,
            science_external: false,
            ledger_dir: "cycles".to_owned(),
            out: out.to_owned(),
        }
    }

    fn err(&self, m: impl Into<String>) -> Error {
        Error { path: self.out.clone(), message: m.into() }
    }

    /// The builder holding the ledger.
    fn ledger(&mut self) -> &mut RepoBuilder {
        match &mut self.audit {
            Some(a) => a,
            None => &mut self.science,
        }
    }

    fn ledger_path(&self) -> std::path::PathBuf {
        self.audit.as_ref().map_or_else(|| self.science.path().to_owned(), |a| a.path().to_owned())
    }

    fn constitution_text(&self) -> String {
        self.s.constitution.clone().unwrap_or_else(|| V1_CONSTITUTION.to_owned())
    }

    fn config_yaml(&self) -> String {
        let s = &self.s;
        let gen_line = s.generator_vendor.as_ref().map_or_else(String::new, |g| format!("generator:\n  vendor: {g}\n"));
        match self.family {
            Family::V1 => format!(
                "version: 1\naudit:\n  repo: {}\n{gen_line}auditor:\n  vendor: {}\nloop:\n  max_rounds: {}\nseverity:\n  block_on: [BLOCKER]\nescalation:\n  method: github-issue\n  labels: [crossaudit-escalation]\n",
                s.audit_repo,
                s.auditor_vendor,
                s.max_rounds.unwrap_or(3)
            ),
            Family::Schema2 => {
                let mut y =
                    format!("# crossaudit.yml - crossverify fixture\nversion: 1\n\nscience_repo: {}\n", s.science_repo);
                if !self.local {
                    y.push_str(&format!("audit_repo: {}\n", s.audit_repo));
                }
                y.push_str("constitution: AUDIT_RULES.md\n");
                if let Some(m) = s.max_rounds {
                    y.push_str(&format!("max_rounds: {m}\n"));
                }
                y.push_str(&format!(
                    "\nauditor:\n  vendor: {}\n  provider: {}\n  model: {}\n  key_env: CROSSAUDIT_AUDITOR_KEY\n\n{gen_line}",
                    s.auditor_vendor, s.provider, s.auditor_model
                ));
                if !s.isolation_minimum.is_empty() {
                    y.push_str("\nisolation:\n  minimum:\n");
                    for (k, v) in &s.isolation_minimum {
                        y.push_str(&format!("    {k}: {v}\n"));
                    }
                }
                y.push_str("\nstate:\n  dir: .crossaudit\n\nledger:\n  dir: cycles\n");
                if let Some(d) = &s.scope_dirs {
                    y.push_str(&format!("\nscope:\n  dirs: [{}]\n", d.join(", ")));
                }
                y.push_str("\nchecks: [schema, units, convergence, provenance]\n");
                y
            }
        }
    }

    fn run(mut self) -> Result<(), Error> {
        let mode = |w: &Option<String>| w.as_deref().map(crate::signing::Mode::parse).transpose();
        let signing = mode(&self.s.sign_ledger).map_err(|e| self.err(e))?;
        let tip_signing = mode(&self.s.sign_ledger_tip).map_err(|e| self.err(e))?;
        if signing.is_some() || tip_signing.is_some() {
            std::fs::write(self.out.join("allowed_signers"), crate::signing::allowed_signers())
                .map_err(|e| self.err(e.to_string()))?;
        }
        self.ledger().set_signing(signing);
        self.bootstrap()?;
        let cycles = self.s.cycle.clone();
        for (n, c) in cycles.iter().enumerate() {
            self.science_up_to(&c.science)?;
            if let Some(text) = &c.amend {
                self.amend(text)?;
            }
            self.mint_cycle(n + 1, c)?;
        }
        // Science commits after the last audit still belong to the repository.
        while self.next_science < self.s.science.len() {
            self.commit_next_science()?;
        }
        let disputes = self.s.dispute.clone();
        if !disputes.is_empty() {
            self.mint_disputes(&disputes)?;
        }
        let late: Vec<Tamper> = self.s.tamper.iter().filter(|t| t.mode == "commit").cloned().collect();
        for t in late {
            self.tamper_commit(&t)?;
        }
        if let Some(k) = self.s.shallow_ledger {
            let path = self.ledger_path();
            let repo = Repo::open(&path).map_err(|e| self.err(e.to_string()))?;
            let tip = self.ledger().tip().ok_or_else(|| self.err("ledger has no commit"))?;
            let history = repo.history(tip).map_err(|e| self.err(e.to_string()))?;
            let boundary = history.get(k).ok_or_else(|| self.err(format!("the ledger has no commit #{k}")))?;
            std::fs::write(path.join("shallow"), format!("{}\n", boundary.id)).map_err(|e| self.err(e.to_string()))?;
        }
        if let Some(m) = tip_signing {
            self.ledger().resign_tip(m)?;
        }
        Ok(())
    }

    fn bootstrap(&mut self) -> Result<(), Error> {
        let yaml = self.config_yaml();
        let constitution = self.constitution_text();
        match self.family {
            Family::V1 => {
                self.science.file("crossaudit.yml", &yaml);
                self.science.commit("bootstrap science repository")?;
                let sources = if self.s.dcl_sources.is_empty() {
                    BTreeMap::from([("checks/run_checks.py".to_owned(), V1_DCL_SOURCE.to_owned())])
                } else {
                    self.s.dcl_sources.clone()
                };
                let a = self.ledger();
                a.file("AUDIT_RULES.md", &constitution);
                for (p, t) in &sources {
                    a.file(p, t);
                }
                a.commit("seed: constitution and check layer")?;
            }
            Family::Schema2 => {
                let local = self.local;
                let a = self.ledger();
                a.file("AUDIT_RULES.md", &constitution)
                    .file("crossaudit.yml", &yaml)
                    .file(".gitignore", ".crossaudit/\n");
                if !local {
                    a.file("cycles/README.md", "# Ledger\n\nOne directory per audit cycle: the report, the deterministic\ncheck output, and the receipt that binds them to a commit. Append-only:\na re-audit adds an attempt, it never rewrites one.\n");
                }
                a.commit(if local {
                    "bootstrap: constitution and configuration"
                } else {
                    "seed: constitution and ledger"
                })?;
                if !local && !self.science_external {
                    self.science.file("README.md", "# science repository\n");
                    self.science.commit("bootstrap science repository")?;
                }
            }
        }
        Ok(())
    }

    fn amend(&mut self, text: &str) -> Result<(), Error> {
        self.constitution_memo = None;
        let current = match self.ledger().get("AUDIT_RULES.md") {
            Some(fixture::Content::File(b)) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        };
        let l = self.ledger();
        l.file("AUDIT_RULES.md", format!("{current}{text}"));
        l.commit("amend rules")?;
        Ok(())
    }

    fn commit_next_science(&mut self) -> Result<(), Error> {
        let i = self.next_science;
        let prev = i.checked_sub(1).map(|p| self.s.science[p].label.clone());
        let sc = &self.s.science[i];
        let (label, message) = (sc.label.clone(), sc.message.clone());
        for p in sc.remove.clone() {
            self.science.remove(p);
        }
        for f in sc.file.clone() {
            let (path, content) =
                fixture::spec::file_entry(&f).map_err(|m| self.err(format!("science {label}: {m}")))?;
            self.science.put(path, content);
        }
        let id = self.science.commit(&message)?;
        self.labels.insert(label.clone(), id);
        self.science_parent.insert(label, prev);
        self.next_science += 1;
        Ok(())
    }

    fn science_up_to(&mut self, label: &str) -> Result<(), Error> {
        while !self.labels.contains_key(label) {
            if self.next_science >= self.s.science.len() {
                return Err(self.err(format!("cycle audits unknown science label {label:?}")));
            }
            self.commit_next_science()?;
        }
        Ok(())
    }

    /// R2b / product `open_or_advance`. Returns (index into ctl, blocked_by_escalation).
    fn open_or_advance(&mut self, sha: &str, parent: Option<&str>) -> (usize, bool) {
        let product = self.family == Family::Schema2;
        for (i, c) in self.ctl.iter_mut().enumerate() {
            // Product `resume_open_round`: a round that never reached a verdict (the cycle is
            // still OPEN on this commit) is resumed, not advanced.
            if product && c.active_sha == sha && c.status == "OPEN" {
                return (i, false);
            }
            if c.active_sha == sha && (c.status == "OPEN" || c.status == "BLOCKED") {
                c.round += 1;
                c.status = "OPEN";
                return (i, false);
            }
            if c.active_sha == sha && c.status == "ESCALATED" {
                return (i, true);
            }
            if parent.is_some_and(|p| c.active_sha == p) && c.status == "ESCALATED" {
                return (i, true);
            }
        }
        for (i, c) in self.ctl.iter_mut().enumerate() {
            if parent.is_some_and(|p| c.active_sha == p) && (c.status == "BLOCKED" || c.status == "OPEN") {
                c.round += 1;
                c.active_sha = sha.to_owned();
                c.status = "OPEN";
                return (i, false);
            }
        }
        let repo = self.s.science_repo.clone();
        self.ctl.push(CtlCycle {
            id: rules::cycle_id(&repo, sha),
            repo,
            root_sha: sha.to_owned(),
            active_sha: sha.to_owned(),
            round: 1,
            status: "OPEN",
            parent_receipt: String::new(),
            consumed: Vec::new(),
        });
        (self.ctl.len() - 1, false)
    }

    /// Mints cycle `n`: synthesis, manifest and inputs first (nothing written), then the records.
    fn mint_cycle(&mut self, n: usize, c: &CycleSpec) -> Result<(), Error> {
        let commit = self.labels[&c.science];
        let sha = commit.to_string();
        let parent_label = self.science_parent.get(&c.science).cloned().flatten();
        let parent_sha = parent_label.and_then(|l| self.labels.get(&l)).map(ToString::to_string);
        let (ci, lock) = self.open_or_advance(&sha, parent_sha.as_deref());
        let round = self.ctl[ci].round;
        let offline = c.reply.is_none() && c.invalid.is_none();
        let (verdict, integrity) = self.synthesize(n, c, lock, offline)?;
        let sci = Repo::open(self.science.path()).map_err(|e| self.err(e.to_string()))?;
        let manifest = self.manifest(&sci, commit)?;
        let tree = sci.commit(commit).map_err(|e| self.err(e.to_string()))?.tree.to_string();
        let (constitution_commit, constitution_bytes) = self.constitution()?;
        let model = if offline {
            "offline-stub".to_owned()
        } else if c.replay_provider {
            "replay-transcript".to_owned()
        } else {
            self.s.auditor_model.clone()
        };
        let provider = if c.replay_provider { "replay".to_owned() } else { self.s.provider.clone() };
        let prompt = if offline {
            sha256_hex(b"offline")
        } else {
            sha256_hex(format!("CONSTITUTION @ {constitution_commit}:\n{sha}\nround {round}").as_bytes())
        };
        let dir = self.cycle_dir(&sha, round);
        self.dirs.push(dir.clone());
        self.minted.push(Minted {
            sha: sha.clone(),
            cycle_id: self.ctl[ci].id.clone(),
            identity: String::new(),
            dir: dir.clone(),
            constitution: constitution_commit.clone(),
        });
        let r = RoundFacts {
            n,
            ci,
            dcl_source: self.dcl_source(),
            sha,
            tree,
            round,
            verdict,
            integrity,
            offline,
            model,
            provider,
            prompt,
            constitution_commit,
            constitution_bytes,
            manifest,
            dir,
            run_verb: self.s.verb.as_deref() == Some("run"),
        };
        self.write_round(c, &r)
    }

    /// §8 for this cycle: the verdict and the integrity word the dialect records beside it.
    fn synthesize(&self, n: usize, c: &CycleSpec, lock: bool, offline: bool) -> Result<(String, &'static str), Error> {
        let product = self.family == Family::Schema2;
        let precedence = match c.precedence.as_deref() {
            Some("paper") => Precedence::Paper,
            Some("dcl-first") => Precedence::DclFirst,
            Some(other) => return Err(self.err(format!("cycle {n}: precedence {other:?} is not paper or dcl-first"))),
            None if product => Precedence::DclFirst,
            None => Precedence::Paper,
        };
        let verdict = rules::verdict(
            precedence,
            &rules::Round {
                lock,
                invalid: c.invalid.is_some(),
                dcl_blocker: c.dcl.iter().any(|f| f.severity == "BLOCKER"),
                bound_exceeded: c.bound_exceeded > 0,
                offline,
                reply: c.reply.as_ref().map(|r| r.verdict.clone()),
            },
        );
        let integrity = match (self.family, c.invalid.is_some()) {
            (Family::V1, true) => "AUDITOR_INVALID_ESCALATION_REQUIRED",
            (Family::V1, false) => "OK",
            (Family::Schema2, true) if c.call_failed => "PROVIDER_FAILURE",
            // The product keeps OK when a DCL failure outranked the invalid reply (§8).
            (Family::Schema2, true) if verdict == "BLOCKED" => "OK",
            (Family::Schema2, true) => "INVALID_REPLY",
            (Family::Schema2, false) if c.bound_exceeded > 0 => "BOUNDS_EXCEEDED",
            (Family::Schema2, false) if c.replay_provider && verdict == "PASS" => "NON_EVIDENTIAL_PROVIDER",
            (Family::Schema2, false) => "OK",
        };
        Ok((verdict, integrity))
    }

    /// The manifest per the dialect's rule (§6), read back from the science objects just written.
    fn manifest(&mut self, sci: &Repo, commit: ObjectId) -> Result<BTreeMap<String, Value>, Error> {
        let p = rules::Product { v4: self.v4, scope_dirs: self.s.scope_dirs.as_deref() };
        let bound = match self.family {
            Family::V1 => rules::v1_manifest(sci, commit),
            Family::Schema2 if self.s.verb.as_deref() == Some("run") => rules::product_run_manifest(sci, commit, p),
            Family::Schema2 => rules::product_audit_manifest(sci, commit, &self.s.scope, p),
        }
        .map_err(|e| self.err(e.to_string()))?;
        let mut manifest = BTreeMap::new();
        for (k, b) in bound {
            let v = match b {
                Bound::Blob(id) => match self.digests.get(&id) {
                    Some(d) => d.clone(),
                    None => {
                        let d = sha256_hex(&sci.blob(id).map_err(|e| self.err(e.to_string()))?);
                        self.digests.insert(id, d.clone());
                        d
                    }
                },
                Bound::Absent => "ABSENT".to_owned(),
            };
            manifest.insert(k, jstr(&v));
        }
        Ok(manifest)
    }

    /// The constitution's version (§3.4: its last change, or `unversioned`) and bytes at audit
    /// time, before this cycle's commit.
    fn constitution(&mut self) -> Result<(String, Vec<u8>), Error> {
        let ledger_path = self.ledger_path();
        let lrepo = Repo::open(&ledger_path).map_err(|e| self.err(e.to_string()))?;
        let ltip = self.ledger().tip().ok_or_else(|| self.err("ledger has no commit"))?;
        let constitution_blob = lrepo
            .commit(ltip)
            .and_then(|c| lrepo.entry(c.tree, "AUDIT_RULES.md".into()))
            .map_err(|e| self.err(e.to_string()))?
            .map(|e| e.id);
        let constitution_commit = match (&self.constitution_memo, constitution_blob) {
            // Unchanged since last time: the last change is the same commit (no walk back
            // through an ever longer history).
            (Some((blob, commit)), Some(now)) if *blob == now => commit.clone(),
            _ => {
                let c = lrepo
                    .last_change(ltip, "AUDIT_RULES.md")
                    .map_err(|e| self.err(e.to_string()))?
                    .map_or_else(|| "unversioned".to_owned(), |c| c.to_string());
                self.constitution_memo = constitution_blob.map(|b| (b, c.clone()));
                c
            }
        };
        let bytes = lrepo.file_at(ltip, "AUDIT_RULES.md").map_err(|e| self.err(e.to_string()))?.unwrap_or_default();
        Ok((constitution_commit, bytes))
    }

    /// v1's check layer digest: the `checks/*.py` files of the ledger in path order.
    fn dcl_source(&mut self) -> String {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        let mut paths: Vec<String> = self
            .ledger()
            .paths()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .filter(|p| p.starts_with("checks/") && p.ends_with(".py") && p.matches('/').count() == 1)
            .collect();
        paths.sort();
        for p in paths {
            if let Some(fixture::Content::File(b) | fixture::Content::Executable(b)) = self.ledger().get(&p) {
                h.update(b);
            }
        }
        hex::encode(h.finalize())
    }

    /// The cycle directory (§4.2, §4.3), unique among those already minted.
    fn cycle_dir(&self, sha: &str, round: i64) -> String {
        match self.family {
            Family::V1 => {
                let base = format!("{}/{sha}", self.ledger_dir);
                if self.dirs.contains(&base) { format!("{base}-r{round}") } else { base }
            }
            Family::Schema2 => {
                let base = format!("{}/{}-r{round}", self.ledger_dir, &sha[..12]);
                let mut d = base.clone();
                let mut k = 2;
                while self.dirs.contains(&d) {
                    d = format!("{base}.{k}");
                    k += 1;
                }
                d
            }
        }
    }

    /// Writes the round's records as the dialect does.
    fn write_round(&mut self, c: &CycleSpec, r: &RoundFacts) -> Result<(), Error> {
        let dcl_json = self.dcl_output(c, &r.sha);
        let report =
            self.report(c, &r.sha, r.round, &r.verdict, &r.constitution_commit, &dcl_json, &r.model, &r.provider);
        let report = self.forged(r.n, "report.md", report);
        let report_digest = sha256_hex(report.as_bytes());
        let dcl_text = pyjson::pretty(&dcl_json, true);
        let files = Records {
            report: self.tampered(r.n, "report.md", report),
            dcl: self.tampered(r.n, "checks.json", dcl_text),
            report_digest,
        };
        match self.family {
            Family::V1 => self.write_v1(c, r, files),
            Family::Schema2 if c.unrecorded => self.write_unrecorded(c, r, files),
            Family::Schema2 => self.write_schema2(c, r, files),
        }
    }

    /// Sets the identity of the round just minted.
    fn identify(&mut self, identity: &str) {
        if let Some(m) = self.minted.last_mut() {
            m.identity = identity.to_owned();
        }
    }

    /// v1 (§4.2): the four records, the controller state and one commit; admission if asked.
    fn write_v1(&mut self, c: &CycleSpec, r: &RoundFacts, files: Records) -> Result<(), Error> {
        let exchange = self.raw_exchange(c, &r.model);
        let exchange_file = self.tampered(r.n, "raw_exchange.json", pyjson::pretty(&exchange, true));
        let receipt_text = pyjson::pretty(&self.v1_receipt(c, r, &files.report_digest), true);
        let identity = sha256_hex(receipt_text.as_bytes());
        self.identify(&identity);
        let receipt_file = self.tampered(r.n, "receipt.json", receipt_text);
        let mut written: Vec<(String, String)> = Vec::new();
        for (name, f) in [
            ("report.md", files.report),
            ("checks.json", files.dcl),
            ("raw_exchange.json", exchange_file),
            ("receipt.json", receipt_file),
        ] {
            if let Some(f) = f {
                written.push((format!("{}/{name}", r.dir), f));
            }
        }
        self.record_verdict(r.ci, &r.sha, &r.verdict, &identity, self.max_rounds(), r.round);
        if self.s.publish_state.unwrap_or(true) {
            written.push(("controller/state.json".into(), self.state_json()));
        }
        let msg = format!("cycle: {}@{} — {}", self.s.science_repo, &r.sha[..7], r.verdict);
        let l = self.ledger();
        for (p, t) in &written {
            l.file(p, t);
        }
        self.apply_rewrite_side_files(r.n)?;
        self.ledger().commit(&msg)?;
        if c.admit {
            self.admit(r.ci, &identity, &r.sha)?;
        }
        Ok(())
    }

    fn max_rounds(&self) -> i64 {
        self.s.max_rounds.unwrap_or(3)
    }

    /// §5.4: the v1 receipt.
    fn v1_receipt(&self, c: &CycleSpec, r: &RoundFacts, report_digest: &str) -> Value {
        obj([
            ("science_repo", jstr(&self.s.science_repo)),
            ("sha", jstr(&r.sha)),
            ("tree", jstr(&r.tree)),
            ("round", jint(r.round)),
            ("cycle_id", jstr(&self.ctl[r.ci].id)),
            ("manifest", object(r.manifest.clone())),
            ("constitution_hash", jstr(&r.constitution_commit)),
            ("dcl_source_sha256", jstr(&r.dcl_source)),
            ("prompt_sha256", jstr(&r.prompt)),
            ("report_sha256", jstr(report_digest)),
            ("auditor_model", jstr(&r.model)),
            ("audit_integrity", jstr(r.integrity)),
            ("input_bounds_exceeded", jint(c.bound_exceeded)),
            ("verdict", jstr(&r.verdict)),
        ])
    }

    /// A product round that never reached the ledger: its records beside it, the verdict in the
    /// controller (the product records it whether or not it commits).
    fn write_unrecorded(&mut self, c: &CycleSpec, r: &RoundFacts, files: Records) -> Result<(), Error> {
        let receipt = self.schema2_receipt(c, r, "", &files.report_digest);
        let identity = sha256_hex(pyjson::canonical(&receipt).as_bytes());
        self.identify(&identity);
        let receipt_file = self.tampered(r.n, "receipt.json", pyjson::pretty(&receipt, true));
        let where_ = self.out.join("unrecorded").join(&r.dir);
        std::fs::create_dir_all(&where_).map_err(|e| self.err(e.to_string()))?;
        for (name, f) in [("report.md", files.report), ("checks.json", files.dcl), ("receipt.json", receipt_file)] {
            if let Some(f) = f {
                std::fs::write(where_.join(name), f).map_err(|e| self.err(e.to_string()))?;
            }
        }
        self.record_verdict(r.ci, &r.sha, &r.verdict, &identity, self.max_rounds(), r.round);
        Ok(())
    }

    /// The product (§4.3): the report commit, then the receipt commit that names it.
    fn write_schema2(&mut self, c: &CycleSpec, r: &RoundFacts, files: Records) -> Result<(), Error> {
        let sha12 = &r.sha[..12];
        let l = self.ledger();
        if let Some(f) = &files.report {
            l.file(format!("{}/report.md", r.dir), f);
        }
        if let (true, Some(f)) = (r.run_verb, &files.dcl) {
            l.file(format!("{}/checks.json", r.dir), f);
        }
        let report_commit = l.commit(&format!("audit report {sha12} r{}", r.round))?;
        if c.interrupted {
            return Ok(());
        }
        let receipt = self.schema2_receipt(c, r, &report_commit.to_string(), &files.report_digest);
        let identity = sha256_hex(pyjson::canonical(&receipt).as_bytes());
        self.identify(&identity);
        let receipt_file = self.tampered(r.n, "receipt.json", pyjson::pretty(&receipt, true));
        let l = self.ledger();
        if let Some(f) = &receipt_file {
            l.file(format!("{}/receipt.json", r.dir), f);
        }
        if let (false, Some(f)) = (r.run_verb, &files.dcl) {
            l.file(format!("{}/checks.json", r.dir), f);
        }
        self.apply_rewrite_side_files(r.n)?;
        self.ledger().commit(&format!("audit receipt {sha12} r{} ({})", r.round, r.verdict))?;
        self.record_verdict(r.ci, &r.sha, &r.verdict, &identity, self.max_rounds(), r.round);
        Ok(())
    }

    /// §5.6: the product's receipt; `report_commit` is empty for a round never recorded.
    fn schema2_receipt(&self, c: &CycleSpec, r: &RoundFacts, report_commit: &str, report_digest: &str) -> Value {
        let ctl = &self.ctl[r.ci];
        let version = &self.s.product_version;
        let audit_repo = if self.local { "local" } else { self.s.audit_repo.as_str() };
        let scope = if r.run_verb { "changed-paths" } else { self.s.scope.as_str() };
        obj([
            ("audit", self.schema2_audit(c, r)),
            (
                "cycle",
                obj([
                    ("active_sha", jstr(&r.sha)),
                    ("cycle_id", jstr(&ctl.id)),
                    ("parent_receipt", jstr(&ctl.parent_receipt)),
                    ("root_sha", jstr(&ctl.root_sha)),
                    ("round", jint(r.round)),
                ]),
            ),
            ("inputs", self.schema2_inputs(r)),
            ("isolation", self.schema2_isolation(r)),
            (
                "ledger",
                obj([
                    ("audit_repo", jstr(audit_repo)),
                    ("cycle_path", jstr(&r.dir)),
                    ("report_commit", jstr(report_commit)),
                    ("report_sha256", jstr(report_digest)),
                ]),
            ),
            ("receipt_schema", jint(2)),
            (
                "subject",
                obj([
                    ("science_repo", jstr(&self.s.science_repo)),
                    ("scope", jstr(scope)),
                    ("sha", jstr(&r.sha)),
                    ("tree", jstr(&r.tree)),
                ]),
            ),
            (
                "verifier",
                obj([
                    ("code_digest_sha256", jstr(&sha256_hex(format!("crossaudit {version}").as_bytes()))),
                    ("install_mode", jstr("wheel")),
                    ("lock_digest_sha256", Value::Null),
                    ("project", jstr("crossaudit")),
                    ("version", jstr(version)),
                ]),
            ),
        ])
    }

    /// The receipt's `audit` block, with the sealed exchange (or why there was none).
    fn schema2_audit(&self, c: &CycleSpec, r: &RoundFacts) -> Value {
        let exchange = if r.offline || c.call_failed {
            let mut e = BTreeMap::from([("mode".to_owned(), jstr("none"))]);
            if c.call_failed {
                e.insert("error".into(), jstr(c.invalid.as_deref().unwrap_or("provider failure")));
            }
            object(e)
        } else {
            let mut e = BTreeMap::from([
                ("mode".to_owned(), jstr("sealed")),
                ("model".to_owned(), jstr(&r.model)),
                ("provider".to_owned(), jstr(&r.provider)),
                ("provider_request_id".to_owned(), jstr(&format!("{}:{}", r.provider, &r.prompt[..12]))),
                ("raw_retained".to_owned(), Value::Bool(false)),
                ("request_sha256".to_owned(), jstr(&r.prompt)),
                ("response_sha256".to_owned(), jstr(&sha256_hex(format!("{}{}", r.verdict, r.sha).as_bytes()))),
            ]);
            if self.v4 {
                e.insert("fallback".into(), Value::Bool(false));
                e.insert("reasoning_effort".into(), jstr("provider-default"));
                e.insert("vendor".into(), jstr(&self.s.auditor_vendor));
            }
            object(e)
        };
        let mut audit = BTreeMap::from([
            ("audit_integrity".to_owned(), jstr(r.integrity)),
            ("exchange".to_owned(), exchange),
            ("model".to_owned(), jstr(&r.model)),
            ("provider".to_owned(), jstr(&r.provider)),
            ("retention".to_owned(), jstr("sealed")),
            ("vendor".to_owned(), jstr(&self.s.auditor_vendor)),
            ("verdict".to_owned(), jstr(&r.verdict)),
        ]);
        if self.v4 {
            audit.insert("fallback".into(), Value::Bool(false));
            audit.insert("reasoning_effort".into(), jstr("provider-default"));
        }
        object(audit)
    }

    /// The receipt's `inputs` block.
    fn schema2_inputs(&self, r: &RoundFacts) -> Value {
        let version = &self.s.product_version;
        obj([
            (
                "checks",
                Value::Array(["schema", "units", "convergence", "provenance"].iter().map(|c| jstr(c)).collect()),
            ),
            ("constitution_commit", jstr(&r.constitution_commit)),
            ("constitution_path", jstr("AUDIT_RULES.md")),
            ("constitution_sha256", jstr(&sha256_hex(&r.constitution_bytes))),
            ("dcl_source_sha256", jstr(&sha256_hex(format!("crossaudit-dcl {version}").as_bytes()))),
            ("manifest", object(r.manifest.clone())),
            ("prompt_sha256", jstr(&r.prompt)),
            ("skills", Value::Object(Map::new())),
        ])
    }

    /// The receipt's `isolation` block: parametric isolation holds when the vendors differ.
    fn schema2_isolation(&self, r: &RoundFacts) -> Value {
        let heterogeneous = self
            .s
            .generator_vendor
            .as_deref()
            .is_some_and(|g| g.trim().to_lowercase() != self.s.auditor_vendor.trim().to_lowercase());
        obj([
            ("admission", jstr("local-controller")),
            ("contextual", Value::Bool(true)),
            ("credential", jstr("auditor-only")),
            ("execution", jstr(if self.local { "local" } else { "github-pair" })),
            ("parametric", Value::Bool(heterogeneous)),
            ("permissive", Value::Bool(!self.local)),
            ("provider", jstr(&format!("{}:{}", r.provider, r.model))),
            ("provisioner", jstr("cli")),
        ])
    }

    fn record_verdict(&mut self, ci: usize, sha: &str, verdict: &str, identity: &str, max_rounds: i64, round: i64) {
        let c = &mut self.ctl[ci];
        c.status = match verdict {
            "PASS" => "PASSED",
            "ESCALATE" | "DCL_ONLY" => "ESCALATED",
            _ if round >= max_rounds => "ESCALATED",
            _ => "BLOCKED",
        };
        c.parent_receipt = identity.to_owned();
        let status = c.status;
        let id = c.id.clone();
        self.history.push(obj([
            ("cycle", jstr(&id)),
            ("event", jstr("verdict")),
            ("receipt", jstr(&identity[..16])),
            ("round", jint(round)),
            ("sha", jstr(sha)),
            ("status", jstr(status)),
            ("verdict", jstr(verdict)),
        ]));
    }

    fn admit(&mut self, ci: usize, identity: &str, sha: &str) -> Result<(), Error> {
        let c = &mut self.ctl[ci];
        if c.status != "PASSED" {
            return Err(Error {
                path: self.out.clone(),
                message: format!("cycle {} is {}, cannot admit", c.id, c.status),
            });
        }
        c.consumed.push(identity.to_owned());
        c.status = "CONSUMED";
        let id = c.id.clone();
        self.history.push(obj([
            ("cycle", jstr(&id)),
            ("event", jstr("admit")),
            ("receipt", jstr(&identity[..16])),
            ("sha", jstr(sha)),
        ]));
        if self.s.publish_state.unwrap_or(true) {
            let state = self.state_json();
            let l = self.ledger();
            l.file("controller/state.json", &state);
            l.commit(&format!("controller: admit {id}"))?;
        }
        Ok(())
    }

    fn state_json(&self) -> String {
        let cycles: BTreeMap<String, Value> = self
            .ctl
            .iter()
            .map(|c| {
                (
                    c.id.clone(),
                    obj([
                        ("active_sha", jstr(&c.active_sha)),
                        ("consumed", Value::Array(c.consumed.iter().map(|h| jstr(h)).collect())),
                        ("parent_receipt", jstr(&c.parent_receipt)),
                        ("repo", jstr(&c.repo)),
                        ("root_sha", jstr(&c.root_sha)),
                        ("round", jint(c.round)),
                        ("status", jstr(c.status)),
                    ]),
                )
            })
            .collect();
        let mut t =
            pyjson::pretty(&obj([("cycles", object(cycles)), ("history", Value::Array(self.history.clone()))]), true);
        t.push('\n');
        t
    }

    fn dcl_output(&self, c: &CycleSpec, sha: &str) -> Value {
        let failures = c.dcl.iter().filter(|f| f.severity == "BLOCKER").count();
        let verdict = if failures > 0 { "BLOCKED" } else { "PASS" };
        let n = i64::try_from(failures).unwrap_or(i64::MAX);
        match self.family {
            Family::V1 => {
                let mut by_exp: BTreeMap<String, Vec<&DclFinding>> = BTreeMap::new();
                for f in &c.dcl {
                    by_exp.entry(format!("science/{}", f.artifact)).or_default().push(f);
                }
                if by_exp.is_empty() {
                    by_exp.insert(format!("science/experiments/{}", &sha[..7]), Vec::new());
                }
                let results = by_exp
                    .into_iter()
                    .map(|(exp, fs)| {
                        let hard = i64::try_from(fs.iter().filter(|f| f.severity == "BLOCKER").count()).unwrap_or(0);
                        obj([
                            ("experiment", jstr(&exp)),
                            (
                                "findings",
                                Value::Array(
                                    fs.iter()
                                        .map(|f| {
                                            obj([
                                                ("check", jstr(&f.check)),
                                                ("message", jstr(&f.message)),
                                                ("rule", jstr(&f.rule)),
                                                ("severity", jstr(&f.severity)),
                                            ])
                                        })
                                        .collect(),
                                ),
                            ),
                            ("hard_failures", jint(hard)),
                        ])
                    })
                    .collect();
                obj([
                    ("crossaudit_dcl_version", jint(1)),
                    ("results", Value::Array(results)),
                    ("total_hard_failures", jint(n)),
                    ("verdict", jstr(verdict)),
                ])
            }
            Family::Schema2 => {
                let findings = c
                    .dcl
                    .iter()
                    .map(|f| {
                        let mut m = BTreeMap::from([
                            ("artifact".to_owned(), jstr(&f.artifact)),
                            ("observation".to_owned(), jstr(&f.message)),
                            ("severity".to_owned(), jstr(&f.severity)),
                            ("rule".to_owned(), jstr(if self.v4 { "" } else { &f.rule })),
                        ]);
                        if self.v4 {
                            m.insert("rule".into(), jstr(&format!("DCL:{}", f.check)));
                            m.insert("check".into(), jstr(&f.check));
                            m.insert("implementation_code".into(), jstr(&f.rule));
                        }
                        object(m)
                    })
                    .collect();
                let mut m = BTreeMap::from([
                    ("crossaudit_dcl_version".to_owned(), jint(if self.v4 { 3 } else { 2 })),
                    ("findings".to_owned(), Value::Array(findings)),
                    ("notes".to_owned(), Value::Array(Vec::new())),
                    ("total_hard_failures".to_owned(), jint(n)),
                    ("verdict".to_owned(), jstr(verdict)),
                ]);
                if self.v4 {
                    m.insert(
                        "contracts".into(),
                        obj([
                            ("convergence", jstr("When results.json has convergence, it is a mapping whose converged field is true; numeric achieved must not exceed numeric threshold.")),
                            ("document-export-integrity", jstr("Every PDF/DOCX increment must be a valid, non-encrypted document with at least one page/paragraph and extractable text. Macro-enabled OOXML is refused.")),
                            ("provenance", jstr("Each quantity source exactly equals one 'path@revision' string in metadata.yml inputs; a matching source revision different from code_version is additionally recorded as advisory.")),
                            ("schema", jstr("Every audited increment contains parseable metadata.yml with code_version and an inputs list of 'path@revision' strings, plus parseable results.json with a quantities list.")),
                            ("units", jstr("Every entry in results.json quantities is a mapping with non-empty unit and source fields.")),
                        ]),
                    );
                }
                object(m)
            }
        }
    }

    fn raw_exchange(&self, c: &CycleSpec, model: &str) -> Value {
        let offline = c.reply.is_none() && c.invalid.is_none();
        let reply = match (&c.reply, &c.invalid) {
            (Some(r), None) => reply_json(r),
            _ => Value::Null,
        };
        obj([
            ("endpoint", if offline { Value::Null } else { jstr("https://api.example.invalid/v1") }),
            ("invalid_reason", c.invalid.as_deref().map_or(Value::Null, jstr)),
            ("model", jstr(model)),
            ("raw_reply", reply),
            ("started_at", jint(self.science.clock())),
            ("system_prompt_sha256", jstr(&sha256_hex(b"crossverify fixture system prompt"))),
            ("temperature", jint(0)),
        ])
    }

    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        c: &CycleSpec,
        sha: &str,
        round: i64,
        verdict: &str,
        constitution: &str,
        dcl: &Value,
        model: &str,
        provider: &str,
    ) -> String {
        let failures = c.dcl.iter().filter(|f| f.severity == "BLOCKER").count();
        let offline = c.reply.is_none() && c.invalid.is_none();
        let valid = c.reply.as_ref().filter(|_| c.invalid.is_none());
        let mut l: Vec<String> = Vec::new();
        match self.family {
            Family::V1 => {
                l.push(format!("# Audit Report — {}@{}", self.s.science_repo, &sha[..7]));
                l.push(String::new());
                l.push("| | |".into());
                l.push("|---|---|".into());
                l.push(format!("| **Increment** | `{}` commit `{sha}` |", self.s.science_repo));
                l.push(format!("| **Round** | {round} |"));
                l.push(format!("| **Constitution** | `AUDIT_RULES.md` @ `{constitution}` |"));
                l.push(format!(
                    "| **Deterministic checks** | {} — {failures} hard failure(s) |",
                    if failures > 0 { "BLOCKED" } else { "PASS" }
                ));
                l.push(format!("| **Verdict** | **{verdict}** |"));
                let auditor = if offline { "offline stub (DCL only)".to_owned() } else { model.to_owned() };
                l.push(format!("| **Auditor** | {auditor} |"));
                l.push(String::new());
                l.push("## Findings".into());
                l.push(String::new());
                let mut any = false;
                for f in &c.dcl {
                    any = true;
                    l.push(format!("### [{}] {} — deterministic check `{}`", f.severity, f.rule, f.check));
                    l.push(format!("- **Artifact:** `science/{}`", f.artifact));
                    l.push(format!("- **Observation:** {}", f.message));
                    l.push("- **Layer:** deterministic (non-overridable, I4)".into());
                    l.push(String::new());
                }
                if let Some(reason) = &c.invalid {
                    any = true;
                    l.push("### [BLOCKER] CA-META-002 — invalid Auditor reply".into());
                    l.push(format!("- **Observation:** {reason}; escalated per I3."));
                    l.push(String::new());
                }
                if let Some(r) = valid {
                    for f in &r.findings {
                        any = true;
                        l.push(format!("### [{}] {} — LLM audit", f.severity, f.rule));
                        l.push(format!("- **Artifact:** `{}`", f.artifact));
                        l.push(format!("- **Observation:** {}", f.observation));
                        l.push(format!("- **Required to clear:** {}", f.required));
                        l.push(String::new());
                    }
                }
                if !any {
                    l.push("No findings.".into());
                    l.push(String::new());
                }
                l.push("## Deterministic check output".into());
                l.push(String::new());
                l.push("```json".into());
                l.push(pyjson::pretty(dcl, true));
                l.push("```".into());
                l.push(String::new());
                if let Some(notes) = valid.and_then(|r| r.notes.clone()) {
                    l.push("## Notes for the human (asynchronous)".into());
                    l.push(String::new());
                    l.push(notes);
                }
            }
            Family::Schema2 => {
                l.push(format!("# Audit Report — {}@{}", self.s.science_repo, &sha[..12]));
                l.push(String::new());
                l.push("| | |".into());
                l.push("|---|---|".into());
                l.push(format!("| verdict | **{verdict}** |"));
                l.push(format!("| round | {round} |"));
                l.push(format!("| constitution | `{}` |", &constitution[..constitution.len().min(12)]));
                if self.v4 {
                    l.push(format!(
                        "| auditor | `{provider}:{model}` (vendor {}; effort provider-default) |",
                        self.s.auditor_vendor
                    ));
                } else {
                    l.push(format!("| auditor | `{provider}:{model}` (vendor {}) |", self.s.auditor_vendor));
                }
                l.push(format!("| deterministic layer | {failures} hard failure(s) |"));
                l.push(String::new());
                l.push("## Deterministic findings".into());
                l.push(String::new());
                if c.dcl.is_empty() {
                    l.push("None.".into());
                    l.push(String::new());
                }
                for f in &c.dcl {
                    let rule = if self.v4 { format!("DCL:{}", f.check) } else { f.rule.clone() };
                    l.push(format!("### [{}] {rule} — {}", f.severity, f.artifact));
                    if self.v4 {
                        l.push(format!(
                            "Machine check: `{}` (configured in `crossaudit.yml`; not a Constitution amendment)",
                            f.check
                        ));
                    }
                    l.push(f.message.clone());
                    l.push(String::new());
                }
                l.push("## Model findings".into());
                l.push(String::new());
                if let Some(reason) = &c.invalid {
                    l.push("### [BLOCKER] CA-META-002 — invalid Auditor reply".into());
                    l.push(format!("The model audit was rejected: {reason}. Under I3 an invalid audit escalates; it can never pass an increment."));
                } else if offline {
                    l.push("No model audit ran; this is a deterministic-tier result only.".into());
                } else if let Some(r) = valid {
                    if r.findings.is_empty() {
                        l.push("None.".into());
                        l.push(String::new());
                    }
                    for f in &r.findings {
                        l.push(format!("### [{}] {} — {}", f.severity, f.rule, f.artifact));
                        l.push(f.observation.clone());
                        l.push(String::new());
                    }
                    l.push(format!("Rules applied: {}", r.sections_applied.join(", ")));
                }
            }
        }
        let mut text = l.join("\n");
        text.push('\n');
        if self.family == Family::V1 {
            while text.ends_with("\n\n") {
                text.pop();
            }
        }
        text
    }

    fn mint_disputes(&mut self, disputes: &[DisputeSpec]) -> Result<(), Error> {
        let mut lines = String::new();
        for d in disputes {
            let dir = self
                .dirs
                .get(d.cycle.wrapping_sub(1))
                .cloned()
                .ok_or_else(|| self.err(format!("dispute names cycle {}", d.cycle)))?;
            let name = dir.rsplit('/').next().unwrap_or(&dir).to_owned();
            let key = d.finding_key.clone().unwrap_or_else(|| format!("{}@{}", d.rule, d.artifact));
            let v = obj([
                ("artifact", jstr(&d.artifact)),
                ("cycle_id", jstr(&name)),
                ("finding_key", jstr(&key)),
                ("grounds", jstr(&d.grounds)),
                ("note", jstr("")),
                ("reasoning", jstr("The auditor re-read the cited criterion.")),
                ("rule", jstr(&d.rule)),
                ("ruling", jstr(&d.ruling)),
                ("t", jint(self.science.clock())),
            ]);
            lines.push_str(&pyjson::line(&v));
            lines.push('\n');
            let path = format!("{}/disputes.jsonl", self.ledger_dir);
            let l = self.ledger();
            l.file(&path, &lines);
            l.commit(&format!("dispute {key}: {}", d.ruling.to_lowercase()))?;
        }
        Ok(())
    }

    /// Applies forge-mode tampers to a cycle file before the receipt binds it: the forger
    /// also wrote the receipt, so every digest agrees with the forged text.
    fn forged(&self, n: usize, file: &str, text: String) -> String {
        self.s
            .tamper
            .iter()
            .filter(|t| t.mode == "forge" && t.cycle == Some(n) && t.file == file)
            .fold(text, |t, tp| apply(&self.expand(tp), &t))
    }

    /// Applies rewrite-mode tampers to a cycle file as it is first written (`None`: the
    /// tamper deletes it).
    fn tampered(&self, n: usize, file: &str, text: String) -> Option<String> {
        let mut t = text;
        for tp in self.s.tamper.iter().filter(|t| t.mode == "rewrite" && t.cycle == Some(n) && t.file == file) {
            if tp.op == "delete" {
                return None;
            }
            t = apply(&self.expand(tp), &t);
        }
        Some(t)
    }

    /// Expands `{sha:N}`, `{cycle_id:N}`, `{receipt:N}` (the identity the controller
    /// recorded), `{dir:N}` and `{constitution:N}` in a tamper's strings, N being the 1-based
    /// cycle number.
    fn expand(&self, t: &Tamper) -> Tamper {
        let sub = |s: &str| -> String {
            let mut out = s.to_owned();
            for (i, m) in self.minted.iter().enumerate() {
                let n = i + 1;
                out = out
                    .replace(&format!("{{sha:{n}}}"), &m.sha)
                    .replace(&format!("{{cycle_id:{n}}}"), &m.cycle_id)
                    .replace(&format!("{{receipt:{n}}}"), &m.identity)
                    .replace(&format!("{{dir:{n}}}"), &m.dir)
                    .replace(&format!("{{constitution:{n}}}"), &m.constitution);
            }
            out
        };
        let mut t = t.clone();
        t.pointer = t.pointer.as_deref().map(sub);
        t.from = t.from.as_deref().map(sub);
        t.to = t.to.as_deref().map(sub);
        t.text = t.text.as_deref().map(sub);
        t.value = t.value.map(|v| match v {
            toml::Value::String(s) => toml::Value::String(sub(&s)),
            other => other,
        });
        t
    }

    /// Rewrite-mode tampers on files outside the cycle directory (e.g. the Constitution or a
    /// check script changed in the same commit as cycle `n`).
    fn apply_rewrite_side_files(&mut self, n: usize) -> Result<(), Error> {
        let side: Vec<Tamper> = self
            .s
            .tamper
            .iter()
            .filter(|t| t.mode == "rewrite" && t.cycle == Some(n) && !CYCLE_FILES.contains(&t.file.as_str()))
            .cloned()
            .collect();
        for t in side {
            if t.file == "AUDIT_RULES.md" {
                self.constitution_memo = None;
            }
            let current = match self.ledger().get(&t.file) {
                Some(fixture::Content::File(b)) => String::from_utf8_lossy(b).into_owned(),
                _ => String::new(),
            };
            if t.op == "delete" {
                self.ledger().remove(&t.file);
            } else {
                let new = apply(&self.expand(&t), &current);
                self.ledger().file(&t.file, new);
            }
        }
        Ok(())
    }

    fn tamper_commit(&mut self, t: &Tamper) -> Result<(), Error> {
        let path = match t.cycle.filter(|_| CYCLE_FILES.contains(&t.file.as_str())) {
            Some(n) => format!(
                "{}/{}",
                self.dirs.get(n.wrapping_sub(1)).cloned().ok_or_else(|| self.err(format!("tamper names cycle {n}")))?,
                t.file
            ),
            None => t.file.clone(),
        };
        let current = match self.ledger().get(&path) {
            Some(fixture::Content::File(b)) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        };
        if t.op == "delete" {
            self.ledger().remove(&path);
        } else {
            let new = apply(&self.expand(t), &current);
            self.ledger().file(&path, new);
        }
        self.ledger().commit(&format!("edit {path}"))?;
        Ok(())
    }
}

fn reply_json(r: &Reply) -> Value {
    let mut m = BTreeMap::from([
        ("verdict".to_owned(), jstr(&r.verdict)),
        ("sections_applied".to_owned(), Value::Array(r.sections_applied.iter().map(|s| jstr(s)).collect())),
        (
            "findings".to_owned(),
            Value::Array(
                r.findings
                    .iter()
                    .map(|f| {
                        obj([
                            ("artifact", jstr(&f.artifact)),
                            ("observation", jstr(&f.observation)),
                            ("required", jstr(&f.required)),
                            ("rule", jstr(&f.rule)),
                            ("severity", jstr(&f.severity)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ]);
    if let Some(n) = &r.notes {
        m.insert("notes_for_human".into(), jstr(n));
    }
    object(m)
}

/// Applies one tamper operation to a file's text.
fn apply(t: &Tamper, text: &str) -> String {
    match t.op.as_str() {
        "replace" => text.replacen(t.from.as_deref().unwrap_or(""), t.to.as_deref().unwrap_or(""), 1),
        "write" | "raw" => t.text.clone().unwrap_or_default(),
        "append" => format!("{text}{}", t.text.as_deref().unwrap_or("")),
        "set" | "remove-key" => {
            let Ok(mut v) = serde_json::from_str::<Value>(text) else { return text.to_owned() };
            let ptr: Vec<String> = t
                .pointer
                .as_deref()
                .unwrap_or("")
                .split('/')
                .skip(1)
                .map(|p| p.replace("~1", "/").replace("~0", "~"))
                .collect();
            set_pointer(
                &mut v,
                &ptr,
                if t.op == "set" { Some(t.value.as_ref().map_or(Value::Null, toml_to_json)) } else { None },
            );
            let trailing = text.ends_with('\n');
            let mut out = pyjson::pretty(&v, true);
            if trailing {
                out.push('\n');
            }
            out
        }
        _ => text.to_owned(),
    }
}

fn set_pointer(v: &mut Value, ptr: &[String], value: Option<Value>) {
    let Some((last, path)) = ptr.split_last() else {
        if let Some(x) = value {
            *v = x;
        }
        return;
    };
    let mut cur = v;
    for p in path {
        cur = match cur {
            Value::Object(m) => m.entry(p.clone()).or_insert_with(|| Value::Object(Map::new())),
            Value::Array(a) => match p.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return,
            },
            _ => return,
        };
    }
    match (cur, value) {
        (Value::Object(m), Some(x)) => {
            m.insert(last.clone(), x);
        }
        (Value::Object(m), None) => {
            m.remove(last);
        }
        (Value::Array(a), Some(x)) => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *slot = x;
            }
        }
        _ => {}
    }
}

/// Shape of a synthetic schema-2 ledger, for scale tests and benchmarks.
#[derive(Debug, Clone)]
pub struct Synthetic {
    /// The science repository (every commit gets one audit cycle).
    pub science: crate::fixture::synthetic::Options,
    /// Every `blocked_every`-th cycle is BLOCKED by the deterministic layer, so the next
    /// commit continues that cycle in round 2 (0: every cycle passes).
    pub blocked_every: usize,
}

/// What [`synthetic`] built.
#[derive(Debug, Clone)]
pub struct SyntheticBuilt {
    /// The science repository.
    pub science: crate::fixture::synthetic::Generated,
    /// Audit cycles minted.
    pub cycles: usize,
    /// Manifest entries bound across all receipts.
    pub bound_entries: usize,
}

/// Builds a paired schema-2 ledger (`out/science`, `out/audit`) whose every receipt binds every
/// file under the synthetic prefix (the product's `audit` verb): the case where a verifier
/// that re-hashes each receipt's files pays cycles × files, and one that hashes distinct blobs
/// pays the blobs.
///
/// # Errors
/// Bad options or a write failure.
pub fn synthetic(out: &Path, shape: &Synthetic) -> Result<SyntheticBuilt, Error> {
    let science = crate::fixture::synthetic::generate(&out.join("science"), &shape.science)?;
    let header = format!("dialect = \"schema2\"\nmode = \"paired\"\nscope = {:?}\n", shape.science.prefix);
    let scenario: Scenario =
        toml::from_str(&header).map_err(|e| Error { path: out.to_owned(), message: e.to_string() })?;
    let mut m = Minter::assemble(
        scenario,
        Family::Schema2,
        false,
        true,
        RepoBuilder::open(&out.join("science"), fixture::EPOCH)?,
        Some(RepoBuilder::init(&out.join("audit"))?),
        out,
    );
    // The science history exists already; the minter must not commit to it.
    m.science_external = true;
    let mut prev: Option<String> = None;
    for c in &science.commits {
        let label = format!("c{}", c.index);
        m.labels.insert(label.clone(), c.id);
        m.science_parent.insert(label.clone(), prev.replace(label));
    }
    m.bootstrap()?;
    let mut bound = 0;
    for c in &science.commits {
        let blocked = shape.blocked_every > 0 && c.index % shape.blocked_every == shape.blocked_every - 1;
        let artifact = c.changed.first().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default();
        let spec = CycleSpec {
            science: format!("c{}", c.index),
            dcl: if blocked {
                vec![DclFinding {
                    severity: "BLOCKER".into(),
                    rule: "CA-DATA-001".into(),
                    check: "units".into(),
                    artifact,
                    message: "a quantity has no unit".into(),
                }]
            } else {
                Vec::new()
            },
            reply: Some(Reply {
                verdict: if blocked { "BLOCKED" } else { "PASS" }.into(),
                sections_applied: vec!["CA-DATA-001".into(), "CA-REPRO-001".into()],
                findings: Vec::new(),
                notes: None,
            }),
            invalid: None,
            call_failed: false,
            bound_exceeded: 0,
            replay_provider: false,
            precedence: None,
            admit: false,
            amend: None,
            unrecorded: false,
            interrupted: false,
        };
        m.mint_cycle(c.index + 1, &spec)?;
        bound += shape.science.files;
    }
    Ok(SyntheticBuilt { cycles: science.commits.len(), science, bound_entries: bound })
}

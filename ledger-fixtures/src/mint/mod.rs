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

mod controller;
mod receipts;
mod report;
mod scenario;
mod synthetic;
mod tamper;

use scenario::*;
pub use synthetic::{Synthetic, SyntheticBuilt, synthetic};

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

/// Files of a cycle directory; a tamper naming any other file targets that path in the ledger
/// repository (changed in the same commit as its cycle, in rewrite mode).
const CYCLE_FILES: [&str; 4] = ["report.md", "checks.json", "receipt.json", "raw_exchange.json"];

const V1_CONSTITUTION: &str =
    include_str!("../../../test-vectors/real/crossaudit/examples/minimal/audit-repo/AUDIT_RULES.md");
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
}

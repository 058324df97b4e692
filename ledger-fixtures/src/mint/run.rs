//! A minter's run: the repositories bootstrapped, then each audit cycle's rounds in the
//! dialect's order (science commit, manifest, Constitution, DCL, report, receipt), the
//! disputes, the late tampers and the shallow boundary.

use std::collections::BTreeMap;

use crossverify::git::{ObjectId, Repo};
use serde_json::Value;

use super::minter::*;
use super::scenario::*;
use crate::fixture::{self, Error};
use crate::pyjson;
use crate::rules::{self, Bound, Family, Precedence, sha256_hex};

const V1_CONSTITUTION: &str =
    include_str!("../../../test-vectors/real/crossaudit/examples/minimal/audit-repo/AUDIT_RULES.md");
const V1_DCL_SOURCE: &str = "\"\"\"Deterministic check layer runner (fixture copy).\"\"\"\nimport json, sys\n\ndef main():\n    json.dump({\"crossaudit_dcl_version\": 1}, sys.stdout)\n";

impl Minter {
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

    pub(super) fn run(mut self) -> Result<(), Error> {
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

    pub(super) fn bootstrap(&mut self) -> Result<(), Error> {
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
    pub(super) fn mint_cycle(&mut self, n: usize, c: &CycleSpec) -> Result<(), Error> {
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
}

//! The receipts a round leaves: the v1 runner's, the product's (schema 2), and a round
//! whose receipt was never recorded.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::minter::*;
use super::scenario::*;
use crate::fixture::Error;
use crate::pyjson;
use crate::rules::sha256_hex;

impl Minter {
    /// v1 (§4.2): the four records, the controller state and one commit; admission if asked.
    pub(super) fn write_v1(&mut self, c: &CycleSpec, r: &RoundFacts, files: Records) -> Result<(), Error> {
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

    pub(super) fn max_rounds(&self) -> i64 {
        self.s.max_rounds.unwrap_or(3)
    }

    /// §5.4: the v1 receipt.
    pub(super) fn v1_receipt(&self, c: &CycleSpec, r: &RoundFacts, report_digest: &str) -> Value {
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
    pub(super) fn write_unrecorded(&mut self, c: &CycleSpec, r: &RoundFacts, files: Records) -> Result<(), Error> {
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
    pub(super) fn write_schema2(&mut self, c: &CycleSpec, r: &RoundFacts, files: Records) -> Result<(), Error> {
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
    pub(super) fn schema2_receipt(
        &self,
        c: &CycleSpec,
        r: &RoundFacts,
        report_commit: &str,
        report_digest: &str,
    ) -> Value {
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
    pub(super) fn schema2_audit(&self, c: &CycleSpec, r: &RoundFacts) -> Value {
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
    pub(super) fn schema2_inputs(&self, r: &RoundFacts) -> Value {
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
    pub(super) fn schema2_isolation(&self, r: &RoundFacts) -> Value {
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
}

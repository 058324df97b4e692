//! The controller's side: opening or advancing a cycle, recording verdicts and admissions,
//! its state file, and disputes.

use std::collections::BTreeMap;

use serde_json::Value;

use super::minter::*;
use super::scenario::*;
use crate::fixture::Error;
use crate::pyjson;
use crate::rules::{self, Family};

impl Minter {
    /// R2b / product `open_or_advance`. Returns (index into ctl, blocked_by_escalation).
    pub(super) fn open_or_advance(&mut self, sha: &str, parent: Option<&str>) -> (usize, bool) {
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

    pub(super) fn record_verdict(
        &mut self,
        ci: usize,
        sha: &str,
        verdict: &str,
        identity: &str,
        max_rounds: i64,
        round: i64,
    ) {
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

    pub(super) fn admit(&mut self, ci: usize, identity: &str, sha: &str) -> Result<(), Error> {
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

    pub(super) fn state_json(&self) -> String {
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

    pub(super) fn mint_disputes(&mut self, disputes: &[DisputeSpec]) -> Result<(), Error> {
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
}

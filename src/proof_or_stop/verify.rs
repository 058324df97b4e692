//! The fixed verification order of a done-evidence bundle (design note §4.6, adopted in
//! `specs/proof-or-stop.md`): the first failing step decides the one reason; `ok` is returned
//! only after the last step ran.

use std::collections::BTreeMap;

use gix::ObjectId;
use sha2::Digest;

use super::envelope::{Unverified, Verified};
use super::format::{self, DoneEvidence, is_commit, is_sha256};
use super::identity::{self, MATERIAL_ALG, STORY_FILES_ALG};
use super::live::{self, Live, LiveError, Sources};
use super::reason::{Reason, Rejection, Step};
use super::trust_store::TrustStore;
use crate::git::Repo;

/// What the bundle command was given besides the bundle.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The trusted keys.
    pub store: &'a TrustStore,
    /// The repository holding the live state.
    pub repo: &'a Repo,
    /// Its revision (H).
    pub rev: &'a str,
    /// Where the live configuration comes from.
    pub sources: &'a Sources,
    /// The story the caller expects, when it names one.
    pub story: Option<&'a str>,
}

/// The result of verifying one bundle.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `Ok` or the first failing step.
    pub result: Result<(), Rejection>,
    /// The verified predicate, once C1 passed.
    pub evidence: Option<DoneEvidence>,
    /// The live state, once it was needed.
    pub live: Option<Live>,
}

impl Outcome {
    /// The reason code.
    #[must_use]
    pub fn reason(&self) -> Reason {
        self.result.as_ref().map_or_else(Rejection::reason, |()| Reason::Ok)
    }

    /// The step that failed, if any.
    #[must_use]
    pub fn failed_step(&self) -> Option<Step> {
        self.result.as_ref().err().map(|r| r.step)
    }
}

/// Verifies `bytes` as a done-evidence bundle.
///
/// # Errors
/// [`LiveError`] when the live state the bundle must be compared with cannot be established:
/// the run cannot decide (never `ok`).
pub fn bundle(bytes: &[u8], req: &Request<'_>) -> Result<Outcome, LiveError> {
    let mut out = Outcome { result: Ok(()), evidence: None, live: None };
    let verified = match Unverified::parse(bytes).and_then(|u| u.verify(req.store)) {
        Ok(v) => v,
        Err(r) => {
            out.result = Err(r);
            return Ok(out);
        }
    };
    let ev = match payload_steps(&verified) {
        Ok(ev) => ev,
        Err(r) => {
            out.result = Err(r);
            return Ok(out);
        }
    };
    let story = ev.story_id.clone();
    if let Some(expected) = req.story
        && expected != story
    {
        out.result = Err(Rejection::new(Step::F1, format!("story {story} is not the expected {expected}")));
        out.evidence = Some(ev);
        return Ok(out);
    }
    let live = live::load(req.repo, req.rev, &story, req.sources)?;
    out.result = live_steps(&ev, &live, req.repo).and_then(|()| receipt_steps(&ev, &verified.attachments));
    out.evidence = Some(ev);
    out.live = Some(live);
    Ok(out)
}

/// Steps C1–D3, on verified bytes only.
fn payload_steps(v: &Verified) -> Result<DoneEvidence, Rejection> {
    let c1 = |m: String| Rejection::new(Step::C1, m);
    let st = format::statement(v.payload(), &[format::DONE_EVIDENCE]).map_err(c1)?;
    let ev = format::done_evidence(&st).map_err(c1)?;
    let p = &ev.producer;
    if p.key_id != v.key.key_id {
        return Err(Rejection::new(
            Step::C2,
            format!("producer.keyId {} is not the signing key {}", p.key_id, v.key.key_id),
        ));
    }
    v.key.authorises("done-evidence", &p.lane, &p.host).map_err(|m| Rejection::new(Step::C2, m))?;
    binding_complete(&ev.binding)?;
    let derived = format::doc_hash(&ev.command_set_value).map_err(|e| Rejection::new(Step::D2, e.to_string()))?;
    if ev.binding["commandSetHash"] != derived {
        return Err(Rejection::new(
            Step::D2,
            format!("binding.commandSetHash {} is not sha256(JCS(commandSet)) {derived}", ev.binding["commandSetHash"]),
        ));
    }
    let d3 = |m: String| Rejection::new(Step::D3, m);
    if Some(st.subject_material.as_str()) != ev.binding["materialHash"].strip_prefix("sha256:") {
        return Err(d3(format!("subject material {} is not binding.materialHash", st.subject_material)));
    }
    if st.subject_head != ev.binding["headHash"] {
        return Err(d3(format!("subject head {} is not binding.headHash", st.subject_head)));
    }
    Ok(ev)
}

/// Step D1: every β member present, non-empty, of its form, with known algorithm ids.
fn binding_complete(b: &BTreeMap<String, String>) -> Result<(), Rejection> {
    let d1 = |m: String| Rejection::new(Step::D1, m);
    for k in format::BINDING_MEMBERS {
        match b.get(k) {
            None => return Err(d1(format!("binding.{k} is absent"))),
            Some(v) if v.is_empty() => return Err(d1(format!("binding.{k} is empty"))),
            Some(_) => {}
        }
    }
    for k in ["materialHash", "storyFilesHash", "policyHash", "commandSetHash"] {
        if !is_sha256(&b[k]) {
            return Err(d1(format!("binding.{k} {} is not sha256: and 64 lowercase hex", b[k])));
        }
    }
    let len = match b["objectFormat"].as_str() {
        "sha1" => 40,
        "sha256" => 64,
        other => return Err(d1(format!("binding.objectFormat {other} is not sha1 or sha256"))),
    };
    if !is_commit(&b["headHash"], len) {
        return Err(d1(format!("binding.headHash {} is not a {len}-digit commit id", b["headHash"])));
    }
    if b["materialHashAlg"] != MATERIAL_ALG || b["storyFilesHashAlg"] != STORY_FILES_ALG {
        return Err(d1("binding uses an unknown algorithm id".into()));
    }
    Ok(())
}

/// Steps F1–F5 against the live state.
fn live_steps(ev: &DoneEvidence, live: &Live, repo: &Repo) -> Result<(), Rejection> {
    let b = &ev.binding;
    let stale = |s: Step, m: String| Err(Rejection::new(s, m));
    let live_base = live.scope.base.to_string();
    if ev.story_id != live.scope.story_id || ev.base_sha != live_base {
        return stale(Step::F1, format!("story {} at base {} is not the live scope's", ev.story_id, ev.base_sha));
    }
    if b["materialHash"] != live.material_hash {
        return stale(Step::F2, format!("materialHash {} is not the live {}", b["materialHash"], live.material_hash));
    }
    if b["objectFormat"] != live.object_format {
        return stale(
            Step::F3,
            format!("objectFormat {} is not the repository's {}", b["objectFormat"], live.object_format),
        );
    }
    let claimed = ObjectId::from_hex(b["headHash"].as_bytes()).map_err(|_| Rejection::new(Step::F3, "headHash"))?;
    match identity::head_is_fresh(repo, claimed, live.head, &live.policy.roots) {
        Ok(true) => {}
        Ok(false) => {
            return stale(
                Step::F3,
                format!("headHash {claimed} is neither {} nor an ancestor changed since only in metadata", live.head),
            );
        }
        Err(e) => return stale(Step::F3, format!("headHash {claimed}: {e}")),
    }
    if b["storyFilesHash"] != live.story_files_hash {
        return stale(
            Step::F4,
            format!("storyFilesHash {} is not the live {}", b["storyFilesHash"], live.story_files_hash),
        );
    }
    if ev.scope_hash != live.scope_hash {
        return stale(Step::F4, format!("scopeHash {} is not the live {}", ev.scope_hash, live.scope_hash));
    }
    if b["policyHash"] != live.policy_hash {
        return stale(Step::F5, format!("policyHash {} is not the live {}", b["policyHash"], live.policy_hash));
    }
    if b["commandSetHash"] != live.command_set_hash {
        return stale(
            Step::F5,
            format!("commandSetHash {} is not the live {}", b["commandSetHash"], live.command_set_hash),
        );
    }
    Ok(())
}

/// Steps G1–H1: the outcome is recomputed from the receipts, never taken from the decision.
fn receipt_steps(ev: &DoneEvidence, attachments: &BTreeMap<String, Vec<u8>>) -> Result<(), Rejection> {
    let spec = |id: &str| ev.commands.iter().find(|c| c.id == id);
    if ev.receipts.is_empty() {
        return Err(Rejection::new(Step::G1, "no receipts"));
    }
    for c in ev.commands.iter().filter(|c| c.required) {
        if !ev.receipts.iter().any(|r| r.command_id == c.id) {
            return Err(Rejection::new(Step::G1, format!("required command {} has no receipt", c.id)));
        }
    }
    for phase in ["build", "test"] {
        if !ev.receipts.iter().any(|r| spec(&r.command_id).is_some_and(|c| c.phase == phase)) {
            return Err(Rejection::new(Step::G1, format!("no {phase}-phase receipt")));
        }
    }
    for r in &ev.receipts {
        if !is_sha256(&r.output_digest) {
            return Err(Rejection::new(
                Step::G2,
                format!(
                    "receipt {}: outputDigest {} is not sha256: and 64 lowercase hex",
                    r.command_id, r.output_digest
                ),
            ));
        }
        if let Some(log) = attachments.get(&r.output_digest) {
            let got = format!("sha256:{}", hex::encode(sha2::Sha256::digest(log)));
            if got != r.output_digest {
                return Err(Rejection::new(
                    Step::G2,
                    format!("receipt {}: the attached log hashes to {got}", r.command_id),
                ));
            }
        }
    }
    for r in &ev.receipts {
        let g3 = |m: String| Err(Rejection::new(Step::G3, format!("receipt {}: {m}", r.command_id)));
        let Some(c) = spec(&r.command_id) else { return g3("unknown commandId".into()) };
        if r.cmd.is_empty() {
            return g3("empty command".into());
        }
        if (&r.cmd, &r.args, &r.cwd) != (&c.cmd, &c.args, &c.cwd) {
            return g3("cmd, args or cwd differ from the command spec".into());
        }
        if r.exit != 0 {
            return g3(format!("exited {}", r.exit));
        }
    }
    if ev.host_verdict != "pass" || ev.decision != "pass" {
        return Err(Rejection::new(
            Step::H1,
            format!("hostVerdict is {} and decision is {}", ev.host_verdict, ev.decision),
        ));
    }
    Ok(())
}

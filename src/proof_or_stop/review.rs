//! Review records: signed `review-verdict/v1`, `finding-event/v1` and
//! `assurance-degradation/v1` bundles, and the story's `findings.json`.

use std::collections::BTreeMap;

use super::envelope::Unverified;
use super::format::{self, Producer, binding, closed, int, is_commit, is_sha256, string, strings};
use super::reason::{Rejection, Step};
use super::trust_store::TrustStore;
use crate::json::{self, Value};

/// The binding members of a review record.
pub const REVIEW_BINDING: [&str; 5] = ["headHash", "materialHash", "objectFormat", "policyHash", "storyFilesHash"];

/// What a verified review record says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A lane's verdict on one run.
    Verdict {
        /// Lane.
        lane: String,
        /// Run id.
        run_id: String,
        /// Monotonic per lane: defines the latest run (id recency is not freshness).
        seq: i64,
        /// `pass` or `finding`.
        verdict: String,
        /// Findings named (non-empty exactly for `finding`).
        finding_ids: Vec<String>,
    },
    /// A signed event in a finding's life (`finding-event/v1`): the protocol's own record of
    /// adding, verifying, resolving, dismissing or reopening it. Only these close a finding a
    /// signed verdict raised; the `resolution` trail of the unsigned `findings.json` does not.
    FindingEvent {
        /// The finding (`F-###`).
        finding_id: String,
        /// One of [`RESOLUTION_ACTIONS`].
        action: String,
    },
    /// An explicit degraded single-host fallback: local assurance only.
    Degradation {
        /// Why (`second-host-unavailable`).
        reason: String,
    },
}

/// A verified review record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Story id.
    pub story: String,
    /// Round (≥ 1: rounds are numbered from 1, as the paper numbers them).
    pub round: i64,
    /// `story.scopeHash`: sha256(JCS(scope)) of the scope the record was judged against. Older
    /// records may lack it; freshness against the live scope then cannot be told.
    pub scope_hash: Option<String>,
    /// What it says.
    pub kind: Kind,
    /// Its binding.
    pub binding: BTreeMap<String, String>,
    /// Who signed it.
    pub producer: Producer,
}

/// Verifies one review bundle through the same staged envelope as done evidence; the
/// rejection carries the paper's reason.
///
/// # Errors
/// The first failing step.
pub fn verify(bytes: &[u8], store: &TrustStore) -> Result<Record, Rejection> {
    let v = Unverified::parse(bytes)?.verify(store)?;
    let c1 = |m: String| Rejection::new(Step::C1, m);
    let st = format::statement(v.payload(), &[format::REVIEW_VERDICT, format::DEGRADATION, format::FINDING_EVENT])
        .map_err(c1)?;
    let p = st.predicate();
    let at = "/predicate";
    let base = ["story", "binding", "producer"];
    let (kind, role) = if st.predicate_type == format::REVIEW_VERDICT {
        let m = closed(
            st.value.get("predicate").unwrap_or(&Value::Null),
            at,
            &[&base[..], &["lane", "runId", "seq", "verdict", "findingIds"]].concat(),
            &[],
        )
        .map_err(c1)?;
        let verdict = string(m, "verdict", at).map_err(c1)?.to_owned();
        let finding_ids = strings(m, "findingIds", at).map_err(c1)?;
        if !matches!(verdict.as_str(), "pass" | "finding") || (verdict == "finding") == finding_ids.is_empty() {
            return Err(c1(format!("{at}: verdict {verdict:?} with {} finding ids", finding_ids.len())));
        }
        let k = Kind::Verdict {
            lane: string(m, "lane", at).map_err(c1)?.to_owned(),
            run_id: string(m, "runId", at).map_err(c1)?.to_owned(),
            seq: int(m, "seq", at).map_err(c1)?,
            verdict,
            finding_ids,
        };
        (k, "review-verdict")
    } else if st.predicate_type == format::FINDING_EVENT {
        let m = closed(
            st.value.get("predicate").unwrap_or(&Value::Null),
            at,
            &[&base[..], &["findingId", "action"]].concat(),
            &["note"],
        )
        .map_err(c1)?;
        let action = string(m, "action", at).map_err(c1)?;
        if !RESOLUTION_ACTIONS.contains(&action) {
            return Err(c1(format!("{at}/action {action:?} is not one of {RESOLUTION_ACTIONS:?}")));
        }
        if let Some(n) = m.get("note").filter(|n| n.as_str().is_none()) {
            return Err(c1(format!("{at}/note is not a string: {n:?}")));
        }
        let k = Kind::FindingEvent {
            finding_id: string(m, "findingId", at).map_err(c1)?.to_owned(),
            action: action.to_owned(),
        };
        (k, "review-verdict")
    } else {
        let m = closed(st.value.get("predicate").unwrap_or(&Value::Null), at, &[&base[..], &["reason"]].concat(), &[])
            .map_err(c1)?;
        (Kind::Degradation { reason: string(m, "reason", at).map_err(c1)?.to_owned() }, "review-verdict")
    };
    let s = closed(&p["story"], "/predicate/story", &["id", "round"], &["scopeHash"]).map_err(c1)?;
    let round = int(s, "round", "/predicate/story").map_err(c1)?;
    if round < 1 {
        return Err(c1(format!("/predicate/story/round {round} is not a round: rounds are numbered from 1")));
    }
    let scope_hash = s.get("scopeHash").map(|_| string(s, "scopeHash", "/predicate/story").map(str::to_owned));
    let scope_hash = scope_hash.transpose().map_err(c1)?;
    let producer = format::producer(&p["producer"], "/predicate/producer").map_err(c1)?;
    let b = binding(&p["binding"], "/predicate/binding", &REVIEW_BINDING).map_err(c1)?;
    if producer.key_id != v.key.key_id {
        return Err(Rejection::new(Step::C2, format!("producer.keyId {} is not the signing key", producer.key_id)));
    }
    v.key.authorises(role, &producer.lane, &producer.host).map_err(|m| Rejection::new(Step::C2, m))?;
    let head_len = if b.get("objectFormat").is_some_and(|f| f == "sha256") { 64 } else { 40 };
    for k in REVIEW_BINDING {
        let ok = b.get(k).is_some_and(|x| match k {
            "headHash" => is_commit(x, head_len),
            "objectFormat" => x == "sha1" || x == "sha256",
            _ => is_sha256(x),
        });
        if !ok {
            return Err(Rejection::new(Step::D1, format!("binding.{k} is absent or malformed")));
        }
    }
    if let Some(h) = scope_hash.as_deref().filter(|h| !is_sha256(h)) {
        return Err(Rejection::new(Step::D1, format!("story.scopeHash {h} is not sha256: and 64 lowercase hex")));
    }
    if Some(st.subject_material.as_str()) != b["materialHash"].strip_prefix("sha256:")
        || st.subject_head != b["headHash"]
    {
        return Err(Rejection::new(Step::D3, "the subjects are not the binding"));
    }
    Ok(Record {
        story: string(s, "id", "/predicate/story").map_err(c1)?.to_owned(),
        round,
        scope_hash,
        kind,
        binding: b,
        producer,
    })
}

/// One finding of `findings.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `F-###`.
    pub id: String,
    /// Lane that filed it.
    pub lane: String,
    /// Round it was filed in.
    pub filed_round: i64,
    /// critical, high, medium or low.
    pub severity: String,
    /// open, resolved or dismissed.
    pub status: String,
    /// `verified`, `unverified`, or absent (legacy records).
    pub evidence_state: Option<String>,
    /// Category (open vocabulary).
    pub category: Option<String>,
    /// Title.
    pub title: Option<String>,
    /// `(round, action)` of each resolution event.
    pub resolution: Vec<(i64, String)>,
}

/// A story's findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    /// Story id.
    pub story: String,
    /// Lifecycle phase the story reached.
    pub phase: String,
    /// Findings in file order.
    pub findings: Vec<Finding>,
}

/// Largest `findings.json` read.
pub const MAX_FINDINGS_BYTES: usize = 16 << 20;

/// Reads `findings.json` (`proof-or-stop/findings/v1`), strictly and closed.
///
/// # Errors
/// A sentence naming the JSON Pointer.
pub fn findings(bytes: &[u8]) -> Result<Findings, String> {
    if bytes.len() > MAX_FINDINGS_BYTES {
        return Err(format!("larger than {MAX_FINDINGS_BYTES} bytes"));
    }
    let v = json::parse(bytes).map_err(|e| e.to_string())?;
    let top = closed(&v, "", &["kind", "storyId", "phase", "findings"], &[])?;
    if string(top, "kind", "")? != "proof-or-stop/findings/v1" {
        return Err("/kind is not proof-or-stop/findings/v1".into());
    }
    let phase = string(top, "phase", "")?.to_owned();
    if !["init", "init-check", "plan", "dev", "review", "test", "done"].contains(&phase.as_str()) {
        return Err(format!("/phase {phase:?} is not a lifecycle phase"));
    }
    let list = top["findings"].as_array().ok_or("/findings is not an array")?;
    let mut out = Vec::new();
    for (i, f) in list.iter().enumerate() {
        out.push(finding(f, &format!("/findings/{i}"))?);
    }
    Ok(Findings { story: string(top, "storyId", "")?.to_owned(), phase, findings: out })
}

/// The actions of a finding's resolution trail (the design note's finding events).
pub const RESOLUTION_ACTIONS: [&str; 5] = ["add", "verify", "resolve", "dismiss", "reopen"];

/// A round number: an integer from 1 (the paper numbers rounds from 1; 0 or a negative
/// number is not a round).
fn round_member(m: &BTreeMap<String, Value>, key: &str, at: &str) -> Result<i64, String> {
    let r = int(m, key, at)?;
    if r < 1 { Err(format!("{at}/{key} {r} is not a round: rounds are numbered from 1")) } else { Ok(r) }
}

fn finding(f: &Value, at: &str) -> Result<Finding, String> {
    let m = closed(
        f,
        at,
        &["id", "lane", "filedRound", "severity", "status"],
        &["evidenceState", "category", "title", "resolution"],
    )?;
    let pick = |k: &str, allowed: &[&str]| -> Result<String, String> {
        let s = string(m, k, at)?;
        if allowed.contains(&s) { Ok(s.to_owned()) } else { Err(format!("{at}/{k} {s:?} is not one of {allowed:?}")) }
    };
    let opt = |k: &str| -> Result<Option<String>, String> {
        m.get(k).map(|_| string(m, k, at).map(str::to_owned)).transpose()
    };
    let mut resolution = Vec::new();
    if let Some(r) = m.get("resolution") {
        let list = r.as_array().ok_or_else(|| format!("{at}/resolution is not an array"))?;
        for (j, e) in list.iter().enumerate() {
            let eat = format!("{at}/resolution/{j}");
            let o = closed(e, &eat, &["round", "action"], &["note"])?;
            let action = string(o, "action", &eat)?;
            if !RESOLUTION_ACTIONS.contains(&action) {
                return Err(format!("{eat}/action {action:?} is not one of {RESOLUTION_ACTIONS:?}"));
            }
            resolution.push((round_member(o, "round", &eat)?, action.to_owned()));
        }
    }
    Ok(Finding {
        id: string(m, "id", at)?.to_owned(),
        lane: string(m, "lane", at)?.to_owned(),
        filed_round: round_member(m, "filedRound", at)?,
        severity: pick("severity", &["critical", "high", "medium", "low"])?,
        status: pick("status", &["open", "resolved", "dismissed"])?,
        evidence_state: m
            .get("evidenceState")
            .map(|_| pick("evidenceState", &["verified", "unverified"]))
            .transpose()?,
        category: opt("category")?,
        title: opt("title")?,
        resolution,
    })
}

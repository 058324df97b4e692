//! Signed, replayable reports (`CV-T101`–`CV-T103`): a DSSE envelope (in-toto Statement v1,
//! predicate = the report) signed with Ed25519 by the auditor who ran crossverify, checked by a
//! second auditor with the first one's public key, and optionally re-run on the same inputs and
//! compared byte for byte.
//!
//! The payload is the statement serialised compactly with every object's members sorted:
//! RFC 8785's layout. Our RFC 8785 profile (`json::jcs`) refuses nulls and floats, and a report
//! holds both by design ("not measured" is `null`, rates are fractions), so numbers are
//! written as `serde_json` writes them (shortest round-trip form; integers as RFC 8785 does);
//! `specs/trust.md` states this. A report is deterministic, so the same run gives the same bytes.

use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use super::FAMILY;
use crate::checks::Check;
use crate::report::{CheckResult, Level, Outcome, Report};
use crate::trust::dsse::{Envelope, IN_TOTO_PAYLOAD_TYPE};
use crate::trust::ed25519::PublicKey;

/// The in-toto Statement layer version crossverify writes.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// The predicate type of a crossverify report.
pub const PREDICATE_TYPE: &str = "https://crossverify.dev/attestation/report/v1";

/// The envelope is signed by the trusted key.
pub static SIGNED_BY_TRUSTED_KEY: Check = Check {
    code: "CV-T101",
    name: "attestation-signature-invalid",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "A signed report's DSSE envelope carries an Ed25519 signature by the trusted key",
    what: "Computes the DSSE pre-authentication encoding of the envelope's payload type and payload and \
           verifies each signature whose keyid is the trusted key's id (`sha256:` + hex SHA-256 of its SPKI \
           DER) strictly with Ed25519. Passes when one verifies.",
    why: "A report is only evidence of what another auditor found if it cannot have been edited since: any \
          changed byte of the payload, or a signature by any other key, fails here.",
    example: "CV-T101 failed attestation.json: no signature verifies under the trusted key sha256:9f2c…",
    spec: "[specs/trust.md#cv-t101](../../specs/trust.md#cv-t101); DSSE",
};

/// The payload is a crossverify report statement.
pub static STATEMENT_WELL_FORMED: Check = Check {
    code: "CV-T102",
    name: "attestation-statement-malformed",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "A signed report's payload is an in-toto Statement v1 whose predicate is a crossverify report",
    what: "Checks the payload type (`application/vnd.in-toto+json`), that the payload is strict JSON with \
           `_type` `https://in-toto.io/Statement/v1`, a non-empty `subject` list of `{name, digest}`, \
           `predicateType` `https://crossverify.dev/attestation/report/v1` and a `predicate` with the \
           report's `command`, `inputs` (including the recorded `invocation`) and `outcome`; a subject `report` \
           must record the SHA-256 of the predicate's bytes and a `gitCommit` subject the report's input of that \
           name.",
    why: "A valid signature over something that is not a report attests nothing a second auditor can use; \
          without the recorded invocation the run cannot be replayed.",
    example: "CV-T102 failed attestation.json: predicateType is \"https://slsa.dev/provenance/v1\"",
    spec: "[specs/trust.md#cv-t102](../../specs/trust.md#cv-t102); DSSE",
};

/// The replay gives the same report.
pub static REPLAY_MATCHES: Check = Check {
    code: "CV-T103",
    name: "attestation-replay-mismatch",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Re-running the attested command on the same inputs gives the signed report byte for byte",
    what: "With `attest --replay`, runs the recorded invocation again (its paths resolved in the attestation's \
           own directory, else the current directory: the first holding them all) and compares the new \
           statement's bytes with the signed payload (the replayed report carries the signed report's `tool`; the \
           replaying build and directory are named beside the result). A mismatch names the first differing JSON \
           Pointer; a re-run that fails with its inputs present is `cantTell` with the reason; a recorded path found \
           in neither place stops `attest` with exit 2 naming it. Without `--replay` it is inapplicable.",
    why: "A signature says who vouches for a report, not that the report is right. Re-deriving it from the \
          same repositories lets a second auditor confirm the first auditor's result independently.",
    example: "CV-T103 failed attestation.json: the replayed report differs first at /outcome",
    spec: "[specs/trust.md#cv-t103](../../specs/trust.md#cv-t103)",
};

/// Checks of this file.
pub static CHECKS: &[&Check] = &[&SIGNED_BY_TRUSTED_KEY, &STATEMENT_WELL_FORMED, &REPLAY_MATCHES];

/// `value` with every object's members sorted by key, recursively (serde_json keeps insertion
/// order when another crate enables `preserve_order`; sorting makes the bytes independent of it).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect::<Map<_, _>>())
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The payload bytes of a statement.
#[must_use]
pub fn payload_bytes(statement: &Value) -> Vec<u8> {
    serde_json::to_vec(&sorted(statement)).expect("a statement holds only JSON values")
}

/// The in-toto Statement for `report`: subject = the git commits the report verified (inputs
/// holding a full commit id), or, when it names none, the SHA-256 of the report itself.
#[must_use]
pub fn statement(report: &Report) -> Value {
    let predicate = serde_json::to_value(report).expect("a report always serialises");
    let mut subject: Vec<Value> = report
        .inputs
        .iter()
        .filter_map(|(k, v)| {
            let s = v.as_str()?;
            let commit = matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
            commit.then(|| json!({"name": k, "digest": {"gitCommit": s.to_ascii_lowercase()}}))
        })
        .collect();
    if subject.is_empty() {
        let digest = hex::encode(Sha256::digest(payload_bytes(&predicate)));
        subject.push(json!({"name": "report", "digest": {"sha256": digest}}));
    }
    json!({"_type": STATEMENT_TYPE, "subject": subject, "predicateType": PREDICATE_TYPE, "predicate": predicate})
}

/// CV-T101 for `envelope` under `key`.
#[must_use]
pub fn signature_result(envelope: &Envelope, key: &PublicKey, subject: &str) -> CheckResult {
    match envelope.verify(key) {
        Ok(()) => CheckResult::new(
            &SIGNED_BY_TRUSTED_KEY,
            Outcome::Passed,
            subject,
            format!("signed by the trusted key {}", key.fingerprint()),
        ),
        Err(e) => CheckResult::new(&SIGNED_BY_TRUSTED_KEY, Outcome::Failed, subject, e.to_string()),
    }
    .with("keyid", key.key_id())
}

/// CV-T102 for `envelope`, and the recorded invocation when the statement is well formed.
#[must_use]
pub fn statement_result(envelope: &Envelope, subject: &str) -> (CheckResult, Option<Vec<String>>) {
    let fail = |m: String| (CheckResult::new(&STATEMENT_WELL_FORMED, Outcome::Failed, subject, m), None);
    if envelope.payload_type != IN_TOTO_PAYLOAD_TYPE {
        return fail(format!("payloadType is {:?}, not {IN_TOTO_PAYLOAD_TYPE:?}", envelope.payload_type));
    }
    let v = match crate::json::parse(&envelope.payload) {
        Ok(v) => v,
        Err(e) => return fail(format!("the payload is not strict JSON: {e}")),
    };
    let str_at = |p: &[&str]| v.pointer(p).and_then(crate::json::Value::as_str).map(str::to_owned);
    if str_at(&["_type"]).as_deref() != Some(STATEMENT_TYPE) {
        return fail(format!("_type is {:?}, not {STATEMENT_TYPE:?}", str_at(&["_type"])));
    }
    if str_at(&["predicateType"]).as_deref() != Some(PREDICATE_TYPE) {
        return fail(format!("predicateType is {:?}, not {PREDICATE_TYPE:?}", str_at(&["predicateType"])));
    }
    let subjects = v.pointer(&["subject"]).and_then(crate::json::Value::as_array);
    let subjects_ok = subjects.is_some_and(|s| {
        !s.is_empty()
            && s.iter().all(|x| x.get("name").is_some_and(|n| n.as_str().is_some()) && x.get("digest").is_some())
    });
    if !subjects_ok {
        return fail("subject is not a non-empty list of {name, digest}".into());
    }
    for member in ["command", "outcome"] {
        if str_at(&["predicate", member]).is_none() {
            return fail(format!("predicate/{member} is missing or not a string"));
        }
    }
    let invocation: Option<Vec<String>> = v
        .pointer(&["predicate", "inputs", "invocation"])
        .and_then(|a| a.as_array()?.iter().map(|x| x.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>());
    let Some(invocation) = invocation.filter(|a| !a.is_empty()) else {
        return fail("predicate/inputs/invocation (the recorded command line) is missing".into());
    };
    let outcome = str_at(&["predicate", "outcome"]).unwrap_or_default();
    let r = CheckResult::new(
        &STATEMENT_WELL_FORMED,
        Outcome::Passed,
        subject,
        format!("an in-toto statement of a `{}` report (outcome {outcome})", invocation.join(" ")),
    );
    (r, Some(invocation))
}

/// CV-T103: the replayed statement's bytes against the signed payload.
#[must_use]
pub fn replay_result(signed: &[u8], replayed: Result<Vec<u8>, String>, subject: &str) -> CheckResult {
    let replayed = match replayed {
        Ok(b) => b,
        Err(e) => {
            return CheckResult::new(
                &REPLAY_MATCHES,
                Outcome::CantTell,
                subject,
                format!("the recorded command could not be re-run on its inputs: {e}"),
            );
        }
    };
    if replayed == signed {
        return CheckResult::new(
            &REPLAY_MATCHES,
            Outcome::Passed,
            subject,
            "the replayed report is byte for byte the signed one",
        )
        .with("bytes", signed.len());
    }
    let parse = |b: &[u8]| crate::json::parse(b).ok().map(|v| crate::json::to_serde(&v));
    let pointer = match (parse(signed), parse(&replayed)) {
        (Some(a), Some(b)) => {
            first_difference(&a, &b, String::new()).unwrap_or_else(|| "(same JSON, other bytes)".into())
        }
        _ => String::new(),
    };
    CheckResult::new(
        &REPLAY_MATCHES,
        Outcome::Failed,
        subject,
        format!("the replayed report differs first at {}", if pointer.is_empty() { "/" } else { &pointer }),
    )
    .with("pointer", pointer)
}

/// The JSON Pointer of the first place `a` and `b` differ (members in sorted order), or `None`.
#[must_use]
pub fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(p, q, format!("{at}/{}", esc(k))),
                _ => Some(format!("{at}/{}", esc(k))),
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            let common =
                x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, format!("{at}/{i}")));
            common.or_else(|| (x.len() != y.len()).then(|| format!("{at}/{}", x.len().min(y.len()))))
        }
        _ => (a != b).then_some(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::ed25519::SigningKey;

    #[test]
    fn the_first_difference_is_named_by_pointer() {
        let a = json!({"a": 1, "b": [1, 2, {"c/d": true}]});
        assert_eq!(first_difference(&a, &a, String::new()), None);
        let b = json!({"a": 1, "b": [1, 2, {"c/d": false}]});
        assert_eq!(first_difference(&a, &b, String::new()).as_deref(), Some("/b/2/c~1d"));
        let c = json!({"a": 1, "b": [1, 2]});
        assert_eq!(first_difference(&a, &c, String::new()).as_deref(), Some("/b/2"));
    }

    #[test]
    fn a_signed_statement_verifies_and_a_tampered_one_does_not() {
        let key = SigningKey::from_seed([3; 32]);
        let mut report = Report::new("demo");
        report.input("invocation", vec!["demo".to_owned()]);
        report.input("auditHead", "a".repeat(40));
        report.finish();
        let payload = payload_bytes(&statement(&report));
        let env = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &payload, &key);
        assert_eq!(signature_result(&env, &key.public(), "e").outcome, Outcome::Passed);
        let (r, inv) = statement_result(&env, "e");
        assert_eq!((r.outcome, inv), (Outcome::Passed, Some(vec!["demo".to_owned()])));
        let mut bad = env.clone();
        bad.payload[10] ^= 1;
        assert_eq!(signature_result(&bad, &key.public(), "e").outcome, Outcome::Failed);
        assert_eq!(signature_result(&env, &SigningKey::from_seed([4; 32]).public(), "e").outcome, Outcome::Failed);
        assert_eq!(replay_result(&payload, Ok(payload.clone()), "e").outcome, Outcome::Passed);
        assert_eq!(replay_result(&payload, Err("gone".into()), "e").outcome, Outcome::CantTell);
    }
}

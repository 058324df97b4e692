//! The signed payloads (in-toto Statement v1 with the Proof-or-Stop predicates), read under the
//! canonical profile: RFC 8785 bytes, no `null`, no floats, no duplicate keys, closed objects.
//! Everything here runs on [`super::envelope::Verified`] payloads only.

use std::collections::{BTreeMap, BTreeSet};

use crate::json::{self, Value};

/// `_type` of every statement.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// Prefix of the predicate types (the design note's placeholder, kept so that its golden
/// vector verifies byte for byte).
pub const PREDICATE_PREFIX: &str = "https://example.invalid/proof-or-stop/";
/// Done evidence (the bundle command).
pub const DONE_EVIDENCE: &str = "https://example.invalid/proof-or-stop/done-evidence/v1";
/// A reviewer lane's verdict (the floor and the gate).
pub const REVIEW_VERDICT: &str = "https://example.invalid/proof-or-stop/review-verdict/v1";
/// An explicit degraded single-host fallback.
pub const DEGRADATION: &str = "https://example.invalid/proof-or-stop/assurance-degradation/v1";
/// `finding-event/v1`: a signed add, verify, resolve, dismiss or reopen of one finding.
pub const FINDING_EVENT: &str = "https://example.invalid/proof-or-stop/finding-event/v1";

/// The members of β with the algorithm ids (done evidence).
pub const BINDING_MEMBERS: [&str; 8] = [
    "commandSetHash",
    "headHash",
    "materialHash",
    "materialHashAlg",
    "objectFormat",
    "policyHash",
    "storyFilesHash",
    "storyFilesHashAlg",
];

/// `v` as an object with exactly the `required` members and any of `optional`.
///
/// # Errors
/// A sentence naming the JSON Pointer and the problem.
pub fn closed<'a>(
    v: &'a Value,
    at: &str,
    required: &[&str],
    optional: &[&str],
) -> Result<&'a BTreeMap<String, Value>, String> {
    let m = v.as_object().ok_or_else(|| format!("{at} is not an object (it is {})", v.type_name()))?;
    if let Some(k) = m.keys().find(|k| !required.contains(&k.as_str()) && !optional.contains(&k.as_str())) {
        return Err(format!("{at}/{k} is not a member of this closed object"));
    }
    if let Some(k) = required.iter().find(|k| !m.contains_key(**k)) {
        return Err(format!("{at}/{k} is missing"));
    }
    Ok(m)
}

/// A string member.
///
/// # Errors
/// When absent or not a string.
pub fn string<'a>(m: &'a BTreeMap<String, Value>, key: &str, at: &str) -> Result<&'a str, String> {
    m.get(key).and_then(Value::as_str).ok_or_else(|| format!("{at}/{key} is not a string"))
}

/// An array-of-strings member.
///
/// # Errors
/// When absent or not an array of strings.
pub fn strings(m: &BTreeMap<String, Value>, key: &str, at: &str) -> Result<Vec<String>, String> {
    m.get(key)
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>())
        .ok_or_else(|| format!("{at}/{key} is not an array of strings"))
}

/// An integer member.
///
/// # Errors
/// When absent or not an integer.
pub fn int(m: &BTreeMap<String, Value>, key: &str, at: &str) -> Result<i64, String> {
    m.get(key).and_then(Value::as_i64).ok_or_else(|| format!("{at}/{key} is not an integer"))
}

fn one_of<'a>(m: &'a BTreeMap<String, Value>, key: &str, at: &str, allowed: &[&str]) -> Result<&'a str, String> {
    let s = string(m, key, at)?;
    if allowed.contains(&s) { Ok(s) } else { Err(format!("{at}/{key} {s:?} is not one of {allowed:?}")) }
}

/// A statement read under the canonical profile, before its predicate is interpreted.
#[derive(Debug, Clone)]
pub struct Statement {
    /// The parsed payload.
    pub value: Value,
    /// `predicateType`.
    pub predicate_type: String,
    /// The `material` subject's sha256 hex.
    pub subject_material: String,
    /// The `head` subject's git commit.
    pub subject_head: String,
}

impl Statement {
    /// The predicate object.
    #[must_use]
    pub fn predicate(&self) -> &BTreeMap<String, Value> {
        static EMPTY: BTreeMap<String, Value> = BTreeMap::new();
        self.value.get("predicate").and_then(Value::as_object).unwrap_or(&EMPTY)
    }
}

/// Step C1's common part: strict JSON, the RFC 8785 byte check (which refuses nulls and
/// floats), the closed statement, `_type`, a known `predicateType`, and the two subjects.
///
/// # Errors
/// A sentence naming the JSON Pointer.
pub fn statement(payload: &[u8], accepted: &[&str]) -> Result<Statement, String> {
    let value = json::parse(payload).map_err(|e| format!("payload: {e}"))?;
    let canon = json::jcs::to_canonical(&value).map_err(|e| e.to_string())?;
    if canon.as_bytes() != payload {
        return Err("the payload is not in RFC 8785 canonical byte form".into());
    }
    let top = closed(&value, "", &["_type", "subject", "predicateType", "predicate"], &[])?;
    if string(top, "_type", "")? != STATEMENT_TYPE {
        return Err(format!("/_type is not {STATEMENT_TYPE}"));
    }
    let pt = string(top, "predicateType", "")?.to_owned();
    if !accepted.contains(&pt.as_str()) {
        return Err(format!("/predicateType {pt} is not one of {accepted:?}"));
    }
    let subjects = top["subject"].as_array().ok_or("/subject is not an array")?;
    let [m, h] = subjects else {
        return Err(format!("/subject has {} entries; exactly two (material, head) are required", subjects.len()));
    };
    let subject = |v: &Value, i: usize, name: &str, alg: &str| -> Result<String, String> {
        let at = format!("/subject/{i}");
        let o = closed(v, &at, &["name", "digest"], &[])?;
        if string(o, "name", &at)? != name {
            return Err(format!("{at}/name is not {name}"));
        }
        let d = closed(&o["digest"], &format!("{at}/digest"), &[alg], &[])?;
        Ok(string(d, alg, &format!("{at}/digest"))?.to_owned())
    };
    let subject_material = subject(m, 0, "material", "sha256")?;
    let subject_head = subject(h, 1, "head", "gitCommit")?;
    if top["predicate"].as_object().is_none() {
        return Err("/predicate is not an object".into());
    }
    Ok(Statement { value, predicate_type: pt, subject_material, subject_head })
}

/// One configured command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Unique id.
    pub id: String,
    /// `build`, `test` or `check`.
    pub phase: String,
    /// Program.
    pub cmd: String,
    /// Arguments.
    pub args: Vec<String>,
    /// Working directory, repository-relative POSIX.
    pub cwd: String,
    /// Whether a receipt is required.
    pub required: bool,
}

/// One execution receipt ρ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The command it ran.
    pub command_id: String,
    /// Program.
    pub cmd: String,
    /// Arguments.
    pub args: Vec<String>,
    /// Working directory.
    pub cwd: String,
    /// Exit status (may be negative).
    pub exit: i64,
    /// `sha256:` of the captured output.
    pub output_digest: String,
}

/// Who produced a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    /// Agent or person.
    pub actor: String,
    /// Lane.
    pub lane: String,
    /// Host.
    pub host: String,
    /// Session.
    pub session: String,
    /// Signing key id (signed, unlike the envelope's hint).
    pub key_id: String,
}

/// Reads a producer object.
///
/// # Errors
/// A sentence naming the JSON Pointer.
pub fn producer(v: &Value, at: &str) -> Result<Producer, String> {
    let m = closed(v, at, &["actor", "lane", "host", "session", "keyId"], &[])?;
    Ok(Producer {
        actor: string(m, "actor", at)?.to_owned(),
        lane: string(m, "lane", at)?.to_owned(),
        host: string(m, "host", at)?.to_owned(),
        session: string(m, "session", at)?.to_owned(),
        key_id: string(m, "keyId", at)?.to_owned(),
    })
}

/// A binding object: known members only, each a string when present (presence and form are
/// step D1's, so that an incomplete binding is `binding_incomplete`, not malformed).
///
/// # Errors
/// An unknown member or a non-string value.
pub fn binding(v: &Value, at: &str, members: &[&str]) -> Result<BTreeMap<String, String>, String> {
    let m = closed(v, at, &[], members)?;
    m.iter()
        .map(|(k, x)| x.as_str().map(|s| (k.clone(), s.to_owned())).ok_or_else(|| format!("{at}/{k} is not a string")))
        .collect()
}

/// The command set (embedded in done evidence and read from the live configuration).
///
/// # Errors
/// A sentence naming the JSON Pointer.
pub fn command_set(v: &Value, at: &str) -> Result<Vec<Command>, String> {
    let m = closed(v, at, &["kind", "commands"], &[])?;
    if string(m, "kind", at)? != "proof-or-stop/command-set/v1" {
        return Err(format!("{at}/kind is not proof-or-stop/command-set/v1"));
    }
    let list = m["commands"].as_array().ok_or_else(|| format!("{at}/commands is not an array"))?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let at = format!("{at}/commands/{i}");
        let o = closed(c, &at, &["id", "phase", "cmd", "args", "cwd", "required"], &[])?;
        let cwd = string(o, "cwd", &at)?.to_owned();
        if cwd.starts_with('/') || cwd.split('/').any(|p| p == "..") {
            return Err(format!("{at}/cwd {cwd:?} is not a repository-relative path"));
        }
        let cmd = Command {
            id: string(o, "id", &at)?.to_owned(),
            phase: one_of(o, "phase", &at, &["build", "test", "check"])?.to_owned(),
            cmd: string(o, "cmd", &at)?.to_owned(),
            args: strings(o, "args", &at)?,
            cwd,
            required: o["required"].as_bool().ok_or_else(|| format!("{at}/required is not a boolean"))?,
        };
        if !seen.insert(cmd.id.clone()) {
            return Err(format!("{at}/id {} is not unique", cmd.id));
        }
        out.push(cmd);
    }
    Ok(out)
}

/// The done-evidence predicate (design note §4.5).
#[derive(Debug, Clone)]
pub struct DoneEvidence {
    /// Story id.
    pub story_id: String,
    /// Story base commit.
    pub base_sha: String,
    /// Review round (≥ 1).
    pub round: i64,
    /// `scopeHash`.
    pub scope_hash: String,
    /// β with the algorithm ids, as present.
    pub binding: BTreeMap<String, String>,
    /// The embedded command set, as parsed JSON (D2 re-derives its hash).
    pub command_set_value: Value,
    /// The embedded command set.
    pub commands: Vec<Command>,
    /// Receipts.
    pub receipts: Vec<Receipt>,
    /// Producer.
    pub producer: Producer,
    /// `hostVerdict`.
    pub host_verdict: String,
    /// `decision` (a claim the verifier recomputes).
    pub decision: String,
    /// `issuedAt` (informational).
    pub issued_at: String,
}

/// Whether `s` is an RFC 3339 instant in UTC written with `Z` (`date-time` of §5.6 with the
/// `Z` offset), and a real one: month 01–12, a day that month has (leap years by the Gregorian
/// rule), hour 00–23, minute 00–59, second 00–59 or the leap second 23:59:60 (§5.7).
#[must_use]
pub fn rfc3339_z(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let d = b.get(r)?;
        d.iter().all(u8::is_ascii_digit).then(|| d.iter().fold(0, |n, c| n * 10 + u32::from(c - b'0')))
    };
    let shape = b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b.last() == Some(&b'Z')
        && (b.len() == 20 || (b[19] == b'.' && b.len() > 21 && b[20..b.len() - 1].iter().all(u8::is_ascii_digit)));
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(sec)) =
        (num(0..4), num(5..7), num(8..10), num(11..13), num(14..16), num(17..19))
    else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    shape && (1..=days).contains(&d) && h <= 23 && mi <= 59 && (sec <= 59 || (sec == 60 && h == 23 && mi == 59))
}

/// Step C1 for done evidence.
///
/// # Errors
/// A sentence naming the JSON Pointer.
pub fn done_evidence(st: &Statement) -> Result<DoneEvidence, String> {
    let at = "/predicate";
    let p = closed(
        st.value.get("predicate").unwrap_or(&Value::Null),
        at,
        &["story", "binding", "commandSet", "receipts", "producer", "hostVerdict", "decision", "assurance", "issuedAt"],
        &[],
    )?;
    let s = closed(&p["story"], "/predicate/story", &["id", "baseSha", "round", "scopeHash"], &[])?;
    let round = int(s, "round", "/predicate/story")?;
    if round < 1 {
        return Err(format!("/predicate/story/round {round} is not ≥ 1"));
    }
    let mut receipts = Vec::new();
    let mut seen = BTreeSet::new();
    let list = p["receipts"].as_array().ok_or("/predicate/receipts is not an array")?;
    for (i, r) in list.iter().enumerate() {
        let at = format!("/predicate/receipts/{i}");
        let o = closed(r, &at, &["commandId", "cmd", "args", "cwd", "exit", "outputDigest"], &[])?;
        let rc = Receipt {
            command_id: string(o, "commandId", &at)?.to_owned(),
            cmd: string(o, "cmd", &at)?.to_owned(),
            args: strings(o, "args", &at)?,
            cwd: string(o, "cwd", &at)?.to_owned(),
            exit: int(o, "exit", &at)?,
            output_digest: string(o, "outputDigest", &at)?.to_owned(),
        };
        if !seen.insert(rc.command_id.clone()) {
            return Err(format!("{at}/commandId {} is not unique", rc.command_id));
        }
        receipts.push(rc);
    }
    if one_of(p, "assurance", at, &["local-key-single-host"]).is_err() {
        return Err(format!("{at}/assurance is not local-key-single-host"));
    }
    let issued_at = string(p, "issuedAt", at)?.to_owned();
    if !rfc3339_z(&issued_at) {
        return Err(format!("{at}/issuedAt {issued_at:?} is not RFC 3339 UTC with Z"));
    }
    Ok(DoneEvidence {
        story_id: string(s, "id", "/predicate/story")?.to_owned(),
        base_sha: string(s, "baseSha", "/predicate/story")?.to_owned(),
        round,
        scope_hash: string(s, "scopeHash", "/predicate/story")?.to_owned(),
        binding: binding(&p["binding"], "/predicate/binding", &BINDING_MEMBERS)?,
        command_set_value: p["commandSet"].clone(),
        commands: command_set(&p["commandSet"], "/predicate/commandSet")?,
        receipts,
        producer: producer(&p["producer"], "/predicate/producer")?,
        host_verdict: one_of(p, "hostVerdict", at, &["pass", "fail"])?.to_owned(),
        decision: one_of(p, "decision", at, &["pass", "fail"])?.to_owned(),
        issued_at,
    })
}

/// Whether `s` is `sha256:` and 64 lowercase hex digits.
#[must_use]
pub fn is_sha256(s: &str) -> bool {
    s.strip_prefix("sha256:")
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// Whether `s` is a lowercase hex commit id of `len` digits.
#[must_use]
pub fn is_commit(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `sha256:` + hex SHA-256 of the RFC 8785 form of `v`.
///
/// # Errors
/// When `v` holds a null or a float.
pub fn doc_hash(v: &Value) -> Result<String, json::jcs::JcsError> {
    use sha2::Digest;
    let c = json::jcs::to_canonical(v)?;
    Ok(format!("sha256:{}", hex::encode(sha2::Sha256::digest(c.as_bytes()))))
}

#[cfg(test)]
mod tests {
    use super::rfc3339_z;

    #[test]
    fn timestamps_must_name_an_instant() {
        for ok in [
            "2026-01-02T00:05:00Z",
            "2024-02-29T12:00:00Z",
            "2000-02-29T00:00:00Z",
            "2026-12-31T23:59:60Z",
            "2026-06-30T23:59:59.123456789Z",
        ] {
            assert!(rfc3339_z(ok), "{ok}");
        }
        for bad in [
            "2026-13-02T00:00:00Z",
            "2026-00-02T00:00:00Z",
            "2026-01-45T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2026-01-02T99:00:00Z",
            "2026-01-02T24:00:00Z",
            "2026-01-02T00:60:00Z",
            "2026-01-02T00:00:61Z",
            "2026-01-02T12:00:60Z",
            "2026-01-02T00:00:00.Z",
            "2026-01-02T00:00:00+00:00",
            "2026-01-02t00:00:00Z",
            "2026-1-02T00:00:00Z",
            "",
        ] {
            assert!(!rfc3339_z(bad), "{bad}");
        }
    }
}

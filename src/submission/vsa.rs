//! The signed verification summary of a submission: an in-toto Statement v1 whose predicate is
//! a SLSA Verification Summary Attestation v1 (`https://slsa.dev/verification_summary/v1`),
//! its subject the certificate's SHA-256 (then each archive, bundle and repository received),
//! in a DSSE envelope signed with the auditor's Ed25519 key. `crossverify attest` checks it
//! (`CV-T101`, `CV-N101`) and with `--replay` runs the recorded invocation again and derives
//! the statement anew (`CV-T103`): the verification time is an input (`--verified-at`), so the
//! bytes are the same.

use std::path::Path;

use serde_json::{Value, json};

use super::certificate;
use super::checks::{SUMMARY_SUBJECT_MATCHES, SUMMARY_WELL_FORMED};
use crate::anchors::reports;
use crate::attest::subjects::{Beside, MAX_NAME_BYTES, Unread};
use crate::attest::{Error, ReplayError, Replayed, Replayer};
use crate::report::{CheckResult, Outcome, Report, Table, Tool, Verdict, View};
use crate::trust::dsse::{Envelope, IN_TOTO_PAYLOAD_TYPE};
use crate::trust::ed25519::SigningKey;

/// The predicate type.
pub const PREDICATE_TYPE: &str = "https://slsa.dev/verification_summary/v1";
/// The verifier's id.
pub const VERIFIER_ID: &str = "https://crossverify.dev/verifier/crossverify";
pub use super::policy::POLICY_URI;
/// The level a verified submission reaches.
pub const LEVEL: &str = "CROSSVERIFY_SUBMISSION_VERIFIED";
/// The certificate's name in the subject when no `--certificate` file names it.
pub const CERTIFICATE: &str = "certificate.html";

/// The statement for `report` (a submission's, as printed: described, with its tool), its
/// first subject the certificate under `certificate` (the file name `--certificate` wrote, so
/// that `attest` finds it beside the summary under that name).
#[must_use]
pub fn statement(report: &Report, certificate: &str) -> Value {
    let mut subject = vec![json!({"name": certificate, "digest": {"sha256": certificate::digest(report)}})];
    let received = report.sections.get("received");
    for item in received.and_then(|r| r.get("items")).and_then(Value::as_array).into_iter().flatten() {
        if let (Some(name), Some(sha)) =
            (item.get("name").and_then(Value::as_str), item.get("sha256").and_then(Value::as_str))
        {
            subject.push(json!({"name": name, "digest": {"sha256": sha}}));
        }
    }
    for repo in received.and_then(|r| r.get("repositories")).and_then(Value::as_array).into_iter().flatten() {
        if let (Some(name), Some(head)) =
            (repo.get("repository").and_then(Value::as_str), repo.get("head").and_then(Value::as_str))
        {
            subject.push(json!({"name": name, "digest": {"gitCommit": head}}));
        }
    }
    let passed = report.outcome == Verdict::Verified;
    let inputs: Vec<String> = report
        .inputs
        .get("submission")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let resource = match inputs.as_slice() {
        [one] => one.clone(),
        many => format!("urn:crossverify:submission:{}", many.join(",")),
    };
    let (suite, _) = super::policy::suite();
    let mut predicate = json!({
        "verifier": {"id": VERIFIER_ID, "version": {report.tool.name.clone(): report.tool.version.clone()}},
        "timeVerified": report.inputs.get("verifiedAt").cloned().unwrap_or(Value::Null),
        "resourceUri": resource,
        "policy": {"uri": POLICY_URI, "digest": {"sha256": suite}},
        "verificationResult": if passed { "PASSED" } else { "FAILED" },
        "verifiedLevels": if passed { vec![LEVEL] } else { Vec::new() },
        "slsaVersion": "1.0",
        "crossverify": {
            "outcome": report.outcome.as_str(),
            "exitCode": report.exit_code(),
            "tool": report.tool,
            "invocation": report.inputs.get("invocation").cloned().unwrap_or(Value::Null),
        },
    });
    if let Some(store) = report.inputs.get("trustStore") {
        predicate["inputAttestations"] = json!([{"uri": store, "digest": {}}]);
    }
    json!({"_type": reports::STATEMENT_TYPE, "subject": subject, "predicateType": PREDICATE_TYPE, "predicate": predicate})
}

/// Signs the statement of `report` (its certificate named `certificate`) with the OpenSSH
/// Ed25519 key at `key_path` and writes the envelope to `out`.
///
/// # Errors
/// The key cannot be read, or `out` cannot be written.
pub fn write(report: &Report, key_path: &Path, out: &Path, certificate: &str) -> Result<(), Error> {
    let text = crate::files::read_capped(key_path, 1 << 20)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| Error::Usage(format!("--sign-report {}: cannot be read as text", key_path.display())))?;
    let key = SigningKey::from_openssh_private(&text)
        .map_err(|e| Error::Usage(format!("--sign-report {}: {e}", key_path.display())))?;
    let envelope = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &reports::payload_bytes(&statement(report, certificate)), &key);
    std::fs::write(out, envelope.to_json()).map_err(|e| Error::Usage(format!("--vsa {}: {e}", out.display())))
}

/// Whether the envelope at `path` signs a verification summary (so `attest` checks it here).
#[must_use]
pub fn is_summary(path: &Path) -> bool {
    let Ok(bytes) = crate::files::read_capped(path, crate::attest::MAX_FILE_BYTES as usize) else { return false };
    let Ok(env) = Envelope::parse(&bytes) else { return false };
    let Ok(v) = crate::json::parse(&env.payload) else { return false };
    crate::json::to_serde(&v).get("predicateType").and_then(Value::as_str) == Some(PREDICATE_TYPE)
}

/// What a well-formed summary records for its replay: the invocation and the signing tool.
pub type Recorded = (Vec<String>, Option<Tool>);

/// CV-N101 for a payload; with what it records when it is well formed.
#[must_use]
pub fn well_formed(envelope: &Envelope, subject: &str) -> (CheckResult, Option<Recorded>) {
    match shape(envelope) {
        Ok(found) => (
            CheckResult::new(
                &SUMMARY_WELL_FORMED,
                Outcome::Passed,
                subject,
                "a SLSA VSA v1 statement naming the certificate",
            ),
            Some(found),
        ),
        Err(why) => (CheckResult::new(&SUMMARY_WELL_FORMED, Outcome::Failed, subject, why), None),
    }
}

fn shape(envelope: &Envelope) -> Result<Recorded, String> {
    if envelope.payload_type != IN_TOTO_PAYLOAD_TYPE {
        return Err(format!("payloadType is {:?}, not {IN_TOTO_PAYLOAD_TYPE:?}", envelope.payload_type));
    }
    let v = crate::json::parse(&envelope.payload).map_err(|e| format!("the payload is not strict JSON: {e}"))?;
    let v = crate::json::to_serde(&v);
    let s = |p: &str| v.pointer(p).and_then(Value::as_str);
    if s("/_type") != Some(reports::STATEMENT_TYPE) {
        return Err(format!("_type is {:?}, not {:?}", s("/_type"), reports::STATEMENT_TYPE));
    }
    if s("/predicateType") != Some(PREDICATE_TYPE) {
        return Err(format!("predicateType is {:?}, not {PREDICATE_TYPE:?}", s("/predicateType")));
    }
    // The certificate is named as --certificate wrote it: one file name, found beside the
    // summary (CV-N102 confines the lookup; a path here could only point elsewhere).
    let plain_name = |n: &str| !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\\', '\0']);
    let cert_ok = s("/subject/0/name").is_some_and(plain_name) && s("/subject/0/digest/sha256").is_some_and(is_sha256);
    if !cert_ok {
        return Err("the first subject is not the certificate (a file name) with its SHA-256".to_owned());
    }
    subjects_shape(v.get("subject"))?;
    for member in
        ["/predicate/verifier/id", "/predicate/timeVerified", "/predicate/resourceUri", "/predicate/policy/uri"]
    {
        if s(member).is_none_or(str::is_empty) {
            return Err(format!("{member} is missing or not a string"));
        }
    }
    let result = s("/predicate/verificationResult");
    if !matches!(result, Some("PASSED" | "FAILED")) {
        return Err(format!("verificationResult is {result:?}, not PASSED or FAILED"));
    }
    if !v.pointer("/predicate/verifiedLevels").is_some_and(Value::is_array) {
        return Err("verifiedLevels is missing or not a list".into());
    }
    let invocation: Vec<String> = v
        .pointer("/predicate/crossverify/invocation")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .filter(|a: &Vec<String>| !a.is_empty())
        .ok_or("the predicate records no invocation (predicate.crossverify.invocation)")?;
    let tool = v.pointer("/predicate/crossverify/tool").and_then(|t| serde_json::from_value(t.clone()).ok());
    Ok((invocation, tool))
}

fn is_sha256(d: &str) -> bool {
    d.len() == 64 && d.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Every subject is `{name, digest}` with string digests, a `sha256` one of 64 lowercase hex
/// digits and a `gitCommit` one of 40 or 64, and no name is given two values of one algorithm
/// (the summary would vouch for two files under one name). One name may carry several
/// algorithms: a bundle received is a file (`sha256`) and a repository (`gitCommit`).
fn subjects_shape(subject: Option<&Value>) -> Result<(), String> {
    let mut seen: std::collections::BTreeMap<(&str, &str), &str> = std::collections::BTreeMap::new();
    for (i, entry) in subject.and_then(Value::as_array).into_iter().flatten().enumerate() {
        let name = entry.get("name").and_then(Value::as_str).ok_or(format!("subject {i} has no name"))?;
        let digest = entry
            .get("digest")
            .and_then(Value::as_object)
            .filter(|d| !d.is_empty())
            .ok_or(format!("subject {i} ({name:?}) has no digest"))?;
        for (alg, value) in digest {
            let value = value.as_str().ok_or(format!("subject {i} ({name:?}): digest {alg} is not a string"))?;
            let ok = match alg.as_str() {
                "sha256" => is_sha256(value),
                "gitCommit" => {
                    matches!(value.len(), 40 | 64)
                        && value.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                }
                _ => true,
            };
            if !ok {
                return Err(format!("subject {i} ({name:?}): {alg} {value:?} is not a digest of that kind"));
            }
            if let Some(before) = seen.insert((name, alg.as_str()), value)
                && before != value
            {
                return Err(format!("the subject {name:?} is named twice with different {alg} digests"));
            }
        }
    }
    Ok(())
}

/// The archive holding `name`: a file subject that is a `/`-prefix of it (names past the
/// longest path are refused anyway, so a name costs at most that many lookups, and only a
/// prefix as long as some file subject is looked up).
fn container<'n>(
    name: &'n str,
    files: &std::collections::HashSet<&str>,
    lengths: &std::collections::HashSet<usize>,
) -> Option<&'n str> {
    if name.len() > MAX_NAME_BYTES {
        return None;
    }
    name.match_indices('/').map(|(i, _)| &name[..i]).find(|p| lengths.contains(&p.len()) && files.contains(p))
}

/// The subjects of `statement`, one entry per name with its digests merged (the shape allows
/// one value per algorithm), in the statement's order; indexed, so many subjects cost linear
/// time.
fn merged(statement: &Value) -> Vec<(&str, serde_json::Map<String, Value>)> {
    let mut entries: Vec<(&str, serde_json::Map<String, Value>)> = Vec::new();
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for e in statement.get("subject").and_then(Value::as_array).into_iter().flatten() {
        let (Some(name), Some(digest)) =
            (e.get("name").and_then(Value::as_str), e.get("digest").and_then(Value::as_object))
        else {
            continue;
        };
        match index.get(name) {
            Some(&i) => entries[i].1.extend(digest.clone()),
            None => {
                index.insert(name, entries.len());
                entries.push((name, digest.clone()));
            }
        }
    }
    entries
}

/// One subject's outcome, message and computed SHA-256.
fn judge(
    name: &str,
    digest: &serde_json::Map<String, Value>,
    archive: Option<&str>,
    beside: &mut Beside<'_>,
    shown_dir: &str,
    certificate: bool,
) -> (Outcome, String, Option<String>) {
    let shown = name.escape_debug();
    match (digest.get("sha256").and_then(Value::as_str), archive) {
        (Some(_), Some(archive)) => (
            Outcome::Inapplicable,
            format!(
                "a member of {}, whose SHA-256 stands for its bytes (`--replay` unpacks it again)",
                archive.escape_debug()
            ),
            None,
        ),
        (Some(want), None) => match beside.sha256(name) {
            Ok(got) if got == want => (Outcome::Passed, format!("SHA-256 {got}, as recorded"), Some(got)),
            Ok(got) => (
                Outcome::Failed,
                format!("SHA-256 {got} here, {want} recorded: not the file the summary vouches for"),
                Some(got),
            ),
            Err(Unread::Absent) => {
                // The first subject is the certificate, under the name --certificate wrote:
                // say so, or a certificate kept elsewhere looks lost.
                let hint = if certificate {
                    " (the certificate written with --certificate, under this name, beside the summary)"
                } else {
                    ""
                };
                (
                    Outcome::CantTell,
                    format!("not checked: no file {shown} in the attestation's directory {shown_dir}{hint}"),
                    None,
                )
            }
            Err(why) => (Outcome::CantTell, format!("not checked: {shown}: {why}"), None),
        },
        (None, _) if digest.contains_key("gitCommit") => (
            Outcome::Inapplicable,
            "a repository's commit (gitCommit), not a file: `attest --replay` reads the repository again".into(),
            None,
        ),
        (None, _) => (
            Outcome::Untested,
            format!(
                "recorded only as {}: crossverify compares SHA-256",
                digest.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
            ),
            None,
        ),
    }
}

/// CV-N102 for each subject of a well-formed `statement`, its files read in `dir` (the
/// envelope's own directory), with the `subjects` table that shows both digests.
fn subject_results(statement: &Value, dir: &Path) -> (Vec<CheckResult>, Table) {
    let entries = merged(statement);
    let files: std::collections::HashSet<&str> =
        entries.iter().filter(|(_, d)| d.contains_key("sha256")).map(|(n, _)| *n).collect();
    let lengths: std::collections::HashSet<usize> = files.iter().map(|f| f.len()).collect();
    let mut beside = Beside::new(dir);
    let shown_dir = dir.display().to_string();
    let mut results = Vec::new();
    let mut rows = Vec::new();
    for (i, (name, digest)) in entries.iter().enumerate() {
        let shown = name.escape_debug().to_string();
        let archive = container(name, &files, &lengths);
        let (outcome, message, computed) = judge(name, digest, archive, &mut beside, &shown_dir, i == 0);
        let recorded = digest.get("sha256").and_then(Value::as_str);
        let mut r = CheckResult::new(&SUMMARY_SUBJECT_MATCHES, outcome, &shown, message);
        if let Some(want) = recorded {
            r = r.with("recorded", want);
        }
        if let Some(got) = &computed {
            r = r.with("computed", got.as_str());
        }
        rows.push(vec![
            Value::from(shown),
            recorded.map_or(Value::Null, Value::from),
            computed.map_or(Value::Null, Value::from),
            Value::from(outcome.as_str()),
        ]);
        results.push(r.with("lookedIn", shown_dir.as_str()));
    }
    let table = Table {
        id: "subjects".into(),
        title: "What the summary names, beside it".into(),
        columns: vec!["subject".into(), "recorded SHA-256".into(), "computed SHA-256".into(), "outcome".into()],
        rows,
        note: Some(format!(
            "files read in {shown_dir}, the attestation's own directory; a digest not computed is not measured (the result says why)"
        )),
        csv: false,
    };
    (results, table)
}

/// `crossverify attest ENVELOPE --trusted-key KEY [--replay]` for a verification summary.
///
/// # Errors
/// The envelope or the key cannot be read, or the envelope is not a DSSE envelope (exit 2).
pub fn attest(envelope_path: &Path, key_path: &Path, replay: Option<Replayer<'_>>) -> Result<Report, Error> {
    let key = crate::attest::trusted_key(key_path)?;
    let subject = envelope_path.display().to_string();
    let bytes = crate::files::read_capped(envelope_path, crate::attest::MAX_FILE_BYTES as usize)
        .map_err(|e| Error::Usage(format!("{subject}: {e}")))?;
    let envelope = Envelope::parse(&bytes).map_err(|e| Error::Usage(format!("{subject}: not a DSSE envelope: {e}")))?;
    let mut report = Report::new("attest");
    report.input("envelope", subject.clone());
    report.input("trustedKey", key.fingerprint());
    report.input("trustedKeyId", key.key_id());
    report.input("replay", replay.is_some());
    let signed = reports::signature_result(&envelope, &key, &subject);
    let trusted = signed.outcome == Outcome::Passed;
    let (shape, found) = well_formed(&envelope, &subject);
    let well = found.is_some();
    report.results.push(signed);
    report.results.push(shape);
    let not_replayed = |why: &str| CheckResult::new(&reports::REPLAY_MATCHES, Outcome::Inapplicable, &subject, why);
    if let Some((inv, _)) = &found {
        report.input("invocation", inv.clone());
    }
    let replayed = match (replay, found, trusted) {
        (None, _, _) => not_replayed("not replayed (no --replay)"),
        (Some(_), _, false) => not_replayed("not replayed: the signature does not verify under the trusted key"),
        (Some(_), None, true) => not_replayed("not replayed: the statement is not a well-formed verification summary"),
        (Some(run), Some((inv, tool)), true) => {
            let name = certificate_name(&envelope.payload);
            crate::attest::replay_check(&envelope.payload, replay_once(run, &inv, tool, &name), &subject)?
        }
    };
    report.results.push(replayed);
    let statement = crate::json::parse(&envelope.payload).ok().map(|v| crate::json::to_serde(&v));
    let not_checked = |why: &str| CheckResult::new(&SUMMARY_SUBJECT_MATCHES, Outcome::Inapplicable, &subject, why);
    match (&statement, well, trusted) {
        (_, _, false) => report.results.push(not_checked("subjects not checked: the signature does not verify")),
        (Some(st), true, true) => {
            let dir = envelope_path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let (results, table) = subject_results(st, dir);
            report.results.extend(results);
            report.views.push(View::Table(table));
        }
        _ => report.results.push(not_checked("subjects not checked: the statement is not a well-formed summary")),
    }
    if let Some(st) = &statement {
        report.section("attested", json!({"predicateType": st.get("predicateType"), "subject": st.get("subject"),
            "verificationResult": st.pointer("/predicate/verificationResult"), "timeVerified": st.pointer("/predicate/timeVerified")}));
    }
    report.finish();
    Ok(report)
}

/// Runs the recorded invocation again and derives the statement from its report.
fn replay_once(
    run: Replayer<'_>,
    recorded: &[String],
    tool: Option<Tool>,
    certificate: &str,
) -> Result<(Vec<u8>, Replayed), ReplayError> {
    let refuse = |why: &str| ReplayError::Failed(why.to_owned());
    let inv = crate::attest::invocation(recorded.iter().map(String::as_str))
        .map_err(|e| ReplayError::Failed(e.to_string()))?;
    if inv != recorded
        || inv
            .iter()
            .any(|a| a == "--vsa" || a == "--certificate" || a.starts_with("--vsa=") || a.starts_with("--certificate="))
    {
        return Err(refuse("the recorded invocation holds output options a replay does not run"));
    }
    if inv.first().is_none_or(|c| c != "verify") {
        return Err(refuse("a verification summary's invocation is a `verify` command"));
    }
    let mut ran = run(&inv)?;
    if let Some(t) = tool {
        ran.report.tool = t;
    }
    crate::attest::record(&mut ran.report, &inv);
    Ok((reports::payload_bytes(&statement(&ran.report, certificate)), ran))
}

/// The name the signed statement gives its certificate (its first subject): an output option,
/// so not in the recorded invocation, and part of the bytes a replay must derive.
fn certificate_name(payload: &[u8]) -> String {
    crate::json::parse(payload)
        .ok()
        .map(|v| crate::json::to_serde(&v))
        .and_then(|v| v.pointer("/subject/0/name").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| CERTIFICATE.to_owned())
}

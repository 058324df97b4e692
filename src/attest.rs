//! Signed, replayable reports: `--sign-report KEYFILE --attestation PATH` writes a DSSE
//! envelope (an in-toto Statement whose predicate is the report) signed with the auditor's
//! OpenSSH Ed25519 key; `crossverify attest ENVELOPE --trusted-key PUBKEY [--replay]` checks it
//! (`CV-T101`–`CV-T103`, in `anchors::reports`) and, with `--replay`, has the command layer
//! run the recorded invocation again and compares the statements byte for byte.
//!
//! The recorded invocation is the command line after `crossverify` without the options that
//! only say where output goes (`--format`, `--output`, `--threads`, `--quiet`, `--summary`, and the signing
//! options themselves): those cannot change a report, and a replay must never write files.

pub mod subjects;

use std::path::Path;

use crate::anchors::reports;
use crate::report::{CheckResult, Outcome, Report, Tool};
use crate::trust::dsse::{Envelope, IN_TOTO_PAYLOAD_TYPE};
use crate::trust::ed25519::{PublicKey, SigningKey};

/// Largest envelope or key file read.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Global options that take a value and do not change a report.
const OUTPUT_OPTIONS: &[&str] = &["--format", "--output", "--threads", "--sign-report", "--attestation"];
/// Global flags that do not change a report.
const OUTPUT_FLAGS: &[&str] = &["--quiet", "-q", "--summary"];

/// Could not sign or check (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file named on the command line cannot be used; the message names it and why.
    #[error("{0}")]
    Usage(String),
}

fn read(flag: &str, path: &Path) -> Result<Vec<u8>, Error> {
    let err = |m: String| Error::Usage(format!("{flag} {}: {m}", path.display()));
    let meta = std::fs::metadata(path).map_err(|e| err(e.to_string()))?;
    if !meta.is_file() {
        return Err(err("not a regular file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(err(format!("{} bytes, more than the {MAX_FILE_BYTES} read", meta.len())));
    }
    std::fs::read(path).map_err(|e| err(e.to_string()))
}

fn read_text(flag: &str, path: &Path) -> Result<String, Error> {
    String::from_utf8(read(flag, path)?).map_err(|_| Error::Usage(format!("{flag} {}: not UTF-8", path.display())))
}

/// The command line to record: `args` (after the program name) without the output options.
///
/// # Errors
/// An argument that is not UTF-8 cannot be recorded in JSON.
pub fn invocation<I, S>(args: I) -> Result<Vec<String>, Error>
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString>,
{
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        let a = a.into().into_string().map_err(|a| {
            Error::Usage(format!("argument {a:?} is not UTF-8, so the command cannot be recorded for a replay"))
        })?;
        if std::mem::take(&mut skip) {
            continue;
        }
        if OUTPUT_FLAGS.contains(&a.as_str()) {
            continue;
        }
        if OUTPUT_OPTIONS.contains(&a.as_str()) {
            skip = true;
            continue;
        }
        if OUTPUT_OPTIONS.iter().any(|o| a.strip_prefix(o).is_some_and(|rest| rest.starts_with('='))) {
            continue;
        }
        out.push(a);
    }
    Ok(out)
}

/// Records `invocation` in the report (before it is described and rendered, so the printed
/// report is the signed predicate).
pub fn record(report: &mut Report, invocation: &[String]) {
    report.input("invocation", invocation.to_vec());
}

/// Signs `report` with the OpenSSH Ed25519 private key at `key_path` and writes the envelope
/// to `out`.
///
/// # Errors
/// The key cannot be read or is not an unencrypted OpenSSH Ed25519 key, or `out` cannot be
/// written.
pub fn write_attestation(report: &Report, key_path: &Path, out: &Path) -> Result<(), Error> {
    let text = read_text("--sign-report", key_path)?;
    let key = SigningKey::from_openssh_private(&text)
        .map_err(|e| Error::Usage(format!("--sign-report {}: {e}", key_path.display())))?;
    let payload = reports::payload_bytes(&reports::statement(report));
    let envelope = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &payload, &key);
    std::fs::write(out, envelope.to_json()).map_err(|e| Error::Usage(format!("--attestation {}: {e}", out.display())))
}

/// The OpenSSH Ed25519 public key in `path` (`--trusted-key`).
///
/// # Errors
/// The file cannot be read or holds no such key.
pub fn trusted_key(path: &Path) -> Result<PublicKey, Error> {
    let text = read_text("--trusted-key", path)?;
    PublicKey::from_openssh(text.trim()).map_err(|e| Error::Usage(format!("--trusted-key {}: {e}", path.display())))
}

/// The report signed in the envelope at `envelope_path` (written by `--sign-report`), as JSON
/// bytes without the recorded `invocation` input (it names the signing run's own command
/// line, which differs from shard to shard), once the envelope verifies under `key` and holds
/// a well-formed statement of a `command` report. `merge --trusted-key` reads shards so.
///
/// # Errors
/// Why the envelope is not such a report (exit 2): unreadable, not a DSSE envelope, another
/// key, a malformed statement, another command.
pub fn signed_report(envelope_path: &Path, key: &PublicKey, command: &str) -> Result<Vec<u8>, Error> {
    let shown = envelope_path.display();
    let refuse = |why: String| Error::Usage(format!("--trusted-key: {shown}: {why}"));
    let bytes = read("--trusted-key", envelope_path)?;
    let envelope = Envelope::parse(&bytes).map_err(|e| refuse(format!("not a signed report (DSSE envelope): {e}")))?;
    envelope
        .verify(key)
        .map_err(|e| refuse(format!("the signature does not verify under {}: {e}", key.fingerprint())))?;
    let (shape, _) = reports::statement_result(&envelope, &shown.to_string());
    if shape.outcome != Outcome::Passed {
        return Err(refuse(shape.message));
    }
    let statement = crate::json::parse(&envelope.payload).map_err(|e| refuse(e.to_string()))?;
    let serde_json::Value::Object(mut statement) = crate::json::to_serde(&statement) else {
        return Err(refuse("the statement is not an object".into()));
    };
    let mut predicate = statement.remove("predicate").unwrap_or_default();
    let signed = predicate.get("command").and_then(serde_json::Value::as_str).unwrap_or_default();
    if signed != command {
        return Err(refuse(format!("signs a `{signed}` report, not a `{command}` report")));
    }
    if let Some(inputs) = predicate.get_mut("inputs").and_then(serde_json::Value::as_object_mut) {
        inputs.remove("invocation");
    }
    serde_json::to_vec(&predicate).map_err(|e| refuse(e.to_string()))
}

/// What a replay gave: the report, and where it ran.
#[derive(Debug)]
pub struct Replayed {
    /// The re-run's report.
    pub report: Report,
    /// The directory the recorded paths were resolved in, as shown (`evidence.replayedIn`).
    pub ran_in: String,
    /// The recorded paths that were not there, with where it looked: a report that then
    /// differs is the replaying user's missing input (exit 2), never a mismatch blamed on
    /// whoever signed.
    pub missing: Option<String>,
}

/// Why a replay gave no report.
#[derive(Debug)]
pub enum ReplayError {
    /// An input the recorded command needs is not where it was looked for: the message names
    /// the path and where (exit 2: the replaying user's to fix).
    Missing(String),
    /// The command could not verify on its inputs (`CV-T103` `cantTell`).
    Failed(String),
}

/// Re-runs a recorded invocation and returns its report (the command layer's job: it parses
/// the arguments and knows which of them are paths).
pub type Replayer<'a> = &'a dyn Fn(&[String]) -> Result<Replayed, ReplayError>;

/// CV-T103 from a replay's outcome, or the exit-2 error when the replay lacked an input: a
/// replay that could not run, or gave another report, while a recorded path was missing is
/// not evidence against the signed report.
///
/// # Errors
/// A recorded input is missing and the replay did not match.
pub fn replay_check(
    signed: &[u8],
    replayed: Result<(Vec<u8>, Replayed), ReplayError>,
    subject: &str,
) -> Result<CheckResult, Error> {
    match replayed {
        Err(ReplayError::Missing(why)) => Err(Error::Usage(why)),
        Err(ReplayError::Failed(why)) => Ok(reports::replay_result(signed, Err(why), subject)),
        Ok((bytes, run)) => {
            if bytes != signed
                && let Some(why) = run.missing
            {
                return Err(Error::Usage(why));
            }
            Ok(reports::replay_result(signed, Ok(bytes), subject).with("replayedIn", run.ran_in))
        }
    }
}

/// `crossverify attest ENVELOPE --trusted-key PUBKEY [--replay]`.
///
/// # Errors
/// The envelope or the key cannot be read, or the envelope is not a DSSE envelope (exit 2).
pub fn attest(envelope_path: &Path, key_path: &Path, replay: Option<Replayer<'_>>) -> Result<Report, Error> {
    let key_text = read_text("--trusted-key", key_path)?;
    let key = PublicKey::from_openssh(key_text.trim())
        .map_err(|e| Error::Usage(format!("--trusted-key {}: {e}", key_path.display())))?;
    let bytes = read("attest", envelope_path)?;
    let envelope = Envelope::parse(&bytes)
        .map_err(|e| Error::Usage(format!("{}: not a DSSE envelope: {e}", envelope_path.display())))?;
    let subject = envelope_path.display().to_string();
    let mut report = Report::new("attest");
    report.input("envelope", subject.clone());
    report.input("trustedKey", key.fingerprint());
    report.input("trustedKeyId", key.key_id());
    report.input("replay", replay.is_some());
    let signed = reports::signature_result(&envelope, &key, &subject);
    let trusted = signed.outcome == Outcome::Passed;
    let (shape, invocation) = reports::statement_result(&envelope, &subject);
    let (shape, invocation) = match subjects_bound(&envelope.payload) {
        Err(why) if shape.outcome == Outcome::Passed => {
            (CheckResult::new(&reports::STATEMENT_WELL_FORMED, Outcome::Failed, &subject, why), None)
        }
        _ => (shape, invocation),
    };
    report.results.push(signed);
    report.results.push(shape);
    if let Some(inv) = &invocation {
        report.input("invocation", inv.clone());
    }
    let not_replayed = |why: &str| CheckResult::new(&reports::REPLAY_MATCHES, Outcome::Inapplicable, &subject, why);
    report.results.push(match (replay, invocation, trusted) {
        (None, _, _) => not_replayed("not replayed (no --replay)"),
        (Some(_), _, false) => not_replayed("not replayed: the signature does not verify under the trusted key"),
        (Some(_), None, true) => not_replayed("not replayed: the statement records no invocation"),
        (Some(run), Some(inv), true) => {
            let signed_tool = signed_tool(&envelope.payload);
            match replay_once(run, &inv, signed_tool.as_ref()) {
                Ok((bytes, tool, ran)) => replay_check(&envelope.payload, Ok((bytes, ran)), &subject)?
                    .with("replayedWith", serde_json::to_value(tool).unwrap_or_default()),
                Err(e) => replay_check(&envelope.payload, Err(e), &subject)?,
            }
        }
    });
    let statement = crate::json::parse(&envelope.payload).ok().map(|v| crate::json::to_serde(&v));
    if let Some(p) = statement.as_ref().and_then(|v| v.get("predicate")) {
        let pick = |k: &str| p.get(k).cloned().unwrap_or(serde_json::Value::Null);
        let subject = statement.as_ref().and_then(|v| v.get("subject")).cloned();
        report.section(
            "attested",
            serde_json::json!({"command": pick("command"), "outcome": pick("outcome"), "summary": pick("summary"), "subject": subject}),
        );
    }
    report.finish();
    Ok(report)
}

/// Whether the statement's subjects are the ones its predicate gives: `report` the SHA-256 of
/// the predicate's payload bytes, each `gitCommit` the input of that name. A subject the
/// signer's statement would not hold vouches for something the report never verified.
fn subjects_bound(payload: &[u8]) -> Result<(), String> {
    let Ok(v) = crate::json::parse(payload).map(|v| crate::json::to_serde(&v)) else { return Ok(()) };
    let Some(predicate) = v.get("predicate") else { return Ok(()) };
    for s in v.get("subject").and_then(serde_json::Value::as_array).into_iter().flatten() {
        let name = s.get("name").and_then(serde_json::Value::as_str).unwrap_or_default();
        let digest = |alg: &str| s.pointer(&format!("/digest/{alg}")).and_then(serde_json::Value::as_str);
        if name == "report"
            && let Some(recorded) = digest("sha256")
        {
            let actual = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(reports::payload_bytes(predicate)));
            if recorded != actual {
                return Err(format!(
                    "the subject `report` records SHA-256 {recorded}, the signed predicate's is {actual}"
                ));
            }
        } else if let Some(recorded) = digest("gitCommit") {
            let input = predicate.pointer(&format!("/inputs/{}", name.replace('~', "~0").replace('/', "~1")));
            let input = input.and_then(serde_json::Value::as_str).map(str::to_ascii_lowercase);
            if input.as_deref() != Some(recorded) {
                return Err(format!(
                    "the subject {name:?} records commit {recorded}, the report's input {name} is {input:?}"
                ));
            }
        }
    }
    Ok(())
}

/// The `tool` of the signed report, when the payload holds one.
fn signed_tool(payload: &[u8]) -> Option<Tool> {
    let v = crate::json::to_serde(&crate::json::parse(payload).ok()?);
    serde_json::from_value(v.get("predicate")?.get("tool")?.clone()).ok()
}

/// Re-runs `recorded` and returns the statement bytes and the tool that made the replay. The
/// replayed report takes the signed report's `tool` (name, version, build commit) before it is
/// compared: the second auditor's build is who replayed, not part of what was found, and is
/// returned beside the bytes instead.
fn replay_once(
    run: Replayer<'_>,
    recorded: &[String],
    signed: Option<&Tool>,
) -> Result<(Vec<u8>, Tool, Replayed), ReplayError> {
    // The recorded line is attacker-controlled until its signature verified; even then a
    // replay only verifies: output options are stripped again and `attest` is not re-entered.
    let inv = invocation(recorded.iter().map(String::as_str)).map_err(|e| ReplayError::Failed(e.to_string()))?;
    if inv != recorded {
        return Err(ReplayError::Failed("the recorded invocation holds output options a replay does not run".into()));
    }
    if inv.first().is_some_and(|c| c == "attest") {
        return Err(ReplayError::Failed("an attestation of `attest` is not replayed".into()));
    }
    let mut ran = run(&inv)?;
    let replayed_with = match signed {
        Some(t) => std::mem::replace(&mut ran.report.tool, t.clone()),
        None => ran.report.tool.clone(),
    };
    record(&mut ran.report, &inv);
    Ok((reports::payload_bytes(&reports::statement(&ran.report)), replayed_with, ran))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_options_are_not_recorded() {
        let inv = invocation([
            "--format",
            "json",
            "ledger",
            "--audit",
            "a",
            "--output=html=x.html",
            "-q",
            "--sign-report",
            "k",
            "--attestation",
            "p",
            "--threads",
            "2",
        ])
        .expect("UTF-8");
        assert_eq!(inv, ["ledger", "--audit", "a"]);
    }
}

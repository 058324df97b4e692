//! Signed commits (`CV-T001`–`CV-T004`): every commit of a history is signed, its SSH
//! signature verifies over the commit's bytes in the `git` namespace, and the signing key is
//! allowed for the committer's identity by the allowed-signers file the user gave.
//!
//! The identity is the committer email, so a key trusted for one person does not vouch for
//! commits recorded under another name. `git verify-commit` is laxer: it accepts a key allowed
//! for *any* principal. Each commit's row also carries git's decision (the `git` dialect), and
//! `specs/trust.md` states the difference.

use std::path::Path;

use serde_json::Value;

use super::FAMILY;
use crate::checks::Check;
use crate::git::{CommitSignature, ObjectId, Repo};
use crate::report::{CheckResult, Level, Outcome, Table, View};
use crate::trust::allowed_signers::{self, AllowedSigners, Decision};
use crate::trust::sshsig::{self, Armor};

/// Every commit carries a signature.
pub static SIGNED: Check = Check {
    code: "CV-T001",
    name: "commit-unsigned",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Every commit of the verified history carries a signature (`gpgsig` header)",
    what: "With `--allowed-signers FILE`, reads every commit reachable from the verified head and checks that \
           it carries a `gpgsig` header. Without the option the check is inapplicable.",
    why: "The paper's own limits (§5): history can be rewritten by whoever controls the repository. An \
          unsigned commit in a history the user asked to be signed is a place where anyone with push access \
          could have written the record; giving an allowed-signers file states that every commit must be signed.",
    example: "CV-T001 failed 3f2a9c1e0b7d: commit is not signed (no gpgsig header)",
    spec: "[specs/trust.md#cv-t001](../../specs/trust.md#cv-t001); ssh-keygen(1)",
};

/// The signature verifies.
pub static VALID: Check = Check {
    code: "CV-T002",
    name: "commit-signature-invalid",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "A commit's SSH signature verifies over the commit's bytes in the `git` namespace",
    what: "Decodes the armored SSH signature (PROTOCOL.sshsig) and verifies it, with strict Ed25519, over the \
           commit object without its signature header, in namespace `git`: what `git verify-commit` hands to \
           `ssh-keygen -Y verify`. OpenPGP and X.509 signatures are reported present but not verified \
           (`cantTell`), never valid; so are SSH keys other than `ssh-ed25519`.",
    why: "A signature over other bytes, by another namespace or that does not decode proves nothing about \
          this commit; accepting a signature crossverify cannot check would count absent evidence in favour.",
    example: "CV-T002 failed 3f2a9c1e0b7d: the Ed25519 signature does not verify (strict)",
    spec: "[specs/trust.md#cv-t002](../../specs/trust.md#cv-t002); PROTOCOL.sshsig",
};

/// The signer is allowed for the committer.
pub static ALLOWED: Check = Check {
    code: "CV-T003",
    name: "commit-signer-not-allowed",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The key that signed a commit is allowed for the committer's identity by the allowed-signers file",
    what: "Looks the verified signing key up in the allowed-signers file (ssh-keygen(1) format): a line whose \
           principals match the committer email, whose `namespaces` allow `git` and whose `valid-after`/\
           `valid-before` window holds the committer time. A key not in the file, or listed only for other \
           principals, fails.",
    why: "Vendor identity is self-declared (paper §5). A valid signature by an unknown key says only that \
          someone holding some key signed; the allowed-signers file is the out-of-band anchor that says whose \
          key it must be.",
    example: "CV-T003 failed 3f2a9c1e0b7d: signed by SHA256:PNmg… (unknown key: not in the allowed-signers file)",
    spec: "[specs/trust.md#cv-t003](../../specs/trust.md#cv-t003); ssh-keygen(1)",
};

/// Every line of the allowed-signers file can be applied.
pub static FILE_SUPPORTED: Check = Check {
    code: "CV-T004",
    name: "allowed-signers-line-unsupported",
    level: Level::Warning,
    family: &FAMILY,
    group: None,
    summary: "Every line of the allowed-signers file is one crossverify can apply",
    what: "Reports each allowed-signers line crossverify cannot apply: `cert-authority` (OpenSSH \
           certificates), key types other than `ssh-ed25519`, and `valid-after`/`valid-before` times without \
           the `Z` suffix (which ssh-keygen reads in the host's time zone). Such a line never allows a \
           signature here.",
    why: "A commit that `ssh-keygen` would accept through such a line fails CV-T003 here; saying which lines \
          were not applied tells the reader why, instead of silently ignoring part of their trust policy.",
    example: "CV-T004 cantTell allowed_signers line 2: cert-authority (OpenSSH certificates) is not supported",
    spec: "[specs/trust.md#cv-t004](../../specs/trust.md#cv-t004); ssh-keygen(1)",
};

/// Checks of this file.
pub static CHECKS: &[&Check] = &[&SIGNED, &VALID, &ALLOWED, &FILE_SUPPORTED];

/// What one commit's signature amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Verified, by a key allowed for the committer (on this line).
    Allowed {
        /// The key's fingerprint.
        fingerprint: String,
        /// Allowed-signers line.
        line: usize,
    },
    /// Verified, by a key listed only for other principals.
    OtherPrincipal {
        /// The key's fingerprint.
        fingerprint: String,
        /// Lines listing it.
        lines: Vec<usize>,
    },
    /// Verified, by a key listed for the committer but outside its namespace or time window.
    Excluded {
        /// The key's fingerprint.
        fingerprint: String,
        /// Why.
        reason: String,
    },
    /// Verified, by a key the file does not list.
    UnknownKey {
        /// The key's fingerprint.
        fingerprint: String,
    },
    /// The signature does not verify or does not decode.
    Bad {
        /// Why.
        reason: String,
    },
    /// No signature.
    Unsigned,
    /// A signature crossverify does not verify (OpenPGP, X.509, non-Ed25519 SSH keys).
    NotVerified {
        /// What it is.
        reason: String,
    },
}

impl Verdict {
    /// The word the signatures table shows.
    #[must_use]
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Allowed { .. } => "allowed",
            Verdict::OtherPrincipal { .. } => "not for this identity",
            Verdict::Excluded { .. } => "excluded",
            Verdict::UnknownKey { .. } => "unknown key",
            Verdict::Bad { .. } => "bad signature",
            Verdict::Unsigned => "unsigned",
            Verdict::NotVerified { .. } => "not verified",
        }
    }

    /// What `git verify-commit` (gpg.format=ssh, the same allowed-signers file) decides: it
    /// accepts a key allowed for any principal. `None` where git would ask gpg/gpgsm.
    #[must_use]
    pub fn git_decision(&self) -> Option<&'static str> {
        match self {
            Verdict::Allowed { .. } | Verdict::OtherPrincipal { .. } => Some("good"),
            Verdict::NotVerified { .. } => None,
            _ => Some("bad"),
        }
    }
}

/// Decides one commit's signature against `signers`.
#[must_use]
pub fn verify_commit(c: &CommitSignature, signers: &AllowedSigners) -> Verdict {
    let Some(armored) = &c.signature else { return Verdict::Unsigned };
    match Armor::of(armored) {
        Armor::Ssh => {}
        Armor::OpenPgp | Armor::X509 => {
            return Verdict::NotVerified {
                reason: format!(
                    "{} signature present, not verified (crossverify verifies SSH signatures only)",
                    Armor::of(armored).as_str()
                ),
            };
        }
        Armor::Unknown => {
            return Verdict::Bad { reason: "the signature header holds no recognised signature block".into() };
        }
    }
    let sig = match sshsig::parse_armored(armored) {
        Ok(s) => s,
        Err(e) => return Verdict::Bad { reason: e.to_string() },
    };
    let key = match sig.verify(&c.payload, "git") {
        Ok(k) => k,
        Err(e) if e.is_unsupported() => return Verdict::NotVerified { reason: e.to_string() },
        Err(e) => return Verdict::Bad { reason: e.to_string() },
    };
    let fingerprint = key.fingerprint();
    match signers.decide(&key, &c.committer_email, "git", c.committer_time) {
        Decision::Allowed { line } => Verdict::Allowed { fingerprint, line },
        Decision::OtherPrincipal { lines } => Verdict::OtherPrincipal { fingerprint, lines },
        Decision::Excluded { reason, .. } => Verdict::Excluded { fingerprint, reason },
        Decision::Unknown => Verdict::UnknownKey { fingerprint },
    }
}

/// Reads and parses an allowed-signers file named on the command line.
///
/// # Errors
/// A message naming the file and the reason (unreadable, too large, not UTF-8, a bad line).
pub fn load_allowed_signers(path: &Path) -> Result<AllowedSigners, String> {
    let err = |m: String| format!("--allowed-signers {}: {m}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| err(e.to_string()))?;
    if !meta.is_file() {
        return Err(err("not a regular file".into()));
    }
    if meta.len() > allowed_signers::MAX_FILE_BYTES as u64 {
        return Err(err(format!("{} bytes, more than the {} read", meta.len(), allowed_signers::MAX_FILE_BYTES)));
    }
    let bytes = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| err("not UTF-8".into()))?;
    allowed_signers::parse(&text).map_err(|e| err(e.to_string()))
}

/// The results when no allowed-signers file was given.
#[must_use]
pub fn inapplicable() -> Vec<CheckResult> {
    every_check(Outcome::Inapplicable, "no --allowed-signers file given")
}

/// One result per check of this file, all with `outcome` and `why` (nothing was judged per
/// commit).
#[must_use]
pub fn every_check(outcome: Outcome, why: &str) -> Vec<CheckResult> {
    CHECKS.iter().map(|c| CheckResult::new(*c, outcome, "commit signatures", why)).collect()
}

/// Verifies the signature of every commit reachable from `tip` in `repo` (named `label` in
/// results, e.g. `audit`), and builds the per-commit table.
///
/// # Errors
/// A commit of the history cannot be read.
pub fn check_history(
    repo: &Repo,
    label: &str,
    tip: ObjectId,
    signers: &AllowedSigners,
) -> Result<(Vec<CheckResult>, View), crate::git::Error> {
    let mut rows = Vec::new();
    let mut out = Vec::new();
    let mut counts = [0usize; 3];
    for commit in repo.history(tip)? {
        let sig = repo.commit_signature(commit.id)?;
        let verdict = verify_commit(&sig, signers);
        results_for(label, &sig, &verdict, &mut out, &mut counts);
        let detail = match &verdict {
            Verdict::Allowed { fingerprint, line } => format!("{fingerprint} (line {line})"),
            Verdict::UnknownKey { fingerprint } => fingerprint.clone(),
            Verdict::OtherPrincipal { fingerprint, lines } => {
                format!("{fingerprint} (listed on line(s) {})", join(lines))
            }
            Verdict::Excluded { fingerprint, reason } => format!("{fingerprint}: {reason}"),
            Verdict::Bad { reason } | Verdict::NotVerified { reason } => reason.clone(),
            Verdict::Unsigned => String::new(),
        };
        rows.push(vec![
            Value::String(commit.id.to_string()),
            Value::String(sig.committer_email.clone()),
            Value::String(verdict.word().to_owned()),
            Value::String(detail),
            verdict.git_decision().map_or(Value::Null, |g| Value::String(g.to_owned())),
        ]);
    }
    let [signed, valid, allowed] = counts;
    let pass = |c: &Check, n: usize, what: &str| {
        CheckResult::new(c, Outcome::Passed, "commit signatures", format!("{n} commit(s) {what}")).with("commits", n)
    };
    if signed > 0 {
        out.push(pass(&SIGNED, signed, "signed"));
    }
    if valid > 0 {
        out.push(pass(&VALID, valid, "with a valid SSH signature in namespace git"));
    }
    if allowed > 0 {
        out.push(pass(&ALLOWED, allowed, "signed by a key allowed for the committer"));
    }
    let mut unsupported = 0;
    for (line, why) in signers.unsupported() {
        unsupported += 1;
        out.push(CheckResult::new(&FILE_SUPPORTED, Outcome::CantTell, format!("allowed_signers line {line}"), why));
    }
    if unsupported == 0 {
        out.push(CheckResult::new(&FILE_SUPPORTED, Outcome::Passed, "allowed_signers", "every line can be applied"));
    }
    let table = Table {
        id: "signatures".into(),
        title: format!("Commit signatures ({label} repository)"),
        columns: vec![
            "commit".into(),
            "committer".into(),
            "signature".into(),
            "key or reason".into(),
            "git verify-commit".into(),
        ],
        rows,
        note: Some(
            "`git verify-commit` accepts a key allowed for any principal; crossverify requires the committer's. \
             Empty: git would ask gpg, which crossverify does not."
                .into(),
        ),
        csv: false,
    };
    Ok((out, View::Table(table)))
}

fn join(lines: &[usize]) -> String {
    lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

fn results_for(label: &str, sig: &CommitSignature, v: &Verdict, out: &mut Vec<CheckResult>, counts: &mut [usize; 3]) {
    let id = sig.id.to_string();
    let subject = id.get(..12).unwrap_or(&id).to_owned();
    let at = |r: CheckResult| r.at(Some(label), None, Some(&id)).with("commit", id.clone());
    let res = |c: &Check, o: Outcome, m: String| at(CheckResult::new(c, o, subject.clone(), m));
    if *v == Verdict::Unsigned {
        out.push(res(&SIGNED, Outcome::Failed, "commit is not signed (no gpgsig header)".into()));
        return;
    }
    counts[0] += 1;
    match v {
        Verdict::Bad { reason } => out.push(res(&VALID, Outcome::Failed, reason.clone())),
        Verdict::NotVerified { reason } => out.push(res(&VALID, Outcome::CantTell, reason.clone())),
        _ => counts[1] += 1,
    }
    match v {
        Verdict::Allowed { .. } => counts[2] += 1,
        Verdict::UnknownKey { fingerprint } => out.push(
            res(
                &ALLOWED,
                Outcome::Failed,
                format!("signed by {fingerprint} (unknown key: not in the allowed-signers file)"),
            )
            .with("key", fingerprint.clone()),
        ),
        Verdict::OtherPrincipal { fingerprint, lines } => out.push(
            res(
                &ALLOWED,
                Outcome::Failed,
                format!(
                    "signed by {fingerprint}, allowed for other principals (line(s) {}) but not for {}",
                    join(lines),
                    sig.committer_email
                ),
            )
            .with("key", fingerprint.clone()),
        ),
        Verdict::Excluded { fingerprint, reason } => out.push(
            res(&ALLOWED, Outcome::Failed, format!("signed by {fingerprint}: {reason}"))
                .with("key", fingerprint.clone()),
        ),
        Verdict::Bad { .. } | Verdict::NotVerified { .. } | Verdict::Unsigned => {}
    }
}

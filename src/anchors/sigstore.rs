//! Checks on a receipt wrapped in a Sigstore bundle (`CV-T201`–`CV-T207`): one result per
//! verification step, so a reader sees which link of the chain held and which did not
//! (`specs/sigstore.md`).

use std::path::PathBuf;

use super::FAMILY;
use crate::checks::Check;
use crate::report::{CheckResult, Level, Outcome};

/// A Sigstore bundle beside a receipt is a well-formed v0.1–v0.3 bundle.
pub static BUNDLE_WELL_FORMED: Check = Check {
    code: "CV-T201",
    name: "sigstore-bundle-malformed",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "A Sigstore bundle beside a receipt is a well-formed v0.1–v0.3 bundle",
    what: "Reads `receipt.json.sigstore.json` as strict JSON (no duplicate keys, at most 1 MiB) and as a Sigstore \
     bundle: a known media type, exactly one leaf certificate, one signature and exactly one \
     transparency-log entry with the fields its version requires (v0.2 and later: an inclusion proof \
     with a checkpoint).",
    why: "A bundle that cannot be read proves nothing about the receipt. Relabelling a v0.3 bundle as v0.1 to skip \
     the inclusion proof is caught by CV-T207, which requires the proof whatever the media type says.",
    example: "CV-T201 failed cycles/9c604cba4273-r1/receipt.json.sigstore.json: bundle profile: inclusion proof missing",
    spec: "[specs/sigstore.md#cv-t201](../../specs/sigstore.md#cv-t201)",
};

/// The bundle's signing certificate chains to a CA of the trusted root and carries a valid SCT.
pub static CERTIFICATE_TRUSTED: Check = Check {
    code: "CV-T202",
    name: "certificate-untrusted",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The bundle's signing certificate chains to a CA of the trusted root and carries a valid SCT",
    what: "Verifies the leaf certificate's chain to a certificate authority of the `--trusted-root` file at the \
     certificate's issuance time (code-signing usage), and its embedded signed certificate timestamp \
     against the trusted root's CT log keys (the `sigstore` crate).",
    why: "A certificate from any other CA, or one the CT log never saw, can name any identity: nothing then ties \
     the signature to the signer the policy expects.",
    example: "CV-T202 failed cycles/9c604cba4273-r1/receipt.json.sigstore.json: certificate verification failed: UnknownIssuer",
    spec: "[specs/sigstore.md#cv-t202](../../specs/sigstore.md#cv-t202)",
};

/// The signing certificate names the expected identity and OIDC issuer.
pub static IDENTITY_MATCHES: Check = Check {
    code: "CV-T203",
    name: "certificate-identity-mismatch",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The signing certificate names the expected identity and OIDC issuer",
    what: "Compares the certificate's subject alternative names (e-mail, URI, Sigstore other-name) with \
     `--certificate-identity` and its Fulcio issuer extension with `--certificate-oidc-issuer`. Without both \
     options the step is `cantTell`: any holder of a certificate from the CA could have signed.",
    why: "Keyless signing proves who held an OIDC token, so the identity is the whole claim: a valid bundle \
     signed by someone else is a valid bundle about the wrong signer.",
    example: "CV-T203 failed cycles/9c604cba4273-r1/receipt.json.sigstore.json: certificate's SubjectAltName does not match",
    spec: "[specs/sigstore.md#cv-t203](../../specs/sigstore.md#cv-t203)",
};

/// The bundle's signature verifies over the receipt's bytes.
pub static SIGNATURE_OVER_RECEIPT: Check = Check {
    code: "CV-T204",
    name: "bundle-signature-mismatch",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The bundle's signature verifies over the receipt's bytes",
    what: "Verifies the bundle's message signature with the certificate's key over the SHA-256 of the committed \
     `receipt.json` bytes (for a DSSE bundle: the signature over the envelope and a subject digest equal \
     to the receipt's).",
    why: "This is the only link between the bundle and the receipt: a receipt edited after signing keeps a \
     perfectly valid bundle about other bytes.",
    example: "CV-T204 failed cycles/9c604cba4273-r1/receipt.json.sigstore.json: signature verification failed",
    spec: "[specs/sigstore.md#cv-t204](../../specs/sigstore.md#cv-t204)",
};

/// The transparency-log entry records this signature, key and digest, within the certificate's validity.
pub static LOG_ENTRY_CONSISTENT: Check = Check {
    code: "CV-T205",
    name: "log-entry-inconsistent",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The transparency-log entry records this signature, key and digest, within the certificate's validity",
    what: "Compares the log entry's canonicalized body (a `hashedrekord` or `dsse` entry) with the bundle's \
     signature, certificate and the receipt's digest, and checks that the entry's integration time lies \
     within the certificate's validity (CVE-2022-36056).",
    why: "A log entry about something else proves that something else was logged; a certificate used after it \
     expired is not a certificate.",
    example: "CV-T205 failed cycles/9c604cba4273-r1/receipt.json.sigstore.json: signature transparency materials are inconsistent",
    spec: "[specs/sigstore.md#cv-t205](../../specs/sigstore.md#cv-t205)",
};

/// The log's signed entry timestamp (SET) verifies against the trusted Rekor key.
pub static SET_VALID: Check = Check {
    code: "CV-T206",
    name: "signed-entry-timestamp-invalid",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The log's signed entry timestamp (SET) verifies against the trusted Rekor key",
    what: "Rebuilds the canonical JSON `{body, integratedTime, logID, logIndex}` of the entry and verifies the \
     bundle's `inclusionPromise.signedEntryTimestamp` with the trusted root's key for the entry's log id. \
     The `sigstore` crate 0.15 does not check it (sigstore-rs#285); crossverify does. A bundle without a \
     SET is `cantTell`: its integration time is then unauthenticated.",
    why: "The integration time is what shows the short-lived certificate was valid when the receipt was signed; \
     without the SET anyone can rewrite it.",
    example: "CV-T206 failed cycles/9c604cba4273-r1/receipt.json.sigstore.json: the signed entry timestamp does not verify against the log key",
    spec: "[specs/sigstore.md#cv-t206](../../specs/sigstore.md#cv-t206)",
};

/// The inclusion proof places the entry in a log tree whose checkpoint the trusted Rekor key signed.
pub static INCLUSION_PROVEN: Check = Check {
    code: "CV-T207",
    name: "inclusion-proof-invalid",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The inclusion proof places the entry in a log tree whose checkpoint the trusted Rekor key signed",
    what: "Hashes the entry body as an RFC 6962 leaf, folds it with the proof's hashes up to the root, and checks \
     that root and tree size against the checkpoint (a signed note) whose signature verifies with the \
     trusted root's Rekor key. A missing proof or checkpoint fails, whatever the media type. The `sigstore` \
     crate 0.15 does not check the proof (sigstore-rs#285); crossverify does.",
    why: "The proof is what makes the signature public: an entry that is not in the log could have been signed \
     privately, and its owner could show it to one verifier and not another.",
    example: "CV-T207 failed cycles/9c604cba4273-r1/receipt.json.sigstore.json: the inclusion proof does not verify: mismatched root",
    spec: "[specs/sigstore.md#cv-t207](../../specs/sigstore.md#cv-t207)",
};

/// Checks owned by this module.
pub static CHECKS: &[&Check] = &[
    &BUNDLE_WELL_FORMED,
    &CERTIFICATE_TRUSTED,
    &IDENTITY_MATCHES,
    &SIGNATURE_OVER_RECEIPT,
    &LOG_ENTRY_CONSISTENT,
    &SET_VALID,
    &INCLUSION_PROVEN,
];

/// The name of a receipt's Sigstore bundle: the receipt's file name plus this suffix.
pub const BUNDLE_SUFFIX: &str = ".sigstore.json";

/// Bundles larger than this are refused unread (a real one is a few kilobytes).
pub const MAX_BUNDLE_BYTES: u64 = 1 << 20;

/// What the caller gave: the trusted root file and the expected identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `--trusted-root`: a Sigstore `trusted_root.json`.
    pub trusted_root: Option<PathBuf>,
    /// `--certificate-identity`.
    pub identity: Option<String>,
    /// `--certificate-oidc-issuer`.
    pub issuer: Option<String>,
}

/// The caller's options with the trusted root read: built once per run.
#[derive(Debug)]
pub struct Anchor {
    #[cfg(feature = "sigstore")]
    root: Option<crate::trust::sigstore::TrustedRoot>,
    #[cfg(feature = "sigstore")]
    policy: Option<crate::trust::sigstore::Policy>,
}

impl Options {
    /// Reads the trusted root, if one was given.
    ///
    /// # Errors
    /// The trusted root cannot be read or is not one (a usage error, exit 2), or only one of
    /// identity and issuer is given.
    pub fn load(&self) -> Result<Anchor, String> {
        if self.identity.is_some() != self.issuer.is_some() {
            return Err("--certificate-identity and --certificate-oidc-issuer go together".into());
        }
        #[cfg(feature = "sigstore")]
        {
            let root = match &self.trusted_root {
                None => None,
                Some(p) => {
                    let bytes = read_capped(p)?;
                    let root = crate::trust::sigstore::TrustedRoot::parse(&bytes)
                        .map_err(|e| format!("{}: not a Sigstore trusted root: {e}", p.display()))?;
                    Some(root)
                }
            };
            let policy = self
                .identity
                .clone()
                .zip(self.issuer.clone())
                .map(|(identity, issuer)| crate::trust::sigstore::Policy { identity, issuer });
            Ok(Anchor { root, policy })
        }
        #[cfg(not(feature = "sigstore"))]
        Ok(Anchor {})
    }
}

#[cfg(feature = "sigstore")]
fn read_capped(p: &std::path::Path) -> Result<Vec<u8>, String> {
    crate::files::read_capped(p, crate::trust::sigstore::MAX_BYTES).map_err(|e| match e {
        crate::files::ReadError::TooLarge(max) => {
            format!("{}: more than {max} bytes, too large for a trusted root", p.display())
        }
        crate::files::ReadError::Io(e) => format!("{}: {e}", p.display()),
    })
}

/// One result per check for the bundle `bundle` (at `subject`) over an artifact whose SHA-256
/// is `sha256`.
#[must_use]
pub fn check_bundle(anchor: &Anchor, subject: &str, bundle: &[u8], sha256: [u8; 32]) -> Vec<CheckResult> {
    #[cfg(feature = "sigstore")]
    {
        use crate::trust::sigstore::{Artifact, Step, verify};
        let Some(root) = &anchor.root else {
            return all(subject, Outcome::CantTell, "no --trusted-root given: the bundle cannot be verified");
        };
        let v = verify(bundle, Artifact::Sha256(sha256), root, anchor.policy.as_ref());
        let steps = [
            (&BUNDLE_WELL_FORMED, v.bundle),
            (&CERTIFICATE_TRUSTED, v.certificate),
            (&IDENTITY_MATCHES, v.identity),
            (&SIGNATURE_OVER_RECEIPT, v.signature),
            (&LOG_ENTRY_CONSISTENT, v.log_entry),
            (&SET_VALID, v.set),
            (&INCLUSION_PROVEN, v.inclusion),
        ];
        steps
            .into_iter()
            .map(|(c, s)| match s {
                Step::Passed => CheckResult::new(c, Outcome::Passed, subject, "verified"),
                Step::Failed(why) => CheckResult::new(c, Outcome::Failed, subject, why),
                Step::CantTell(why) => CheckResult::new(c, Outcome::CantTell, subject, why),
            })
            .collect()
    }
    #[cfg(not(feature = "sigstore"))]
    {
        let _ = (anchor, bundle, sha256);
        all(subject, Outcome::Untested, "built without the sigstore feature: the bundle is not verified")
    }
}

/// The results for a bundle that could not be read: CV-T201 fails, the rest cannot tell.
#[must_use]
pub fn unreadable(subject: &str, why: &str) -> Vec<CheckResult> {
    CHECKS
        .iter()
        .map(|c| {
            if c.code == BUNDLE_WELL_FORMED.code {
                CheckResult::new(*c, Outcome::Failed, subject, why)
            } else {
                CheckResult::new(*c, Outcome::CantTell, subject, format!("the bundle could not be read: {why}"))
            }
        })
        .collect()
}

fn all(subject: &str, outcome: Outcome, why: &str) -> Vec<CheckResult> {
    CHECKS.iter().map(|c| CheckResult::new(*c, outcome, subject, why)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcomes(anchor: &Anchor) -> Vec<Outcome> {
        check_bundle(anchor, "cycles/a/receipt.json.sigstore.json", b"{}", [0; 32]).iter().map(|r| r.outcome).collect()
    }

    /// A default build never passes a wrapped receipt: every step says why it did not run.
    #[cfg(not(feature = "sigstore"))]
    #[test]
    fn without_the_feature_every_step_is_untested() {
        let anchor = Options::default().load().expect("no root to read");
        assert_eq!(outcomes(&anchor), vec![Outcome::Untested; CHECKS.len()]);
        let r = check_bundle(&anchor, "s", b"{}", [0; 32]);
        assert!(r.iter().all(|r| r.message.contains("built without the sigstore feature")), "{r:?}");
    }

    #[cfg(feature = "sigstore")]
    #[test]
    fn without_a_trusted_root_every_step_is_cant_tell() {
        let anchor = Options::default().load().expect("no root to read");
        assert_eq!(outcomes(&anchor), vec![Outcome::CantTell; CHECKS.len()]);
    }

    #[test]
    fn identity_and_issuer_go_together() {
        let o = Options { identity: Some("a@b.invalid".into()), ..Options::default() };
        assert!(o.load().is_err());
    }

    #[test]
    fn an_unreadable_bundle_fails_only_the_format_check() {
        let r = unreadable("s", "why");
        assert_eq!(r.iter().filter(|r| r.outcome == Outcome::Failed).count(), 1);
        assert_eq!(r[0].code, BUNDLE_WELL_FORMED.code);
    }
}

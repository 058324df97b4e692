//! Sigstore bundles (v0.3 JSON) verified fully offline against a trusted root file.
//!
//! The `sigstore` crate (0.15) checks the certificate chain, the embedded SCT, the identity,
//! the signature and the consistency of the transparency-log body, but leaves the Rekor
//! signed entry timestamp (SET) and the Merkle inclusion proof with its signed checkpoint as
//! TODOs (sigstore-rs#285): a tampered SET or zeroed proof hashes still verify there. Both are
//! checked here on the crate's public API, against the Rekor keys of the same trusted root
//! (`specs/sigstore.md`).

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use sigstore::bundle::Bundle;
use sigstore::bundle::verify::policy::{Identity, PolicyResult, VerificationPolicy};
use sigstore::bundle::verify::{
    ArtifactDigest, CertificateErrorKind, SignatureErrorKind, VerificationError, blocking::Verifier,
};
use sigstore::crypto::{CosignVerificationKey, Signature};
use sigstore::rekor::models::InclusionProof;
use sigstore::rekor::models::checkpoint::SignedCheckpoint;
use sigstore::trust::ManualTrustRoot;

/// Bundles and trusted roots larger than this are refused before parsing: a real one is a few
/// kilobytes (a trusted root with every historical key is under 20 KiB).
pub const MAX_BYTES: usize = 1 << 20;

/// A trusted root file (`trusted_root.json`, media type
/// `application/vnd.dev.sigstore.trustedroot+json;version=0.1`) read without TUF: the CA
/// certificates, the Rekor (transparency log) keys and the CT log keys, keys by log id.
#[derive(Debug, Clone, Default)]
pub struct TrustedRoot {
    /// DER certificates of every certificate authority's chain.
    pub ca_certs: Vec<Vec<u8>>,
    /// Rekor keys: lower-case hex log id → SPKI DER.
    pub rekor_keys: BTreeMap<String, Vec<u8>>,
    /// CT log keys: lower-case hex log id → SPKI DER.
    pub ct_keys: BTreeMap<String, Vec<u8>>,
}

/// Why a trusted root could not be read (a usage error: exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RootError {
    /// Larger than [`MAX_BYTES`].
    #[error("{0} bytes, more than the {MAX_BYTES}-byte limit for a trusted root")]
    TooLarge(usize),
    /// Not strict JSON.
    #[error("not strict JSON: {0}")]
    Json(String),
    /// A field is missing or of the wrong type.
    #[error("{0}")]
    Shape(String),
}

impl TrustedRoot {
    /// Reads a `trusted_root.json`.
    ///
    /// # Errors
    /// Oversized input, malformed JSON (duplicate keys included), bad base64, or a root with
    /// no certificate authority or no transparency-log key.
    pub fn parse(bytes: &[u8]) -> Result<Self, RootError> {
        if bytes.len() > MAX_BYTES {
            return Err(RootError::TooLarge(bytes.len()));
        }
        let v = crate::json::parse(bytes).map_err(|e| RootError::Json(e.to_string()))?;
        let v = crate::json::to_serde(&v);
        let mut root = TrustedRoot::default();
        for (i, ca) in array(&v, "certificateAuthorities")?.iter().enumerate() {
            let certs = ca.pointer("/certChain/certificates").and_then(Value::as_array);
            for (j, c) in certs.into_iter().flatten().enumerate() {
                let at = format!("certificateAuthorities[{i}].certChain.certificates[{j}].rawBytes");
                root.ca_certs.push(b64_field(c.get("rawBytes"), &at).map_err(RootError::Shape)?);
            }
        }
        root.rekor_keys = log_keys(&v, "tlogs")?;
        root.ct_keys = log_keys(&v, "ctlogs")?;
        if root.ca_certs.is_empty() || root.rekor_keys.is_empty() {
            return Err(RootError::Shape(
                "no certificate authority or no transparency log: nothing could verify a bundle".into(),
            ));
        }
        Ok(root)
    }
}

fn array<'a>(v: &'a Value, key: &str) -> Result<&'a Vec<Value>, RootError> {
    v.get(key).and_then(Value::as_array).ok_or_else(|| RootError::Shape(format!("`{key}` is not an array")))
}

fn log_keys(v: &Value, key: &str) -> Result<BTreeMap<String, Vec<u8>>, RootError> {
    let mut out = BTreeMap::new();
    for (i, log) in array(v, key)?.iter().enumerate() {
        let id =
            b64_field(log.pointer("/logId/keyId"), &format!("{key}[{i}].logId.keyId")).map_err(RootError::Shape)?;
        let der = b64_field(log.pointer("/publicKey/rawBytes"), &format!("{key}[{i}].publicKey.rawBytes"))
            .map_err(RootError::Shape)?;
        out.insert(hex::encode(id), der);
    }
    Ok(out)
}

fn b64_field(v: Option<&Value>, at: &str) -> Result<Vec<u8>, String> {
    let s = v.and_then(Value::as_str).ok_or_else(|| format!("`{at}` is missing or not a string"))?;
    STANDARD.decode(s).map_err(|e| format!("`{at}` is not base64: {e}"))
}

/// The identity a bundle's certificate must carry (`--certificate-identity`,
/// `--certificate-oidc-issuer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Subject alternative name: an e-mail address or a URI.
    pub identity: String,
    /// OIDC issuer URL, as in the Fulcio issuer extension.
    pub issuer: String,
}

/// The digest of the artifact a bundle must sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Artifact {
    /// SHA-256 (receipts; message signatures are always SHA-256).
    Sha256([u8; 32]),
    /// SHA-512 (npm provenance subjects).
    Sha512([u8; 64]),
}

impl Artifact {
    /// SHA-256 of `bytes`.
    #[must_use]
    pub fn of(bytes: &[u8]) -> Self {
        Artifact::Sha256(Sha256::digest(bytes).into())
    }
}

/// One step's finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Verified.
    Passed,
    /// Verified false: the reason.
    Failed(String),
    /// Could not be decided (evidence missing or an earlier step failed): the reason.
    CantTell(String),
}

/// Every step of verifying one bundle, in the order a verifier takes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The bundle is strict JSON, a known media type, one certificate and one log entry.
    pub bundle: Step,
    /// The certificate chains to a trusted CA at its issuance time and carries a valid SCT.
    pub certificate: Step,
    /// The certificate names the expected identity and issuer.
    pub identity: Step,
    /// The signature verifies over the artifact (message digest or DSSE PAE + subject).
    pub signature: Step,
    /// The log entry's body matches the bundle, and was integrated within the certificate's
    /// validity.
    pub log_entry: Step,
    /// The signed entry timestamp verifies against the trusted Rekor key.
    pub set: Step,
    /// The inclusion proof leads to the root of a checkpoint signed by the trusted Rekor key.
    pub inclusion: Step,
}

impl Verdict {
    fn unreadable(why: &str) -> Self {
        let not = || Step::CantTell(format!("the bundle could not be read: {why}"));
        Verdict {
            bundle: Step::Failed(why.to_owned()),
            certificate: not(),
            identity: not(),
            signature: not(),
            log_entry: not(),
            set: not(),
            inclusion: not(),
        }
    }
}

/// Verifies a Sigstore bundle over `artifact`, offline, against `root`; with no `policy` the
/// identity step is `CantTell` (any certificate of the CA would do) and the others still run.
#[must_use]
pub fn verify(bundle: &[u8], artifact: Artifact, root: &TrustedRoot, policy: Option<&Policy>) -> Verdict {
    if bundle.len() > MAX_BYTES {
        return Verdict::unreadable(&format!("{} bytes, more than the {MAX_BYTES}-byte limit", bundle.len()));
    }
    let value = match crate::json::parse(bundle) {
        Ok(v) => crate::json::to_serde(&v),
        Err(e) => return Verdict::unreadable(&format!("not strict JSON: {e}")),
    };
    let parsed: Bundle = match serde_json::from_value(value.clone()) {
        Ok(b) => b,
        Err(e) => return Verdict::unreadable(&format!("not a Sigstore bundle: {e}")),
    };
    let tlog = match TlogEntry::read(&value) {
        Ok(t) => t,
        Err(e) => return Verdict::unreadable(&e),
    };
    let mut v = crate_steps(parsed, artifact, root, policy);
    match root.rekor_keys.get(&hex::encode(&tlog.key_id)) {
        None => {
            let why = format!("log id {} is not a transparency log of the trusted root", hex::encode(&tlog.key_id));
            v.set = Step::Failed(why.clone());
            v.inclusion = Step::Failed(why);
        }
        Some(spki) => match CosignVerificationKey::try_from_der(spki) {
            Err(e) => {
                let why = format!("the trusted root's Rekor key does not load: {e}");
                v.set = Step::CantTell(why.clone());
                v.inclusion = Step::CantTell(why);
            }
            Ok(key) => {
                v.set = tlog.check_set(&key);
                v.inclusion = tlog.check_inclusion(&key);
            }
        },
    }
    v
}

/// What the `sigstore` crate decides: its pipeline stops at the first failure, so the steps
/// after it are not reached (`CantTell`), never passed.
fn crate_steps(bundle: Bundle, artifact: Artifact, root: &TrustedRoot, policy: Option<&Policy>) -> Verdict {
    let trust = ManualTrustRoot {
        fulcio_certs: root.ca_certs.iter().map(|d| rustls_pki_types::CertificateDer::from(d.as_slice())).collect(),
        rekor_keys: root.rekor_keys.clone(),
        ctfe_keys: root.ct_keys.clone(),
    };
    let pending = || Step::CantTell("not checked yet".into());
    let mut v = Verdict {
        bundle: pending(),
        certificate: pending(),
        identity: pending(),
        signature: pending(),
        log_entry: pending(),
        set: pending(),
        inclusion: pending(),
    };
    let verifier = match Verifier::new(Default::default(), trust) {
        Ok(x) => x,
        Err(e) => {
            let why = format!("the verifier could not start: {e}");
            for s in [&mut v.bundle, &mut v.certificate, &mut v.identity, &mut v.signature, &mut v.log_entry] {
                *s = Step::CantTell(why.clone());
            }
            return v;
        }
    };
    let digest = match artifact {
        Artifact::Sha256(d) => ArtifactDigest::from(d),
        Artifact::Sha512(d) => ArtifactDigest::from(d),
    };
    // `offline = true`: a bundle without an inclusion proof is refused by the crate's profile
    // check rather than fetched.
    let result = match policy {
        Some(p) => verifier.verify_digest_with(digest, bundle, &Identity::new(&p.identity, &p.issuer), true),
        None => verifier.verify_digest_with(digest, bundle, &AnyIdentity, true),
    };
    // The crate's order: bundle, chain + SCT, identity, signature, then the log entry (body
    // consistency, and integratedTime within the certificate's validity).
    let failed_at = match &result {
        Ok(()) => None,
        Err(VerificationError::Bundle(_) | VerificationError::Input(_)) => Some(0),
        Err(VerificationError::Certificate(CertificateErrorKind::Expired)) => Some(4),
        Err(VerificationError::Certificate(_)) => Some(1),
        Err(VerificationError::Policy(_)) => Some(2),
        Err(VerificationError::Signature(SignatureErrorKind::Transparency)) => Some(4),
        Err(VerificationError::Signature(_)) => Some(3),
    };
    let why = result.as_ref().err().map(|e| chain(e)).unwrap_or_default();
    let steps = [&mut v.bundle, &mut v.certificate, &mut v.identity, &mut v.signature, &mut v.log_entry];
    for (i, s) in steps.into_iter().enumerate() {
        *s = match failed_at {
            Some(f) if i == f => Step::Failed(why.clone()),
            Some(f) if i > f => Step::CantTell(format!("not reached: an earlier step failed ({why})")),
            _ => Step::Passed,
        };
    }
    if policy.is_none() && matches!(v.identity, Step::Passed) {
        v.identity = Step::CantTell(
            "no --certificate-identity and --certificate-oidc-issuer given: any certificate of the trusted CA would do"
                .into(),
        );
    }
    v
}

/// The error and its sources, one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        out.push_str(": ");
        out.push_str(&s.to_string());
        src = s.source();
    }
    out
}

/// Accepts any certificate: used when no identity is given, so that the other steps still
/// run; the identity step is then reported `CantTell`, never passed.
struct AnyIdentity;

impl VerificationPolicy for AnyIdentity {
    fn verify(&self, _cert: &x509_cert::Certificate) -> PolicyResult {
        Ok(())
    }
}

/// The fields of the bundle's single transparency-log entry this module checks itself.
struct TlogEntry {
    key_id: Vec<u8>,
    log_index: i64,
    integrated_time: i64,
    body: Vec<u8>,
    set: Option<Vec<u8>>,
    proof: Option<Proof>,
}

struct Proof {
    log_index: i64,
    root_hash: Vec<u8>,
    tree_size: i64,
    hashes: Vec<Vec<u8>>,
    checkpoint: Option<String>,
}

/// Proto3 JSON writes int64 as a string; a number is accepted too.
fn int(v: Option<&Value>, at: &str) -> Result<i64, String> {
    match v {
        Some(Value::String(s)) => s.parse().map_err(|_| format!("`{at}` is not an integer: {s:?}")),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| format!("`{at}` is not an integer")),
        _ => Err(format!("`{at}` is missing")),
    }
}

impl TlogEntry {
    fn read(bundle: &Value) -> Result<Self, String> {
        let entries = bundle
            .pointer("/verificationMaterial/tlogEntries")
            .and_then(Value::as_array)
            .ok_or("`verificationMaterial.tlogEntries` is missing")?;
        let [e] = entries.as_slice() else {
            return Err(format!("{} transparency-log entries, exactly one expected", entries.len()));
        };
        let proof = match e.get("inclusionProof") {
            None => None,
            Some(p) => Some(Proof {
                log_index: int(p.get("logIndex"), "inclusionProof.logIndex")?,
                root_hash: b64_field(p.get("rootHash"), "inclusionProof.rootHash")?,
                tree_size: int(p.get("treeSize"), "inclusionProof.treeSize")?,
                hashes: p
                    .get("hashes")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .map(|(i, h)| b64_field(Some(h), &format!("inclusionProof.hashes[{i}]")))
                    .collect::<Result<_, _>>()?,
                checkpoint: p.pointer("/checkpoint/envelope").and_then(Value::as_str).map(str::to_owned),
            }),
        };
        Ok(TlogEntry {
            key_id: b64_field(e.pointer("/logId/keyId"), "tlogEntries[0].logId.keyId")?,
            log_index: int(e.get("logIndex"), "tlogEntries[0].logIndex")?,
            integrated_time: int(e.get("integratedTime"), "tlogEntries[0].integratedTime")?,
            body: b64_field(e.get("canonicalizedBody"), "tlogEntries[0].canonicalizedBody")?,
            set: match e.pointer("/inclusionPromise/signedEntryTimestamp") {
                None => None,
                s => Some(b64_field(s, "inclusionPromise.signedEntryTimestamp")?),
            },
            proof,
        })
    }

    /// The SET is Rekor's ECDSA signature over the canonical JSON of these four fields (keys
    /// sorted, no whitespace); base64 and hex cannot need escaping, so the text is built here.
    fn check_set(&self, key: &CosignVerificationKey) -> Step {
        let Some(set) = &self.set else {
            return Step::CantTell(
                "no inclusion promise (SET): the log entry's integratedTime is not authenticated".into(),
            );
        };
        let payload = format!(
            r#"{{"body":"{}","integratedTime":{},"logID":"{}","logIndex":{}}}"#,
            STANDARD.encode(&self.body),
            self.integrated_time,
            hex::encode(&self.key_id),
            self.log_index
        );
        match key.verify_signature(Signature::Raw(set), payload.as_bytes()) {
            Ok(()) => Step::Passed,
            Err(e) => Step::Failed(format!("the signed entry timestamp does not verify against the log key: {e}")),
        }
    }

    /// RFC 6962 inclusion of the entry body in the tree whose root the checkpoint signs.
    fn check_inclusion(&self, key: &CosignVerificationKey) -> Step {
        let Some(p) = &self.proof else {
            return Step::Failed("no inclusion proof (bundles v0.2 and later must carry one)".into());
        };
        let Some(envelope) = &p.checkpoint else {
            return Step::Failed("the inclusion proof has no checkpoint".into());
        };
        let checkpoint: SignedCheckpoint = match serde_json::from_value(Value::String(envelope.clone())) {
            Ok(c) => c,
            Err(e) => return Step::Failed(format!("the checkpoint is not a signed note: {e}")),
        };
        let hash32 = |h: &[u8], what: &str| <[u8; 32]>::try_from(h).map_err(|_| format!("{what} is not 32 bytes"));
        let parts = (|| -> Result<InclusionProof, String> {
            let hashes = p.hashes.iter().map(|h| hash32(h, "a proof hash")).collect::<Result<_, _>>()?;
            let size = u64::try_from(p.tree_size).map_err(|_| "negative tree size".to_owned())?;
            Ok(InclusionProof::new(p.log_index, hash32(&p.root_hash, "the root hash")?, size, hashes, Some(checkpoint)))
        })();
        let proof = match parts {
            Ok(x) => x,
            Err(e) => return Step::Failed(e),
        };
        if p.log_index < 0 || p.log_index >= p.tree_size {
            return Step::Failed(format!("proof index {} is outside a tree of {}", p.log_index, p.tree_size));
        }
        match proof.verify(&self.body, key) {
            Ok(()) => Step::Passed,
            Err(e) => Step::Failed(format!("the inclusion proof does not verify: {e}")),
        }
    }
}

//! The bundle container and its DSSE envelope, in two typed stages: an [`Unverified`] bundle
//! exposes only what may be read before the signature verifies (the key id hint, the
//! convenience key, attachments); the payload bytes are reachable only through
//! [`Unverified::verify`], which returns a [`Verified`] payload. The "pre-verification field
//! use" bug of the paper cannot be written against this API:
//!
//! ```compile_fail,E0616
//! # fn f(u: crossverify::proof_or_stop::envelope::Unverified) {
//! let _ = u.payload; // private: the payload is read only after verification
//! # }
//! ```

use std::collections::BTreeMap;

use base64::Engine;

use super::format::closed;
use super::reason::{Rejection, Step};
use super::trust_store::{TrustStore, TrustedKey};
use crate::json::{self, Value};
use crate::trust::dsse::{IN_TOTO_PAYLOAD_TYPE, pae};

/// The one accepted media type (pinned here, never taken from the bundle).
pub const MEDIA_TYPE: &str = "application/vnd.proof-or-stop.bundle.v1+json";
/// Largest bundle read (A1).
pub const MAX_BUNDLE_BYTES: usize = 16 << 20;

/// Base64, standard or URL-safe, padded or not (DSSE requires verifiers to accept all four).
use crate::trust::dsse::decode_base64 as b64;

/// A parsed container whose signature has not been checked.
#[derive(Debug, Clone)]
pub struct Unverified {
    payload: Vec<u8>,
    keyid: String,
    sig: String,
    material: (String, String),
    attachments: BTreeMap<String, Vec<u8>>,
}

/// The payload bytes of a bundle whose signature verified, with the key that signed them.
#[derive(Debug, Clone)]
pub struct Verified {
    payload: Vec<u8>,
    /// The trusted key that verified the signature.
    pub key: TrustedKey,
    /// Attached output logs by digest (unsigned; only ever compared with signed digests).
    pub attachments: BTreeMap<String, Vec<u8>>,
}

impl Verified {
    /// The signed payload bytes.
    #[must_use]
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }
}

fn str_member<'a>(m: &'a BTreeMap<String, Value>, key: &str, at: &str) -> Result<&'a str, Rejection> {
    m.get(key).and_then(Value::as_str).ok_or_else(|| Rejection::new(Step::A2, format!("{at}/{key} is not a string")))
}

impl Unverified {
    /// Steps A1, A2, B1 and B1′.
    ///
    /// # Errors
    /// The first failing step.
    pub fn parse(bytes: &[u8]) -> Result<Unverified, Rejection> {
        if bytes.len() > MAX_BUNDLE_BYTES {
            return Err(Rejection::new(Step::A1, format!("larger than {MAX_BUNDLE_BYTES} bytes")));
        }
        let v = json::parse(bytes).map_err(|e| Rejection::new(Step::A1, e.to_string()))?;
        let a2 = |m: String| Rejection::new(Step::A2, m);
        let top =
            closed(&v, "", &["mediaType", "dsseEnvelope", "verificationMaterial"], &["attachments"]).map_err(a2)?;
        let media = str_member(top, "mediaType", "")?;
        if media != MEDIA_TYPE {
            return Err(a2(format!("/mediaType {media:?} is not {MEDIA_TYPE}")));
        }
        let env = closed(&top["dsseEnvelope"], "/dsseEnvelope", &["payload", "payloadType", "signatures"], &[])
            .map_err(a2)?;
        let pt = str_member(env, "payloadType", "/dsseEnvelope")?;
        if pt != IN_TOTO_PAYLOAD_TYPE {
            return Err(a2(format!("/dsseEnvelope/payloadType {pt:?} is not {IN_TOTO_PAYLOAD_TYPE}")));
        }
        let payload = b64(str_member(env, "payload", "/dsseEnvelope")?)
            .ok_or_else(|| a2("/dsseEnvelope/payload is not base64".into()))?;
        let Some(sigs) = env["signatures"].as_array() else {
            return Err(a2("/dsseEnvelope/signatures is not an array".into()));
        };
        let mut parsed = Vec::new();
        for (i, s) in sigs.iter().enumerate() {
            let at = format!("/dsseEnvelope/signatures/{i}");
            let m = closed(s, &at, &["keyid", "sig"], &[]).map_err(a2)?;
            parsed.push((str_member(m, "keyid", &at)?.to_owned(), str_member(m, "sig", &at)?.to_owned()));
        }
        let material = Self::material(&top["verificationMaterial"])?;
        let attachments = match top.get("attachments") {
            Some(a) => Self::attachments(a)?,
            None => BTreeMap::new(),
        };
        if parsed.is_empty() || parsed.iter().any(|(_, s)| s.is_empty()) {
            return Err(Rejection::new(Step::B1, "the envelope has no signature"));
        }
        if parsed.len() > 1 {
            return Err(Rejection::new(
                Step::B1b,
                format!(
                    "{} signatures: a local-key bundle carries exactly one (a quorum is several bundles)",
                    parsed.len()
                ),
            ));
        }
        let (keyid, sig) = parsed.remove(0);
        Ok(Unverified { payload, keyid, sig, material, attachments })
    }

    fn material(v: &Value) -> Result<(String, String), Rejection> {
        let a2 = |m: String| Rejection::new(Step::A2, m);
        let m = closed(v, "/verificationMaterial", &["publicKey"], &[]).map_err(a2)?;
        let at = "/verificationMaterial/publicKey";
        let k = closed(&m["publicKey"], at, &["keyId", "rawBytes"], &[]).map_err(a2)?;
        Ok((str_member(k, "keyId", at)?.to_owned(), str_member(k, "rawBytes", at)?.to_owned()))
    }

    fn attachments(v: &Value) -> Result<BTreeMap<String, Vec<u8>>, Rejection> {
        let a2 = |m: String| Rejection::new(Step::A2, m);
        let m = closed(v, "/attachments", &["outputs"], &[]).map_err(a2)?;
        let Some(outputs) = m["outputs"].as_object() else {
            return Err(a2("/attachments/outputs is not an object".into()));
        };
        outputs
            .iter()
            .map(|(k, v)| {
                let bytes =
                    v.as_str().and_then(b64).ok_or_else(|| a2(format!("/attachments/outputs/{k} is not base64")))?;
                Ok((k.clone(), bytes))
            })
            .collect()
    }

    /// The envelope's `keyid`: an unauthenticated hint that only selects a key.
    #[must_use]
    pub fn keyid(&self) -> &str {
        &self.keyid
    }

    /// Steps B2 and B3: the signer is a trusted key (and the convenience copy is that key),
    /// then the signature verifies strictly over the PAE of the exact payload bytes.
    ///
    /// # Errors
    /// The first failing step.
    pub fn verify(self, store: &TrustStore) -> Result<Verified, Rejection> {
        let b2 = |m: String| Rejection::new(Step::B2, m);
        let key =
            store.get(&self.keyid).ok_or_else(|| b2(format!("keyid {} is not in the trust store", self.keyid)))?;
        let (mid, mraw) = &self.material;
        if *mid != key.key_id || b64(mraw).as_deref() != Some(key.key.as_bytes().as_slice()) {
            return Err(b2(format!("verificationMaterial key {mid} is not the trusted key {}", key.key_id)));
        }
        let sig = b64(&self.sig)
            .filter(|s| s.len() == 64)
            .ok_or_else(|| Rejection::new(Step::B3, "sig is not the base64 of 64 bytes"))?;
        key.key
            .verify_strict(&pae(IN_TOTO_PAYLOAD_TYPE, &self.payload), &sig)
            .map_err(|_| Rejection::new(Step::B3, "the signature does not verify over the payload"))?;
        Ok(Verified { payload: self.payload, key: key.clone(), attachments: self.attachments })
    }
}

/// A container around `payload` signed by `key`, in the format [`Unverified::parse`] reads
/// (the generator and the tests write bundles with it).
#[must_use]
pub fn sign_bundle(payload: &[u8], key: &crate::trust::ed25519::SigningKey) -> serde_json::Value {
    let public = key.public();
    let sig = key.sign(&pae(IN_TOTO_PAYLOAD_TYPE, payload));
    let std = &base64::engine::general_purpose::STANDARD;
    serde_json::json!({
        "mediaType": MEDIA_TYPE,
        "dsseEnvelope": {
            "payload": std.encode(payload),
            "payloadType": IN_TOTO_PAYLOAD_TYPE,
            "signatures": [{"keyid": public.key_id(), "sig": std.encode(sig)}],
        },
        "verificationMaterial": {"publicKey": {"keyId": public.key_id(), "rawBytes": std.encode(public.as_bytes())}},
    })
}

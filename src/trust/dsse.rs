//! DSSE envelopes (Dead Simple Signing Envelope, v1): the pre-authentication encoding, strict
//! parsing and Ed25519 signing and verification.
//!
//! The `keyid` of a signature is an unauthenticated hint (DSSE spec): verification tries every
//! signature against the key the caller trusts, and never chooses a key because an envelope
//! names it.

use base64::Engine as _;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::{DecodePaddingMode, general_purpose};

use super::ed25519::{PublicKey, SigningKey};
use crate::json::{self, Value};

/// The payload type of an in-toto Statement.
pub const IN_TOTO_PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// The bytes a DSSE signature covers: `DSSEv1 SP len(type) SP type SP len(body) SP body`.
#[must_use]
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!("DSSEv1 {} {payload_type} {} ", payload_type.len(), payload.len()).into_bytes();
    out.extend_from_slice(payload);
    out
}

/// One signature of an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The signer's hint (may be empty).
    pub keyid: String,
    /// The raw signature bytes.
    pub sig: Vec<u8>,
}

/// A DSSE envelope with its base64 members decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// `payloadType`.
    pub payload_type: String,
    /// The decoded payload.
    pub payload: Vec<u8>,
    /// The signatures, in envelope order.
    pub signatures: Vec<Signature>,
}

/// Why an envelope was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Not strict JSON.
    #[error("the envelope is not valid JSON: {0}")]
    Json(#[from] json::Error),
    /// A required member is missing or has the wrong type.
    #[error("the envelope member {0} is missing or not a {1}")]
    Member(String, &'static str),
    /// A member DSSE does not define.
    #[error("the envelope has a member DSSE does not define: {0}")]
    Unknown(String),
    /// A base64 member does not decode.
    #[error("the envelope member {0} is not base64 (standard or URL-safe)")]
    Base64(String),
    /// No signature at all.
    #[error("the envelope has no signatures")]
    NoSignatures,
}

/// Why no signature of an envelope verified.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The envelope carries no signature.
    #[error("the envelope has no signatures")]
    NoSignatures,
    /// None of the signatures verifies under the trusted key.
    #[error("no signature verifies under the trusted key {0}")]
    NoneVerifies(String),
}

const INDIFFERENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_ANY: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, INDIFFERENT);
const URL_SAFE_ANY: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, INDIFFERENT);

/// Decodes base64 in either DSSE alphabet, padded or not; one alphabet per value.
#[must_use]
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let engine = if text.contains(['-', '_']) { &URL_SAFE_ANY } else { &STANDARD_ANY };
    engine.decode(text).ok()
}

impl Envelope {
    /// Parses an envelope strictly: exactly `payload`, `payloadType` and a non-empty
    /// `signatures` array of `{keyid?, sig}` objects.
    ///
    /// # Errors
    /// [`EnvelopeError`] naming the offending member.
    pub fn parse(bytes: &[u8]) -> Result<Self, EnvelopeError> {
        Self::from_value(&json::parse(bytes)?)
    }

    /// [`Envelope::parse`] for an already parsed value (an envelope inside a bundle).
    ///
    /// # Errors
    /// [`EnvelopeError`] naming the offending member.
    pub fn from_value(value: &Value) -> Result<Self, EnvelopeError> {
        let obj = object(value, "envelope")?;
        closed(obj, &["payload", "payloadType", "signatures"], "")?;
        let payload_type = string(obj.get("payloadType"), "payloadType")?.to_owned();
        let payload = base64_member(obj.get("payload"), "payload")?;
        let Some(Value::Array(items)) = obj.get("signatures") else {
            return Err(EnvelopeError::Member("signatures".into(), "array"));
        };
        if items.is_empty() {
            return Err(EnvelopeError::NoSignatures);
        }
        let signatures = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = format!("signatures/{i}");
                let sig = object(item, &at)?;
                closed(sig, &["keyid", "sig"], &format!("{at}/"))?;
                let keyid = match sig.get("keyid") {
                    None => String::new(),
                    some => string(some, &format!("{at}/keyid"))?.to_owned(),
                };
                Ok(Signature { keyid, sig: base64_member(sig.get("sig"), &format!("{at}/sig"))? })
            })
            .collect::<Result<_, EnvelopeError>>()?;
        Ok(Self { payload_type, payload, signatures })
    }

    /// An envelope over `payload` with one signature by `key` (keyid: the key's id).
    #[must_use]
    pub fn sign(payload_type: &str, payload: &[u8], key: &SigningKey) -> Self {
        let sig = key.sign(&pae(payload_type, payload)).to_vec();
        Self {
            payload_type: payload_type.to_owned(),
            payload: payload.to_vec(),
            signatures: vec![Signature { keyid: key.public().key_id(), sig }],
        }
    }

    /// The envelope as compact JSON with members in a fixed order and standard base64.
    #[must_use]
    pub fn to_json(&self) -> String {
        let sigs: Vec<serde_json::Value> = self
            .signatures
            .iter()
            .map(|s| serde_json::json!({"keyid": s.keyid, "sig": STANDARD.encode(&s.sig)}))
            .collect();
        let v = serde_json::json!({
            "payload": general_purpose::STANDARD.encode(&self.payload),
            "payloadType": self.payload_type,
            "signatures": sigs,
        });
        serde_json::to_string(&v).expect("a JSON value always serialises")
    }

    /// Succeeds when at least one signature verifies strictly under `key` over the PAE.
    ///
    /// # Errors
    /// [`VerifyError`] when there is no signature or none verifies.
    pub fn verify(&self, key: &PublicKey) -> Result<(), VerifyError> {
        if self.signatures.is_empty() {
            return Err(VerifyError::NoSignatures);
        }
        let message = pae(&self.payload_type, &self.payload);
        if self.signatures.iter().any(|s| key.verify_strict(&message, &s.sig).is_ok()) {
            Ok(())
        } else {
            Err(VerifyError::NoneVerifies(key.key_id()))
        }
    }
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a std::collections::BTreeMap<String, Value>, EnvelopeError> {
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(EnvelopeError::Member(at.to_owned(), "object")),
    }
}

fn closed(obj: &std::collections::BTreeMap<String, Value>, allowed: &[&str], at: &str) -> Result<(), EnvelopeError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(EnvelopeError::Unknown(format!("{at}{k}"))),
        None => Ok(()),
    }
}

fn string<'a>(v: Option<&'a Value>, at: &str) -> Result<&'a str, EnvelopeError> {
    match v {
        Some(Value::String(s)) => Ok(s),
        _ => Err(EnvelopeError::Member(at.to_owned(), "string")),
    }
}

fn base64_member(v: Option<&Value>, at: &str) -> Result<Vec<u8>, EnvelopeError> {
    decode_base64(string(v, at)?).ok_or_else(|| EnvelopeError::Base64(at.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_matches_the_dsse_spec_example() {
        // The DSSE protocol document's test vector.
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
    }

    #[test]
    fn signed_envelopes_round_trip_and_tampering_fails() {
        let key = SigningKey::from_seed([3; 32]);
        let env = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, br#"{"a":1}"#, &key);
        let back = Envelope::parse(env.to_json().as_bytes()).unwrap();
        assert_eq!(back, env);
        assert!(back.verify(&key.public()).is_ok());
        let other = SigningKey::from_seed([4; 32]).public();
        assert_eq!(back.verify(&other), Err(VerifyError::NoneVerifies(other.key_id())));
        let mut tampered = back.clone();
        tampered.payload = br#"{"a":2}"#.to_vec();
        assert!(tampered.verify(&key.public()).is_err());
        tampered.payload_type = "text/plain".into();
        assert!(tampered.verify(&key.public()).is_err());
    }

    #[test]
    fn url_safe_unpadded_base64_is_accepted_and_unknown_members_are_not() {
        let ok = br#"{"payload":"-_8","payloadType":"t","signatures":[{"sig":"AA"}]}"#;
        let env = Envelope::parse(ok).unwrap();
        assert_eq!(env.payload, vec![0xfb, 0xff]);
        assert_eq!(env.signatures[0].keyid, "");
        let extra = br#"{"payload":"","payloadType":"t","signatures":[{"sig":"AA","x":1}]}"#;
        assert_eq!(Envelope::parse(extra), Err(EnvelopeError::Unknown("signatures/0/x".into())));
        let none = br#"{"payload":"","payloadType":"t","signatures":[]}"#;
        assert_eq!(Envelope::parse(none), Err(EnvelopeError::NoSignatures));
        let dup = br#"{"payload":"","payload":"","payloadType":"t","signatures":[]}"#;
        assert!(matches!(Envelope::parse(dup), Err(EnvelopeError::Json(_))));
    }
}

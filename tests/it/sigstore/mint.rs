//! Test-only Sigstore: a CA, a CT log, a Rekor log and a signer, all from fixed keys and a
//! fixed clock, minting v0.3 bundles over given bytes the way Fulcio and Rekor v1 would
//! (leaf certificate with an embedded precertificate SCT, `hashedrekord` entry, SET, RFC 6962
//! inclusion proof and a signed-note checkpoint). No network, no randomness: ECDSA nonces are
//! RFC 6979.

#![allow(unreachable_pub)]

use std::str::FromStr;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{DerSignature, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use x509_cert::Certificate;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder as _, CertificateBuilder};
use x509_cert::certificate::TbsCertificate;
use x509_cert::der::asn1::{Ia5String, ObjectIdentifier, OctetString};
use x509_cert::der::oid::AssociatedOid;
use x509_cert::der::{Decode as _, Encode as _};
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages, SubjectAltName,
    SubjectKeyIdentifier,
};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{EncodePublicKey as _, SubjectPublicKeyInfoOwned, SubjectPublicKeyInfoRef};
use x509_cert::time::{Time, Validity};

/// The signing time: 2026-06-01T00:00:00Z. The leaf is valid for ten minutes from it.
pub const SIGNED_AT: u64 = 1_780_272_000;
pub const IDENTITY: &str = "receipts@crossverify.invalid";
pub const ISSUER: &str = "https://issuer.crossverify.invalid";
const OIDC_ISSUER_OID: &str = "1.3.6.1.4.1.57264.1.1";
const SCT_LIST_OID: &str = "1.3.6.1.4.1.11129.2.4.2";
const CODE_SIGNING_OID: &str = "1.3.6.1.5.5.7.3.3";

/// A fixed P-256 key: `seed` repeated is a valid scalar for every seed used here.
pub fn key(seed: u8) -> SigningKey {
    SigningKey::from_slice(&[seed; 32]).expect("a repeated small byte is a valid P-256 scalar")
}

pub fn spki_der(k: &SigningKey) -> Vec<u8> {
    k.verifying_key().to_public_key_der().expect("P-256 SPKI encodes").as_bytes().to_vec()
}

/// A log id: SHA-256 of the log key's SPKI DER.
pub fn log_id(k: &SigningKey) -> [u8; 32] {
    Sha256::digest(spki_der(k)).into()
}

fn sign(k: &SigningKey, msg: &[u8]) -> Vec<u8> {
    let s: DerSignature = k.sign(msg);
    s.to_bytes().to_vec()
}

fn time(secs: u64) -> Time {
    Time::try_from(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)).expect("time in range")
}

/// A profile that sets exactly the names and extensions given.
struct Fixed {
    issuer: Name,
    subject: Name,
    extensions: Vec<Extension>,
}

impl BuilderProfile for Fixed {
    fn get_issuer(&self, _subject: &Name) -> Name {
        self.issuer.clone()
    }
    fn get_subject(&self) -> Name {
        self.subject.clone()
    }
    fn build_extensions(
        &self,
        _spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        _tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        Ok(self.extensions.clone())
    }
}

fn ext<T: x509_cert::der::Encode + AssociatedOid>(v: &T, critical: bool) -> Extension {
    Extension { extn_id: T::OID, critical, extn_value: OctetString::new(v.to_der().expect("encodes")).expect("fits") }
}

/// A key identifier (RFC 5280 §4.2.1.2 leaves the method open): the first 20 bytes of the
/// SPKI's SHA-256. Strict path builders (the Python client's) require one on every link.
fn key_identifier(k: &SigningKey) -> OctetString {
    OctetString::new(&Sha256::digest(spki_der(k))[..20]).expect("fits")
}

fn raw_ext(oid: &str, value: Vec<u8>) -> Extension {
    Extension {
        extn_id: ObjectIdentifier::new_unwrap(oid),
        critical: false,
        extn_value: OctetString::new(value).expect("fits"),
    }
}

fn build(
    profile: Fixed,
    serial: u32,
    from: u64,
    to: u64,
    subject_key: &SigningKey,
    issuer_key: &SigningKey,
) -> Vec<u8> {
    let spki = SubjectPublicKeyInfoOwned::from_key(subject_key.verifying_key()).expect("spki");
    let b = CertificateBuilder::new(profile, SerialNumber::from(serial), Validity::new(time(from), time(to)), spki)
        .expect("builder");
    let cert: Certificate = b.build::<_, DerSignature>(issuer_key).expect("certificate signs");
    cert.to_der().expect("certificate encodes")
}

/// A self-signed CA certificate.
pub fn ca_cert(name: &str, k: &SigningKey) -> Vec<u8> {
    let n = Name::from_str(name).expect("name");
    let profile = Fixed {
        issuer: n.clone(),
        subject: n,
        extensions: vec![
            ext(&BasicConstraints { ca: true, path_len_constraint: None }, true),
            ext(&KeyUsage(KeyUsages::KeyCertSign | KeyUsages::CRLSign), true),
            ext(&SubjectKeyIdentifier(key_identifier(k)), false),
        ],
    };
    build(profile, 1, SIGNED_AT - 86_400 * 365, SIGNED_AT + 86_400 * 365 * 10, k, k)
}

/// What a leaf certificate names.
pub struct Leaf<'a> {
    pub identity: &'a str,
    pub issuer: &'a str,
}

/// A Fulcio-style leaf: code signing, SAN e-mail, OIDC issuer extension, and an embedded SCT
/// from `ct` over the precertificate (the same TBS without the SCT list).
pub fn leaf_cert(leaf: &Leaf<'_>, k: &SigningKey, ca_name: &str, ca: &SigningKey, ct: &SigningKey) -> Vec<u8> {
    let issuer = Name::from_str(ca_name).expect("name");
    let mut extensions = vec![
        ext(&KeyUsage(KeyUsages::DigitalSignature.into()), true),
        ext(&ExtendedKeyUsage(vec![ObjectIdentifier::new_unwrap(CODE_SIGNING_OID)]), false),
        ext(&SubjectAltName(vec![GeneralName::Rfc822Name(Ia5String::new(leaf.identity).expect("ascii"))]), true),
        raw_ext(OIDC_ISSUER_OID, leaf.issuer.as_bytes().to_vec()),
        ext(&SubjectKeyIdentifier(key_identifier(k)), false),
        ext(
            &AuthorityKeyIdentifier {
                key_identifier: Some(key_identifier(ca)),
                authority_cert_issuer: None,
                authority_cert_serial_number: None,
            },
            false,
        ),
    ];
    let profile = |extensions: Vec<Extension>| Fixed { issuer: issuer.clone(), subject: Name::default(), extensions };
    let (from, to) = (SIGNED_AT, SIGNED_AT + 600);
    let precert = build(profile(extensions.clone()), 7, from, to, k, ca);
    let tbs = Certificate::from_der(&precert).expect("decodes").tbs_certificate().to_der().expect("tbs");
    extensions.push(raw_ext(SCT_LIST_OID, sct_list(&tbs, &spki_der(ca), ct, from * 1000)));
    build(profile(extensions), 7, from, to, k, ca)
}

/// The SCT list extension value: a DER OCTET STRING around the TLS `SignedCertificateTimestampList`.
fn sct_list(tbs: &[u8], issuer_spki: &[u8], ct: &SigningKey, ms: u64) -> Vec<u8> {
    let issuer_hash: [u8; 32] = Sha256::digest(issuer_spki).into();
    let mut signed = vec![0u8, 0u8]; // v1, certificate_timestamp
    signed.extend(ms.to_be_bytes());
    signed.extend(1u16.to_be_bytes()); // precert_entry
    signed.extend(issuer_hash);
    signed.extend(&u32::try_from(tbs.len()).expect("small").to_be_bytes()[1..]);
    signed.extend(tbs);
    signed.extend(0u16.to_be_bytes()); // no extensions
    let sig = sign(ct, &signed);
    let mut sct = vec![0u8];
    sct.extend(log_id(ct));
    sct.extend(ms.to_be_bytes());
    sct.extend(0u16.to_be_bytes());
    sct.extend([4u8, 3u8]); // sha256, ecdsa
    sct.extend(u16::try_from(sig.len()).expect("small").to_be_bytes());
    sct.extend(sig);
    let mut list = Vec::new();
    list.extend(u16::try_from(sct.len() + 2).expect("small").to_be_bytes());
    list.extend(u16::try_from(sct.len()).expect("small").to_be_bytes());
    list.extend(sct);
    OctetString::new(list).expect("fits").to_der().expect("encodes")
}

fn leaf_hash(d: &[u8]) -> [u8; 32] {
    Sha256::new().chain_update([0u8]).chain_update(d).finalize().into()
}

fn node(l: &[u8; 32], r: &[u8; 32]) -> [u8; 32] {
    Sha256::new().chain_update([1u8]).chain_update(l).chain_update(r).finalize().into()
}

/// RFC 6962 §2.1: the largest power of two smaller than `n`.
fn split(n: usize) -> usize {
    let mut k = 1;
    while k * 2 < n {
        k *= 2;
    }
    k
}

fn mth(leaves: &[[u8; 32]]) -> [u8; 32] {
    if leaves.len() == 1 {
        return leaves[0];
    }
    let k = split(leaves.len());
    node(&mth(&leaves[..k]), &mth(&leaves[k..]))
}

fn audit_path(m: usize, leaves: &[[u8; 32]]) -> Vec<[u8; 32]> {
    if leaves.len() == 1 {
        return Vec::new();
    }
    let k = split(leaves.len());
    if m < k {
        let mut p = audit_path(m, &leaves[..k]);
        p.push(mth(&leaves[k..]));
        p
    } else {
        let mut p = audit_path(m - k, &leaves[k..]);
        p.push(mth(&leaves[..k]));
        p
    }
}

/// The test world: who signs what.
pub struct World {
    pub ca: SigningKey,
    pub ca_name: &'static str,
    pub ct: SigningKey,
    pub rekor: SigningKey,
    pub signer: SigningKey,
}

impl World {
    pub fn new() -> Self {
        World {
            ca: key(0x11),
            ca_name: "CN=crossverify test CA,O=crossverify",
            ct: key(0x33),
            rekor: key(0x44),
            signer: key(0x22),
        }
    }

    /// A `trusted_root.json` naming this world's CA, CT log and Rekor log.
    pub fn trusted_root(&self) -> Value {
        let log = |k: &SigningKey, url: &str| {
            json!({
                "baseUrl": url,
                "hashAlgorithm": "SHA2_256",
                "publicKey": {"rawBytes": STANDARD.encode(spki_der(k)), "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                              "validFor": {"start": "2025-01-01T00:00:00Z"}},
                "logId": {"keyId": STANDARD.encode(log_id(k))}
            })
        };
        json!({
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [log(&self.rekor, "https://rekor.crossverify.invalid")],
            "certificateAuthorities": [{
                "subject": {"organization": "crossverify", "commonName": "crossverify test CA"},
                "uri": "https://fulcio.crossverify.invalid",
                "certChain": {"certificates": [{"rawBytes": STANDARD.encode(ca_cert(self.ca_name, &self.ca))}]},
                "validFor": {"start": "2025-01-01T00:00:00Z"}
            }],
            "ctlogs": [log(&self.ct, "https://ctfe.crossverify.invalid")],
            "timestampAuthorities": []
        })
    }

    /// A v0.3 bundle with a message signature over `artifact`, logged at index 2 of a
    /// five-entry log.
    pub fn bundle(&self, artifact: &[u8], leaf: &Leaf<'_>) -> Value {
        let cert = leaf_cert(leaf, &self.signer, self.ca_name, &self.ca, &self.ct);
        let digest: [u8; 32] = Sha256::digest(artifact).into();
        let sig = sign(&self.signer, artifact);
        let pem =
            x509_cert::der::pem::encode_string("CERTIFICATE", x509_cert::der::pem::LineEnding::LF, &cert).expect("pem");
        let body = json!({
            "apiVersion": "0.0.1",
            "kind": "hashedrekord",
            "spec": {
                "data": {"hash": {"algorithm": "sha256", "value": hex::encode(digest)}},
                "signature": {"content": STANDARD.encode(&sig), "publicKey": {"content": STANDARD.encode(pem)}}
            }
        });
        let body = serde_json::to_vec(&body).expect("body");
        let (index, size) = (2usize, 5usize);
        let leaves: Vec<[u8; 32]> = (0..size)
            .map(|i| if i == index { leaf_hash(&body) } else { leaf_hash(format!("other entry {i}").as_bytes()) })
            .collect();
        let root = mth(&leaves);
        let integrated = SIGNED_AT + 5;
        let global_index = 1_000 + index;
        let id = log_id(&self.rekor);
        let set_payload = format!(
            r#"{{"body":"{}","integratedTime":{integrated},"logID":"{}","logIndex":{global_index}}}"#,
            STANDARD.encode(&body),
            hex::encode(id)
        );
        let note = format!("rekor.crossverify.invalid - 1\n{size}\n{}\n", STANDARD.encode(root));
        let mut hinted = id[..4].to_vec();
        hinted.extend(sign(&self.rekor, note.as_bytes()));
        let envelope = format!("{note}\n\u{2014} rekor.crossverify.invalid {}\n", STANDARD.encode(hinted));
        json!({
            "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
            "verificationMaterial": {
                "certificate": {"rawBytes": STANDARD.encode(&cert)},
                "tlogEntries": [{
                    "logIndex": global_index.to_string(),
                    "logId": {"keyId": STANDARD.encode(id)},
                    "kindVersion": {"kind": "hashedrekord", "version": "0.0.1"},
                    "integratedTime": integrated.to_string(),
                    "inclusionPromise": {"signedEntryTimestamp": STANDARD.encode(sign(&self.rekor, set_payload.as_bytes()))},
                    "inclusionProof": {
                        "logIndex": index.to_string(),
                        "rootHash": STANDARD.encode(root),
                        "treeSize": size.to_string(),
                        "hashes": audit_path(index, &leaves).iter().map(|h| STANDARD.encode(h)).collect::<Vec<_>>(),
                        "checkpoint": {"envelope": envelope}
                    },
                    "canonicalizedBody": STANDARD.encode(&body)
                }]
            },
            "messageSignature": {
                "messageDigest": {"algorithm": "SHA2_256", "digest": STANDARD.encode(digest)},
                "signature": STANDARD.encode(&sig)
            }
        })
    }
}

//! Ed25519 keys and strict verification.
//!
//! Verification is always `verify_strict`: it refuses small-order keys and non-canonical
//! signatures, which plain `verify` and batch verification accept (crates.md §6 measured a
//! batch accepting an identity key with a zero signature). Weak keys are refused when a key is
//! loaded, so a trust store can never hold one.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use sha2::{Digest as _, Sha256};

use super::wire::{Reader, put_string};

/// The SPKI DER prefix of an Ed25519 public key (RFC 8410): the key's 32 bytes follow.
const SPKI_PREFIX: [u8; 12] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];
const SSH_ED25519: &str = "ssh-ed25519";
const PRIVATE_MAGIC: &[u8] = b"openssh-key-v1\0";
const PRIVATE_BEGIN: &str = "-----BEGIN OPENSSH PRIVATE KEY-----";
const PRIVATE_END: &str = "-----END OPENSSH PRIVATE KEY-----";

/// Why a key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not 32 bytes.
    #[error("an Ed25519 public key is 32 bytes, got {0}")]
    Length(usize),
    /// Not a point on the curve.
    #[error("not a valid Ed25519 point")]
    NotAPoint,
    /// A small-order key, under which forged signatures verify with plain `verify`.
    #[error("a weak (small-order) Ed25519 key")]
    Weak,
    /// Not an OpenSSH encoding this reader understands.
    #[error("not an OpenSSH ssh-ed25519 key: {0}")]
    OpenSsh(&'static str),
}

/// Why a signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// Not 64 bytes.
    #[error("an Ed25519 signature is 64 bytes, got {0}")]
    Length(usize),
    /// Strict verification failed.
    #[error("the Ed25519 signature does not verify (strict)")]
    Invalid,
}

/// A verified-loadable Ed25519 public key (never weak).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PublicKey {
    bytes: [u8; 32],
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({})", self.key_id())
    }
}

impl PublicKey {
    /// Loads raw key bytes.
    ///
    /// # Errors
    /// [`KeyError`] for a wrong length, a non-point or a weak key.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        let bytes: [u8; 32] = bytes.try_into().map_err(|_| KeyError::Length(bytes.len()))?;
        let key = ed25519_dalek::VerifyingKey::from_bytes(&bytes).map_err(|_| KeyError::NotAPoint)?;
        if key.is_weak() {
            return Err(KeyError::Weak);
        }
        Ok(Self { bytes })
    }

    /// The raw 32 bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.bytes
    }

    /// The SubjectPublicKeyInfo DER encoding (44 bytes).
    #[must_use]
    pub fn spki_der(&self) -> Vec<u8> {
        [&SPKI_PREFIX[..], &self.bytes].concat()
    }

    /// `sha256:` and the hex SHA-256 of the SPKI DER: the key id of the Proof-or-Stop note §4.3,
    /// also what DSSE envelopes signed here carry as `keyid`.
    #[must_use]
    pub fn key_id(&self) -> String {
        format!("sha256:{}", hex::encode(Sha256::digest(self.spki_der())))
    }

    /// Verifies `sig` over `msg` strictly.
    ///
    /// # Errors
    /// [`SignatureError`] when `sig` is not 64 bytes or does not verify.
    pub fn verify_strict(&self, msg: &[u8], sig: &[u8]) -> Result<(), SignatureError> {
        let sig: &[u8; 64] = sig.try_into().map_err(|_| SignatureError::Length(sig.len()))?;
        let key = ed25519_dalek::VerifyingKey::from_bytes(&self.bytes).expect("checked when the key was loaded");
        key.verify_strict(msg, &ed25519_dalek::Signature::from_bytes(sig)).map_err(|_| SignatureError::Invalid)
    }

    /// The SSH wire blob: `string "ssh-ed25519"`, `string key`.
    #[must_use]
    pub fn ssh_blob(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(51);
        put_string(&mut out, SSH_ED25519.as_bytes());
        put_string(&mut out, &self.bytes);
        out
    }

    /// Reads an SSH wire blob (`string "ssh-ed25519"`, `string key`, nothing after).
    ///
    /// # Errors
    /// [`KeyError`] for another key type or a malformed blob.
    pub fn from_ssh_blob(blob: &[u8]) -> Result<Self, KeyError> {
        let mut r = Reader::new(blob);
        if r.string() != Some(SSH_ED25519.as_bytes()) {
            return Err(KeyError::OpenSsh("the key type is not ssh-ed25519"));
        }
        let key = r.string().ok_or(KeyError::OpenSsh("truncated key blob"))?;
        if !r.rest().is_empty() {
            return Err(KeyError::OpenSsh("data after the key"));
        }
        Self::from_bytes(key)
    }

    /// Reads an OpenSSH public-key line: `ssh-ed25519 AAAA… [comment]`.
    ///
    /// # Errors
    /// [`KeyError`] for another key type, bad base64 or a blob that disagrees with the type.
    pub fn from_openssh(line: &str) -> Result<Self, KeyError> {
        let mut fields = line.split_ascii_whitespace();
        if fields.next() != Some(SSH_ED25519) {
            return Err(KeyError::OpenSsh("the line does not start with ssh-ed25519"));
        }
        let b64 = fields.next().ok_or(KeyError::OpenSsh("no base64 key after the key type"))?;
        let blob = STANDARD.decode(b64).map_err(|_| KeyError::OpenSsh("the key is not valid base64"))?;
        Self::from_ssh_blob(&blob)
    }

    /// The OpenSSH public-key line, with `comment` when it is not empty.
    #[must_use]
    pub fn to_openssh(&self, comment: &str) -> String {
        let line = format!("{SSH_ED25519} {}", STANDARD.encode(self.ssh_blob()));
        if comment.is_empty() { line } else { format!("{line} {comment}") }
    }

    /// The fingerprint `ssh-keygen -l` prints: `SHA256:` and unpadded base64.
    #[must_use]
    pub fn fingerprint(&self) -> String {
        format!("SHA256:{}", STANDARD_NO_PAD.encode(Sha256::digest(self.ssh_blob())))
    }
}

/// An Ed25519 signing key (its 32-byte seed).
#[derive(Clone)]
pub struct SigningKey(ed25519_dalek::SigningKey);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.public().key_id())
    }
}

impl SigningKey {
    /// The key of a 32-byte seed (test keys are derived from fixed seeds).
    #[must_use]
    pub fn from_seed(seed: [u8; 32]) -> Self {
        Self(ed25519_dalek::SigningKey::from_bytes(&seed))
    }

    /// The public half.
    #[must_use]
    pub fn public(&self) -> PublicKey {
        PublicKey { bytes: self.0.verifying_key().to_bytes() }
    }

    /// Signs `msg` (pure Ed25519, deterministic).
    #[must_use]
    pub fn sign(&self, msg: &[u8]) -> [u8; 64] {
        use ed25519_dalek::Signer as _;
        self.0.sign(msg).to_bytes()
    }

    /// Reads an unencrypted OpenSSH private key, as `ssh-keygen -t ed25519 -N ''` writes it.
    ///
    /// # Errors
    /// [`KeyError::OpenSsh`] for an encrypted key, another key type, or a malformed file.
    pub fn from_openssh_private(text: &str) -> Result<Self, KeyError> {
        let body = text
            .trim()
            .strip_prefix(PRIVATE_BEGIN)
            .and_then(|t| t.strip_suffix(PRIVATE_END))
            .ok_or(KeyError::OpenSsh("no OPENSSH PRIVATE KEY armour"))?;
        let b64: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let bytes = STANDARD.decode(b64).map_err(|_| KeyError::OpenSsh("the armoured key is not valid base64"))?;
        parse_private(&bytes)
    }

    /// The unencrypted OpenSSH private-key file. The check integers are derived from the key
    /// (ssh-keygen picks them at random) so fixtures written with it are byte-stable.
    #[must_use]
    pub fn to_openssh_private(&self, comment: &str) -> String {
        let public = self.public();
        let check = Sha256::digest(self.0.to_bytes());
        let mut private = Vec::new();
        private.extend_from_slice(&check[..4]);
        private.extend_from_slice(&check[..4]);
        put_string(&mut private, SSH_ED25519.as_bytes());
        put_string(&mut private, public.as_bytes());
        put_string(&mut private, &[&self.0.to_bytes()[..], public.as_bytes()].concat());
        put_string(&mut private, comment.as_bytes());
        let mut pad = 1u8;
        while private.len() % 8 != 0 {
            private.push(pad);
            pad += 1;
        }
        let mut out = PRIVATE_MAGIC.to_vec();
        for s in [&b"none"[..], b"none", b""] {
            put_string(&mut out, s);
        }
        out.extend_from_slice(&1u32.to_be_bytes());
        put_string(&mut out, &public.ssh_blob());
        put_string(&mut out, &private);
        let b64 = STANDARD.encode(out);
        let lines: Vec<&str> =
            b64.as_bytes().chunks(70).map(|c| std::str::from_utf8(c).expect("base64 is ASCII")).collect();
        format!("{PRIVATE_BEGIN}\n{}\n{PRIVATE_END}\n", lines.join("\n"))
    }
}

fn parse_private(bytes: &[u8]) -> Result<SigningKey, KeyError> {
    let bad = KeyError::OpenSsh;
    let mut r = Reader::new(bytes.strip_prefix(PRIVATE_MAGIC).ok_or(bad("not an openssh-key-v1 file"))?);
    let (cipher, kdf) = (r.string(), r.string());
    if cipher != Some(b"none") || kdf != Some(b"none") {
        return Err(bad("the key is encrypted (decrypt it first: ssh-keygen -p -N '')"));
    }
    r.string().ok_or(bad("truncated kdf options"))?;
    if r.u32() != Some(1) {
        return Err(bad("the file does not hold exactly one key"));
    }
    let public = PublicKey::from_ssh_blob(r.string().ok_or(bad("truncated public key"))?)?;
    let mut p = Reader::new(r.string().ok_or(bad("truncated private section"))?);
    if p.u32().is_none() || p.u32().is_none() {
        return Err(bad("truncated check integers"));
    }
    if p.string() != Some(SSH_ED25519.as_bytes()) {
        return Err(bad("the private key type is not ssh-ed25519"));
    }
    if p.string() != Some(public.as_bytes().as_slice()) {
        return Err(bad("the private section's public key differs from the file's"));
    }
    let pair = p.string().filter(|k| k.len() == 64).ok_or(bad("the private key is not 64 bytes"))?;
    let seed: [u8; 32] = pair.get(..32).and_then(|s| s.try_into().ok()).ok_or(bad("short seed"))?;
    let key = SigningKey::from_seed(seed);
    if key.public() != public || pair.get(32..) != Some(public.as_bytes().as_slice()) {
        return Err(bad("the private key does not match its public key"));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openssh_round_trips_and_key_ids_are_stable() {
        let key = SigningKey::from_seed([7; 32]);
        let text = key.to_openssh_private("test@crossverify");
        let back = SigningKey::from_openssh_private(&text).unwrap();
        assert_eq!(back.public(), key.public());
        let line = key.public().to_openssh("test@crossverify");
        assert_eq!(PublicKey::from_openssh(&line).unwrap(), key.public());
        assert!(key.public().key_id().starts_with("sha256:"));
        assert_eq!(key.public().spki_der().len(), 44);
    }

    #[test]
    fn strict_verification_refuses_weak_keys_and_tampered_messages() {
        assert_eq!(PublicKey::from_bytes(&[0; 31]), Err(KeyError::Length(31)));
        let mut identity = [0u8; 32];
        identity[0] = 1;
        assert_eq!(PublicKey::from_bytes(&identity), Err(KeyError::Weak));
        let key = SigningKey::from_seed([1; 32]);
        let sig = key.sign(b"message");
        assert!(key.public().verify_strict(b"message", &sig).is_ok());
        assert_eq!(key.public().verify_strict(b"messagf", &sig), Err(SignatureError::Invalid));
        assert_eq!(key.public().verify_strict(b"message", &sig[..63]), Err(SignatureError::Length(63)));
    }

    #[test]
    fn malformed_openssh_input_is_refused_not_panicked_on() {
        assert!(PublicKey::from_openssh("ssh-rsa AAAA").is_err());
        assert!(PublicKey::from_openssh("ssh-ed25519 !!!").is_err());
        assert!(PublicKey::from_openssh("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5").is_err());
        assert!(
            SigningKey::from_openssh_private(
                "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----"
            )
            .is_err()
        );
    }
}

//! SSH signatures (`ssh-keygen -Y sign`, OpenSSH `PROTOCOL.sshsig`): the armored blob git
//! stores in a commit's `gpgsig` header when `gpg.format=ssh`.
//!
//! Blob: `SSHSIG`, version 1, the public key, the namespace, a reserved string, the hash
//! algorithm (`sha512` or `sha256`) and the signature. The signature is over `SSHSIG` +
//! string(namespace) + string(reserved) + string(hash algorithm) + string(H(message)), so it
//! binds the namespace: a signature made for files (`-n file`) never verifies as a commit's.
//! Only `ssh-ed25519` keys are verified; any other key type is reported by name, never
//! accepted.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest as _, Sha256, Sha512};

use super::ed25519::{KeyError, PublicKey, SignatureError};

const BEGIN: &str = "-----BEGIN SSH SIGNATURE-----";
const END: &str = "-----END SSH SIGNATURE-----";
const MAGIC: &[u8] = b"SSHSIG";
/// Largest armored signature read: an Ed25519 one is about 300 bytes, an RSA-16384 one under
/// 5 KiB; anything far larger is not a signature.
pub const MAX_ARMOR_BYTES: usize = 64 << 10;

/// The kind of signature block git found in a commit, named by its armor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Armor {
    /// `-----BEGIN SSH SIGNATURE-----`.
    Ssh,
    /// `-----BEGIN PGP SIGNATURE-----` (or `PGP MESSAGE`): OpenPGP, never verified here.
    OpenPgp,
    /// `-----BEGIN SIGNED MESSAGE-----`: X.509 (gpgsm), never verified here.
    X509,
    /// Something else.
    Unknown,
}

impl Armor {
    /// The armor of a signature block, from its first non-empty line.
    #[must_use]
    pub fn of(text: &[u8]) -> Armor {
        let first = text.split(|&b| b == b'\n').map(<[u8]>::trim_ascii).find(|l| !l.is_empty()).unwrap_or_default();
        match first {
            b"-----BEGIN SSH SIGNATURE-----" => Armor::Ssh,
            b"-----BEGIN PGP SIGNATURE-----" | b"-----BEGIN PGP MESSAGE-----" => Armor::OpenPgp,
            b"-----BEGIN SIGNED MESSAGE-----" => Armor::X509,
            _ => Armor::Unknown,
        }
    }

    /// How a report names it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Armor::Ssh => "SSH",
            Armor::OpenPgp => "OpenPGP",
            Armor::X509 => "X.509",
            Armor::Unknown => "unrecognised",
        }
    }
}

/// Hash algorithm a signature applies to the message before signing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashAlg {
    /// `sha256`.
    Sha256,
    /// `sha512` (what `ssh-keygen` writes).
    Sha512,
}

/// A decoded SSH signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshSig {
    /// The signer's public key blob (`string(type) + key data`).
    pub public_key: Vec<u8>,
    /// The key type named in the blob (`ssh-ed25519`, `ssh-rsa`…).
    pub key_type: String,
    /// Namespace the signature was made for (`git` for commits).
    pub namespace: String,
    /// The reserved field (empty in every signature OpenSSH writes, but signed).
    pub reserved: Vec<u8>,
    /// Hash algorithm.
    pub hash: HashAlg,
    /// Signature algorithm named in the signature blob.
    pub sig_type: String,
    /// The raw signature bytes.
    pub signature: Vec<u8>,
}

/// Why an armored signature could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Larger than [`MAX_ARMOR_BYTES`].
    #[error("the signature block is {0} bytes, more than the {MAX_ARMOR_BYTES} an SSH signature can be")]
    TooLarge(usize),
    /// No `BEGIN`/`END SSH SIGNATURE` lines around the body.
    #[error("not an armored SSH signature (no BEGIN/END SSH SIGNATURE lines)")]
    Armor,
    /// The body is not base64.
    #[error("the armored body is not base64")]
    Base64,
    /// The blob is malformed.
    #[error("malformed SSH signature blob: {0}")]
    Blob(&'static str),
    /// A version other than 1.
    #[error("SSH signature version {0} (only version 1 exists)")]
    Version(u32),
    /// An unknown hash algorithm.
    #[error("hash algorithm {0:?} (sshsig allows sha256 and sha512)")]
    Hash(String),
}

/// Why a decoded signature does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// A key type crossverify does not verify (only `ssh-ed25519`).
    #[error("{0} keys are not verified by crossverify (only ssh-ed25519)")]
    Unsupported(String),
    /// The key in the blob is not a usable Ed25519 key.
    #[error("the signing key is unusable: {0}")]
    Key(#[from] KeyError),
    /// Made for another namespace.
    #[error("the signature is for namespace {found:?}, not {expected:?}")]
    Namespace {
        /// The namespace signed.
        found: String,
        /// The namespace required.
        expected: String,
    },
    /// The signature algorithm does not match the key.
    #[error("signature algorithm {0:?} does not match the ssh-ed25519 key")]
    Algorithm(String),
    /// The signature does not verify.
    #[error(transparent)]
    Signature(#[from] SignatureError),
}

impl VerifyError {
    /// Whether this says "crossverify cannot tell" rather than "the signature is bad".
    #[must_use]
    pub fn is_unsupported(&self) -> bool {
        matches!(self, VerifyError::Unsupported(_))
    }
}

/// Decodes an armored SSH signature (`-----BEGIN SSH SIGNATURE-----` … `-----END …`).
///
/// # Errors
/// [`ParseError`] naming what is wrong.
pub fn parse_armored(text: &[u8]) -> Result<SshSig, ParseError> {
    if text.len() > MAX_ARMOR_BYTES {
        return Err(ParseError::TooLarge(text.len()));
    }
    let text = std::str::from_utf8(text).map_err(|_| ParseError::Armor)?;
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    if lines.next() != Some(BEGIN) {
        return Err(ParseError::Armor);
    }
    let mut body = String::new();
    let mut ended = false;
    for line in lines.by_ref() {
        if line == END {
            ended = true;
            break;
        }
        body.push_str(line);
    }
    if !ended || lines.next().is_some() {
        return Err(ParseError::Armor);
    }
    let blob = STANDARD.decode(body.as_bytes()).map_err(|_| ParseError::Base64)?;
    parse_blob(&blob)
}

/// Decodes the binary signature blob.
///
/// # Errors
/// [`ParseError`] naming what is wrong.
pub fn parse_blob(blob: &[u8]) -> Result<SshSig, ParseError> {
    let mut r = Reader(blob);
    if r.take(MAGIC.len())? != MAGIC {
        return Err(ParseError::Blob("no SSHSIG magic"));
    }
    let version = r.u32()?;
    if version != 1 {
        return Err(ParseError::Version(version));
    }
    let public_key = r.string()?.to_vec();
    let key_type = utf8(Reader(&public_key).string()?)?;
    let namespace = utf8(r.string()?)?;
    let reserved = r.string()?.to_vec();
    let hash = match r.string()? {
        b"sha512" => HashAlg::Sha512,
        b"sha256" => HashAlg::Sha256,
        other => return Err(ParseError::Hash(String::from_utf8_lossy(other).into_owned())),
    };
    let mut sig = Reader(r.string()?);
    if !r.0.is_empty() {
        return Err(ParseError::Blob("bytes after the signature"));
    }
    let sig_type = utf8(sig.string()?)?;
    let signature = sig.string()?.to_vec();
    // Security-key signatures append flags and a counter; they are not ssh-ed25519 and are
    // refused as unsupported at verification, so trailing bytes only matter for plain keys.
    if !sig.0.is_empty() && !sig_type.starts_with("sk-") {
        return Err(ParseError::Blob("bytes after the signature value"));
    }
    Ok(SshSig { public_key, key_type, namespace, reserved, hash, sig_type, signature })
}

impl SshSig {
    /// The bytes the signature is over, for `message`.
    #[must_use]
    pub fn signed_data(&self, message: &[u8]) -> Vec<u8> {
        let (name, digest): (&[u8], Vec<u8>) = match self.hash {
            HashAlg::Sha512 => (b"sha512", Sha512::digest(message).to_vec()),
            HashAlg::Sha256 => (b"sha256", Sha256::digest(message).to_vec()),
        };
        let mut out = MAGIC.to_vec();
        put_string(&mut out, self.namespace.as_bytes());
        put_string(&mut out, &self.reserved);
        put_string(&mut out, name);
        put_string(&mut out, &digest);
        out
    }

    /// The signer's key, when it is an Ed25519 key.
    ///
    /// # Errors
    /// [`VerifyError::Unsupported`] for other key types, [`VerifyError::Key`] for an unusable key.
    pub fn ed25519_key(&self) -> Result<PublicKey, VerifyError> {
        if self.key_type != "ssh-ed25519" {
            return Err(VerifyError::Unsupported(self.key_type.clone()));
        }
        Ok(PublicKey::from_ssh_blob(&self.public_key)?)
    }

    /// Verifies the signature over `message` in `namespace` under the key the signature
    /// names, and returns that key. Whether the key is trusted is the caller's decision.
    ///
    /// # Errors
    /// [`VerifyError`] saying why not.
    pub fn verify(&self, message: &[u8], namespace: &str) -> Result<PublicKey, VerifyError> {
        let key = self.ed25519_key()?;
        if self.namespace != namespace {
            return Err(VerifyError::Namespace { found: self.namespace.clone(), expected: namespace.to_owned() });
        }
        if self.sig_type != "ssh-ed25519" {
            return Err(VerifyError::Algorithm(self.sig_type.clone()));
        }
        key.verify_strict(&self.signed_data(message), &self.signature)?;
        Ok(key)
    }
}

fn utf8(bytes: &[u8]) -> Result<String, ParseError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ParseError::Blob("a name is not UTF-8"))
}

fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
    // Signed fields come from a parsed blob, itself under MAX_ARMOR_BYTES.
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// The SSH wire encoding's reader (RFC 4251 §5): big-endian `uint32` lengths.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ParseError> {
        let (head, rest) = self.0.split_at_checked(n).ok_or(ParseError::Blob("truncated"))?;
        self.0 = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, ParseError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn string(&mut self) -> Result<&'a [u8], ParseError> {
        let n = usize::try_from(self.u32()?).map_err(|_| ParseError::Blob("length overflows"))?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::ed25519::SigningKey;

    fn sign(key: &SigningKey, message: &[u8], namespace: &str) -> String {
        let mut sig = SshSig {
            public_key: key.public().ssh_blob(),
            key_type: "ssh-ed25519".into(),
            namespace: namespace.into(),
            reserved: Vec::new(),
            hash: HashAlg::Sha512,
            sig_type: "ssh-ed25519".into(),
            signature: Vec::new(),
        };
        sig.signature = key.sign(&sig.signed_data(message)).to_vec();
        let mut blob = MAGIC.to_vec();
        blob.extend_from_slice(&1u32.to_be_bytes());
        put_string(&mut blob, &sig.public_key);
        put_string(&mut blob, namespace.as_bytes());
        put_string(&mut blob, b"");
        put_string(&mut blob, b"sha512");
        let mut inner = Vec::new();
        put_string(&mut inner, b"ssh-ed25519");
        put_string(&mut inner, &sig.signature);
        put_string(&mut blob, &inner);
        format!("{BEGIN}\n{}\n{END}\n", STANDARD.encode(blob))
    }

    #[test]
    fn a_signature_verifies_only_over_its_message_and_namespace() {
        let key = SigningKey::from_seed([7; 32]);
        let armored = sign(&key, b"tree 1\n", "git");
        let sig = parse_armored(armored.as_bytes()).expect("parses");
        assert_eq!(sig.verify(b"tree 1\n", "git").expect("verifies"), key.public());
        assert!(matches!(sig.verify(b"tree 2\n", "git"), Err(VerifyError::Signature(_))));
        assert!(matches!(sig.verify(b"tree 1\n", "file"), Err(VerifyError::Namespace { .. })));
    }

    #[test]
    fn malformed_blocks_are_refused_by_name() {
        assert_eq!(parse_armored(b"hello"), Err(ParseError::Armor));
        assert_eq!(parse_armored(format!("{BEGIN}\n!!\n{END}\n").as_bytes()), Err(ParseError::Base64));
        assert_eq!(
            parse_armored(format!("{BEGIN}\n{}\n{END}\n", STANDARD.encode(b"SSHSIG\0\0")).as_bytes()),
            Err(ParseError::Blob("truncated"))
        );
        assert!(matches!(parse_armored(&vec![b'a'; MAX_ARMOR_BYTES + 1]), Err(ParseError::TooLarge(_))));
    }

    proptest::proptest! {
        /// Any key signs any message verifiably, in its namespace only, and any changed byte of
        /// the message or the signature breaks it.
        #[test]
        fn signatures_bind_message_namespace_and_bytes(
            seed in proptest::prelude::any::<[u8; 32]>(),
            message in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            flip in proptest::prelude::any::<usize>(),
        ) {
            let key = SigningKey::from_seed(seed);
            let armored = sign(&key, &message, "git");
            let sig = parse_armored(armored.as_bytes()).expect("parses");
            proptest::prop_assert_eq!(sig.verify(&message, "git").ok(), Some(key.public()));
            proptest::prop_assert!(sig.verify(&message, "file").is_err());
            let mut other = message.clone();
            if other.is_empty() { other.push(0) } else { let i = flip % other.len(); other[i] ^= 1 }
            proptest::prop_assert!(sig.verify(&other, "git").is_err());
            let mut bad = sig.clone();
            let i = flip % bad.signature.len();
            bad.signature[i] ^= 0x80;
            proptest::prop_assert!(bad.verify(&message, "git").is_err());
        }
    }

    #[test]
    fn armor_is_named_from_the_first_line() {
        assert_eq!(Armor::of(b"-----BEGIN PGP SIGNATURE-----\n\nabc\n"), Armor::OpenPgp);
        assert_eq!(Armor::of(b"-----BEGIN SSH SIGNATURE-----\n"), Armor::Ssh);
        assert_eq!(Armor::of(b"-----BEGIN SIGNED MESSAGE-----\n"), Armor::X509);
        assert_eq!(Armor::of(b"junk"), Armor::Unknown);
    }
}

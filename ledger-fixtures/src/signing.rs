//! Deterministic SSH signing for fixture commits: Ed25519 test keys from fixed seeds, their
//! OpenSSH public and private key files, and `ssh-keygen -Y sign -n git` signatures.
//!
//! Written here again from the OpenSSH `PROTOCOL.sshsig` and `PROTOCOL.key` documents, not with
//! crossverify's `trust` layer, so the verifier and the minter are two independent readings of
//! the format; `tests/it/trust_commits.rs` checks that these bytes equal what `ssh-keygen -Y sign`
//! writes with the same key and that git itself accepts the signed commits.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::Signer as _;
use sha2::{Digest as _, Sha512};

/// How a fixture commit is signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Signed by the scenario's allowed key ([`TestKey::auditor`]).
    Allowed,
    /// Signed by a key the allowed-signers file does not list ([`TestKey::stranger`]).
    Unknown,
    /// Signed by the allowed key over other bytes: the signature does not verify.
    Bad,
    /// No signature header.
    Unsigned,
    /// An OpenPGP-armored signature block (not a real signature; crossverify never verifies
    /// OpenPGP and must say so).
    OpenPgp,
}

impl Mode {
    /// Parses a scenario word: `allowed`, `unknown`, `bad`, `unsigned` or `openpgp`.
    ///
    /// # Errors
    /// Any other word.
    pub fn parse(word: &str) -> Result<Mode, String> {
        Ok(match word {
            "allowed" => Mode::Allowed,
            "unknown" => Mode::Unknown,
            "bad" => Mode::Bad,
            "unsigned" => Mode::Unsigned,
            "openpgp" => Mode::OpenPgp,
            other => return Err(format!("signing mode {other:?} is not allowed, unknown, bad, unsigned or openpgp")),
        })
    }
}

/// An Ed25519 test key derived from a fixed name.
#[derive(Clone)]
pub struct TestKey {
    key: ed25519_dalek::SigningKey,
    comment: String,
}

impl std::fmt::Debug for TestKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestKey").field("comment", &self.comment).finish_non_exhaustive()
    }
}

/// The identity fixture audit commits are committed by (and the allowed-signers principal).
pub const PRINCIPAL: &str = crate::identity::EMAIL;

impl TestKey {
    /// The key whose seed is SHA-512(`crossverify fixture key: <name>`)[..32]: anyone can
    /// re-derive it, which is the point of a test key and why it must never sign anything real.
    #[must_use]
    pub fn named(name: &str) -> TestKey {
        let digest = Sha512::digest(format!("crossverify fixture key: {name}").as_bytes());
        let mut seed = [0u8; 32];
        seed.copy_from_slice(&digest[..32]);
        TestKey { key: ed25519_dalek::SigningKey::from_bytes(&seed), comment: format!("{name}@crossverify.invalid") }
    }

    /// The key the allowed-signers file of a signed fixture lists.
    #[must_use]
    pub fn auditor() -> TestKey {
        TestKey::named("auditor")
    }

    /// A key no fixture lists.
    #[must_use]
    pub fn stranger() -> TestKey {
        TestKey::named("stranger")
    }

    /// The 32-byte seed (the private key).
    #[must_use]
    pub fn seed(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// The 32-byte public key.
    #[must_use]
    pub fn public_bytes(&self) -> [u8; 32] {
        self.key.verifying_key().to_bytes()
    }

    fn public_blob(&self) -> Vec<u8> {
        let mut b = Vec::new();
        put_string(&mut b, b"ssh-ed25519");
        put_string(&mut b, &self.public_bytes());
        b
    }

    /// `ssh-ed25519 AAAA… comment`, as `ssh-keygen` writes a `.pub` file (without newline).
    #[must_use]
    pub fn public_openssh(&self) -> String {
        format!("ssh-ed25519 {} {}", STANDARD.encode(self.public_blob()), self.comment)
    }

    /// The unencrypted `openssh-key-v1` private key file, as `ssh-keygen -t ed25519 -N ''`
    /// writes it (the check integers, random there, are fixed here).
    #[must_use]
    pub fn private_openssh(&self) -> String {
        let mut private = Vec::new();
        let check = u32::from_be_bytes([0x5e, 0xed, 0xc0, 0xde]);
        private.extend_from_slice(&check.to_be_bytes());
        private.extend_from_slice(&check.to_be_bytes());
        put_string(&mut private, b"ssh-ed25519");
        put_string(&mut private, &self.public_bytes());
        let mut pair = self.key.to_bytes().to_vec();
        pair.extend_from_slice(&self.public_bytes());
        put_string(&mut private, &pair);
        put_string(&mut private, self.comment.as_bytes());
        let mut pad = 1u8;
        while private.len() % 8 != 0 {
            private.push(pad);
            pad += 1;
        }
        let mut blob = b"openssh-key-v1\0".to_vec();
        put_string(&mut blob, b"none");
        put_string(&mut blob, b"none");
        put_string(&mut blob, b"");
        blob.extend_from_slice(&1u32.to_be_bytes());
        put_string(&mut blob, &self.public_blob());
        put_string(&mut blob, &private);
        armor("OPENSSH PRIVATE KEY", &blob)
    }

    /// The armored SSH signature of `message` in `namespace` (hash `sha512`), byte for byte
    /// what `ssh-keygen -Y sign -n <namespace> -f <key>` writes (Ed25519 is deterministic).
    #[must_use]
    pub fn sshsig(&self, message: &[u8], namespace: &str) -> String {
        let mut signed = b"SSHSIG".to_vec();
        put_string(&mut signed, namespace.as_bytes());
        put_string(&mut signed, b"");
        put_string(&mut signed, b"sha512");
        put_string(&mut signed, &Sha512::digest(message));
        let sig = self.key.sign(&signed).to_bytes();
        let mut sig_blob = Vec::new();
        put_string(&mut sig_blob, b"ssh-ed25519");
        put_string(&mut sig_blob, &sig);
        let mut blob = b"SSHSIG".to_vec();
        blob.extend_from_slice(&1u32.to_be_bytes());
        put_string(&mut blob, &self.public_blob());
        put_string(&mut blob, namespace.as_bytes());
        put_string(&mut blob, b"");
        put_string(&mut blob, b"sha512");
        put_string(&mut blob, &sig_blob);
        armor("SSH SIGNATURE", &blob)
    }
}

/// The signature header value for a commit whose unsigned bytes are `payload`, or `None` for
/// [`Mode::Unsigned`].
#[must_use]
pub fn commit_signature(mode: Mode, payload: &[u8]) -> Option<String> {
    match mode {
        Mode::Allowed => Some(TestKey::auditor().sshsig(payload, "git")),
        Mode::Unknown => Some(TestKey::stranger().sshsig(payload, "git")),
        Mode::Bad => {
            // A genuine signature by the allowed key, over bytes the commit does not hold.
            let mut other = payload.to_vec();
            other.extend_from_slice(b"tampered\n");
            Some(TestKey::auditor().sshsig(&other, "git"))
        }
        Mode::Unsigned => None,
        Mode::OpenPgp => Some(
            armor("PGP SIGNATURE", &Sha512::digest(payload))
                .replace("-----BEGIN PGP SIGNATURE-----\n", "-----BEGIN PGP SIGNATURE-----\n\n"),
        ),
    }
}

/// The allowed-signers file of signed fixtures: the auditor key for the fixture committer,
/// restricted to the `git` namespace.
#[must_use]
pub fn allowed_signers() -> String {
    format!("{PRINCIPAL} namespaces=\"git\" {}\n", TestKey::auditor().public_openssh())
}

fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).expect("fixture strings are far below 4 GiB");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// PEM-like armor with base64 lines of 70 characters, as OpenSSH writes it.
fn armor(label: &str, blob: &[u8]) -> String {
    let b64 = STANDARD.encode(blob);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in b64.as_bytes().chunks(70) {
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

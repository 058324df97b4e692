//! The verifier's own list of trusted keys (out of band, never read from a bundle): each key
//! with the host it belongs to and the roles and lanes it may sign for.

use std::collections::BTreeMap;

use base64::Engine;

use super::format::{closed, string, strings};
use crate::json::{self, Value};
use crate::trust::ed25519::PublicKey;

/// The `kind` of a trust-store document.
pub const KIND: &str = "proof-or-stop/trust-store/v1";
/// Largest trust store read.
pub const MAX_BYTES: usize = 1 << 20;

/// Why a trust store or a `--trusted-key` was refused.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TrustStoreError(pub String);

/// One trusted key.
#[derive(Debug, Clone)]
pub struct TrustedKey {
    /// The key.
    pub key: PublicKey,
    /// `sha256:` + hex SHA-256 of its SPKI DER.
    pub key_id: String,
    /// The host it belongs to; `None` for a single `--trusted-key`, which names no host.
    pub host: Option<String>,
    /// Roles it may sign for; `None` means any (a single `--trusted-key`).
    pub roles: Option<Vec<String>>,
    /// Lanes it may sign for; `None` means any.
    pub lanes: Option<Vec<String>>,
}

impl TrustedKey {
    /// Whether it may sign `role` evidence for `lane` as `host`; the reason when not.
    ///
    /// # Errors
    /// A sentence naming what is not allowed.
    pub fn authorises(&self, role: &str, lane: &str, host: &str) -> Result<(), String> {
        if self.roles.as_ref().is_some_and(|r| !r.iter().any(|x| x == role)) {
            return Err(format!("key {} may not sign {role} evidence", self.key_id));
        }
        if self.lanes.as_ref().is_some_and(|l| !l.iter().any(|x| x == lane)) {
            return Err(format!("key {} may not sign for lane {lane}", self.key_id));
        }
        match &self.host {
            Some(h) if h != host => Err(format!("producer.host {host} is not the key's host {h}")),
            _ => Ok(()),
        }
    }
}

/// Trusted keys by key id.
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    keys: BTreeMap<String, TrustedKey>,
}

impl TrustStore {
    /// The key with this id.
    #[must_use]
    pub fn get(&self, key_id: &str) -> Option<&TrustedKey> {
        self.keys.get(key_id)
    }

    /// A store of one key that may sign anything as any host (`--trusted-key`).
    #[must_use]
    pub fn single(key: PublicKey) -> Self {
        let key_id = key.key_id();
        let k = TrustedKey { key, key_id: key_id.clone(), host: None, roles: None, lanes: None };
        TrustStore { keys: BTreeMap::from([(key_id, k)]) }
    }

    /// Parses a trust-store document: closed, strict, every key id recomputed, weak keys and
    /// one key id listed twice refused.
    ///
    /// # Errors
    /// [`TrustStoreError`] naming the member and the reason.
    pub fn parse(bytes: &[u8]) -> Result<Self, TrustStoreError> {
        let e = |m: String| TrustStoreError(m);
        if bytes.len() > MAX_BYTES {
            return Err(e(format!("larger than {MAX_BYTES} bytes")));
        }
        let v = json::parse(bytes).map_err(|x| e(x.to_string()))?;
        let top = closed(&v, "", &["kind", "keys"], &[]).map_err(e)?;
        if string(top, "kind", "").map_err(e)? != KIND {
            return Err(e(format!("/kind is not {KIND}")));
        }
        let Some(list) = top.get("keys").and_then(Value::as_array) else {
            return Err(e("/keys is not an array".into()));
        };
        let mut keys = BTreeMap::new();
        for (i, k) in list.iter().enumerate() {
            let at = format!("/keys/{i}");
            let m = closed(k, &at, &["keyId", "publicKey", "host", "roles", "lanes"], &[]).map_err(e)?;
            let raw = decode_key(string(m, "publicKey", &at).map_err(e)?)
                .ok_or_else(|| e(format!("{at}/publicKey is not the base64 of 32 bytes")))?;
            let key = PublicKey::from_bytes(&raw).map_err(|x| e(format!("{at}/publicKey: {x}")))?;
            let key_id = string(m, "keyId", &at).map_err(e)?.to_owned();
            if key.key_id() != key_id {
                return Err(e(format!("{at}/keyId {key_id} is not the key's id {}", key.key_id())));
            }
            let roles = strings(m, "roles", &at).map_err(e)?;
            if let Some(r) = roles.iter().find(|r| !ROLES.contains(&r.as_str())) {
                return Err(e(format!("{at}/roles {r:?} is not one of {ROLES:?}")));
            }
            let t = TrustedKey {
                key,
                key_id: key_id.clone(),
                host: Some(string(m, "host", &at).map_err(e)?.to_owned()),
                roles: Some(roles),
                lanes: Some(strings(m, "lanes", &at).map_err(e)?),
            };
            if keys.insert(key_id.clone(), t).is_some() {
                return Err(e(format!("{at}: key {key_id} is listed twice (one key claimed by two entries)")));
            }
        }
        Ok(TrustStore { keys })
    }
}

/// The roles a key may be trusted for (design note §4.3): a closed set, so a misspelt role
/// is refused at load instead of silently authorising nothing.
pub const ROLES: [&str; 3] = ["done-evidence", "review-verdict", "host-verdict"];

/// A raw 32-byte key from base64 (standard or URL-safe, padded or not) or 64 hex digits.
#[must_use]
pub fn decode_key(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    if text.len() == 64
        && let Ok(b) = hex::decode(text)
    {
        return Some(b);
    }
    crate::trust::dsse::decode_base64(text).filter(|b| b.len() == 32)
}

/// `--trusted-key`: an OpenSSH `ssh-ed25519 AAAA…` line, 64 hex digits, or base64 of the raw
/// 32-byte key.
///
/// # Errors
/// [`TrustStoreError`] when it is none of these, or not a valid strong Ed25519 key.
pub fn parse_trusted_key(text: &str) -> Result<PublicKey, TrustStoreError> {
    if text.trim_start().starts_with("ssh-ed25519 ") {
        return PublicKey::from_openssh(text.trim()).map_err(|x| TrustStoreError(format!("--trusted-key: {x}")));
    }
    let raw = decode_key(text).ok_or_else(|| {
        TrustStoreError("--trusted-key is not an ssh-ed25519 line, 64 hex digits or the base64 of 32 bytes".into())
    })?;
    PublicKey::from_bytes(&raw).map_err(|x| TrustStoreError(format!("--trusted-key: {x}")))
}

/// The standard base64 of `bytes` (what the generator and the store writer use).
#[must_use]
pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trusted_key_reads_in_three_spellings() {
        let k = crate::trust::ed25519::SigningKey::from_seed([9; 32]).public();
        for text in [hex::encode(k.as_bytes()), b64(k.as_bytes()), k.to_openssh("ci")] {
            assert_eq!(parse_trusted_key(&text).expect("reads").key_id(), k.key_id(), "{text}");
        }
        assert!(parse_trusted_key("AAAA").is_err());
        assert!(parse_trusted_key(&"00".repeat(32)).is_err(), "a weak key is refused");
    }

    #[test]
    fn a_store_refuses_a_key_id_that_is_not_the_keys() {
        let k = crate::trust::ed25519::SigningKey::from_seed([9; 32]).public();
        let doc = |id: &str| {
            format!(
                r#"{{"kind":"{KIND}","keys":[{{"keyId":"{id}","publicKey":"{}","host":"h","roles":[],"lanes":[]}}]}}"#,
                b64(k.as_bytes())
            )
        };
        assert!(TrustStore::parse(doc(&k.key_id()).as_bytes()).is_ok());
        let e = TrustStore::parse(doc("sha256:00").as_bytes()).expect_err("wrong id");
        assert!(e.0.contains("is not the key's id"), "{e}");
        let twice = format!(
            r#"{{"kind":"{KIND}","keys":[{0},{0}]}}"#,
            format!(
                r#"{{"keyId":"{}","publicKey":"{}","host":"h","roles":[],"lanes":[]}}"#,
                k.key_id(),
                b64(k.as_bytes())
            )
        );
        assert!(TrustStore::parse(twice.as_bytes()).expect_err("twice").0.contains("listed twice"));
    }

    #[test]
    fn a_store_refuses_a_role_outside_the_closed_set() {
        let k = crate::trust::ed25519::SigningKey::from_seed([9; 32]).public();
        let doc = |role: &str| {
            format!(
                r#"{{"kind":"{KIND}","keys":[{{"keyId":"{}","publicKey":"{}","host":"h","roles":["{role}"],"lanes":[]}}]}}"#,
                k.key_id(),
                b64(k.as_bytes())
            )
        };
        assert!(TrustStore::parse(doc("review-verdict").as_bytes()).is_ok());
        let e = TrustStore::parse(doc("reviewer").as_bytes()).expect_err("unknown role");
        assert!(e.0.contains("/keys/0/roles \"reviewer\" is not one of"), "{e}");
    }
}

//! Proof-or-Stop properties beyond the corpus: no edit of the signed payload after signing
//! reaches a payload field (the verifier bug "pre-verification field use"), and `ok` only
//! comes from the authentic bytes.

mod support;

use base64::Engine;
use crossverify::git::Repo;
use crossverify::proof_or_stop::live::Sources;
use crossverify::proof_or_stop::trust_store::TrustStore;
use crossverify::proof_or_stop::verify::{self, Request};
use crossverify::proof_or_stop::{Reason, reason::Step};
use proptest::prelude::*;
use serde_json::Value;

const STD: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

fn pos(rel: &str) -> std::path::PathBuf {
    support::root().join("test-vectors/proof-or-stop").join(rel)
}

fn store() -> TrustStore {
    TrustStore::parse(&std::fs::read(pos("keys/trust-store.json")).expect("store")).expect("valid store")
}

fn sources() -> Sources {
    Sources {
        policy: Some(pos("config/policy.json")),
        command_set: Some(pos("config/command-set.json")),
        scope: Some(pos("config/scope.json")),
        dir: None,
    }
}

fn golden() -> (Value, Vec<u8>) {
    let b: Value = serde_json::from_slice(&std::fs::read(pos("golden/bundle.json")).expect("bundle")).expect("JSON");
    let payload = std::fs::read(pos("golden/payload.json")).expect("payload");
    (b, payload)
}

fn run(bundle: &Value) -> (Reason, Option<Step>) {
    let repo = Repo::open(&pos("repos/golden.git")).expect("repo");
    let (store, sources) = (store(), sources());
    let req = Request { store: &store, repo: &repo, rev: "HEAD", sources: &sources, story: None };
    let out = verify::bundle(&serde_json::to_vec(bundle).expect("json"), &req).expect("live state");
    (out.reason(), out.failed_step())
}

#[test]
fn the_golden_bundle_is_ok_after_every_step() {
    let (b, _) = golden();
    assert_eq!(run(&b), (Reason::Ok, None));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any change of the payload bytes after signing stops at B3, whatever field it touches.
    #[test]
    fn payload_edits_after_signing_stop_at_the_signature(at in 0usize..1913, byte in any::<u8>()) {
        let (mut b, mut payload) = golden();
        prop_assume!(payload[at] != byte);
        payload[at] = byte;
        b["dsseEnvelope"]["payload"] = STD.encode(&payload).into();
        prop_assert_eq!(run(&b), (Reason::SignatureInvalid, Some(Step::B3)));
    }

    /// Truncating or extending the payload after signing stops at B3 too.
    #[test]
    fn payload_length_changes_stop_at_the_signature(cut in 0usize..1913, extra in proptest::collection::vec(any::<u8>(), 0..8)) {
        let (mut b, payload) = golden();
        let mut p = payload[..cut].to_vec();
        p.extend(extra);
        prop_assume!(p != payload);
        b["dsseEnvelope"]["payload"] = STD.encode(&p).into();
        prop_assert_eq!(run(&b), (Reason::SignatureInvalid, Some(Step::B3)));
    }
}

//! A default build (without the `sigstore` feature) never passes a receipt wrapped in a
//! Sigstore bundle: all seven `CV-T2xx` checks are `untested` with the reason, and the run is
//! inconclusive (exit 3), even with a trusted root and an identity given.
#![cfg(not(feature = "sigstore"))]

use crate::sigstore_ledger as ledger;
use crate::support;

use serde_json::Value;

#[test]
fn without_the_feature_a_wrapped_receipt_is_untested() {
    let tmp = tempfile::tempdir().expect("tmp");
    // The bytes are never read in this build: any bundle will do, here the real npm one.
    let bundle =
        std::fs::read(support::root().join("test-vectors/sigstore/real/npm_slsa_bundle_v03.json")).expect("bundle");
    let dir = ledger::wrapped_ledger(tmp.path(), |_| bundle);
    let root = support::root().join("test-vectors/sigstore/real/sigstore_trusted_root.json");
    let out = support::crossverify()
        .args(["receipt", &format!("{}/receipt.json", ledger::CYCLE), "--format", "json"])
        .arg("--science")
        .arg(dir.join("science"))
        .arg("--audit")
        .arg(dir.join("audit"))
        .arg("--trusted-root")
        .arg(&root)
        .args(["--certificate-identity", "a@b.invalid", "--certificate-oidc-issuer", "https://issuer.invalid"])
        .output()
        .expect("crossverify runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("report JSON");
    let t2: Vec<&Value> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["code"].as_str().is_some_and(|c| c.starts_with("CV-T2")))
        .collect();
    assert_eq!(t2.len(), 7, "{t2:?}");
    for r in &t2 {
        assert_eq!(r["outcome"], "untested", "{r}");
        assert!(r["message"].as_str().is_some_and(|m| m.contains("built without the sigstore feature")), "{r}");
    }
    assert_eq!(out.status.code(), Some(3), "untested is never a pass");
}

//! The four schema-2 ledgers minted by the CrossAudit product itself (`test-vectors/real/`):
//! each must verify, with the reference verifier's admission readiness and shortfalls, and
//! our canonical-JSON digest must equal the one the product computed.

use crate::support;

use serde_json::Value;

#[test]
fn product_ledgers_verify_with_the_reference_decisions() {
    let base = support::root().join("test-vectors/real/crossaudit/schema2-ledgers");
    let mut cases: Vec<_> = std::fs::read_dir(&base)
        .expect("schema2-ledgers")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert_eq!(cases.len(), 4);
    for case in cases {
        let expected: Value =
            serde_json::from_slice(&std::fs::read(case.join("expected.json")).expect("expected.json")).expect("json");
        let name = expected["case"].as_str().expect("case");
        let tmp = tempfile::tempdir().expect("tempdir");
        support::clone_bundle(&case.join("science.bundle"), &tmp.path().join("science"));
        let mut args = vec!["receipt".to_owned(), expected["receipt_path"].as_str().expect("path").to_owned()];
        args.extend(["--science".into(), tmp.path().join("science").display().to_string()]);
        if case.join("audit.bundle").exists() {
            support::clone_bundle(&case.join("audit.bundle"), &tmp.path().join("audit"));
            args.extend(["--audit".into(), tmp.path().join("audit").display().to_string()]);
        }
        args.extend(["--expect-sha".into(), expected["expect_sha"].as_str().expect("sha").to_owned()]);
        args.extend(["--expect-repo".into(), expected["expect_repo"].as_str().expect("repo").to_owned()]);
        let out = support::crossverify().args(&args).args(["--format", "json"]).output().expect("run");
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        // The reference says "verified": every binding holds.
        assert_eq!(
            report["outcome"],
            "verified",
            "{name}: {:#?}",
            report["results"].as_array().map(|r| r.iter().filter(|x| x["outcome"] == "failed").collect::<Vec<_>>())
        );
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(report["admission"]["ready"], expected["admission_ready"], "{name}");
        let ours: Vec<&str> = report["admission"]["shortfalls"]
            .as_array()
            .expect("shortfalls")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for s in expected["admission_shortfalls"].as_array().expect("shortfalls") {
            let s = s.as_str().expect("string");
            assert!(ours.contains(&s), "{name}: reference shortfall {s:?} missing from {ours:?}");
        }
        assert_eq!(
            report["inputs"]["receiptCanonicalSha256"], expected["receipt_canonical_sha256_python"],
            "{name}: canonical digest"
        );
        assert_eq!(report["inputs"]["receiptFileSha256"], expected["receipt_file_sha256"], "{name}: file digest");
        // And the whole ledger verifies.
        let mut ledger = vec!["ledger".to_owned()];
        if case.join("audit.bundle").exists() {
            ledger.extend([
                "--audit".into(),
                tmp.path().join("audit").display().to_string(),
                "--science".into(),
                tmp.path().join("science").display().to_string(),
            ]);
        } else {
            ledger.extend(["--audit".into(), tmp.path().join("science").display().to_string()]);
        }
        let out = support::crossverify().args(&ledger).args(["--format", "json"]).output().expect("run");
        assert_eq!(out.status.code(), Some(0), "{name} ledger: {}", String::from_utf8_lossy(&out.stdout));
    }
}

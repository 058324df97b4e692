//! Proof-or-Stop properties beyond the corpus: no edit of the signed payload after signing
//! reaches a payload field (the verifier bug "pre-verification field use"), and `ok` only
//! comes from the authentic bytes.

use crate::support;

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

/// Runs the binary from the corpus directory; (exit code, stderr).
fn cli(args: &[&str]) -> (Option<i32>, String) {
    let out = support::crossverify().args(args).current_dir(pos("")).output().expect("runs");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

const LIVE: [&str; 6] =
    ["--policy", "config/policy.json", "--command-set", "config/command-set.json", "--scope", "config/scope.json"];

/// Unusable inputs are exit 2 with a message naming the file and the reason, never a reason
/// code and never `ok`.
#[test]
fn unusable_inputs_are_exit_2_naming_the_file() {
    let store = ["--trust-store", "keys/trust-store.json"];
    let bundle = |b: &str, extra: &[&str]| {
        let mut a = vec!["bundle", b, "--repo", "repos/golden.git"];
        a.extend(extra);
        cli(&a)
    };
    let (code, err) = bundle("bundles/nope.json", &[&store[..], &LIVE[..]].concat());
    assert_eq!(code, Some(2));
    assert!(err.contains("bundles/nope.json"), "{err}");
    let tmp = tempfile::tempdir().expect("tmp");
    let link = tmp.path().join("link.json");
    std::os::unix::fs::symlink(pos("golden/bundle.json"), &link).expect("symlink");
    let (code, err) = bundle(link.to_str().expect("utf-8"), &[&store[..], &LIVE[..]].concat());
    assert_eq!(code, Some(2));
    assert!(err.contains("symbolic link"), "{err}");
    // The golden repository commits no policy: the live state is missing, never assumed.
    let (code, err) = bundle("golden/bundle.json", &[&store[..], &LIVE[2..]].concat());
    assert_eq!(code, Some(2));
    assert!(err.contains("no live policy.json"), "{err}");
    let bad = tmp.path().join("store.json");
    std::fs::write(&bad, br#"{"kind":"proof-or-stop/trust-store/v1","keys":[],"extra":1}"#).expect("write");
    let (code, err) =
        bundle("golden/bundle.json", &[&["--trust-store", bad.to_str().expect("utf-8")][..], &LIVE[..]].concat());
    assert_eq!(code, Some(2));
    assert!(err.contains("store.json") && err.contains("/extra"), "{err}");
    let (code, err) = cli(&[&["floor", "config", "--repo", "repos/golden.git"][..], &store[..], &LIVE[..]].concat());
    assert_eq!(code, Some(2));
    assert!(err.contains("findings.json"), "{err}");
}

/// `--rounds`/`--per-round` can raise the paper's 3×2 floor, never lower it: a lower value is
/// a usage error naming the floor; a `findings.json` with a round below 1 or a resolution
/// action outside the closed set stops the run naming the file.
#[test]
fn the_floor_cannot_be_lowered_and_rounds_start_at_1() {
    let store = ["--trust-store", "keys/trust-store.json"];
    let floor = |dir: &str, extra: &[&str]| {
        cli(&[&["floor", dir, "--repo", "repos/golden.git"][..], &store[..], &LIVE[..], extra].concat())
    };
    for (flag, v) in [("--rounds", "2"), ("--rounds", "0"), ("--per-round", "1")] {
        let (code, err) = floor("floor/full-quorum", &[flag, v]);
        assert_eq!(code, Some(2), "{flag} {v}");
        assert!(err.contains(flag) && err.contains("never lowered"), "{err}");
    }
    assert_eq!(floor("floor/full-quorum", &["--rounds", "3", "--per-round", "2"]).0, Some(0));
    assert_eq!(floor("floor/full-quorum", &["--rounds", "4"]).0, Some(1), "raised: three rounds are not four");
    let tmp = tempfile::tempdir().expect("tmp");
    let finding = |extra: &str| {
        format!(
            r#"{{"kind":"proof-or-stop/findings/v1","storyId":"B-0001","phase":"review","findings":[{{"id":"F-001","lane":"review-a","severity":"low","status":"resolved",{extra}}}]}}"#
        )
    };
    for (name, body, why) in [
        ("filed-0", finding(r#""filedRound":0"#), "/findings/0/filedRound 0 is not a round"),
        (
            "resolved-0",
            finding(r#""filedRound":1,"resolution":[{"round":0,"action":"resolve"}]"#),
            "/findings/0/resolution/0/round 0 is not a round",
        ),
        (
            "action",
            finding(r#""filedRound":1,"resolution":[{"round":1,"action":"waive"}]"#),
            "/findings/0/resolution/0/action \"waive\" is not one of",
        ),
    ] {
        let d = tmp.path().join(name);
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(d.join("findings.json"), body).expect("write");
        let (code, err) = floor(d.to_str().expect("utf-8"), &[]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains("findings.json") && err.contains(why), "{name}: {err}");
    }
}

/// The trusted key may also be given alone, in hex; the report carries the reason at the top
/// level and the live identities.
#[test]
fn a_single_trusted_key_verifies_the_golden_bundle() {
    let out = support::crossverify()
        .args(["--format", "json", "bundle", "golden/bundle.json", "--repo", "repos/golden.git", "--trusted-key"])
        .arg("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        .args(LIVE)
        .current_dir(pos(""))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["reason"], "ok");
    assert_eq!(r["bundle"]["assurance"], "local-key-single-host");
    assert_eq!(r["identities"]["live"]["headHash"], "52751bb09a2fbf46e7ff05f0469f0a3c74467933");
    assert_eq!(r["inputs"]["identities"]["repo"]["commit"], "52751bb09a2fbf46e7ff05f0469f0a3c74467933");
}

/// Same inputs, same bytes, any thread count, for both commands.
#[test]
fn output_is_the_same_for_any_thread_count() {
    let store = ["--trust-store", "keys/trust-store.json"];
    let runs: [Vec<&str>; 2] = [
        [&["bundle", "bundles/02-stale-material-hash.json", "--repo", "repos/golden.git"][..], &store[..], &LIVE[..]]
            .concat(),
        [&["floor", "floor/severities-round-3", "--repo", "repos/golden.git"][..], &store[..], &LIVE[..]].concat(),
    ];
    for args in runs {
        let out = |threads: &str| {
            support::crossverify()
                .args(["--format", "json", "--threads", threads])
                .args(&args)
                .current_dir(pos(""))
                .output()
                .expect("runs")
                .stdout
        };
        assert_eq!(out("1"), out("4"), "{args:?}");
    }
}

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

/// A story directory copied from a floor scenario, with the live configuration beside it (as
/// the floor reads it from its evidence directory); `forged` replaces every signature of its
/// review verdicts by 64 zero bytes.
fn story_from(scenario: &str, dst: &std::path::Path, forged: bool) {
    support::copy_dir(&pos("floor").join(scenario), dst);
    for f in ["policy.json", "command-set.json", "scope.json"] {
        std::fs::copy(pos("config").join(f), dst.join(f)).expect("config");
    }
    if !forged {
        return;
    }
    for e in std::fs::read_dir(dst.join("verdicts")).expect("verdicts") {
        let p = e.expect("entry").path();
        let mut v: Value = serde_json::from_slice(&std::fs::read(&p).expect("read")).expect("JSON");
        for s in v["dsseEnvelope"]["signatures"].as_array_mut().expect("signatures") {
            s["sig"] = STD.encode([0u8; 64]).into();
        }
        std::fs::write(&p, serde_json::to_vec_pretty(&v).expect("JSON")).expect("write");
    }
}

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().expect("utf-8")
}

const GIVEN: [&str; 4] = ["--repo", "repos/golden.git", "--trust-store", "keys/trust-store.json"];

/// A directory of stories whose review verdicts carry all-zero signatures is verified by the
/// floor and the done gate, never only summarised: `verify` without the repository and the
/// trust store is refused (exit 2) with the floor command, and with them fails (exit 1) as
/// `floor` does on each story and on the directory; one authentic story beside a forged one
/// buys nothing, and the authentic stories alone verify (exit 0).
#[test]
fn verify_runs_the_floor_over_stories_with_signed_evidence() {
    let tmp = tempfile::tempdir().expect("tmp");
    let forged = tmp.path().join("forged");
    story_from("full-quorum", &forged.join("B-0001"), true);
    let (code, err) = cli(&["verify", path_str(&forged)]);
    assert_eq!(code, Some(2), "{err}");
    let wanted = format!("`crossverify floor {} --repo <REPO> --trust-store <TRUST-STORE>`", forged.display());
    assert!(err.contains(&wanted) && err.contains("--repo and --trust-store"), "{err}");
    let with = |cmd: &str, dir: &std::path::Path| cli(&[&[cmd, path_str(dir)][..], &GIVEN[..]].concat());
    assert_eq!(with("floor", &forged.join("B-0001")).0, Some(1));
    assert_eq!(with("floor", &forged).0, Some(1), "{}", with("floor", &forged).1);
    assert_eq!(with("verify", &forged).0, Some(1), "{}", with("verify", &forged).1);
    let mixed = tmp.path().join("mixed");
    story_from("full-quorum", &mixed.join("a"), false);
    story_from("full-quorum", &mixed.join("b"), true);
    assert_eq!(with("verify", &mixed).0, Some(1), "one authentic story does not cover a forged one");
    let authentic = tmp.path().join("authentic");
    story_from("full-quorum", &authentic.join("a"), false);
    story_from("full-quorum", &authentic.join("b"), false);
    assert_eq!(with("verify", &authentic), (Some(0), with("verify", &authentic).1));
    assert_eq!(with("floor", &authentic).0, Some(0));
}

/// Signed records are signed evidence wherever they lie in a story: a receipt bundle beside
/// `findings.json`, with no `verdicts/`, makes the story evidence for the floor (which it then
/// does not meet), not statistics; the floor names the signed record it does not read.
#[test]
fn a_signed_receipt_beside_findings_is_evidence_for_the_floor() {
    let tmp = tempfile::tempdir().expect("tmp");
    let story = tmp.path().join("B-0001");
    story_from("full-quorum", &story, false);
    std::fs::remove_dir_all(story.join("verdicts")).expect("rm");
    std::fs::create_dir(story.join("receipts")).expect("mkdir");
    std::fs::copy(pos("golden/bundle.json"), story.join("receipts/done.json")).expect("receipt");
    let (code, err) = cli(&["verify", path_str(&story)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("`crossverify floor {} --repo <REPO>", story.display())), "{err}");
    let out = support::crossverify()
        .args(["--format", "json", "verify", path_str(&story)])
        .args(GIVEN)
        .current_dir(pos(""))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let unread = r["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|x| x["code"] == "CV-P103" && x["subject"] == "receipts/done.json")
        .unwrap_or_else(|| panic!("the receipt is named: {r}"));
    assert_eq!(unread["outcome"], "untested", "{unread}");
}

/// Stories holding only unsigned `findings.json` stay statistics, but `verify` does not call
/// them verified: the floor was not run, so the run is inconclusive (exit 3) and says that
/// nothing signed was verified. `stats` on the same directory still gives its figures (exit 0).
#[test]
fn unsigned_findings_alone_are_not_verified_evidence() {
    let out = support::crossverify()
        .args(["--format", "json", "verify", "stats"])
        .current_dir(pos(""))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["outcome"], "inconclusive");
    let floor = r["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|x| x["code"] == "CV-P101")
        .unwrap_or_else(|| panic!("the floor's result: {r}"));
    assert_eq!(floor["outcome"], "untested");
    assert!(floor["message"].as_str().is_some_and(|m| m.contains("no signed")), "{floor}");
    assert_eq!(r["stats"]["cycles"], 3, "the figures are still there");
    assert_eq!(cli(&["stats", "stats"]).0, Some(0));
}

//! Signed, replayable reports: `--sign-report`/`--attestation` and `crossverify attest`, a
//! replay that matches, one whose inputs changed and one whose inputs moved; the envelopes are
//! checked by securesystemslib (an oracle we did not write) and one it signs is checked by
//! `attest`. The envelopes the vectors use (`test-vectors/attest/`) are made here:
//! `CROSSVERIFY_UPDATE_ATTEST=1 cargo test --test it attest::` rewrites them.

use crate::support;
use crate::tools;

use std::path::{Path, PathBuf};

use crossverify::trust::dsse::{Envelope, IN_TOTO_PAYLOAD_TYPE};
use crossverify::trust::ed25519::SigningKey;
use crossverify_fixtures::signing::TestKey;
use serde_json::Value;

fn signer() -> TestKey {
    TestKey::named("report-signer")
}

fn write_keys(dir: &Path) -> (PathBuf, PathBuf) {
    let (private, public) = (dir.join("signer"), dir.join("signer.pub"));
    std::fs::write(&private, signer().private_openssh()).expect("write key");
    std::fs::write(&public, format!("{}\n", signer().public_openssh())).expect("write key");
    (private, public)
}

fn signing_key() -> SigningKey {
    SigningKey::from_openssh_private(&signer().private_openssh()).expect("the fixture key parses")
}

/// Runs crossverify in `cwd` with `args` + `--format json`; (exit code, report).
fn run(cwd: &Path, args: &[&str]) -> (i32, Value) {
    let out = support::crossverify().current_dir(cwd).args(args).args(["--format", "json"]).output().expect("runs");
    let code = out.status.code().expect("exit code");
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no report from {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
    (code, report)
}

fn outcome(report: &Value, code: &str) -> String {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["code"] == code)
        .map(|r| format!("{} {}", r["outcome"].as_str().unwrap_or(""), r["message"].as_str().unwrap_or("")))
        .unwrap_or_default()
}

/// Signs `explain CODE`, run in `cwd`, with `key` into `att`.
fn sign_explain(cwd: &Path, code: &str, key: &Path, att: &Path) {
    let out = support::crossverify()
        .current_dir(cwd)
        .args(["explain", code, "--sign-report"])
        .arg(key)
        .arg("--attestation")
        .arg(att)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn payload(envelope: &Path) -> Value {
    let env = Envelope::parse(&std::fs::read(envelope).expect("read envelope")).expect("envelope");
    serde_json::from_slice(&env.payload).expect("payload JSON")
}

#[test]
fn a_signed_ledger_report_replays_until_its_inputs_change_or_move() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("demo-signed", tmp.path());
    let (key, public) = write_keys(tmp.path());
    let att = tmp.path().join("ledger.dsse.json");
    let args = [
        "ledger",
        "--audit",
        "demo-signed/audit",
        "--science",
        "demo-signed/science",
        "--allowed-signers",
        "demo-signed/allowed_signers",
    ];
    let mut signed_args: Vec<&str> = args.to_vec();
    let (k, a) = (key.to_string_lossy().into_owned(), att.to_string_lossy().into_owned());
    signed_args.extend(["--sign-report", &k, "--attestation", &a, "--threads", "1"]);
    let (code, printed) = run(tmp.path(), &signed_args);
    assert_eq!(code, 0, "{printed}");
    let statement = payload(&att);
    assert_eq!(statement["predicate"], printed, "the printed report is the signed predicate");
    assert_eq!(statement["predicate"]["inputs"]["invocation"], serde_json::json!(args));
    let head = printed["inputs"]["auditHead"].as_str().expect("auditHead").to_owned();
    assert_eq!(statement["subject"][0], serde_json::json!({"name": "auditHead", "digest": {"gitCommit": head}}));

    let p = public.to_string_lossy().into_owned();
    let (code, r) = run(tmp.path(), &["attest", &a, "--trusted-key", &p, "--replay"]);
    assert_eq!(code, 0, "{r}");
    assert!(outcome(&r, "CV-T103").starts_with("passed"), "{r}");

    // The audit branch moves back one commit: the replay verifies another head.
    let parent = support::git(&dir.join("audit"), &["rev-parse", "HEAD~1"]);
    support::git(&dir.join("audit"), &["update-ref", "refs/heads/main", String::from_utf8_lossy(&parent).trim()]);
    let (code, r) = run(tmp.path(), &["attest", &a, "--trusted-key", &p, "--replay"]);
    assert_eq!(code, 1, "{r}");
    let t103 = outcome(&r, "CV-T103");
    assert!(t103.starts_with("failed the replayed report differs first at /predicate/"), "{t103}");

    // The inputs moved: the replay cannot run, and says which path it needs and where it
    // looked (exit 2, issue 47), never a verdict on the signed report.
    std::fs::rename(&dir, tmp.path().join("elsewhere")).expect("move");
    let out = support::crossverify()
        .current_dir(tmp.path())
        .args(["attest", &a, "--trusted-key", &p, "--replay"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("needs `demo-signed/audit`") && err.contains("attestation's directory"), "{err}");
}

#[test]
fn a_wrong_key_or_a_changed_byte_fails_the_signature() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (key, _) = write_keys(tmp.path());
    let att = tmp.path().join("a.json");
    sign_explain(tmp.path(), "CV-T101", &key, &att);
    let stranger = tmp.path().join("stranger.pub");
    std::fs::write(&stranger, TestKey::stranger().public_openssh()).expect("write");
    let (code, r) = run(tmp.path(), &["attest", &att.to_string_lossy(), "--trusted-key", &stranger.to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(outcome(&r, "CV-T101").starts_with("failed"), "{r}");
    let mut env: Value = serde_json::from_slice(&std::fs::read(&att).expect("read")).expect("json");
    let p = env["payload"].as_str().expect("payload").to_owned();
    env["payload"] = Value::String(format!("{}{}", if p.starts_with('e') { "f" } else { "e" }, &p[1..]));
    std::fs::write(&att, env.to_string()).expect("write");
    let public = tmp.path().join("signer.pub");
    let (code, r) = run(tmp.path(), &["attest", &att.to_string_lossy(), "--trusted-key", &public.to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(outcome(&r, "CV-T101").starts_with("failed"), "{r}");
}

fn python() -> Option<PathBuf> {
    let p = support::root().join("target/oracle/trust/bin/python");
    let found = p.is_file().then_some(p).filter(|p| {
        std::process::Command::new(p).args(["-c", "import securesystemslib"]).status().is_ok_and(|s| s.success())
    });
    tools::require("securesystemslib (target/oracle/trust, installed by .ci/test)", found)
}

const ORACLE: &str = r#"
import base64, json, sys
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey, CryptoSigner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
mode, keyid, pub_hex = sys.argv[1], sys.argv[2], sys.argv[3]
key = SSlibKey(keyid, "ed25519", "ed25519", {"public": pub_hex})
if mode == "verify":
    env = Envelope.from_dict(json.load(open(sys.argv[4])))
    try:
        env.verify([key], 1)
        print("verified")
    except Exception as e:
        print("refused:", type(e).__name__, e)
else:
    seed = bytes.fromhex(sys.argv[4])
    signer = CryptoSigner(Ed25519PrivateKey.from_private_bytes(seed), key)
    env = Envelope(payload=open(sys.argv[5], "rb").read(), payload_type="application/vnd.in-toto+json", signatures={})
    env.sign(signer)
    json.dump(env.to_dict(), open(sys.argv[6], "w"))
    print("signed")
"#;

#[test]
fn securesystemslib_verifies_our_envelopes_and_attest_verifies_its_own() {
    let Some(py) = python() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let (key, public) = write_keys(tmp.path());
    let att = tmp.path().join("a.json");
    sign_explain(tmp.path(), "CV-T102", &key, &att);
    let sk = signing_key();
    let pk = sk.public();
    let script = tmp.path().join("oracle.py");
    std::fs::write(&script, ORACLE).expect("write script");
    let oracle = |args: &[&str]| {
        let out = std::process::Command::new(&py).arg(&script).args(args).output().expect("python runs");
        assert!(out.status.success(), "oracle failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let (id, hex) = (pk.key_id(), hex::encode(pk.as_bytes()));
    assert_eq!(oracle(&["verify", &id, &hex, &att.to_string_lossy()]), "verified");
    // A tampered payload is refused by the oracle too.
    let env: Value = serde_json::from_slice(&std::fs::read(&att).expect("read")).expect("json");
    let tampered = Envelope {
        payload: b"{\"_type\":\"x\"}".to_vec(),
        ..Envelope::parse(&std::fs::read(&att).expect("read")).expect("parse")
    };
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, tampered.to_json()).expect("write");
    assert!(oracle(&["verify", &id, &hex, &bad.to_string_lossy()]).starts_with("refused"));
    // securesystemslib signs our statement; attest accepts its envelope.
    let statement = tmp.path().join("statement.json");
    let payload = Envelope::parse(&std::fs::read(&att).expect("read")).expect("parse").payload;
    std::fs::write(&statement, &payload).expect("write");
    let theirs = tmp.path().join("theirs.json");
    let seed_hex = hex::encode(signer().seed());
    assert_eq!(
        oracle(&["sign", &id, &hex, &seed_hex, &statement.to_string_lossy(), &theirs.to_string_lossy()]),
        "signed"
    );
    let (code, r) =
        run(tmp.path(), &["attest", &theirs.to_string_lossy(), "--trusted-key", &public.to_string_lossy(), "--replay"]);
    assert_eq!(code, 0, "{r}");
    for c in ["CV-T101", "CV-T102", "CV-T103"] {
        assert!(outcome(&r, c).starts_with("passed"), "{c}: {r}");
    }
    // Ed25519 is deterministic: both signers wrote the same signature over the same PAE.
    let ours = &env["signatures"][0]["sig"];
    let theirs_json: Value = serde_json::from_slice(&std::fs::read(&theirs).expect("read")).expect("json");
    assert_eq!(&theirs_json["signatures"][0]["sig"], ours);
}

/// The envelopes `test-vectors/checks/trust-attest-*.json` check, with the keys to check them.
#[test]
fn vector_envelopes_are_current() {
    let dir = support::root().join("test-vectors/attest");
    let update = std::env::var_os("CROSSVERIFY_UPDATE_ATTEST").is_some();
    let tmp = tempfile::tempdir().expect("tempdir");
    let (key, _) = write_keys(tmp.path());
    // Signed from the repository root, so the recorded paths resolve when the vectors run.
    let fresh = tmp.path().join("explain.dsse.json");
    sign_explain(&support::root(), "CV-T103", &key, &fresh);
    let committed_good = dir.join("explain.dsse.json");
    if update {
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::copy(&fresh, &committed_good).expect("write");
    }
    // The report names the build it came from (tool.commit), which moves with every commit;
    // what must stay current is everything else, which a replay compares (with the signed tool).
    let without_tool = |path: &Path| {
        let env = Envelope::parse(&std::fs::read(path).expect("read")).expect("parse");
        let mut v: Value = serde_json::from_slice(&env.payload).expect("json");
        v["predicate"].as_object_mut().expect("predicate").remove("tool");
        // The subject of a report naming no commit is the SHA-256 of the predicate, tool included.
        v.as_object_mut().expect("statement").remove("subject");
        v
    };
    let differs = crossverify::anchors::reports::first_difference(
        &without_tool(&committed_good),
        &without_tool(&fresh),
        String::new(),
    );
    assert!(
        differs.is_none(),
        "{} is stale at {differs:?} (CROSSVERIFY_UPDATE_ATTEST=1 cargo test --test it attest::)",
        committed_good.display()
    );
    let good = Envelope::parse(&std::fs::read(&committed_good).expect("read")).expect("parse");
    let sk = signing_key();
    let resign =
        |statement: &Value| Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &serde_json::to_vec(statement).expect("json"), &sk);
    let statement: Value = serde_json::from_slice(&good.payload).expect("json");
    // The subject `report` is the predicate's digest: an edit re-signed with it recomputed is
    // a consistent statement the replay must catch; one without is malformed (CV-T102).
    let rebind = |v: &mut Value| {
        let bytes = crossverify::anchors::reports::payload_bytes(&v["predicate"]);
        v["subject"] = serde_json::json!([{"name": "report", "digest": {"sha256": hex::encode(
            <sha2::Sha256 as sha2::Digest>::digest(bytes))}}]);
    };
    let mut edited = statement.clone();
    edited["predicate"]["outcome"] = Value::String("failed".into());
    let unbound = edited.clone();
    rebind(&mut edited);
    let mut moved = statement.clone();
    moved["predicate"]["inputs"]["invocation"] =
        serde_json::json!(["manifest", "test-vectors/attest/no-such-repository", "HEAD"]);
    rebind(&mut moved);
    let mut other = statement.clone();
    other["predicateType"] = Value::String("https://slsa.dev/provenance/v1".into());
    let mut tampered = good.clone();
    tampered.payload = serde_json::to_vec(&edited).expect("json");
    let files: Vec<(&str, String)> = vec![
        ("signer.pub", format!("{}\n", signer().public_openssh())),
        ("stranger.pub", format!("{}\n", TestKey::stranger().public_openssh())),
        ("tampered.dsse.json", tampered.to_json()),
        ("edited-resigned.dsse.json", resign(&edited).to_json()),
        ("subject-unbound.dsse.json", resign(&unbound).to_json()),
        ("moved-inputs.dsse.json", resign(&moved).to_json()),
        ("not-a-report.dsse.json", resign(&other).to_json()),
        ("not-an-envelope.json", "{\"payload\": 1}\n".to_owned()),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        if update {
            std::fs::create_dir_all(&dir).expect("mkdir");
            std::fs::write(&path, &text).expect("write");
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "{} is stale (CROSSVERIFY_UPDATE_ATTEST=1 cargo test --test it attest::)",
            path.display()
        );
    }
}

/// Issue 21: every command that accepts `--sign-report` either writes a signed report that
/// `attest` verifies or exits 2 saying why it cannot; never an exit 0 (or 1, or 3) with
/// nothing signed. Each command runs with a fresh attestation path.
#[test]
fn every_command_given_sign_report_signs_or_exits_2() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("v1-genuine", tmp.path());
    let (key, public) = write_keys(tmp.path());
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    let (audit, science) = (s(dir.join("audit")), s(dir.join("science")));
    let list = tmp.path().join("queue.jsonl");
    std::fs::write(&list, serde_json::json!({"id": "one", "audit": audit, "science": science}).to_string() + "\n")
        .expect("write list");
    let shard = tmp.path().join("shard.json");
    let o = support::crossverify()
        .args(["ledger", "--audit", &audit, "--science", &science, "--shard", "1/1", "--format", "json"])
        .output()
        .expect("runs");
    std::fs::write(&shard, &o.stdout).expect("write shard");
    let commands: Vec<Vec<String>> = vec![
        vec!["explain".into(), "CV-A702".into()],
        vec!["checks".into()],
        vec!["demo".into()],
        vec!["manifest".into(), science.clone(), "HEAD".into()],
        vec!["ledger".into(), "--audit".into(), audit.clone(), "--science".into(), science.clone()],
        vec!["verify".into(), audit.clone(), "--science".into(), science.clone()],
        vec!["merge".into(), s(shard.clone())],
        vec!["batch".into(), s(list.clone()), "--output-jsonl".into(), s(tmp.path().join("out.jsonl"))],
    ];
    for (i, args) in commands.iter().enumerate() {
        let att = tmp.path().join(format!("att-{i}.json"));
        let out = support::crossverify()
            .current_dir(tmp.path())
            .args(args)
            .arg("--sign-report")
            .arg(&key)
            .arg("--attestation")
            .arg(&att)
            .output()
            .expect("runs");
        let code = out.status.code().expect("exit code");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        if code == 2 {
            assert!(err.contains("--sign-report"), "{args:?}: exit 2 without saying why signing cannot happen: {err}");
            assert!(!att.exists(), "{args:?}: exit 2, yet an attestation was written");
            continue;
        }
        assert!(att.is_file(), "{args:?}: exit {code} and nothing signed: {err}");
        let (code, r) = run(tmp.path(), &["attest", &s(att), "--trusted-key", &s(public.clone())]);
        assert_eq!(code, 0, "{args:?}: the signed report does not verify: {r}");
        assert!(outcome(&r, "CV-T101").starts_with("passed"), "{args:?}: {r}");
    }
}

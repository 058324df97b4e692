//! Proof-or-Stop against implementations we did not write: DSSE envelopes by
//! securesystemslib (both directions, and a tampered envelope refused by both), RFC 8785 bytes
//! by the `rfc8785` package, and materialHash/storyFilesHash by a few lines of independent
//! script over `git ls-tree -r -z` (dev/proof-or-stop/). The Python oracles live in
//! `target/oracle/pos` (installed by `.ci/test`); a missing one says SKIPPED, or fails under
//! `CROSSVERIFY_REQUIRE_TOOLS=1`.

use crate::support;
use crate::tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

const GOLDEN_SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const GOLDEN_PUB: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const GOLDEN_KEYID: &str = "sha256:06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9";

fn pos() -> PathBuf {
    support::root().join("test-vectors/proof-or-stop")
}

fn script(name: &str) -> PathBuf {
    support::root().join("dev/proof-or-stop").join(name)
}

/// The oracle virtual environment's interpreter, when securesystemslib and rfc8785 import.
fn oracle_python() -> Option<PathBuf> {
    let p = support::root().join("target/oracle/pos/bin/python");
    let ok = Command::new(&p)
        .args(["-c", "import securesystemslib, rfc8785, cryptography"])
        .output()
        .is_ok_and(|o| o.status.success());
    tools::require("securesystemslib and rfc8785 (target/oracle/pos)", ok.then_some(p))
}

fn on_path(tool: &str) -> Option<PathBuf> {
    let ok = Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    tools::require(tool, ok.then(|| PathBuf::from(tool)))
}

fn run_bundle(bundle: &Path, repo: &str) -> Value {
    run_bundle_scoped(bundle, repo, "config/scope.json")
}

fn run_bundle_scoped(bundle: &Path, repo: &str, scope: &str) -> Value {
    let out = support::crossverify()
        .args(["--format", "json", "bundle"])
        .arg(bundle)
        .args(["--repo", repo, "--trust-store", "keys/trust-store.json", "--policy", "config/policy.json"])
        .args(["--command-set", "config/command-set.json", "--scope", scope])
        .current_dir(pos())
        .output()
        .expect("runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn sslib(python: &Path, args: &[&str]) -> std::process::Output {
    Command::new(python).arg(script("sslib.py")).args(args).current_dir(pos()).output().expect("python runs")
}

#[test]
fn envelopes_signed_by_securesystemslib_verify_here() {
    let Some(py) = oracle_python() else { return };
    let out = sslib(&py, &["sign", GOLDEN_SEED, GOLDEN_KEYID, "golden/payload.json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let env: Value = serde_json::from_slice(&out.stdout).expect("envelope JSON");
    let bundle = |env: &Value| {
        json!({
            "mediaType": "application/vnd.proof-or-stop.bundle.v1+json",
            "dsseEnvelope": env,
            "verificationMaterial": {"publicKey": {"keyId": GOLDEN_KEYID,
                "rawBytes": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}},
        })
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let path = tmp.path().join("sslib.json");
    std::fs::write(&path, serde_json::to_vec(&bundle(&env)).expect("json")).expect("write");
    assert_eq!(run_bundle(&path, "repos/golden.git")["reason"], "ok", "securesystemslib's envelope verifies");
    let mut tampered = env.clone();
    let payload = tampered["payload"].as_str().expect("payload").replace('A', "B");
    tampered["payload"] = payload.into();
    std::fs::write(&path, serde_json::to_vec(&bundle(&tampered)).expect("json")).expect("write");
    assert_eq!(run_bundle(&path, "repos/golden.git")["reason"], "signature_invalid", "a tampered envelope is refused");
}

#[test]
fn our_bundles_verify_in_securesystemslib() {
    let Some(py) = oracle_python() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    // (bundle, securesystemslib accepts the signature, crossverify accepts it). The one
    // disagreement: DSSE says verifiers must accept URL-safe unpadded base64; securesystemslib
    // 1.6.0 decodes standard padded base64 only (specs/proof-or-stop.md §9).
    for (name, accepted, ours_accepted) in [
        ("00-authentic", true, true),
        ("18-decision-fail", true, true),
        ("x-url-safe-base64-accepted", false, true),
        ("04-evidence-edit", false, false),
        ("x-sig-bit-flip", false, false),
        ("07-forged-signature", false, false),
    ] {
        let b: Value =
            serde_json::from_slice(&std::fs::read(pos().join(format!("bundles/{name}.json"))).expect("bundle"))
                .expect("JSON");
        let env = tmp.path().join(format!("{name}.json"));
        std::fs::write(&env, serde_json::to_vec(&b["dsseEnvelope"]).expect("json")).expect("write");
        let out = sslib(&py, &["verify", GOLDEN_PUB, GOLDEN_KEYID, env.to_str().expect("utf-8")]);
        assert_eq!(out.status.success(), accepted, "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let ours = run_bundle(&pos().join(format!("bundles/{name}.json")), "repos/golden.git");
        assert_eq!(ours["reason"] != "signature_invalid", ours_accepted, "{name}: crossverify on the signature");
    }
}

/// Payloads for the JCS comparison: unicode, escapes, integers at the ±(2^53−1) edge, nesting,
/// member order by UTF-16 code units.
const JCS_CORPUS: &[&str] = &[
    r#"{"b":1,"a":[true,false,"x"],"c":{"z":{},"y":[]}}"#,
    r#"{"é":"\u00e9","😀":"\ud83d\ude00","€":"\u20ac","\u0001":"\t\n\r\b\f\"\\/"}"#,
    r#"{"big":9007199254740991,"neg":-9007199254740991,"zero":0,"minus0":-0}"#,
    r#"{"\ufb33":1,"\ud800\udc00":2,"\u00ff":3,"A":4,"a":5}"#,
    r#"[[[[[{"deep":[1,[2,[3]]]}]]]]]"#,
    r#"{"ctrl":"\u001f\u007f\u0080","line":"\u2028\u2029"}"#,
    r#""plain string""#,
    r#"{"payload":"eyJ9","signatures":[{"keyid":"k","sig":"c2ln"}]}"#,
];

#[test]
fn jcs_bytes_equal_the_rfc8785_package() {
    let Some(py) = oracle_python() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let file = tmp.path().join("corpus.jsonl");
    std::fs::write(&file, JCS_CORPUS.join("\n")).expect("write");
    let out = Command::new(&py).arg(script("jcs.py")).arg(&file).output().expect("python runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let theirs: Vec<String> = String::from_utf8(out.stdout).expect("utf-8").lines().map(str::to_owned).collect();
    assert_eq!(theirs.len(), JCS_CORPUS.len());
    for (doc, hex_theirs) in JCS_CORPUS.iter().zip(&theirs) {
        let v = crossverify::json::parse(doc.as_bytes()).expect("strict JSON");
        let ours = crossverify::json::jcs::to_canonical(&v).expect("in profile");
        assert_eq!(hex::encode(ours.as_bytes()), *hex_theirs, "{doc}");
    }
    for refused in [r#"{"f":1.5}"#, r#"{"n":null}"#, r#"{"big":9007199254740993}"#, r#"[1e3]"#] {
        let v = crossverify::json::parse(refused.as_bytes()).expect("strict JSON");
        assert!(crossverify::json::jcs::to_canonical(&v).is_err(), "{refused} is outside our profile");
    }
}

fn script_identities(repo: &Path, extra: &[&str]) -> Vec<String> {
    let out = Command::new("python3")
        .arg(script("identities.py"))
        .arg(repo)
        .arg("HEAD")
        .args(extra)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8").lines().map(str::to_owned).collect()
}

#[test]
fn identities_equal_an_independent_script_over_git_ls_tree() {
    if on_path("git").is_none() || on_path("python3").is_none() {
        return;
    }
    for repo in ["golden", "drift", "fixed", "meta"] {
        let path = pos().join(format!("repos/{repo}.git"));
        let theirs = script_identities(&path, &["6ff5354f5fdf8b26edf20f4702bb15be8949a5b3", "src/**"]);
        let ours = run_bundle(&pos().join("bundles/00-authentic.json"), &format!("repos/{repo}.git"));
        let live = &ours["identities"]["live"];
        assert_eq!(
            [live["materialHash"].as_str(), live["storyFilesHash"].as_str()],
            [Some(theirs[0].as_str()), Some(theirs[1].as_str())],
            "{repo}"
        );
    }
    // The same story in git's SHA-256 object format: 64-digit ids in the records and the
    // deletion marker.
    let sha256 = pos().join("repos/sha256.git");
    let base = crossverify::git::Repo::open(&sha256).expect("opens").resolve("HEAD~1").expect("base").to_string();
    let theirs = script_identities(&sha256, &[&base, "src/**"]);
    let ours = run_bundle_scoped(
        &pos().join("bundles/x-sha256-object-format.json"),
        "repos/sha256.git",
        "config/scope-sha256.json",
    );
    assert_eq!(ours["reason"], "ok");
    let live = &ours["identities"]["live"];
    assert_eq!(
        [live["materialHash"].as_str(), live["storyFilesHash"].as_str(), live["objectFormat"].as_str()],
        [Some(theirs[0].as_str()), Some(theirs[1].as_str()), Some("sha256")],
        "sha256"
    );
}

/// The design note's second materialHash check: a symlink, an executable and metadata.
#[test]
fn note_second_material_hash_check() {
    if on_path("git").is_none() || on_path("python3").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path();
    support::git(d, &["init", "-q", "-b", "main", "."]);
    std::fs::write(d.join("README.md"), "hello\n").expect("write");
    std::os::unix::fs::symlink("README.md", d.join("link.md")).expect("symlink");
    std::fs::write(d.join("run.sh"), "#!/bin/sh\necho hi\n").expect("write");
    std::fs::create_dir_all(d.join("src")).expect("mkdir");
    std::fs::write(d.join("src/main.rs"), "fn main() {}\n").expect("write");
    std::fs::create_dir_all(d.join(".proof-or-stop")).expect("mkdir");
    std::fs::write(d.join(".proof-or-stop/state.json"), "{}\n").expect("write");
    support::git(d, &["add", "-A"]);
    support::git(d, &["update-index", "--chmod=+x", "run.sh"]);
    support::git(d, &["-c", "user.name=dev", "-c", "user.email=dev@example.invalid", "commit", "-q", "-m", "x"]);
    let want = "sha256:64b29f21c5b5b23f9db2292fdda679e16eb9e1aeb468697a42cc352b871c67e6";
    assert_eq!(script_identities(d, &[])[0], want);
    let repo = crossverify::git::Repo::open(d).expect("repo");
    let head = repo.resolve("HEAD").expect("HEAD");
    let roots = [".lattice".to_owned(), ".proof-or-stop".to_owned()];
    assert_eq!(crossverify::proof_or_stop::identity::material_hash(&repo, head, &roots).expect("hash"), want);
}

//! The Proof-or-Stop tamper corpus: its generator (test-only keys from fixed seeds,
//! deterministic; `CROSSVERIFY_UPDATE_POS=1` rewrites `test-vectors/proof-or-stop/`), a test
//! that the committed corpus is what the generator writes, and the run of the corpus from
//! `index.json` alone (prepare, then every vector through the binary).

use crate::support;
use crate::tools;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use crossverify::proof_or_stop::envelope::sign_bundle;
use crossverify::proof_or_stop::identity;
use crossverify::trust::ed25519::SigningKey;
use serde_json::{Value, json};

const STD: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// RFC 8032 test 1 secret: the design note's golden key.
const GOLDEN_SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
/// The signature the note publishes for its golden payload (OpenSSL-checked there).
const GOLDEN_SIG: &str = "OMrUxMEMPnvIfE+CPY0Tb/BvthX2yLrjMAbm7ZmAAVvSgCUqHCspmbTpS13zhw+G511dpvz1B+DApJy/AsLtAw==";

fn dir() -> PathBuf {
    support::root().join("test-vectors/proof-or-stop")
}

fn golden_key() -> SigningKey {
    SigningKey::from_seed(hex::decode(GOLDEN_SEED).expect("hex").try_into().expect("32 bytes"))
}

/// Test-only keys of the other hosts and of the attacker: fixed seeds.
fn key(byte: u8) -> SigningKey {
    SigningKey::from_seed([byte; 32])
}

fn golden_payload() -> Vec<u8> {
    std::fs::read(dir().join("golden/payload.json")).expect("the golden payload is committed")
}

fn golden_value() -> Value {
    serde_json::from_slice(&golden_payload()).expect("golden payload JSON")
}

/// Compact, keys sorted: the RFC 8785 form for the integers and ASCII strings of this corpus
/// (and a serialisation that keeps `null`, for the classes that need one).
fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).expect("serialises")
}

fn pretty(v: &Value) -> Vec<u8> {
    let mut s = serde_json::to_vec_pretty(v).expect("serialises");
    s.push(b'\n');
    s
}

fn signed(v: &Value, k: &SigningKey) -> Value {
    sign_bundle(&bytes(v), k)
}

fn edit(f: impl FnOnce(&mut Value)) -> Value {
    let mut v = golden_value();
    f(&mut v);
    v
}

/// Replaces the payload bytes of a signed container, keeping its signature (post-signing).
fn post_payload(bundle: &mut Value, f: impl FnOnce(&mut Value)) {
    let raw = STD.decode(bundle["dsseEnvelope"]["payload"].as_str().expect("payload")).expect("b64");
    let mut v: Value = serde_json::from_slice(&raw).expect("payload JSON");
    f(&mut v);
    bundle["dsseEnvelope"]["payload"] = STD.encode(bytes(&v)).into();
}

fn sha(s: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(s)))
}

/// The golden container: the note's payload bytes and its published signature.
fn golden_bundle() -> Value {
    let k = golden_key();
    let b = sign_bundle(&golden_payload(), &k);
    assert_eq!(b["dsseEnvelope"]["signatures"][0]["sig"], GOLDEN_SIG, "Ed25519 is deterministic: the note's signature");
    b
}

fn trust_store() -> Value {
    let entry = |k: &SigningKey, host: &str, roles: &[&str], lanes: &[&str]| {
        let p = k.public();
        json!({"keyId": p.key_id(), "publicKey": STD.encode(p.as_bytes()), "host": host, "roles": roles, "lanes": lanes})
    };
    json!({
        "kind": "proof-or-stop/trust-store/v1",
        "keys": [
            entry(&golden_key(), "host-a", &["done-evidence", "review-verdict"], &["done", "review-a"]),
            entry(&key(2), "host-b", &["review-verdict"], &["review-b"]),
            entry(&key(3), "host-c", &["review-verdict"], &["review-c"]),
        ],
    })
}

/// (name, bundle, repository, extra args, expected reason).
type BundleCase = (&'static str, Value, &'static str, Vec<&'static str>, &'static str);

fn material_at(repo: &Path, rev: &str) -> String {
    let r = crossverify::git::Repo::open(repo).expect("repo");
    let c = r.resolve(rev).expect("rev");
    identity::material_hash(&r, c, &[".lattice".into(), ".proof-or-stop".into()]).expect("material")
}

fn bundle_cases(repos: &Path) -> Vec<BundleCase> {
    let attacker = key(0x66);
    let mut v = Vec::new();
    let mut add = |name, b, repo, extra: Vec<&'static str>, expect| v.push((name, b, repo, extra, expect));
    add("00-authentic", golden_bundle(), "golden", vec![], "ok");
    add("00-authentic-metadata-commit-after", golden_bundle(), "meta", vec![], "ok");
    table5_cases(&mut add, repos, &attacker);
    verifier_bug_cases(&mut add);
    extra_cases(&mut add, &attacker);
    sha256_cases(&mut add, repos);
    v
}

/// The golden repository rebuilt in git's SHA-256 object format (`prepare.sh`), its base.
fn sha256_base(repos: &Path) -> String {
    let r = crossverify::git::Repo::open(&repos.join("sha256.git")).expect("a SHA-256 repository opens");
    r.resolve("HEAD~1").expect("base").to_string()
}

/// A genuine bundle over the golden story in a SHA-256 repository (`objectFormat: sha256`,
/// 64-digit `headHash`), and the golden SHA-1 bundle presented against it.
fn sha256_cases(
    add: &mut impl FnMut(&'static str, Value, &'static str, Vec<&'static str>, &'static str),
    repos: &Path,
) {
    let path = repos.join("sha256.git");
    let r = crossverify::git::Repo::open(&path).expect("a SHA-256 repository opens");
    let (base, head) = (r.resolve("HEAD~1").expect("base"), r.resolve("HEAD").expect("head"));
    let roots = [".lattice".to_owned(), ".proof-or-stop".to_owned()];
    let material = identity::material_hash(&r, head, &roots).expect("material");
    let sfh = identity::story_files_hash(&r, base, head, &["src/**".to_owned()], &roots).expect("story files");
    let scope = sha(scope_sha256_doc(&base.to_string()).as_bytes());
    let p = edit(|p| {
        let b = &mut p["predicate"]["binding"];
        b["headHash"] = head.to_string().into();
        b["objectFormat"] = "sha256".into();
        b["materialHash"] = material.clone().into();
        b["storyFilesHash"] = sfh.clone().into();
        p["predicate"]["story"]["baseSha"] = base.to_string().into();
        p["predicate"]["story"]["scopeHash"] = scope.clone().into();
        p["subject"][0]["digest"]["sha256"] = material.trim_start_matches("sha256:").into();
        p["subject"][1]["digest"]["gitCommit"] = head.to_string().into();
    });
    let scope_arg = vec!["--scope", "config/scope-sha256.json"];
    add("x-sha256-object-format", signed(&p, &golden_key()), "sha256", scope_arg.clone(), "ok");
    add("x-sha256-repo-sha1-bundle", golden_bundle(), "sha256", scope_arg, "stale");
}

fn scope_sha256_doc(base: &str) -> String {
    format!(r#"{{"allowedPaths":["src/**"],"baseSha":"{base}","kind":"proof-or-stop/scope/v1","storyId":"B-0001"}}"#)
}

/// The paper's 18 tamper classes (Table 5), in its order, as the design note §5.1 maps them.
fn table5_cases(
    add: &mut impl FnMut(&'static str, Value, &'static str, Vec<&'static str>, &'static str),
    repos: &Path,
    attacker: &SigningKey,
) {
    let g = golden_key;
    let base_material = material_at(&repos.join("golden.git"), "HEAD~1");
    add("01-code-byte-flip", golden_bundle(), "drift", vec![], "stale");
    let stale = edit(|p| {
        p["predicate"]["binding"]["materialHash"] = base_material.clone().into();
        p["subject"][0]["digest"]["sha256"] = base_material.trim_start_matches("sha256:").into();
    });
    add("02-stale-material-hash", signed(&stale, &g()), "golden", vec![], "stale");
    let drop = edit(|p| {
        p["predicate"]["binding"].as_object_mut().expect("binding").remove("commandSetHash");
    });
    add("03-incomplete-binding", signed(&drop, &g()), "golden", vec![], "binding_incomplete");
    add(
        "03b-empty-command-set-hash",
        signed(&edit(|p| p["predicate"]["binding"]["commandSetHash"] = "".into()), &g()),
        "golden",
        vec![],
        "binding_incomplete",
    );
    let mut b = golden_bundle();
    post_payload(&mut b, |p| p["predicate"]["receipts"][0]["outputDigest"] = sha(b"forged log").into());
    add("04-evidence-edit", b, "golden", vec![], "signature_invalid");
    let mut b = signed(&edit(|p| p["predicate"]["hostVerdict"] = "fail".into()), &g());
    post_payload(&mut b, |p| p["predicate"]["hostVerdict"] = "pass".into());
    add("05-host-verdict-swap", b, "golden", vec![], "signature_invalid");
    let mut b = golden_bundle();
    post_payload(&mut b, |p| p["predicate"]["commandSet"]["commands"][1]["args"][1] = "--offline".into());
    add("06-command-set-change", b, "golden", vec![], "signature_invalid");
    let mut b = golden_bundle();
    let forged = attacker
        .sign(&crossverify::trust::dsse::pae(crossverify::trust::dsse::IN_TOTO_PAYLOAD_TYPE, &golden_payload()));
    b["dsseEnvelope"]["signatures"][0]["sig"] = STD.encode(forged).into();
    add("07-forged-signature", b, "golden", vec![], "signature_invalid");
    let mut b = golden_bundle();
    b["dsseEnvelope"]["signatures"][0]["sig"] = STD.encode([0x5a_u8; 64]).into();
    add("07b-random-signature", b, "golden", vec![], "signature_invalid");
    let mut b = golden_bundle();
    b["dsseEnvelope"]["signatures"] = json!([]);
    add("08-empty-signatures", b, "golden", vec![], "signature_missing");
    let mut b = golden_bundle();
    b["dsseEnvelope"]["signatures"][0]["sig"] = "".into();
    add("08b-empty-sig", b, "golden", vec![], "signature_missing");
    add("09-signer-key-mismatch", sign_bundle(&golden_payload(), attacker), "golden", vec![], "signer_key_mismatch");
    add(
        "10-null-host-verdict",
        signed(&edit(|p| p["predicate"]["hostVerdict"] = Value::Null), &g()),
        "golden",
        vec![],
        "malformed_bundle",
    );
    add(
        "11-null-decision",
        signed(&edit(|p| p["predicate"]["decision"] = Value::Null), &g()),
        "golden",
        vec![],
        "malformed_bundle",
    );
    let mut b = golden_bundle();
    b["decision"] = "pass".into();
    add("12-extra-top-level-key", b, "golden", vec![], "malformed_bundle");
    let md5 = edit(|p| p["predicate"]["receipts"][0]["outputDigest"] = "md5:0d8ba2b7fb5d2d1b1e8e4d2a1c0b9a88".into());
    add("13-non-sha256-output-digest", signed(&md5, &g()), "golden", vec![], "digest_mismatch");
    let bare =
        edit(|p| p["predicate"]["receipts"][1]["outputDigest"] = "5c3d57cf803c92ff537694cda191d9c10c44f33c".into());
    add("13b-bare-hex-output-digest", signed(&bare, &g()), "golden", vec![], "digest_mismatch");
    add(
        "14-exit-code-1",
        signed(&edit(|p| p["predicate"]["receipts"][1]["exit"] = 1.into()), &g()),
        "golden",
        vec![],
        "receipt_not_passing",
    );
    add(
        "15-exit-code-minus-1",
        signed(&edit(|p| p["predicate"]["receipts"][0]["exit"] = (-1).into()), &g()),
        "golden",
        vec![],
        "receipt_not_passing",
    );
    add(
        "16-empty-command",
        signed(&edit(|p| p["predicate"]["receipts"][0]["cmd"] = "".into()), &g()),
        "golden",
        vec![],
        "receipt_not_passing",
    );
    add(
        "17-no-receipts",
        signed(&edit(|p| p["predicate"]["receipts"] = json!([])), &g()),
        "golden",
        vec![],
        "build_proof_missing",
    );
    add(
        "18-decision-fail",
        signed(&edit(|p| p["predicate"]["decision"] = "fail".into()), &g()),
        "golden",
        vec![],
        "decision_not_pass",
    );
}

/// The verifier bugs the paper reports (§8, Table 20), each as a bundle a buggy verifier
/// would accept or misclassify.
fn verifier_bug_cases(add: &mut impl FnMut(&'static str, Value, &'static str, Vec<&'static str>, &'static str)) {
    let g = golden_key;
    // B-4c65: a member with value null added after signing; a null-dropping canonicaliser
    // would re-derive the signed bytes and accept it.
    let mut b = golden_bundle();
    post_payload(&mut b, |p| p["predicate"]["waiver"] = Value::Null);
    add("vb-null-dropped-by-canonicaliser", b, "golden", vec![], "signature_invalid");
    // Pre-verification field use: unsigned edits that a verifier reading fields first would
    // report as stale, decision_not_pass or receipt_not_passing.
    let mut b = golden_bundle();
    post_payload(&mut b, |p| p["predicate"]["decision"] = "fail".into());
    add("vb-field-used-before-verification-decision", b, "golden", vec![], "signature_invalid");
    let mut b = golden_bundle();
    post_payload(&mut b, |p| p["predicate"]["story"]["id"] = "B-0002".into());
    add("vb-field-used-before-verification-story", b, "golden", vec![], "signature_invalid");
    let mut b = golden_bundle();
    post_payload(&mut b, |p| p["predicate"]["receipts"][0]["exit"] = 2.into());
    add("vb-field-used-before-verification-exit", b, "golden", vec![], "signature_invalid");
    // Failing-receipt acceptance: a signed decision pass over a failing receipt.
    let fail = edit(|p| p["predicate"]["receipts"][0]["exit"] = 101.into());
    add("vb-failing-receipt-accepted", signed(&fail, &g()), "golden", vec![], "receipt_not_passing");
    // B-086b: pass returned before every check ran; only the last step (H1) fails here.
    let last = edit(|p| p["predicate"]["hostVerdict"] = "fail".into());
    add("vb-pass-before-all-checks", signed(&last, &g()), "golden", vec![], "decision_not_pass");
    // F-d: null subject.
    add("vb-null-subject", signed(&edit(|p| p["subject"] = Value::Null), &g()), "golden", vec![], "malformed_bundle");
    add("vb-empty-subject", signed(&edit(|p| p["subject"] = json!([])), &g()), "golden", vec![], "malformed_bundle");
    let nob = edit(|p| {
        p["predicate"]["binding"] = json!({});
    });
    add("vb-empty-binding", signed(&nob, &g()), "golden", vec![], "binding_incomplete");
    // F-f: a forbidden null→0 coercion.
    add(
        "vb-null-exit-coerced",
        signed(&edit(|p| p["predicate"]["receipts"][0]["exit"] = Value::Null), &g()),
        "golden",
        vec![],
        "malformed_bundle",
    );
}

/// Further classes of the design note §5.2.
fn extra_cases(
    add: &mut impl FnMut(&'static str, Value, &'static str, Vec<&'static str>, &'static str),
    attacker: &SigningKey,
) {
    let g = golden_key;
    add("x-wrong-story-expected", golden_bundle(), "golden", vec!["--story", "B-0002"], "stale");
    add("x-story-files-drift", golden_bundle(), "fixed", vec![], "stale");
    add(
        "x-policy-reconfigured",
        golden_bundle(),
        "golden",
        vec!["--policy", "config/policy-reconfigured.json"],
        "stale",
    );
    add(
        "x-command-set-reordered",
        golden_bundle(),
        "golden",
        vec!["--command-set", "config/command-set-reordered.json"],
        "stale",
    );
    let mut b = golden_bundle();
    let sig = b["dsseEnvelope"]["signatures"][0].clone();
    b["dsseEnvelope"]["signatures"] = json!([sig.clone(), sig]);
    add("x-two-signatures", b, "golden", vec![], "malformed_bundle");
    let mut b = golden_bundle();
    b["dsseEnvelope"]["payloadType"] = "application/json".into();
    add("x-wrong-payload-type", b, "golden", vec![], "malformed_bundle");
    let mut b = golden_bundle();
    b["mediaType"] = "application/vnd.dev.sigstore.bundle.v0.3+json".into();
    add("x-wrong-media-type", b, "golden", vec![], "malformed_bundle");
    let mut b = golden_bundle();
    let mut flipped = STD.decode(b["dsseEnvelope"]["signatures"][0]["sig"].as_str().expect("sig")).expect("b64");
    flipped[10] ^= 1;
    b["dsseEnvelope"]["signatures"][0]["sig"] = STD.encode(flipped).into();
    add("x-sig-bit-flip", b, "golden", vec![], "signature_invalid");
    let mut b = golden_bundle();
    let url = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    b["dsseEnvelope"]["payload"] = url.encode(golden_payload()).into();
    b["dsseEnvelope"]["signatures"][0]["sig"] = url.encode(STD.decode(GOLDEN_SIG).expect("b64")).into();
    add("x-url-safe-base64-accepted", b, "golden", vec![], "ok");
    let pretty_payload = serde_json::to_vec_pretty(&golden_value()).expect("pretty");
    add("x-payload-not-jcs", sign_bundle(&pretty_payload, &g()), "golden", vec![], "malformed_bundle");
    let mut dup = golden_payload();
    let at = dup.len() - 1;
    dup.splice(at..at, br#","predicateType":"x""#.iter().copied());
    add("x-duplicate-key-in-payload", sign_bundle(&dup, &g()), "golden", vec![], "malformed_bundle");
    let unknown = edit(|p| p["predicate"]["reviewer"] = "me".into());
    add("x-unknown-predicate-member", signed(&unknown, &g()), "golden", vec![], "malformed_bundle");
    let missing = edit(|p| {
        p["predicate"].as_object_mut().expect("predicate").remove("issuedAt");
    });
    add("x-issued-at-missing", signed(&missing, &g()), "golden", vec![], "malformed_bundle");
    // RFC 3339 shapes that name no instant (issue 21): month 13, day 45, hour 99.
    for (name, t) in [
        ("x-issued-at-month-13", "2026-13-02T00:00:00Z"),
        ("x-issued-at-day-45", "2026-01-45T00:00:00Z"),
        ("x-issued-at-hour-99", "2026-01-02T99:00:00Z"),
    ] {
        add(name, signed(&edit(|p| p["predicate"]["issuedAt"] = t.into()), &g()), "golden", vec![], "malformed_bundle");
    }
    let mut float = String::from_utf8(golden_payload()).expect("utf-8");
    float = float.replace(r#""round":1"#, r#""round":1.0"#);
    add("x-float-in-integer-field", sign_bundle(float.as_bytes(), &g()), "golden", vec![], "malformed_bundle");
    let subj = edit(|p| p["subject"][1]["digest"]["gitCommit"] = "6ff5354f5fdf8b26edf20f4702bb15be8949a5b3".into());
    add("x-subject-not-binding", signed(&subj, &g()), "golden", vec![], "malformed_bundle");
    let host = edit(|p| p["predicate"]["producer"]["host"] = "host-b".into());
    add("x-producer-host-not-key-host", signed(&host, &g()), "golden", vec![], "signer_key_mismatch");
    let kid = edit(|p| p["predicate"]["producer"]["keyId"] = attacker.public().key_id().into());
    add("x-producer-key-not-signer", signed(&kid, &g()), "golden", vec![], "signer_key_mismatch");
    let lane = edit(|p| p["predicate"]["producer"]["lane"] = "review-b".into());
    add("x-lane-not-allowed", signed(&lane, &g()), "golden", vec![], "signer_key_mismatch");
    let mut b = golden_bundle();
    b["verificationMaterial"]["publicKey"]["rawBytes"] = STD.encode(attacker.public().as_bytes()).into();
    add("x-verification-material-swapped", b, "golden", vec![], "signer_key_mismatch");
    let mut b = golden_bundle();
    let d = golden_value()["predicate"]["receipts"][0]["outputDigest"].clone();
    b["attachments"] = json!({"outputs": {d.as_str().expect("digest"): STD.encode(b"build ok\n")}});
    add("x-attached-log-matches", b, "golden", vec![], "ok");
    let mut b = golden_bundle();
    b["attachments"] = json!({"outputs": {d.as_str().expect("digest"): STD.encode(b"build FAILED\n")}});
    add("x-attached-log-mismatch", b, "golden", vec![], "digest_mismatch");
    let args = edit(|p| p["predicate"]["receipts"][1]["args"] = json!(["test"]));
    add("x-receipt-args-differ", signed(&args, &g()), "golden", vec![], "receipt_not_passing");
    let unknown_cmd = edit(|p| {
        let mut extra = p["predicate"]["receipts"][1].clone();
        extra["commandId"] = "lint".into();
        p["predicate"]["receipts"].as_array_mut().expect("receipts").push(extra);
    });
    add("x-unknown-command-id", signed(&unknown_cmd, &g()), "golden", vec![], "receipt_not_passing");
    let no_test = edit(|p| {
        p["predicate"]["receipts"].as_array_mut().expect("receipts").pop();
    });
    add("x-test-receipt-missing", signed(&no_test, &g()), "golden", vec![], "build_proof_missing");
    add("x-truncated", Value::String("truncated".into()), "golden", vec![], "malformed_bundle");
}

fn args_for(name: &str, repo: &str, extra: &[&str], trusted_key: bool) -> Vec<String> {
    let mut a: Vec<String> =
        vec!["bundle".into(), format!("bundles/{name}.json"), "--repo".into(), format!("repos/{repo}.git")];
    if trusted_key {
        a.extend(["--trusted-key".into(), hex::encode(golden_key().public().as_bytes())]);
    } else {
        a.extend(["--trust-store".into(), "keys/trust-store.json".into()]);
    }
    for (flag, file) in [
        ("--policy", "config/policy.json"),
        ("--command-set", "config/command-set.json"),
        ("--scope", "config/scope.json"),
    ] {
        if !extra.contains(&flag) {
            a.extend([flag.into(), file.into()]);
        }
    }
    a.extend(extra.iter().map(|s| (*s).to_owned()));
    a
}

/// Every file of the corpus, by path under `test-vectors/proof-or-stop/`.
fn generate(repos: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    files.insert("keys/trust-store.json".to_owned(), pretty(&trust_store()));
    files.insert("golden/bundle.json".to_owned(), pretty(&golden_bundle()));
    let mut vectors = Vec::new();
    for (name, bundle, repo, extra, expect) in bundle_cases(repos) {
        let body = match &bundle {
            // A container that is not JSON at all: the bytes are written as they are.
            Value::String(s) => format!("{{\"mediaType\": \"{s}").into_bytes(),
            _ => pretty(&bundle),
        };
        files.insert(format!("bundles/{name}.json"), body);
        vectors.push(json!({"name": name, "args": args_for(name, repo, &extra, false), "expect": expect}));
    }
    vectors.push(json!({"name": "00-authentic-trusted-key", "args": args_for("00-authentic", "golden", &[], true), "expect": "ok"}));
    // The repositories are committed (bare, loose objects), so nothing needs preparing.
    let index = json!({"prepare": null, "vectors": vectors});
    files.insert("index.json".to_owned(), pretty(&index));
    floor_corpus(&mut files);
    stats_corpus(&mut files);
    files.insert(
        "config/scope-sha256.json".to_owned(),
        format!("{}\n", scope_sha256_doc(&sha256_base(repos))).into_bytes(),
    );
    files
}

/// Two stories for `crossverify stats`: one done with an open finding, one still in review.
fn stats_corpus(files: &mut BTreeMap<String, Vec<u8>>) {
    let closed = |id: &str, sev: &str, filed: i64, at: i64, action: &str| {
        let mut f = finding(id, sev, filed, if action == "resolve" { "resolved" } else { "dismissed" });
        f["resolution"] = json!([{"round": at, "action": action}]);
        f
    };
    let stories = [
        (
            "B-0001",
            "done",
            vec![
                closed("F-001", "high", 1, 2, "resolve"),
                finding("F-002", "medium", 1, "open"),
                closed("F-003", "low", 2, 3, "dismiss"),
                closed("F-004", "critical", 2, 3, "resolve"),
            ],
        ),
        ("B-0002", "review", vec![finding("F-001", "high", 1, "open"), closed("F-002", "low", 1, 2, "resolve")]),
    ];
    for (id, phase, list) in stories {
        let f = json!({"kind": "proof-or-stop/findings/v1", "storyId": id, "phase": phase, "findings": list});
        files.insert(format!("stats/{id}/findings.json"), pretty(&f));
    }
}

const EMPTY_SFH: &str = identity::EMPTY_STORY_FILES_HASH;

/// The lane a test host reviews in.
fn lane_of(host: &str) -> &'static str {
    match host {
        "host-a" => "review-a",
        "host-b" => "review-b",
        _ => "review-c",
    }
}

/// A signed review record of story B-0001 in `round` by `host` (`session`), bound to
/// `material`/`sfh` at the golden H: `members` are the predicate's own members.
fn review_record(
    k: &SigningKey,
    predicate_type: &str,
    (host, session, round): (&str, &str, i64),
    members: Value,
    material: &str,
    sfh: &str,
) -> Value {
    let g = golden_value();
    let b = &g["predicate"]["binding"];
    let lane = lane_of(host);
    let mut predicate = json!({
        "story": {"id": "B-0001", "round": round, "scopeHash": g["predicate"]["story"]["scopeHash"]},
        "binding": {"headHash": b["headHash"], "materialHash": material, "objectFormat": "sha1",
                    "policyHash": b["policyHash"], "storyFilesHash": sfh},
        "producer": {"actor": "reviewer", "lane": lane, "host": host, "session": session, "keyId": k.public().key_id()},
    });
    for (key, v) in members.as_object().expect("members are an object") {
        predicate[key] = v.clone();
    }
    let p = json!({
        "_type": "https://in-toto.io/Statement/v1",
        "predicateType": predicate_type,
        "subject": [
            {"name": "material", "digest": {"sha256": material.trim_start_matches("sha256:")}},
            {"name": "head", "digest": {"gitCommit": b["headHash"]}},
        ],
        "predicate": predicate,
    });
    signed(&p, k)
}

/// A signed review verdict of story B-0001 bound to `material`/`sfh` at the golden H.
#[allow(clippy::too_many_arguments)]
fn verdict(
    k: &SigningKey,
    host: &str,
    session: &str,
    round: i64,
    seq: i64,
    ids: &[&str],
    material: &str,
    sfh: &str,
) -> Value {
    let lane = lane_of(host);
    let members = json!({
        "lane": lane,
        "runId": format!("{lane}-r{round}-{seq}"),
        "seq": seq,
        "verdict": if ids.is_empty() { "pass" } else { "finding" },
        "findingIds": ids,
    });
    review_record(k, crossverify::proof_or_stop::format::REVIEW_VERDICT, (host, session, round), members, material, sfh)
}

/// A signed `finding-event/v1` of story B-0001 by `host`'s key (lane as for its verdicts).
fn finding_event(k: &SigningKey, host: &str, round: i64, id: &str, action: &str, material: &str, sfh: &str) -> Value {
    let members = json!({"findingId": id, "action": action, "note": format!("{action} by {}", lane_of(host))});
    let session = format!("s-{action}");
    review_record(k, crossverify::proof_or_stop::format::FINDING_EVENT, (host, &session, round), members, material, sfh)
}

fn degradation(material: &str, sfh: &str) -> Value {
    let g = golden_value();
    let b = &g["predicate"]["binding"];
    let p = json!({
        "_type": "https://in-toto.io/Statement/v1",
        "predicateType": crossverify::proof_or_stop::format::DEGRADATION,
        "subject": [
            {"name": "material", "digest": {"sha256": material.trim_start_matches("sha256:")}},
            {"name": "head", "digest": {"gitCommit": b["headHash"]}},
        ],
        "predicate": {
            "story": {"id": "B-0001", "round": 3, "scopeHash": g["predicate"]["story"]["scopeHash"]},
            "reason": "second-host-unavailable",
            "binding": {"headHash": b["headHash"], "materialHash": material, "objectFormat": "sha1",
                        "policyHash": b["policyHash"], "storyFilesHash": sfh},
            "producer": {"actor": "dev-agent", "lane": "review-a", "host": "host-a", "session": "s-degraded",
                         "keyId": golden_key().public().key_id()},
        },
    });
    signed(&p, &golden_key())
}

/// A signed review record re-signed by its host's key after `edit` changed its payload.
fn resign(bundle: &Value, edit: impl Fn(&mut Value)) -> Value {
    let raw = STD.decode(bundle["dsseEnvelope"]["payload"].as_str().expect("payload")).expect("b64");
    let mut p: Value = serde_json::from_slice(&raw).expect("payload JSON");
    edit(&mut p);
    let k = match p["predicate"]["producer"]["host"].as_str() {
        Some("host-a") => golden_key(),
        Some("host-b") => key(2),
        _ => key(3),
    };
    signed(&p, &k)
}

fn resign_all(v: Vec<Value>, edit: impl Fn(&mut Value)) -> Vec<Value> {
    v.iter().map(|b| resign(b, &edit)).collect()
}

/// sha256 of a committed configuration document (written in its RFC 8785 form).
fn config_hash(name: &str) -> String {
    sha(std::fs::read_to_string(dir().join("config").join(name)).expect("config").trim().as_bytes())
}

fn finding(id: &str, severity: &str, round: i64, status: &str) -> Value {
    json!({"id": id, "lane": "review-a", "filedRound": round, "severity": severity, "status": status,
           "evidenceState": "verified", "category": "edge", "title": format!("{severity} finding {id}")})
}

/// Passes of hosts a and b in rounds 1..=n, independent in host, session and key.
fn quorum(n: i64, material: &str, sfh: &str) -> Vec<Value> {
    (1..=n)
        .flat_map(|r| {
            [
                verdict(&golden_key(), "host-a", &format!("s-a{r}"), r, r, &[], material, sfh),
                verdict(&key(2), "host-b", &format!("s-b{r}"), r, r, &[], material, sfh),
            ]
        })
        .collect()
}

/// (name, verdicts, findings, phase, repo, extra args, expected exit, assurance, blocking ids)
type FloorCase = (
    &'static str,
    Vec<Value>,
    Vec<Value>,
    &'static str,
    &'static str,
    Vec<&'static str>,
    i32,
    &'static str,
    Vec<&'static str>,
);

/// The verdict sets of the floor scenarios that are not a plain quorum: one host only (with a
/// degradation record), a shared session, a finding then newer passes, a finding the
/// findings.json omits.
fn special_verdicts(m: &str, s: &str) -> [Vec<Value>; 4] {
    let (m, s) = (m.to_owned(), s.to_owned());
    let single: Vec<Value> = (1..=3)
        .flat_map(|r| {
            [
                verdict(&golden_key(), "host-a", &format!("s-a{r}"), r, 2 * r - 1, &[], &m, &s),
                verdict(&golden_key(), "host-a", &format!("s-a{r}x"), r, 2 * r, &[], &m, &s),
            ]
        })
        .chain([degradation(&m, &s)])
        .collect();
    let shared_session: Vec<Value> = (1..=3)
        .flat_map(|r| {
            [
                verdict(&golden_key(), "host-a", "s-shared", r, r, &[], &m, &s),
                verdict(&key(2), "host-b", "s-shared", r, r, &[], &m, &s),
            ]
        })
        .collect();
    let mut hidden = vec![verdict(&golden_key(), "host-a", "s-a0", 1, 1, &["F-001"], &m, &s)];
    hidden.extend((1..=2).flat_map(|r| {
        [
            verdict(&golden_key(), "host-a", &format!("s-a{r}"), r, r + 1, &[], &m, &s),
            verdict(&key(2), "host-b", &format!("s-b{r}"), r, r, &[], &m, &s),
        ]
    }));
    let mut omitted = quorum(3, &m, &s);
    omitted.push(verdict(&key(3), "host-c", "s-c3", 3, 1, &["F-009"], &m, &s));
    [single, shared_session, hidden, omitted]
}

fn floor_cases() -> Vec<FloorCase> {
    let g = golden_value();
    let m = g["predicate"]["binding"]["materialHash"].as_str().expect("m").to_owned();
    let s = g["predicate"]["binding"]["storyFilesHash"].as_str().expect("s").to_owned();
    let [single, shared_session, hidden, omitted] = special_verdicts(&m, &s);
    let r2 = vec![
        finding("F-001", "high", 1, "open"),
        finding("F-002", "medium", 1, "open"),
        finding("F-003", "low", 2, "open"),
    ];
    let r3 = vec![
        finding("F-001", "critical", 1, "open"),
        finding("F-002", "high", 2, "open"),
        finding("F-003", "medium", 2, "open"),
        finding("F-004", "critical", 1, "resolved"),
    ];
    let mut cases = vec![
        ("full-quorum", quorum(3, &m, &s), vec![], "done", "golden", vec![], 0, "full-quorum", vec![]),
        ("degraded-single-host", single, vec![], "done", "golden", vec![], 1, "degraded-single-host", vec![]),
        ("shared-session", shared_session, vec![], "review", "golden", vec![], 1, "none", vec![]),
        ("stale-after-fix-commit", quorum(3, &m, &s), vec![], "review", "fixed", vec![], 1, "none", vec![]),
        (
            "merge-drift-story-files-allowance",
            quorum(3, &m, &s),
            vec![],
            "review",
            "drift",
            vec![],
            0,
            "full-quorum",
            vec![],
        ),
        (
            "empty-story-files-no-allowance",
            resign_all(quorum(3, &m, EMPTY_SFH), |p| {
                p["predicate"]["story"]["scopeHash"] = config_hash("scope-docs.json").into();
            }),
            vec![],
            "review",
            "drift",
            vec!["--scope", "config/scope-docs.json"],
            1,
            "none",
            vec![],
        ),
        (
            "newer-pass-keeps-older-finding",
            hidden,
            vec![finding("F-001", "high", 1, "open")],
            "review",
            "golden",
            vec![],
            1,
            "none",
            vec!["F-001"],
        ),
        ("severities-round-2", quorum(2, &m, &s), r2, "review", "golden", vec![], 1, "none", vec!["F-001"]),
        ("severities-round-3", quorum(3, &m, &s), r3, "done", "golden", vec![], 1, "full-quorum", vec!["F-001"]),
        (
            "finding-omitted-from-findings-json",
            omitted,
            vec![],
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
    ];
    cases.extend(context_cases(&m, &s));
    cases.extend(unsigned_cases(&m, &s));
    cases.extend(resolution_cases(&m, &s));
    cases
}

/// The review context beyond the tree (issue 21): the scope, and what a record that does not
/// bind its scope can and cannot prove.
fn context_cases(m: &str, s: &str) -> Vec<FloorCase> {
    let legacy = |v: Vec<Value>| {
        resign_all(v, |p| {
            p["predicate"]["story"].as_object_mut().expect("story").remove("scopeHash");
        })
    };
    vec![
        (
            "scope-widened-after-review",
            quorum(3, m, s),
            vec![],
            "review",
            "golden",
            vec!["--scope", "config/scope-widened.json"],
            1,
            "none",
            vec![],
        ),
        (
            "scope-narrowed-after-review",
            quorum(3, m, s),
            vec![],
            "review",
            "golden",
            vec!["--scope", "config/scope-narrowed.json"],
            1,
            "none",
            vec![],
        ),
        (
            "scope-unbound-legacy-verdicts",
            legacy(quorum(3, m, s)),
            vec![],
            "review",
            "golden",
            vec![],
            3,
            "none",
            vec![],
        ),
        (
            "scope-unbound-legacy-verdicts-scope-widened",
            legacy(quorum(3, m, s)),
            vec![],
            "review",
            "golden",
            vec!["--scope", "config/scope-widened.json"],
            3,
            "none",
            vec![],
        ),
        (
            "scope-unbound-legacy-verdicts-scope-narrowed",
            legacy(quorum(3, m, s)),
            vec![],
            "review",
            "golden",
            vec!["--scope", "config/scope-narrowed.json"],
            1,
            "none",
            vec![],
        ),
    ]
}

/// A quorum of three rounds, and a signed verdict of host-c raising F-009 in round 3.
fn raised_f009(m: &str, s: &str) -> Vec<Value> {
    let mut v = quorum(3, m, s);
    v.push(verdict(&key(3), "host-c", "s-c3", 3, 1, &["F-009"], m, s));
    v
}

/// `findings.json`'s F-009 of round 3, with an unsigned resolution trail when given.
fn f009(severity: &str, status: &str, trail: Option<Value>) -> Vec<Value> {
    let mut f = finding("F-009", severity, 3, status);
    if let Some(t) = trail {
        f["resolution"] = t;
    }
    vec![f]
}

/// Unsigned inputs beside the evidence only make the floor and the gate stricter; rounds are
/// numbered from 1.
fn unsigned_cases(m: &str, s: &str) -> Vec<FloorCase> {
    let weak = sha(WEAK_POLICY.as_bytes());
    let under_weak = |v: Vec<Value>| resign_all(v, |p| p["predicate"]["binding"]["policyHash"] = weak.clone().into());
    let one_pass = || under_weak(vec![verdict(&golden_key(), "host-a", "s-a1", 1, 1, &[], m, s)]);
    let raised = || raised_f009(m, s);
    let mut earlier = vec![verdict(&golden_key(), "host-a", "s-a0", 1, 0, &["F-001"], m, s)];
    earlier.extend(quorum(3, m, s));
    let shifted = resign_all(quorum(3, m, s), |p| {
        let r = p["predicate"]["story"]["round"].as_i64().expect("round");
        p["predicate"]["story"]["round"] = (r - 1).into();
    });
    let beside = vec!["!--policy"];
    vec![
        (
            "policy-beside-evidence-lowers-floor",
            one_pass(),
            vec![],
            "done",
            "golden",
            beside.clone(),
            1,
            "none",
            vec![],
        ),
        (
            "policy-beside-evidence-advances-advisory",
            one_pass(),
            vec![finding("F-001", "medium", 1, "open")],
            "done",
            "golden",
            beside,
            1,
            "none",
            vec!["F-001"],
        ),
        (
            "signed-finding-relabelled-low",
            raised(),
            f009("low", "open", None),
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
        (
            "signed-finding-marked-resolved",
            raised(),
            f009("critical", "resolved", None),
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
        ("later-pass-resolves-nothing", earlier, vec![], "done", "golden", vec![], 1, "full-quorum", vec!["F-001"]),
        ("round-zero-is-not-a-round", shifted, vec![], "review", "golden", vec![], 1, "none", vec![]),
    ]
}

/// What closes a finding a signed record raised: only a signed `finding-event/v1` (issue 21).
fn resolution_cases(m: &str, s: &str) -> Vec<FloorCase> {
    let raised = || raised_f009(m, s);
    let event = |round: i64, action: &str| finding_event(&key(3), "host-c", round, "F-009", action, m, s);
    let with = |mut v: Vec<Value>, more: Vec<Value>| {
        v.extend(more);
        v
    };
    vec![
        (
            "signed-finding-resolution-only-unsigned",
            raised(),
            f009("critical", "resolved", Some(json!([{"round": 3, "action": "resolve", "note": "fixed in review"}]))),
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
        (
            "signed-finding-resolved-by-event",
            with(raised(), vec![event(3, "resolve")]),
            f009("critical", "resolved", None),
            "done",
            "golden",
            vec![],
            0,
            "full-quorum",
            vec![],
        ),
        (
            "signed-finding-event-projection-still-open",
            with(raised(), vec![event(3, "resolve")]),
            f009("critical", "open", None),
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
        (
            "signed-finding-resolved-and-reopened",
            with(raised(), vec![event(3, "resolve"), event(3, "reopen")]),
            f009("critical", "resolved", None),
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
        (
            "signed-finding-resolved-before-raised-again",
            with(raised(), vec![event(2, "resolve")]),
            f009("critical", "resolved", None),
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
        (
            "signed-finding-resolved-by-untrusted-key",
            with(raised(), vec![finding_event(&key(0x66), "host-c", 3, "F-009", "resolve", m, s)]),
            f009("critical", "resolved", None),
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
        (
            "finding-added-by-event",
            with(quorum(3, m, s), vec![event(3, "add")]),
            vec![],
            "done",
            "golden",
            vec![],
            1,
            "full-quorum",
            vec!["F-009"],
        ),
    ]
}

/// A policy beside the evidence that asks for one round of one pass and makes every finding
/// but a critical one advisory from round 1: below the paper's floor and gate.
const WEAK_POLICY: &str = r#"{"findingGate":{"advisoryFromRound":{"high":1,"low":1,"medium":1},"unverified":"block"},"kind":"proof-or-stop/policy/v1","metadataRoots":[".lattice",".proof-or-stop"],"reviewFloor":{"independentPassesPerRound":1,"rounds":1}}"#;

fn scope_doc(paths: &[&str]) -> String {
    let base = "6ff5354f5fdf8b26edf20f4702bb15be8949a5b3";
    format!(
        r#"{{"allowedPaths":{},"baseSha":"{base}","kind":"proof-or-stop/scope/v1","storyId":"B-0001"}}"#,
        json!(paths)
    )
}

fn floor_corpus(files: &mut BTreeMap<String, Vec<u8>>) {
    let mut vectors = Vec::new();
    for (name, verdicts, findings, phase, repo, extra, exit, assurance, blocking) in floor_cases() {
        for (i, v) in verdicts.iter().enumerate() {
            files.insert(format!("floor/{name}/verdicts/{i:02}.json"), pretty(v));
        }
        let f = json!({"kind": "proof-or-stop/findings/v1", "storyId": "B-0001", "phase": phase, "findings": findings});
        files.insert(format!("floor/{name}/findings.json"), pretty(&f));
        let mut args: Vec<String> = [
            "floor",
            &format!("floor/{name}"),
            "--repo",
            &format!("repos/{repo}.git"),
            "--trust-store",
            "keys/trust-store.json",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        for (flag, file) in [
            ("--policy", "config/policy.json"),
            ("--command-set", "config/command-set.json"),
            ("--scope", "config/scope.json"),
        ] {
            // `!--policy`: no `--policy`; the weak policy is written beside the evidence instead.
            if extra.contains(&format!("!{flag}").as_str()) {
                files.insert(format!("floor/{name}/policy.json"), format!("{WEAK_POLICY}\n").into_bytes());
            } else if !extra.contains(&flag) {
                args.extend([flag.to_owned(), file.to_owned()]);
            }
        }
        args.extend(extra.iter().filter(|s| !s.starts_with('!')).map(|s| (*s).to_owned()));
        vectors.push(
            json!({"name": name, "args": args, "expect": {"exit": exit, "assurance": assurance, "blocking": blocking}}),
        );
    }
    files.insert("floor.json".to_owned(), pretty(&json!({"prepare": null, "vectors": vectors})));
    files.insert(
        "config/scope-widened.json".to_owned(),
        format!("{}\n", scope_doc(&["docs/**", "src/**"])).into_bytes(),
    );
    files.insert("config/scope-narrowed.json".to_owned(), format!("{}\n", scope_doc(&["src/main.rs"])).into_bytes());
}

fn repos() -> PathBuf {
    dir().join("repos")
}

fn git_available() -> bool {
    let found = std::process::Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success());
    tools::require("git", found.then(|| PathBuf::from("git"))).is_some()
}

/// `prepare.sh` (git CLI, pinned identities and dates) rebuilds the committed repositories:
/// the same refs, hence the same objects.
#[test]
fn prepare_rebuilds_the_committed_repositories() {
    if !git_available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("repos");
    let status = std::process::Command::new("sh")
        .arg("test-vectors/proof-or-stop/prepare.sh")
        .arg(&out)
        .current_dir(support::root())
        .status()
        .expect("sh runs");
    assert!(status.success(), "prepare.sh failed");
    for r in ["golden", "drift", "fixed", "meta", "sha256"] {
        let rel = format!("{r}.git/refs/heads/main");
        let want = std::fs::read(repos().join(&rel)).expect("committed ref");
        assert_eq!(std::fs::read(out.join(&rel)).expect("rebuilt ref"), want, "{rel}");
    }
    assert_eq!(
        std::fs::read_to_string(repos().join("golden.git/refs/heads/main")).expect("ref").trim(),
        "52751bb09a2fbf46e7ff05f0469f0a3c74467933",
        "the note's H"
    );
}

#[test]
fn committed_corpus_is_what_the_generator_writes() {
    let files = generate(&repos());
    let update = std::env::var_os("CROSSVERIFY_UPDATE_POS").is_some_and(|v| !v.is_empty());
    for (rel, body) in &files {
        let path = dir().join(rel);
        if update {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, body).expect("write");
        } else {
            let got = std::fs::read(&path).unwrap_or_default();
            assert!(
                got == *body,
                "{rel} is stale: CROSSVERIFY_UPDATE_POS=1 cargo test --test it proof_or_stop_corpus::"
            );
        }
    }
    // A scenario the generator no longer writes must not linger, run by nobody but `index.json`
    // readers and the docs.
    for sub in ["floor", "bundles", "stats"] {
        for rel in walk(&dir().join(sub)) {
            let rel = format!("{sub}/{rel}");
            if !files.contains_key(&rel) {
                if update {
                    std::fs::remove_file(dir().join(&rel)).expect("remove a file the generator no longer writes");
                } else {
                    panic!(
                        "{rel} is not written by the generator: CROSSVERIFY_UPDATE_POS=1 cargo test --test it proof_or_stop_corpus::"
                    );
                }
            }
        }
    }
}

/// Every file under `root`, as `/`-separated paths relative to it.
fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

#[test]
fn golden_vector_is_the_notes() {
    let p = golden_payload();
    assert_eq!(p.len(), 1913);
    assert_eq!(sha(&p), "sha256:67f63cf52d1ef96abf5ba3c58628d7a8847d6524d27a59c5b7c313f41da0b522");
    assert_eq!(
        golden_key().public().key_id(),
        "sha256:06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9"
    );
    assert_eq!(crossverify::trust::dsse::pae(crossverify::trust::dsse::IN_TOTO_PAYLOAD_TYPE, &p).len(), 1957);
    let _ = golden_bundle();
}

/// Runs the corpus exactly as a third party would: from `index.json` alone.
#[test]
fn index_runs_from_the_index_alone() {
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir().join("index.json")).expect("index.json")).expect("index JSON");
    if let Some(prepare) = index["prepare"].as_str() {
        let status =
            std::process::Command::new("sh").args(["-c", prepare]).current_dir(support::root()).status().expect("sh");
        assert!(status.success(), "prepare failed");
    }
    let (mut false_accepts, mut false_rejects, mut wrong) = (Vec::new(), Vec::new(), Vec::new());
    let mut reached = std::collections::BTreeSet::new();
    for v in index["vectors"].as_array().expect("vectors") {
        let name = v["name"].as_str().expect("name");
        let expect = v["expect"].as_str().expect("expect");
        let args: Vec<&str> = v["args"].as_array().expect("args").iter().map(|a| a.as_str().expect("arg")).collect();
        let out =
            support::crossverify().arg("--format").arg("json").args(&args).current_dir(dir()).output().expect("runs");
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: no JSON report ({e}): {}", String::from_utf8_lossy(&out.stderr)));
        let got = report["reason"].as_str().unwrap_or("(none)");
        let code = out.status.code();
        assert_eq!(code, Some(if got == "ok" { 0 } else { 1 }), "{name}: exit code for reason {got}");
        reached.insert(got.to_owned());
        match (expect == "ok", got == "ok") {
            (false, true) => false_accepts.push(name.to_owned()),
            (true, false) => false_rejects.push(format!("{name}: {got} ({})", report["bundle"]["detail"])),
            _ if got != expect => {
                wrong.push(format!("{name}: expected {expect}, got {got} ({})", report["bundle"]["detail"]));
            }
            _ => {}
        }
    }
    assert!(false_accepts.is_empty(), "false accepts: {false_accepts:?}");
    assert!(false_rejects.is_empty(), "false rejects: {false_rejects:?}");
    assert!(wrong.is_empty(), "wrong reasons: {wrong:#?}");
    let all: std::collections::BTreeSet<String> =
        crossverify::proof_or_stop::Reason::ALL.iter().map(|r| r.as_str().to_owned()).collect();
    assert_eq!(reached, all, "every one of the eleven codes is reached");
}

/// The review floor and the done gate, from `floor.json` alone.
#[test]
fn floor_vectors_hold() {
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir().join("floor.json")).expect("floor.json")).expect("floor JSON");
    for v in index["vectors"].as_array().expect("vectors") {
        let name = v["name"].as_str().expect("name");
        let args: Vec<&str> = v["args"].as_array().expect("args").iter().map(|a| a.as_str().expect("arg")).collect();
        let out =
            support::crossverify().arg("--format").arg("json").args(&args).current_dir(dir()).output().expect("runs");
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: no JSON report ({e}): {}", String::from_utf8_lossy(&out.stderr)));
        let e = &v["expect"];
        assert_eq!(out.status.code().map(i64::from), e["exit"].as_i64(), "{name}: exit");
        assert_eq!(report["floor"]["assurance"], e["assurance"], "{name}: assurance");
        let blocking: Vec<&str> = report["results"]
            .as_array()
            .expect("results")
            .iter()
            .filter(|r| r["code"] == "CV-P102" && r["outcome"] == "failed")
            .filter_map(|r| r["subject"].as_str())
            .collect();
        let want: Vec<&str> = e["blocking"].as_array().expect("blocking").iter().filter_map(Value::as_str).collect();
        assert_eq!(blocking, want, "{name}: blocking findings");
        assert_ne!(
            (report["floor"]["assurance"].as_str(), name.contains("degraded")),
            (Some("full-quorum"), true),
            "{name}: a degraded record is never a full quorum"
        );
    }
}

/// The statistics layer reads Proof-or-Stop findings through this module's adapter alone.
#[test]
fn stats_reads_review_findings_through_the_adapter() {
    let out =
        support::crossverify().args(["--format", "json", "stats"]).arg(dir().join("stats")).output().expect("runs");
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(r["inputs"]["kind"], "proof-or-stop-findings");
    let s = &r["stats"];
    assert_eq!((s["cycles"].as_u64(), s["finding_occurrences"].as_u64()), (Some(3), Some(6)));
    assert_eq!((s["closed"].as_u64(), s["open"].as_u64()), (Some(4), Some(2)));
    assert!(s["closure_lag_cycle_numbers"].is_object(), "closure lag in rounds: {}", s["closure_lag_cycle_numbers"]);
    let done = r["results"].as_array().expect("results").iter().find(|x| x["code"] == "CV-P102").expect("open on done");
    assert_eq!(done["evidence"]["openOnDone"], 1);
    assert_eq!(done["evidence"]["findings"], json!(["B-0001/F-002"]));
    assert!(s["models"].is_null(), "a figure the records cannot support is not measured, never 0");
}

//! Sigstore bundles as receipt envelopes (issue 13): bundles minted here from test keys and a
//! test trust root, each tamper the `sigstore` crate misses (SET, inclusion proof, checkpoint)
//! and each it catches (identity, issuer, chain, signature, body), the real npm bundle the
//! crate ships, and the command line on a ledger whose receipt is wrapped.
#![cfg(feature = "sigstore")]

#[path = "sigstore/mint.rs"]
mod mint;
mod support;

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use crossverify::trust::sigstore::{Artifact, Policy, Step, TrustedRoot, Verdict, verify};
use serde_json::{Value, json};

use mint::{IDENTITY, ISSUER, Leaf, World};

/// One letter per step, in `Verdict` order: bundle, certificate, identity, signature, log
/// entry, SET, inclusion. P passed, F failed, C cannot tell.
fn letters(v: &Verdict) -> String {
    [&v.bundle, &v.certificate, &v.identity, &v.signature, &v.log_entry, &v.set, &v.inclusion]
        .iter()
        .map(|s| match s {
            Step::Passed => 'P',
            Step::Failed(_) => 'F',
            Step::CantTell(_) => 'C',
        })
        .collect()
}

fn policy() -> Policy {
    Policy { identity: IDENTITY.into(), issuer: ISSUER.into() }
}

fn root_of(v: &Value) -> TrustedRoot {
    TrustedRoot::parse(&serde_json::to_vec(v).expect("json")).expect("test trusted root parses")
}

const RECEIPT: &[u8] = b"{\"verdict\": \"PASS\"}\n";

fn b64_edit(v: &mut Value, pointer: &str, f: impl FnOnce(&mut Vec<u8>)) {
    let slot = v.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer} present"));
    let mut bytes = STANDARD.decode(slot.as_str().expect("string")).expect("base64");
    f(&mut bytes);
    *slot = Value::String(STANDARD.encode(bytes));
}

const ENTRY: &str = "/verificationMaterial/tlogEntries/0";

fn entry(v: &mut Value) -> &mut serde_json::Map<String, Value> {
    v.pointer_mut(ENTRY).and_then(Value::as_object_mut).expect("tlog entry")
}

/// Each tamper and the exact steps it must fail: the SET and inclusion rows are the ones the
/// `sigstore` crate alone accepts.
#[test]
fn minted_bundle_and_each_tamper() {
    let w = World::new();
    let root = root_of(&w.trusted_root());
    let good = w.bundle(RECEIPT, &Leaf { identity: IDENTITY, issuer: ISSUER });
    let run = |b: &Value, artifact: &[u8], p: Option<&Policy>, r: &TrustedRoot| {
        letters(&verify(&serde_json::to_vec(b).expect("json"), Artifact::of(artifact), r, p))
    };
    let p = policy();
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        ("valid", Box::new(|_| {}), "PPPPPPP"),
        (
            "SET byte flipped",
            Box::new(|b| {
                b64_edit(b, &format!("{ENTRY}/inclusionPromise/signedEntryTimestamp"), |s| {
                    let last = s.len() - 1;
                    s[last] ^= 1;
                })
            }),
            "PPPPPFP",
        ),
        (
            "integratedTime + 1",
            Box::new(|b| {
                let t: u64 = entry(b)["integratedTime"].as_str().expect("s").parse().expect("n");
                entry(b).insert("integratedTime".into(), json!((t + 1).to_string()));
            }),
            "PPPPPFP",
        ),
        (
            "SET removed",
            Box::new(|b| {
                entry(b).remove("inclusionPromise");
            }),
            "PPPPPCP",
        ),
        (
            "proof hashes zeroed",
            Box::new(|b| {
                for h in b
                    .pointer_mut(&format!("{ENTRY}/inclusionProof/hashes"))
                    .and_then(Value::as_array_mut)
                    .expect("hashes")
                {
                    *h = json!(STANDARD.encode([0u8; 32]));
                }
            }),
            "PPPPPPF",
        ),
        (
            "root hash wrong",
            Box::new(|b| b64_edit(b, &format!("{ENTRY}/inclusionProof/rootHash"), |r| r[0] ^= 1)),
            "PPPPPPF",
        ),
        (
            "proof missing",
            Box::new(|b| {
                entry(b).remove("inclusionProof");
            }),
            "FCCCCPF",
        ),
        (
            "relabelled v0.1 without proof",
            Box::new(|b| {
                entry(b).remove("inclusionProof");
                b["mediaType"] = json!("application/vnd.dev.sigstore.bundle+json;version=0.1");
            }),
            "PPPPPPF",
        ),
        (
            "checkpoint signed by another key",
            Box::new(|b| {
                let other = World { rekor: mint::key(0x66), ..World::new() };
                let forged = other.bundle(RECEIPT, &Leaf { identity: IDENTITY, issuer: ISSUER });
                let env = forged.pointer(&format!("{ENTRY}/inclusionProof/checkpoint")).expect("cp").clone();
                *b.pointer_mut(&format!("{ENTRY}/inclusionProof/checkpoint")).expect("cp") = env;
            }),
            "PPPPPPF",
        ),
        (
            "log id not in the trusted root",
            Box::new(|b| b64_edit(b, &format!("{ENTRY}/logId/keyId"), |k| k[0] ^= 1)),
            "PPPPPFF",
        ),
        (
            "body of another entry",
            Box::new(|b| {
                let other = World::new().bundle(b"other bytes", &Leaf { identity: IDENTITY, issuer: ISSUER });
                let body = other.pointer(&format!("{ENTRY}/canonicalizedBody")).expect("body").clone();
                entry(b).insert("canonicalizedBody".into(), body);
            }),
            "PPPPFFF",
        ),
        (
            "signature replaced",
            Box::new(|b| {
                b64_edit(b, "/messageSignature/signature", |s| {
                    let last = s.len() - 1;
                    s[last] ^= 1;
                })
            }),
            "PPPFCPP",
        ),
    ];
    let mut failures = Vec::new();
    for (name, edit, want) in &cases {
        let mut b = good.clone();
        edit(&mut b);
        let got = run(&b, RECEIPT, Some(&p), &root);
        if got != *want {
            failures.push(format!("{name}: want {want}, got {got}"));
        }
    }
    // Tampers of the inputs rather than the bundle.
    let checks = [
        ("receipt bytes changed", run(&good, b"{\"verdict\": \"FAIL\"}\n", Some(&p), &root), "PPPFCPP"),
        (
            "wrong identity",
            run(&good, RECEIPT, Some(&Policy { identity: "mallory@crossverify.invalid".into(), ..policy() }), &root),
            "PPFCCPP",
        ),
        (
            "wrong issuer",
            run(&good, RECEIPT, Some(&Policy { issuer: "https://elsewhere.invalid".into(), ..policy() }), &root),
            "PPFCCPP",
        ),
        ("no identity given", run(&good, RECEIPT, None, &root), "PPCPPPP"),
        (
            "untrusted chain",
            run(&good, RECEIPT, Some(&p), &root_of(&World { ca: mint::key(0x55), ..World::new() }.trusted_root())),
            "PFCCCPP",
        ),
    ];
    for (name, got, want) in checks {
        if got != want {
            failures.push(format!("{name}: want {want}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unreadable_bundles_fail_the_format_step_only() {
    let root = root_of(&World::new().trusted_root());
    for (name, bytes) in [
        ("duplicate key", br#"{"mediaType": "a", "mediaType": "b"}"#.to_vec()),
        ("not JSON", b"\xff\xfe".to_vec()),
        ("empty object", b"{}".to_vec()),
        ("oversized", vec![b' '; (1 << 20) + 1]),
    ] {
        let v = verify(&bytes, Artifact::of(RECEIPT), &root, Some(&policy()));
        assert_eq!(letters(&v), "FCCCCCC", "{name}: {v:?}");
    }
}

#[test]
fn trusted_root_is_read_strictly() {
    let good = World::new().trusted_root();
    assert!(TrustedRoot::parse(&serde_json::to_vec(&good).expect("json")).is_ok());
    let dup = br#"{"tlogs": [], "tlogs": []}"#;
    assert!(TrustedRoot::parse(dup).is_err(), "duplicate keys are refused");
    let mut empty = good.clone();
    empty["certificateAuthorities"] = json!([]);
    assert!(TrustedRoot::parse(&serde_json::to_vec(&empty).expect("json")).is_err(), "no CA is refused");
    let mut bad = good;
    bad["tlogs"][0]["publicKey"]["rawBytes"] = json!("not base64!");
    assert!(TrustedRoot::parse(&serde_json::to_vec(&bad).expect("json")).is_err());
}

// ------------------------------------------------------------------ the real npm bundle

const NPM_TARBALL_SHA512: &str = "849a897e81bf7b8a8541a6ae40bd3473a27a16b1cb0462ad905bd6dc96d34881053a12eb4a375233f81677fc9439f628fe0b0445e8535c60b5559597fbd5f80e";
const NPM_IDENTITY: &str = "https://github.com/sigstore/sigstore-js/.github/workflows/release.yml@refs/heads/main";
const NPM_ISSUER: &str = "https://token.actions.githubusercontent.com";

fn real(name: &str) -> Vec<u8> {
    std::fs::read(support::root().join("test-vectors/sigstore/real").join(name)).expect("real vector")
}

/// The Sigstore public-good bundle of `sigstore@5.0.0` on npm (shipped in the `sigstore`
/// crate's package) against the pinned public-good trusted root: the tampers the crate alone
/// accepts (crates.md §3b) are caught here.
#[test]
fn real_npm_bundle_and_its_tampers() {
    let root = TrustedRoot::parse(&real("sigstore_trusted_root.json")).expect("public-good root parses");
    let good: Value = serde_json::from_slice(&real("npm_slsa_bundle_v03.json")).expect("json");
    let mut digest = [0u8; 64];
    hex::decode_to_slice(NPM_TARBALL_SHA512, &mut digest).expect("hex");
    let p = Policy { identity: NPM_IDENTITY.into(), issuer: NPM_ISSUER.into() };
    let run = |b: &Value, p: &Policy| {
        letters(&verify(&serde_json::to_vec(b).expect("json"), Artifact::Sha512(digest), &root, Some(p)))
    };
    assert_eq!(run(&good, &p), "PPPPPPP");
    let mut set = good.clone();
    b64_edit(&mut set, &format!("{ENTRY}/inclusionPromise/signedEntryTimestamp"), |s| s[10] ^= 0xff);
    assert_eq!(run(&set, &p), "PPPPPFP", "tampered SET");
    let mut time = good.clone();
    let t: u64 = entry(&mut time)["integratedTime"].as_str().expect("s").parse().expect("n");
    entry(&mut time).insert("integratedTime".into(), json!((t + 1).to_string()));
    assert_eq!(run(&time, &p), "PPPPPFP", "integratedTime + 1");
    let mut zero = good.clone();
    *zero.pointer_mut(&format!("{ENTRY}/inclusionProof/hashes/0")).expect("hash") = json!(STANDARD.encode([0u8; 32]));
    assert_eq!(run(&zero, &p), "PPPPPPF", "zeroed proof hash");
    let mut rooth = good.clone();
    b64_edit(&mut rooth, &format!("{ENTRY}/inclusionProof/rootHash"), |r| r[31] ^= 1);
    assert_eq!(run(&rooth, &p), "PPPPPPF", "wrong root hash");
    let mut missing = good.clone();
    entry(&mut missing).remove("inclusionProof");
    assert_eq!(run(&missing, &p), "FCCCCPF", "missing proof");
    let wrong =
        Policy { identity: "https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main".into(), ..p };
    assert_eq!(run(&good, &wrong), "PPFCCPP", "wrong identity");
}

// ------------------------------------------------------------------ the command line

const CYCLE: &str = "cycles/1b03559f8f25d574c75eab8dbf6e1c9adc8af559";
const SHA: &str = "1b03559f8f25d574c75eab8dbf6e1c9adc8af559";

/// `git` in `repo` (bare), isolated from the host's configuration, with a pinned identity.
fn git(repo: &Path, index: &Path, args: &[&str], stdin: Option<&[u8]>) -> String {
    String::from_utf8(git_raw(repo, index, args, stdin)).expect("utf-8").trim().to_owned()
}

fn git_raw(repo: &Path, index: &Path, args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    use std::io::Write as _;
    let mut c = std::process::Command::new("git");
    c.args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", repo)
        .env("GIT_INDEX_FILE", index)
        .env("GIT_AUTHOR_NAME", "auditor")
        .env("GIT_AUTHOR_EMAIL", "auditor@crossverify.invalid")
        .env("GIT_AUTHOR_DATE", "2026-06-01T00:00:10Z")
        .env("GIT_COMMITTER_NAME", "auditor")
        .env("GIT_COMMITTER_EMAIL", "auditor@crossverify.invalid")
        .env("GIT_COMMITTER_DATE", "2026-06-01T00:00:10Z")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("git runs");
    if let Some(input) = stdin {
        child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("git finishes");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// A `v1-genuine` ledger with `bundle` committed beside its round-2 receipt (a later commit,
/// as an auditor who signs after the fact would add it).
fn wrapped_ledger(tmp: &Path, bundle: impl FnOnce(&[u8]) -> Value) -> std::path::PathBuf {
    let dir = support::materialize("v1-genuine", tmp);
    let audit = dir.join("audit");
    let index = tmp.join("index");
    let receipt = git_raw(&audit, &index, &["cat-file", "blob", &format!("HEAD:{CYCLE}/receipt.json")], None);
    let b = serde_json::to_vec_pretty(&bundle(&receipt)).expect("json");
    let blob = git(&audit, &index, &["hash-object", "-w", "--stdin"], Some(&b));
    git(&audit, &index, &["read-tree", "HEAD"], None);
    let path = format!("{CYCLE}/receipt.json.sigstore.json");
    git(&audit, &index, &["update-index", "--add", "--cacheinfo", &format!("100644,{blob},{path}")], None);
    let tree = git(&audit, &index, &["write-tree"], None);
    let commit = git(&audit, &index, &["commit-tree", &tree, "-p", "HEAD", "-m", "sign receipt"], None);
    git(&audit, &index, &["update-ref", "HEAD", &commit], None);
    dir
}

fn receipt_cmd(dir: &Path, extra: &[&str]) -> (i32, Value) {
    let out = support::crossverify()
        .args(["receipt", &format!("{CYCLE}/receipt.json"), "--format", "json", "--expect-sha", SHA])
        .arg("--science")
        .arg(dir.join("science"))
        .arg("--audit")
        .arg(dir.join("audit"))
        .args(extra)
        .output()
        .expect("crossverify runs");
    let code = out.status.code().expect("exit code");
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (code, v)
}

fn t2(report: &Value) -> Vec<(String, String)> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["code"].as_str().is_some_and(|c| c.starts_with("CV-T2")))
        .map(|r| {
            (r["code"].as_str().unwrap_or_default().to_owned(), r["outcome"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

#[test]
fn receipt_command_verifies_a_wrapped_receipt() {
    let tmp = tempfile::tempdir().expect("tmp");
    let w = World::new();
    let root_file = tmp.path().join("trusted_root.json");
    std::fs::write(&root_file, serde_json::to_vec(&w.trusted_root()).expect("json")).expect("write root");
    let dir = wrapped_ledger(tmp.path(), |r| w.bundle(r, &Leaf { identity: IDENTITY, issuer: ISSUER }));
    let root_arg = root_file.to_string_lossy().into_owned();
    let id = ["--trusted-root", &root_arg, "--certificate-identity", IDENTITY, "--certificate-oidc-issuer", ISSUER];
    let (code, report) = receipt_cmd(&dir, &id);
    let got = t2(&report);
    assert_eq!(got.len(), 7, "{got:?}");
    assert!(got.iter().all(|(_, o)| o == "passed"), "{got:?}");
    assert_eq!(code, 0, "{got:?}");
    let (code, report) = receipt_cmd(
        &dir,
        &["--trusted-root", &root_arg, "--certificate-identity", "x@y.invalid", "--certificate-oidc-issuer", ISSUER],
    );
    assert!(t2(&report).contains(&("CV-T203".into(), "failed".into())));
    assert_eq!(code, 1);
    let (code, report) = receipt_cmd(&dir, &[]);
    assert!(t2(&report).iter().all(|(_, o)| o == "cantTell"), "no trusted root: inconclusive");
    assert_eq!(code, 3);
}

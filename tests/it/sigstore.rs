//! Sigstore bundles as receipt envelopes (issue 13): bundles minted here from test keys and a
//! test trust root, each tamper the `sigstore` crate misses (SET, inclusion proof, checkpoint)
//! and each it catches (identity, issuer, chain, signature, body), the real npm bundle the
//! crate ships, and the command line on a ledger whose receipt is wrapped.
#![cfg(feature = "sigstore")]

use crate::sigstore_ledger as ledger;
use crate::sigstore_mint as mint;
use crate::support;
use crate::tools;

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use crossverify::trust::sigstore::{Artifact, Policy, Step, TrustedRoot, Verdict, verify};
use serde_json::{Value, json};

use ledger::wrapped_ledger;
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

fn b64_edit(v: &mut Value, pointer: &str, f: impl FnOnce(&mut [u8])) {
    let slot = v.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer} present"));
    let mut bytes = STANDARD.decode(slot.as_str().expect("string")).expect("base64");
    f(&mut bytes);
    *slot = Value::String(STANDARD.encode(bytes));
}

const ENTRY: &str = "/verificationMaterial/tlogEntries/0";

fn entry(v: &mut Value) -> &mut serde_json::Map<String, Value> {
    v.pointer_mut(ENTRY).and_then(Value::as_object_mut).expect("tlog entry")
}

/// One verification: the bundle, the bytes it must sign, the identity asked for, the trusted
/// root, and the steps that must pass (P), fail (F) or stay undecided (C).
struct Case {
    name: &'static str,
    bundle: Value,
    artifact: &'static [u8],
    policy: Option<Policy>,
    root: Value,
    want: &'static str,
}

fn case(name: &'static str, want: &'static str, edit: impl FnOnce(&mut Value)) -> Case {
    let w = World::new();
    let mut bundle = w.bundle(RECEIPT, &Leaf { identity: IDENTITY, issuer: ISSUER });
    edit(&mut bundle);
    Case { name, bundle, artifact: RECEIPT, policy: Some(policy()), root: w.trusted_root(), want }
}

fn flip_last(s: &mut [u8]) {
    let last = s.len() - 1;
    s[last] ^= 1;
}

/// The tampers the `sigstore` vectors name, applied to a minted bundle.
fn apply(variant: &str, b: &mut Value) {
    let set = format!("{ENTRY}/inclusionPromise/signedEntryTimestamp");
    let proof = format!("{ENTRY}/inclusionProof");
    match variant {
        "valid" => {}
        "tampered-set" => b64_edit(b, &set, flip_last),
        "integrated-time" => {
            let t: u64 = entry(b)["integratedTime"].as_str().expect("s").parse().expect("n");
            entry(b).insert("integratedTime".into(), json!((t + 1).to_string()));
        }
        "zeroed-proof" => {
            for h in b.pointer_mut(&format!("{proof}/hashes")).and_then(Value::as_array_mut).expect("hashes") {
                *h = json!(STANDARD.encode([0u8; 32]));
            }
        }
        "wrong-root-hash" => b64_edit(b, &format!("{proof}/rootHash"), |r| r[0] ^= 1),
        "missing-proof" => {
            entry(b).remove("inclusionProof");
        }
        "relabelled-v01" => {
            entry(b).remove("inclusionProof");
            b["mediaType"] = json!("application/vnd.dev.sigstore.bundle+json;version=0.1");
        }
        other => panic!("no tamper {other:?}"),
    }
}

/// Every tamper: the SET, proof and checkpoint rows are the ones the `sigstore` crate alone
/// accepts (crates.md §3b); the rest it catches itself.
fn cases() -> Vec<Case> {
    let proof = format!("{ENTRY}/inclusionProof");
    let other = |rekor: u8| {
        World { rekor: mint::key(rekor), ..World::new() }.bundle(RECEIPT, &Leaf { identity: IDENTITY, issuer: ISSUER })
    };
    let mut out = vec![
        case("valid", "PPPPPPP", |_| {}),
        case("SET byte flipped", "PPPPPFP", |b| apply("tampered-set", b)),
        case("integratedTime + 1", "PPPPPFP", |b| apply("integrated-time", b)),
        case("SET removed", "PPPPPCP", |b| {
            entry(b).remove("inclusionPromise");
        }),
        case("proof hashes zeroed", "PPPPPPF", |b| apply("zeroed-proof", b)),
        case("root hash wrong", "PPPPPPF", |b| apply("wrong-root-hash", b)),
        case("proof missing", "FCCCCPF", |b| apply("missing-proof", b)),
        case("relabelled v0.1 without proof", "PPPPPPF", |b| apply("relabelled-v01", b)),
        case("checkpoint signed by another key", "PPPPPPF", |b| {
            let forged = other(0x66);
            let cp = format!("{proof}/checkpoint");
            *b.pointer_mut(&cp).expect("checkpoint") = forged.pointer(&cp).expect("checkpoint").clone();
        }),
        case("log id not in the trusted root", "PPPPPFF", |b| {
            b64_edit(b, &format!("{ENTRY}/logId/keyId"), |k| k[0] ^= 1)
        }),
        case("body of another entry", "PPPPFFF", |b| {
            let o = World::new().bundle(b"other bytes", &Leaf { identity: IDENTITY, issuer: ISSUER });
            let body = o.pointer(&format!("{ENTRY}/canonicalizedBody")).expect("body").clone();
            entry(b).insert("canonicalizedBody".into(), body);
        }),
        case("signature byte flipped", "PPPFCPP", |b| b64_edit(b, "/messageSignature/signature", flip_last)),
    ];
    let mut changed = case("receipt bytes changed", "PPPFCPP", |_| {});
    changed.artifact = b"{\"verdict\": \"FAIL\"}\n";
    let mut identity = case("wrong identity", "PPFCCPP", |_| {});
    identity.policy = Some(Policy { identity: "mallory@crossverify.invalid".into(), ..policy() });
    let mut issuer = case("wrong issuer", "PPFCCPP", |_| {});
    issuer.policy = Some(Policy { issuer: "https://elsewhere.invalid".into(), ..policy() });
    let mut anyone = case("no identity given", "PPCPPPP", |_| {});
    anyone.policy = None;
    let mut untrusted = case("untrusted chain", "PFCCCPP", |_| {});
    untrusted.root = World { ca: mint::key(0x55), ..World::new() }.trusted_root();
    out.extend([changed, identity, issuer, anyone, untrusted]);
    out
}

fn run_case(c: &Case) -> String {
    let b = serde_json::to_vec(&c.bundle).expect("json");
    letters(&verify(&b, Artifact::of(c.artifact), &root_of(&c.root), c.policy.as_ref()))
}

#[test]
fn minted_bundle_and_each_tamper() {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|c| {
            let got = run_case(c);
            (got != c.want).then(|| format!("{}: want {}, got {got}", c.name, c.want))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The Python `sigstore` client (4.5.1, `target/oracle/sigstore`) verifies the same bundles
/// offline against the same test trusted root (`--trust-config`); where it decides otherwise
/// than crossverify, the case must be listed with its reason in `specs/sigstore.md`.
#[test]
fn python_sigstore_decides_as_crossverify() {
    let bin = support::root().join("target/oracle/sigstore/bin/sigstore");
    let Some(bin) = tools::require("the Python sigstore client", bin.is_file().then_some(bin)) else { return };
    // Left under target/test-artifacts for people to rerun the client by hand.
    let work = tools::artifacts().join("sigstore-oracle");
    let mut table = String::from("| case | crossverify | python sigstore |\n|---|---|---|\n");
    let mut disagreements = Vec::new();
    for (i, c) in cases().iter().enumerate() {
        let Some(p) = &c.policy else { continue };
        let dir = work.join(i.to_string());
        std::fs::create_dir_all(&dir).expect("dir");
        let config = json!({
            "mediaType": "application/vnd.dev.sigstore.clienttrustconfig.v0.1+json",
            "trustedRoot": c.root,
            "signingConfig": {
                "mediaType": "application/vnd.dev.sigstore.signingconfig.v0.2+json",
                "caUrls": [{"url": "https://fulcio.crossverify.invalid", "majorApiVersion": 1,
                            "validFor": {"start": "2025-01-01T00:00:00Z"}, "operator": "crossverify"}],
                "oidcUrls": [],
                "rekorTlogUrls": [{"url": "https://rekor.crossverify.invalid", "majorApiVersion": 1,
                                   "validFor": {"start": "2025-01-01T00:00:00Z"}, "operator": "crossverify"}],
                "rekorTlogConfig": {"selector": "ANY"},
                "tsaUrls": [],
                "tsaConfig": {"selector": "ANY"}
            }
        });
        std::fs::write(dir.join("config.json"), config.to_string()).expect("config");
        std::fs::write(dir.join("bundle.json"), c.bundle.to_string()).expect("bundle");
        std::fs::write(dir.join("receipt.json"), c.artifact).expect("artifact");
        let out = std::process::Command::new(&bin)
            .arg("--trust-config")
            .arg(dir.join("config.json"))
            .args(["verify", "identity", "--offline", "--bundle"])
            .arg(dir.join("bundle.json"))
            .args(["--cert-identity", &p.identity, "--cert-oidc-issuer", &p.issuer])
            .arg(dir.join("receipt.json"))
            .env("HOME", &dir)
            .output()
            .expect("python sigstore runs");
        let theirs = if out.status.success() { "accept" } else { "reject" };
        let got = run_case(c);
        let ours = if got.chars().all(|x| x == 'P') {
            "accept"
        } else if got.contains('F') {
            "reject"
        } else {
            "inconclusive"
        };
        let why = reason(&String::from_utf8_lossy(&out.stderr));
        table.push_str(&format!("| {} | {ours} ({got}) | {theirs}: {why} |\n", c.name));
        // "inconclusive" is not an acceptance: only accept against reject is a disagreement.
        let differs = (ours == "accept") != (theirs == "accept");
        if differs && !KNOWN_DISAGREEMENTS.contains(&c.name) {
            disagreements.push(format!("{}: crossverify {ours} ({got}), python sigstore {theirs}: {why}", c.name));
        }
    }
    std::fs::write(tools::artifacts().join("sigstore-oracle.md"), &table).expect("write table");
    assert!(disagreements.is_empty(), "{}\n\n{table}", disagreements.join("\n"));
}

/// The client's last error, without its log decorations (time stamps, source lines, hints).
fn reason(stderr: &str) -> String {
    let words: Vec<&str> = stderr
        .split_whitespace()
        .filter(|w| !(w.contains(".py:") || (w.starts_with('[') && w.ends_with(']'))))
        .collect();
    let text = words.join(" ");
    let last = text.rsplit_once("ERROR ").map_or(text.as_str(), |(_, t)| t);
    last.split(" For detailed").next().unwrap_or_default().replace('|', "/")
}

/// Cases where the Python client decides otherwise, each explained in `specs/sigstore.md`
/// ("Differences from the Python client").
const KNOWN_DISAGREEMENTS: &[&str] = &[];

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

/// The bundle file a vector's ledger variant commits beside the receipt.
fn variant_bundle(variant: &str, receipt: &[u8]) -> Vec<u8> {
    let w = World::new();
    let leaf = Leaf { identity: IDENTITY, issuer: ISSUER };
    let b = match variant {
        "malformed" => {
            return br#"{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json", "mediaType": "x"}"#.to_vec();
        }
        "other-bytes" => w.bundle(b"other bytes", &leaf),
        v => {
            let mut b = w.bundle(receipt, &leaf);
            apply(v, &mut b);
            b
        }
    };
    serde_json::to_vec_pretty(&b).expect("json")
}

/// Expands `{sigstore-ledger:VARIANT/repo}` (v1-genuine with that bundle committed),
/// `{sigstore-root:test|other-ca}` (a trusted root file) and `{vectors:PATH}`.
fn expand(arg: &str, tmp: &Path) -> String {
    let Some((kind, rest)) = arg.strip_prefix('{').and_then(|a| a.strip_suffix('}')).and_then(|a| a.split_once(':'))
    else {
        return arg.to_owned();
    };
    let path = match kind {
        "sigstore-ledger" => {
            let (variant, repo) = rest.split_once('/').expect("VARIANT/repo");
            let dir = tmp.join(format!("ledger-{variant}"));
            if !dir.exists() {
                std::fs::create_dir_all(&dir).expect("dir");
                wrapped_ledger(&dir, |r| variant_bundle(variant, r));
            }
            dir.join("v1-genuine").join(repo)
        }
        "sigstore-root" => {
            let world = match rest {
                "test" => World::new(),
                "other-ca" => World { ca: mint::key(0x55), ..World::new() },
                other => panic!("no trusted root {other:?}"),
            };
            let p = tmp.join(format!("{rest}-trusted_root.json"));
            std::fs::write(&p, serde_json::to_vec_pretty(&world.trusted_root()).expect("json")).expect("write root");
            p
        }
        "vectors" => support::root().join("test-vectors").join(rest),
        other => panic!("unknown placeholder {other:?}"),
    };
    path.to_string_lossy().into_owned()
}

/// The vectors of `test-vectors/checks/` that need the `sigstore` feature (`"features":
/// ["sigstore"]`, skipped by `tests/it/vectors.rs`): exit code, the exact failing error-level
/// codes, and each stated result.
#[test]
fn every_sigstore_vector_holds() {
    let vectors: Vec<support::Vector> =
        support::load_vectors().into_iter().filter(|v| v.features.iter().any(|f| f == "sigstore")).collect();
    assert!(vectors.len() >= 10, "the sigstore vectors are there");
    let mut failures = Vec::new();
    for sv in &vectors {
        let v: Value = serde_json::from_slice(&std::fs::read(&sv.path).expect("read")).expect("vector JSON");
        let id = v["id"].as_str().expect("id");
        let tmp = tempfile::tempdir().expect("tmp");
        let args: Vec<String> =
            v["args"].as_array().expect("args").iter().map(|a| expand(a.as_str().expect("arg"), tmp.path())).collect();
        let out = support::crossverify().args(&args).args(["--format", "json"]).output().expect("run");
        let code = out.status.code().unwrap_or(-1);
        let want = &v["expect"];
        if i64::from(code) != want["exit"].as_i64().expect("exit") {
            failures.push(format!("{id}: exit {code}: {}", String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        if code == 2 {
            let want = want["stderr"].as_str().expect("an exit-2 vector states expect.stderr");
            if !String::from_utf8_lossy(&out.stderr).contains(want) {
                failures.push(format!("{id}: stderr lacks {want:?}: {}", String::from_utf8_lossy(&out.stderr)));
            }
            continue;
        }
        let report: Value = serde_json::from_slice(&out.stdout).expect("report JSON");
        let results = report["results"].as_array().cloned().unwrap_or_default();
        let failing: std::collections::BTreeSet<&str> = results
            .iter()
            .filter(|r| r["level"] == "error" && r["outcome"] == "failed")
            .filter_map(|r| r["code"].as_str())
            .collect();
        let stated: std::collections::BTreeSet<&str> =
            want["failing"].as_array().expect("failing").iter().filter_map(Value::as_str).collect();
        if failing != stated {
            failures.push(format!("{id}: failing {failing:?}, stated {stated:?}"));
        }
        for r in want["results"].as_array().into_iter().flatten() {
            let hit = results.iter().any(|x| {
                x["code"] == r["code"]
                    && x["outcome"] == r["outcome"]
                    && (r.get("subject").is_none() || x["subject"] == r["subject"])
            });
            if !hit {
                failures.push(format!("{id}: no result {r}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The minted files committed for the fuzz property and its seeds (`fuzz/corpus/sigstore_bundle/`,
/// `test-vectors/sigstore/minted/`) are what the minter writes today (`CROSSVERIFY_UPDATE_SIGSTORE=1`
/// rewrites them); the fuzz property holds on every seed.
#[test]
fn minted_files_are_current_and_seeds_hold() {
    let w = World::new();
    let leaf = Leaf { identity: IDENTITY, issuer: ISSUER };
    let genuine = w.bundle(crossverify::fuzzing::SIGSTORE_FUZZ_ARTIFACT, &leaf);
    let mut tampered = genuine.clone();
    apply("tampered-set", &mut tampered);
    let mut no_proof = genuine.clone();
    apply("relabelled-v01", &mut no_proof);
    let files = [
        (files_root(), w.trusted_root()),
        ("fuzz/corpus/sigstore_bundle/genuine", genuine),
        ("fuzz/corpus/sigstore_bundle/tampered-set", tampered),
        ("fuzz/corpus/sigstore_bundle/relabelled-v01", no_proof),
    ];
    let update = std::env::var_os("CROSSVERIFY_UPDATE_SIGSTORE").is_some();
    for (rel, value) in files {
        let path = support::root().join(rel);
        let want = serde_json::to_string_pretty(&value).expect("json") + "\n";
        if update {
            std::fs::write(&path, &want).expect("write minted file");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            have, want,
            "{rel} is stale: CROSSVERIFY_UPDATE_SIGSTORE=1 cargo test --features sigstore --test it sigstore::"
        );
    }
    let genuine = std::fs::read(support::root().join("fuzz/corpus/sigstore_bundle/genuine")).expect("genuine seed");
    let root =
        TrustedRoot::parse(&std::fs::read(support::root().join(files_root())).expect("root")).expect("root parses");
    let v = verify(&genuine, Artifact::of(crossverify::fuzzing::SIGSTORE_FUZZ_ARTIFACT), &root, Some(&policy()));
    assert_eq!(letters(&v), "PPPPPPP", "the genuine seed verifies");
    for e in std::fs::read_dir(support::root().join("fuzz/corpus/sigstore_bundle")).expect("seeds") {
        let p = e.expect("seed").path();
        let data = std::fs::read(&p).expect("read seed");
        let r = std::panic::catch_unwind(|| crossverify::fuzzing::sigstore_bundle(&data));
        assert!(r.is_ok(), "seed {} fails the sigstore_bundle property", p.display());
    }
}

fn files_root() -> &'static str {
    "test-vectors/sigstore/minted/trusted_root.json"
}

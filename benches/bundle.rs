//! Proof-or-Stop bundle verification over a 10,000-file tree, against computing `materialHash`
//! alone, both in the same run on the same repository.
//!
//! A bundle signed by a test key is bound to the tip of a synthetic 10,000-file repository
//! (two commits; the story's files changed in the second), then verified end to end through
//! the library (`proof_or_stop::verify::bundle`: container, Ed25519, payload schema, the
//! binding, `materialHash`, `storyFilesHash`, the `headHash` rule, receipts). The baseline is
//! `identity::material_hash` of the same commit. `benches/README.md` records the figures.

#![allow(clippy::print_stdout, reason = "a benchmark reports to its terminal")]
#![allow(missing_docs, reason = "criterion generates the entry point")]

/// The allocator the command line ships with (`src/bin/crossverify/main.rs`); both contenders
/// use it.
#[cfg(feature = "cli")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use crossverify::git::Repo;
use crossverify::json::jcs::to_canonical_serde;
use crossverify::proof_or_stop::Reason;
use crossverify::proof_or_stop::envelope::sign_bundle;
use crossverify::proof_or_stop::identity;
use crossverify::proof_or_stop::live::Sources;
use crossverify::proof_or_stop::trust_store::TrustStore;
use crossverify::proof_or_stop::verify::{self, Request};
use crossverify::trust::ed25519::SigningKey;
use crossverify_fixtures::fixture::synthetic::{self, Fill, Options, Sizes};
use serde_json::{Value, json};
use sha2::Digest as _;

fn tree() -> Options {
    Options {
        seed: 11,
        commits: 2,
        files: 10_000,
        churn_permille: 10,
        sizes: Sizes::Uniform { min: 16, max: 512 },
        fill: Fill::Text,
        files_per_dir: 100,
        prefix: "src".into(),
    }
}

fn data_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"), PathBuf::from)
        .join("bench-data/pos-10k")
}

fn sha(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(v).expect("json")).expect("write");
    p
}

/// The repository, the live documents and a bundle bound to the tip.
struct Setup {
    repo: PathBuf,
    sources: Sources,
    store: TrustStore,
    bundle: Vec<u8>,
}

fn setup() -> Setup {
    let dir = data_dir();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let g = synthetic::generate(&dir.join("repo.git"), &tree()).expect("generate");
    let (base, head) = (g.commits[0].id, g.commits[1].id);
    let key = SigningKey::from_seed([7; 32]);
    let policy = json!({"findingGate": {"advisoryFromRound": {"high": 3, "low": 1, "medium": 2}, "unverified": "block"},
        "kind": "proof-or-stop/policy/v1", "metadataRoots": [".lattice", ".proof-or-stop"],
        "reviewFloor": {"independentPassesPerRound": 2, "rounds": 3}});
    let commands = json!({"kind": "proof-or-stop/command-set/v1", "commands": [
        {"id": "build", "phase": "build", "cmd": "cargo", "args": ["build"], "cwd": ".", "required": true},
        {"id": "test", "phase": "test", "cmd": "cargo", "args": ["test"], "cwd": ".", "required": true}]});
    let scope = json!({"kind": "proof-or-stop/scope/v1", "storyId": "B-0001", "baseSha": base.to_string(),
        "allowedPaths": ["src/**"]});
    let h = |v: &Value| sha(to_canonical_serde(v).expect("canonical").as_bytes());
    let repo = Repo::open(&g.path).expect("open");
    let roots = [".lattice".to_owned(), ".proof-or-stop".to_owned()];
    let material = identity::material_hash(&repo, head, &roots).expect("material");
    let story = identity::story_files_hash(&repo, base, head, &["src/**".to_owned()], &roots).expect("story");
    let receipt = |id: &str, arg: &str| json!({"commandId": id, "cmd": "cargo", "args": [arg], "cwd": ".", "exit": 0, "outputDigest": sha(id.as_bytes())});
    let payload = json!({
        "_type": "https://in-toto.io/Statement/v1",
        "predicateType": crossverify::proof_or_stop::format::DONE_EVIDENCE,
        "subject": [{"name": "material", "digest": {"sha256": material.trim_start_matches("sha256:")}},
                    {"name": "head", "digest": {"gitCommit": head.to_string()}}],
        "predicate": {
            "story": {"id": "B-0001", "baseSha": base.to_string(), "round": 1, "scopeHash": h(&scope)},
            "binding": {"materialHash": material, "materialHashAlg": "pos-lstree-v1", "headHash": head.to_string(),
                        "objectFormat": "sha1", "storyFilesHash": story, "storyFilesHashAlg": "pos-storyfiles-v1",
                        "policyHash": h(&policy), "commandSetHash": h(&commands)},
            "commandSet": commands,
            "receipts": [receipt("build", "build"), receipt("test", "test")],
            "producer": {"actor": "bench", "lane": "done", "host": "host-a", "session": "s", "keyId": key.public().key_id()},
            "hostVerdict": "pass", "decision": "pass", "assurance": "local-key-single-host",
            "issuedAt": "2026-01-01T00:00:00Z",
        },
    });
    let bytes = to_canonical_serde(&payload).expect("canonical").into_bytes();
    let bundle = serde_json::to_vec(&sign_bundle(&bytes, &key)).expect("json");
    let sources = Sources {
        policy: Some(write(&dir, "policy.json", &policy)),
        command_set: Some(write(&dir, "command-set.json", &commands)),
        scope: Some(write(&dir, "scope.json", &scope)),
        dir: None,
    };
    Setup { repo: g.path, sources, store: TrustStore::single(key.public()), bundle }
}

fn verify_bundle(s: &Setup) -> Reason {
    let repo = Repo::open(&s.repo).expect("open").shared().with_tree_cache().local();
    let req = Request { store: &s.store, repo: &repo, rev: "HEAD", sources: &s.sources, story: None };
    verify::bundle(&s.bundle, &req).expect("live state").reason()
}

fn material_only(s: &Setup) -> String {
    let repo = Repo::open(&s.repo).expect("open");
    let head = repo.resolve("HEAD").expect("HEAD");
    identity::material_hash(&repo, head, &[".lattice".to_owned(), ".proof-or-stop".to_owned()]).expect("material")
}

fn bench(c: &mut Criterion) {
    let s = setup();
    assert_eq!(verify_bundle(&s), Reason::Ok, "the bench bundle verifies");
    let mut g = c.benchmark_group("pos-bundle-10k");
    g.sample_size(20);
    g.bench_function("verify bundle", |b| b.iter(|| verify_bundle(&s)));
    g.bench_function("materialHash alone", |b| b.iter(|| material_only(&s)));
    g.finish();
    // Each round takes a few milliseconds, so many rounds cost little and steady the medians on
    // a shared machine (15 rounds gave ratios from 0.96 to 1.14 on one build).
    const ROUNDS: usize = 201;
    let (mut v, mut m) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        std::hint::black_box(verify_bundle(&s));
        v.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        std::hint::black_box(material_only(&s));
        m.push(t.elapsed().as_secs_f64());
    }
    let median = |x: &mut Vec<f64>| {
        x.sort_by(f64::total_cmp);
        x[x.len() / 2]
    };
    let mut ratios: Vec<f64> = v.iter().zip(&m).map(|(a, b)| a / b).collect();
    let (mv, mm) = (median(&mut v), median(&mut m));
    println!(
        "interleaved, median of {ROUNDS}: verify bundle {:.2} ms, materialHash alone {:.2} ms, ratio {:.2}x \
         (median of the rounds' ratios {:.2}x)",
        mv * 1000.0,
        mm * 1000.0,
        mv / mm,
        median(&mut ratios)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);

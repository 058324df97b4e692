//! `crossverify ledger` on a synthetic 1,000-cycle schema-2 ledger over a 10,000-file science
//! repository, against the reference verifier's approach measured in the same run: each
//! receipt verified on its own, every bound file re-read and re-hashed.
//!
//! One reference run takes minutes, so this is a plain timing harness (`harness = false`)
//! rather than criterion's repeated sampling: crossverify runs `ROUNDS` times (median), the
//! reference once, interleaved with one crossverify round so load changes hit both.
//!
//! ```sh
//! cargo bench --bench ledger                 # builds target/bench-data/ledger-* once (≈ 3 min)
//! CROSSVERIFY_BENCH_CYCLES=200 cargo bench --bench ledger   # a smaller ledger
//! CROSSVERIFY_BENCH_CHURN=20 cargo bench --bench ledger    # one churn only (default: 5 and 20)
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crossverify::crossaudit::{self, receipt::Receipt};
use crossverify::git::{ObjectId, Repo, Scope};
use crossverify::manifest::Digest;
use crossverify::progress::Ctx;
use crossverify_fixtures::fixture::synthetic::{Options, Sizes};
use crossverify_fixtures::mint;

const ROUNDS: usize = 3;

fn out(line: &str) {
    use std::io::Write as _;
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{line}");
}

fn shape(cycles: usize, churn_permille: u32) -> mint::Synthetic {
    mint::Synthetic {
        science: Options {
            seed: 2026,
            commits: cycles,
            files: 10_000,
            churn_permille,
            sizes: Sizes::Uniform { min: 5_120, max: 15_360 },
            files_per_dir: 100,
            ..Options::default()
        },
        blocked_every: 4,
    }
}

/// Builds (once) and packs the ledger; returns its directory.
fn data(cycles: usize, churn_permille: u32) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/bench-data/ledger-{cycles}x10000-c{churn_permille}"));
    let done = dir.join("done");
    if done.exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let t = Instant::now();
    let built = mint::synthetic(&dir, &shape(cycles, churn_permille)).expect("synthetic ledger");
    for repo in ["science", "audit"] {
        let st = Command::new("git")
            .args(["repack", "-adq"])
            .env("GIT_DIR", dir.join(repo))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .expect("git runs");
        assert!(st.success(), "git repack {repo}");
    }
    std::fs::write(&done, format!("{} cycles, {} bound entries\n", built.cycles, built.bound_entries)).expect("marker");
    out(&format!("built {} in {:.0} s", dir.display(), t.elapsed().as_secs_f64()));
    dir
}

/// The reference verifier's approach, one thread: per receipt, parse it, resolve the audited
/// commit and its tree, then for every manifest entry look the path up in that tree, read the
/// blob and hash it; hash the report beside the receipt and the Constitution.
fn reference(dir: &Path) -> (usize, u64) {
    let audit = Repo::open(&dir.join("audit")).expect("audit");
    let science = Repo::open(&dir.join("science")).expect("science");
    let head = audit.resolve("HEAD").expect("head");
    let tree = audit.commit(head).expect("commit").tree;
    let receipts: Vec<_> = audit
        .walk(tree, &Scope::new(["cycles"]))
        .expect("walk")
        .into_iter()
        .filter(|e| e.path.ends_with(b"/receipt.json"))
        .collect();
    let mut mismatches = 0;
    let mut bytes = 0u64;
    for e in &receipts {
        let r = Receipt::parse(&audit.blob(e.id).expect("receipt")).expect("parse");
        let sha: ObjectId = r.sha.as_deref().expect("sha").parse().expect("hex");
        let commit = science.commit(sha).expect("science commit");
        mismatches += usize::from(r.tree.as_deref() != Some(commit.tree.to_string().as_str()));
        for (path, want) in r.manifest.as_ref().expect("manifest") {
            match science.entry(commit.tree, path.as_str().into()).expect("lookup") {
                Some(entry) => {
                    let blob = science.blob(entry.id).expect("blob");
                    bytes += blob.len() as u64;
                    mismatches += usize::from(Digest::of(&blob).hex() != *want);
                }
                None => mismatches += usize::from(want != "ABSENT"),
            }
        }
        let cycle = r.cycle_path.as_deref().expect("cycle_path");
        let report = audit.file_at(head, &format!("{cycle}/report.md")).expect("report").expect("present");
        mismatches += usize::from(Some(Digest::of(&report).hex()) != r.report_sha256);
        let constitution = audit.file_at(head, "AUDIT_RULES.md").expect("constitution").expect("present");
        mismatches += usize::from(Some(Digest::of(&constitution).hex()) != r.constitution_sha256);
    }
    assert_eq!(mismatches, 0, "the reference approach found mismatches in a genuine ledger");
    (receipts.len(), bytes)
}

fn ours(dir: &Path, threads: usize) -> (Duration, serde_json::Value) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
    let mut opts = crossaudit::Options::new(&dir.join("audit"));
    opts.science = Some(dir.join("science"));
    let t = Instant::now();
    let report = pool.install(|| crossaudit::ledger(&opts, Ctx::silent())).expect("ledger");
    let took = t.elapsed();
    assert_eq!(report.exit_code(), 0, "the synthetic ledger is genuine");
    (took, serde_json::to_value(&report.stats).expect("stats"))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        // `cargo test --benches` and `cargo bench --no-run` style probes: nothing to run.
        return;
    }
    let cycles: usize = std::env::var("CROSSVERIFY_BENCH_CYCLES").ok().and_then(|c| c.parse().ok()).unwrap_or(1000);
    let load = || {
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().next().unwrap_or("?").to_owned()
    };
    // CROSSVERIFY_BENCH_CHURN=20 runs one data shape only: the reference contender takes ~30 min each.
    let churns: Vec<u32> = match std::env::var("CROSSVERIFY_BENCH_CHURN") {
        Ok(c) => vec![c.parse().expect("CROSSVERIFY_BENCH_CHURN is a per-mille number")],
        Err(_) => vec![5, 20],
    };
    for churn in churns {
        let dir = data(cycles, churn);
        out(&format!(
            "\n== {cycles} cycles over 10,000 files, {churn}‰ of the files change per commit (load {})",
            load()
        ));
        let mut all = Vec::new();
        let mut one = Vec::new();
        let mut stats = serde_json::Value::Null;
        for _ in 0..ROUNDS {
            let (t, s) = ours(&dir, 0);
            all.push(t);
            stats = s;
            one.push(ours(&dir, 1).0);
        }
        let t = Instant::now();
        let (receipts, bytes) = reference(&dir);
        let reference = t.elapsed();
        let (all_m, one_m) = (median(all), median(one));
        out(&format!(
            "crossverify ledger, all cores: {:.2} s (median of {ROUNDS}); 1 thread: {:.2} s",
            all_m.as_secs_f64(),
            one_m.as_secs_f64()
        ));
        out(&format!(
            "  blobs hashed {} ({} bytes), receipts {}",
            stats["blobsHashed"], stats["bytesHashed"], stats["receipts"]
        ));
        out(&format!(
            "reference approach, 1 thread: {:.2} s ({receipts} receipts, {bytes} bytes re-hashed)",
            reference.as_secs_f64()
        ));
        out(&format!(
            "ratio reference / crossverify: {:.1}× (all cores), {:.1}× (1 thread each); load after {}",
            reference.as_secs_f64() / all_m.as_secs_f64(),
            reference.as_secs_f64() / one_m.as_secs_f64(),
            load()
        ));
    }
}

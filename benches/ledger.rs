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
//! CROSSVERIFY_BENCH_DATA_ONLY=1 cargo bench --bench ledger  # only build the ledgers
//! CROSSVERIFY_BENCH_LEDGER=DIR cargo bench --bench ledger   # a ledger built by examples/synthetic_ledger.rs
//! CROSSVERIFY_BENCH_SCALE=1 CROSSVERIFY_BENCH_BASE=OLD cargo bench --bench ledger   # cold, re-verification, memory
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

#[path = "support/process.rs"]
mod process;
use process::{Mem, ledger_args, os, process, repack};

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
    // A ledger built elsewhere by `examples/synthetic_ledger.rs` (same shape, another seed).
    if let Some(dir) = std::env::var_os("CROSSVERIFY_BENCH_LEDGER") {
        return PathBuf::from(dir);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/bench-data/ledger-{cycles}x10000-c{churn_permille}"));
    let done = dir.join("done");
    if done.exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let t = Instant::now();
    let built = mint::synthetic(&dir, &shape(cycles, churn_permille)).expect("synthetic ledger");
    repack(&dir);
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
        for (path, want) in r.manifest.as_ref().expect("manifest").iter() {
            match science.entry(commit.tree, path.as_str().into()).expect("lookup") {
                Some(entry) => {
                    let blob = science.blob(entry.id).expect("blob");
                    bytes += blob.len() as u64;
                    mismatches += usize::from(Digest::of(&blob).hex() != want);
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
    let mut stats = serde_json::to_value(&report.stats).expect("stats");
    // Work figures stay out of the report (they depend on a cache); the bench prints them.
    for (k, v) in &report.work {
        stats[k] = (*v).into();
    }
    (took, stats)
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
    if std::env::var_os("CROSSVERIFY_BENCH_DATA_ONLY").is_some() {
        // Build (once) the ledgers the other modes read, for profiling by hand.
        for churn in [5, 20] {
            out(&data(cycles, churn).display().to_string());
        }
        out(&data(cycles / 4, 5).display().to_string());
        return;
    }
    if std::env::var_os("CROSSVERIFY_BENCH_SCALE").is_some() {
        scale(cycles);
        return;
    }
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

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).expect("cache copy dir");
    for e in std::fs::read_dir(from).expect("cache dir") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy cache file");
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// One contender's caches for the re-verification runs: `earlier` holds the ledger one cycle
/// short (`--audit-rev HEAD~2`: each cycle is two audit commits, report then receipt), warmed
/// by a cold run and a re-run (so the trees found whole are kept, `held-tree`) and kept as it
/// was, every round appending to a copy of it in `scratch`; `shared` holds the whole ledger,
/// for the unchanged case.
struct Caches {
    earlier: PathBuf,
    scratch: PathBuf,
    shared: PathBuf,
}

impl Caches {
    fn warm(bin: &Path, dir: &Path, cycles: usize, who: &str) -> Caches {
        let at = std::env::temp_dir().join(format!("crossverify-bench-cache-{}-{who}", std::process::id()));
        let c = Caches { earlier: at.with_extension("earlier"), scratch: at.with_extension("warm"), shared: at };
        for d in [&c.earlier, &c.scratch, &c.shared] {
            let _ = std::fs::remove_dir_all(d);
        }
        for pass in ["warming the cache on", "re-verifying (trees found whole not yet kept)"] {
            let p = process(bin, &os(&ledger_args(dir, &["--audit-rev", "HEAD~2", "--cache", &c.arg(&c.earlier)])));
            out(&format!("{who}, {pass} the first {} cycles: {:.2} s; {}", cycles - 1, secs(p.wall), p.stderr.trim()));
        }
        for _ in 0..2 {
            let _ = process(bin, &os(&ledger_args(dir, &["--cache", &c.arg(&c.shared)])));
        }
        c
    }

    fn arg(&self, d: &Path) -> String {
        d.to_str().expect("utf-8 temp dir").to_owned()
    }

    /// One round: the whole ledger from a copy of `earlier` (one cycle appended), then from
    /// `shared` (unchanged).
    fn round(&self, bin: &Path, dir: &Path) -> (process::Proc, process::Proc) {
        copy_dir(&self.earlier, &self.scratch);
        let appended = process(bin, &os(&ledger_args(dir, &["--cache", &self.arg(&self.scratch)])));
        let unchanged = process(bin, &os(&ledger_args(dir, &["--cache", &self.arg(&self.shared)])));
        (appended, unchanged)
    }
}

impl Drop for Caches {
    fn drop(&mut self) {
        for d in [&self.earlier, &self.scratch, &self.shared] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Issue 14's targets, as processes (`CROSSVERIFY_BENCH_SCALE=1`; `CROSSVERIFY_BENCH_BASE` is
/// the previous release's binary): cold runs of the previous release and of this one, the
/// re-verification of the ledger with one cycle appended and unchanged (both contenders, each
/// from caches it warmed itself), peak memory at two ledger sizes (the whole ledger, and its
/// first quarter by `--audit-rev`), and two shards merged.
fn scale(cycles: usize) {
    let new = PathBuf::from(
        std::env::var_os("CROSSVERIFY_BENCH_NEW").unwrap_or_else(|| env!("CARGO_BIN_EXE_crossverify").into()),
    );
    let base = std::env::var_os("CROSSVERIFY_BENCH_BASE").map(PathBuf::from);
    let small = cycles / 4;
    let dir = data(cycles, 5);
    let earlier = format!("HEAD~{}", 2 * (cycles - small));
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let ours = Caches::warm(&new, &dir, cycles, "this build");
    let theirs = base.as_ref().map(|b| (b, Caches::warm(b, &dir, cycles, "previous release")));
    // Cold, appended and unchanged times of this build, then of the previous release.
    let (mut t, mut t0) = ([Vec::new(), Vec::new(), Vec::new()], [Vec::new(), Vec::new(), Vec::new()]);
    let (mut cold_report, mut cold_mem) = (Vec::new(), Mem::default());
    for round in 0..ROUNDS {
        out(&format!("round {round}: load {}", load().trim()));
        if let Some((b, caches)) = &theirs {
            let p = process(b, &os(&ledger_args(&dir, &["--no-cache"])));
            out(&format!("  previous release, cold: {:.2} s, {}", secs(p.wall), p.mem.show()));
            let (a, u) = caches.round(b, &dir);
            out(&format!(
                "  previous release, one cycle appended: {:.2} s; unchanged: {:.2} s",
                secs(a.wall),
                secs(u.wall)
            ));
            for (v, x) in t0.iter_mut().zip([p.wall, a.wall, u.wall]) {
                v.push(x);
            }
        }
        let p = process(&new, &os(&ledger_args(&dir, &["--no-cache"])));
        out(&format!("  this build, cold (--no-cache): {:.2} s, {}", secs(p.wall), p.mem.show()));
        (cold_report, cold_mem) = (p.stdout, p.mem);
        let (a, u) = ours.round(&new, &dir);
        assert!(a.stdout == cold_report, "the report from the warm cache differs from the cold one");
        assert!(u.stdout == cold_report, "the cached report differs from the cold one");
        out(&format!(
            "  this build, {cycles} cycles from the cache of the first {}: {:.2} s, {}; {}",
            cycles - 1,
            secs(a.wall),
            a.mem.show(),
            a.stderr.trim()
        ));
        out(&format!("  this build, same {cycles} cycles, warm cache: {:.2} s, {}", secs(u.wall), u.mem.show()));
        for (v, x) in t.iter_mut().zip([p.wall, a.wall, u.wall]) {
            v.push(x);
        }
    }
    elsewhere(&new, &dir, &ours.arg(&ours.shared));
    let [b, c, same] = t.map(|v| secs(median(v)));
    out(&format!(
        "median cold {b:.2} s; one cycle appended, warm: {c:.2} s = {:.1}% of cold; unchanged, warm: {same:.2} s",
        100.0 * c / b,
    ));
    if theirs.is_some() {
        let [a, ac, asame] = t0.map(|v| secs(median(v)));
        out(&format!(
            "previous release: cold {a:.2} s, appended {ac:.2} s, unchanged {asame:.2} s; this build is {:.2}x faster cold, \
             {:.2}x appended, {:.2}x unchanged",
            a / b,
            ac / c,
            asame / same
        ));
    }
    let q = process(&new, &os(&ledger_args(&dir, &["--no-cache", "--audit-rev", &earlier])));
    out(&format!("peak memory, cold --no-cache: {small} cycles {}", q.mem.show()));
    out(&format!("peak memory, cold --no-cache: {cycles} cycles {}", cold_mem.show()));
    shards(&new, &dir, &cold_report);
}

/// The same ledger in a fresh clone elsewhere (a CI runner's new workspace): packs of its
/// own, so the first cached run reads them in full once (the seal), then the cycles
/// answered from the entries the other path wrote.
fn elsewhere(new: &Path, dir: &Path, cache_s: &str) {
    let elsewhere = std::env::temp_dir().join(format!("crossverify-bench-clone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&elsewhere);
    for repo in ["audit", "science"] {
        let st = Command::new("git")
            .args(["clone", "-q", "--mirror", "--no-local"])
            .arg(dir.join(repo))
            .arg(elsewhere.join(repo))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .expect("git runs");
        assert!(st.success(), "git clone {repo}");
    }
    for pass in ["first run (packs read in full unless byte-identical to packs read before)", "second run"] {
        let p = process(new, &os(&ledger_args(&elsewhere, &["--cache", cache_s])));
        out(&format!(
            "  a fresh clone elsewhere, {pass}, from the cache: {:.2} s, {}; {}",
            secs(p.wall),
            p.mem.show(),
            p.stderr.trim()
        ));
    }
    let _ = std::fs::remove_dir_all(&elsewhere);
}

/// Two shards at once, then merged: the merged bytes must equal one run's.
fn shards(new: &Path, dir: &Path, cold_report: &[u8]) {
    let t = Instant::now();
    let shard = |k: &str| {
        let args = ledger_args(dir, &["--no-cache", "--shard", k]);
        Command::new(new).args(&args).output().expect("shard runs")
    };
    let (s1, s2) = std::thread::scope(|s| {
        let h1 = s.spawn(|| shard("1/2"));
        let h2 = s.spawn(|| shard("2/2"));
        (h1.join().expect("shard 1"), h2.join().expect("shard 2"))
    });
    let shards_wall = t.elapsed();
    let f1 = std::env::temp_dir().join("crossverify-bench-shard-1.json");
    let f2 = std::env::temp_dir().join("crossverify-bench-shard-2.json");
    std::fs::write(&f1, &s1.stdout).expect("write shard");
    std::fs::write(&f2, &s2.stdout).expect("write shard");
    let m = process(
        new,
        &[std::ffi::OsStr::new("merge"), f1.as_os_str(), f2.as_os_str(), "--format".as_ref(), "json".as_ref()],
    );
    out(&format!(
        "2 shards in parallel: {:.2} s, merge {:.2} s; merged bytes equal one run: {}",
        secs(shards_wall),
        secs(m.wall),
        m.stdout == cold_report
    ));
}

//! Manifest derivation of a 20,000-file, ~200 MB packed tree, measured in one run against
//! (a) the pipeline a user would write (`git ls-tree -r -z` + one `git cat-file --batch` + SHA-256)
//! and (b) the floor (inflate + SHA-256 of the same blobs in one tight loop, one thread).
//! Afterwards, the peak memory of the real CLI on a 5,000-file and the 20,000-file tree.
//!
//! `benches/README.md` describes the method and records the figures. The data is generated
//! once into `target/bench-data/` (about a minute; needs the git CLI to pack it).

#![allow(clippy::print_stdout, reason = "a benchmark reports to its terminal")]
#![allow(missing_docs, reason = "criterion generates the entry point")]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossverify::git::{ObjectId, Repo, Scope};
use crossverify::manifest::{self, BlobHashes};
use crossverify::progress::Ctx;
use crossverify_fixtures::fixture::synthetic::{self, Fill, Options, Sizes};
use sha2::Digest as _;

/// The benchmark tree: 20,000 files, log-uniform 128 B..60 kB (mean ≈ 10 kB), numeric text,
/// five commits with 2% churn each so the pack holds deltas of older versions.
fn big() -> Options {
    Options {
        seed: 2026,
        commits: 5,
        files: 20_000,
        churn_permille: 20,
        sizes: Sizes::LogUniform { min: 128, max: 60_000 },
        fill: Fill::Text,
        files_per_dir: 100,
        prefix: "experiments".into(),
    }
}

/// A quarter of it, for the memory comparison.
fn quarter() -> Options {
    Options { files: 5_000, ..big() }
}

/// As many files with a tenth of the bytes: separates memory per entry from memory per byte.
fn light() -> Options {
    Options { sizes: Sizes::LogUniform { min: 13, max: 6_000 }, ..big() }
}

fn data_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"), PathBuf::from)
        .join("bench-data")
}

/// Builds (once) the loose and packed repositories for `opts`; returns the packed one.
fn packed(name: &str, opts: &Options) -> PathBuf {
    let dir = data_dir().join(name);
    let stamp = dir.join("built");
    let key = format!("{opts:?} v2\n");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(key.as_str()) {
        return dir.join("packed.git");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let t = Instant::now();
    let g = synthetic::generate(&dir.join("loose.git"), opts).expect("generate bench repository");
    println!(
        "bench-data/{name}: {} files, {} bytes, {} commits, generated in {:?}",
        g.files,
        g.bytes,
        g.commits.len(),
        t.elapsed()
    );
    let t = Instant::now();
    assert!(
        synthetic::pack_copy(&dir.join("loose.git"), &dir.join("packed.git")).expect("pack"),
        "the git CLI is needed to pack the bench repository"
    );
    println!("bench-data/{name}: packed in {:?}", t.elapsed());
    std::fs::write(&stamp, key).expect("stamp");
    dir.join("packed.git")
}

/// Blob ids of the regular files at `tip` (what every contender hashes).
fn blob_ids(repo: &Repo, tip: ObjectId) -> Vec<ObjectId> {
    let (_, entries) = manifest::list(repo, tip, &Scope::all()).expect("list");
    entries.into_iter().filter(|e| e.kind.is_file()).map(|e| e.id).collect()
}

/// (a) The straightforward pipeline: `git ls-tree -r -z REV` for the listing, then one
/// `git cat-file --batch` process fed every regular-file blob id on stdin (from a writer
/// thread), its output read sequentially and each blob hashed with SHA-256 (sha2, SHA-NI)
/// as it streams past. Returns path → hex digest.
fn baseline_git_pipeline(repo: &Path, rev: &str) -> Vec<(Vec<u8>, String)> {
    let git = |args: &[&str]| {
        let mut c = Command::new("git");
        c.args(args).current_dir(repo).env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null");
        c
    };
    let listing = git(&["ls-tree", "-r", "-z", rev]).output().expect("git ls-tree");
    assert!(listing.status.success());
    let mut files: Vec<(Vec<u8>, String)> = Vec::new();
    for rec in listing.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let tab = rec.iter().position(|b| *b == b'\t').expect("tab");
        let meta = std::str::from_utf8(&rec[..tab]).expect("ascii");
        let mut f = meta.split(' ');
        let mode = f.next().expect("mode");
        let id = f.nth(1).expect("id");
        if mode == "100644" || mode == "100755" {
            files.push((rec[tab + 1..].to_vec(), id.to_owned()));
        }
    }
    let mut child =
        git(&["cat-file", "--batch"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("git cat-file");
    let mut stdin = child.stdin.take().expect("stdin");
    let ids: String = files.iter().map(|(_, id)| format!("{id}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(ids.as_bytes()).expect("feed cat-file"));
    let mut out = BufReader::with_capacity(1 << 16, child.stdout.take().expect("stdout"));
    let mut header = String::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut result = Vec::with_capacity(files.len());
    for (path, _) in files {
        header.clear();
        out.read_line(&mut header).expect("header");
        let size: usize = header.trim_end().rsplit(' ').next().expect("size").parse().expect("size");
        let mut h = sha2::Sha256::new();
        let mut left = size;
        while left > 0 {
            let n = left.min(buf.len());
            out.read_exact(&mut buf[..n]).expect("blob");
            h.update(&buf[..n]);
            left -= n;
        }
        out.read_exact(&mut buf[..1]).expect("newline after the blob");
        result.push((path, hex::encode(h.finalize())));
    }
    writer.join().expect("writer");
    assert!(child.wait().expect("cat-file").success());
    result
}

/// (b) The floor: one thread, one reused buffer, gix's object database (object cache off, as
/// in crossverify) inflating each pre-listed blob and sha2 hashing it.
fn floor(repo_path: &Path, ids: &[ObjectId]) -> Vec<[u8; 32]> {
    use gix::objs::Find as _;
    let mut repo = gix::open_opts(repo_path, gix::open::Options::isolated()).expect("open");
    repo.object_cache_size(0);
    let mut buf = Vec::new();
    ids.iter()
        .map(|id| {
            let data = repo.objects.try_find(id, &mut buf).expect("readable").expect("present");
            sha2::Sha256::digest(data.data).into()
        })
        .collect()
}

fn derive(repo: &Path, tip: ObjectId) -> manifest::Manifest {
    let repo = Repo::open(repo).expect("open");
    manifest::derive(&repo, tip, &Scope::all(), &BlobHashes::new(), Ctx::silent()).expect("derive")
}

fn cli(repo: &Path, threads: Option<usize>) -> Vec<u8> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_crossverify"));
    c.arg("manifest").arg(repo).args(["HEAD", "--format", "json", "--quiet"]);
    if let Some(n) = threads {
        c.args(["--threads", &n.to_string()]);
    }
    let out = c.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").output().expect("crossverify");
    assert_eq!(out.status.code(), Some(0));
    out.stdout
}

fn bench(c: &mut Criterion) {
    let path = packed("manifest-20k", &big());
    let repo = Repo::open(&path).expect("open");
    let tip = repo.resolve("HEAD").expect("HEAD");
    let ids = blob_ids(&repo, tip);
    let bytes: u64 = ids.iter().map(|id| repo.blob_size(*id).expect("size")).sum();

    // Every contender computes the same digests.
    let ours = derive(&path, tip);
    let mine: Vec<(Vec<u8>, String)> = ours.entries.iter().map(|e| (e.path.to_vec(), e.value.marker())).collect();
    let mut theirs = baseline_git_pipeline(&path, "HEAD");
    theirs.sort();
    assert_eq!(mine, theirs, "crossverify and the git pipeline agree");
    let floor_digests = floor(&path, &ids);
    let by_id: std::collections::HashMap<ObjectId, String> =
        ours.entries.iter().map(|e| (e.id, e.value.marker())).collect();
    for (id, d) in ids.iter().zip(&floor_digests) {
        assert_eq!(by_id[id], hex::encode(d));
    }
    println!("tree: {} files, {} bytes of blobs, pack {} bytes", ids.len(), bytes, pack_size(&path));

    let mut g = c.benchmark_group("manifest-20k-200MB");
    g.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(3));
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("crossverify derive, rayon (all cores)", |b| b.iter(|| derive(&path, tip)));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    g.bench_function("crossverify derive, 1 thread", |b| b.iter(|| one.install(|| derive(&path, tip))));
    g.bench_function("crossverify CLI --format json (process)", |b| b.iter(|| cli(&path, None)));
    g.bench_function("(a) git ls-tree + cat-file --batch + sha2", |b| b.iter(|| baseline_git_pipeline(&path, "HEAD")));
    g.bench_function("(b) floor: gix find + sha2, 1 thread", |b| b.iter(|| floor(&path, &ids)));
    g.finish();
}

fn pack_size(repo: &Path) -> u64 {
    std::fs::read_dir(repo.join("objects/pack"))
        .map(|rd| rd.filter_map(Result::ok).filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

/// Peak memory of the CLI: `/proc/<pid>/status` polled every millisecond. `VmHWM` is the
/// kernel's own high-water mark (heap plus the file-backed pages of the mapped pack); the
/// largest `RssAnon` sample approximates the heap's peak alone.
fn peak_memory(repo: &Path, threads: Option<usize>) -> (u64, u64, Duration) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_crossverify"));
    c.arg("manifest").arg(repo).args(["HEAD", "--format", "json", "--quiet"]);
    if let Some(n) = threads {
        c.args(["--threads", &n.to_string()]);
    }
    let t = Instant::now();
    let mut child = c.stdout(Stdio::null()).spawn().expect("crossverify");
    let status = format!("/proc/{}/status", child.id());
    let (mut hwm, mut anon) = (0u64, 0u64);
    loop {
        if let Ok(s) = std::fs::read_to_string(&status) {
            for line in s.lines() {
                let kb = |l: &str| l.split_whitespace().nth(1).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
                if line.starts_with("VmHWM:") {
                    hwm = hwm.max(kb(line));
                } else if line.starts_with("RssAnon:") {
                    anon = anon.max(kb(line));
                }
            }
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    (hwm, anon, t.elapsed())
}

fn memory(_: &mut Criterion) {
    if !Path::new("/proc/self/status").exists() {
        return;
    }
    for (name, opts) in [("manifest-5k", quarter()), ("manifest-20k-light", light()), ("manifest-20k", big())] {
        let path = packed(name, &opts);
        let repo = Repo::open(&path).expect("open");
        let tip = repo.resolve("HEAD").expect("HEAD");
        let bytes: u64 = blob_ids(&repo, tip).iter().map(|id| repo.blob_size(*id).expect("size")).sum();
        for threads in [Some(1), None] {
            let (hwm, anon, took) = peak_memory(&path, threads);
            println!(
                "peak memory, {name} ({} files, {} MB of blobs, pack {} MB), threads {}: VmHWM {} MB, max sampled RssAnon {} MB ({took:?})",
                opts.files,
                bytes / 1_000_000,
                pack_size(&path) / 1_000_000,
                threads.map_or("all".to_owned(), |n| n.to_string()),
                hwm / 1000,
                anon / 1000
            );
        }
        // The same for git's half of baseline (a), for scale: git maps packs too.
        if let Some(kb) = git_cat_file_peak(&path) {
            println!("peak memory, {name}: git cat-file --batch over the same blobs: max RSS {} MB", kb / 1000);
        }
    }
}

/// `git ls-tree -r HEAD | … | git cat-file --batch` under `/usr/bin/time`: the largest
/// process's maximum RSS in kB.
fn git_cat_file_peak(repo: &Path) -> Option<u64> {
    let script = "git ls-tree -r HEAD | awk '$2 == \"blob\" { print $3 }' | git cat-file --batch > /dev/null";
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M", "sh", "-c", script])
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr).lines().last()?.trim().parse().ok()
}

/// The five contenders again, interleaved round by round, so that a change in machine load
/// hits all of them alike; prints medians and the ratios the targets are stated in.
fn interleaved(_: &mut Criterion) {
    const ROUNDS: usize = 7;
    let path = packed("manifest-20k", &big());
    let repo = Repo::open(&path).expect("open");
    let tip = repo.resolve("HEAD").expect("HEAD");
    let ids = blob_ids(&repo, tip);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let mut times: [Vec<f64>; 5] = Default::default();
    for _ in 0..ROUNDS {
        let mut time = |i: usize, f: &mut dyn FnMut()| {
            let t = Instant::now();
            f();
            times[i].push(t.elapsed().as_secs_f64());
        };
        time(0, &mut || drop(std::hint::black_box(derive(&path, tip))));
        time(1, &mut || drop(std::hint::black_box(one.install(|| derive(&path, tip)))));
        time(2, &mut || drop(std::hint::black_box(cli(&path, None))));
        time(3, &mut || drop(std::hint::black_box(baseline_git_pipeline(&path, "HEAD"))));
        time(4, &mut || drop(std::hint::black_box(floor(&path, &ids))));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let m: Vec<f64> = times.iter_mut().map(median).collect();
    let names = ["derive, all cores", "derive, 1 thread", "CLI process", "(a) git pipeline", "(b) floor"];
    for (n, t) in names.iter().zip(&m) {
        println!("interleaved, median of {ROUNDS}: {n}: {:.0} ms", t * 1000.0);
    }
    println!(
        "interleaved ratios: (a)/derive all cores {:.2}x, (a)/CLI {:.2}x, derive 1 thread/(b) {:.2}x, derive all cores/(b) {:.2}x",
        m[3] / m[0],
        m[3] / m[2],
        m[1] / m[4],
        m[0] / m[4]
    );
}

criterion_group!(benches, bench, interleaved, memory);
criterion_main!(benches);

//! Scaling curves (issue 26): how the cost grows, not one point. Time and peak heap of
//! `crossverify ledger` against the number of cycles (at 2,000 files per commit) and against
//! files per commit (at 200 cycles), and the time of a CrossExam replay against the size of the
//! bus; each series with its fitted growth exponent (the slope of log time over log size, least
//! squares), drawn as SVG into `benches/curves/`. No timing is asserted; run it by hand:
//!
//! ```sh
//! cargo bench --bench curves                              # builds target/bench-data/curve-* once
//! CROSSVERIFY_CURVES=transcript cargo bench --bench curves  # one series (cycles, files, transcript)
//! CROSSVERIFY_CURVES_BIN=/path/to/crossverify cargo bench --bench curves   # time another build
//! CROSSVERIFY_CURVES_DATA_ONLY=1 cargo bench --bench curves  # only build the ledgers
//! CROSSVERIFY_CURVES=transcript-cli CROSSVERIFY_CURVES_BASE=/path/to/old/crossverify \
//!   cargo bench --bench curves   # the command line on a 60 MiB debate, against another build
//! ```
//!
//! The ledgers are `crossverify_fixtures::mint::synthetic` schema-2 ledgers, as in
//! `benches/ledger.rs`, with files of 1–3 KiB (mean 2 KiB, so that the 50,000-file point stays
//! at 100 MB a tip) and 5‰ churn, packed with `git repack -adq`. Each point is the median of
//! `ROUNDS` cold runs (`--no-cache`), one process each.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crossverify_fixtures::fixture::synthetic::{Options, Sizes};
use crossverify_fixtures::mint;

#[path = "support/judge.rs"]
mod judged;
#[path = "support/process.rs"]
mod process;
use process::{ledger_args, os, process, repack};

const ROUNDS: usize = 3;
const CYCLES: [usize; 5] = [100, 250, 500, 1000, 2000];
const FILES_AT: usize = 2000;
const FILES: [usize; 5] = [1000, 5000, 10_000, 25_000, 50_000];
const CYCLES_AT: usize = 200;
const BUS_MIB: [usize; 6] = [1, 2, 4, 8, 16, 64];

fn out(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Builds (once) and packs a ledger of `cycles` cycles over `files` files; its directory.
fn data(cycles: usize, files: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/bench-data/curve-{cycles}x{files}"));
    let done = dir.join("done");
    if done.exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let t = Instant::now();
    let shape = mint::Synthetic {
        science: Options {
            seed: 26,
            commits: cycles,
            files,
            churn_permille: 5,
            sizes: Sizes::Uniform { min: 1024, max: 3072 },
            files_per_dir: 100,
            ..Options::default()
        },
        blocked_every: 4,
    };
    let built = mint::synthetic(&dir, &shape).expect("synthetic ledger");
    repack(&dir);
    std::fs::write(&done, format!("{} cycles, {} bound entries\n", built.cycles, built.bound_entries)).expect("marker");
    out(&format!("built {} in {:.0} s", dir.display(), t.elapsed().as_secs_f64()));
    dir
}

/// One measured point: the size, the median wall time in seconds, the largest heap in MB.
#[derive(Clone, Copy)]
struct Point {
    x: f64,
    secs: f64,
    heap_mb: Option<f64>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The least-squares slope of `ln y` over `ln x`: 1.0 is linear growth.
fn exponent(points: &[(f64, f64)]) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let n = points.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = points.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

fn ledger_point(exe: &Path, cycles: usize, files: usize, x: usize) -> Point {
    let dir = data(cycles, files);
    let mut times = Vec::new();
    let mut heap = None::<u64>;
    for _ in 0..ROUNDS {
        let p = process(exe, &os(&ledger_args(&dir, &["--no-cache", "--quiet"])));
        times.push(p.wall.as_secs_f64());
        if p.mem.samples > 0 {
            heap = Some(heap.unwrap_or(0).max(p.mem.anon_kb));
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let point = Point { x: x as f64, secs: median(times), heap_mb: heap.map(|kb| kb as f64 / 1024.0) };
    let heap = point.heap_mb.map_or_else(|| "not measured".to_owned(), |h| format!("{h:.0} MB"));
    out(&format!("  {cycles} cycles x {files} files: {:.2} s, heap {heap}", point.secs));
    point
}

/// A genuine debate of four seats, `size` bytes of bus: the blind claims, the reveal, then
/// verifications, challenges and concessions in turn, then the close.
fn debate(size: usize) -> Vec<u8> {
    let seats = ["sonnet", "gemini", "gpt", "opus"];
    let mut bus = String::with_capacity(size + 512);
    for s in seats {
        let _ = writeln!(
            bus,
            "{{\"ts\": \"2026-11-30T12:00:00+00:00\", \"from\": \"{s}\", \"type\": \"claim\", \"msg\": \"61 on site; excluded 49 unreadable plates\"}}"
        );
    }
    bus.push_str("{\"ts\": \"2026-11-30T12:00:01+00:00\", \"from\": \"moderator\", \"type\": \"info\", \"msg\": \"phase -> debate (4 sealed claim(s) revealed)\"}\n");
    let kinds = ["verify", "challenge", "concede"];
    let mut i = 0usize;
    while bus.len() < size {
        let _ = writeln!(
            bus,
            "{{\"ts\": \"2026-11-30T12:{:02}:{:02}+00:00\", \"from\": \"{}\", \"type\": \"{}\", \"msg\": \"row {i}: 7 entry->exit pairs under 10s reproduce; adopting the event-level frame for plate {i}\"}}",
            (i / 60) % 60,
            i % 60,
            seats[i % seats.len()],
            kinds[(i / seats.len()) % kinds.len()]
        );
        i += 1;
    }
    bus.push_str("{\"ts\": \"2026-11-30T13:00:00+00:00\", \"from\": \"moderator\", \"type\": \"info\", \"msg\": \"phase -> closed\"}\n");
    bus.into_bytes()
}

fn transcript_point(mib: usize) -> Point {
    let bus = debate(mib << 20);
    let len = bus.len();
    let secs = judged::median_secs(&judged::arena(bus, "closed", Vec::new(), None), ROUNDS);
    #[allow(clippy::cast_precision_loss)]
    let point = Point { x: len as f64 / f64::from(1u32 << 20), secs, heap_mb: None };
    out(&format!("  {mib} MiB bus: {:.3} s, {:.0} MiB/s", point.secs, point.x / point.secs));
    point
}

/// Interleaved pairs of `transcript-cli` runs.
const CLI_ROUNDS: usize = 10;

/// The command line on a 60 MiB debate (file read, SHA-256, the whole replay, the JSON report),
/// with the default threads and with one, against `CROSSVERIFY_CURVES_BASE` in interleaved
/// pairs when it is set: the medians, and each pair's ratio sorted. Reports of both builds
/// must be the same but for the build's commit, and the same for any number of threads.
fn transcript_cli(exe: &Path) {
    let root = std::env::temp_dir().join(format!("crossverify-bench-debate-{}", std::process::id()));
    let dir = root.join("_Msg");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let bus = debate(60 << 20);
    std::fs::write(dir.join("bus.jsonl"), &bus).expect("write the bus");
    std::fs::write(dir.join("task.md"), "# Task\nstatus: closed\nmoderator: human\n").expect("write task.md");
    let base = std::env::var_os("CROSSVERIFY_CURVES_BASE").map(PathBuf::from);
    let run = |bin: &Path, extra: &[&str]| {
        let t = Instant::now();
        let o = std::process::Command::new(bin)
            .arg("transcript")
            .arg(&dir)
            .args(["--quiet", "--format", "json"])
            .args(extra)
            .output()
            .expect("crossverify runs");
        assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{}", String::from_utf8_lossy(&o.stderr));
        let report: String =
            String::from_utf8_lossy(&o.stdout).lines().filter(|l| !l.contains("\"commit\":")).collect();
        (t.elapsed().as_secs_f64(), report)
    };
    #[allow(clippy::cast_precision_loss)]
    let mb = bus.len() as f64 / 1e6;
    let mut reports = Vec::new();
    for extra in [&[][..], &["--threads", "1"][..]] {
        let (mut new, mut old, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..CLI_ROUNDS {
            let (t, report) = run(exe, extra);
            if let Some(b) = &base {
                let (tb, base_report) = run(b, extra);
                assert_eq!(base_report, report, "the baseline's report differs");
                old.push(tb);
                ratios.push(tb / t);
            }
            new.push(t);
            reports.push(report);
        }
        let threads = if extra.is_empty() { "default threads" } else { "--threads 1" };
        let new = median(new);
        out(&format!("  60 MiB bus, {threads}: {new:.3} s = {:.0} MB/s", mb / new));
        if !old.is_empty() {
            let old = median(old);
            ratios.sort_by(f64::total_cmp);
            let ratios: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
            out(&format!("    baseline {old:.3} s = {:.0} MB/s; pair ratios {}", mb / old, ratios.join(" ")));
        }
    }
    assert!(reports.windows(2).all(|w| w[0] == w[1]), "reports differ between runs or thread counts");
    let _ = std::fs::remove_dir_all(&root);
}

/// A plot of `points` (time on the left axis, heap on the right when measured), both axes
/// logarithmic so that a power law is a straight line and its slope the exponent.
fn svg(title: &str, x_label: &str, points: &[Point], slope: f64) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 400.0, 70.0, 70.0, 40.0, 50.0);
    let lo = |f: &dyn Fn(&Point) -> f64| points.iter().map(f).fold(f64::INFINITY, f64::min).ln();
    let hi = |f: &dyn Fn(&Point) -> f64| points.iter().map(f).fold(0.0, f64::max).ln();
    let (x0, x1) = (lo(&|p| p.x), hi(&|p| p.x));
    let (t0, t1) = (lo(&|p| p.secs) - 0.1, hi(&|p| p.secs) + 0.1);
    let px = |x: f64| left + (x.ln() - x0) / (x1 - x0).max(1e-9) * (w - left - right);
    let py = |y: f64, a: f64, b: f64| h - bottom - (y.ln() - a) / (b - a).max(1e-9) * (h - top - bottom);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<title>{title}</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n<text x=\"{left}\" y=\"22\" font-size=\"14\">{title} (exponent {slope:.2})</text>\n"
    );
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>",
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    let _ =
        writeln!(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{x_label} (log scale)</text>", w / 2.0, h - 12.0);
    let _ = writeln!(
        s,
        "<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\" fill=\"#1f77b4\">seconds (log scale)</text>",
        h / 2.0,
        h / 2.0
    );
    let line = |s: &mut String, ys: &dyn Fn(&Point) -> Option<f64>, a: f64, b: f64, colour: &str| {
        let pts: Vec<String> =
            points.iter().filter_map(|p| ys(p).map(|y| format!("{:.1},{:.1}", px(p.x), py(y, a, b)))).collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            pts.join(" ")
        );
        for p in points {
            if let Some(y) = ys(p) {
                let (cx, cy) = (px(p.x), py(y, a, b));
                let _ = writeln!(s, "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"3.5\" fill=\"{colour}\"/>");
                let label = if colour == "#1f77b4" { format!("{y:.2} s") } else { format!("{y:.0} MB") };
                let _ =
                    writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{colour}\">{label}</text>", cx + 5.0, cy - 6.0);
            }
        }
    };
    line(&mut s, &|p| Some(p.secs), t0, t1, "#1f77b4");
    if points.iter().all(|p| p.heap_mb.is_some()) {
        let (m0, m1) = (lo(&|p| p.heap_mb.unwrap_or(1.0)) - 0.1, hi(&|p| p.heap_mb.unwrap_or(1.0)) + 0.1);
        line(&mut s, &|p| p.heap_mb, m0, m1, "#d62728");
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" transform=\"rotate(90 {} {})\" text-anchor=\"middle\" fill=\"#d62728\">peak heap, MB (log scale)</text>",
            w - 14.0,
            h / 2.0,
            w - 14.0,
            h / 2.0
        );
    }
    for p in points {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            px(p.x),
            h - bottom + 16.0,
            p.x.round()
        );
    }
    s.push_str("</svg>\n");
    s
}

fn series(name: &str, title: &str, x_label: &str, points: &[Point]) {
    let slope = exponent(&points.iter().map(|p| (p.x, p.secs)).collect::<Vec<_>>());
    let heap = points
        .iter()
        .map(|p| p.heap_mb.map(|h| (p.x, h)))
        .collect::<Option<Vec<_>>>()
        .map_or_else(|| "not measured".to_owned(), |v| format!("{:.2}", exponent(&v)));
    out(&format!("{name}: time exponent {slope:.2}, heap exponent {heap}"));
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/curves");
    std::fs::create_dir_all(&dir).expect("benches/curves");
    std::fs::write(dir.join(format!("{name}.svg")), svg(title, x_label, points, slope)).expect("write the plot");
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let exe = PathBuf::from(
        std::env::var_os("CROSSVERIFY_CURVES_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_crossverify").into()),
    );
    let only = std::env::var("CROSSVERIFY_CURVES").unwrap_or_default();
    if std::env::var_os("CROSSVERIFY_CURVES_DATA_ONLY").is_some() {
        // Build (once) every ledger of both series, for a later quiet run.
        for c in CYCLES {
            out(&data(c, FILES_AT).display().to_string());
        }
        for f in FILES {
            out(&data(CYCLES_AT, f).display().to_string());
        }
        return;
    }
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    out(&format!("binary {}; load {}", exe.display(), load().trim()));
    if only.is_empty() || only == "cycles" {
        out(&format!("ledger against cycles, {FILES_AT} files per commit"));
        let points: Vec<Point> = CYCLES.iter().map(|&c| ledger_point(&exe, c, FILES_AT, c)).collect();
        series("ledger-cycles", &format!("crossverify ledger, {FILES_AT} files"), "cycles", &points);
    }
    if only.is_empty() || only == "files" {
        out(&format!("ledger against files per commit, {CYCLES_AT} cycles"));
        let points: Vec<Point> = FILES.iter().map(|&f| ledger_point(&exe, CYCLES_AT, f, f)).collect();
        series("ledger-files", &format!("crossverify ledger, {CYCLES_AT} cycles"), "files per commit", &points);
    }
    if only.is_empty() || only == "transcript" {
        out("CrossExam replay against bus size");
        let points: Vec<Point> = BUS_MIB.iter().map(|&m| transcript_point(m)).collect();
        series("transcript", "CrossExam replay (crossexam::judge)", "bus MiB", &points);
    }
    if only == "transcript-cli" {
        out("CrossExam command line, 60 MiB debate");
        transcript_cli(&exe);
    }
    out(&format!("load after {}", load().trim()));
}

//! Pairing records with repositories in a journal's submission (issue 46, §4): a folder of N
//! copies of one paired ledger (its science and audit repositories), verified in one run by
//! the library (`submission::verify`, in process). Each ledger needs its science repository;
//! the intake pairs it through an index of the commits it binds, opening each repository once,
//! instead of running the ledger against each candidate (which was quadratic: 20 copies took
//! 2 s and 60 copies 13 s). Prints the median time per size, the time per record against the
//! smallest size's (the baseline of the same run), and the growth exponent (least squares of
//! log time over log N). No timing is asserted; run it by hand:
//!
//! ```sh
//! cargo bench --bench pairing
//! CROSSVERIFY_PAIRING_SIZES=10,20,40,80 cargo bench --bench pairing
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

const ROUNDS: usize = 3;

fn out(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("create");
    for e in std::fs::read_dir(src).expect("read").filter_map(Result::ok) {
        let to = dst.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).expect("copy");
        }
    }
}

/// A folder holding `n` copies of the demo fixture's science and audit repositories.
fn submission(base: &Path, demo: &Path, n: usize) -> PathBuf {
    let dir = base.join(format!("n{n}"));
    if !dir.exists() {
        for i in 0..n {
            copy_dir(demo, &dir.join(format!("paper{i:03}")));
        }
    }
    dir
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::var("CROSSVERIFY_PAIRING_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![5, 10, 20, 40, 60]);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let base = root.join("target/bench-data/pairing");
    let demo = base.join("demo");
    if !demo.join("audit").exists() {
        let _ = std::fs::remove_dir_all(&demo);
        crossverify_fixtures::mint::build_file(&root.join("ledger-fixtures/demo.toml"), &demo)
            .expect("the demo ledger");
    }
    out(&format!("pairing: N copies of a paired ledger (2 repositories each), median of {ROUNDS} runs"));
    out("| N | repositories | records | median s | s per record | per record vs N=first |");
    out("|---|---|---|---|---|---|");
    let mut points = Vec::new();
    let mut first_per: Option<f64> = None;
    for &n in &sizes {
        let dir = submission(&base, &demo, n);
        let mut times = Vec::new();
        let mut records = 0;
        for _ in 0..ROUNDS {
            let work = tempfile::tempdir().expect("work");
            let inputs = [dir.clone()];
            let opts = crossverify::submission::Options {
                inputs: &inputs,
                work: work.path(),
                limits: crossverify::intake::Limits::default(),
                trust_store: None,
                accept_self_declared: false,
                verified_at: "2026-12-02T00:00:00Z",
            };
            let t = Instant::now();
            let report =
                crossverify::submission::verify(&opts, crossverify::progress::Ctx::silent()).expect("verifies");
            times.push(t.elapsed().as_secs_f64());
            records = report.sections.get("records").and_then(serde_json::Value::as_array).map_or(0, Vec::len);
            assert_eq!(report.exit_code(), 0, "every copy pairs with its own science repository");
        }
        let secs = median(times);
        let per = secs / n as f64;
        let base_per = *first_per.get_or_insert(per);
        out(&format!("| {n} | {} | {records} | {secs:.3} | {per:.4} | {:.2}x |", 2 * n, per / base_per));
        points.push((n as f64, secs));
    }
    let (xs, ys): (Vec<f64>, Vec<f64>) = points.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let k = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
    let num: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    out(&format!("growth exponent (time against N): {:.2}", num / den));
}

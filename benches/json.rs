//! The strict JSON parser on receipt-shaped input (issue 14 §2): long objects of 64-hex-digit
//! strings, against `serde_json::from_slice` into `serde_json::Value` on the same bytes, both
//! in this process, interleaved round by round so load changes hit both alike.
//!
//! ```sh
//! cargo bench --bench json                       # MB/s, medians of 15 interleaved rounds
//! cargo bench --bench json -- callgrind strict   # one parse, for `valgrind --tool=callgrind`
//! cargo bench --bench json -- callgrind serde
//! ```
//! The callgrind mode parses the document once after building it; subtract the `build` mode's
//! count to get the parser's instructions (load-independent, the primary figure).

use std::time::Instant;

const ROUNDS: usize = 15;

fn out(line: &str) {
    use std::io::Write as _;
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{line}");
}

/// A schema-2 receipt with `files` manifest entries (the bench ledger's receipts have 10,000),
/// written the way the product writes it: sorted keys, two-space indent.
fn receipt(files: usize) -> Vec<u8> {
    let mut manifest = serde_json::Map::new();
    for i in 0..files {
        let digest: String = (0..64).map(|j| char::from(b"0123456789abcdef"[(i * 31 + j * 7) % 16])).collect();
        manifest.insert(format!("experiments/run-{:03}/data/file-{i:05}.csv", i / 100), digest.into());
    }
    let doc = serde_json::json!({
        "schema": 2,
        "cycle_id": "2026-07-30-demo-r1",
        "inputs": {"manifest": manifest, "scope": ["experiments/"]},
        "sha": "0123456789abcdef0123456789abcdef01234567",
        "verdict": "PASS",
    });
    serde_json::to_vec_pretty(&doc).expect("serialises")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = receipt(10_000);
    if let Some(i) = args.iter().position(|a| a == "callgrind") {
        match args.get(i + 1).map(String::as_str) {
            Some("strict") => assert!(crossverify::json::parse(&bytes).is_ok()),
            Some("serde") => assert!(serde_json::from_slice::<serde_json::Value>(&bytes).is_ok()),
            _ => {}
        }
        return;
    }
    // Same bytes, same value: the strict parser agrees with serde_json here.
    let strict = crossverify::json::parse(&bytes).expect("the receipt parses");
    let serde: serde_json::Value = serde_json::from_slice(&bytes).expect("serde parses");
    assert_eq!(crossverify::json::to_serde(&strict), serde);
    let mb = bytes.len() as f64 / 1e6;
    out(&format!("receipt: {} bytes, 10,000 manifest entries", bytes.len()));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        std::hint::black_box(crossverify::json::parse(std::hint::black_box(&bytes)).expect("parses"));
        a.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        std::hint::black_box(
            serde_json::from_slice::<serde_json::Value>(std::hint::black_box(&bytes)).expect("parses"),
        );
        b.push(t.elapsed().as_secs_f64());
    }
    let (a, b) = (median(a), median(b));
    out(&format!("crossverify json::parse     median {:.3} ms  {:.0} MB/s", a * 1e3, mb / a));
    out(&format!("serde_json::from_slice     median {:.3} ms  {:.0} MB/s", b * 1e3, mb / b));
    out(&format!("ratio strict / serde_json   {:.2}x the time", a / b));
}

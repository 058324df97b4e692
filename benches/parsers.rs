//! Time of every parser of untrusted input against input size, on the hostile inputs of the
//! memory-budget test (`crossverify::fuzzing::hostile_inputs`, through each parser's fuzz
//! property): medians of 5 rounds at four sizes doubling up to 8 MiB, or up to the parser's own
//! size limit when that is smaller (beyond it an input is refused unread, which says nothing
//! about the parser), and the growth exponent fitted over that 8× range (1.0 is linear; issue
//! 21 §5 asks for linear time). One line per parser and input; `-` where the smallest size
//! takes under a millisecond (the clock, not the parser, would decide the slope).
//!
//! ```sh
//! cargo bench --bench parsers                  # every parser
//! cargo bench --bench parsers -- JSON          # parsers whose name contains JSON
//! CROSSVERIFY_BENCH_MIB=64 cargo bench --bench parsers -- JSON   # sizes up to 64 MiB
//! ```

use std::time::Instant;

/// Rounds per size (the median is kept), unless `CROSSVERIFY_BENCH_ROUNDS` says otherwise: one
/// round under `valgrind --tool=callgrind`, which counts instructions rather than time.
const ROUNDS: usize = 5;
/// The largest size measured, in MiB, unless `CROSSVERIFY_BENCH_MIB` says otherwise.
const LARGEST_MIB: usize = 8;

fn out(line: &str) {
    use std::io::Write as _;
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{line}");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

type Property = fn(&[u8]);

/// A parser: its name, its fuzz property and its size limit (`usize::MAX` for none).
type Parser = (&'static str, Property, usize);

fn parsers() -> Vec<Parser> {
    use crossverify::fuzzing as f;
    let unlimited: Vec<(&'static str, Property)> = vec![
        ("JSON", f::json_parse),
        ("receipt", f::receipt_parse),
        ("ledger text (report.md, crossaudit.yml, Constitution)", f::ledger_text),
        ("ledger JSON records", f::ledger_json_records),
        ("Proof-or-Stop envelope", f::pos_envelope),
        ("Proof-or-Stop statement", f::pos_statement),
        ("CrossExam bus", f::crossexam_bus),
        ("DSSE envelope", f::dsse_envelope),
        ("cache entry", f::cache_entry),
    ];
    let mut v: Vec<Parser> = unlimited.into_iter().map(|(n, r)| (n, r, usize::MAX)).collect();
    v.extend([
        ("claims", f::claims_parse as Property, crossverify::stats::claims::MAX_FILE_BYTES),
        ("Proof-or-Stop trust store", f::pos_trust_store, crossverify::proof_or_stop::trust_store::MAX_BYTES),
        ("sshsig", f::sshsig, crossverify::trust::sshsig::MAX_ARMOR_BYTES),
        ("allowed signers", f::allowed_signers, crossverify::trust::allowed_signers::MAX_FILE_BYTES),
    ]);
    #[cfg(feature = "sigstore")]
    v.push(("Sigstore bundle", f::sigstore_bundle, crossverify::trust::sigstore::MAX_BYTES));
    v
}

/// Four sizes doubling up to `largest` bytes.
fn sizes(largest: usize) -> [usize; 4] {
    [largest / 8, largest / 4, largest / 2, largest]
}

fn show(bytes: usize) -> String {
    if bytes >= 1 << 20 { format!("{} MiB", bytes >> 20) } else { format!("{} KiB", bytes >> 10) }
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let largest_mib: usize = std::env::var("CROSSVERIFY_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|m| *m >= 1)
        .unwrap_or(LARGEST_MIB);
    let rounds: usize = std::env::var("CROSSVERIFY_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|r| *r >= 1)
        .unwrap_or(ROUNDS);
    let mut inputs: std::collections::BTreeMap<usize, Vec<(&'static str, Vec<u8>)>> = std::collections::BTreeMap::new();
    out("parser | input | sizes | ms at each size | exponent");
    let mut worst: f64 = 0.0;
    for (name, run, limit) in parsers() {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let sizes = sizes((largest_mib << 20).min(limit));
        for n in sizes {
            inputs.entry(n).or_insert_with(|| crossverify::fuzzing::hostile_inputs(n));
        }
        for (k, (shape, _)) in inputs[&sizes[0]].iter().enumerate() {
            let ms: Vec<f64> = sizes
                .iter()
                .map(|n| {
                    let data = &inputs[n][k].1;
                    median(
                        (0..rounds)
                            .map(|_| {
                                let t = Instant::now();
                                run(std::hint::black_box(data));
                                t.elapsed().as_secs_f64() * 1e3
                            })
                            .collect(),
                    )
                })
                .collect();
            let exponent = if ms[0] < 1.0 { None } else { Some((ms[3] / ms[0]).log2() / 3.0) };
            if let Some(e) = exponent {
                worst = worst.max(e);
            }
            out(&format!(
                "{name} | {shape} | {} to {} | {:.1} / {:.1} / {:.1} / {:.1} | {}",
                show(sizes[0]),
                show(sizes[3]),
                ms[0],
                ms[1],
                ms[2],
                ms[3],
                exponent.map_or_else(|| "-".to_owned(), |e| format!("{e:.2}"))
            ));
        }
    }
    out(&format!("largest exponent: {worst:.2}"));
}

//! Time of every parser of untrusted input against input size, on the hostile inputs of the
//! memory-budget test (`crossverify::fuzzing::hostile_inputs`, through each parser's fuzz
//! property): medians of 5 rounds at 1, 2, 4 and 8 MiB, and the growth exponent fitted between
//! 1 and 8 MiB (1.0 is linear; issue 21 §5 asks for linear time). One line per parser and input.
//!
//! ```sh
//! cargo bench --bench parsers                  # every parser
//! cargo bench --bench parsers -- JSON          # parsers whose name contains JSON
//! ```

use std::time::Instant;

const ROUNDS: usize = 5;
const SIZES: [usize; 4] = [1 << 20, 2 << 20, 4 << 20, 8 << 20];

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

fn parsers() -> Vec<(&'static str, Property)> {
    use crossverify::fuzzing as f;
    let mut v: Vec<(&'static str, Property)> = vec![
        ("JSON", f::json_parse),
        ("receipt", f::receipt_parse),
        ("ledger text (report.md, crossaudit.yml, Constitution)", f::ledger_text),
        ("ledger JSON records", f::ledger_json_records),
        ("claims", f::claims_parse),
        ("Proof-or-Stop envelope", f::pos_envelope),
        ("Proof-or-Stop statement", f::pos_statement),
        ("Proof-or-Stop trust store", f::pos_trust_store),
        ("CrossExam bus", f::crossexam_bus),
        ("sshsig", f::sshsig),
        ("allowed signers", f::allowed_signers),
        ("DSSE envelope", f::dsse_envelope),
        ("cache entry", f::cache_entry),
    ];
    #[cfg(feature = "sigstore")]
    let sigstore: Vec<(&'static str, Property)> = vec![("Sigstore bundle", f::sigstore_bundle)];
    #[cfg(not(feature = "sigstore"))]
    let sigstore: Vec<(&'static str, Property)> = Vec::new();
    v.extend(sigstore);
    v
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let inputs: Vec<Vec<(&'static str, Vec<u8>)>> =
        SIZES.iter().map(|n| crossverify::fuzzing::hostile_inputs(*n)).collect();
    out("parser | input | ms at 1/2/4/8 MiB | exponent (1 to 8 MiB)");
    let mut worst: f64 = 0.0;
    for (name, run) in parsers() {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        for (k, (shape, _)) in inputs[0].iter().enumerate() {
            let ms: Vec<f64> = inputs
                .iter()
                .map(|set| {
                    let data = &set[k].1;
                    median(
                        (0..ROUNDS)
                            .map(|_| {
                                let t = Instant::now();
                                run(std::hint::black_box(data));
                                t.elapsed().as_secs_f64() * 1e3
                            })
                            .collect(),
                    )
                })
                .collect();
            // Below a millisecond the clock, not the parser, decides the slope.
            let exponent = if ms[0] < 1.0 { f64::NAN } else { (ms[3] / ms[0]).log2() / 3.0 };
            if exponent.is_finite() {
                worst = worst.max(exponent);
            }
            out(&format!(
                "{name} | {shape} | {:.1} / {:.1} / {:.1} / {:.1} | {exponent:.2}",
                ms[0], ms[1], ms[2], ms[3]
            ));
        }
    }
    out(&format!("largest exponent: {worst:.2}"));
}

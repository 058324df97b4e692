//! Time of a CrossExam replay on the worst inputs of `tests/memory_budget/crossexam.rs` at three
//! sizes (issue 21 §5): the time per input byte should stay flat as the size quadruples, which
//! is what "linear" means here, and the growth exponent fitted over the sizes near 1. Lines that
//! are no message (blank, whitespace, CRLF, malformed, not UTF-8, alone or in turn) should replay
//! at 50 MB/s or more (issue 46). No timing is asserted anywhere; run it by hand:
//!
//! ```sh
//! cargo bench --bench crossexam            # medians of 5 rounds at 256 KiB, 1 MiB, 4 MiB
//! CROSSVERIFY_BENCH_SIZES=1048576,16777216 CROSSVERIFY_BENCH_CASE=blank cargo bench --bench crossexam
//! ```

#[path = "support/judge.rs"]
mod judged;

const ROUNDS: usize = 5;
const SIZES: [usize; 3] = [256 << 10, 1 << 20, 4 << 20];

fn out(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

fn repeat(unit: &[u8], size: usize) -> Vec<u8> {
    unit.iter().copied().cycle().take(size / unit.len() * unit.len()).collect()
}

fn lines_of(size: usize, line: impl Fn(usize) -> String) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 256);
    let mut i = 0;
    while out.len() < size {
        out.extend_from_slice(line(i).as_bytes());
        out.push(b'\n');
        i += 1;
    }
    out
}

/// A worst case: its name, the bus, the envelope and the synthesis.
type Input = (&'static str, Vec<u8>, Vec<u8>, Vec<u8>);

fn inputs(size: usize) -> Vec<Input> {
    let none = Vec::new;
    vec![
        ("blank lines", repeat(b"\n", size), none(), none()),
        ("control characters, one a line", repeat(b"\x1c\n", size), none(), none()),
        ("control characters in one line", repeat(b"\x0b", size), none(), none()),
        ("tiny objects", repeat(b"{}\n", size), none(), none()),
        ("non-JSON lines", repeat(b"x\n", size), none(), none()),
        // Lines that are no message (issue 46: a counter, not a record each, >= 50 MB/s).
        ("CRLF blank lines", repeat(b"\r\n", size), none(), none()),
        ("whitespace lines", repeat(b" \t\n", size), none(), none()),
        ("unclosed objects", repeat(b"{\n", size), none(), none()),
        ("invalid UTF-8 lines", repeat(b"\xff\n", size), none(), none()),
        ("blank and CRLF lines in turn", repeat(b"\n\r\n", size), none(), none()),
        ("every kind in turn", repeat(b"\nx\n\xff\n\r\n\x1c\n \n", size), none(), none()),
        ("one long malformed line", [repeat(b"x", size), b"\n".to_vec()].concat(), none(), none()),
        ("envelope of malformed lines", none(), repeat(b"x\n\xff\n\n", size), none()),
        // JSON that is no message: bare objects (no field the rules read is a string) and
        // values that are no object (issue 46).
        ("objects without a field", repeat(b"{\"x\":1}\n", size), none(), none()),
        ("objects with wrong field types", repeat(b"{\"ts\":1}\n", size), none(), none()),
        ("empty arrays", repeat(b"[]\n", size), none(), none()),
        ("numbers", repeat(b"1\n", size), none(), none()),
        ("strings", repeat(b"\"s\"\n", size), none(), none()),
        ("empty objects and blank lines in turn", repeat(b"{}\n\n{\"x\":1}\r\n", size), none(), none()),
        (
            "empty objects after a closing note",
            [
                b"{\"ts\": \"t\", \"from\": \"m\", \"type\": \"info\", \"msg\": \"phase -> closed\"}\n".to_vec(),
                repeat(b"{}\n", size),
            ]
            .concat(),
            none(),
            none(),
        ),
        (
            "empty objects revealed",
            [
                repeat(b"{}\n", size),
                b"{\"ts\": \"t\", \"from\": \"m\", \"type\": \"info\", \"msg\": \"phase -> debate (999999 sealed claim(s) revealed)\"}\n"
                    .to_vec(),
            ]
            .concat(),
            none(),
            none(),
        ),
        ("objects with one string field", repeat(b"{\"ts\":\"\"}\n", size), none(), none()),
        (
            "phase notes and reveal blocks",
            lines_of(size, |i| {
                match i % 3 {
                0 => "{\"ts\": \"t\", \"from\": \"a\", \"type\": \"claim\", \"msg\": \"x\"}".to_owned(),
                1 => "{\"ts\": \"t\", \"from\": \"m\", \"type\": \"info\", \"msg\": \"phase -> debate (999999 sealed claim(s) revealed)\"}".to_owned(),
                _ => "{\"ts\": \"t\", \"from\": \"m\", \"type\": \"info\", \"msg\": \"phase -> blind\"}".to_owned(),
            }
            }),
            none(),
            none(),
        ),
        ("envelope of tiny objects", none(), repeat(b"{}\n", size), none()),
        (
            "synthesis naming many seats",
            lines_of(size / 4, |i| format!("{{\"from\":\"s{i}\",\"type\":\"claim\"}}")),
            none(),
            repeat(b"#0 s1 ", size * 3 / 4),
        ),
        (
            // Names with punctuation are found together in one pass over the synthesis
            // (specs/crossexam.md, "Budget"); a scan per seat grew with seats x synthesis.
            "synthesis, punctuated seat names",
            lines_of(size / 4, |i| format!("{{\"from\":\"s-{i}\",\"type\":\"claim\"}}")),
            none(),
            repeat(b"#0 s-1 ", size * 3 / 4),
        ),
    ]
}

fn main() {
    let sizes: Vec<usize> = std::env::var("CROSSVERIFY_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| SIZES.to_vec());
    let only = std::env::var("CROSSVERIFY_BENCH_CASE").unwrap_or_default();
    out("case                                   size      ms       ns/byte     MB/s");
    // Per case, (input bytes, seconds) at each size: the growth exponent is fitted to them.
    let mut times: Vec<(&'static str, Vec<(f64, f64)>)> = Vec::new();
    for (k, size) in sizes.iter().enumerate() {
        for (name, bus, sealed, synthesis) in inputs(*size) {
            if !name.contains(only.as_str()) {
                continue;
            }
            let input = bus.len() + sealed.len() + synthesis.len();
            let s = judged::median_secs(
                &judged::arena(
                    bus,
                    if synthesis.is_empty() { "debate" } else { "closed" },
                    sealed,
                    (!synthesis.is_empty()).then_some(synthesis),
                ),
                ROUNDS,
            );
            #[allow(clippy::cast_precision_loss)]
            let (per, mbs) = (s * 1e9 / input as f64, input as f64 / s / 1e6);
            out(&format!("{name:<36} {input:>9} {:>8.1} {per:>9.1} {mbs:>8.1}", s * 1e3));
            #[allow(clippy::cast_precision_loss)]
            match times.iter_mut().find(|(n, _)| *n == name) {
                Some((_, t)) => t.push((input as f64, s)),
                None => times.push((name, vec![(input as f64, s)])),
            }
        }
        if k + 1 < sizes.len() {
            out("");
        }
    }
    if sizes.len() > 1 {
        out("");
        out("case                                 growth exponent (time ~ size^e, least squares on logs)");
        for (name, t) in &times {
            out(&format!("{name:<36} {:>6.2}", exponent(t)));
        }
    }
}

/// The slope of ln(time) over ln(size): 1 is linear.
fn exponent(points: &[(f64, f64)]) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let n = points.len() as f64;
    let (xs, ys): (Vec<f64>, Vec<f64>) = points.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let cov: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let var: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    cov / var
}

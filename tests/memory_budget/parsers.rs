//! The memory budget of every parser of untrusted input (issue 21 §5): for the worst inputs we
//! can build (many tiny items, long lines, deep nesting, many keys, separators, control
//! characters, blank lines), peak heap stays within `K × input + C`.
//!
//! Each parser is driven through its fuzz property (`crossverify::fuzzing`), which is exactly
//! what the fuzz targets run (the ledger's text records are called one by one instead, since
//! their property compares two debug renderings of each result): the parse, and for most the deterministic re-parse or round trip
//! that keeps the first result alive beside the second (so `K` covers two results at once).
//! Peak heap is measured by a counting global allocator (`peakmem-alloc`) from the moment the
//! input is built, one parser at a time, holding the binary's lock (`crate::alone`) so no other
//! thread allocates meanwhile. The CrossExam bus has its own budget test beside its module.
//!
//! Inputs are 2 MiB; peak heap is measured at 512 KiB too, and must not grow faster than the
//! input (a quadratic parser shows at once), so the bound extrapolates to the 64 MiB record
//! limit without building 64 MiB inputs in a debug build. Time against size is
//! `benches/parsers.rs` (growth exponents in `benches/README.md`); no timing here.
//! The figures are written to `target/test-artifacts/memory-budget.md`.

use std::fmt::Write as _;

use peakmem_alloc::PeakMemAllocTrait as _;

use crate::HEAP as GLOBAL;

/// Peak heap per input byte allowed, over [`FIXED`]. A parsed JSON value costs a 32-byte node
/// per item and the smallest item is two bytes (`0,`), with up to twice the bytes in a growing
/// vector's spare room, and the fuzz properties hold two results at once.
const PER_BYTE: usize = 64;

/// Heap any parser may use whatever the input: tables, the golden keys, a trusted root.
const FIXED: usize = 1 << 20;

const SIZE: usize = 2 << 20;

type Property = fn(&[u8]);

/// A parser, the largest input it reads (its size limit, where below [`SIZE`]) and its own
/// bytes of heap per input byte where it needs more than [`PER_BYTE`], with the reason.
struct Parser {
    name: &'static str,
    run: Property,
    limit: usize,
    per_byte: usize,
}

fn parser(name: &'static str, run: Property) -> Parser {
    Parser { name, run, limit: SIZE, per_byte: PER_BYTE }
}

/// A parser that refuses inputs above its own `limit` before reading them: measured at it.
fn limited(name: &'static str, run: Property, limit: usize) -> Parser {
    Parser { name, run, limit: limit.min(SIZE), per_byte: PER_BYTE }
}

fn parsers() -> Vec<Parser> {
    use crossverify::crossaudit::config::{Config, MAX_CONFIG_BYTES};
    use crossverify::crossaudit::constitution::{Constitution, Syntax};
    use crossverify::crossaudit::report_md;
    use crossverify::fuzzing as f;
    let yaml = |name, run| Parser {
        name,
        run,
        limit: MAX_CONFIG_BYTES,
        // yaml-rust2's scanner queues a token of about 48 bytes for every item of a flow
        // collection (`[0,0,…]`: one per two bytes) before the node count refuses the document;
        // the queue's growth doubles it. The 1 MiB size limit bounds it to 128 MiB.
        per_byte: 128,
    };
    let mut v = vec![
        parser("JSON (json::parse and its canonical forms)", f::json_parse),
        parser("receipt.json", f::receipt_parse),
        parser("report.md", |d| {
            if let Ok(t) = std::str::from_utf8(d) {
                let _ = report_md::parse(t);
            }
        }),
        yaml("crossaudit.yml", |d| {
            if let Ok(t) = std::str::from_utf8(d) {
                let _ = Config::parse(t);
            }
        }),
        yaml("crossaudit.yml, the product's reading", |d| {
            if let Ok(t) = std::str::from_utf8(d) {
                let _ = Config::parse_product(t);
            }
        }),
        parser("the Constitution (both syntaxes)", |d| {
            if let Ok(t) = std::str::from_utf8(d) {
                let _ = Constitution::parse(t, Syntax::V1);
                let _ = Constitution::parse(t, Syntax::Product);
            }
        }),
        parser("checks.json and the deployed records", f::ledger_json_records),
        limited("claims files", f::claims_parse, crossverify::stats::claims::MAX_FILE_BYTES),
        parser("Proof-or-Stop bundle envelope", f::pos_envelope),
        parser("Proof-or-Stop statement", f::pos_statement),
        limited("Proof-or-Stop trust store", f::pos_trust_store, crossverify::proof_or_stop::trust_store::MAX_BYTES),
        limited("sshsig", f::sshsig, crossverify::trust::sshsig::MAX_ARMOR_BYTES),
        limited("allowed-signers file", f::allowed_signers, crossverify::trust::allowed_signers::MAX_FILE_BYTES),
        parser("DSSE envelope (signed reports)", f::dsse_envelope),
        parser("cache entry", f::cache_entry),
        parser("conformance suite index, manifest and recorded decisions", f::conformance_suite),
    ];
    #[cfg(feature = "sigstore")]
    let sigstore =
        vec![limited("Sigstore bundle and trusted root", f::sigstore_bundle, crossverify::trust::sigstore::MAX_BYTES)];
    #[cfg(not(feature = "sigstore"))]
    let sigstore = Vec::new();
    v.extend(sigstore);
    v
}

/// Peak heap of `run(data)` above what was allocated before it (the allocator's tracker
/// restarts at zero on reset and counts what is allocated and freed after).
fn peak(run: Property, data: &[u8]) -> usize {
    GLOBAL.reset_peak_memory();
    run(data);
    GLOBAL.get_peak_memory()
}

#[test]
fn every_parser_stays_within_its_memory_budget() {
    let _alone = crate::alone();
    let mut table = String::from(
        "# Memory budget of the parsers of untrusted input\n\n\
         Peak heap above the baseline, in bytes per input byte, at a quarter of the input size and \
         at the input size (2 MiB, or the parser's own size limit when smaller).\n\n\
         | parser | input size | worst input | at a quarter | at the size | budget per byte |\n\
         |---|---|---|---|---|---|\n",
    );
    let mut over = Vec::new();
    for p in parsers() {
        let small = crossverify::fuzzing::hostile_inputs(p.limit / 4);
        let large = crossverify::fuzzing::hostile_inputs(p.limit);
        let mut worst = (0usize, "", 0usize);
        for ((shape, data), (_, small_data)) in large.iter().zip(&small) {
            let got = peak(p.run, data);
            let got_small = peak(p.run, small_data);
            if got > p.per_byte * data.len() + FIXED {
                over.push(format!(
                    "{} on {shape}: {got} bytes of heap for {} input bytes ({:.1} per byte)",
                    p.name,
                    data.len(),
                    ratio(got, data.len())
                ));
            }
            // Four times the input may cost four times the heap, plus the fixed part: more
            // than that is growth faster than linear.
            if got > 4 * got_small + 2 * FIXED {
                over.push(format!(
                    "{} on {shape}: heap grows faster than the input ({got_small} at {} bytes, {got} at {})",
                    p.name,
                    small_data.len(),
                    data.len()
                ));
            }
            if got >= worst.0 {
                worst = (got, shape, got_small);
            }
        }
        let _ = writeln!(
            table,
            "| {} | {} KiB | {} | {:.2} | {:.2} | {} |",
            p.name,
            p.limit >> 10,
            worst.1,
            ratio(worst.2, p.limit / 4),
            ratio(worst.0, p.limit),
            p.per_byte
        );
    }
    let _ = writeln!(table, "\nBudget: the per-byte figure × input + {} MiB.", FIXED >> 20);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-artifacts");
    std::fs::create_dir_all(&dir).expect("create target/test-artifacts");
    std::fs::write(dir.join("memory-budget.md"), &table).expect("write memory-budget.md");
    assert!(over.is_empty(), "over the memory budget:\n{}\n\n{table}", over.join("\n"));
}

fn ratio(heap: usize, input: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let r = heap as f64 / input as f64;
    r
}

use rayon::prelude::*;
use serde::Serialize;

use crate::report::Report;

/// Below this many results the report is written in one piece.
const PARALLEL_RESULTS: usize = 4096;

/// Results written as one piece of work.
const PIECE: usize = 1024;

/// The report object, pretty-printed with a trailing newline ([`write`] into memory).
pub(super) fn render(report: &Report) -> Vec<u8> {
    let mut out = Vec::new();
    write(report, &mut out).expect("writing into memory does not fail");
    out
}

/// The report object, pretty-printed with a trailing newline, written to `out`. Struct fields
/// keep their declared order and every map is a `BTreeMap`, so the bytes are deterministic.
///
/// The results (three quarters of a ledger's 17 MB report) are written on every core, in
/// pieces joined in order: every byte is the one `serde_json`'s pretty printer writes, since a
/// raw line break never occurs inside a JSON string, so indenting a result written alone is
/// prefixing each of its lines. The pieces go to `out` a batch at a time, so what is held is a
/// batch, not the report: joined into one buffer first, the 1,000-cycle bench report raised a
/// re-verification's peak heap by 30 MB (135 against 101-105 MB), for no gain in time.
///
/// # Errors
/// When `out` refuses a write.
pub(super) fn write(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let unwrap =
        |r: serde_json::Result<Vec<u8>>| r.expect("a report always serialises: it holds only JSON-safe values");
    if report.results.len() < PARALLEL_RESULTS {
        out.write_all(&unwrap(serde_json::to_vec_pretty(report)))?;
        return out.write_all(b"\n");
    }
    let shell = unwrap(serde_json::to_vec_pretty(&Shell(report)));
    // The one top-level key: nested keys are indented further.
    let marker = b"\n  \"results\": []";
    let at = memchr::memmem::find(&shell, marker).expect("the shell names its results") + marker.len() - 2;
    out.write_all(&shell[..=at])?;
    // Two pieces per thread keep every core busy while the batch's slowest piece finishes; the
    // thread count changes where batches end, never a byte.
    let batch = PIECE * 2 * rayon::current_num_threads().max(1);
    for (b, results) in report.results.chunks(batch).enumerate() {
        let pieces: Vec<Vec<u8>> = results
            .par_chunks(PIECE)
            .enumerate()
            .map(|(n, chunk)| {
                let mut out = Indented(Vec::with_capacity(chunk.len() * 512));
                for (i, r) in chunk.iter().enumerate() {
                    out.0.extend_from_slice(if b == 0 && n == 0 && i == 0 { b"\n    " } else { b",\n    " });
                    serde_json::to_writer_pretty(&mut out, r).expect("a result always serialises");
                }
                out.0
            })
            .collect();
        for p in &pieces {
            out.write_all(p)?;
        }
    }
    out.write_all(b"\n  ")?;
    out.write_all(&shell[at + 1..])?;
    out.write_all(b"\n")
}

/// Bytes written two levels deep: four spaces after every line break.
struct Indented(Vec<u8>);

impl std::io::Write for Indented {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            self.0.extend_from_slice(&rest[..=at]);
            self.0.extend_from_slice(b"    ");
            rest = &rest[at + 1..];
        }
        self.0.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The report without its results, written under the names and rules `Report` derives (a
/// struct with a flattened field is written as a map, so the bytes are the same). The fields
/// are named once, exhaustively: a field added to `Report` fails to compile here.
struct Shell<'a>(&'a Report);

impl Serialize for Shell<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let Report {
            schema_version,
            tool,
            command,
            inputs,
            outcome,
            reason,
            summary,
            results: _,
            stats,
            sections,
            views,
            checks,
            hints,
            audit_outcome,
            work: _,
        } = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("schemaVersion", schema_version)?;
        m.serialize_entry("tool", tool)?;
        m.serialize_entry("command", command)?;
        m.serialize_entry("inputs", inputs)?;
        m.serialize_entry("outcome", outcome)?;
        if let Some(r) = reason {
            m.serialize_entry("reason", r)?;
        }
        m.serialize_entry("summary", summary)?;
        m.serialize_entry("results", &[(); 0])?;
        m.serialize_entry("stats", stats)?;
        for (k, v) in sections {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("views", views)?;
        if !checks.is_empty() {
            m.serialize_entry("checks", checks)?;
        }
        if !hints.is_empty() {
            m.serialize_entry("hints", hints)?;
        }
        if let Some(a) = audit_outcome {
            m.serialize_entry("auditOutcome", a)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use crate::report::{CheckResult, Level, Outcome, Report};

    /// A writer that takes at most a few bytes per call, as a pipe may.
    struct Trickle(Vec<u8>);

    impl std::io::Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = buf.len().min(7);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Large enough for pieces in several batches, and for a last piece and batch that are
    /// short: the bytes are `serde_json`'s pretty printer's, written whole, whatever the
    /// thread count and however the writer takes them.
    #[test]
    fn a_report_written_in_batches_is_the_pretty_printers_bytes() {
        let mut report = Report::new("ledger");
        for i in 0..(super::PARALLEL_RESULTS * 3 + 517) {
            let mut r = CheckResult {
                code: format!("CV-T{:03}", i % 7),
                level: Level::Error,
                outcome: if i % 11 == 0 { Outcome::Failed } else { Outcome::Passed },
                subject: format!("cycle {i}\n\"quoted\""),
                message: "line\none".into(),
                location: None,
                evidence: std::collections::BTreeMap::new(),
            };
            r.evidence.insert("n".into(), serde_json::json!({ "i": i, "nested": [1, { "k": "v" }] }));
            report.results.push(r);
        }
        report.section("extra", serde_json::json!({ "after": "results" }));
        report.finish();
        let mut expected = serde_json::to_vec_pretty(&report).expect("serialises");
        expected.push(b'\n');
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let mut out = Trickle(Vec::new());
            pool.install(|| super::write(&report, &mut out)).expect("writes");
            assert!(out.0 == expected, "{threads} threads");
            assert!(pool.install(|| super::render(&report)) == expected, "{threads} threads");
        }
    }
}

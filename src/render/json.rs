use rayon::prelude::*;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use std::io::Write;

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
/// result written alone two levels deep ([`Deep`]) is the same bytes as within the report. The pieces go to `out` a batch at a time, so what is held is a
/// batch, not the report: joined into one buffer first, the 1,000-cycle bench report raised a
/// re-verification's peak heap by 30 MB (135 against 101-105 MB), for no gain in time.
///
/// # Errors
/// When `out` refuses a write.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
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
                let mut out = Vec::with_capacity(chunk.len() * 512);
                for (i, r) in chunk.iter().enumerate() {
                    out.extend_from_slice(if b == 0 && n == 0 && i == 0 { b"\n    " } else { b",\n    " });
                    let mut ser = serde_json::Serializer::with_formatter(&mut out, Deep(PrettyFormatter::new()));
                    r.serialize(&mut ser).expect("a result always serialises");
                }
                out
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

/// `serde_json`'s pretty printer, two levels deep: the line breaks it writes between values
/// are followed by four more spaces. Only those writes pass through [`Shifted`]; strings and
/// numbers are written as they are (a raw line break never occurs in them), so the result's
/// bytes are not scanned again for line breaks (26% of the writer's samples in a profile of
/// the bench ledger's report: `benches/README.md`, the twelfth pass).
struct Deep<'a>(PrettyFormatter<'a>);

impl Formatter for Deep<'_> {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(&mut Shifted(w))
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_array_value(&mut Shifted(w), first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(&mut Shifted(w))
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_object_key(&mut Shifted(w), first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_key(w)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// A writer that follows every line break with four spaces.
struct Shifted<'a, W: ?Sized>(&'a mut W);

impl<W: ?Sized + Write> Write for Shifted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let mut rest = buf;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            self.0.write_all(&rest[..=at])?;
            self.0.write_all(b"    ")?;
            rest = &rest[at + 1..];
        }
        self.0.write_all(rest)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
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
            // Empty and nested evidence, with and without a location: every way a line break
            // is written.
            if i % 5 != 0 {
                r.evidence.insert("n".into(), serde_json::json!({ "i": i, "nested": [1, { "k": "v" }, [], {}] }));
            }
            if i % 3 == 0 {
                r.location = Some(crate::report::Location { path: Some(format!("p{i}")), ..Default::default() });
            }
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

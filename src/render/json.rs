use rayon::prelude::*;
use serde::Serialize;

use crate::report::Report;

/// Below this many results the report is written in one piece.
const PARALLEL_RESULTS: usize = 4096;

/// Results written as one piece of work.
const PIECE: usize = 1024;

/// The report object, pretty-printed with a trailing newline. Struct fields keep their
/// declared order and every map is a `BTreeMap`, so the bytes are deterministic.
///
/// The results (three quarters of a ledger's 17 MB report) are written on every core, in
/// pieces joined in order: every byte is the one `serde_json`'s pretty printer writes, since a
/// raw line break never occurs inside a JSON string, so indenting a result written alone is
/// prefixing each of its lines.
pub(super) fn render(report: &Report) -> Vec<u8> {
    let unwrap =
        |r: serde_json::Result<Vec<u8>>| r.expect("a report always serialises: it holds only JSON-safe values");
    if report.results.len() < PARALLEL_RESULTS {
        let mut s = unwrap(serde_json::to_vec_pretty(report));
        s.push(b'\n');
        return s;
    }
    let shell = unwrap(serde_json::to_vec_pretty(&Shell(report)));
    // The one top-level key: nested keys are indented further.
    let marker = b"\n  \"results\": []";
    let at = memchr::memmem::find(&shell, marker).expect("the shell names its results") + marker.len() - 2;
    let pieces: Vec<Vec<u8>> = report
        .results
        .par_chunks(PIECE)
        .enumerate()
        .map(|(n, chunk)| {
            let mut out = Indented(Vec::with_capacity(chunk.len() * 512));
            for (i, r) in chunk.iter().enumerate() {
                out.0.extend_from_slice(if n == 0 && i == 0 { b"\n    " } else { b",\n    " });
                serde_json::to_writer_pretty(&mut out, r).expect("a result always serialises");
            }
            out.0
        })
        .collect();
    let mut s = Vec::with_capacity(shell.len() + pieces.iter().map(Vec::len).sum::<usize>() + 8);
    s.extend_from_slice(&shell[..=at]);
    for p in &pieces {
        s.extend_from_slice(p);
    }
    s.extend_from_slice(b"\n  ");
    s.extend_from_slice(&shell[at + 1..]);
    s.push(b'\n');
    s
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

use crate::report::Report;

/// The report object, pretty-printed with a trailing newline. Struct fields keep their
/// declared order and every map is a `BTreeMap`, so the bytes are deterministic.
pub(super) fn render(report: &Report) -> String {
    let mut s =
        serde_json::to_string_pretty(report).expect("a report always serialises: it holds only JSON-safe values");
    s.push('\n');
    s
}

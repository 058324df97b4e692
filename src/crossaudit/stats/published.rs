//! The files the mining and analysis scripts write beside a ledger (real-ledger note §2), and
//! the form `stats` checks each published one in: which records it was computed from and which
//! figure each field states.

use crate::stats::compare::Keys;
use crate::stats::input::{Field, Form, Shape};

/// `cycles.jsonl`: the mined records.
pub const CYCLES_JSONL: &str = "cycles.jsonl";
/// `cycles-b.json`: the analysis records.
pub const CYCLES_B: &str = "cycles-b.json";
/// `summary.json`, computed from `cycles.jsonl`.
pub const SUMMARY: &str = "summary.json";
/// `findings_lifecycle.json`, computed from `cycles.jsonl`.
pub const LIFECYCLE: &str = "findings_lifecycle.json";
/// `analysis.json`, computed from `cycles-b.json`.
pub const ANALYSIS: &str = "analysis.json";

const FREEZE: &str = "the freeze heads name the repository states at mining time, which no record holds; \
                      checkable only against the science and audit repositories themselves, which stats does not compare";

/// Why the science log's figures are not checkable without it, and what would make them so.
const NEEDS_SCIENCE: &str = "they come from the science repository's log; give it with --science REPO \
                             (--science-rev <freeze head> to reproduce a mined summary)";

fn summary_field(key: &str) -> Option<Field> {
    Some(match key {
        "freeze" => Field::Never(FREEZE),
        "n_cycles" => Field::Figure("cycles", Keys::Exact),
        "decisions" => Field::Figure("decision_sequence", Keys::Exact),
        "findings_per_cycle" => Field::Figure("findings_per_cycle", Keys::Exact),
        "n_distinct_findings" => Field::Figure("distinct_findings", Keys::Exact),
        "n_confirmed_real" => Field::Figure("closed", Keys::Exact),
        "n_unresolved" => Field::Figure("open", Keys::Exact),
        "models" => Field::KeysOf("models"),
        "n_science_fix_commits" => Field::Figure("science_fix_commits", Keys::Exact),
        _ => return None,
    })
}

fn analysis_field(key: &str) -> Option<Field> {
    Some(match key {
        "freeze" => Field::Never(FREEZE),
        "n_cycles" => Field::Figure("cycles", Keys::Exact),
        "n_findings" => Field::Figure("finding_occurrences", Keys::Exact),
        "n_distinct" => Field::Figure("distinct_findings", Keys::Exact),
        "n_closed" => Field::Figure("closed", Keys::Exact),
        "n_open" => Field::Figure("open", Keys::Exact),
        "decisions" => Field::Figure("decisions", Keys::Counts),
        "findings_per_cycle" => Field::Figure("findings_per_cycle", Keys::Exact),
        "severity" => Field::Figure("severity_distinct", Keys::Counts),
        "source" => Field::Figure("source", Keys::Counts),
        "fclass" => Field::Figure("finding_class", Keys::Counts),
        "source_x_severity" => Field::Figure("source_x_severity", Keys::Counts),
        "scopes" => Field::Figure("scopes", Keys::Counts),
        "rules" => Field::Figure("rules", Keys::Counts),
        "rule_cycle_spread" => Field::Figure("rule_cycle_spread", Keys::Counts),
        "decision_vs_blocking" => Field::Figure("decision_vs_blocking", Keys::Counts),
        "decision_is_definitional" => Field::Figure("decision_is_definitional", Keys::Exact),
        "closure_lag" => Field::Figure("closure_lag", Keys::Subset),
        "survived_multiple_audits" => Field::Figure("recurring", Keys::Counts),
        "audit_minutes" => Field::Figure("audit_minutes", Keys::Subset),
        "gap_minutes" => Field::Figure("gap_minutes", Keys::Subset),
        "models" => Field::KeysOf("models"),
        _ => return None,
    })
}

static SUMMARY_FORM: Form =
    Form { shape: Shape::Summary(summary_field), records: CYCLES_JSONL, needs_science: NEEDS_SCIENCE };
static LIFECYCLE_FORM: Form = Form { shape: Shape::Lifecycle, records: CYCLES_JSONL, needs_science: NEEDS_SCIENCE };
static ANALYSIS_FORM: Form =
    Form { shape: Shape::Summary(analysis_field), records: CYCLES_B, needs_science: NEEDS_SCIENCE };

/// The published files `stats` checks, in the order it reads them, each with its form.
pub const FILES: [(&str, &Form); 3] =
    [(SUMMARY, &SUMMARY_FORM), (LIFECYCLE, &LIFECYCLE_FORM), (ANALYSIS, &ANALYSIS_FORM)];

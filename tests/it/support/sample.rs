//! A report shaped like the coming `ledger` command's, built from public types only, so the
//! renderers can be tested on every view they place specially before that command exists.
//! The figures follow the paper's first arc (7 cycles, findings 7,4,3,2,1,1,0, BLOCK×5 then
//! PASS_WITH_CAVEATS then PASS) plus two synthetic cycles: one whose files are redacted
//! (so figures are `null`, "not measured") and one that escalates.
#![allow(dead_code, unreachable_pub)]

use crossverify::protocols as checks;
use crossverify::report::{Chart, ChartKind, CheckResult, Outcome, Point, Report, Table, View};
use serde_json::{Value, json};

const AUDIT_HEAD: &str = "5d0c5a8f0e7d1a2b3c4d5e6f708192a3b4c5d6e7";
const SCIENCE_SHA: &str = "9b2e4f1c6a7d8e9f0a1b2c3d4e5f60718293a4b5";

/// (cycle, decision, findings or None when not measured, audit minutes or None)
const CYCLES: [(u32, &str, Option<u32>, Option<u32>); 9] = [
    (1, "BLOCK", Some(7), Some(31)),
    (2, "BLOCK", Some(4), Some(24)),
    (3, "BLOCK", Some(3), Some(19)),
    (4, "BLOCK", Some(2), Some(22)),
    (5, "BLOCK", Some(1), Some(17)),
    (6, "PASS_WITH_CAVEATS", Some(1), Some(15)),
    (7, "PASS", Some(0), Some(12)),
    (8, "DCL_ONLY", None, None),
    (9, "ESCALATE", Some(2), Some(40)),
];

fn cycle_id(n: u32) -> String {
    format!("CYCLE-{n:06}")
}

/// The sample report, finished.
pub fn ledger_report() -> Report {
    let g001 = checks::find("CV-G001").expect("CV-G001 is registered");
    let g002 = checks::find("CV-G002").expect("CV-G002 is registered");
    let g003 = checks::find("CV-G003").expect("CV-G003 is registered");
    let mut r = Report::new("ledger");
    r.input("audit", "audit");
    r.input("science", "science");
    r.input("dialect", "deployed");
    r.input("auditHead", AUDIT_HEAD);

    for (n, _, findings, _) in CYCLES {
        let cycle = cycle_id(n);
        let path = format!("projects/demo/cycles/{cycle}/report_manifest.json");
        let res = if findings.is_some() {
            CheckResult::new(g001, Outcome::Passed, &cycle, "every bound file hashes and matches the manifest")
        } else {
            CheckResult::new(
                g001,
                Outcome::CantTell,
                &cycle,
                "the manifest digests are redacted, so the bound files cannot be re-hashed",
            )
            .with("redacted", 14)
            .with("expected", Value::Null)
            .with("reason", "digest fields read \"<redacted>\"")
        };
        r.results.push(res.at(Some("audit"), Some(&path), Some(AUDIT_HEAD)));
    }
    r.results.push(
        CheckResult::new(
            g002,
            Outcome::Failed,
            "experiments/latest",
            "symlink in scope (not hashed; recorded as `symlink`)",
        )
        .at(Some("science"), Some("experiments/latest"), Some(SCIENCE_SHA))
        .with("mode", "120000")
        .with("target", "run-7"),
    );
    r.results.push(
        CheckResult::new(g003, Outcome::Passed, "scope `experiments`", "4 tracked entries at or below the prefix").at(
            Some("science"),
            None,
            Some(SCIENCE_SHA),
        ),
    );
    r.results.push(CheckResult::new(
        g003,
        Outcome::Inapplicable,
        "scope `paper`",
        "no scope was requested for the paper",
    ));

    sample_views(&mut r);

    r.stats.insert("cycles".into(), json!(9));
    r.stats.insert(
        "decisions".into(),
        json!({"BLOCK": 5, "DCL_ONLY": 1, "ESCALATE": 1, "PASS": 1, "PASS_WITH_CAVEATS": 1}),
    );
    r.stats.insert("findings_per_cycle".into(), json!([7, 4, 3, 2, 1, 1, 0, null, 2]));
    r.stats.insert("distinct_findings".into(), json!(16));
    r.stats.insert("closed".into(), json!(12));
    r.stats.insert("open".into(), json!(4));
    r.stats.insert("closure_lag".into(), json!({"median": 1, "mean": 1.67, "max": 4}));
    r.stats.insert("audit_minutes".into(), Value::Null);
    r.stats.insert("notMeasured".into(), json!({"audit_minutes": "CYCLE-000008 has no run metadata"}));
    r.section(
        "admission",
        json!({
            "ready": false,
            "reason": "not admissible: verdict is ESCALATE, not PASS",
            "shortfalls": ["verdict is ESCALATE, not PASS"],
            "unobservable": [],
            "tier": "paired",
        }),
    );
    r.finish();
    checks::describe(&mut r);
    r
}

fn conformance() -> Table {
    let rows: [(&str, &str, Option<[u32; 3]>, &str); 8] = [
        ("I1", "Vendor isolation", Some([9, 0, 0]), "enforced"),
        ("I2", "Append-only ledger", Some([9, 0, 0]), "enforced"),
        ("I3", "Citation validity and precedence", Some([8, 1, 0]), "violated"),
        ("I4", "Deterministic failures outrank a model PASS", Some([9, 0, 0]), "enforced"),
        ("I5", "Bounded rounds, exhaustion escalates", Some([9, 0, 0]), "enforced"),
        ("I6", "Advisory findings never gate", Some([9, 0, 0]), "enforced"),
        ("I7", "Receipt binds science SHA, manifest, Constitution", Some([7, 0, 2]), "partial"),
        ("I8", "Admission replay", None, "not measured"),
    ];
    Table {
        id: "conformance".into(),
        title: "Conformance to I1–I8".into(),
        columns: ["invariant", "what it guarantees", "enforced", "violated", "not measured", "status"]
            .map(String::from)
            .to_vec(),
        rows: rows
            .iter()
            .map(|(i, what, counts, status)| {
                let c = |k: usize| counts.map_or(Value::Null, |c| json!(c[k]));
                vec![json!(i), json!(what), c(0), c(1), c(2), json!(status)]
            })
            .collect(),
        note: Some("Counts are cycles. \"not measured\": the ledger holds no evidence for or against.".into()),
        csv: false,
    }
}

fn findings() -> Table {
    let rows: [(&str, &str, u32, Option<u32>); 16] = [
        ("F-001", "BLOCKER", 1, Some(2)),
        ("F-002", "BLOCKER", 1, Some(2)),
        ("F-003", "MAJOR", 1, Some(3)),
        ("F-004", "MAJOR", 1, Some(2)),
        ("F-005", "MINOR", 1, Some(4)),
        ("F-006", "MINOR", 1, Some(2)),
        ("F-007", "ADVISORY", 1, Some(5)),
        ("F-008", "BLOCKER", 2, Some(3)),
        ("F-009", "MAJOR", 2, Some(4)),
        ("F-010", "MINOR", 3, Some(4)),
        ("F-011", "MAJOR", 3, Some(4)),
        ("F-012", "MINOR", 4, Some(5)),
        ("F-013", "ADVISORY", 5, None),
        ("F-014", "MINOR", 6, None),
        ("F-015", "BLOCKER", 9, None),
        ("F-016", "MAJOR", 9, None),
    ];
    Table {
        id: "findings".into(),
        title: "Finding lifecycle".into(),
        columns: ["finding", "severity", "raised in", "closed in", "lag (cycles)", "status"].map(String::from).to_vec(),
        rows: rows
            .iter()
            .map(|(id, sev, raised, closed)| {
                vec![
                    json!(id),
                    json!(sev),
                    json!(cycle_id(*raised)),
                    closed.map_or(Value::Null, |c| json!(cycle_id(c))),
                    closed.map_or(Value::Null, |c| json!(c - raised)),
                    json!(if closed.is_some() { "closed" } else { "open" }),
                ]
            })
            .collect(),
        note: Some("Open findings have no closure lag: it is not measured, not zero.".into()),
        csv: true,
    }
}

/// The sample report's views: one of every kind the renderers draw.
fn sample_views(r: &mut Report) {
    r.views.push(View::Table(conformance()));
    r.views.push(View::Chart(Chart {
        id: "timeline".into(),
        title: "Decisions, cycle by cycle".into(),
        chart: ChartKind::Timeline,
        y_label: "findings".into(),
        x_label: "cycle".into(),
        category_label: "decision".into(),
        points: CYCLES
            .iter()
            .map(|(n, d, f, _)| Point { label: n.to_string(), value: f.map(f64::from), category: Some((*d).into()) })
            .collect(),
        note: Some("Each cell is one audit cycle in ledger order; the number is its findings.".into()),
    }));
    r.views.push(View::Chart(Chart {
        id: "findings-per-cycle".into(),
        title: "Findings per cycle".into(),
        chart: ChartKind::Bars,
        y_label: "findings".into(),
        x_label: "cycle".into(),
        category_label: String::new(),
        points: CYCLES
            .iter()
            .map(|(n, _, f, _)| Point { label: cycle_id(*n), value: f.map(f64::from), category: None })
            .collect(),
        note: None,
    }));
    r.views.push(View::Chart(Chart {
        id: "closure-lag".into(),
        title: "Closure lag".into(),
        chart: ChartKind::Histogram,
        y_label: "findings closed".into(),
        x_label: "bin".into(),
        category_label: String::new(),
        points: [("0", 0.0), ("1", 6.0), ("2", 3.0), ("3", 2.0), ("4+", 1.0)]
            .iter()
            .map(|(l, v)| Point { label: format!("lag {l}"), value: Some(*v), category: None })
            .collect(),
        note: Some("Cycles between the cycle that raised a finding and the one that verified it closed.".into()),
    }));
    r.views.push(View::Table(findings()));
    r.views.push(View::Table(Table {
        id: "cycles".into(),
        title: "Cycles".into(),
        columns: vec!["cycle".into(), "decision".into(), "findings".into(), "audit minutes".into()],
        rows: CYCLES.iter().map(|(n, d, f, m)| vec![json!(cycle_id(*n)), json!(d), json!(f), json!(m)]).collect(),
        note: Some("CYCLE-000008's files are redacted: its figures are not measured.".into()),
        csv: true,
    }));
}

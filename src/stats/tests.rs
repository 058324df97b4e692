//! Unit and property tests of the figures.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::figures::{FIGURES, compute};
use super::model::{Closure, CycleRecord, FindingRecord, Gate, InputKind, Numbering, Records};
use super::num;

const SEVERITIES: [&str; 4] = ["CRITICAL", "HIGH", "MEDIUM", "LOW"];
const RULES: [&str; 5] = ["Gate 11", "Gate 2", "R-EVD-002", "R-NAV-003", "CA-DATA-001"];

fn finding(id: u8, sev: usize, scopes: u8, rules: u8, source: Option<bool>) -> FindingRecord {
    let scopes = match scopes % 4 {
        0 => None,
        1 => Some(vec![]),
        2 => Some(vec!["publish_claim".to_owned()]),
        _ => Some(vec!["submit_production_job".to_owned(), "publish_claim".to_owned()]),
    };
    let mut rules: Vec<String> =
        RULES.iter().enumerate().filter(|(i, _)| rules & (1 << i) != 0).map(|(_, r)| (*r).to_owned()).collect();
    rules.sort();
    FindingRecord {
        id: format!("F-{id:03}"),
        severity: Some(SEVERITIES[sev % 4].to_owned()),
        scopes,
        source: source.map(|d| if d { "DETERMINISTIC" } else { "JUDGMENT" }.to_owned()),
        finding_class: None,
        rules,
        title_sha16: None,
    }
}

type RawCycle = (u64, Vec<(u8, usize, u8, u8, Option<bool>)>, Vec<u8>, u8, Option<(u32, u32)>);

/// A kind declaring the gate and numbering of the generated cycles.
const KIND: InputKind = InputKind::new("generated", "generated records")
    .gate(Gate { exempt: Some("accept"), blocked: Some("stop") })
    .numbering(Numbering { name: |n| format!("C-{n:06}"), unnumbered: "some cycles carry no number" });

fn records(raw: &[RawCycle]) -> Records {
    let mut r = Records::new(KIND);
    let mut number = 0;
    let mut minute = 0u32;
    for (gap, findings, closed, model, times) in raw {
        number += 1 + gap;
        let mut seen = std::collections::BTreeSet::new();
        let findings: Vec<FindingRecord> = findings
            .iter()
            .filter(|f| seen.insert(f.0))
            .map(|(id, sev, sc, ru, so)| finding(*id, *sev, *sc, *ru, *so))
            .collect();
        let blocking = findings.iter().any(FindingRecord::is_blocking);
        let time = |m: u32| format!("2026-08-01T{:02}:{:02}:00Z", m / 60 % 24, m % 60);
        let (started, completed) = match times {
            Some((gap, dur)) => {
                let s = minute + gap;
                minute = s + dur;
                (Some(time(s)), Some(time(minute)))
            }
            None => (None, None),
        };
        r.cycles.push(CycleRecord {
            id: format!("C-{number:06}"),
            number: Some(number),
            audited_commit: None,
            decision: Some(
                if findings.is_empty() {
                    "accept"
                } else if blocking {
                    "stop"
                } else {
                    "accept_with_caveats"
                }
                .to_owned(),
            ),
            model: ["gpt-5", "GPT-5", "gpt-5.6"].get(usize::from(*model)).map(|m| (*m).to_owned()),
            started_at: started,
            completed_at: completed,
            findings: Some(findings),
            verified_closed: Some(closed.iter().map(|c| Closure::plain(&format!("F-{c:03}"))).collect()),
        });
    }
    r
}

fn raw_cycles() -> impl Strategy<Value = Vec<RawCycle>> {
    let finding = (0u8..10, 0usize..4, any::<u8>(), 0u8..32, proptest::option::of(any::<bool>()));
    let cycle = (
        0u64..3,
        proptest::collection::vec(finding, 0..5),
        proptest::collection::vec(0u8..12, 0..4),
        0u8..4,
        proptest::option::weighted(0.8, (0u32..120, 1u32..20)),
    );
    proptest::collection::vec(cycle, 1..9)
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("number")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The median and index quartiles are order statistics: they do not depend on input order,
    /// and q1 ≤ median ≤ q3 ≤ max, min ≤ median.
    #[test]
    fn order_statistics(mut v in proptest::collection::vec(-1.0e6f64..1.0e6, 1..40), seed in any::<u64>()) {
        let (q1, q3) = num::quartiles(&v).expect("non-empty");
        let m = num::median(&v).expect("non-empty");
        let (lo, hi) = num::min_max(&v).expect("non-empty");
        prop_assert!(lo <= q1 && q1 <= m && m <= q3 && q3 <= hi);
        let mut s = v.clone();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        prop_assert_eq!((q1, q3), (s[n / 4], s[3 * n / 4]));
        let mean = num::mean(&v).expect("non-empty");
        // A deterministic shuffle.
        let mut x = seed | 1;
        for i in (1..v.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            v.swap(i, (x % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(num::median(&v), Some(m));
        prop_assert_eq!(num::quartiles(&v), Some((q1, q3)));
        prop_assert_eq!(num::mean(&v), Some(mean));
    }

    /// Figures do not depend on the order of findings within a cycle or of closure entries.
    #[test]
    fn figures_ignore_order_within_a_cycle(raw in raw_cycles()) {
        let a = compute(&records(&raw), None);
        let mut reversed = records(&raw);
        for c in &mut reversed.cycles {
            c.findings.as_mut().expect("findings").reverse();
            c.verified_closed.as_mut().expect("closures").reverse();
        }
        let b = compute(&reversed, None);
        prop_assert_eq!(&a.stats, &b.stats);
    }

    /// Accounting identities that hold for every set of records.
    #[test]
    fn figures_add_up(raw in raw_cycles()) {
        let r = records(&raw);
        let fig = compute(&r, None);
        let s = Value::Object(fig.stats.clone());
        for key in FIGURES {
            prop_assert!(s.get(*key).is_some(), "{key} missing");
            prop_assert_eq!(s[*key].is_null(), s["notMeasured"].get(*key).is_some(), "{} null without a reason", key);
        }
        let per_cycle: u64 = s["findings_per_cycle"].as_array().expect("list").iter().map(|v| v.as_u64().expect("n")).sum();
        prop_assert_eq!(per_cycle, s["finding_occurrences"].as_u64().expect("n"));
        let distinct = s["distinct_findings"].as_u64().expect("n");
        prop_assert_eq!(s["closed"].as_u64().expect("n") + s["open"].as_u64().expect("n"), distinct);
        let sum = |k: &str| s[k].as_object().expect("map").values().map(|v| v.as_u64().expect("n")).sum::<u64>();
        prop_assert_eq!(sum("severity_distinct"), distinct);
        prop_assert_eq!(sum("severity_occurrences"), s["finding_occurrences"].as_u64().expect("n"));
        prop_assert_eq!(sum("source"), s["finding_occurrences"].as_u64().expect("n"));
        prop_assert_eq!(sum("decisions"), r.cycles.len() as u64);
        prop_assert!(s["single_rule_occurrences"].as_u64().expect("n") <= s["finding_occurrences"].as_u64().expect("n"));
        // This generator makes decisions from scopes, so the decision is always definitional.
        prop_assert_eq!(&s["decision_is_definitional"], &json!(true));
        match s["closure_lag"].as_object() {
            Some(lag) => {
                prop_assert_eq!(lag["n"].as_u64(), s["closed"].as_u64());
                let per: Vec<f64> = lag["per_finding"].as_object().expect("map").values().map(f).collect();
                prop_assert!(per.iter().all(|g| *g >= 1.0), "a closure comes after the first raise");
                prop_assert!(f(&lag["median"]) <= f(&lag["max"]));
                let numbers = &s["closure_lag_cycle_numbers"];
                // Cycle numbers never advance slower than record positions.
                for (id, g) in lag["per_finding"].as_object().expect("map") {
                    prop_assert!(f(&numbers["per_finding"][id]) >= f(g));
                }
            }
            None => prop_assert_eq!(s["closed"].as_u64(), Some(0)),
        }
        if let Some(gap) = s["gap_minutes"].as_object() {
            prop_assert!(f(&gap["q1"]) <= f(&gap["median"]) && f(&gap["median"]) <= f(&gap["q3"]));
        }
    }
}

#[test]
fn an_unreadable_cycle_nulls_what_depends_on_it_and_says_why() {
    let mut r = records(&[
        (0, vec![(1, 0, 3, 1, Some(true))], vec![], 0, Some((0, 5))),
        (0, vec![], vec![1], 0, Some((10, 5))),
    ]);
    r.cycles[1].findings = None;
    r.cycles[1].decision = None;
    let fig = compute(&r, None);
    assert_eq!(fig.get("cycles"), &json!(2));
    for key in ["decisions", "findings_per_cycle", "distinct_findings", "closed", "closure_lag", "rules"] {
        assert_eq!(fig.get(key), &Value::Null, "{key}");
        assert!(fig.not_measured[key].contains("C-000002"), "{key}: {}", fig.not_measured[key]);
    }
    // Times and models do not depend on the unreadable result.
    assert_eq!(fig.get("audit_minutes")["n"], 2);
    assert_eq!(fig.get("models"), &json!({"gpt-5": 2}));
}

#[test]
fn unreadable_records_null_every_figure() {
    let mut r = Records::new(InputKind::new("opaque", "records no converter reads"));
    r.unreadable = Some("converter not implemented".into());
    let fig = compute(&r, None);
    for key in FIGURES {
        assert_eq!(fig.get(key), &Value::Null, "{key}");
        assert_eq!(fig.not_measured[*key], "converter not implemented");
    }
}

#[test]
fn a_closure_before_the_first_raise_does_not_close() {
    // F-001 is closed in C-000001, then raised in C-000002: an unknown closure, still open.
    let r = records(&[(0, vec![], vec![1], 0, None), (0, vec![(1, 1, 2, 1, None)], vec![], 0, None)]);
    let fig = compute(&r, None);
    assert_eq!(fig.get("closed"), &json!(0));
    assert_eq!(fig.get("open_findings"), &json!(["F-001"]));
    assert_eq!(fig.get("unknown_closures"), &json!([{"cycle": "C-000001", "entry": "F-001"}]));
    assert_eq!(fig.get("closure_lag"), &Value::Null);
    assert_eq!(fig.get("audit_minutes"), &Value::Null);
    assert!(fig.not_measured["audit_minutes"].contains("no cycle"));
}

#[test]
fn both_readings_of_a_closure_entry_are_reported_when_they_differ() {
    let mut r = records(&[(0, vec![(4, 1, 2, 1, None)], vec![], 0, None), (0, vec![], vec![], 0, None)]);
    r.cycles[1].verified_closed = Some(vec![Closure {
        raw: "closed F-004: fixed".into(),
        id: Some("closed F-004".into()),
        alt: Some("F-004".into()),
    }]);
    let fig = compute(&r, None);
    assert_eq!(fig.get("closed"), &json!(0), "the figures follow the first reading");
    assert!(fig.caveats["closed"].contains("closed F-004: fixed"));
}

//! The verdict rule and the report's own helpers.

use super::*;

fn r(level: Level, outcome: Outcome) -> CheckResult {
    CheckResult {
        code: "CV-T001".into(),
        level,
        outcome,
        subject: String::new(),
        message: String::new(),
        location: None,
        evidence: BTreeMap::new(),
    }
}

#[test]
fn verdict_rules() {
    use Level::*;
    use Outcome::*;
    assert_eq!(verdict_of(&[]), Verdict::Verified);
    assert_eq!(verdict_of(&[r(Error, Passed), r(Error, Inapplicable)]), Verdict::Verified);
    assert_eq!(verdict_of(&[r(Warning, Failed), r(Info, CantTell)]), Verdict::Verified);
    assert_eq!(verdict_of(&[r(Error, Passed), r(Error, CantTell)]), Verdict::Inconclusive);
    assert_eq!(verdict_of(&[r(Error, Untested)]), Verdict::Inconclusive);
    assert_eq!(verdict_of(&[r(Error, CantTell), r(Error, Failed)]), Verdict::Failed);
    assert_eq!(Verdict::Verified.exit_code(), 0);
    assert_eq!(Verdict::Failed.exit_code(), 1);
    assert_eq!(Verdict::Inconclusive.exit_code(), 3);
}

#[test]
fn json_round_trips_and_uses_wire_names() {
    let mut rep = Report::new("demo");
    rep.results.push(r(Level::Error, Outcome::CantTell));
    rep.section("manifest", serde_json::json!({"a": "00"}));
    rep.finish();
    let text = serde_json::to_string(&rep).unwrap();
    assert!(text.contains("\"outcome\":\"cantTell\""));
    assert!(text.contains("\"outcome\":\"inconclusive\""));
    assert!(text.contains("\"manifest\":{\"a\":\"00\"}"));
    let back: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(back, rep);
}

#[test]
fn the_deciding_results_are_those_the_verdict_rests_on() {
    let mut rep = Report::new("x");
    rep.results =
        vec![r(Level::Error, Outcome::CantTell), r(Level::Warning, Outcome::Failed), r(Level::Info, Outcome::Failed)];
    rep.finish();
    assert_eq!(rep.outcome, Verdict::Inconclusive);
    assert_eq!(rep.deciding().iter().map(|r| r.outcome).collect::<Vec<_>>(), [Outcome::CantTell]);
    rep.results.push(r(Level::Error, Outcome::Failed));
    rep.finish();
    assert_eq!(
        rep.deciding().iter().map(|r| (r.level, r.outcome)).collect::<Vec<_>>(),
        [(Level::Error, Outcome::Failed)]
    );
    rep.results.retain(|r| r.level != Level::Error);
    rep.finish();
    assert!(rep.deciding().is_empty(), "a verified run has no reason to name");
}

#[test]
fn an_audit_outcome_reads_as_one_line() {
    let part = |label: &str, count: Option<u64>| OutcomePart { label: label.into(), count, tone: Tone::Neutral };
    let mut a = AuditOutcome {
        basis: "b".into(),
        parts: vec![part("passed audit", Some(2)), part("blocked", Some(1))],
        decision: Some(part("not admitted", None)),
        tone: Tone::Bad,
        decided_by: Vec::new(),
    };
    assert_eq!(a.line(), "2 passed audit, 1 blocked; not admitted");
    a.parts.clear();
    assert_eq!(a.line(), "not admitted");
}

#[test]
#[should_panic(expected = "shadow")]
fn sections_cannot_shadow_fields() {
    Report::new("x").section("results", 1);
}

proptest::proptest! {
    /// The report's order is a stable sort by code, subject, outcome and message, whatever
    /// the thread count: results equal in all four keep the order they were added in.
    #[test]
    fn results_are_sorted_stably(keys in proptest::collection::vec((0u8..3, 0u8..6, 0u8..5, 0u8..4, 0u16..1000), 0..300)) {
        let outcomes = [Outcome::Passed, Outcome::Failed, Outcome::CantTell, Outcome::Inapplicable, Outcome::Untested];
        let results: Vec<CheckResult> = keys
            .iter()
            .map(|&(c, s, o, m, tag)| {
                let mut x = r(Level::Error, outcomes[usize::from(o)]);
                // Strings that are prefixes of each other, empty, and not ASCII.
                let words = ["", "a", "a/b", "ab", "B", "é"];
                x.code = format!("CV-T00{c}");
                x.subject = words[usize::from(s) % words.len()].to_owned();
                x.message = words[usize::from(m + 2) % words.len()].to_owned();
                x.evidence.insert("tag".into(), serde_json::json!(tag));
                x
            })
            .collect();
        let mut expected = results.clone();
        expected.sort_by(|a, b| (&a.code, &a.subject, a.outcome, &a.message).cmp(&(&b.code, &b.subject, b.outcome, &b.message)));
        expected.dedup();
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let mut rep = Report::new("x");
            rep.results = results.clone();
            pool.install(|| rep.finish());
            proptest::prop_assert_eq!(&rep.results, &expected);
        }
    }
}

/// Large enough for the sort to split across threads (the property above stays below where
/// rayon's sort goes parallel), with few distinct keys, so most results tie.
#[test]
fn a_large_report_is_sorted_stably_on_any_thread_count() {
    let outcomes = [Outcome::Passed, Outcome::Failed, Outcome::CantTell];
    let results: Vec<CheckResult> = (0..25_000u32)
        .map(|i| {
            let mut x = r(Level::Error, outcomes[(i % 3) as usize]);
            x.code = format!("CV-T00{}", (i * 7) % 5);
            x.subject = format!("cycles/{}", (i * 13) % 11);
            x.evidence.insert("tag".into(), serde_json::json!(i));
            x
        })
        .collect();
    let mut expected = results.clone();
    expected.sort_by(|a, b| {
        (&a.code, &a.subject, a.outcome, &a.message).cmp(&(&b.code, &b.subject, b.outcome, &b.message))
    });
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        let mut rep = Report::new("x");
        rep.results = results.clone();
        pool.install(|| rep.finish());
        assert!(rep.results == expected, "{threads} threads");
    }
}

//! The figures: a pure function of [`Records`] (and, for fix commits, the science log).
//!
//! Every key of [`FIGURES`] is always present in the `stats` object; a figure the input cannot
//! support is `null` and its reason is in `notMeasured`, never 0.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::model::{CycleRecord, FindingRecord, Records};
use super::num;
use super::time::parse_timestamp;

/// Every figure key, in the order the headline table shows them.
pub const FIGURES: &[&str] = &[
    "cycles",
    "decisions",
    "decision_sequence",
    "findings_per_cycle",
    "finding_occurrences",
    "distinct_findings",
    "closed",
    "open",
    "open_findings",
    "closed_by_fix_commit",
    "closed_fix_and_verified",
    "science_fix_commits",
    "closure_lag",
    "closure_lag_cycle_numbers",
    "recurring",
    "n_recurring",
    "reopened",
    "unknown_closures",
    "severity_distinct",
    "severity_occurrences",
    "source",
    "source_x_severity",
    "finding_class",
    "scopes",
    "rules",
    "rule_cycle_spread",
    "single_rule_occurrences",
    "most_cited_rule",
    "audit_minutes",
    "gap_minutes",
    "models",
    "n_models",
    "cycles_without_model",
    "decision_is_definitional",
    "decision_vs_blocking",
    "numbering_gaps",
];

/// Figures whose value is a map of counts: an absent key means a count of 0.
pub const COUNT_MAPS: &[&str] = &[
    "decisions",
    "recurring",
    "severity_distinct",
    "severity_occurrences",
    "source",
    "source_x_severity",
    "finding_class",
    "scopes",
    "rules",
    "rule_cycle_spread",
    "models",
    "decision_vs_blocking",
];

/// Key under which a count map counts occurrences that have no value (a finding without a
/// `source:` line, a null severity). Python's `json` writes a `None` key as `"null"`.
pub const NULL_KEY: &str = "null";

/// Fix commits found in the science repository's log (mining script step 5).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Science {
    /// The science commit the log was read from.
    pub commit: String,
    /// Commits whose subject qualifies as a fix commit.
    pub fix_commits: usize,
    /// Finding ID → 12-hex prefixes of the fix commits naming it, in log order (newest first).
    pub by_finding: BTreeMap<String, Vec<String>>,
}

/// One distinct finding's lifecycle.
#[derive(Debug, Clone, PartialEq)]
pub struct Lifecycle {
    /// Finding ID.
    pub id: String,
    /// Severity at first sight.
    pub severity: Option<String>,
    /// Ledger positions (0-based) of the cycles listing it.
    pub raised_in: Vec<usize>,
    /// Position of the first cycle, after its first raise, that verifies it closed.
    pub closed_in: Option<usize>,
    /// Rules cited by its first occurrence.
    pub rules: Vec<String>,
    /// Scopes of its first occurrence.
    pub scopes: Vec<String>,
    /// Source label of its first occurrence.
    pub source: Option<String>,
    /// Whether a cycle listed it again after its first closure.
    pub reopened: bool,
}

impl Lifecycle {
    /// Position of the first raise.
    #[must_use]
    pub fn first_raised(&self) -> usize {
        self.raised_in[0]
    }

    /// Closure lag in ledger positions.
    #[must_use]
    pub fn lag(&self) -> Option<usize> {
        self.closed_in.map(|c| c - self.first_raised())
    }
}

/// Everything computed from one set of records.
#[derive(Debug, Clone)]
pub struct Figures {
    /// The `stats` object: every key of [`FIGURES`], plus `notMeasured` and `caveats`.
    pub stats: Map<String, Value>,
    /// Figure → reason it is null.
    pub not_measured: BTreeMap<String, String>,
    /// Figure → caveat on how it was computed from this input.
    pub caveats: BTreeMap<String, String>,
    /// Per distinct finding, sorted by ID; empty when findings could not be followed.
    pub lifecycle: Vec<Lifecycle>,
    /// Cycle ids in ledger order, for positions.
    pub cycle_ids: Vec<String>,
    /// Per cycle: audit minutes, when measured.
    pub audit_minutes: Vec<Option<f64>>,
    /// Per cycle: minutes since the previous cycle completed, when measured.
    pub gap_before: Vec<Option<f64>>,
}

impl Figures {
    /// A figure by key (`Value::Null` when not measured or unknown).
    #[must_use]
    pub fn get(&self, key: &str) -> &Value {
        self.stats.get(key).unwrap_or(&Value::Null)
    }
}

struct Builder {
    stats: Map<String, Value>,
    not_measured: BTreeMap<String, String>,
    unsupported: BTreeMap<String, String>,
}

impl Builder {
    fn put(&mut self, key: &str, v: Result<Value, String>) {
        debug_assert!(FIGURES.contains(&key), "{key} is not a registered figure");
        let v = match self.unsupported.get(key) {
            Some(reason) => Err(reason.clone()),
            None => v,
        };
        match v {
            Ok(v) => {
                self.stats.insert(key.to_owned(), v);
            }
            Err(reason) => {
                self.stats.insert(key.to_owned(), Value::Null);
                self.not_measured.insert(key.to_owned(), reason);
            }
        }
    }
}

fn counts<I: IntoIterator<Item = String>>(items: I) -> Value {
    let mut m: BTreeMap<String, u64> = BTreeMap::new();
    for i in items {
        *m.entry(i).or_default() += 1;
    }
    json!(m)
}

fn key_of(v: Option<&String>) -> String {
    v.cloned().unwrap_or_else(|| NULL_KEY.to_owned())
}

fn unreadable(cycles: &[CycleRecord], has: impl Fn(&CycleRecord) -> bool, what: &str) -> Result<(), String> {
    let bad: Vec<&str> = cycles.iter().filter(|c| !has(c)).map(|c| c.id.as_str()).collect();
    if bad.is_empty() { Ok(()) } else { Err(format!("the {what} of {} could not be read", bad.join(", "))) }
}

/// Computes every figure from `records` (and `science`, the fix commits from the science log:
/// `None` when no science repository was given, `Some(Err)` when it could not be read).
#[must_use]
pub fn compute(records: &Records, science: Option<&Result<Science, String>>) -> Figures {
    let cycles = &records.cycles;
    let mut unsupported = records.unsupported.clone();
    if let Some(reason) = &records.unreadable {
        unsupported = FIGURES.iter().map(|f| ((*f).to_owned(), reason.clone())).collect();
    }
    let mut b = Builder { stats: Map::new(), not_measured: BTreeMap::new(), unsupported };
    let decisions_ok = unreadable(cycles, |c| c.decision.is_some(), "decision");
    let findings_ok = unreadable(cycles, |c| c.findings.is_some(), "findings");
    let closures_ok = unreadable(cycles, |c| c.verified_closed.is_some(), "verified closures");
    let lifecycle_ok = findings_ok.clone().and(closures_ok.clone());
    let decs = || -> Vec<String> { cycles.iter().map(|c| c.decision.clone().unwrap_or_default()).collect() };
    let occ = || -> Vec<(usize, &FindingRecord)> {
        cycles.iter().enumerate().flat_map(|(i, c)| c.findings.iter().flatten().map(move |f| (i, f))).collect()
    };

    b.put("cycles", Ok(cycles.len().into()));
    b.put("decisions", decisions_ok.clone().map(|()| counts(decs())));
    b.put("decision_sequence", decisions_ok.clone().map(|()| json!(decs())));
    b.put(
        "findings_per_cycle",
        findings_ok
            .clone()
            .map(|()| json!(cycles.iter().map(|c| c.findings.as_ref().map_or(0, Vec::len)).collect::<Vec<_>>())),
    );
    b.put("finding_occurrences", findings_ok.clone().map(|()| occ().len().into()));
    let distinct: BTreeSet<&str> = occ().iter().map(|(_, f)| f.id.as_str()).collect();
    b.put("distinct_findings", findings_ok.clone().map(|()| distinct.len().into()));

    // Lifecycle: first raise fixes severity, rules, scopes; the first verified closure after the
    // first raise closes it.
    let mut life: BTreeMap<String, Lifecycle> = BTreeMap::new();
    let mut unknown_closures = Vec::new();
    let mut ambiguous = Vec::new();
    if lifecycle_ok.is_ok() {
        for (pos, f) in occ() {
            let l = life.entry(f.id.clone()).or_insert_with(|| Lifecycle {
                id: f.id.clone(),
                severity: f.severity.clone(),
                raised_in: Vec::new(),
                closed_in: None,
                rules: f.rules.clone(),
                scopes: f.scopes.clone().unwrap_or_default(),
                source: f.source.clone(),
                reopened: false,
            });
            if l.raised_in.last() != Some(&pos) {
                l.raised_in.push(pos);
            }
        }
        for (pos, c) in cycles.iter().enumerate() {
            for cl in c.verified_closed.iter().flatten() {
                if cl.id != cl.alt {
                    ambiguous.push(format!("{}: {:?}", c.id, cl.raw));
                }
                match cl.id.as_deref().and_then(|id| life.get_mut(id)) {
                    Some(l) if l.first_raised() < pos => {
                        if l.closed_in.is_none() {
                            l.closed_in = Some(pos);
                        }
                    }
                    _ => unknown_closures.push((pos, cl.raw.clone())),
                }
            }
        }
        // Entry order within a cycle carries no meaning; the reported lists must not depend on it.
        unknown_closures.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        ambiguous.sort();
        for l in life.values_mut() {
            l.reopened = l.closed_in.is_some_and(|c| l.raised_in.iter().any(|r| *r > c));
        }
    }
    let lifecycle: Vec<Lifecycle> = life.into_values().collect();
    let closed: Vec<&Lifecycle> = lifecycle.iter().filter(|l| l.closed_in.is_some()).collect();
    b.put("closed", lifecycle_ok.clone().map(|()| closed.len().into()));
    b.put("open", lifecycle_ok.clone().map(|()| (lifecycle.len() - closed.len()).into()));
    b.put(
        "open_findings",
        lifecycle_ok
            .clone()
            .map(|()| json!(lifecycle.iter().filter(|l| l.closed_in.is_none()).map(|l| &l.id).collect::<Vec<_>>())),
    );
    b.put(
        "unknown_closures",
        lifecycle_ok.clone().map(|()| {
            json!(unknown_closures.iter().map(|(p, e)| json!({"cycle": cycles[*p].id, "entry": e})).collect::<Vec<_>>())
        }),
    );
    b.put(
        "reopened",
        lifecycle_ok
            .clone()
            .map(|()| json!(lifecycle.iter().filter(|l| l.reopened).map(|l| &l.id).collect::<Vec<_>>())),
    );

    // Fix commits need the science repository's log.
    let sci: Result<&Science, String> = match science {
        None => Err("needs the science repository's log (a commit subject naming the finding); pass --science".into()),
        Some(Err(e)) => Err(e.clone()),
        Some(Ok(s)) => Ok(s),
    };
    let named = |l: &Lifecycle| sci.as_ref().is_ok_and(|s| s.by_finding.contains_key(&l.id));
    b.put(
        "closed_by_fix_commit",
        sci.clone().and_then(|_| lifecycle_ok.clone()).map(|()| lifecycle.iter().filter(|l| named(l)).count().into()),
    );
    b.put(
        "closed_fix_and_verified",
        sci.clone().and_then(|_| lifecycle_ok.clone()).map(|()| closed.iter().filter(|l| named(l)).count().into()),
    );
    b.put("science_fix_commits", sci.clone().map(|s| s.fix_commits.into()));

    // Closure lag over closed findings only; open ones are excluded, never imputed.
    let lag_positions: BTreeMap<&str, f64> =
        closed.iter().filter_map(|l| l.lag().map(|g| (l.id.as_str(), g as f64))).collect();
    b.put("closure_lag", lifecycle_ok.clone().and_then(|()| lag_summary(&lag_positions)));
    let numbers: Vec<Option<u64>> = cycles.iter().map(|c| c.number).collect();
    let lag_numbers: Result<BTreeMap<&str, f64>, String> = closed
        .iter()
        .map(|l| {
            let (a, z) = (l.first_raised(), l.closed_in.expect("`closed` holds only findings with a closure"));
            match (numbers[a], numbers[z]) {
                (Some(a), Some(z)) => Ok((l.id.as_str(), z as f64 - a as f64)),
                _ => Err(format!("{} or {} carries no cycle number", cycles[a].id, cycles[z].id)),
            }
        })
        .collect();
    b.put("closure_lag_cycle_numbers", lifecycle_ok.clone().and(lag_numbers).and_then(|m| lag_summary(&m)));

    // Recurrence: IDs listed in more than one cycle.
    let recurring: BTreeMap<&str, usize> =
        lifecycle.iter().filter(|l| l.raised_in.len() > 1).map(|l| (l.id.as_str(), l.raised_in.len())).collect();
    b.put("recurring", lifecycle_ok.clone().map(|()| json!(recurring)));
    b.put("n_recurring", lifecycle_ok.clone().map(|()| recurring.len().into()));

    b.put(
        "severity_distinct",
        lifecycle_ok.clone().map(|()| counts(lifecycle.iter().map(|l| key_of(l.severity.as_ref())))),
    );
    b.put(
        "severity_occurrences",
        findings_ok.clone().map(|()| counts(occ().iter().map(|(_, f)| key_of(f.severity.as_ref())))),
    );
    b.put("source", findings_ok.clone().map(|()| counts(occ().iter().map(|(_, f)| key_of(f.source.as_ref())))));
    b.put(
        "source_x_severity",
        findings_ok.clone().map(|()| {
            counts(occ().iter().map(|(_, f)| format!("{}|{}", key_of(f.source.as_ref()), key_of(f.severity.as_ref()))))
        }),
    );
    b.put(
        "finding_class",
        findings_ok.clone().map(|()| counts(occ().iter().map(|(_, f)| key_of(f.finding_class.as_ref())))),
    );
    b.put(
        "scopes",
        findings_ok.clone().map(|()| counts(occ().iter().flat_map(|(_, f)| f.scopes.clone().unwrap_or_default()))),
    );

    // Rule concentration.
    let mut rule_occ: BTreeMap<String, u64> = BTreeMap::new();
    let mut rule_cycles: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (pos, f) in occ() {
        let unique: BTreeSet<&String> = f.rules.iter().collect();
        for r in unique {
            *rule_occ.entry(r.clone()).or_default() += 1;
            rule_cycles.entry(r.clone()).or_default().insert(pos);
        }
    }
    let spread: BTreeMap<&String, usize> = rule_cycles.iter().map(|(r, s)| (r, s.len())).collect();
    b.put("rules", findings_ok.clone().map(|()| json!(rule_occ)));
    b.put("rule_cycle_spread", findings_ok.clone().map(|()| json!(spread)));
    b.put(
        "single_rule_occurrences",
        findings_ok
            .clone()
            .map(|()| occ().iter().filter(|(_, f)| f.rules.iter().collect::<BTreeSet<_>>().len() == 1).count().into()),
    );
    b.put(
        "most_cited_rule",
        findings_ok.clone().and_then(|()| {
            let top = rule_occ.values().copied().max().ok_or("no occurrence cites a rule")?;
            let tied: Vec<&String> = rule_occ.iter().filter(|(_, n)| **n == top).map(|(r, _)| r).collect();
            Ok(json!({
                "rule": tied[0],
                "occurrences": top,
                "cycles": spread[tied[0]],
                "of_occurrences": occ().len(),
                "of_cycles": cycles.len(),
                "tied_with": tied[1..],
            }))
        }),
    );

    // Durations and gaps.
    let times: Vec<(Option<_>, Option<_>)> = cycles
        .iter()
        .map(|c| {
            (c.started_at.as_deref().and_then(parse_timestamp), c.completed_at.as_deref().and_then(parse_timestamp))
        })
        .collect();
    let minutes: Vec<Option<f64>> = times
        .iter()
        .map(|t| match t {
            (Some(s), Some(e)) => Some(s.minutes_until(*e)),
            _ => None,
        })
        .collect();
    let gaps: Vec<Option<f64>> = (0..cycles.len())
        .map(|i| match (i.checked_sub(1).and_then(|p| times[p].1), times[i].0) {
            (Some(prev_end), Some(start)) => Some(prev_end.minutes_until(start)),
            _ => None,
        })
        .collect();
    let unmeasured: Vec<&str> =
        cycles.iter().zip(&minutes).filter(|(_, m)| m.is_none()).map(|(c, _)| c.id.as_str()).collect();
    let measured: Vec<f64> = minutes.iter().flatten().copied().collect();
    b.put(
        "audit_minutes",
        if measured.is_empty() {
            Err("no cycle has a parseable started_at and completed_at".into())
        } else {
            let (lo, hi) = num::min_max(&measured).expect("the set was checked to be non-empty");
            Ok(json!({
                "median": num::value(num::median(&measured).expect("the set was checked to be non-empty")),
                "min": num::value(lo),
                "max": num::value(hi),
                "n": measured.len(),
                "unmeasured": unmeasured,
            }))
        },
    );
    let gap_values: Vec<f64> = gaps.iter().flatten().copied().collect();
    b.put(
        "gap_minutes",
        if gap_values.is_empty() {
            Err("no two consecutive cycles both have parseable times".into())
        } else {
            let (q1, q3) = num::quartiles(&gap_values).expect("the set was checked to be non-empty");
            Ok(json!({
                "median": num::value(num::median(&gap_values).expect("the set was checked to be non-empty")),
                "q1": num::value(q1),
                "q3": num::value(q3),
                "max": num::value(num::min_max(&gap_values).expect("the set was checked to be non-empty").1),
                "n": gap_values.len(),
            }))
        },
    );

    // Models: distinct non-null identifiers, case-sensitive.
    b.put("models", Ok(counts(cycles.iter().filter_map(|c| c.model.clone()))));
    b.put("n_models", Ok(cycles.iter().filter_map(|c| c.model.as_deref()).collect::<BTreeSet<_>>().len().into()));
    b.put("cycles_without_model", Ok(cycles.iter().filter(|c| c.model.is_none()).count().into()));

    // Decision is definitional: for every non-PASS decision, BLOCK iff a finding gates a scope.
    let both_ok = decisions_ok.clone().and(findings_ok.clone());
    let blocking = |c: &CycleRecord| c.findings.iter().flatten().any(FindingRecord::is_blocking);
    b.put(
        "decision_is_definitional",
        both_ok.clone().map(|()| {
            cycles
                .iter()
                .filter(|c| c.decision.as_deref() != Some("PASS"))
                .all(|c| (c.decision.as_deref() == Some("BLOCK")) == blocking(c))
                .into()
        }),
    );
    b.put(
        "decision_vs_blocking",
        both_ok.map(|()| {
            counts(cycles.iter().map(|c| {
                format!(
                    "{}|any_blocking={}",
                    c.decision.as_deref().unwrap_or_default(),
                    if blocking(c) { "True" } else { "False" }
                )
            }))
        }),
    );

    let nums: BTreeSet<u64> = cycles.iter().filter_map(|c| c.number).collect();
    b.put(
        "numbering_gaps",
        if cycles.iter().any(|c| c.number.is_none()) {
            Err("some cycle ids carry no CYCLE-NNNNNN number".into())
        } else {
            let max = nums.last().copied().unwrap_or(0);
            Ok(json!((1..=max).filter(|n| !nums.contains(n)).map(|n| format!("CYCLE-{n:06}")).collect::<Vec<_>>()))
        },
    );

    let mut caveats = records.caveats.clone();
    if !ambiguous.is_empty() {
        super::model::add_caveat(
            &mut caveats,
            "closed",
            &format!(
                "verified-closed entries read differently by the mining script (leading F-<digits> of the text before ':') and the analysis script (first F-<digits> anywhere); the figures use the mining reading: {}",
                ambiguous.join(", ")
            ),
        );
    }
    let mut stats = b.stats;
    stats.insert("notMeasured".into(), json!(b.not_measured));
    stats.insert("caveats".into(), json!(caveats));
    Figures {
        stats,
        not_measured: b.not_measured,
        caveats,
        lifecycle,
        cycle_ids: cycles.iter().map(|c| c.id.clone()).collect(),
        audit_minutes: minutes,
        gap_before: gaps,
    }
}

fn lag_summary(per: &BTreeMap<&str, f64>) -> Result<Value, String> {
    let v: Vec<f64> = per.values().copied().collect();
    if v.is_empty() {
        return Err("no finding was verified closed, so no closure lag exists".into());
    }
    Ok(json!({
        "median": num::value(num::median(&v).expect("the set was checked to be non-empty")),
        "mean": num::value(num::mean(&v).expect("the set was checked to be non-empty")),
        "max": num::value(num::min_max(&v).expect("the set was checked to be non-empty").1),
        "n": v.len(),
        "per_finding": per.iter().map(|(k, g)| ((*k).to_owned(), num::value(*g))).collect::<Map<_, _>>(),
    }))
}

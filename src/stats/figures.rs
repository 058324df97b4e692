//! The figures: a pure function of [`Records`] (and, for fix commits, the science log).
//!
//! Every key of [`FIGURES`] is always present in the `stats` object; a figure the input cannot
//! support is `null` and its reason is in `notMeasured`, never 0.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::model::{CycleRecord, FindingRecord, Records};
use super::num;
use super::time::parse_timestamp;

pub use super::model::FIGURES;

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

/// Fix commits found in the science repository's log, as the protocol's fix rule reads it.
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
    /// Record positions (0-based) of the cycles listing it.
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

    /// Closure lag in record positions.
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
    /// Cycle ids in record order, for positions.
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

/// What every group of figures reads: the records, and whether each part of them could be
/// read (`Err` names the cycles that could not).
struct Input<'a> {
    records: &'a Records,
    cycles: &'a [CycleRecord],
    decisions_ok: Result<(), String>,
    findings_ok: Result<(), String>,
    lifecycle_ok: Result<(), String>,
}

impl<'a> Input<'a> {
    fn decisions(&self) -> Vec<String> {
        self.cycles.iter().map(|c| c.decision.clone().unwrap_or_default()).collect()
    }

    fn occurrences(&self) -> Vec<(usize, &'a FindingRecord)> {
        self.cycles.iter().enumerate().flat_map(|(i, c)| c.findings.iter().flatten().map(move |f| (i, f))).collect()
    }
}

/// The lifecycles, with the closure entries that name no finding raised before them and
/// those the format reads two ways.
struct Followed {
    lifecycle: Vec<Lifecycle>,
    unknown_closures: Vec<(usize, String)>,
    ambiguous: Vec<String>,
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
    let findings_ok = unreadable(cycles, |c| c.findings.is_some(), "findings");
    let closures_ok = unreadable(cycles, |c| c.verified_closed.is_some(), "verified closures");
    let input = Input {
        records,
        cycles,
        decisions_ok: unreadable(cycles, |c| c.decision.is_some(), "decision"),
        lifecycle_ok: findings_ok.clone().and(closures_ok),
        findings_ok,
    };
    counts_and_decisions(&mut b, &input);
    let followed = follow(&input);
    lifecycle_figures(&mut b, &input, &followed);
    fix_commit_figures(&mut b, &input, &followed.lifecycle, science);
    lag_figures(&mut b, &input, &followed.lifecycle);
    label_figures(&mut b, &input, &followed.lifecycle);
    rule_figures(&mut b, &input);
    let (minutes, gaps) = duration_figures(&mut b, cycles);
    model_figures(&mut b, cycles);
    gate_figures(&mut b, &input);
    numbering_figures(&mut b, records);

    let mut caveats = records.caveats.clone();
    if !followed.ambiguous.is_empty() {
        let declared = records.kind.declared_second_reading();
        super::model::add_caveat(
            &mut caveats,
            "closed",
            &format!(
                "{}: {}",
                declared.unwrap_or("closure entries the format reads two ways; the figures use the first reading"),
                followed.ambiguous.join(", ")
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
        lifecycle: followed.lifecycle,
        cycle_ids: cycles.iter().map(|c| c.id.clone()).collect(),
        audit_minutes: minutes,
        gap_before: gaps,
    }
}

fn counts_and_decisions(b: &mut Builder, input: &Input<'_>) {
    let cycles = input.cycles;
    b.put("cycles", Ok(cycles.len().into()));
    b.put("decisions", input.decisions_ok.clone().map(|()| counts(input.decisions())));
    b.put("decision_sequence", input.decisions_ok.clone().map(|()| json!(input.decisions())));
    b.put(
        "findings_per_cycle",
        input
            .findings_ok
            .clone()
            .map(|()| json!(cycles.iter().map(|c| c.findings.as_ref().map_or(0, Vec::len)).collect::<Vec<_>>())),
    );
    b.put("finding_occurrences", input.findings_ok.clone().map(|()| input.occurrences().len().into()));
    let distinct: BTreeSet<&str> = input.occurrences().iter().map(|(_, f)| f.id.as_str()).collect();
    b.put("distinct_findings", input.findings_ok.clone().map(|()| distinct.len().into()));
}

/// Lifecycle: first raise fixes severity, rules, scopes; the first verified closure after the
/// first raise closes it.
fn follow(input: &Input<'_>) -> Followed {
    let mut life: BTreeMap<String, Lifecycle> = BTreeMap::new();
    let mut unknown_closures = Vec::new();
    let mut ambiguous = Vec::new();
    if input.lifecycle_ok.is_ok() {
        for (pos, f) in input.occurrences() {
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
        for (pos, c) in input.cycles.iter().enumerate() {
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
    Followed { lifecycle: life.into_values().collect(), unknown_closures, ambiguous }
}

fn lifecycle_figures(b: &mut Builder, input: &Input<'_>, followed: &Followed) {
    let (lifecycle, ok, cycles) = (&followed.lifecycle, &input.lifecycle_ok, input.cycles);
    let closed = lifecycle.iter().filter(|l| l.closed_in.is_some()).count();
    b.put("closed", ok.clone().map(|()| closed.into()));
    b.put("open", ok.clone().map(|()| (lifecycle.len() - closed).into()));
    b.put(
        "open_findings",
        ok.clone()
            .map(|()| json!(lifecycle.iter().filter(|l| l.closed_in.is_none()).map(|l| &l.id).collect::<Vec<_>>())),
    );
    b.put(
        "unknown_closures",
        ok.clone().map(|()| {
            json!(
                followed
                    .unknown_closures
                    .iter()
                    .map(|(p, e)| json!({"cycle": cycles[*p].id, "entry": e}))
                    .collect::<Vec<_>>()
            )
        }),
    );
    b.put(
        "reopened",
        ok.clone().map(|()| json!(lifecycle.iter().filter(|l| l.reopened).map(|l| &l.id).collect::<Vec<_>>())),
    );
    // Recurrence: IDs listed in more than one cycle.
    let recurring: BTreeMap<&str, usize> =
        lifecycle.iter().filter(|l| l.raised_in.len() > 1).map(|l| (l.id.as_str(), l.raised_in.len())).collect();
    b.put("recurring", ok.clone().map(|()| json!(recurring)));
    b.put("n_recurring", ok.clone().map(|()| recurring.len().into()));
}

/// Fix commits need the science repository's log.
fn fix_commit_figures(
    b: &mut Builder,
    input: &Input<'_>,
    lifecycle: &[Lifecycle],
    science: Option<&Result<Science, String>>,
) {
    let sci: Result<&Science, String> = match science {
        None => Err("needs the science repository's log (a commit subject naming the finding); pass --science".into()),
        Some(Err(e)) => Err(e.clone()),
        Some(Ok(s)) => Ok(s),
    };
    let ok = &input.lifecycle_ok;
    let named = |l: &&Lifecycle| sci.as_ref().is_ok_and(|s| s.by_finding.contains_key(&l.id));
    b.put(
        "closed_by_fix_commit",
        sci.clone().and_then(|_| ok.clone()).map(|()| lifecycle.iter().filter(named).count().into()),
    );
    b.put(
        "closed_fix_and_verified",
        sci.clone()
            .and_then(|_| ok.clone())
            .map(|()| lifecycle.iter().filter(|l| l.closed_in.is_some()).filter(named).count().into()),
    );
    b.put("science_fix_commits", sci.map(|s| s.fix_commits.into()));
}

/// Closure lag over closed findings only; open ones are excluded, never imputed.
fn lag_figures(b: &mut Builder, input: &Input<'_>, lifecycle: &[Lifecycle]) {
    let cycles = input.cycles;
    let closed: Vec<&Lifecycle> = lifecycle.iter().filter(|l| l.closed_in.is_some()).collect();
    let lag_positions: BTreeMap<&str, f64> =
        closed.iter().filter_map(|l| l.lag().map(|g| (l.id.as_str(), g as f64))).collect();
    b.put("closure_lag", input.lifecycle_ok.clone().and_then(|()| lag_summary(&lag_positions)));
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
    b.put("closure_lag_cycle_numbers", input.lifecycle_ok.clone().and(lag_numbers).and_then(|m| lag_summary(&m)));
}

fn label_figures(b: &mut Builder, input: &Input<'_>, lifecycle: &[Lifecycle]) {
    let (ok, occ) = (&input.findings_ok, input.occurrences());
    b.put(
        "severity_distinct",
        input.lifecycle_ok.clone().map(|()| counts(lifecycle.iter().map(|l| key_of(l.severity.as_ref())))),
    );
    b.put("severity_occurrences", ok.clone().map(|()| counts(occ.iter().map(|(_, f)| key_of(f.severity.as_ref())))));
    b.put("source", ok.clone().map(|()| counts(occ.iter().map(|(_, f)| key_of(f.source.as_ref())))));
    b.put(
        "source_x_severity",
        ok.clone().map(|()| {
            counts(occ.iter().map(|(_, f)| format!("{}|{}", key_of(f.source.as_ref()), key_of(f.severity.as_ref()))))
        }),
    );
    b.put("finding_class", ok.clone().map(|()| counts(occ.iter().map(|(_, f)| key_of(f.finding_class.as_ref())))));
    b.put("scopes", ok.clone().map(|()| counts(occ.iter().flat_map(|(_, f)| f.scopes.clone().unwrap_or_default()))));
}

/// Rule concentration.
fn rule_figures(b: &mut Builder, input: &Input<'_>) {
    let (ok, occ) = (&input.findings_ok, input.occurrences());
    let mut rule_occ: BTreeMap<String, u64> = BTreeMap::new();
    let mut rule_cycles: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (pos, f) in &occ {
        let unique: BTreeSet<&String> = f.rules.iter().collect();
        for r in unique {
            *rule_occ.entry(r.clone()).or_default() += 1;
            rule_cycles.entry(r.clone()).or_default().insert(*pos);
        }
    }
    let spread: BTreeMap<&String, usize> = rule_cycles.iter().map(|(r, s)| (r, s.len())).collect();
    b.put("rules", ok.clone().map(|()| json!(rule_occ)));
    b.put("rule_cycle_spread", ok.clone().map(|()| json!(spread)));
    b.put(
        "single_rule_occurrences",
        ok.clone()
            .map(|()| occ.iter().filter(|(_, f)| f.rules.iter().collect::<BTreeSet<_>>().len() == 1).count().into()),
    );
    b.put(
        "most_cited_rule",
        ok.clone().and_then(|()| {
            let top = rule_occ.values().copied().max().ok_or("no occurrence cites a rule")?;
            let tied: Vec<&String> = rule_occ.iter().filter(|(_, n)| **n == top).map(|(r, _)| r).collect();
            Ok(json!({
                "rule": tied[0],
                "occurrences": top,
                "cycles": spread[tied[0]],
                "of_occurrences": occ.len(),
                "of_cycles": input.cycles.len(),
                "tied_with": tied[1..],
            }))
        }),
    );
}

/// Durations and gaps; returns each cycle's minutes and the gap before it.
fn duration_figures(b: &mut Builder, cycles: &[CycleRecord]) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
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
    (minutes, gaps)
}

/// Models: distinct non-null identifiers, case-sensitive.
fn model_figures(b: &mut Builder, cycles: &[CycleRecord]) {
    b.put("models", Ok(counts(cycles.iter().filter_map(|c| c.model.clone()))));
    b.put("n_models", Ok(cycles.iter().filter_map(|c| c.model.as_deref()).collect::<BTreeSet<_>>().len().into()));
    b.put("cycles_without_model", Ok(cycles.iter().filter(|c| c.model.is_none()).count().into()));
}

/// Decision is definitional: every decision but the declared exempt one is the declared
/// blocking one exactly when a finding of its cycle blocks a scope.
fn gate_figures(b: &mut Builder, input: &Input<'_>) {
    let both_ok = input.decisions_ok.clone().and(input.findings_ok.clone());
    let blocking = |c: &CycleRecord| c.findings.iter().flatten().any(FindingRecord::is_blocking);
    let gate = input
        .records
        .kind
        .declared_gate()
        .ok_or_else(|| "the records declare no decision that a blocking finding calls for".to_owned());
    b.put(
        "decision_is_definitional",
        both_ok.clone().and(gate).map(|gate| {
            input
                .cycles
                .iter()
                .filter(|c| gate.exempt.is_none() || c.decision.as_deref() != gate.exempt)
                .all(|c| (gate.blocked.is_some() && c.decision.as_deref() == gate.blocked) == blocking(c))
                .into()
        }),
    );
    b.put(
        "decision_vs_blocking",
        both_ok.map(|()| {
            counts(input.cycles.iter().map(|c| {
                format!(
                    "{}|any_blocking={}",
                    c.decision.as_deref().unwrap_or_default(),
                    if blocking(c) { "True" } else { "False" }
                )
            }))
        }),
    );
}

/// Gaps in the cycle numbers, named as the protocol names its cycles.
fn numbering_figures(b: &mut Builder, records: &Records) {
    let cycles = &records.cycles;
    let nums: BTreeSet<u64> = cycles.iter().filter_map(|c| c.number).collect();
    b.put(
        "numbering_gaps",
        match records.kind.declared_numbering() {
            None => Err("the records declare no numbering of their cycles".into()),
            Some(n) if cycles.iter().any(|c| c.number.is_none()) => Err(n.unnumbered.to_owned()),
            Some(n) => {
                let max = nums.last().copied().unwrap_or(0);
                Ok(json!((1..=max).filter(|k| !nums.contains(k)).map(n.name).collect::<Vec<_>>()))
            }
        },
    );
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

//! A run as a report: one result per case and implementation (code `CV-K001`, passed when the
//! implementation decided as the paper requires), a score per implementation in
//! `conformance.implementations`, and the views every format draws: the scores, the matrix (one
//! row per case, one column per implementation, the paper's reason and the inputs beside it),
//! the wrong decisions by class, and the suite's composition.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::model::{Answer, CATEGORIES, Case, InputKind, PROTOCOLS, Score, Suite};
use super::run::{Implementation, Ran, Status};
use crate::report::{CheckDoc, CheckResult, Level, Outcome, Report, Table, Tone, View};

/// The one code of a conformance report.
pub const CODE: &str = "CV-K001";
const NAME: &str = "decided-as-required";

/// Counts of one implementation's answers.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    cases: usize,
    as_required: usize,
    false_accepts: usize,
    false_rejects: usize,
    errors: usize,
    crashes: usize,
    timeouts: usize,
    not_run: usize,
    unsupported: usize,
    time: Duration,
}

impl Tally {
    fn add(&mut self, answer: &Answer, score: Score, took: Duration) {
        self.cases += 1;
        self.time += took;
        match score {
            Score::AsRequired => self.as_required += 1,
            Score::FalseAccept => self.false_accepts += 1,
            Score::FalseReject => self.false_rejects += 1,
            Score::Error => match answer {
                Answer::Crash(_) => self.crashes += 1,
                Answer::Timeout => self.timeouts += 1,
                _ => self.errors += 1,
            },
            Score::NotRun => self.not_run += 1,
            Score::Unsupported => self.unsupported += 1,
        }
    }

    /// Decided as required out of the cases it was given (run, not skipped or unsupported).
    fn score(&self) -> String {
        let given = self.cases - self.not_run - self.unsupported;
        if given == 0 {
            return if self.unsupported > 0 { "declined every case" } else { "not run" }.into();
        }
        // Tenths of a percent, rounded down, so 99.96% never reads as 100%.
        let tenths = self.as_required * 1000 / given;
        format!("{}.{}% ({}/{given})", tenths / 10, tenths % 10, self.as_required)
    }
}

/// Builds the report of a run; `from` says where the suite was read: its directory as given,
/// or [`EMBEDDED`](super::EMBEDDED).
#[must_use]
pub fn build(suite: &Suite, ran: &Ran, times: bool, from: &str) -> Report {
    let mut report = Report::new("conformance run");
    // Which suite, wherever it came from: the terminal shows the inputs, not the sections.
    report.input("suite", format!("{from}: {} {}, sha256 {}", suite.name, suite.version, suite.sha256));
    report
        .input("implementations", Value::Array(ran.columns.iter().map(|(imp, _, _)| json!(given_name(imp))).collect()));
    let mut tallies = Vec::new();
    let mut by_class: BTreeMap<(String, String, String), [usize; 4]> = BTreeMap::new();
    for (imp, _, answers) in &ran.columns {
        let mut t = Tally::default();
        for case in &ran.cases {
            let (answer, took) = answers.get(&case.id).cloned().unwrap_or((Answer::NotRecorded, Duration::ZERO));
            let score = answer.score(case.expected);
            t.add(&answer, score, took);
            let slot = by_class.entry((imp.name().to_owned(), case.category.clone(), case.class.clone())).or_default();
            slot[0] += 1;
            match score {
                Score::FalseAccept => slot[1] += 1,
                Score::FalseReject => slot[2] += 1,
                Score::Error => slot[3] += 1,
                _ => {}
            }
            report.results.push(result(imp, case, &answer, score));
        }
        tallies.push(t);
    }
    let implementations: Vec<Value> = ran
        .columns
        .iter()
        .zip(&tallies)
        .map(|((imp, status, _), t)| implementation_json(imp, status, t, times))
        .collect();
    let classes: Vec<Value> = by_class
        .iter()
        .filter(|(_, n)| n[1] + n[2] + n[3] > 0)
        .map(|((imp, cat, class), n)| {
            json!({"implementation": imp, "category": cat, "class": class, "cases": n[0],
                   "falseAccepts": n[1], "falseRejects": n[2], "errors": n[3]})
        })
        .collect();
    report.section(
        "conformance",
        json!({
            "suite": {"name": suite.name, "version": suite.version, "sha256": suite.sha256,
                      "cases": suite.cases.len(), "selected": ran.cases.len(), "from": from},
            "implementations": implementations,
            "wrongByClass": classes,
        }),
    );
    report.views = vec![
        View::Table(scores_table(ran, &tallies, times)),
        View::Table(wrong_table(ran)),
        View::Table(matrix(ran)),
        View::Table(class_table(&by_class)),
        View::Table(composition(&ran.cases)),
    ];
    // A terminal gets the scoreboard and what went wrong; a matrix of every case is a document.
    report.hints.terminal_views = vec!["scores".into(), "wrong".into()];
    report.checks.insert(CODE.to_owned(), doc());
    // How much came from a journal says how this run went, not what the suite scored.
    report.work.insert("conformance.resumed".to_owned(), ran.resumed as u64);
    hints(&mut report, suite, ran, &tallies);
    report.finish();
    report
}

fn given_name(imp: &Implementation) -> String {
    match imp {
        Implementation::Adapter { name, given, .. } if given == name => name.clone(),
        Implementation::Adapter { name, given, .. } => format!("{name}={given}"),
        Implementation::Recorded(r) => r.name.clone(),
    }
}

fn result(imp: &Implementation, case: &Case, answer: &Answer, score: Score) -> CheckResult {
    // The exit code is the report's verdict over these outcomes, so it says what the columns'
    // `allAsRequired` say: passed only for a case decided as required. A case declined (exit 77,
    // or an operation the probe does not claim) was not decided, so it is untested, not
    // inapplicable: an adapter that declines everything would otherwise be verified (issue 46).
    let outcome = match score {
        Score::AsRequired => Outcome::Passed,
        Score::FalseAccept | Score::FalseReject | Score::Error => Outcome::Failed,
        Score::NotRun | Score::Unsupported => Outcome::Untested,
    };
    let said = match answer.detail() {
        Some(d) => format!("{} ({d})", answer.word()),
        None => answer.word(),
    };
    let message = format!(
        "{} answered {said}; the paper requires {}: {} ({})",
        imp.name(),
        case.expected.as_str(),
        case.reason,
        case.section
    );
    CheckResult {
        code: CODE.to_owned(),
        level: Level::Error,
        outcome,
        subject: format!("{} {}", imp.name(), case.id),
        message,
        location: None,
        evidence: BTreeMap::from([
            ("implementation".to_owned(), json!(imp.name())),
            ("case".to_owned(), json!(case.id)),
            ("protocol".to_owned(), json!(case.protocol)),
            ("operation".to_owned(), json!(case.operation)),
            ("category".to_owned(), json!(case.category)),
            ("class".to_owned(), json!(case.class)),
            ("required".to_owned(), json!(case.expected.as_str())),
            ("answer".to_owned(), json!(answer.word())),
            ("detail".to_owned(), json!(answer.detail())),
        ]),
    }
}

fn implementation_json(imp: &Implementation, status: &Status, t: &Tally, times: bool) -> Value {
    let (kind, state, why, version) = match (imp, status) {
        (Implementation::Recorded(r), _) => ("recorded", "recorded", None, Some(r.version.clone())),
        (_, Status::Ran { version, .. }) => ("adapter", "ran", None, version.clone()),
        (_, Status::Skipped(w)) => ("adapter", "SKIPPED", Some(w.clone()), None),
        (_, Status::Broken(w)) => ("adapter", "broken", Some(w.clone()), None),
        (_, Status::Recorded) => ("adapter", "ran", None, None),
    };
    let mut v = json!({
        "name": imp.name(), "kind": kind, "status": state, "version": version,
        "cases": t.cases, "decidedAsRequired": t.as_required, "falseAccepts": t.false_accepts,
        "falseRejects": t.false_rejects, "errors": t.errors + t.crashes + t.timeouts, "crashes": t.crashes,
        "timeouts": t.timeouts, "notRun": t.not_run, "unsupported": t.unsupported, "score": t.score(),
        "allAsRequired": t.as_required == t.cases,
    });
    if let Some(w) = why {
        v["reason"] = json!(w);
    }
    if let Implementation::Recorded(r) = imp {
        v["recorded"] = json!({"date": r.date, "how": r.how, "decisions": r.decisions.len()});
    }
    if times {
        v["timeMs"] = json!(u64::try_from(t.time.as_millis()).unwrap_or(u64::MAX));
    }
    v
}

fn scores_table(ran: &Ran, tallies: &[Tally], times: bool) -> Table {
    let mut columns: Vec<String> = [
        "implementation",
        "kind",
        "cases",
        "decided as required",
        "false accepts",
        "false rejects",
        "errors",
        "crashes",
        "timeouts",
        "not run",
        "unsupported",
        "score",
    ]
    .map(str::to_owned)
    .to_vec();
    if times {
        columns.push("time (s)".into());
    }
    let rows = ran
        .columns
        .iter()
        .zip(tallies)
        .map(|((imp, status, _), t)| {
            let kind = match (imp, status) {
                (Implementation::Recorded(r), _) => format!("recorded ({}, {})", r.version, r.date),
                (_, Status::Skipped(why)) => format!("SKIPPED: {why}"),
                (_, Status::Broken(why)) => format!("broken: {why}"),
                (_, Status::Ran { version, .. }) => {
                    format!("adapter {}", version.as_deref().unwrap_or("")).trim().to_owned()
                }
                (_, Status::Recorded) => "adapter".into(),
            };
            let mut row = vec![
                json!(imp.name()),
                json!(kind),
                json!(t.cases),
                json!(t.as_required),
                json!(t.false_accepts),
                json!(t.false_rejects),
                json!(t.errors),
                json!(t.crashes),
                json!(t.timeouts),
                json!(t.not_run),
                json!(t.unsupported),
                json!(t.score()),
            ];
            if times {
                row.push(json!(format!("{:.1}", t.time.as_secs_f64())));
            }
            row
        })
        .collect();
    Table {
        id: "scores".into(),
        title: "Scores: decided as the paper requires".into(),
        columns,
        rows,
        note: Some(
            "A score counts the cases an implementation was given; \"not run\" (skipped, or not recorded) and \
             \"unsupported\" (an operation it does not claim) are never counted in its favour."
                .into(),
        ),
        csv: true,
    }
}

/// The matrix cell: the word with its verdict, so one word has one tone in every row.
fn cell(answer: &Answer, score: Score) -> String {
    match score {
        Score::AsRequired => format!("✓ {}", answer.word()),
        Score::FalseAccept => "✗ false accept".into(),
        Score::FalseReject => "✗ false reject".into(),
        Score::Error => format!("✗ {}", answer.word()),
        Score::NotRun | Score::Unsupported => format!("– {}", answer.word()),
    }
}

fn matrix(ran: &Ran) -> Table {
    let mut columns: Vec<String> = ["case", "protocol", "category", "required"].map(str::to_owned).to_vec();
    columns.extend(ran.columns.iter().map(|(imp, _, _)| imp.name().to_owned()));
    columns.extend(["paper's reason", "inputs"].map(str::to_owned));
    let rows = ran
        .cases
        .iter()
        .map(|case| {
            let mut row =
                vec![json!(case.id), json!(case.protocol), json!(case.category), json!(case.expected.as_str())];
            for (_, _, answers) in &ran.columns {
                let answer = answers.get(&case.id).map_or(Answer::NotRecorded, |(a, _)| a.clone());
                row.push(json!(cell(&answer, answer.score(case.expected))));
            }
            row.push(json!(format!("{} ({}); class {}", case.reason, case.section, case.class)));
            row.push(json!(inputs_text(case)));
            row
        })
        .collect();
    Table {
        id: "matrix".into(),
        title: "Matrix: one row per case, one column per implementation".into(),
        columns,
        rows,
        note: Some("✓ decided as the paper requires; ✗ did not (a false accept, a false reject, an error, a crash or a timeout); – not decided (skipped, declined or not recorded).".into()),
        // A companion of `--output csv=PATH` (PATH-matrix.csv), beside the results.
        csv: true,
    }
}

/// One row per case an implementation decided otherwise than the paper requires or broke on,
/// in column then suite order: what the terminal lists instead of the matrix.
fn wrong_table(ran: &Ran) -> Table {
    let mut rows = Vec::new();
    for (imp, _, answers) in &ran.columns {
        for case in &ran.cases {
            let answer = answers.get(&case.id).map_or(Answer::NotRecorded, |(a, _)| a.clone());
            let score = answer.score(case.expected);
            if matches!(score, Score::FalseAccept | Score::FalseReject | Score::Error) {
                let said = match answer.detail() {
                    Some(d) => format!("{} ({d})", cell(&answer, score)),
                    None => cell(&answer, score),
                };
                rows.push(vec![
                    json!(imp.name()),
                    json!(case.id),
                    json!(case.expected.as_str()),
                    json!(said),
                    json!(case.section),
                ]);
            }
        }
    }
    let note = (!rows.is_empty()).then(|| {
        "A false accept takes a forged or malformed record for genuine: read those first. The paper's \
         reasons and each case's inputs are in the matrix."
            .to_owned()
    });
    Table {
        id: "wrong".into(),
        title: "Wrong decisions".into(),
        columns: ["implementation", "case", "required", "answered", "section"].map(str::to_owned).to_vec(),
        rows,
        note,
        csv: false,
    }
}

fn inputs_text(case: &Case) -> String {
    let mut parts: Vec<String> = case
        .inputs
        .iter()
        .map(|(name, input)| match input {
            InputKind::File(p) => format!("{name}: file {p}"),
            InputKind::Directory(p) => format!("{name}: directory {p}"),
            InputKind::Repository { bundles, head } => format!("{name}: git {} at {head}", bundles.join(" + ")),
        })
        .collect();
    parts.push(format!("{} {}", case.operation, case.args.join(" ")));
    parts.push(format!("source {}", case.source));
    parts.join("; ")
}

fn class_table(by_class: &BTreeMap<(String, String, String), [usize; 4]>) -> Table {
    let rows = by_class
        .iter()
        .filter(|(_, n)| n[1] + n[2] + n[3] > 0)
        .map(|((imp, cat, class), n)| {
            vec![json!(imp), json!(cat), json!(class), json!(n[0]), json!(n[1]), json!(n[2]), json!(n[3])]
        })
        .collect();
    Table {
        id: "wrong-by-class".into(),
        title: "Wrong decisions by category and class".into(),
        columns: ["implementation", "category", "class", "cases", "false accepts", "false rejects", "errors"]
            .map(str::to_owned)
            .to_vec(),
        rows,
        note: Some("Only classes with a wrong decision are listed.".into()),
        csv: false,
    }
}

fn composition(cases: &[Case]) -> Table {
    let rows = PROTOCOLS
        .iter()
        .map(|p| {
            let mut row = vec![json!(p)];
            for cat in CATEGORIES {
                row.push(json!(cases.iter().filter(|c| c.protocol == *p && c.category == cat).count()));
            }
            row.push(json!(cases.iter().filter(|c| c.protocol == *p).count()));
            row
        })
        .collect();
    let mut columns = vec!["protocol".to_owned()];
    columns.extend(CATEGORIES.map(str::to_owned));
    columns.push("cases".into());
    Table {
        id: "suite".into(),
        title: "Cases run, by protocol and category".into(),
        columns,
        rows,
        note: None,
        csv: false,
    }
}

fn hints(report: &mut Report, suite: &Suite, ran: &Ran, tallies: &[Tally]) {
    let tones = [
        ("✓ accept", Tone::Good),
        ("✓ reject", Tone::Good),
        ("✗ false accept", Tone::Bad),
        ("✗ false reject", Tone::Bad),
        ("✗ error", Tone::Bad),
        ("✗ crash", Tone::Bad),
        ("✗ timeout", Tone::Bad),
        ("– not recorded", Tone::Neutral),
        ("– skipped", Tone::Unknown),
        ("– unsupported", Tone::Unknown),
    ];
    for (w, t) in tones {
        report.hints.tones.insert(w.to_owned(), t);
    }
    report.hints.first_views = vec!["scores".into(), "matrix".into()];
    let scores: Vec<String> =
        ran.columns.iter().zip(tallies).map(|((imp, _, _), t)| format!("{} {}", imp.name(), t.score())).collect();
    report.hints.headline = Some((
        "conformance".into(),
        format!("suite {} {} (sha256 {}): {}", suite.name, suite.version, suite.sha256, scores.join("; ")),
    ));
}

fn doc() -> CheckDoc {
    let what = "Whether an implementation decided a case of the conformance suite as the paper requires: \
                accepted what must be accepted, rejected what must be rejected, and decided at all (an error, a \
                crash or a timeout is not a decision).";
    let why = "A verifier that accepts a forged record is worse than none: readers trust its verdict. The \
               suite's cases carry the decision each paper requires, with its reason and section, so a score is \
               evidence a journal can cite.";
    CheckDoc {
        name: NAME.into(),
        level: Level::Error,
        family: "conformance".into(),
        group: None,
        summary: "the implementation decided the case as the paper requires".into(),
        what: what.into(),
        why: why.into(),
        page: format!(
            "# {CODE} {NAME}\n\n## What it checks\n\n{what}\n\n## Why it matters\n\n{why}\n\n## Spec\n\n`specs/conformance.md`\n"
        ),
        help_uri: format!("{}/blob/v{}/specs/conformance.md", env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_VERSION")),
    }
}

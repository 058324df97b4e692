//! CrossAudit: verify every receipt of a published ledger, replay what is deterministic and
//! report conformance to the paper's invariants I1–I8.
//!
//! Three format families exist (formats note §1): the v1 reference, the product's receipt
//! schema 2, and the deployed `CYCLE-NNNNNN` ledger. [`ledger`] crawls a whole ledger;
//! [`receipt()`] is the CI gate for one receipt. Both build the same [`crate::report::Report`].
//! Where a reference implementation accepts something the paper forbids, crossverify
//! implements the paper and reproduces the reference's decision as a named dialect in the
//! evidence (`specs/crossaudit.md`).

pub mod checks;
pub mod config;
pub mod constitution;
pub mod dcl;
pub mod demo;
pub mod deployed;
mod derive;
mod lifecycle;
mod load;
pub mod receipt;
mod replay;
pub mod report_md;
mod rounds;
pub mod scope;
pub mod substitute;
pub mod synthesis;
mod verify;
mod views;

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde_json::{Value, json};

pub use load::{DialectChoice, Error, Options};
pub use replay::{Admission, cycle_id_for};
pub use views::conformance;

use crate::checks::Check;
use crate::manifest::BlobHashes;
use crate::progress::Ctx;
use crate::report::{CheckResult, Outcome, Report, View};

/// Checks owned by this module.
pub static CHECKS: &[&Check] = checks::CHECKS;

/// The invariants, with the guarantee each makes (paper Table 2).
pub const INVARIANTS: [(&str, &str); 8] = [
    ("I1", "the auditor never judges its own model family's output"),
    ("I2", "supervision history replayable from the repositories"),
    ("I3", "a report citing no rules, or an unverifiable Constitution, never passes"),
    ("I4", "no model may waive a scripted hard failure"),
    ("I5", "generator–auditor oscillation terminates"),
    ("I6", "only BLOCKER findings gate; humans are interrupted only by escalation"),
    ("I7", "a verdict binds commit, manifest and versions, or it is not a receipt"),
    ("I8", "no audit, no admission"),
];

/// Everything one run established, before it becomes a report.
struct Run {
    ledger: load::Ledger,
    results: Vec<CheckResult>,
    facts: Vec<verify::CycleFacts>,
    groups: Vec<replay::GroupInfo>,
    hash_stats: crate::manifest::HashStats,
}

/// A pinned commit must be a full id: an abbreviation or a branch name would make the pin
/// mean whatever the repository says today.
fn full_commit_id(flag: &str, value: Option<&str>) -> Result<(), Error> {
    match value {
        Some(v) if !(matches!(v.len(), 40 | 64) && v.bytes().all(|b| b.is_ascii_hexdigit())) => Err(Error::Usage(
            format!("{flag} {v:?} is not a full commit id: give all 40 hex digits (e.g. from `git rev-parse`)"),
        )),
        _ => Ok(()),
    }
}

fn run(opts: &Options, ctx: Ctx<'_>) -> Result<Run, Error> {
    run_with(opts, ctx, None).map(|(r, _)| r)
}

/// The receipt file named on the command line.
struct Given {
    /// Its ledger-relative path, when it lies in (or is named relative to) the ledger repository.
    rel: Option<String>,
    /// The file on disk and its bytes; `None` names the committed copy.
    disk: Option<(std::path::PathBuf, Vec<u8>)>,
}

/// Where the given receipt sits in the run, and how it relates to the ledger's copy.
struct Placed {
    idx: usize,
    /// SHA-256 of the bytes given, when a file was given.
    given: Option<crate::manifest::Digest>,
    /// SHA-256 of the committed `receipt.json` of that cycle, when there is one.
    committed: Option<crate::manifest::Digest>,
}

fn run_with(opts: &Options, ctx: Ctx<'_>, given: Option<&Given>) -> Result<(Run, Option<Placed>), Error> {
    full_commit_id("--expect-audit-head", opts.expect_audit_head.as_deref())?;
    full_commit_id("--expect-sha", opts.expect_sha.as_deref())?;
    let mut ledger = load::load(opts)?;
    let placed = given.map(|g| place(&mut ledger, g, opts)).transpose()?;
    ctx.check()?;
    let hashes = BlobHashes::new();
    let science_shared = ledger.science.clone();
    let audit_shared = ledger.audit.clone();
    // One pass, in parallel: each worker parses a receipt, re-derives its science side
    // (hashing each distinct blob once across all workers) and drops the manifest.
    let last_change = crate::git::LastChangeMemo::default();
    let vctx = verify::Ctx {
        ledger: &ledger,
        hashes: &hashes,
        last_change: &last_change,
        expect_sha: opts.expect_sha.as_deref(),
        expect_repo: opts.expect_repo.as_deref(),
    };
    ctx.progress.start("verifying receipts", ledger.cycles.len() as u64);
    let per: Vec<Option<(Vec<CheckResult>, verify::CycleFacts)>> = ledger
        .cycles
        .par_iter()
        .map_init(
            || (audit_shared.local(), science_shared.as_ref().map(crate::git::SharedRepo::local), Vec::new()),
            |(audit, science, buf), c| {
                if ctx.check().is_err() {
                    return None;
                }
                let r = verify::check_cycle(&vctx, audit, science.as_ref(), c, buf);
                ctx.progress.advance(1);
                Some(r)
            },
        )
        .collect();
    ctx.progress.finish();
    let per: Vec<(Vec<CheckResult>, verify::CycleFacts)> =
        per.into_iter().collect::<Option<_>>().ok_or(crate::progress::Interrupted)?;
    let mut results = Vec::new();
    let mut facts = Vec::new();
    for (r, f) in per {
        results.extend(r);
        facts.push(f);
    }
    let (replayed, groups) = replay::controller(&ledger, &mut facts);
    results.extend(replayed);
    rounds::checks(&ledger, &mut facts, &mut results);
    replay::ledger_checks(&ledger, &facts, opts.expect_audit_head.as_deref(), &mut results);
    locate(&ledger, &mut results);
    Ok((Run { hash_stats: hashes.stats(), ledger, results, facts, groups }, placed))
}

/// Finds the cycle the given receipt belongs to and makes its bytes the ones verified; a
/// receipt the ledger does not hold becomes a cycle read from the directory beside it.
fn place(ledger: &mut load::Ledger, g: &Given, opts: &Options) -> Result<Placed, Error> {
    let parsed = g.disk.as_ref().and_then(|(_, b)| receipt::Receipt::parse(b).ok());
    let declared = parsed.as_ref().and_then(|r| match r.family {
        receipt::Family::Schema2 => r.cycle_path.clone(),
        receipt::Family::V1 => r.sha.as_ref().map(|sha| {
            let base = format!("{}/{sha}", ledger.ledger_dir);
            let rounds = format!("{base}-r{}", r.round.unwrap_or(1));
            if ledger.cycles.iter().any(|c| c.path == rounds) { rounds } else { base }
        }),
    });
    let dir_path = g.rel.as_ref().map(|r| r.trim_end_matches("/receipt.json").to_owned()).or(declared);
    let head = verify::short(&ledger.audit_head.to_string());
    let not_receipt = |what: &str| {
        Error::Usage(format!(
            "{what} is not a receipt of the ledger at {} (expected <ledger dir>/<cycle>/receipt.json committed at {head}, or a receipt file on disk)",
            opts.audit.display()
        ))
    };
    let shown = g.rel.clone().or_else(|| g.disk.as_ref().map(|(p, _)| p.display().to_string())).unwrap_or_default();
    let Some(dir_path) =
        dir_path.filter(|d| g.rel.as_ref().is_none_or(|r| r.ends_with("/receipt.json")) && !d.is_empty())
    else {
        return Err(not_receipt(&shown));
    };
    let given = g.disk.as_ref().map(|(_, b)| crate::manifest::Digest::of(b));
    if let Some(idx) = ledger.cycles.iter().position(|c| c.path == dir_path) {
        let audit = ledger.audit.local();
        let cycle = &mut ledger.cycles[idx];
        let committed = match cycle.receipt_blob {
            Some(id) => Some(audit.record(id, &cycle.file("receipt.json")).map_err(|e| Error::Usage(e.to_string()))?),
            None => None,
        };
        let committed_digest = committed.as_deref().map(crate::manifest::Digest::of);
        match (&g.disk, committed) {
            (Some((_, b)), Some(c)) if *b != c => cycle.receipt_given = Some(b.clone()),
            (Some((_, b)), None) => {
                cycle.receipt_given = Some(b.clone());
                cycle.unrecorded = true;
            }
            (None, None) => return Err(not_receipt(&shown)),
            _ => {}
        }
        return Ok(Placed { idx, given, committed: committed_digest });
    }
    let Some((file, bytes)) = &g.disk else { return Err(not_receipt(&shown)) };
    let dir = file.parent().unwrap_or(std::path::Path::new("."));
    ledger.cycles.push(load::disk_cycle(dir, dir_path, bytes.clone()));
    Ok(Placed { idx: ledger.cycles.len() - 1, given, committed: None })
}

/// The named receipt: its bytes on disk when the file exists there (as given, or relative to
/// the ledger repository's working tree), and its ledger-relative path when it has one.
fn given(repo: &Path, p: &Path) -> Result<Given, Error> {
    let on_disk = if p.is_file() {
        Some(p.to_owned())
    } else if p.is_relative() && repo.join(p).is_file() {
        Some(repo.join(p))
    } else {
        None
    };
    let disk = on_disk
        .map(|f| std::fs::read(&f).map(|b| (f.clone(), b)).map_err(|e| Error::Usage(format!("{}: {e}", f.display()))))
        .transpose()?;
    let rel = match &disk {
        Some((f, _)) => ledger_relative(repo, f)?,
        None => ledger_relative(repo, p)?,
    };
    Ok(Given { rel, disk })
}

/// Gives every result about a cycle that names no file the ledger file it judged, read at the
/// audit head, so SARIF viewers and code scanning can point at it.
fn locate(ledger: &load::Ledger, results: &mut [CheckResult]) {
    let cycles: std::collections::HashMap<&str, &load::Cycle> =
        ledger.cycles.iter().map(|c| (c.path.as_str(), c)).collect();
    let head = ledger.audit_head.to_string();
    for r in results.iter_mut().filter(|r| r.location.is_none()) {
        let mut words = r.subject.split(' ');
        let Some(cycle) = words.next().and_then(|p| cycles.get(p)) else { continue };
        let named = words.next().filter(|f| cycle.files.contains_key(*f));
        let by_code = match r.code.as_str() {
            c if c == checks::REPORT_BINDING.code
                || c == checks::REPORT_AGREES.code
                || c == checks::CONSTITUTION_CITED.code
                || c == checks::REPORT_COMMIT_BINDING.code =>
            {
                "report.md"
            }
            c if c == checks::DCL_DOMINATES.code || c == checks::DCL_CONSISTENT.code => "checks.json",
            _ => "receipt.json",
        };
        let file = named.or(Some(by_code).filter(|f| cycle.files.contains_key(*f)));
        if let Some(file) = file {
            r.location = Some(crate::report::Location {
                repository: Some("audit".into()),
                path: Some(format!("{}/{file}", cycle.path)),
                commit: Some(head.clone()),
            });
        }
    }
}

fn inputs(report: &mut Report, opts: &Options, ledger: &load::Ledger) {
    report.input("audit", opts.audit.display().to_string());
    report.input("auditHead", ledger.audit_head.to_string());
    if let Some(r) = &opts.audit_rev {
        report.input("auditRev", r.clone());
    }
    report.input(
        "science",
        opts.science.as_ref().map_or(
            if ledger.local { "(the ledger repository: product local mode)".to_owned() } else { "(none)".to_owned() },
            |p| p.display().to_string(),
        ),
    );
    report.input(
        "dialect",
        format!("{}{}", ledger.family.as_str(), if opts.dialect == DialectChoice::Auto { " (detected)" } else { "" }),
    );
    report.input("ledgerDir", ledger.ledger_dir.clone());
    if let Some(h) = &opts.expect_audit_head {
        report.input("expectAuditHead", h.clone());
    }
    if let Some(s) = &opts.expect_sha {
        report.input("expectSha", s.clone());
    }
    if let Some(s) = &opts.expect_repo {
        report.input("expectRepo", s.clone());
    }
}

fn stats(report: &mut Report, run: &Run) {
    let mut verdicts: BTreeMap<String, u64> = BTreeMap::new();
    for f in &run.facts {
        if let Some(v) = &f.verdict {
            *verdicts.entry(v.clone()).or_default() += 1;
        }
    }
    let receipts = run.facts.iter().filter(|f| f.receipt.is_some()).count();
    report.stats.insert("cycles".into(), json!(run.ledger.cycles.len()));
    report.stats.insert("receipts".into(), json!(receipts));
    report.stats.insert("verdicts".into(), json!(verdicts));
    report.stats.insert("blobsHashed".into(), json!(run.hash_stats.blobs_hashed));
    report.stats.insert("bytesHashed".into(), json!(run.hash_stats.bytes_hashed));
}

/// `crossverify ledger`: verifies the whole published ledger.
///
/// # Errors
/// When the repositories cannot be opened or the revision does not resolve (exit 2).
pub fn ledger(opts: &Options, ctx: Ctx<'_>) -> Result<Report, Error> {
    if opts.dialect == DialectChoice::Deployed || opts.dialect == DialectChoice::Auto {
        match deployed::load(&opts.audit, opts.audit_rev.as_deref(), ctx) {
            Ok(l) => {
                if opts.dialect == DialectChoice::Auto && deployed::is_repository(&opts.audit).unwrap_or(false) {
                    let mut layouts = load::receipt_layouts(opts)?;
                    if !layouts.is_empty() {
                        layouts.push(format!("deployed CYCLE-NNNNNN directories ({})", l.cycles.len()));
                        return Err(Error::Usage(load::ambiguous(&layouts)));
                    }
                }
                return Ok(deployed_ledger(opts, &l));
            }
            Err(deployed::LoadError::NoCycles(_)) if opts.dialect == DialectChoice::Auto => {}
            Err(e) => return Err(Error::Usage(e.to_string())),
        }
    }
    let run = run(opts, ctx)?;
    let admissions: Vec<Admission> = run
        .facts
        .iter()
        .zip(&run.groups)
        .map(|(f, g)| replay::admission(&run.ledger, f, g, opts.consumed.as_ref()))
        .collect();
    let mut report = Report::new("ledger");
    inputs(&mut report, opts, &run.ledger);
    report.results = run.results.clone();
    report.finish();
    let records = lifecycle::records(&run.ledger, &run.facts);
    let (figures, lifecycle_views) = crate::stats::lifecycle(&records);
    report.stats = figures;
    stats(&mut report, &run);
    let adm: serde_json::Map<String, Value> = run
        .ledger
        .cycles
        .iter()
        .zip(admissions.iter().zip(&run.facts))
        .filter(|(_, (_, f))| f.receipt.is_some())
        .map(|(c, (a, _))| (c.path.clone(), serde_json::to_value(a).expect("admission serialises")))
        .collect();
    report.section("admissions", Value::Object(adm));
    views::cycles(&mut report, &run, &admissions);
    report.views.extend(lifecycle_views);
    Ok(report)
}

/// The statistics records of a v1 or schema-2 ledger (`crossverify stats` on such a ledger):
/// the ledger is crawled and verified as by [`ledger`], then converted (`lifecycle.rs` states
/// the two readings the conversion makes).
///
/// # Errors
/// As [`ledger`].
pub fn lifecycle_records(opts: &Options, ctx: Ctx<'_>) -> Result<crate::stats::model::Records, Error> {
    let run = run(opts, ctx)?;
    Ok(lifecycle::records(&run.ledger, &run.facts))
}

/// `crossverify ledger` on a deployed `CYCLE-NNNNNN` ledger: the format's own consistency
/// checks, what the protocol's invariants can and cannot show there, and its lifecycle figures.
fn deployed_ledger(opts: &Options, l: &deployed::DeployedLedger) -> Report {
    use crate::report::Outcome as O;
    let mut report = Report::new("ledger");
    report.input("audit", opts.audit.display().to_string());
    report.input("dialect", if opts.dialect == DialectChoice::Auto { "deployed (detected)" } else { "deployed" });
    if let Some(c) = l.origin.commit() {
        report.input("auditHead", c);
    }
    let mut results = deployed::verify(l);
    // What the invariants can show in this format.
    for c in l.counted() {
        let Some(r) = c.result.ok() else { continue };
        let subject = c.path.as_str();
        let odd: std::collections::BTreeSet<&str> = r
            .findings
            .iter()
            .filter_map(|f| f.severity.as_deref())
            .filter(|s| *s != "BLOCKER" && *s != "ADVISORY")
            .collect();
        results.push(if odd.is_empty() {
            CheckResult::new(&checks::SEVERITY_LEVELS, O::Passed, subject, "findings use BLOCKER and ADVISORY only")
        } else {
            CheckResult::new(&checks::SEVERITY_LEVELS, O::Failed, subject, format!("severities outside the protocol's two levels: {} (the deployment's four-level ladder, a named divergence)", odd.into_iter().collect::<Vec<_>>().join(", ")))
        });
        let deterministic: Vec<&str> = r
            .findings
            .iter()
            .filter(|f| f.typed_line("source:").is_some_and(|s| s.trim() == "DETERMINISTIC") && f.is_blocking())
            .map(|f| f.finding_id.as_str())
            .collect();
        results.push(if !deterministic.is_empty() && r.decision != "BLOCK" {
            CheckResult::new(
                &checks::DCL_DOMINATES,
                O::Failed,
                subject,
                format!("decision {} over deterministic blocking finding(s) {}", r.decision, deterministic.join(", ")),
            )
        } else if deterministic.is_empty() {
            CheckResult::new(&checks::DCL_DOMINATES, O::Passed, subject, "no deterministic blocking finding to outrank")
        } else {
            CheckResult::new(
                &checks::DCL_DOMINATES,
                O::Passed,
                subject,
                format!(
                    "deterministic blocking finding(s) {} are not outranked (decision BLOCK)",
                    deterministic.join(", ")
                ),
            )
        });
    }
    let why = [
        (
            &checks::VENDOR_HETEROGENEITY,
            "the deployment's configuration is not published: vendors cannot be compared (the paper states a Claude-based generator and an OpenAI-lineage auditor)",
        ),
        (
            &checks::CITATIONS_VALID,
            "the rulebook the findings cite (R-…, Gate n) is not published: citations cannot be checked",
        ),
        (
            &checks::ROUND_BOUND,
            "the deployed records carry no round or controller state: the revision bound cannot be replayed",
        ),
        (
            &checks::SUBJECT_BINDING,
            "the deployed format has no receipts: nothing binds a decision to the audited commit's files",
        ),
    ];
    for (c, w) in why {
        results.push(CheckResult::new(c, O::CantTell, "ledger", w));
    }
    results.push(CheckResult::new(
        &checks::ADMISSION_UNOBSERVABLE,
        O::CantTell,
        "ledger",
        "the deployment's controller state lives outside both repositories: admission cannot be observed",
    ));
    if let deployed::Origin::Git { repo, commit } = &l.origin {
        match crate::git::Repo::open(repo)
            .map_err(|e| e.to_string())
            .and_then(|r| load::history(&r, *commit, "projects"))
        {
            Ok(h) if h.violations.is_empty() => results.push(CheckResult::new(
                &checks::LEDGER_APPEND_ONLY,
                O::Passed,
                "ledger",
                format!("{} ledger file(s), each added once and never changed", h.added.len()),
            )),
            Ok(h) => {
                for (path, first, then, what) in &h.violations {
                    results.push(CheckResult::new(
                        &checks::LEDGER_APPEND_ONLY,
                        O::Failed,
                        path,
                        format!(
                            "added in {}, {what} in {}",
                            verify::short(&first.to_string()),
                            verify::short(&then.to_string())
                        ),
                    ));
                }
            }
            Err(e) => results.push(CheckResult::new(
                &checks::LEDGER_APPEND_ONLY,
                O::CantTell,
                "ledger",
                format!("the audit history cannot be walked: {e}"),
            )),
        }
    } else {
        results.push(CheckResult::new(
            &checks::LEDGER_APPEND_ONLY,
            O::CantTell,
            "ledger",
            "a plain directory has no history: append-only cannot be checked (give the audit repository)",
        ));
    }
    report.results = results;
    report.finish();
    let kind = if l.origin.commit().is_some() {
        crate::stats::model::InputKind::DeployedGit
    } else {
        crate::stats::model::InputKind::DeployedDirectory
    };
    let input = crate::stats::input::from_deployed(l.clone(), kind, l.origin.commit());
    let (figures, lifecycle_views) = crate::stats::lifecycle(&input.records);
    report.stats = figures;
    report.views.push(View::Table(views::conformance(&report.results)));
    report.views.extend(lifecycle_views);
    report
}

/// `crossverify receipt`: verifies one receipt in the context of its ledger and reports its
/// admission; with `admit`, admission is an error-level check (exit 0 only when admissible).
/// Without a path, the latest receipt binding `opts.expect_sha` is verified.
///
/// # Errors
/// When the repositories cannot be opened, or the receipt is not a cycle directory's
/// `receipt.json` in the ledger repository (exit 2).
pub fn receipt(opts: &Options, receipt_path: Option<&Path>, admit: bool, ctx: Ctx<'_>) -> Result<Report, Error> {
    let given = receipt_path.map(|p| given(&opts.audit, p)).transpose()?;
    if given.is_none() && opts.expect_sha.is_none() {
        return Err(Error::Usage(
            "name the receipt, or give --expect-sha to verify the latest receipt of that commit".into(),
        ));
    }
    let (run, placed) = run_with(opts, ctx, given.as_ref())?;
    let head = verify::short(&run.ledger.audit_head.to_string());
    let idx = match &placed {
        Some(p) => p.idx,
        // The latest receipt in ledger order that binds the expected commit.
        None => {
            let sha = opts.expect_sha.as_deref().unwrap_or_default();
            match run.facts.iter().rposition(|f| f.receipt.as_ref().and_then(|r| r.sha.as_deref()) == Some(sha)) {
                Some(i) => i,
                None => {
                    let why = format!(
                        "absent: no receipt in the ledger at {} (audit commit {head}) binds commit {sha}",
                        opts.audit.display()
                    );
                    // The gate's commonest denial (the audit has not run yet) is a verdict, with
                    // every requested report written; without --admit there is nothing to verify.
                    if !admit {
                        return Err(Error::Usage(why));
                    }
                    return Ok(absent_receipt(opts, &run.ledger, sha, why));
                }
            }
        }
    };
    let rel = run.ledger.cycles[idx].file("receipt.json");
    let cycle = &run.ledger.cycles[idx];
    let mut a = replay::admission(&run.ledger, &run.facts[idx], &run.groups[idx], opts.consumed.as_ref());
    let given_results = placed.as_ref().map(|p| given_checks(cycle, p, &head, &mut a)).unwrap_or_default();
    let mut report = Report::new("receipt");
    inputs(&mut report, opts, &run.ledger);
    report.input("receipt", rel.clone());
    report.input("admit", admit);
    let mine = |r: &CheckResult| r.subject == cycle.path || r.subject.starts_with(&format!("{} ", cycle.path));
    report.results = run.results.iter().filter(|r| mine(r)).cloned().collect();
    // Ledger-wide facts that bear on this receipt.
    report.results.extend(
        run.results
            .iter()
            .filter(|r| {
                (r.code == checks::LEDGER_APPEND_ONLY.code
                    && (r.subject == "ledger" || r.subject.starts_with(&format!("{}/", cycle.path))))
                    || r.code == checks::AUDIT_HEAD_PINNED.code
                    || (r.code == checks::ADMISSION_RECORDS.code)
            })
            .cloned(),
    );
    report.results.extend(given_results);
    if let Some(r) = &run.facts[idx].receipt {
        report.input("receiptFileSha256", r.file_sha256.hex());
        report.input("receiptCanonicalSha256", r.canonical_sha256.hex());
        report.input("receiptIdentity", r.identity().hex());
    }
    if let Some((c, _)) = cycle.added_in {
        report.input("verifiedAgainstAuditCommit", c.to_string());
    }
    if admit {
        let outcome = if a.ready {
            Outcome::Passed
        } else if a.shortfalls.is_empty() {
            Outcome::CantTell
        } else {
            Outcome::Failed
        };
        report.results.push(
            CheckResult::new(&checks::ADMISSION, outcome, &cycle.path, a.reason.clone())
                .with("shortfalls", a.shortfalls.clone())
                .with("unobservable", a.unobservable.clone()),
        );
    }
    report.finish();
    report.section("admission", serde_json::to_value(&a).expect("admission serialises"));
    views::headline(&mut report, &a);
    report.views.push(View::Table(views::conformance(&report.results)));
    report.views.push(views::admission(&a));
    Ok(report)
}

/// CV-A714 and CV-A715 for the receipt the caller named; a receipt that is not the ledger's
/// committed copy, or not in the ledger at all, is not admissible.
fn given_checks(cycle: &load::Cycle, p: &Placed, head: &str, a: &mut Admission) -> Vec<CheckResult> {
    let subject = cycle.path.as_str();
    let hex = |d: &crate::manifest::Digest| d.hex();
    let mut out = Vec::new();
    let mut deny = Vec::new();
    out.push(match (&p.given, &p.committed) {
        (Some(g), Some(c)) if g != c => {
            let msg = format!(
                "the receipt given (sha256 {}) is not the ledger's committed {} (sha256 {}): the bytes given are the ones verified",
                hex(g),
                cycle.file("receipt.json"),
                hex(c)
            );
            deny.push(format!("the receipt given differs from the ledger's committed copy (sha256 {} ≠ {})", verify::short(&hex(g)), verify::short(&hex(c))));
            CheckResult::new(&checks::RECEIPT_GIVEN_IS_COMMITTED, Outcome::Failed, subject, msg)
                .with("givenSha256", hex(g))
                .with("committedSha256", hex(c))
        }
        (Some(g), Some(_)) => CheckResult::new(
            &checks::RECEIPT_GIVEN_IS_COMMITTED,
            Outcome::Passed,
            subject,
            format!("the receipt given is byte for byte the ledger's committed copy (sha256 {})", verify::short(&hex(g))),
        ),
        (None, Some(c)) => CheckResult::new(
            &checks::RECEIPT_GIVEN_IS_COMMITTED,
            Outcome::Passed,
            subject,
            format!("no file on disk: the committed copy (sha256 {}) is the receipt named", verify::short(&hex(c))),
        ),
        (_, None) => CheckResult::new(
            &checks::RECEIPT_GIVEN_IS_COMMITTED,
            Outcome::Inapplicable,
            subject,
            "the ledger holds no committed copy of this receipt (CV-A715)",
        ),
    });
    out.push(if cycle.unrecorded {
        deny.push("receipt is not recorded in the ledger".to_owned());
        CheckResult::new(
            &checks::RECEIPT_RECORDED,
            Outcome::Failed,
            subject,
            format!("the receipt is not recorded in the ledger at {head} (uncommitted): verified for its bindings, not admissible"),
        )
    } else {
        CheckResult::new(&checks::RECEIPT_RECORDED, Outcome::Passed, subject, format!("recorded in the ledger at {head}"))
    });
    if !deny.is_empty() {
        a.shortfalls.splice(0..0, deny);
        a.ready = false;
        a.reason = format!("not admissible: {}", a.shortfalls[0]);
    }
    out
}

/// The `receipt --admit` report when no receipt binds the expected commit (I8 deny class
/// "absent").
fn absent_receipt(opts: &Options, ledger: &load::Ledger, sha: &str, why: String) -> Report {
    let a = Admission {
        ready: false,
        reason: format!("not admissible: {why}"),
        shortfalls: vec![why.clone()],
        ..Admission::default()
    };
    let mut report = Report::new("receipt");
    inputs(&mut report, opts, ledger);
    report.input("admit", true);
    report.results.push(CheckResult::new(&checks::ADMISSION, Outcome::Failed, sha, why).with("expectSha", sha));
    report.finish();
    report.section("admission", serde_json::to_value(&a).expect("admission serialises"));
    views::headline(&mut report, &a);
    report.views.push(View::Table(views::conformance(&report.results)));
    report
}

/// The receipt's path relative to the ledger repository's root; `None` for a file outside it
/// (located by the cycle path it declares).
fn ledger_relative(repo: &Path, receipt: &Path) -> Result<Option<String>, Error> {
    let to_str = |p: &Path| {
        p.to_str()
            .map(|s| s.replace('\\', "/"))
            .ok_or_else(|| Error::Usage(format!("{}: path is not UTF-8", p.display())))
    };
    if receipt.is_relative() && !receipt.exists() {
        return to_str(receipt).map(Some);
    }
    let abs = std::fs::canonicalize(receipt).map_err(|e| Error::Usage(format!("{}: {e}", receipt.display())))?;
    let root = std::fs::canonicalize(repo).map_err(|e| Error::Usage(format!("{}: {e}", repo.display())))?;
    abs.strip_prefix(&root).ok().map(to_str).transpose()
}

/// `crossverify demo`: writes the built-in demo ledger ([`mod@demo`], minted from
/// `ledger-fixtures/demo.toml`; with gix, no git CLI, no network) to a temporary directory and
/// verifies it like `crossverify ledger`.
///
/// # Errors
/// When the temporary directory cannot be written (exit 2).
pub fn demo(ctx: Ctx<'_>) -> Result<Report, Error> {
    let dir = tempfile::Builder::new()
        .prefix("crossverify-demo-")
        .tempdir()
        .map_err(|e| Error::Usage(format!("creating a temporary directory for the demo ledger: {e}")))?;
    demo::unpack(dir.path()).map_err(Error::Usage)?;
    let mut opts = Options::new(&dir.path().join("audit"));
    opts.science = Some(dir.path().join("science"));
    let mut report = ledger(&opts, ctx)?;
    report.command = "demo".into();
    // The ledger lives in a temporary directory; name it by what it is so output is stable.
    report.input("audit", "<built-in demo>/audit");
    report.input("science", "<built-in demo>/science");
    report.input("scenario", "ledger-fixtures/demo.toml");
    Ok(report)
}

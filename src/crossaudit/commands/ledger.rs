//! The CrossAudit commands: `ledger`, `receipt` and `demo`. Each runs a crawl and assembles its
//! report from the crawl's results and views.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::views::{self, conformance};
use crate::crossaudit::checks;
use crate::crossaudit::crawl::run::{Placed, Run, given, run, run_with, wrong_science};
use crate::crossaudit::deployed;
use crate::crossaudit::invariants::deployed::invariants;
use crate::crossaudit::invariants::i8_admission::{self as replay, Admission};
use crate::crossaudit::load::{self, DialectChoice, Error, Options};
use crate::crossaudit::model;
use crate::progress::Ctx;
use crate::report::{CheckResult, Outcome, Report, View};

/// `crossverify ledger`: verifies the whole published ledger.
///
/// # Errors
/// When the repositories cannot be opened or the revision does not resolve (exit 2).
pub fn ledger(opts: &Options, ctx: Ctx<'_>) -> Result<Report, Error> {
    let opts = &normalised(opts);
    if opts.dialect == DialectChoice::Deployed || opts.dialect == DialectChoice::Auto {
        match deployed::load(&opts.audit, opts.audit_rev.as_deref(), ctx) {
            Ok(l) => {
                if opts.dialect == DialectChoice::Auto && deployed::is_repository(&opts.audit).unwrap_or(false) {
                    let mut layouts = load::receipt_layouts(opts)?;
                    if !layouts.is_empty() {
                        layouts.push(format!("deployed CYCLE-NNNNNN directories ({})", l.cycles.len()));
                        return Ok(mixed_layouts("ledger", opts, &layouts));
                    }
                }
                let (signed, signatures) = crate::crossaudit::invariants::signed::deployed(opts, l.origin.commit())?;
                let mut report = deployed_ledger(opts, &l, signed);
                report.views.extend(signatures);
                return Ok(report);
            }
            Err(deployed::LoadError::NoCycles(_)) if opts.dialect == DialectChoice::Auto => {}
            Err(e @ deployed::LoadError::NoCycles(_)) => {
                return Err(Error::Usage(format!(
                    "--dialect deployed does not match: {e}; drop --dialect to detect the layout"
                )));
            }
            Err(e) => return Err(Error::Usage(e.to_string())),
        }
    }
    let anchor = opts.sigstore.load().map_err(Error::Usage)?;
    let mut run = match run(opts, ctx) {
        Err(Error::MixedLayouts(layouts)) => return Ok(mixed_layouts("ledger", opts, &layouts)),
        r => r?,
    };
    wrong_science(opts, &run)?;
    let admissions: Vec<Admission> = run
        .facts
        .iter()
        .zip(&run.groups)
        .map(|(f, g)| replay::admission(&run.ledger, f, g, opts.consumed.as_ref()))
        .collect();
    let mut report = Report::new("ledger");
    inputs(&mut report, opts, &run.ledger);
    identities(&mut report, opts, &run.ledger);
    report.results = std::mem::take(&mut run.results);
    report.results.extend(crate::crossaudit::invariants::sigstore::results(
        &run.ledger,
        run.ledger.cycles.iter(),
        &anchor,
    ));
    report.finish();
    let records = crate::crossaudit::stats::receipts::records(&run.ledger, &run.facts);
    let (figures, lifecycle_views) = crate::stats::lifecycle(&records, opts.science.as_deref());
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
    report.views.extend(run.signatures.take());
    Ok(report)
}

/// The report on a ledger whose commits hold records of several layouts: one failed check
/// (CV-A005) naming them and the command that verifies each. Verifying only one, or none and
/// exiting 2, would let files copied beside a failing ledger weaken its verdict.
fn mixed_layouts(command: &str, opts: &Options, layouts: &[String]) -> Report {
    let mut report = Report::new(command);
    report.input("audit", opts.audit.display().to_string());
    if let Some(r) = &opts.audit_rev {
        report.input("auditRev", r.clone());
    }
    report.input("dialect", "(several layouts)".to_owned());
    let science = opts.science.as_ref().map(|p| format!(" --science {}", p.display())).unwrap_or_default();
    let commands: Vec<String> = ["v1", "schema2", "deployed"]
        .iter()
        .filter(|d| layouts.iter().any(|l| l.starts_with(**d)))
        .map(|d| format!("crossverify ledger --audit {}{science} --dialect {d}", opts.audit.display()))
        .collect();
    report.results.push(CheckResult::new(
        &checks::LEDGER_LAYOUTS_MIXED,
        Outcome::Failed,
        "ledger",
        format!(
            "the ledger holds {}: auto-detection verifies no one layout of a ledger that holds several; \
             each layout is verified by naming it: {}",
            layouts.join(" and "),
            commands.join("; ")
        ),
    ));
    report.finish();
    report
}

/// `crossverify ledger` on a deployed `CYCLE-NNNNNN` ledger: the format's own consistency
/// checks, what the protocol's invariants can and cannot show there, and its lifecycle figures.
fn deployed_ledger(opts: &Options, l: &deployed::DeployedLedger, signed: Vec<CheckResult>) -> Report {
    let mut report = Report::new("ledger");
    report.input("audit", opts.audit.display().to_string());
    report.input("dialect", if opts.dialect == DialectChoice::Auto { "deployed (detected)" } else { "deployed" });
    if let Some(c) = l.origin.commit() {
        report.input("auditHead", c);
    }
    report.identify("audit", &opts.audit, l.origin.commit().as_deref());
    let mut results = deployed::verify(l);
    results.extend(invariants(l));
    results.extend(signed);
    report.results = results;
    report.finish();
    let kind = if l.origin.commit().is_some() {
        crate::crossaudit::stats::kind::DEPLOYED_GIT
    } else {
        crate::crossaudit::stats::kind::DEPLOYED_DIRECTORY
    };
    let records = crate::crossaudit::stats::input::records(l, kind);
    let (figures, lifecycle_views) = crate::stats::lifecycle(&records, opts.science.as_deref());
    report.stats = figures;
    report.views.push(View::Table(conformance(&report.results)));
    report.views.extend(lifecycle_views);
    report.audit_outcome = Some(crate::crossaudit::commands::views::deployed_outcome(l));
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
    let opts = &normalised(opts);
    let given = receipt_path.map(|p| given(&opts.audit, p)).transpose()?;
    if given.is_none() && opts.expect_sha.is_none() {
        return Err(Error::Usage(
            "name the receipt, or give --expect-sha to verify the latest receipt of that commit".into(),
        ));
    }
    let anchor = opts.sigstore.load().map_err(Error::Usage)?;
    let (run, placed) = match run_with(opts, ctx, given.as_ref()) {
        Err(Error::MixedLayouts(layouts)) => return Ok(mixed_layouts("receipt", opts, &layouts)),
        r => r?,
    };
    wrong_science(opts, &run)?;
    let head = model::short(&run.ledger.audit_head.to_string());
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
                    // every requested report written, with or without --admit: one behaviour a
                    // CI job can rely on (docs/guide.md, "the gate's behaviour").
                    return Ok(absent_receipt(opts, &run.ledger, sha, why, admit));
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
    identities(&mut report, opts, &run.ledger);
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
                    || crate::anchors::commits::CHECKS.iter().any(|c| c.code == r.code)
            })
            .cloned(),
    );
    report.results.extend(given_results);
    report.results.extend(crate::crossaudit::invariants::sigstore::results(
        &run.ledger,
        std::iter::once(cycle),
        &anchor,
    ));
    if let Some(r) = &run.facts[idx].receipt {
        // The crawl hashed a schema-2 receipt's canonical form only. The file's digest is of
        // the bytes it parsed: the file given (hashed when it was placed), else the committed
        // blob, read again when the receipt was found by --expect-sha.
        let file = match (r.file_sha256, placed.as_ref().and_then(|p| p.given.or(p.committed)), cycle.receipt_blob) {
            (Some(d), _, _) | (None, Some(d), _) => Some(d),
            (None, None, Some(id)) => Some(crate::manifest::Digest::of(&run.ledger.audit.local().record(id, &rel)?)),
            (None, None, None) => None,
        };
        if let Some(file) = file {
            report.input("receiptFileSha256", file.hex());
        }
        report.input("receiptCanonicalSha256", r.canonical_sha256.hex());
        if let Some(identity) = r.identity() {
            report.input("receiptIdentity", identity.hex());
        }
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
    views::headline(&mut report, &a, checks::ADMISSION.code);
    report.views.push(View::Table(conformance(&report.results)));
    report.views.push(views::admission(&a));
    report.views.extend(run.signatures.clone());
    Ok(report)
}

/// The resolved identities of the repositories a run read (`inputs.identities`): an archived
/// report names the canonical paths and the commits, not only what was typed.
fn identities(report: &mut Report, opts: &Options, ledger: &load::Ledger) {
    report.identify("audit", &opts.audit, Some(&ledger.audit_head.to_string()));
    if let (Some(path), Some(repo), false) = (&opts.science, &ledger.science, ledger.local) {
        let head = repo.local().resolve("HEAD").ok().map(|h| h.to_string());
        report.identify("science", path, head.as_deref());
    }
}

/// The options with commit ids in git's lower-case spelling: a SHA pasted in upper case names
/// the same commit, and a gate must not deny it because of how it was typed.
fn normalised(opts: &Options) -> Options {
    let mut o = opts.clone();
    for id in [&mut o.expect_sha, &mut o.expect_audit_head].into_iter().flatten() {
        id.make_ascii_lowercase();
    }
    o
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
            deny.push(format!("the receipt given differs from the ledger's committed copy (sha256 {} ≠ {})", model::short(&hex(g)), model::short(&hex(c))));
            CheckResult::new(&checks::RECEIPT_GIVEN_IS_COMMITTED, Outcome::Failed, subject, msg)
                .with("givenSha256", hex(g))
                .with("committedSha256", hex(c))
        }
        (Some(g), Some(_)) => CheckResult::new(
            &checks::RECEIPT_GIVEN_IS_COMMITTED,
            Outcome::Passed,
            subject,
            format!("the receipt given is byte for byte the ledger's committed copy (sha256 {})", model::short(&hex(g))),
        ),
        (None, Some(c)) => CheckResult::new(
            &checks::RECEIPT_GIVEN_IS_COMMITTED,
            Outcome::Passed,
            subject,
            format!("no file on disk: the committed copy (sha256 {}) is the receipt named", model::short(&hex(c))),
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
        a.reason = replay::denial(&a.shortfalls);
    }
    out
}

/// The `receipt --admit` report when no receipt binds the expected commit (I8 deny class
/// "absent").
fn absent_receipt(opts: &Options, ledger: &load::Ledger, sha: &str, why: String, admit: bool) -> Report {
    let a = Admission {
        ready: false,
        reason: replay::denial(std::slice::from_ref(&why)),
        shortfalls: vec![why.clone()],
        tier: replay::NO_TIER.into(),
        ..Admission::default()
    };
    let mut report = Report::new("receipt");
    inputs(&mut report, opts, ledger);
    identities(&mut report, opts, ledger);
    report.input("admit", admit);
    report.results.push(CheckResult::new(&checks::ADMISSION, Outcome::Failed, sha, why).with("expectSha", sha));
    report.finish();
    report.section("admission", serde_json::to_value(&a).expect("admission serialises"));
    views::headline(&mut report, &a, checks::ADMISSION.code);
    report.views.push(View::Table(conformance(&report.results)));
    report
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
    if let Some(p) = &opts.allowed_signers {
        report.input("allowedSigners", p.display().to_string());
    }
    // Recorded so that `merge` re-runs the Sigstore checks with them (`shard::merge`).
    if let Some(p) = &opts.sigstore.trusted_root {
        report.input("trustedRoot", p.display().to_string());
    }
    if let Some(s) = &opts.sigstore.identity {
        report.input("certificateIdentity", s.clone());
    }
    if let Some(s) = &opts.sigstore.issuer {
        report.input("certificateOidcIssuer", s.clone());
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
    // How many blobs this run hashed depends on what a cache already held: work, not a figure
    // of the ledger.
    // Digests answered by the persistent cache were not hashed by this run.
    let h = &run.hash_stats;
    report.work.insert("blobsHashed".into(), h.blobs_hashed - h.from_persistent);
    report.work.insert("bytesHashed".into(), h.bytes_hashed - h.bytes_from_persistent);
    report.work.insert("digestsFromCache".into(), h.from_persistent);
}

/// `crossverify demo`: writes the built-in demo ledger ([`mod@crate::crossaudit::demo`], minted from
/// `ledger-fixtures/demo-signed.toml`; with gix, no git CLI, no network) to a temporary directory and
/// verifies it like `crossverify ledger`.
///
/// # Errors
/// When the temporary directory cannot be written (exit 2).
#[cfg(feature = "cli")]
pub fn demo(ctx: Ctx<'_>) -> Result<Report, Error> {
    let dir = tempfile::Builder::new()
        .prefix("crossverify-demo-")
        .tempdir()
        .map_err(|e| Error::Usage(format!("creating a temporary directory for the demo ledger: {e}")))?;
    crate::crossaudit::demo::unpack(dir.path()).map_err(Error::Usage)?;
    let mut opts = Options::new(&dir.path().join("audit"));
    opts.science = Some(dir.path().join("science"));
    opts.allowed_signers = Some(dir.path().join("allowed_signers"));
    let mut report = ledger(&opts, ctx)?;
    report.command = "demo".into();
    // The ledger lives in a temporary directory; name it by what it is so output is stable.
    report.input("audit", "<built-in demo>/audit");
    report.input("science", "<built-in demo>/science");
    report.input("allowedSigners", "<built-in demo>/allowed_signers");
    report.input("scenario", "ledger-fixtures/demo-signed.toml");
    // Its canonical paths name a temporary directory: the demo's output stays the same bytes.
    report.inputs.remove("identities");
    Ok(report)
}

//! Finding every record a submission holds and verifying each with its protocol's own command
//! (`protocols::detect`): a record that needs another repository or a trust store gets the
//! ones of the submission, tried in turn, and is paired with the first its command accepts —
//! for a paired CrossAudit ledger, the repository holding the science commits its receipts
//! bind, since the ledger run refuses any other (`specs/intake.md`, "Pairing").

use std::path::{Path, PathBuf};

use super::receive::Intake;
use crate::checks::Given;
use crate::progress::Ctx;
use crate::report::Report;

/// One record of the submission, and what became of it.
#[derive(Debug)]
pub struct Record {
    /// Where it is, by its name in the report.
    pub name: String,
    /// Where it is on disk.
    pub path: PathBuf,
    /// What it is, in its protocol's words.
    pub what: String,
    /// The command that verified it (or would have), with the submission's names.
    pub command: String,
    /// The repositories and trust store it was paired with, by name.
    pub paired: Vec<String>,
    /// Its report, when its command ran.
    pub report: Option<Report>,
    /// Why it could not be verified.
    pub unverified: Option<String>,
    /// Paths given to its command, for a claims file to use the same ones.
    given: Vec<(&'static str, PathBuf)>,
}

/// What the caller gave beside the submission.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extra<'a> {
    /// `--trust-store`: used instead of any trust store found in the submission.
    pub trust_store: Option<&'a Path>,
}

/// Every record of the submission, verified where it can be, in the order found.
#[must_use]
pub fn verify_all(intake: &Intake, extra: Extra<'_>, ctx: Ctx<'_>) -> Vec<Record> {
    let repos: Vec<&Path> = intake.repos.iter().map(|r| r.path.as_path()).collect();
    let stores = trust_stores(intake, extra);
    let mut records: Vec<Record> = Vec::new();
    let mut covered: Vec<PathBuf> = Vec::new();
    for path in candidates(intake) {
        // A record's folder is verified once: neither what lies inside it nor a folder around
        // it (a parent that a detector would read as holding the same records) is asked again.
        if covered.iter().any(|c| path.starts_with(c) || c.starts_with(&path)) {
            continue;
        }
        let Ok(found) = crate::protocols::detect(&path, Given::default()) else { continue };
        covered.push(path.clone());
        let mut record = Record {
            name: intake.shown(&path),
            path: path.clone(),
            what: found.what.clone(),
            command: intake.shown_text(&found.command),
            paired: Vec::new(),
            report: None,
            unverified: None,
            given: Vec::new(),
        };
        run_paired(&mut record, found, &repos, &stores, intake, ctx);
        records.push(record);
    }
    let claims: Vec<&PathBuf> = intake.trees.iter().flat_map(|t| &t.2.named).filter(|p| is_claims(p)).collect();
    for c in claims {
        let record = claims_record(c, &records, intake, ctx);
        records.push(record);
    }
    records
}

/// Paths that may hold records: every repository, then every other directory searched, the
/// deepest first (a record's own folder before a folder around it), then by name.
fn candidates(intake: &Intake) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = intake.repos.iter().map(|r| r.path.clone()).collect();
    let mut dirs: Vec<PathBuf> = intake
        .trees
        .iter()
        .flat_map(|(root, _, found)| found.dirs.iter().map(move |d| if d == "." { root.clone() } else { root.join(d) }))
        .filter(|d| !out.contains(d))
        .collect();
    dirs.sort_by_key(|d| (std::cmp::Reverse(d.components().count()), d.clone()));
    out.extend(dirs);
    out
}

fn is_claims(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_ascii_lowercase();
    name.ends_with(".toml") && name.contains("claims")
}

fn trust_stores(intake: &Intake, extra: Extra<'_>) -> Vec<PathBuf> {
    if let Some(t) = extra.trust_store {
        return vec![t.to_owned()];
    }
    intake
        .trees
        .iter()
        .flat_map(|t| &t.2.named)
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_ascii_lowercase();
            name.ends_with(".json") && name.contains("trust") && name.contains("store")
        })
        .cloned()
        .collect()
}

/// Runs the record's command as detected; when it cannot run as it is, with each repository
/// (the one holding the record first) and trust store of the submission in turn.
fn run_paired(
    record: &mut Record,
    found: crate::checks::Detection,
    repos: &[&Path],
    stores: &[PathBuf],
    intake: &Intake,
    ctx: Ctx<'_>,
) {
    let first = match found.run {
        Ok(run) => match run(ctx) {
            Ok(report) => {
                record.report = Some(report);
                return;
            }
            Err(e) => e.to_string(),
        },
        Err(needs) => needs,
    };
    let mut order: Vec<&Path> = repos.iter().copied().filter(|r| record.path.starts_with(r)).collect();
    order.extend(repos.iter().copied().filter(|r| !record.path.starts_with(r)));
    let stores: Vec<Option<&Path>> =
        if stores.is_empty() { vec![None] } else { stores.iter().map(|s| Some(s.as_path())).collect() };
    for repo in order {
        for store in &stores {
            let mut given: Vec<(&'static str, &Path)> = vec![("science", repo), ("repo", repo)];
            given.extend(store.map(|s| ("trust-store", s)));
            let Some(found) = crate::protocols::detect(&record.path, Given(&given)).ok() else { continue };
            let Ok(run) = found.run else { continue };
            if ctx.check().is_err() {
                break;
            }
            if let Ok(report) = run(ctx) {
                record.command = intake.shown_text(&found.command);
                // What the command used: the paths its command line names.
                let named = |p: &Path| found.command.contains(&p.display().to_string());
                record.paired = given.iter().filter(|(_, p)| named(p)).map(|(_, p)| intake.shown(p)).collect();
                record.paired.dedup();
                record.given = given.iter().map(|(k, p)| (*k, p.to_path_buf())).collect();
                record.report = Some(report);
                return;
            }
        }
    }
    record.unverified = Some(format!(
        "{}; no repository{} of the submission made it verifiable",
        intake.shown_text(&first),
        if stores.iter().any(Option::is_some) { " and trust store" } else { "" }
    ));
}

/// A claims file, checked against the figures of the record nearest to it (sharing the
/// longest path with it) whose statistics can be computed.
fn claims_record(claims: &Path, records: &[Record], intake: &Intake, ctx: Ctx<'_>) -> Record {
    let shared = |r: &Record| claims.components().zip(r.path.components()).take_while(|(a, b)| a == b).count();
    let mut order: Vec<&Record> = records.iter().filter(|r| r.report.is_some()).collect();
    order.sort_by_key(|r| std::cmp::Reverse(shared(r)));
    let mut record = Record {
        name: intake.shown(claims),
        path: claims.to_owned(),
        what: "a claims file (figures stated by the paper)".into(),
        command: String::new(),
        paired: Vec::new(),
        report: None,
        unverified: None,
        given: Vec::new(),
    };
    let mut why = Vec::new();
    for target in order {
        let science = target.given.iter().find(|(k, _)| *k == "science").map(|(_, p)| p.as_path());
        let opts =
            crate::stats::Options { path: &target.path, rev: None, claims: Some(claims), science, science_rev: None };
        let adapter = crate::protocols::stats_adapter(&target.path);
        match crate::stats::command(&opts, || (adapter.read)(&opts, ctx)) {
            Ok(report) => {
                let sci = science.map(|s| format!(" --science {}", intake.shown(s))).unwrap_or_default();
                record.command = format!("crossverify stats {}{sci} --claims {}", target.name, record.name);
                record.paired = vec![target.name.clone()];
                record.report = Some(report);
                return record;
            }
            Err(e) => why.push(format!("{}: {}", target.name, intake.shown_text(&e.to_string()))),
        }
    }
    record.unverified = Some(if why.is_empty() {
        "no verified record of the submission gives the figures it states".into()
    } else {
        format!("no record of the submission gives the figures it states ({})", why.join("; "))
    });
    record
}

//! One crawl of a receipt ledger: load it, verify every cycle in parallel, replay what is
//! deterministic across cycles, and place a receipt named on the command line. The commands
//! turn the resulting [`Run`] into reports.

use std::path::Path;

use rayon::prelude::*;

use crate::crossaudit::checks;
use crate::crossaudit::crawl::verify;
use crate::crossaudit::load::{self, Error, Options};
use crate::crossaudit::model;
use crate::crossaudit::records::receipt;
use crate::crossaudit::replay::controller as replay;
use crate::crossaudit::replay::rounds;
use crate::manifest::BlobHashes;
use crate::progress::Ctx;
use crate::report::CheckResult;

/// Everything one run established, before it becomes a report.
pub(crate) struct Run {
    pub(crate) ledger: load::Ledger,
    pub(crate) results: Vec<CheckResult>,
    pub(crate) facts: Vec<model::CycleFacts>,
    pub(crate) groups: Vec<model::GroupInfo>,
    pub(crate) hash_stats: crate::manifest::HashStats,
    /// The per-commit signature table, with `--allowed-signers`.
    pub(crate) signatures: Option<crate::report::View>,
}

/// Per-thread repository handles and buffer, kept between rayon's jobs.
struct Worker {
    audit: crate::git::Repo,
    science: Option<crate::git::Repo>,
    scratch: crate::crossaudit::model::Scratch,
}

struct Pool<'a> {
    free: std::sync::Mutex<Vec<Worker>>,
    audit: &'a crate::git::SharedRepo,
    science: Option<&'a crate::git::SharedRepo>,
}

impl Pool<'_> {
    fn lease(&self) -> Lease<'_, '_> {
        let reused = self.free.lock().ok().and_then(|mut f| f.pop());
        Lease { pool: self, worker: Some(reused.unwrap_or_else(|| self.fresh())) }
    }

    fn fresh(&self) -> Worker {
        Worker {
            audit: self.audit.local(),
            science: self.science.map(crate::git::SharedRepo::local),
            scratch: Default::default(),
        }
    }
}

/// A worker taken from the pool for one rayon job; given back when the job ends.
struct Lease<'p, 'a> {
    pool: &'p Pool<'a>,
    worker: Option<Worker>,
}

impl Lease<'_, '_> {
    fn worker(&mut self) -> &mut Worker {
        // Always `Some` until dropped; the option exists so `Drop` can hand the worker back.
        self.worker.get_or_insert_with(|| self.pool.fresh())
    }
}

impl Drop for Lease<'_, '_> {
    fn drop(&mut self) {
        if let (Some(w), Ok(mut free)) = (self.worker.take(), self.pool.free.lock()) {
            free.push(w);
        }
    }
}

/// A pinned commit must be a full id: an abbreviation or a branch name would make the pin
/// mean whatever the repository says today.
pub(crate) fn full_commit_id(flag: &str, value: Option<&str>) -> Result<(), Error> {
    match value {
        Some(v) if !(matches!(v.len(), 40 | 64) && v.bytes().all(|b| b.is_ascii_hexdigit())) => Err(Error::Usage(
            format!("{flag} {v:?} is not a full commit id: give all 40 hex digits (e.g. from `git rev-parse`)"),
        )),
        _ => Ok(()),
    }
}

pub(crate) fn run(opts: &Options, ctx: Ctx<'_>) -> Result<Run, Error> {
    run_with(opts, ctx, None).map(|(r, _)| r)
}

/// The receipt file named on the command line.
pub(crate) struct Given {
    /// Its ledger-relative path, when it lies in (or is named relative to) the ledger repository.
    pub(crate) rel: Option<String>,
    /// The file on disk and its bytes; `None` names the committed copy.
    pub(crate) disk: Option<(std::path::PathBuf, Vec<u8>)>,
}

/// Where the given receipt sits in the run, and how it relates to the ledger's copy.
pub(crate) struct Placed {
    pub(crate) idx: usize,
    /// SHA-256 of the bytes given, when a file was given.
    pub(crate) given: Option<crate::manifest::Digest>,
    /// SHA-256 of the committed `receipt.json` of that cycle, when there is one.
    pub(crate) committed: Option<crate::manifest::Digest>,
}

pub(crate) fn run_with(opts: &Options, ctx: Ctx<'_>, given: Option<&Given>) -> Result<(Run, Option<Placed>), Error> {
    full_commit_id("--expect-audit-head", opts.expect_audit_head.as_deref())?;
    full_commit_id("--expect-sha", opts.expect_sha.as_deref())?;
    let signers = crate::crossaudit::invariants::signed::load(opts)?;
    let mut ledger = load::load(opts)?;
    let placed = given.map(|g| place(&mut ledger, g, opts)).transpose()?;
    ctx.check()?;
    if let Some(plan) = &opts.shard {
        plan.assign(&ledger);
    }
    let hashes = opts.cache.clone().map_or_else(BlobHashes::new, BlobHashes::with_persistent).with_hash_ahead();
    let science_shared = ledger.science.clone();
    let audit_shared = ledger.audit.clone();
    // One pass, in parallel: each worker parses a receipt, re-derives its science side
    // (hashing each distinct blob once across all workers) and drops the manifest.
    let last_change = crate::git::LastChangeMemo::default();
    let vctx = model::Ctx {
        ledger: &ledger,
        hashes: &hashes,
        last_change: &last_change,
        expect_sha: opts.expect_sha.as_deref(),
        expect_repo: opts.expect_repo.as_deref(),
        shard: opts.shard.as_deref(),
    };
    let memo = crate::crossaudit::crawl::memo::Memo::new(opts, &ledger);
    // The seals before the workers: each worker meeting them first would compute them too.
    memo.seal(&audit_shared.local(), science_shared.as_ref().map(crate::git::SharedRepo::local).as_ref());
    ctx.progress.start("verifying receipts", ledger.cycles.len() as u64);
    // Newest cycle first, so that each worker reads consecutive cycles, whose science commits
    // share most subtrees: the tree cache then holds them. In the receipts' pack order (their
    // delta families, unrelated to the cycles) the 1,000 x 10,000 bench ledger decoded 672 MB
    // of trees instead of 247 MB, and the product's selection walk was 24% of the samples
    // instead of 9%. Receipts read in this order apply about 2.4 times as many deltas to 3
    // times as many inflated bases (simulated on the pack's chains: most of a receipt's bases
    // are not read yet), but the run took 6.8 s, not 7.7 s.
    let order: Vec<usize> = (0..ledger.cycles.len()).rev().collect();
    // Repository handles outlive rayon's jobs (it starts one per split, not per thread): each
    // keeps its delta cache, which is what makes reading a thousand receipt deltas cheap.
    let pool = Pool { free: std::sync::Mutex::default(), audit: &audit_shared, science: science_shared.as_ref() };
    let per: Vec<Option<(Vec<CheckResult>, model::CycleFacts)>> = order
        .par_iter()
        .map(|&i| &ledger.cycles[i])
        .map_init(
            || pool.lease(),
            |lease, c| {
                if ctx.check().is_err() {
                    return None;
                }
                let Worker { audit, science, scratch } = lease.worker();
                let r = memo.cycle(&vctx, audit, science.as_ref(), c, scratch);
                ctx.progress.advance(1);
                Some(r)
            },
        )
        .collect();
    ctx.progress.finish();
    let mut per: Vec<(Vec<CheckResult>, model::CycleFacts)> =
        per.into_iter().collect::<Option<_>>().ok_or(crate::progress::Interrupted)?;
    per.reverse(); // back to ledger order
    let (per, mut facts): (Vec<Vec<CheckResult>>, Vec<model::CycleFacts>) = per.into_iter().unzip();
    let (mut ledger_wide, groups) = replay::controller(&ledger, &mut facts);
    rounds::checks(&ledger, &mut facts, &mut ledger_wide);
    verify::ledger_checks(&ledger, &facts, opts.expect_audit_head.as_deref(), &mut ledger_wide);
    let (signed, signatures) = crate::crossaudit::invariants::signed::check(
        &opts.audit,
        &ledger.audit.local(),
        ledger.audit_head,
        signers.as_ref(),
    );
    // Joined once, at their final size: the ledger-wide results appended to the joined
    // per-cycle ones (tens of thousands) moved them all again, 5% of a warm run's samples on
    // the 1,000 x 2,000 bench ledger (`benches/README.md`, the twelfth pass).
    let total = per.iter().map(Vec::len).sum::<usize>() + ledger_wide.len() + signed.len();
    let mut results = Vec::with_capacity(total);
    per.into_iter().for_each(|r| results.extend(r));
    results.extend(ledger_wide);
    locate(&ledger, &mut results);
    results.extend(signed);
    let hash_stats = hashes.stats();
    Ok((Run { hash_stats, ledger, results, facts, groups, signatures }, placed))
}

/// Finds the cycle the given receipt belongs to and makes its bytes the ones verified; a
/// receipt the ledger does not hold becomes a cycle read from the directory beside it.
pub(crate) fn place(ledger: &mut load::Ledger, g: &Given, opts: &Options) -> Result<Placed, Error> {
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
    let head = model::short(&ledger.audit_head.to_string());
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
pub(crate) fn given(repo: &Path, p: &Path) -> Result<Given, Error> {
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
pub(crate) fn locate(ledger: &load::Ledger, results: &mut [CheckResult]) {
    let cycles: std::collections::HashMap<&str, &load::Cycle> =
        ledger.cycles.iter().map(|c| (c.path.as_str(), c)).collect();
    let head = ledger.audit_head.to_string();
    // On every core: a location is three strings, and a ledger has tens of thousands of
    // results.
    results.par_iter_mut().filter(|r| r.location.is_none()).for_each(|r| {
        let mut words = r.subject.split(' ');
        let Some(cycle) = words.next().and_then(|p| cycles.get(p)) else { return };
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
    });
}

/// The receipt's path relative to the ledger repository's root; `None` for a file outside it
/// (located by the cycle path it declares).
pub(crate) fn ledger_relative(repo: &Path, receipt: &Path) -> Result<Option<String>, Error> {
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

/// The operator's mistake, decided from evidence, is "could not run" (exit 2) with the fix, not
/// a verdict: a science repository holding not one of the commits the receipts bind is not the
/// repository they audit, and reporting every receipt as bound to a missing commit would accuse
/// the authors of forgery for the caller's typo. One bound commit present is enough to verify
/// (a forged receipt beside genuine ones still fails); a shallow clone proves nothing by absence.
pub(crate) fn wrong_science(opts: &Options, run: &Run) -> Result<(), Error> {
    let (Some(given), Some(science)) = (&opts.science, &run.ledger.science) else { return Ok(()) };
    if run.ledger.local {
        return Ok(());
    }
    let repo = science.local();
    if repo.shallow_boundary().is_some() {
        return Ok(());
    }
    let bound: Vec<&str> = run.facts.iter().filter(|f| f.receipt.is_some()).filter_map(|f| f.sha.as_deref()).collect();
    let present = |sha: &&str| crate::git::ObjectId::from_hex(sha.as_bytes()).is_ok_and(|id| repo.has(id));
    if bound.is_empty() || bound.iter().any(present) {
        return Ok(());
    }
    let names: std::collections::BTreeSet<&str> = run.facts.iter().filter_map(|f| f.science_repo.as_deref()).collect();
    let named = if names.is_empty() {
        String::new()
    } else {
        format!(" (the receipts name {})", names.into_iter().collect::<Vec<_>>().join(", "))
    };
    Err(Error::Usage(format!(
        "--science {}: none of the {} commit(s) the receipts bind (e.g. {}) exists in it, so it is not the science \
         repository this ledger audits{named}; give the right one with --science PATH (a clone with full history)",
        given.display(),
        bound.len(),
        bound[0]
    )))
}

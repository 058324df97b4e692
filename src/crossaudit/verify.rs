//! Per-cycle verification: structure, bindings (I7), citations (I3), the deterministic layer
//! (I4), identity (I1) and severities (I6). Cross-cycle replay lives in `replay`.

use std::collections::{BTreeMap, BTreeSet};

use super::checks::*;
use super::config::Config;
use super::constitution::{Constitution, Severity, Syntax};
use super::load::{Cycle, Ledger, artefacts};
use super::receipt::{Family, Receipt};
use super::scope::{self, Expect, Selection};
use super::synthesis::Inputs;
use crate::checks::Check;
use crate::git::{EntryKind, ObjectId, Repo};
use crate::manifest::{BlobHashes, Digest};
use crate::report::{CheckResult, Outcome};

/// What a cycle's verification found, beyond its results: the facts the cross-cycle replay
/// and the tables need.
#[derive(Debug, Clone, Default)]
pub(crate) struct CycleFacts {
    pub verdict: Option<String>,
    pub integrity: Option<String>,
    pub round: Option<i64>,
    pub cycle_id: Option<String>,
    pub sha: Option<String>,
    pub root_sha: Option<String>,
    pub science_repo: Option<String>,
    pub parent_receipt: Option<String>,
    pub identity: Option<Digest>,
    pub inputs: Inputs,
    pub blockers: usize,
    pub max_rounds: Option<i64>,
    pub max_rounds_default: bool,
    /// Error-level binding checks all passed (admission needs this).
    pub bound: bool,
    /// Binding problems, for the admission reason.
    pub binding_failures: Vec<String>,
    pub isolation_shortfall: Vec<String>,
    pub model_findings: Vec<(String, String)>,
    pub product: bool,
    /// The parsed receipt without its manifest (which is dropped once compared).
    pub receipt: Option<Receipt>,
    /// The deterministic layer's inputs and hard failures, for CV-A403.
    pub dcl_run: Option<super::rounds::DclRun>,
}

/// Shared, read-only context for per-cycle verification.
pub(crate) struct Ctx<'a> {
    pub ledger: &'a Ledger,
    pub hashes: &'a BlobHashes,
    /// The Constitution's last change per audit commit, shared by all receipts.
    pub last_change: &'a crate::git::LastChangeMemo,
    pub expect_sha: Option<&'a str>,
    pub expect_repo: Option<&'a str>,
}

/// Science-side facts gathered before hashing (phase A).
pub(crate) struct Prepared {
    pub commit: Result<ObjectId, String>,
    pub tree: Option<ObjectId>,
    pub config: Option<Result<Config, String>>,
    pub selection: Option<Result<Selection, String>>,
    /// Entry at the commit (kind, blob) of each manifest key in key order; `None` when absent.
    pub entries: Vec<Option<(EntryKind, ObjectId)>>,
    pub unbound: Vec<String>,
    /// Schema 2: the files the increment changed (CV-A713).
    pub increment: Option<Result<scope::Increment, String>>,
}

fn read_config(repo: &Repo, commit: ObjectId, family: Family) -> Option<Result<Config, String>> {
    let parse = if family == Family::Schema2 { Config::parse_product } else { Config::parse };
    match repo.file_at(commit, "crossaudit.yml") {
        Ok(Some(b)) => Some(
            std::str::from_utf8(&b)
                .map_err(|_| "crossaudit.yml is not UTF-8".to_owned())
                .and_then(|t| parse(t).map_err(|e| format!("crossaudit.yml: {e}"))),
        ),
        Ok(None) => None,
        Err(e) => Some(Err(e.to_string())),
    }
}

/// The science side of one receipt: resolve the audited commit, read the configuration,
/// derive the dialect's selection and find every manifest key in the commit's tree.
fn prepare(ledger: &Ledger, science: Option<&Repo>, audit: &Repo, cycle: &Cycle, r: &Receipt) -> Option<Prepared> {
    let sha = r.sha.as_deref()?;
    let repo = science?;
    let commit = ObjectId::from_hex(sha.as_bytes()).map_err(|_| format!("{sha:?} is not a commit id")).and_then(|id| {
        if repo.has(id) { Ok(id) } else { Err(format!("audited commit {sha} is not in the science repository")) }
    });
    let Ok(id) = commit else {
        return Some(Prepared {
            commit,
            tree: None,
            config: None,
            selection: None,
            entries: Vec::new(),
            unbound: Vec::new(),
            increment: None,
        });
    };
    let tree = repo.commit(id).ok().map(|c| c.tree);
    // Where crossaudit.yml lives: the science repository at the audited commit (v1, product
    // local mode), else the audit repository at the commit that added the receipt.
    let config = if r.family == Family::V1 || ledger.local {
        read_config(repo, id, r.family)
    } else {
        read_config(audit, cycle.added_in.map_or(ledger.audit_head, |a| a.0), r.family)
    };
    let product = scope::Product { v4: r.v4 };
    let selection = match r.family {
        Family::V1 => Some(scope::v1(repo, id).map_err(|e| e.to_string())),
        Family::Schema2 => match r.scope.as_deref() {
            Some("changed-paths") => {
                let cfg = match &config {
                    Some(Ok(c)) => c.clone(),
                    _ => Config::default(),
                };
                Some(scope::product_run(repo, id, &cfg, product).map_err(|e| e.to_string()))
            }
            Some(s) => Some(scope::product_audit(repo, id, s, product).map_err(|e| e.to_string())),
            None => None,
        },
    };
    let entries = match (&r.manifest, tree) {
        (Some(m), Some(t)) => lookup(repo, t, r, m, selection.as_ref().and_then(|s| s.as_ref().ok())),
        _ => Vec::new(),
    };
    let unbound = match (&selection, &r.manifest) {
        (Some(Ok(sel)), Some(m)) => {
            let bound: BTreeSet<String> = m.keys().cloned().collect();
            scope::unbound(repo, id, sel, &bound).unwrap_or_default()
        }
        _ => Vec::new(),
    };
    let increment = (r.family == Family::Schema2).then(|| {
        let cfg = trusted_config(ledger, repo, id, config.as_ref());
        scope::increment(repo, id, &cfg, product).map_err(|e| e.to_string())
    });
    Some(Prepared { commit, tree, config, selection, entries, unbound, increment })
}

/// The configuration that may narrow what an increment must bind: one the increment did not
/// write. Paired mode keeps it in the audit repository; local mode keeps it in the audited
/// tree itself, so the one at the first parent is used, with the ledger directory the verifier
/// found (a configuration cannot declare the science directory to be the ledger).
fn trusted_config(ledger: &Ledger, repo: &Repo, id: ObjectId, paired: Option<&Result<Config, String>>) -> Config {
    if !ledger.local {
        return match paired {
            Some(Ok(c)) => c.clone(),
            _ => Config::default(),
        };
    }
    let parent = repo.commit(id).ok().and_then(|c| c.parents.first().copied());
    let mut cfg = match parent.and_then(|p| read_config(repo, p, ledger.family)) {
        Some(Ok(c)) => c,
        _ => Config::default(),
    };
    cfg.ledger_dir = Some(ledger.ledger_dir.clone());
    cfg
}

/// Finds every manifest key in the tree. A selection that already listed the tree answers
/// most keys; a few keys are looked up one by one; many keys trigger one walk of the tree.
fn lookup(
    repo: &Repo,
    tree: ObjectId,
    r: &Receipt,
    manifest: &BTreeMap<String, String>,
    sel: Option<&Selection>,
) -> Vec<Option<(EntryKind, ObjectId)>> {
    // One slot per manifest key, in key order. Both maps are sorted, so the selection is
    // merged in rather than searched key by key.
    let mut out = vec![None; manifest.len()];
    let mut rest = Vec::new();
    let mut selected = sel.map(|s| s.keys.iter().peekable());
    for (i, key) in manifest.keys().enumerate() {
        if r.bad_keys.contains(key) {
            continue;
        }
        let mut hit = None;
        if let Some(it) = selected.as_mut() {
            while it.peek().is_some_and(|(k, _)| k.as_str() < key.as_str()) {
                it.next();
            }
            if let Some((k, Expect::File(id))) = it.peek()
                && *k == key
            {
                hit = Some((EntryKind::File, *id));
            }
        }
        match hit {
            Some(h) => out[i] = Some(h),
            None => rest.push((i, key)),
        }
    }
    if rest.len() > 64 {
        let listed: BTreeMap<String, (EntryKind, ObjectId)> = repo
            .walk(tree, &crate::git::Scope::all())
            .map(|v| {
                v.into_iter()
                    .filter_map(|e| Some((scope::manifest_key(r.family, e.path.as_ref())?, (e.kind, e.id))))
                    .collect()
            })
            .unwrap_or_default();
        for (i, key) in rest {
            out[i] = listed.get(key).copied();
        }
    } else {
        for (i, key) in rest {
            out[i] = repo.entry(tree, key.as_bytes().into()).ok().flatten().map(|e| (e.kind, e.id));
        }
    }
    out
}

fn res(c: &Check, o: Outcome, subject: &str, msg: impl Into<String>) -> CheckResult {
    CheckResult::new(c, o, subject, msg)
}

/// Every per-cycle check. The receipt is parsed here and its manifest dropped on return.
#[allow(clippy::too_many_lines)]
pub(crate) fn check_cycle(
    ctx: &Ctx<'_>,
    audit: &Repo,
    science: Option<&Repo>,
    cycle: &Cycle,
    buf: &mut Vec<u8>,
) -> (Vec<CheckResult>, CycleFacts) {
    let ledger = ctx.ledger;
    let subject = cycle.path.as_str();
    let mut out = Vec::new();
    let mut facts = CycleFacts::default();
    let at = |r: CheckResult, file: &str| {
        r.at(Some("audit"), Some(&cycle.file(file)), cycle.added_in.map(|a| a.0.to_string()).as_deref())
    };

    // Artefacts (I2 first tier).
    let missing: Vec<&str> = artefacts(ledger.family)
        .iter()
        .copied()
        .filter(|f| !cycle.files.get(*f).is_some_and(|(k, _)| k.is_file()))
        .collect();
    let interrupted = ledger.interrupted_attempt(cycle);
    out.push(if missing.is_empty() {
        res(&CYCLE_ARTEFACTS, Outcome::Passed, subject, "every artefact of the dialect is present")
    } else if let Some(i) = interrupted.filter(|_| missing.iter().all(|m| ["receipt.json", "checks.json"].contains(m)))
    {
        // The product's own trace of an interruption between its report and receipt commits,
        // not a removed receipt (removal is CV-A201's): it binds nothing and claims nothing.
        match i.superseded_by {
            Some(later) => res(
                &CYCLE_ARTEFACTS,
                Outcome::Passed,
                subject,
                format!("interrupted attempt (report committed, no receipt), re-attempted and completed in {later}"),
            ),
            None => res(
                &CYCLE_ARTEFACTS,
                Outcome::CantTell,
                subject,
                "interrupted round: the report is committed but no receipt binds it and no later attempt completed it",
            ),
        }
    } else {
        res(&CYCLE_ARTEFACTS, Outcome::Failed, subject, format!("{} missing", missing.join(", ")))
            .with("missing", missing.clone())
    });
    let extra: Vec<&String> = cycle.files.keys().filter(|f| !artefacts(ledger.family).contains(&f.as_str())).collect();
    if !extra.is_empty() {
        out.push(res(
            &LEDGER_LAYOUT,
            Outcome::Failed,
            subject,
            format!(
                "files the dialect does not write: {}",
                extra.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }

    // Parsing.
    let bytes = match &cycle.receipt_given {
        Some(b) => Some(Ok(b.clone())),
        None => cycle.receipt_blob.map(|id| audit.record(id, &cycle.file("receipt.json"))),
    };
    let parsed = bytes.map(|read| {
        let file = cycle.file("receipt.json");
        match read {
            Ok(bytes) => Receipt::parse(&bytes)
                .map_err(|e| (matches!(e, super::receipt::ParseError::Json(_)), format!("{file}: {e}"))),
            Err(e) => Err((false, e.to_string())),
        }
    });
    let mut parse_failures = Vec::new();
    if let Some(Err((true, e))) = &parsed {
        parse_failures.push(e.clone());
    }
    if let Some(Err(e)) = &cycle.dcl {
        parse_failures.push(e.clone());
    }
    if let Some(Err(e)) = &cycle.exchange {
        parse_failures.push(e.clone());
    }
    if parse_failures.is_empty() {
        out.push(res(&RECORD_PARSES, Outcome::Passed, subject, "records parse strictly"));
    } else {
        for f in &parse_failures {
            // Failures read "<ledger path>: <reason>"; the file is the location, the reason
            // (with line and column for JSON) the evidence.
            let mut r = res(&RECORD_PARSES, Outcome::Failed, subject, f.clone());
            if let Some((file, why)) = f.split_once(": ").filter(|(file, _)| file.starts_with(&cycle.path)) {
                r = r.with("file", file).with("error", why).at(
                    Some("audit"),
                    Some(file),
                    Some(&ctx.ledger.audit_head.to_string()),
                );
            }
            out.push(r);
        }
    }

    let mut receipt = match parsed {
        Some(Ok(r)) => r,
        Some(Err((json, e))) => {
            if !json {
                out.push(at(res(&RECEIPT_SHAPE, Outcome::Failed, subject, e), "receipt.json"));
            }
            return (out, facts);
        }
        None => return (out, facts),
    };
    let receipt = &mut receipt;
    if receipt.family != ledger.family {
        out.push(at(
            res(
                &RECEIPT_SHAPE,
                Outcome::Failed,
                subject,
                format!("a {} receipt in a {} ledger", receipt.family.as_str(), ledger.family.as_str()),
            ),
            "receipt.json",
        ));
    }
    if receipt.problems.is_empty() {
        out.push(res(&RECEIPT_SHAPE, Outcome::Passed, subject, "every required field is present and well-formed"));
    } else {
        for p in &receipt.problems {
            out.push(at(res(&RECEIPT_SHAPE, Outcome::Failed, subject, p.clone()), "receipt.json"));
        }
    }
    let product = receipt.family == Family::Schema2;
    facts.product = product;
    facts.verdict.clone_from(&receipt.verdict);
    facts.integrity.clone_from(&receipt.integrity);
    facts.round = receipt.round;
    facts.cycle_id.clone_from(&receipt.cycle_id);
    facts.sha.clone_from(&receipt.sha);
    facts.root_sha.clone_from(&receipt.root_sha);
    facts.science_repo.clone_from(&receipt.science_repo);
    facts.parent_receipt.clone_from(&receipt.parent_receipt);
    facts.identity = Some(receipt.identity());
    let mut binding_failed: Vec<String> = receipt.problems.clone();
    let verified_at = cycle.added_in.map_or(ledger.audit_head, |a| a.0);

    // Cycle directory binding.
    let dir_ok = cycle_dir_problems(receipt, cycle);
    if dir_ok.is_empty() {
        out.push(res(&CYCLE_DIR_BINDING, Outcome::Passed, subject, "the receipt lives in its cycle directory"));
    } else {
        for p in dir_ok {
            binding_failed.push(p.clone());
            out.push(at(res(&CYCLE_DIR_BINDING, Outcome::Failed, subject, p), "receipt.json"));
        }
    }

    // Science side: subject and manifest.
    let prepared = prepare(ledger, science, audit, cycle, receipt);
    let prep = prepared.as_ref();
    let config = prep.and_then(|p| p.config.clone());
    science_checks(ctx, receipt, prep, science, buf, subject, &mut out, &mut binding_failed);
    extent_checks(receipt, prep, subject, &mut out, &mut binding_failed);

    // Report binding and agreement.
    match (&cycle.report, &receipt.report_sha256) {
        (Some((d, _)), Some(want)) if d.hex() == *want => {
            out.push(res(&REPORT_BINDING, Outcome::Passed, subject, "report.md hashes to report_sha256"))
        }
        (Some((d, _)), Some(want)) => {
            binding_failed.push("report blob hash mismatch".into());
            out.push(at(
                res(
                    &REPORT_BINDING,
                    Outcome::Failed,
                    subject,
                    format!("report.md hashes to {}, receipt binds {}", short(&d.hex()), short(want)),
                )
                .with("actual", d.hex())
                .with("expected", want.clone()),
                "report.md",
            ));
        }
        (None, _) => {
            binding_failed.push("report missing".into());
            out.push(res(&REPORT_BINDING, Outcome::Failed, subject, "report.md missing or unreadable"));
        }
        (Some(_), None) => {}
    }
    if let Some((_, rep)) = &cycle.report {
        let mut disagree = Vec::new();
        if rep.verdict.as_deref() != receipt.verdict.as_deref() {
            disagree.push(format!(
                "receipt verdict {} differs from bound report verdict {}",
                receipt.verdict.as_deref().unwrap_or("?"),
                rep.verdict.as_deref().unwrap_or("(no verdict row)")
            ));
        }
        if rep.round.is_some() && rep.round != receipt.round {
            disagree.push(format!("report round {:?} differs from receipt round {:?}", rep.round, receipt.round));
        }
        if let (Some(t), Some(sha)) = (&rep.title_sha, &receipt.sha)
            && (!sha.starts_with(t.as_str()) || t.len() < 7)
        {
            disagree.push(format!("report title names commit {t}, receipt binds {}", short(sha)));
        }
        if let (Some(full), Some(sha)) = (&rep.increment_sha, &receipt.sha)
            && full != sha
        {
            disagree.push(format!("report increment row names {}, receipt binds {}", short(full), short(sha)));
        }
        if disagree.is_empty() {
            out.push(res(
                &REPORT_AGREES,
                Outcome::Passed,
                subject,
                "report verdict, round and commit agree with the receipt",
            ));
        } else {
            for d in disagree {
                binding_failed.push(d.clone());
                out.push(at(res(&REPORT_AGREES, Outcome::Failed, subject, d), "report.md"));
            }
        }
    }

    if let Some((_, rep)) = &cycle.report {
        report_form(rep, subject, &mut out, &mut binding_failed);
    }

    // Constitution binding and the version in force.
    let constitution = constitution_checks(ctx, audit, receipt, cycle, verified_at, &mut out, &mut binding_failed);

    // DCL source (v1 only).
    match receipt.family {
        Family::V1 => {
            if let Some(want) = &receipt.dcl_source_sha256 {
                match dcl_source_digest(audit, verified_at) {
                    Ok(d) if d.hex() == *want => out.push(res(
                        &DCL_SOURCE_BINDING,
                        Outcome::Passed,
                        subject,
                        "checks/*.py hash to dcl_source_sha256",
                    )),
                    Ok(d) => {
                        binding_failed.push("DCL source hash mismatch".into());
                        out.push(
                            res(
                                &DCL_SOURCE_BINDING,
                                Outcome::Failed,
                                subject,
                                format!(
                                    "DCL source hash mismatch — checks/*.py at {} hash to {}, receipt binds {}",
                                    short(&verified_at.to_string()),
                                    short(&d.hex()),
                                    short(want)
                                ),
                            )
                            .with("auditCommit", verified_at.to_string()),
                        );
                    }
                    Err(e) => out.push(res(&DCL_SOURCE_BINDING, Outcome::CantTell, subject, e)),
                }
            }
            // An offline run's prompt digest is the SHA-256 of the ASCII string `offline`: the
            // one prompt a third party can re-derive (formats note §5.4).
            let offline_prompt = Digest::of(b"offline").hex();
            let offline = receipt.auditor_model.as_deref() == Some("offline-stub");
            out.push(match (offline, receipt.prompt_sha256.as_deref()) {
                (true, Some(p)) if p == offline_prompt => res(
                    &NOT_REVERIFIABLE,
                    Outcome::Passed,
                    subject,
                    "offline run: prompt_sha256 is the digest of `offline`, re-derived",
                ),
                (true, Some(p)) => res(
                    &NOT_REVERIFIABLE,
                    Outcome::Failed,
                    subject,
                    format!(
                        "offline run, but prompt_sha256 {} is not the digest of `offline` ({})",
                        short(p),
                        short(&offline_prompt)
                    ),
                ),
                _ => res(
                    &NOT_REVERIFIABLE,
                    Outcome::CantTell,
                    subject,
                    "prompt_sha256 is bound but the prompt is not published",
                )
                .with("notReverifiable", vec!["prompt_sha256"]),
            });
        }
        Family::Schema2 => {
            out.push(res(
                &DCL_SOURCE_BINDING,
                Outcome::Inapplicable,
                subject,
                "schema 2 binds the installed DCL package's digest, which the ledger does not hold",
            ));
            out.push(
                res(&NOT_REVERIFIABLE, Outcome::CantTell, subject, "prompt_sha256, dcl_source_sha256 and the exchange digests are bound but not re-derivable from the ledger")
                    .with("notReverifiable", vec!["prompt_sha256", "dcl_source_sha256", "audit.exchange"]),
            );
        }
    }

    // Report commit (schema 2) / the ledger commit of the report (v1).
    report_commit_check(ctx, audit, receipt, cycle, &mut out, &mut binding_failed);

    // I3 citations, I4, I6, and the synthesis inputs.
    let report = cycle.report.as_ref().map(|(_, r)| r);
    content_checks(receipt, cycle, report, constitution.as_ref(), &mut out, &mut facts);

    // I1.
    identity_checks(ledger, receipt, cycle, report, config.as_ref(), &mut out, &mut facts);
    derivation_check(receipt, subject, config.as_ref(), &mut out, &mut binding_failed);

    facts.bound = binding_failed.is_empty();
    facts.binding_failures = binding_failed;
    facts.dcl_run = Some(super::rounds::dcl_run(receipt, cycle));
    receipt.manifest = None;
    facts.receipt = Some(receipt.clone());
    (out, facts)
}

/// CV-A307: one verdict row, and one "Rules applied" line where a valid reply is recorded.
fn report_form(rep: &super::report_md::Report, subject: &str, out: &mut Vec<CheckResult>, failed: &mut Vec<String>) {
    let mut problems = Vec::new();
    if rep.verdict_rows != 1 {
        problems.push(format!("report.md has {} verdict rows: one report, one reading", rep.verdict_rows));
    }
    // Only the product renders the list in the report; it writes it for a valid reply only.
    let valid_reply = rep.product_layout && rep.invalid_reason.is_none() && !rep.offline;
    let want_rules = if valid_reply { 1..=1 } else { 0..=1 };
    if !want_rules.contains(&rep.rules_applied_lines) {
        problems.push(format!(
            "report.md has {} \"Rules applied\" lines where the renderer writes {}",
            rep.rules_applied_lines,
            if valid_reply { "exactly one" } else { "at most one" }
        ));
    }
    if problems.is_empty() {
        out.push(res(&REPORT_FORM, Outcome::Passed, subject, "report.md has one verdict row and one reading"));
    }
    for p in problems {
        failed.push(p.clone());
        out.push(
            res(&REPORT_FORM, Outcome::Failed, subject, p)
                .with("verdictRows", rep.verdict_rows)
                .with("rulesAppliedLines", rep.rules_applied_lines),
        );
    }
}

pub(crate) fn short(s: &str) -> String {
    if s.len() > 12 && s.bytes().all(|b| b.is_ascii_hexdigit()) { format!("{}…", &s[..12]) } else { s.to_owned() }
}

fn cycle_dir_problems(r: &Receipt, cycle: &Cycle) -> Vec<String> {
    let mut p = Vec::new();
    let Some(sha) = r.sha.as_deref() else { return p };
    let (prefix_len, rule) = match r.family {
        Family::V1 => (40, "full commit id"),
        Family::Schema2 => (12, "first 12 hex of the commit"),
    };
    // `get`, not indexing: a forged `sha` may hold multi-byte characters.
    if !sha.get(..prefix_len).is_some_and(|p| cycle.name.starts_with(p)) {
        p.push(format!("receipt lives in {}, not a cycle directory for {} ({rule})", cycle.name, short(sha)));
    }
    if let Some(suffix) = cycle.name.split_once("-r").map(|(_, s)| s) {
        let round_text = suffix.split('.').next().unwrap_or("");
        if let (Ok(n), Some(r)) = (round_text.parse::<i64>(), r.round)
            && n != r
        {
            p.push(format!("directory {} says round {n}, the receipt says {r}", cycle.name));
        }
    }
    if r.family == Family::Schema2 {
        match &r.cycle_path {
            Some(cp) if *cp == cycle.path => {}
            Some(cp) => p.push(format!("ledger.cycle_path says {cp}, the receipt was read from {}", cycle.path)),
            None => {}
        }
    }
    p
}

#[allow(clippy::too_many_arguments)]
fn science_checks(
    ctx: &Ctx<'_>,
    r: &Receipt,
    prep: Option<&Prepared>,
    science: Option<&Repo>,
    buf: &mut Vec<u8>,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
    let mut subject_problems = Vec::new();
    if let (Some(want), Some(sha)) = (ctx.expect_sha, &r.sha)
        && want != sha
    {
        subject_problems.push(format!("receipt sha {} != expected {}", short(sha), short(want)));
    }
    if let (Some(want), Some(repo)) = (ctx.expect_repo, &r.science_repo)
        && want != repo
    {
        subject_problems.push(format!("science_repo '{repo}' != expected '{want}'"));
    }
    if let (Some(Ok(cfg)), Some(repo)) = (prep.and_then(|p| p.config.as_ref()), &r.science_repo)
        && let Some(configured) = &cfg.science_repo
        && configured != repo
    {
        subject_problems.push(format!("science_repo '{repo}' != configured '{configured}' (crossaudit.yml)"));
    }
    let Some(prep) = prep else {
        if science.is_none() {
            out.push(res(
                &SUBJECT_BINDING,
                Outcome::CantTell,
                subject,
                "no science repository given (--science): the audited commit cannot be checked",
            ));
            for c in [&MANIFEST_MATCHES, &MANIFEST_COMPLETE] {
                out.push(res(c, Outcome::CantTell, subject, "no science repository given (--science)"));
            }
        }
        for p in subject_problems {
            failed.push(p.clone());
            out.push(res(&SUBJECT_BINDING, Outcome::Failed, subject, p));
        }
        return;
    };
    let commit = match &prep.commit {
        Ok(c) => *c,
        Err(e) => {
            // A commit missing from a shallow clone may exist upstream: unknown, not forged.
            match science.and_then(Repo::shallow_hint).filter(|_| e.contains("is not in the science repository")) {
                Some(hint) => {
                    out.push(res(&SUBJECT_BINDING, Outcome::CantTell, subject, format!("{e}, but {hint}")));
                }
                None => {
                    failed.push(e.clone());
                    out.push(res(&SUBJECT_BINDING, Outcome::Failed, subject, e.clone()));
                }
            }
            for p in subject_problems {
                out.push(res(&SUBJECT_BINDING, Outcome::Failed, subject, p));
            }
            for c in [&MANIFEST_MATCHES, &MANIFEST_COMPLETE] {
                out.push(res(c, Outcome::CantTell, subject, "the audited commit is not in the science repository"));
            }
            return;
        }
    };
    match (prep.tree, &r.tree) {
        (Some(t), Some(want)) if want.parse::<ObjectId>().ok() == Some(t) => {}
        (Some(t), Some(want)) => {
            subject_problems.push(format!("science tree {} != receipt tree {}", short(&t.to_string()), short(want)))
        }
        (None, _) => subject_problems.push(format!("commit {commit} could not be read")),
        (Some(_), None) => {}
    }
    if subject_problems.is_empty() {
        out.push(res(
            &SUBJECT_BINDING,
            Outcome::Passed,
            subject,
            format!("commit {} and its tree are in the science repository", short(&commit.to_string())),
        ));
    } else {
        for p in subject_problems {
            failed.push(p.clone());
            out.push(res(&SUBJECT_BINDING, Outcome::Failed, subject, p).at(
                Some("science"),
                None,
                Some(&commit.to_string()),
            ));
        }
    }
    let Some(manifest) = &r.manifest else { return };
    // A702: every bound entry.
    let mut mismatches = 0;
    let mut unknown = 0;
    for (i, (key, want)) in manifest.iter().enumerate() {
        if r.bad_keys.contains(key) {
            continue;
        }
        let entry = prep.entries.get(i).copied().flatten();
        let loc = |res: CheckResult| res.at(Some("science"), Some(key), Some(&commit.to_string()));
        let sub = format!("{subject} {key}");
        if want == "ABSENT" {
            if let Some((k, _)) = entry.filter(|(k, _)| k.is_file()) {
                mismatches += 1;
                failed.push(format!("manifest says ABSENT but {key} exists"));
                out.push(loc(res(
                    &MANIFEST_MATCHES,
                    Outcome::Failed,
                    &sub,
                    format!("manifest says ABSENT but {key} is a {} in the tree", k.as_str()),
                )));
            }
            continue;
        }
        match entry {
            None => {
                mismatches += 1;
                failed.push(format!("manifest lists {key}, absent from the tree"));
                out.push(loc(res(
                    &MANIFEST_MATCHES,
                    Outcome::Failed,
                    &sub,
                    format!("manifest lists {key}, absent from the tree"),
                )));
            }
            Some((k, _)) if !k.is_file() => {
                mismatches += 1;
                failed.push(format!("manifest binds {key} by digest but it is a {}", k.as_str()));
                out.push(loc(res(
                    &MANIFEST_MATCHES,
                    Outcome::Failed,
                    &sub,
                    format!("bound by digest but it is a {} (not hashed)", k.as_str()),
                )));
            }
            Some((_, id)) => match science.map(|s| ctx.hashes.get_or_hash(s, id, buf)) {
                Some(Ok(d)) if Digest::from_hex(want) == Some(d) && !want.bytes().any(|b| b.is_ascii_uppercase()) => {}
                Some(Ok(d)) => {
                    mismatches += 1;
                    failed.push(format!("manifest mismatch for {key}"));
                    let mut msg = format!(
                        "manifest mismatch for {key}: receipt binds {}, the commit has {}",
                        short(want),
                        short(&d.hex())
                    );
                    if let Some(note) = science.and_then(|s| truncated_match(s, id, want)) {
                        msg.push_str(&note);
                    }
                    out.push(loc(res(&MANIFEST_MATCHES, Outcome::Failed, &sub, msg)
                        .with("expected", want.clone())
                        .with("actual", d.hex())));
                }
                Some(Err(e)) => {
                    unknown += 1;
                    out.push(loc(res(
                        &MANIFEST_MATCHES,
                        Outcome::CantTell,
                        &sub,
                        format!("blob {id} could not be read: {e}"),
                    )));
                }
                None => {
                    unknown += 1;
                    out.push(loc(res(&MANIFEST_MATCHES, Outcome::CantTell, &sub, "blob was not hashed")));
                }
            },
        }
    }
    if mismatches == 0 && unknown == 0 {
        out.push(res(
            &MANIFEST_MATCHES,
            Outcome::Passed,
            subject,
            format!(
                "{} manifest entr{} match the commit's git objects",
                manifest.len(),
                if manifest.len() == 1 { "y" } else { "ies" }
            ),
        ));
    }
    // A703: completeness against the dialect's own rule.
    match &prep.selection {
        Some(Ok(sel)) => {
            let mut missing = Vec::new();
            for (key, exp) in &sel.keys {
                if let Expect::Absent { hidden: Some(real), .. } = exp {
                    missing.push(format!(
                        "{real} is bound only as the C-quoted key {key} recorded ABSENT: its content is unbound"
                    ));
                    continue;
                }
                if !manifest.contains_key(key) && !sel.optional.contains(key) {
                    missing.push(format!("{key} is selected by the rule but not bound"));
                }
            }
            for s in &sel.symlinks {
                missing.push(format!("{s} is a symlink in scope: the product refuses to audit such an increment"));
            }
            for s in &sel.unspellable {
                missing.push(format!(
                    "{s} is in scope but its name is not UTF-8: no schema-2 manifest key can bind it (the product cannot read it)"
                ));
            }
            if missing.is_empty() {
                out.push(
                    res(
                        &MANIFEST_COMPLETE,
                        Outcome::Passed,
                        subject,
                        format!("binds every path of the rule ({})", sel.rule),
                    )
                    .with("rule", sel.rule.clone()),
                );
            } else {
                for m in missing {
                    failed.push(m.clone());
                    out.push(res(&MANIFEST_COMPLETE, Outcome::Failed, subject, m).with("rule", sel.rule.clone()));
                }
            }
        }
        Some(Err(e)) => out.push(res(&MANIFEST_COMPLETE, Outcome::CantTell, subject, e.clone())),
        None => out.push(res(
            &MANIFEST_COMPLETE,
            Outcome::CantTell,
            subject,
            "the receipt names no scope the selection rule could use",
        )),
    }
    out.push(if prep.unbound.is_empty() {
        res(&UNBOUND_FILES, Outcome::Passed, subject, "every file of the increment's directories is bound")
    } else {
        res(
            &UNBOUND_FILES,
            Outcome::Failed,
            subject,
            format!(
                "{} file(s) of the increment's directories not bound: {}",
                prep.unbound.len(),
                prep.unbound.join(", ")
            ),
        )
        .with("unbound", prep.unbound.clone())
    });
}

/// CV-A713 and CV-A717: the manifest binds the whole increment, and nothing beyond what its
/// declared scope derives.
fn extent_checks(
    r: &Receipt,
    prep: Option<&Prepared>,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
    if r.family == Family::V1 {
        out.push(if r.manifest.as_ref().is_some_and(BTreeMap::is_empty) {
            failed.push("empty manifest".into());
            res(
                &INCREMENT_BOUND,
                Outcome::Failed,
                subject,
                "the manifest is empty: a receipt that binds nothing binds no increment",
            )
        } else {
            res(
                &INCREMENT_BOUND,
                Outcome::Inapplicable,
                subject,
                "v1 binds the changes under experiments/ by rule, which CV-A703 re-derives",
            )
        });
        out.push(res(
            &MANIFEST_WITHIN_RULE,
            Outcome::Inapplicable,
            subject,
            "the v1 runner may diff from the push's `before` commit, which the ledger does not record",
        ));
        return;
    }
    let Some(manifest) = &r.manifest else { return };
    let Some(prep) = prep.filter(|p| p.commit.is_ok()) else {
        for c in [&INCREMENT_BOUND, &MANIFEST_WITHIN_RULE] {
            out.push(res(
                c,
                Outcome::CantTell,
                subject,
                "the audited commit is not available from a science repository",
            ));
        }
        return;
    };
    let mut fail = |out: &mut Vec<CheckResult>, c: &Check, msg: String, ev: Vec<String>| {
        failed.push(msg.clone());
        out.push(res(c, Outcome::Failed, subject, msg).with("paths", ev));
    };
    match &prep.increment {
        Some(Ok(inc)) => {
            let bound: BTreeSet<&str> = manifest
                .iter()
                .filter(|(k, v)| *v != "ABSENT" && !r.bad_keys.contains(*k))
                .map(|(k, _)| k.as_str())
                .collect();
            let unbound: Vec<String> = inc.files.iter().filter(|f| !bound.contains(f.as_str())).cloned().collect();
            let files_bound = bound.iter().filter(|k| !(r.v4 && **k == "TASK.md")).count();
            if files_bound == 0 {
                let only = if bound.is_empty() { "nothing" } else { "only TASK.md" };
                fail(
                    out,
                    &INCREMENT_BOUND,
                    format!("the manifest binds {only}: a receipt that binds no file binds no increment"),
                    Vec::new(),
                );
            }
            if !unbound.is_empty() {
                fail(
                    out,
                    &INCREMENT_BOUND,
                    format!("{} changed file(s) of the increment are not bound: {}", unbound.len(), unbound.join(", ")),
                    unbound,
                );
            } else if files_bound > 0 {
                let excluded: Vec<String> = inc.excluded.iter().map(|(p, w)| format!("{p} ({w})")).collect();
                out.push(
                    res(
                        &INCREMENT_BOUND,
                        Outcome::Passed,
                        subject,
                        format!(
                            "binds all {} changed file(s) of the increment ({} left out by the product's rules)",
                            inc.files.len(),
                            excluded.len()
                        ),
                    )
                    .with("excluded", excluded),
                );
            }
        }
        Some(Err(e)) => out.push(res(&INCREMENT_BOUND, Outcome::CantTell, subject, e.clone())),
        None => {}
    }
    match &prep.selection {
        Some(Ok(sel)) => {
            let keys: Vec<&String> = manifest.keys().filter(|k| !r.bad_keys.contains(*k)).collect();
            let extra: Vec<String> =
                keys.iter().filter(|k| !sel.keys.contains_key(k.as_str())).map(|k| (*k).clone()).collect();
            if extra.is_empty() {
                out.push(res(
                    &MANIFEST_WITHIN_RULE,
                    Outcome::Passed,
                    subject,
                    format!("every entry is selected by the rule ({})", sel.rule),
                ));
            } else {
                let none_inside = extra.len() == keys.len();
                fail(
                    out,
                    &MANIFEST_WITHIN_RULE,
                    format!(
                        "{} manifest entr{} outside the rule's selection ({}){}: {}",
                        extra.len(),
                        if extra.len() == 1 { "y" } else { "ies" },
                        sel.rule,
                        if none_inside { "; none of the manifest's paths lies in the declared scope" } else { "" },
                        extra.join(", ")
                    ),
                    extra,
                );
            }
        }
        Some(Err(e)) => out.push(res(&MANIFEST_WITHIN_RULE, Outcome::CantTell, subject, e.clone())),
        None => out.push(res(
            &MANIFEST_WITHIN_RULE,
            Outcome::CantTell,
            subject,
            "the receipt names no scope the selection rule could use",
        )),
    }
}

/// CV-A716: an integrity of OK over a reply the records show invalid, or a failed call.
fn integrity_check(
    r: &Receipt,
    recorded_invalid: Option<&str>,
    dcl_blockers: usize,
    subject: &str,
    out: &mut Vec<CheckResult>,
) {
    let Some(integrity) = r.integrity.as_deref() else { return };
    let failed_call = r.family == Family::Schema2 && r.exchange_error;
    let why = recorded_invalid
        .map(str::to_owned)
        .or_else(|| failed_call.then(|| "the auditor call failed (audit.exchange.error)".to_owned()));
    match why {
        Some(why) if integrity == "OK" => {
            let verdict = r.verdict.as_deref().unwrap_or("");
            let mut result = res(
                &INTEGRITY_STATED,
                Outcome::Failed,
                subject,
                format!("audit_integrity is OK but the records show an invalid auditor reply: {why}"),
            );
            if r.family == Family::Schema2 && ((verdict == "BLOCKED" && dcl_blockers > 0) || verdict == "ESCALATE") {
                result = result.with(
                    "dialect",
                    "product (v2/v4): integrity stays OK when the deterministic layer or the escalation lock decided the verdict first (formats §8); the paper requires the failure in audit_integrity",
                );
            }
            out.push(result);
        }
        Some(_) => out.push(res(
            &INTEGRITY_STATED,
            Outcome::Passed,
            subject,
            format!("the recorded invalid reply is stated as {integrity}"),
        )),
        None => {
            out.push(res(&INTEGRITY_STATED, Outcome::Passed, subject, "no invalid reply or failed call is recorded"))
        }
    }
}

/// When a digest equals SHA-256 of the first 512 KiB only, say so (the product truncates).
fn truncated_match(repo: &Repo, id: ObjectId, want: &str) -> Option<String> {
    const LIMIT: usize = 524_288;
    let data = repo.blob(id).ok()?;
    (data.len() > LIMIT && Digest::of(&data[..LIMIT]).hex() == want)
        .then(|| format!(" — the bound digest covers only the first {LIMIT} bytes (the product's 512 KiB truncation): the rest of the file is unbound"))
}

fn dcl_source_digest(audit: &Repo, commit: ObjectId) -> Result<Digest, String> {
    use sha2::Digest as _;
    let tree = audit.commit(commit).map_err(|e| e.to_string())?.tree;
    let mut h = sha2::Sha256::new();
    if let Some(e) = audit.entry(tree, "checks".into()).map_err(|e| e.to_string())?
        && e.kind == EntryKind::Tree
    {
        let mut files: Vec<_> = audit
            .tree_children(e.id)
            .map_err(|e| e.to_string())?
            .iter()
            .filter(|(n, k, _)| k.is_file() && n.ends_with(b".py"))
            .cloned()
            .collect();
        // Python sorts the pathlib glob by path string.
        files.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, _, id) in files {
            h.update(audit.blob(id).map_err(|e| e.to_string())?);
        }
    }
    Ok(Digest(h.finalize().into()))
}

fn constitution_checks(
    ctx: &Ctx<'_>,
    audit: &Repo,
    r: &Receipt,
    cycle: &Cycle,
    verified_at: ObjectId,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) -> Option<Constitution> {
    let subject = cycle.path.as_str();
    let path = match r.family {
        Family::V1 => "AUDIT_RULES.md",
        Family::Schema2 => r.constitution_path.as_str(),
    };
    let syntax = match r.family {
        Family::V1 => Syntax::V1,
        Family::Schema2 => Syntax::Product,
    };
    let at_commit = verified_at.to_string();
    let mut fail = |out: &mut Vec<CheckResult>, msg: String| {
        failed.push(msg.clone());
        out.push(res(&CONSTITUTION_BINDING, Outcome::Failed, subject, msg).with("auditCommit", at_commit.clone()));
    };
    let commit = r.constitution_commit.as_deref()?;
    if commit.is_empty() || commit == "unversioned" {
        fail(
            out,
            format!(
                "receipt declares the constitution {}: the ledger must version {path}",
                if commit.is_empty() { "with an empty commit" } else { "unversioned" }
            ),
        );
        return None;
    }
    let history_ok = ctx.ledger.history.is_ok();
    let bytes = match audit.file_at(verified_at, path) {
        Ok(Some(b)) => b,
        Ok(None) => {
            fail(out, format!("constitution {path} missing from the audit tree at {}", short(&at_commit)));
            return None;
        }
        Err(e) => {
            out.push(res(&CONSTITUTION_BINDING, Outcome::CantTell, subject, e.to_string()));
            return None;
        }
    };
    let last = if history_ok {
        audit.last_change_memo(verified_at, path, ctx.last_change).map_err(|e| e.to_string())
    } else {
        Err(ctx.ledger.history.as_ref().err().cloned().unwrap_or_default())
    };
    let mut problems = Vec::new();
    if r.family == Family::Schema2
        && let Some(want) = &r.constitution_sha256
    {
        let got = Digest::of(&bytes).hex();
        if got != *want {
            problems.push(format!(
                "constitution content differs from the receipt's hash: {path} at {} hashes to {}, receipt binds {}",
                short(&at_commit),
                short(&got),
                short(want)
            ));
        }
    }
    match &last {
        Ok(Some(c)) if *c == commit => {}
        Ok(Some(c)) => problems.push(format!(
            "constitution commit {} is not the last change of {path} at audit commit {} (that is {})",
            short(commit),
            short(&at_commit),
            short(&c.to_string())
        )),
        Ok(None) => problems.push(format!("cannot resolve the constitution commit of {path} at {}", short(&at_commit))),
        Err(e) => out.push(res(
            &CONSTITUTION_BINDING,
            Outcome::CantTell,
            subject,
            format!("the constitution commit needs full audit history: {e}"),
        )),
    }
    if problems.is_empty() && last.is_ok() {
        out.push(
            res(
                &CONSTITUTION_BINDING,
                Outcome::Passed,
                subject,
                format!("{path} at audit commit {} is the bound version {}", short(&at_commit), short(commit)),
            )
            .with("auditCommit", at_commit.clone()),
        );
    }
    for p in problems {
        fail(out, p);
    }
    // The version in force: v1 binds a commit (read the file there); schema 2 verified the
    // bytes above.
    let text = match r.family {
        Family::V1 => ObjectId::from_hex(commit.as_bytes())
            .ok()
            .and_then(|c| audit.file_at(c, path).ok().flatten())
            .unwrap_or(bytes),
        Family::Schema2 => bytes,
    };
    Some(Constitution::parse(&String::from_utf8_lossy(&text), syntax))
}

fn report_commit_check(
    ctx: &Ctx<'_>,
    audit: &Repo,
    r: &Receipt,
    cycle: &Cycle,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
    let subject = cycle.path.as_str();
    let added = cycle.report_added_in;
    match r.family {
        Family::V1 => {
            out.push(match added {
                Some(c) => res(
                    &REPORT_COMMIT_BINDING,
                    Outcome::Passed,
                    subject,
                    format!(
                        "not bound by a v1 receipt; the ledger history shows report.md added in {}",
                        short(&c.to_string())
                    ),
                )
                .with("reportCommit", c.to_string()),
                None => res(
                    &REPORT_COMMIT_BINDING,
                    Outcome::CantTell,
                    subject,
                    "not bound by a v1 receipt, and the ledger history is unavailable",
                ),
            });
        }
        Family::Schema2 => {
            let Some(rc) = r.report_commit.as_deref() else { return };
            let mut fail = |msg: String| {
                failed.push(msg.clone());
                out.push(res(&REPORT_COMMIT_BINDING, Outcome::Failed, subject, msg));
            };
            if rc.is_empty() && cycle.unrecorded {
                out.push(res(
                    &REPORT_COMMIT_BINDING,
                    Outcome::Inapplicable,
                    subject,
                    "the receipt is not recorded in the ledger (CV-A715): its report has no ledger commit to bind",
                ));
                return;
            }
            if rc.is_empty() {
                fail("ledger.report_commit is empty: the report's ledger commit is not bound".into());
                return;
            }
            let Ok(id) = ObjectId::from_hex(rc.as_bytes()) else {
                fail(format!("ledger.report_commit {rc:?} is not a commit id"));
                return;
            };
            if !audit.has(id) {
                match audit.shallow_hint() {
                    Some(hint) => out.push(res(
                        &REPORT_COMMIT_BINDING,
                        Outcome::CantTell,
                        subject,
                        format!("report commit {} is not in the audit repository, but {hint}", short(rc)),
                    )),
                    None => fail("report commit named by the receipt is not in the audit repo".into()),
                }
                return;
            }
            match audit.is_ancestor(id, ctx.ledger.audit_head) {
                Ok(true) => {}
                Ok(false) => {
                    fail("report commit is not an ancestor of the audit head".into());
                    return;
                }
                Err(e) => {
                    out.push(res(&REPORT_COMMIT_BINDING, Outcome::CantTell, subject, e.to_string()));
                    return;
                }
            }
            if let Some(a) = added
                && a != id
            {
                fail(format!("report.md was added in {}, the receipt names {}", short(&a.to_string()), short(rc)));
                return;
            }
            let held = audit.file_at(id, &cycle.file("report.md")).ok().flatten().map(|b| Digest::of(&b).hex());
            match (held, &r.report_sha256) {
                (Some(d), Some(want)) if d == *want => {
                    out.push(res(
                        &REPORT_COMMIT_BINDING,
                        Outcome::Passed,
                        subject,
                        format!("report commit {} added report.md with the bound hash", short(rc)),
                    ));
                }
                (Some(_), _) => fail(format!("report commit {} holds a different report.md", short(rc))),
                (None, _) => fail(format!("report commit {} does not hold {}", short(rc), cycle.file("report.md"))),
            }
        }
    }
}

#[allow(clippy::too_many_lines)]
fn content_checks(
    r: &Receipt,
    cycle: &Cycle,
    report: Option<&super::report_md::Report>,
    con: Option<&Constitution>,
    out: &mut Vec<CheckResult>,
    facts: &mut CycleFacts,
) {
    let subject = cycle.path.as_str();
    let verdict = r.verdict.clone().unwrap_or_default();
    let dcl = cycle.dcl.as_ref().and_then(|d| d.as_ref().ok());
    let exchange = cycle.exchange.as_ref().and_then(|e| e.as_ref().ok());

    // I4: the deterministic layer.
    let dcl_blockers = dcl.map(super::dcl::Output::blockers);
    let report_dcl_blockers = report.map(|rep| rep.dcl_blocks.iter().filter(|b| b.severity == "BLOCKER").count());
    let blockers = dcl_blockers.unwrap_or(0).max(report_dcl_blockers.unwrap_or(0));
    let mut inconsistencies = dcl.map(super::dcl::Output::inconsistencies).unwrap_or_default();
    if let (Some(d), Some(rep)) = (dcl, report) {
        if let Some(n) = rep.dcl_failures
            && n != d.total_hard_failures
        {
            inconsistencies.push(format!("report shows {n} hard failure(s), checks.json {}", d.total_hard_failures));
        }
        if rep.dcl_blocks.len() != d.findings.len() && r.family == Family::Schema2 {
            inconsistencies.push(format!(
                "report lists {} deterministic finding(s), checks.json {}",
                rep.dcl_blocks.len(),
                d.findings.len()
            ));
        }
        if let Some(embedded) = &rep.embedded_dcl {
            match crate::json::parse(embedded.as_bytes()) {
                Ok(v) => {
                    let file = cycle.dcl.as_ref().and_then(|x| x.as_ref().ok()).map(|_| ());
                    let _ = file;
                    if let Ok(parsed) = super::dcl::parse(&v)
                        && parsed != *d
                    {
                        inconsistencies.push("the DCL output embedded in report.md differs from checks.json".into());
                    }
                }
                Err(e) => inconsistencies.push(format!("the DCL output embedded in report.md does not parse: {e}")),
            }
        }
    }
    if dcl.is_some() || report.is_some() {
        out.push(if inconsistencies.is_empty() {
            res(&DCL_CONSISTENT, Outcome::Passed, subject, "checks.json is consistent and agrees with the report")
        } else {
            res(&DCL_CONSISTENT, Outcome::Failed, subject, inconsistencies.join("; "))
        });
    }
    if dcl.is_some() || report.is_some() {
        out.push(if blockers > 0 && (verdict == "PASS" || verdict == "DCL_ONLY") {
            res(
                &DCL_DOMINATES,
                Outcome::Failed,
                subject,
                format!("verdict {verdict} over {blockers} deterministic hard failure(s)"),
            )
        } else if blockers > 0 {
            res(
                &DCL_DOMINATES,
                Outcome::Passed,
                subject,
                format!("{blockers} deterministic hard failure(s) are not outranked (verdict {verdict})"),
            )
        } else {
            res(&DCL_DOMINATES, Outcome::Passed, subject, "no deterministic hard failure to outrank")
        });
    }

    // Model findings and the reply.
    let raw_reply = exchange.and_then(|e| e.get("raw_reply")).filter(|v| !v.is_null());
    let mut findings: Vec<(String, String, String)> = Vec::new(); // severity, rule, observation
    let mut applied: Option<Vec<String>> = None;
    if let Some(reply) = raw_reply {
        for f in reply.get("findings").and_then(crate::json::Value::as_array).unwrap_or(&[]) {
            let s = |k: &str| f.get(k).and_then(crate::json::Value::as_str).unwrap_or("").to_owned();
            findings.push((s("severity"), s("rule"), s("observation")));
        }
        applied = reply
            .get("sections_applied")
            .and_then(crate::json::Value::as_array)
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect());
    } else if let Some(rep) = report {
        findings =
            rep.model_findings.iter().map(|b| (b.severity.clone(), b.rule.clone(), b.observation.clone())).collect();
        applied.clone_from(&rep.rules_applied);
    }
    facts.model_findings = findings.iter().map(|(s, rule, _)| (s.clone(), rule.clone())).collect();
    let report_invalid = report.and_then(|rep| rep.invalid_reason.clone());
    let exchange_invalid =
        exchange.and_then(|e| e.get("invalid_reason")).and_then(crate::json::Value::as_str).map(str::to_owned);
    let integrity_invalid = matches!(
        r.integrity.as_deref(),
        Some("AUDITOR_INVALID_ESCALATION_REQUIRED" | "INVALID_REPLY" | "PROVIDER_FAILURE")
    );
    // Both references' reply validators refuse a severity outside BLOCKER/ADVISORY (formats
    // §5.9 rule 6), so a recorded model finding graded otherwise stands for a reply that was
    // invalid and escalates, not for a warning.
    let off_vocabulary = findings.iter().any(|f| f.0 != "BLOCKER" && f.0 != "ADVISORY");
    let recorded_invalid = integrity_invalid || report_invalid.is_some() || exchange_invalid.is_some();
    let invalid = recorded_invalid || off_vocabulary;
    integrity_check(r, report_invalid.as_deref().or(exchange_invalid.as_deref()), blockers, subject, out);
    let offline = match r.family {
        Family::V1 => {
            exchange.is_some_and(|e| e.get("endpoint").is_some_and(crate::json::Value::is_null) && !invalid)
                || r.auditor_model.as_deref() == Some("offline-stub")
        }
        Family::Schema2 => {
            (r.exchange_mode.as_deref() == Some("none") && !r.exchange_error && !invalid)
                || report.is_some_and(|rep| rep.offline)
        }
    };
    let model_blockers = findings.iter().filter(|f| f.0 == "BLOCKER").count();
    facts.blockers = blockers + model_blockers;
    facts.inputs = Inputs {
        lock: false,
        invalid,
        dcl_failures: blockers,
        bound: r.bounds_exceeded.unwrap_or(0) > 0 || r.integrity.as_deref() == Some("BOUNDS_EXCEEDED"),
        reply: raw_reply.and_then(|x| x.get("verdict")).and_then(crate::json::Value::as_str).map(str::to_owned),
        offline,
    };

    // I3: citation validity, only for a reply that was accepted as valid.
    let model_ran = !offline && !recorded_invalid;
    if model_ran {
        match con {
            Some(con) => {
                let mut problems = Vec::new();
                match &applied {
                    Some(a) if !a.is_empty() => {
                        let unknown: Vec<&String> = a.iter().filter(|id| !con.has(id)).collect();
                        if !unknown.is_empty() {
                            problems.push(format!("sections_applied cites rules not in the Constitution: {unknown:?}"));
                        }
                    }
                    Some(_) => problems.push("no sections_applied: report cites no rule coverage (CA-META-002)".into()),
                    None => problems.push(
                        "the records keep no list of the rules applied (sections_applied / \"Rules applied\")".into(),
                    ),
                }
                for (_, rule, _) in &findings {
                    if !con.has(rule) {
                        problems.push(format!("finding cites a rule not in the Constitution: {rule}"));
                    }
                }
                out.push(if problems.is_empty() {
                    res(
                        &CITATIONS_VALID,
                        Outcome::Passed,
                        subject,
                        format!(
                            "{} applied rule(s) and {} finding citation(s) exist in the Constitution in force",
                            applied.as_ref().map_or(0, Vec::len),
                            findings.len()
                        ),
                    )
                } else {
                    res(&CITATIONS_VALID, Outcome::Failed, subject, problems.join("; "))
                });
                let bad: Vec<String> = findings
                    .iter()
                    .filter(|(s, rule, _)| {
                        s == "BLOCKER" && con.has(rule) && con.severity(rule) != Some(&Severity::Blocker)
                    })
                    .map(|(_, rule, _)| {
                        format!(
                            "{rule} ({})",
                            match con.severity(rule) {
                                Some(Severity::Advisory) => "ADVISORY".to_owned(),
                                Some(Severity::Other(s)) => s.clone(),
                                _ => "no severity".to_owned(),
                            }
                        )
                    })
                    .collect();
                out.push(if bad.is_empty() {
                    res(
                        &BLOCKER_CITES_BLOCKER,
                        Outcome::Passed,
                        subject,
                        "every BLOCKER finding cites a BLOCKER-severity rule",
                    )
                } else {
                    res(
                        &BLOCKER_CITES_BLOCKER,
                        Outcome::Failed,
                        subject,
                        format!("BLOCKER finding(s) citing a rule not declared BLOCKER: {}", bad.join(", ")),
                    )
                });
            }
            None => {
                out.push(res(
                    &CITATIONS_VALID,
                    Outcome::CantTell,
                    subject,
                    "the Constitution version in force could not be read",
                ));
                out.push(res(
                    &BLOCKER_CITES_BLOCKER,
                    Outcome::CantTell,
                    subject,
                    "the Constitution version in force could not be read",
                ));
            }
        }
        let empty: Vec<&(String, String, String)> = findings.iter().filter(|f| f.2.trim().is_empty()).collect();
        out.push(if empty.is_empty() {
            res(&FINDING_EVIDENCED, Outcome::Passed, subject, "every model finding carries an observation")
        } else {
            res(
                &FINDING_EVIDENCED,
                Outcome::Failed,
                subject,
                format!(
                    "finding carries no observation: a citation without evidence ({})",
                    empty.iter().map(|f| f.1.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )
        });
    } else {
        let why = if offline { "no model ran" } else { "the reply was invalid and escalates" };
        for c in [&CITATIONS_VALID, &BLOCKER_CITES_BLOCKER, &FINDING_EVIDENCED] {
            out.push(res(c, Outcome::Inapplicable, subject, why));
        }
    }
    // Constitution version cited by the report.
    if let (Some(rep), Some(commit)) = (report, &r.constitution_commit) {
        let cited = rep.constitution.clone().unwrap_or_default();
        let ok = match r.family {
            Family::V1 => cited == *commit && rep.constitution_path.as_deref().is_none_or(|p| p == "AUDIT_RULES.md"),
            Family::Schema2 => cited.len() == 12 && commit.starts_with(&cited),
        };
        out.push(if commit == "unversioned" || commit.is_empty() {
            res(&CONSTITUTION_CITED, Outcome::Failed, subject, "the report cites an unversioned Constitution")
        } else if ok {
            res(
                &CONSTITUTION_CITED,
                Outcome::Passed,
                subject,
                format!("the report cites Constitution {}", short(commit)),
            )
        } else if cited.is_empty() {
            res(&CONSTITUTION_CITED, Outcome::Failed, subject, "the report cites no Constitution version")
        } else {
            res(
                &CONSTITUTION_CITED,
                Outcome::Failed,
                subject,
                format!("report cites constitution `{cited}`, receipt binds {}", short(commit)),
            )
        });
    }
    // I3 / I6 on the recorded verdict and findings.
    let all_blockers = blockers + model_blockers;
    out.push(if verdict == "PASS" && all_blockers > 0 {
        res(
            &PASS_WITH_BLOCKER,
            Outcome::Failed,
            subject,
            format!("verdict PASS while carrying {all_blockers} BLOCKER finding(s)"),
        )
    } else {
        res(
            &PASS_WITH_BLOCKER,
            Outcome::Passed,
            subject,
            if verdict == "PASS" { "PASS carries no BLOCKER finding" } else { "not a PASS" },
        )
    });
    out.push(if verdict == "BLOCKED" && all_blockers == 0 {
        let advisories = findings.iter().filter(|f| f.0 == "ADVISORY").count();
        res(
            &ADVISORY_NEVER_GATES,
            Outcome::Failed,
            subject,
            format!("verdict BLOCKED without any BLOCKER finding ({advisories} ADVISORY)"),
        )
    } else {
        res(
            &ADVISORY_NEVER_GATES,
            Outcome::Passed,
            subject,
            if verdict == "BLOCKED" { "BLOCKED rests on a BLOCKER finding" } else { "not BLOCKED" },
        )
    });
    let mut odd: Vec<String> = findings.iter().map(|f| f.0.clone()).collect();
    odd.extend(dcl.map(|d| d.findings.iter().map(|f| f.severity.clone()).collect::<Vec<_>>()).unwrap_or_default());
    odd.retain(|s| s != "BLOCKER" && s != "ADVISORY");
    odd.sort();
    odd.dedup();
    out.push(if odd.is_empty() {
        res(&SEVERITY_LEVELS, Outcome::Passed, subject, "findings use BLOCKER and ADVISORY only")
    } else {
        res(
            &SEVERITY_LEVELS,
            Outcome::Failed,
            subject,
            format!(
                "severities outside the two levels: {}{}",
                odd.join(", "),
                if off_vocabulary {
                    "; a reply grading a finding so is invalid (reply rule 6) and escalates: CV-A304 replays it"
                } else {
                    ""
                }
            ),
        )
    });
}

/// The product's report row is exactly `` `<provider>:<model>` (vendor <vendor>; effort
/// <effort>) `` (`render_report`, product 4.14 `auditor/run.py`); each part must equal the
/// receipt's own declaration, not merely occur somewhere in the row.
fn auditor_row_problems(r: &Receipt, row: &str) -> Vec<String> {
    let (p, m, v) = (
        r.provider.as_deref().unwrap_or_default(),
        r.auditor_model.as_deref().unwrap_or_default(),
        r.auditor_vendor.as_deref().unwrap_or_default(),
    );
    let parsed = row.strip_prefix('`').and_then(|rest| rest.split_once("` (")).and_then(|(id, tail)| {
        let inner = tail.strip_suffix(')')?;
        let (vendor, effort) = match inner.split_once("; effort ") {
            Some((vv, e)) => (vv, Some(e)),
            None => (inner, None),
        };
        Some((id, vendor.strip_prefix("vendor ")?, effort))
    });
    let Some((id, vendor, effort)) = parsed else {
        return vec![format!("the report's auditor row {row:?} is not `provider:model` (vendor …; effort …)")];
    };
    let mut out = Vec::new();
    if id != format!("{p}:{m}") {
        out.push(format!("receipt auditor {p}:{m} but the report's auditor row names {id}"));
    }
    if vendor != v {
        out.push(format!("receipt auditor vendor {v:?} but the report's auditor row says vendor {vendor:?}"));
    }
    match (effort, r.reasoning_effort.as_deref()) {
        (Some(e), Some(want)) if e != want => {
            out.push(format!("receipt reasoning effort {want:?} but the report's auditor row says effort {e:?}"))
        }
        (Some(e), None) if r.v4 => out.push(format!("the report's auditor row says effort {e:?}, the receipt none")),
        (None, Some(want)) => {
            out.push(format!("receipt reasoning effort {want:?} but the report's auditor row states none"))
        }
        _ => {}
    }
    out
}

fn norm_vendor(v: &str) -> String {
    v.trim().to_lowercase()
}

fn identity_checks(
    ledger: &Ledger,
    r: &Receipt,
    cycle: &Cycle,
    report: Option<&super::report_md::Report>,
    config: Option<&Result<Config, String>>,
    out: &mut Vec<CheckResult>,
    facts: &mut CycleFacts,
) {
    let subject = cycle.path.as_str();
    match config {
        Some(Ok(cfg)) => {
            facts.max_rounds = Some(cfg.max_rounds());
            facts.max_rounds_default = cfg.max_rounds.is_none();
            let (g, a) = (cfg.generator_vendor.as_deref(), cfg.auditor_vendor.as_deref());
            match (g, a) {
                (Some(g), Some(a)) => {
                    let (same, rule) = match r.family {
                        Family::V1 => (g == a, "exact string comparison (v1)"),
                        Family::Schema2 => {
                            let mut gs: BTreeSet<String> =
                                cfg.generator_fallbacks.iter().map(|v| norm_vendor(v)).collect();
                            gs.insert(norm_vendor(g));
                            let mut as_: BTreeSet<String> =
                                cfg.auditor_fallbacks.iter().map(|v| norm_vendor(v)).collect();
                            as_.insert(norm_vendor(a));
                            (!gs.is_disjoint(&as_), "trimmed, lower-cased vendor pools with fallbacks (product)")
                        }
                    };
                    // The paper's I1 is about model families; normalising is the stricter reading.
                    let strict_same = norm_vendor(g) == norm_vendor(a);
                    out.push(if same || strict_same {
                        res(
                            &VENDOR_HETEROGENEITY,
                            Outcome::Failed,
                            subject,
                            format!("generator vendor {g:?} and auditor vendor {a:?} are the same ({rule})"),
                        )
                        .with("rule", rule)
                    } else {
                        res(
                            &VENDOR_HETEROGENEITY,
                            Outcome::Passed,
                            subject,
                            format!("generator {g} ≠ auditor {a} ({rule})"),
                        )
                        .with("rule", rule)
                    });
                    if let Some(iso) = &r.isolation
                        && iso.dims.get("parametric") == Some(&true)
                        && (same || strict_same)
                    {
                        out.push(res(
                            &VENDOR_HETEROGENEITY,
                            Outcome::Failed,
                            subject,
                            "isolation.parametric claims heterogeneity the configuration does not support",
                        ));
                    }
                }
                (None, _) => out.push(res(
                    &VENDOR_HETEROGENEITY,
                    Outcome::CantTell,
                    subject,
                    "crossaudit.yml declares no generator vendor: I1 cannot be asserted",
                )),
                (_, None) => out.push(res(
                    &VENDOR_HETEROGENEITY,
                    Outcome::CantTell,
                    subject,
                    "crossaudit.yml declares no auditor vendor",
                )),
            }
            if r.family == Family::Schema2 {
                let isolation_min: Vec<String> = cfg
                    .isolation_minimum
                    .iter()
                    .filter(|(_, req)| **req)
                    .filter(|(dim, _)| r.isolation.as_ref().and_then(|i| i.dims.get(*dim)) != Some(&true))
                    .map(|(d, _)| d.clone())
                    .collect();
                facts.isolation_shortfall = isolation_min;
            }
        }
        Some(Err(e)) => {
            out.push(res(&RECORD_PARSES, Outcome::Failed, subject, e.clone()));
            out.push(res(&VENDOR_HETEROGENEITY, Outcome::CantTell, subject, "crossaudit.yml could not be read"));
        }
        None => {
            let why = if ledger.science.is_none() && r.family == Family::V1 {
                "no science repository given: crossaudit.yml lives there"
            } else {
                "no crossaudit.yml where the dialect keeps it"
            };
            out.push(res(&VENDOR_HETEROGENEITY, Outcome::CantTell, subject, why));
        }
    }
    // Auditor identity agreement.
    let mut problems = Vec::new();
    match r.family {
        Family::V1 => {
            let model = r.auditor_model.clone().unwrap_or_default();
            if let Some(row) = report.and_then(|rep| rep.auditor.clone()) {
                let ok = row == model
                    || (model == "offline-stub" && row.starts_with("offline stub"))
                    || (row == "unset" && model.is_empty());
                if !ok {
                    problems.push(format!("receipt auditor_model {model:?} but the report's Auditor row says {row:?}"));
                }
            }
            if let Some(Ok(ex)) = &cycle.exchange
                && let Some(m) = ex.get("model").and_then(crate::json::Value::as_str)
                && m != model
            {
                problems.push(format!("raw_exchange.json model {m:?} differs from the receipt's {model:?}"));
            }
        }
        Family::Schema2 => {
            let (p, m, v) = (
                r.provider.clone().unwrap_or_default(),
                r.auditor_model.clone().unwrap_or_default(),
                r.auditor_vendor.clone().unwrap_or_default(),
            );
            if let Some(iso) = &r.isolation
                && let Some(ip) = iso.evidence.get("provider")
                && *ip != format!("{p}:{m}")
            {
                problems.push(format!("isolation.provider {ip:?} is not {p}:{m}"));
            }
            if let Some(row) = report.and_then(|rep| rep.auditor.clone()) {
                problems.extend(auditor_row_problems(r, &row));
            }
            for (k, want) in [("provider", &p), ("model", &m), ("vendor", &v)] {
                if let Some(x) = r.exchange_identity.get(k)
                    && x != want
                {
                    problems.push(format!("audit.exchange.{k} {x:?} differs from audit.{k} {want:?}"));
                }
            }
            if let (Some(x), Some(want)) = (r.exchange_identity.get("reasoning_effort"), &r.reasoning_effort)
                && x != want
            {
                problems.push(format!(
                    "audit.exchange.reasoning_effort {x:?} differs from audit.reasoning_effort {want:?}"
                ));
            }
            if let Some(Ok(cfg)) = config {
                let allowed: BTreeSet<String> =
                    cfg.auditor_vendor.iter().chain(&cfg.auditor_fallbacks).map(|x| norm_vendor(x)).collect();
                if !allowed.is_empty() && !allowed.contains(&norm_vendor(&v)) {
                    problems.push(format!(
                        "receipt auditor vendor {v:?} is not the configured auditor vendor or a fallback"
                    ));
                }
            }
        }
    }
    out.push(if problems.is_empty() {
        res(
            &AUDITOR_IDENTITY,
            Outcome::Passed,
            subject,
            "the declared auditor agrees across receipt, report and configuration",
        )
    } else {
        res(&AUDITOR_IDENTITY, Outcome::Failed, subject, problems.join("; "))
    });
    if let Some(iso) = &r.isolation {
        let mut p = Vec::new();
        if iso.dims.get("contextual") != Some(&true) {
            p.push("isolation.contextual is not true".to_owned());
        }
        let exec = iso.evidence.get("execution").map(String::as_str);
        if iso.dims.get("permissive") == Some(&true) && exec == Some("local") {
            p.push("isolation.permissive is true but execution is local".into());
        }
        if let Some(Ok(cfg)) = config
            && r.family == Family::Schema2
            && let Some(claimed) = iso.dims.get("parametric")
            && *claimed != parametric_from(cfg)
        {
            p.push(format!(
                "isolation.parametric is {claimed} but the configuration's vendor pools give {} (product config.heterogeneity)",
                parametric_from(cfg)
            ));
        }
        let local_repo = r.audit_repo.as_deref() == Some("local");
        if exec.is_some() && (exec == Some("local")) != local_repo {
            p.push(format!(
                "execution {:?} but ledger.audit_repo {:?}",
                exec.unwrap_or(""),
                r.audit_repo.as_deref().unwrap_or("")
            ));
        }
        for (k, allowed) in [
            ("credential", &["auditor-only", "shared-process"][..]),
            ("provisioner", &["cli"][..]),
            ("admission", &["local-controller"][..]),
            ("execution", &["local", "github-pair"][..]),
        ] {
            if let Some(v) = iso.evidence.get(k)
                && !allowed.contains(&v.as_str())
            {
                p.push(format!("isolation.{k} {v:?} is not a value the product writes"));
            }
        }
        out.push(if p.is_empty() {
            res(&ISOLATION_EVIDENCE, Outcome::Passed, subject, "isolation claims agree with their evidence")
        } else {
            res(&ISOLATION_EVIDENCE, Outcome::Failed, subject, p.join("; "))
        });
    } else if r.family == Family::V1 {
        out.push(res(&ISOLATION_EVIDENCE, Outcome::Inapplicable, subject, "v1 receipts carry no isolation block"));
    }
}

/// CV-A718: the receipt is one the product's builder could have written from the rest of the
/// record: every field it always writes is there, derived fields agree with their sources, and
/// the check list and route agree with the configuration the round ran under.
fn derivation_check(
    r: &Receipt,
    subject: &str,
    config: Option<&Result<Config, String>>,
    out: &mut Vec<CheckResult>,
    binding_failed: &mut Vec<String>,
) {
    if r.family != Family::Schema2 {
        out.push(res(
            &RECEIPT_DERIVED,
            Outcome::Inapplicable,
            subject,
            "v1 receipts are written by the runner, not the product's builder",
        ));
        return;
    }
    let mut p = r.derivation.clone();
    match config {
        Some(Ok(cfg)) => p.extend(super::derive::config_problems(r.inputs_checks.as_deref(), r.audit_fallback, r, cfg)),
        _ => {
            if p.is_empty() {
                out.push(res(
                    &RECEIPT_DERIVED,
                    Outcome::CantTell,
                    subject,
                    "no readable crossaudit.yml: the check list and the auditor route cannot be compared",
                ));
                return;
            }
        }
    }
    if p.is_empty() {
        out.push(res(
            &RECEIPT_DERIVED,
            Outcome::Passed,
            subject,
            "every field the product's builder writes is present and agrees with what it is derived from",
        ));
    } else {
        binding_failed.push(format!("CV-A718: {}", p.join("; ")));
        out.push(res(&RECEIPT_DERIVED, Outcome::Failed, subject, p.join("; ")));
    }
}

/// `isolation.parametric` as the product computes it (4.14 `config.heterogeneity`): a declared
/// generator vendor whose recovery pool is disjoint from the auditor's.
fn parametric_from(cfg: &Config) -> bool {
    let Some(g) = &cfg.generator_vendor else { return false };
    let gs: BTreeSet<String> = cfg.generator_fallbacks.iter().chain([g]).map(|v| norm_vendor(v)).collect();
    let as_: BTreeSet<String> =
        cfg.auditor_fallbacks.iter().chain(cfg.auditor_vendor.iter()).map(|v| norm_vendor(v)).collect();
    gs.is_disjoint(&as_)
}

//! I7, binding: a verdict binds commit, manifest and versions, or it is not a receipt
//! (`CV-A7xx`). Every failure here is a binding failure, and admission (I8) needs none.

use std::collections::{BTreeMap, BTreeSet};

use super::check_i1_vendors::norm_vendor;
use super::check_i3_citations::report_form;
use super::checks::*;
use super::config::Config;
use super::constitution::{Constitution, Syntax};
use super::load::{Cycle, Ledger};
use super::receipt::{Family, Receipt};
use super::scope::{self, Expect, Selection};
use super::verify::Parsed;
use super::verify::{Ctx, at, res, short};
use crate::checks::Check;
use crate::git::{EntryKind, ObjectId, Repo};
use crate::manifest::Digest;
use crate::report::{CheckResult, Outcome};

/// Whether a receipt's verdict binds commit, manifest and versions (I7). Only [`bind`] marks a
/// receipt verified; a later stage may add a failure, never remove one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Binding {
    verified: bool,
    failures: Vec<String>,
}

impl Binding {
    /// Verified by the binding checks, and no stage has found a failure since.
    pub(crate) fn is_bound(&self) -> bool {
        self.verified && self.failures.is_empty()
    }

    /// Why the receipt is not bound, first failure first.
    pub(crate) fn failures(&self) -> &[String] {
        &self.failures
    }

    /// A later stage found the receipt does not bind what it claims.
    pub(crate) fn fail(&mut self, why: String) {
        self.failures.push(why);
    }
}

/// Stage two: a receipt after every binding check, with what those checks read on the way.
pub(crate) struct Bound {
    pub(crate) receipt: Receipt,
    pub(crate) binding: Binding,
    pub(crate) config: Option<Result<Config, String>>,
    pub(crate) constitution: Option<Constitution>,
}

/// Every I7 check of one parsed receipt: the only way to a [`Bound`] receipt.
pub(super) fn bind(
    ctx: &Ctx<'_>,
    audit: &Repo,
    science: Option<&Repo>,
    cycle: &Cycle,
    parsed: Parsed,
    buf: &mut Vec<u8>,
    out: &mut Vec<CheckResult>,
) -> Bound {
    let ledger = ctx.ledger;
    let subject = cycle.path.as_str();
    let receipt = parsed.receipt;
    let mut binding_failed: Vec<String> = receipt.problems.clone();
    let verified_at = cycle.added_in.map_or(ledger.audit_head, |a| a.0);
    cycle_dir_binding(&receipt, cycle, out, &mut binding_failed);

    // Science side: subject and manifest.
    let prepared = prepare(ledger, science, audit, cycle, &receipt);
    let prep = prepared.as_ref();
    let config = prep.and_then(|p| p.config.clone());
    science_checks(ctx, &receipt, prep, science, buf, subject, out, &mut binding_failed);
    extent_checks(&receipt, prep, subject, out, &mut binding_failed);
    report_binding(&receipt, cycle, out, &mut binding_failed);
    if let Some((_, rep)) = &cycle.report {
        report_form(rep, subject, out, &mut binding_failed);
    }

    // Constitution binding and the version in force.
    let constitution = constitution_checks(ctx, audit, &receipt, cycle, verified_at, out, &mut binding_failed);
    dcl_source(audit, &receipt, verified_at, subject, out, &mut binding_failed);

    // Report commit (schema 2) / the ledger commit of the report (v1).
    report_commit_check(ctx, audit, &receipt, cycle, out, &mut binding_failed);
    derivation_check(&receipt, subject, config.as_ref(), out, &mut binding_failed);
    Bound { receipt, binding: Binding { verified: true, failures: binding_failed }, config, constitution }
}

/// Science-side facts gathered before hashing (phase A).
pub(super) struct Prepared {
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

pub(super) fn read_config(repo: &Repo, commit: ObjectId, family: Family) -> Option<Result<Config, String>> {
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
pub(super) fn prepare(
    ledger: &Ledger,
    science: Option<&Repo>,
    audit: &Repo,
    cycle: &Cycle,
    r: &Receipt,
) -> Option<Prepared> {
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
pub(super) fn trusted_config(
    ledger: &Ledger,
    repo: &Repo,
    id: ObjectId,
    paired: Option<&Result<Config, String>>,
) -> Config {
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
pub(super) fn lookup(
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

/// CV-A709: the receipt lives in the cycle directory it names.
pub(super) fn cycle_dir_binding(
    receipt: &Receipt,
    cycle: &Cycle,
    out: &mut Vec<CheckResult>,
    binding_failed: &mut Vec<String>,
) {
    let subject = cycle.path.as_str();
    let dir_ok = cycle_dir_problems(receipt, cycle);
    if dir_ok.is_empty() {
        out.push(res(&CYCLE_DIR_BINDING, Outcome::Passed, subject, "the receipt lives in its cycle directory"));
    } else {
        for p in dir_ok {
            binding_failed.push(p.clone());
            out.push(at(cycle, res(&CYCLE_DIR_BINDING, Outcome::Failed, subject, p), "receipt.json"));
        }
    }
}

/// CV-A705 and CV-A711: the bound report's bytes, and its verdict, round and commit.
pub(super) fn report_binding(
    receipt: &Receipt,
    cycle: &Cycle,
    out: &mut Vec<CheckResult>,
    binding_failed: &mut Vec<String>,
) {
    let subject = cycle.path.as_str();
    match (&cycle.report, &receipt.report_sha256) {
        (Some((d, _)), Some(want)) if d.hex() == *want => {
            out.push(res(&REPORT_BINDING, Outcome::Passed, subject, "report.md hashes to report_sha256"))
        }
        (Some((d, _)), Some(want)) => {
            binding_failed.push("report blob hash mismatch".into());
            out.push(at(
                cycle,
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
                out.push(at(cycle, res(&REPORT_AGREES, Outcome::Failed, subject, d), "report.md"));
            }
        }
    }
}

/// CV-A707 (v1 only: the DCL source the receipt binds) and CV-A708 (what no one can
/// re-derive).
pub(super) fn dcl_source(
    audit: &Repo,
    receipt: &Receipt,
    verified_at: ObjectId,
    subject: &str,
    out: &mut Vec<CheckResult>,
    binding_failed: &mut Vec<String>,
) {
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
}

pub(super) fn cycle_dir_problems(r: &Receipt, cycle: &Cycle) -> Vec<String> {
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

/// CV-A701: the audited commit and its tree; then the manifest against them.
#[allow(clippy::too_many_arguments)]
pub(super) fn science_checks(
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
    manifest_matches(ctx, r, manifest, prep, science, buf, subject, commit, out, failed);
    manifest_complete(prep, manifest, subject, out, failed);
}

/// CV-A702: every bound entry is the commit's git object.
#[allow(clippy::too_many_arguments)]
fn manifest_matches(
    ctx: &Ctx<'_>,
    r: &Receipt,
    manifest: &BTreeMap<String, String>,
    prep: &Prepared,
    science: Option<&Repo>,
    buf: &mut Vec<u8>,
    subject: &str,
    commit: ObjectId,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
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
}

/// CV-A703 and CV-A704: the manifest binds everything the dialect's own rule selects, and
/// every file of the increment's directories.
fn manifest_complete(
    prep: &Prepared,
    manifest: &BTreeMap<String, String>,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
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
pub(super) fn extent_checks(
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
        fail_paths(out, failed, c, subject, msg, ev);
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
    within_rule(r, manifest, prep, subject, out, failed);
}

/// A binding failure naming the paths it is about.
fn fail_paths(
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
    c: &Check,
    subject: &str,
    msg: String,
    ev: Vec<String>,
) {
    failed.push(msg.clone());
    out.push(res(c, Outcome::Failed, subject, msg).with("paths", ev));
}

/// CV-A717: every manifest entry lies within what the declared scope's rule selects.
fn within_rule(
    r: &Receipt,
    manifest: &BTreeMap<String, String>,
    prep: &Prepared,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
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
                fail_paths(
                    out,
                    failed,
                    &MANIFEST_WITHIN_RULE,
                    subject,
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
pub(super) fn integrity_check(
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
pub(super) fn truncated_match(repo: &Repo, id: ObjectId, want: &str) -> Option<String> {
    const LIMIT: usize = 524_288;
    let data = repo.blob(id).ok()?;
    (data.len() > LIMIT && Digest::of(&data[..LIMIT]).hex() == want)
        .then(|| format!(" — the bound digest covers only the first {LIMIT} bytes (the product's 512 KiB truncation): the rest of the file is unbound"))
}

pub(super) fn dcl_source_digest(audit: &Repo, commit: ObjectId) -> Result<Digest, String> {
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

pub(super) fn constitution_checks(
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

pub(super) fn report_commit_check(
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

/// CV-A718: the receipt is one the product's builder could have written from the rest of the
/// record: every field it always writes is there, derived fields agree with their sources, and
/// the check list and route agree with the configuration the round ran under.
pub(super) fn derivation_check(
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
pub(super) fn parametric_from(cfg: &Config) -> bool {
    let Some(g) = &cfg.generator_vendor else { return false };
    let gs: BTreeSet<String> = cfg.generator_fallbacks.iter().chain([g]).map(|v| norm_vendor(v)).collect();
    let as_: BTreeSet<String> =
        cfg.auditor_fallbacks.iter().chain(cfg.auditor_vendor.iter()).map(|v| norm_vendor(v)).collect();
    gs.is_disjoint(&as_)
}

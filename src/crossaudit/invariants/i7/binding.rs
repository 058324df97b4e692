//! I7, binding: a verdict binds commit, manifest and versions, or it is not a receipt
//! (`CV-A7xx`). Every failure here is a binding failure, and admission (I8) needs none.

use crate::crossaudit::checks::*;
use crate::crossaudit::invariants::i7::science::{Prepared, extent_checks, prepare, science_checks};
use crate::crossaudit::load::Cycle;
use crate::crossaudit::model::{Binding, Bound, Ctx, Parsed, Scratch, at, res, short};
use crate::crossaudit::records::config::Config;
use crate::crossaudit::records::constitution::{Constitution, Syntax};
use crate::crossaudit::records::receipt::{Family, Receipt};
use crate::git::{EntryKind, ObjectId, Repo};
use crate::manifest::Digest;
use crate::report::{CheckResult, Outcome};

/// Every I7 check of one parsed receipt: the only way to a [`Bound`] receipt.
pub(crate) fn bind(
    ctx: &Ctx<'_>,
    audit: &Repo,
    science: Option<&Repo>,
    cycle: &Cycle,
    parsed: Parsed,
    scratch: &mut Scratch,
    out: &mut Vec<CheckResult>,
) -> Bound {
    let ledger = ctx.ledger;
    let subject = cycle.path.as_str();
    let receipt = parsed.receipt;
    let mut binding_failed: Vec<String> = receipt.problems.clone();
    let (verified_at, placed) = constitution_point(ctx, audit, cycle, &receipt);
    cycle_dir_binding(&receipt, cycle, out, &mut binding_failed);

    // Science side: subject and manifest.
    let prepared = prepare(ledger, science, audit, cycle, &receipt, &mut scratch.selections);
    let prep = prepared.as_ref();
    let config = prep.and_then(|p| p.config.clone());
    science_checks(ctx, &receipt, prep, science, &mut scratch.buf, subject, out, &mut binding_failed);
    extent_checks(&receipt, prep, subject, out, &mut binding_failed);
    report_binding(&receipt, cycle, out, &mut binding_failed);
    if let Some((_, rep)) = &cycle.report {
        report_form(rep, subject, out, &mut binding_failed);
    }

    // Constitution binding and the version in force.
    let constitution =
        constitution_checks(ctx, audit, &receipt, cycle, (verified_at, placed), out, &mut binding_failed);
    dcl_source(audit, &receipt, verified_at, subject, out, &mut binding_failed);

    // Report commit (schema 2) / the ledger commit of the report (v1).
    report_commit_check(ctx, audit, &receipt, cycle, out, &mut binding_failed);
    derivation_check(&receipt, subject, config.as_ref(), out, &mut binding_failed);
    if let Some(Prepared { selection: Some(Ok(sel)), reusable: true, .. }) = prepared {
        scratch.selections.give_back(sel);
    }
    Bound { receipt, binding: Binding::verified(binding_failed), config, constitution }
}

/// The audit commit whose Constitution was in force for this receipt, and whether that point
/// is known. A committed receipt: the commit that added it (the audit's HEAD when it ran). One
/// not yet committed: the commit that added its cycle's report (the audit ran before it).
/// Without either, in local mode the audit ran between the audited commit and the head: the
/// receipt is judged at the version it binds when that is the audited commit's version or an
/// amendment since, else at the audited commit, so a later amendment never judges it (paper §6:
/// amendments take effect between cycles) and a version older than the audited commit's never
/// passes. Otherwise the head, where only the head's own version can be confirmed (`placed` is
/// false).
fn constitution_point(ctx: &Ctx<'_>, audit: &Repo, cycle: &Cycle, receipt: &Receipt) -> (ObjectId, bool) {
    let ledger = ctx.ledger;
    if let Some((added, _)) = cycle.added_in {
        return (added, true);
    }
    if let Some(added) = cycle.report_added_in {
        return (added, true);
    }
    let id = |s: Option<&str>| s.and_then(|s| ObjectId::from_hex(s.as_bytes()).ok());
    let Some(audited) = id(receipt.sha.as_deref()).filter(|c| ledger.local && audit.commit(*c).is_ok()) else {
        return (ledger.audit_head, false);
    };
    let path = match receipt.family {
        Family::V1 => "AUDIT_RULES.md",
        Family::Schema2 => receipt.constitution_path.as_str(),
    };
    let bound = id(receipt.constitution_commit.as_deref());
    let versions = versions_since(audit, audited, ledger.audit_head, path, ctx.last_change);
    match bound.filter(|b| versions.contains(b)) {
        Some(b) => (b, true),
        None => (audited, true),
    }
}

/// The commits that set `path`'s version in force from `start` to `head`: its last change at
/// `start`, and every change after it on the first-parent line up to `head` (an unreadable step
/// ends the list: fewer versions only make the check stricter).
fn versions_since(
    audit: &Repo,
    start: ObjectId,
    head: ObjectId,
    path: &str,
    memo: &crate::git::LastChangeMemo,
) -> Vec<ObjectId> {
    let Ok(Some(first)) = audit.last_change_memo(start, path, memo) else { return Vec::new() };
    let mut out = vec![first];
    let mut at = audit.last_change_memo(head, path, memo).ok().flatten();
    while let Some(c) = at.filter(|c| *c != first && !out.contains(c)) {
        out.push(c);
        at = audit
            .commit(c)
            .ok()
            .and_then(|commit| commit.parents.first().copied())
            .and_then(|p| audit.last_change_memo(p, path, memo).ok().flatten());
    }
    out
}

/// CV-A706 for a receipt whose audit cannot be placed in the ledger's history: the head's
/// Constitution differs from what it binds, but a later amendment is no reason to refuse it.
fn unplaced(subject: &str, problem: &str) -> CheckResult {
    res(
        &CONSTITUTION_BINDING,
        Outcome::CantTell,
        subject,
        format!(
            "{problem}; the receipt and its report are not committed and the audited commit is not in the ledger \
             repository, so the version in force when it was audited cannot be placed (verify it once its report or \
             the receipt is committed)"
        ),
    )
}

/// CV-A709: the receipt lives in the cycle directory it names.
fn cycle_dir_binding(receipt: &Receipt, cycle: &Cycle, out: &mut Vec<CheckResult>, binding_failed: &mut Vec<String>) {
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
fn report_binding(receipt: &Receipt, cycle: &Cycle, out: &mut Vec<CheckResult>, binding_failed: &mut Vec<String>) {
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
pub(crate) fn dcl_source(
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

/// CV-A716: an integrity of OK over a reply the records show invalid, or a failed call.
pub(crate) fn integrity_check(
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
    (verified_at, placed): (ObjectId, bool),
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
        Ok(None) if placed => {
            fail(out, format!("constitution {path} missing from the audit tree at {}", short(&at_commit)));
            return None;
        }
        Ok(None) => {
            out.push(unplaced(subject, &format!("constitution {path} missing from the audit tree at the head")));
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
    let mut problems: Vec<String> = content_problem(r, &bytes, path, &at_commit).into_iter().collect();
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
        if placed {
            fail(out, p);
        } else {
            out.push(unplaced(subject, &p));
        }
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

/// Schema 2 binds the Constitution's bytes as well as its commit: they must hash to what the
/// receipt says.
fn content_problem(r: &Receipt, bytes: &[u8], path: &str, at_commit: &str) -> Option<String> {
    let want = r.constitution_sha256.as_ref().filter(|_| r.family == Family::Schema2)?;
    let got = Digest::of(bytes).hex();
    (got != *want).then(|| {
        format!(
            "constitution content differs from the receipt's hash: {path} at {} hashes to {}, receipt binds {}",
            short(at_commit),
            short(&got),
            short(want)
        )
    })
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
            // The history walk already holds every commit the head descends from; asking the
            // graph again per receipt walked it once per receipt.
            let in_history = match &ctx.ledger.history {
                Ok(h) => Ok(h.position.contains_key(&id)),
                Err(_) => audit.is_ancestor(id, ctx.ledger.audit_head),
            };
            match in_history {
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
        Some(Ok(cfg)) => p.extend(config_problems(r.inputs_checks.as_deref(), r.audit_fallback, r, cfg)),
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

/// Whether a `cantTell` of check `code` is a property of the records themselves, which no
/// fetch or later run can change (the per-receipt cache stores such cycles; `crawl/memo.rs`).
pub(crate) fn cant_tell_is_permanent(code: &str) -> bool {
    code == NOT_REVERIFIABLE.code
}

/// The check pack the product runs when `crossaudit.yml` has no `checks:` (4.14 `config.py`).
const DEFAULT_CHECKS: [&str; 4] = ["parseable", "declared", "internal", "complete"];

/// Problems against the configuration the round ran under: the check list it ran, and the
/// route (`audit.fallback` false means the configured primary auditor answered).
fn config_problems(v_checks: Option<&[String]>, fallback: Option<bool>, r: &Receipt, cfg: &Config) -> Vec<String> {
    let mut p = Vec::new();
    let (want, whence): (Vec<String>, &str) = match &cfg.checks {
        Some(c) => (c.clone(), "crossaudit.yml checks"),
        None => (
            DEFAULT_CHECKS.iter().map(|s| (*s).to_owned()).collect(),
            "the product's default pack (no checks: in crossaudit.yml)",
        ),
    };
    if let Some(got) = v_checks
        && got != want.as_slice()
    {
        p.push(format!("inputs.checks {got:?} is not {whence} {want:?}"));
    }
    match fallback {
        Some(false) => {
            for (k, got, want) in
                [("provider", &r.provider, &cfg.auditor_provider), ("model", &r.auditor_model, &cfg.auditor_model)]
            {
                if let (Some(g), Some(w)) = (got, want)
                    && g != w
                {
                    p.push(format!(
                        "audit.{k} {g:?} with audit.fallback false, but the configured primary auditor {k} is {w:?}"
                    ));
                }
            }
        }
        Some(true) if cfg.auditor_fallbacks.is_empty() => {
            p.push("audit.fallback is true but crossaudit.yml configures no auditor fallback".into());
        }
        _ => {}
    }
    p
}

/// CV-A307 (I3; run while binding, since a report of another form binds nothing): one verdict
/// row, and one "Rules applied" line where a valid reply is recorded.
fn report_form(
    rep: &crate::crossaudit::records::report_md::Report,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
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

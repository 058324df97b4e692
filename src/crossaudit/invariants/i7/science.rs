//! I7 on the science side: the audited commit, its tree, and the manifest against them
//! (`CV-A701`…`CV-A704`, `CV-A713`, `CV-A717`). Hashing happens here, once per distinct blob.

use std::collections::{BTreeMap, BTreeSet};

use crate::checks::Check;
use crate::crossaudit::checks::*;
use crate::crossaudit::load::{Cycle, Ledger};
use crate::crossaudit::model::{Ctx, res, short};
use crate::crossaudit::records::config::Config;
use crate::crossaudit::records::receipt::{Family, Manifest, Receipt};
use crate::crossaudit::records::scope::{self, Expect, Selection};
use crate::git::{EntryKind, ObjectId, Repo};
use crate::manifest::Digest;
use crate::report::{CheckResult, Outcome};

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
    /// The selection came from the worker's [`scope::AuditReuse`], which takes it back.
    pub reusable: bool,
    /// The manifest and the selection compared, when both are there.
    pub compared: Option<Compared>,
}

/// A manifest's keys and a selection's, compared in one merge of the two sorted maps. Three
/// checks asked it, each merging them again (6% of a cold run of the bench ledger).
#[derive(Debug, Default)]
pub(crate) struct Compared {
    /// Per manifest key, in key order: the selection's blob, for a key not refused
    /// (`bad_keys`) that the selection expects as a file.
    pub files: Vec<Option<ObjectId>>,
    /// Manifest keys, refused ones left out, the selection does not hold (CV-A717).
    pub outside: Vec<String>,
    /// Manifest keys not refused.
    pub considered: usize,
    /// Positions, in key order, of the selection's keys the manifest does not hold, refused
    /// keys counting as held (CV-A703).
    pub unheld: Vec<usize>,
}

/// [`Compared`] of the receipt's own manifest, for a caller given a [`Prepared`] without it
/// (`prepare` compares whenever there is a manifest and a selection).
fn compared_anew(r: &Receipt, sel: &Selection) -> Compared {
    r.manifest.as_ref().map(|m| compare(m, &r.bad_keys, sel)).unwrap_or_default()
}

/// [`Compared`] of a receipt's manifest, its refused keys and a selection.
pub(crate) fn compare(manifest: &Manifest, bad: &BTreeSet<String>, sel: &Selection) -> Compared {
    let mut c = Compared { files: vec![None; manifest.len()], ..Compared::default() };
    let mut selected = sel.keys.iter().enumerate().peekable();
    for (i, key) in manifest.keys().enumerate() {
        while let Some((j, _)) = selected.next_if(|(_, (k, _))| k.as_str() < key.as_str()) {
            c.unheld.push(j);
        }
        let same = selected.next_if(|(_, (k, _))| *k == key);
        if bad.contains(key) {
            continue;
        }
        c.considered += 1;
        match same {
            Some((_, (_, Expect::File(id)))) => c.files[i] = Some(*id),
            Some(_) => {}
            None => c.outside.push(key.clone()),
        }
    }
    c.unheld.extend(selected.map(|(j, _)| j));
    c
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
pub(crate) fn prepare(
    ledger: &Ledger,
    science: Option<&Repo>,
    audit: &Repo,
    cycle: &Cycle,
    r: &Receipt,
    reuse: &mut scope::AuditReuse,
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
            reusable: false,
            compared: None,
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
    let mut reusable = false;
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
            Some(s) => {
                let sel = reuse.product_audit(repo, id, s, product);
                reusable = sel.is_ok();
                Some(sel.map_err(|e| e.to_string()))
            }
            None => None,
        },
    };
    let compared = match (&r.manifest, &selection) {
        (Some(m), Some(Ok(sel))) => Some(compare(m, &r.bad_keys, sel)),
        _ => None,
    };
    let entries = match (&r.manifest, tree) {
        (Some(m), Some(t)) => lookup(repo, t, r, m, compared.as_ref()),
        _ => Vec::new(),
    };
    let unbound = match (&selection, &r.manifest) {
        // The receipt's own manifest is the set of bound keys: no copy of its keys per receipt.
        (Some(Ok(sel)), Some(m)) => scope::unbound(repo, id, sel, m).unwrap_or_default(),
        _ => Vec::new(),
    };
    let increment = (r.family == Family::Schema2).then(|| {
        let cfg = trusted_config(ledger, repo, id, config.as_ref());
        scope::increment(repo, id, &cfg, product).map_err(|e| e.to_string())
    });
    Some(Prepared { commit, tree, config, selection, entries, unbound, increment, reusable, compared })
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
/// most keys (`compared`); a few keys are looked up one by one; many keys trigger one walk of
/// the tree.
pub(crate) fn lookup(
    repo: &Repo,
    tree: ObjectId,
    r: &Receipt,
    manifest: &Manifest,
    compared: Option<&Compared>,
) -> Vec<Option<(EntryKind, ObjectId)>> {
    // One slot per manifest key, in key order.
    let mut out = vec![None; manifest.len()];
    let mut rest = Vec::new();
    for (i, key) in manifest.keys().enumerate() {
        match compared.and_then(|c| c.files[i]) {
            Some(id) => out[i] = Some((EntryKind::File, id)),
            None if r.bad_keys.contains(key) => {}
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

/// CV-A701: the audited commit and its tree; then the manifest against them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn science_checks(
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
    crate::crossaudit::load::shard::manifest_part(ctx.shard, subject, out, failed, |out, failed| {
        manifest_matches(ctx, r, manifest, prep, science, buf, subject, commit, out, failed);
    });
    manifest_complete(r, prep, subject, out, failed);
}

/// CV-A702: every bound entry is the commit's git object.
#[allow(clippy::too_many_arguments)]
fn manifest_matches(
    ctx: &Ctx<'_>,
    r: &Receipt,
    manifest: &Manifest,
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
    // The digests hashed already, asked of the table in one batch; the rest one by one below.
    let ids: Vec<Option<ObjectId>> = manifest
        .iter()
        .enumerate()
        .map(|(i, (key, want))| match prep.entries.get(i).copied().flatten() {
            Some((k, id)) if k.is_file() && want != "ABSENT" && !r.bad_keys.contains(key) => Some(id),
            _ => None,
        })
        .collect();
    let mut known: Vec<Hashed> = match science {
        Some(_) => RECENT
            .with_borrow(|recent| ctx.hashes.known_many_after(&ids, recent))
            .into_iter()
            .map(|d| d.map(Ok))
            .collect(),
        None => vec![None; ids.len()],
    };
    if let Some(s) = science {
        hash_unknown(ctx, s, &ids, &mut known, buf);
        let digests = known.iter().map(|k| k.as_ref().and_then(|r| r.as_ref().ok().copied())).collect();
        RECENT.with_borrow_mut(|recent| recent.remember(ctx.hashes, ids, digests));
    }
    for (i, (key, want)) in manifest.iter().enumerate() {
        if r.bad_keys.contains(key) {
            continue;
        }
        let entry = prep.entries.get(i).copied().flatten();
        let looked_up = (entry, known[i].take());
        let Some((binding_failure, result)) = entry_result(ctx, key, want, looked_up, science, buf, subject) else {
            continue;
        };
        match binding_failure {
            Some(f) => {
                mismatches += 1;
                failed.push(f);
            }
            None => unknown += 1,
        }
        out.push(result.at(Some("science"), Some(key), Some(&commit.to_string())));
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

thread_local! {
    /// The digests this thread was given for the last receipt it checked: in newest-first
    /// order a worker checks neighbouring cycles, whose manifests differ by the changed files.
    static RECENT: std::cell::RefCell<crate::manifest::Recent> = std::cell::RefCell::default();
}

/// A blob's digest as hashed for a receipt, or why it could not be; `None` until asked.
type Hashed = Option<Result<Digest, String>>;

/// Hashes the blobs of `ids` whose digest is not `known` yet, into `known`: every one the
/// results below would ask for, asked once, as they would be.
///
/// Workers on consecutive receipts want the same new blobs, and one asking for a blob the other
/// is hashing waits for it: verification started at 1.5 of 2 cores. Every other worker walks
/// its receipt's blobs in the opposite order, so that two workers meet once instead of
/// queueing behind each other.
fn hash_unknown(ctx: &Ctx<'_>, science: &Repo, ids: &[Option<ObjectId>], known: &mut [Hashed], buf: &mut Vec<u8>) {
    let mut todo: Vec<(usize, ObjectId)> =
        ids.iter().enumerate().filter_map(|(i, id)| id.filter(|_| known[i].is_none()).map(|id| (i, id))).collect();
    if rayon::current_thread_index().is_some_and(|t| t % 2 == 1) {
        todo.reverse();
    }
    for (i, id) in todo {
        known[i] = Some(ctx.hashes.get_or_hash(science, id, buf));
    }
}

/// CV-A702 for one manifest entry: `None` when it matches the commit's object; otherwise the
/// result, with the binding failure it records (`None` for an entry that could not be judged).
fn entry_result(
    ctx: &Ctx<'_>,
    key: &str,
    want: &str,
    (entry, known): (Option<(EntryKind, ObjectId)>, Hashed),
    science: Option<&Repo>,
    buf: &mut Vec<u8>,
    subject: &str,
) -> Option<(Option<String>, CheckResult)> {
    // Only a result needs the subject: ten million matching entries allocate nothing.
    let sub = || format!("{subject} {key}");
    let failed =
        |summary: String, msg: String| Some((Some(summary), res(&MANIFEST_MATCHES, Outcome::Failed, &sub(), msg)));
    match entry {
        Some((k, _)) if want == "ABSENT" && k.is_file() => failed(
            format!("manifest says ABSENT but {key} exists"),
            format!("manifest says ABSENT but {key} is a {} in the tree", k.as_str()),
        ),
        _ if want == "ABSENT" => None,
        None => failed(
            format!("manifest lists {key}, absent from the tree"),
            format!("manifest lists {key}, absent from the tree"),
        ),
        Some((k, _)) if !k.is_file() => failed(
            format!("manifest binds {key} by digest but it is a {}", k.as_str()),
            format!("bound by digest but it is a {} (not hashed)", k.as_str()),
        ),
        Some((_, id)) => match science.map(|s| known.unwrap_or_else(|| ctx.hashes.get_or_hash(s, id, buf))) {
            Some(Ok(d)) if d.is_lower_hex(want) => None,
            Some(Ok(d)) => {
                let mut msg = format!(
                    "manifest mismatch for {key}: receipt binds {}, the commit has {}",
                    short(want),
                    short(&d.hex())
                );
                if let Some(note) = science.and_then(|s| truncated_match(s, id, want)) {
                    msg.push_str(&note);
                }
                let result = res(&MANIFEST_MATCHES, Outcome::Failed, &sub(), msg)
                    .with("expected", want.to_owned())
                    .with("actual", d.hex());
                Some((Some(format!("manifest mismatch for {key}")), result))
            }
            Some(Err(e)) => Some((
                None,
                res(&MANIFEST_MATCHES, Outcome::CantTell, &sub(), format!("blob {id} could not be read: {e}")),
            )),
            None => Some((None, res(&MANIFEST_MATCHES, Outcome::CantTell, &sub(), "blob was not hashed"))),
        },
    }
}

/// CV-A703 and CV-A704: the manifest binds everything the dialect's own rule selects, and
/// every file of the increment's directories.
fn manifest_complete(
    r: &Receipt,
    prep: &Prepared,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
    match &prep.selection {
        Some(Ok(sel)) => {
            let mut missing = Vec::new();
            let fresh;
            let compared = match &prep.compared {
                Some(c) => c,
                None => {
                    fresh = compared_anew(r, sel);
                    &fresh
                }
            };
            let mut unheld = compared.unheld.iter().peekable();
            for (j, (key, exp)) in sel.keys.iter().enumerate() {
                let held = unheld.next_if_eq(&&j).is_none();
                if let Expect::Absent { hidden: Some(real), .. } = exp {
                    missing.push(format!(
                        "{real} is bound only as the C-quoted key {key} recorded ABSENT: its content is unbound"
                    ));
                    continue;
                }
                if !held && !sel.optional.contains(key) {
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
pub(crate) fn extent_checks(
    r: &Receipt,
    prep: Option<&Prepared>,
    subject: &str,
    out: &mut Vec<CheckResult>,
    failed: &mut Vec<String>,
) {
    if r.family == Family::V1 {
        out.push(if r.manifest.as_ref().is_some_and(Manifest::is_empty) {
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
            // Asked of the manifest itself: a set of its ten thousand keys per receipt, built to
            // answer for the fifty files an increment changed, cost more than the checks.
            let binds = |k: &str| manifest.get(k).is_some_and(|v| v != "ABSENT") && !r.bad_keys.contains(k);
            let unbound: Vec<String> = inc.files.iter().filter(|f| !binds(f)).cloned().collect();
            let (mut any_bound, mut files_bound) = (false, 0usize);
            for (k, v) in manifest.iter() {
                if v != "ABSENT" && !r.bad_keys.contains(k) {
                    any_bound = true;
                    files_bound += usize::from(!(r.v4 && k == "TASK.md"));
                }
            }
            if files_bound == 0 {
                let only = if any_bound { "only TASK.md" } else { "nothing" };
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
    within_rule(r, prep, subject, out, failed);
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
fn within_rule(r: &Receipt, prep: &Prepared, subject: &str, out: &mut Vec<CheckResult>, failed: &mut Vec<String>) {
    match &prep.selection {
        Some(Ok(sel)) => {
            let (extra, considered) = match &prep.compared {
                Some(c) => (c.outside.clone(), c.considered),
                None => {
                    let c = compared_anew(r, sel);
                    (c.outside, c.considered)
                }
            };
            if extra.is_empty() {
                out.push(res(
                    &MANIFEST_WITHIN_RULE,
                    Outcome::Passed,
                    subject,
                    format!("every entry is selected by the rule ({})", sel.rule),
                ));
            } else {
                let none_inside = extra.len() == considered;
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

/// When a digest equals SHA-256 of the first 512 KiB only, say so (the product truncates).
fn truncated_match(repo: &Repo, id: ObjectId, want: &str) -> Option<String> {
    const LIMIT: usize = 524_288;
    let data = repo.blob(id).ok()?;
    (data.len() > LIMIT && Digest::of(&data[..LIMIT]).hex() == want)
        .then(|| format!(" — the bound digest covers only the first {LIMIT} bytes (the product's 512 KiB truncation): the rest of the file is unbound"))
}

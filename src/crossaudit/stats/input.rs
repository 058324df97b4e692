//! `crossverify stats` on CrossAudit inputs: which kind of input a path holds, and the
//! converters from each (deployed ledgers, receipt ledgers, mined and analysis records) into
//! the neutral [`Records`] that `stats` computes its figures from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::kind;
use super::published::{ANALYSIS, CYCLES_B, CYCLES_JSONL, FILES, LIFECYCLE, SUMMARY};
use super::rules::{self, Patterns};
use crate::crossaudit::deployed::{self, ClosureEntry, DeployedLedger, LoadError, cycle_number};
use crate::crossaudit::load;
use crate::git::{self, Repo, Scope};
use crate::json::Value;
use crate::manifest::Digest;
use crate::progress::Ctx;
use crate::report::{CheckResult, Outcome};
use crate::stats::input::{Input, Published, RecordSet};
use crate::stats::model::{Closure, CycleRecord, FindingRecord, Group, InputKind, Records};
use crate::stats::{Error, RECORDS_READABLE, RECORDS_UNAUTHENTICATED};

fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    crate::files::read_capped(path, git::MAX_RECORD_BYTES as usize).map_err(|e| {
        let why = match e {
            crate::files::ReadError::TooLarge(max) => format!("more than the {max}-byte record limit"),
            crate::files::ReadError::Io(e) => e.to_string(),
        };
        Error::Input(format!("{}: {why}", path.display()))
    })
}

/// Detects what `path` holds and reads it. `science` is the science repository the caller
/// gave: a paired receipt ledger is verified against it, as `crossverify ledger` does.
///
/// # Errors
/// [`Error`] when the path holds nothing crossverify recognises, or cannot be read at all.
pub fn read(path: &Path, rev: Option<&str>, science: Option<&Path>, ctx: Ctx<'_>) -> Result<Input, Error> {
    if path.is_file() {
        if rev.is_some() {
            return Err(Error::Input(format!("{}: --rev applies to a git repository, not a file", path.display())));
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let dir = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
        return match name.as_str() {
            CYCLES_JSONL | SUMMARY | LIFECYCLE => records_dir(&dir, Some(kind::MINED_RECORDS)),
            CYCLES_B | ANALYSIS => records_dir(&dir, Some(kind::ANALYSIS_RECORDS)),
            _ => Err(Error::Input(format!(
                "{}: not a recognised input file (expected {CYCLES_JSONL}, {CYCLES_B}, {SUMMARY}, {LIFECYCLE} or {ANALYSIS}, or a ledger directory)",
                path.display()
            ))),
        };
    }
    if !path.is_dir() {
        return Err(Error::Input(format!("{}: no such file or directory", path.display())));
    }
    if deployed::is_repository(path).map_err(Error::Git)? {
        return read_git(path, rev, science, ctx);
    }
    if rev.is_some() {
        return Err(Error::Input(format!(
            "{}: --rev applies to a git repository, not a plain directory",
            path.display()
        )));
    }
    if path.join(CYCLES_JSONL).is_file() || path.join(CYCLES_B).is_file() {
        return records_dir(path, None);
    }
    match deployed::load_dir(path, ctx) {
        Ok(ledger) => {
            let mut input = deployed_input(&ledger, kind::DEPLOYED_DIRECTORY);
            for c in &ledger.cycles {
                for (name, bytes) in &c.files {
                    input.read.insert(format!("{}/{name}", c.path), Digest::of(bytes).hex());
                }
            }
            Ok(input)
        }
        Err(LoadError::NoCycles(_)) => {
            let mut paths = Vec::new();
            list_files(path, "", 0, &mut paths);
            match receipt_ledger(&paths, |p| std::fs::read(path.join(p)).ok()) {
                Some(input) => Ok(input),
                None => Err(Error::Input(format!(
                    "{}: holds no deployed ledger (projects/<p>/cycles/CYCLE-*/ or CYCLE-*/), no {CYCLES_JSONL}, no {CYCLES_B} and no CrossAudit receipts",
                    path.display()
                ))),
            }
        }
        Err(e) => Err(Error::Protocol(Box::new(e))),
    }
}

/// A git repository read from objects at `rev`: a deployed ledger, else a receipt ledger.
fn read_git(path: &Path, rev: Option<&str>, science: Option<&Path>, ctx: Ctx<'_>) -> Result<Input, Error> {
    let repo = Repo::open(path).map_err(Error::Git)?;
    let commit = repo.resolve(rev.unwrap_or("HEAD")).map_err(Error::Git)?;
    match deployed::load_git(&repo, commit, ctx) {
        Ok(ledger) => {
            let mut input = deployed_input(&ledger, kind::DEPLOYED_GIT);
            input.commit = Some(commit.to_string());
            Ok(input)
        }
        Err(LoadError::NoCycles(_)) => {
            let tree = repo.commit(commit).map_err(Error::Git)?.tree;
            let paths: Vec<String> = repo
                .walk(tree, &Scope::all())
                .map_err(Error::Git)?
                .into_iter()
                .filter_map(|e| e.path.to_str().ok().map(str::to_owned))
                .collect();
            let receipt = |p: &str| -> Option<Vec<u8>> { repo.file_at(commit, p).ok().flatten() };
            match receipt_ledger(&paths, receipt) {
                Some(mut input) => {
                    // A receipt ledger in git: crawl it as `crossverify ledger` does and
                    // convert its cycles.
                    let mut o = load::Options::new(path);
                    o.audit_rev = Some(commit.to_string());
                    o.science = science.map(Path::to_path_buf);
                    let (records, checked) = super::receipts::lifecycle_records(&o, ctx).map_err(|e| match e {
                        // The operator's input is wrong (a paired ledger without its science
                        // repository, the wrong one): could not run, with the fix, as `ledger`.
                        load::Error::Usage(m) => Error::Input(m),
                        // Figures over one layout of a mixed ledger would describe a part as
                        // the whole: the layouts are named, as `ledger` names them (CV-A005).
                        e @ load::Error::MixedLayouts(_) => Error::Input(e.to_string()),
                        load::Error::Git(g) => Error::Git(g),
                        load::Error::Interrupted(i) => Error::Interrupted(i),
                    })?;
                    input.records = records;
                    input.results.clear();
                    input.results.push(CheckResult::new(
                        &RECORDS_READABLE,
                        Outcome::Passed,
                        "ledger",
                        format!("{} read from git objects at {commit}", input.records.kind.describe()),
                    ));
                    // The crawl verified the receipts, but its results are `ledger`'s report:
                    // here they decide only whether the figures' records are evidence.
                    let (outcome, said) = match checked {
                        c if c.failed > 0 => (Outcome::Failed, format!("{} error-level check(s) failed", c.failed)),
                        c if c.undecided > 0 => {
                            (Outcome::CantTell, format!("{} error-level check(s) could not be decided", c.undecided))
                        }
                        _ => (Outcome::Passed, "every error-level check passed or did not apply".to_owned()),
                    };
                    let rev = commit.to_string();
                    input.results.push(CheckResult::new(
                        &RECORDS_UNAUTHENTICATED,
                        outcome,
                        "ledger",
                        format!(
                            "the figures come from receipts verified at {rev} as `crossverify ledger` verifies them: {said}{}",
                            if outcome == Outcome::Passed { "" } else { "; that command names them" }
                        ),
                    ));
                    input.commit = Some(commit.to_string());
                    Ok(input)
                }
                None => Err(Error::Input(format!(
                    "{}: at {commit}, no deployed ledger (projects/<p>/cycles/CYCLE-*), receipts or records",
                    path.display()
                ))),
            }
        }
        Err(e) => Err(Error::Protocol(Box::new(e))),
    }
}

fn list_files(root: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
    // Receipt ledgers keep receipts a few levels down; deeper trees are not ledgers.
    if depth > 6 {
        return;
    }
    let dir = if rel.is_empty() { root.to_path_buf() } else { root.join(rel) };
    let Ok(rd) = std::fs::read_dir(&dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let Ok(name) = e.file_name().into_string() else { continue };
        if name == ".git" {
            continue;
        }
        let p = if rel.is_empty() { name } else { format!("{rel}/{name}") };
        match e.file_type() {
            Ok(t) if t.is_dir() => list_files(root, &p, depth + 1, out),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
}

/// A v1 or schema-2 receipt ledger: detected, reported, not yet converted.
fn receipt_ledger(paths: &[String], read: impl Fn(&str) -> Option<Vec<u8>>) -> Option<Input> {
    let receipts: Vec<&String> = paths
        .iter()
        .filter(|p| {
            let parts: Vec<&str> = p.split('/').collect();
            let n = parts.len();
            (n >= 3 && parts[n - 1] == "receipt.json" && parts[n - 3] == "cycles")
                || (n >= 2 && parts[n - 2] == "reports" && parts[n - 1].ends_with(".receipt.json"))
        })
        .collect();
    let first = receipts.first()?;
    let kind = match read(first).and_then(|b| crate::json::parse(&b).ok()) {
        Some(v) if v.get("receipt_schema").is_some() => kind::SCHEMA2_LEDGER,
        Some(v) if v.get("constitution_hash").is_some() => kind::V1_LEDGER,
        _ => kind::V1_LEDGER,
    };
    let reason = format!(
        "{} found ({} receipt(s), e.g. {first}) in a plain directory; its records are read and verified from git objects: give the repository",
        kind.describe(),
        receipts.len()
    );
    let mut records = Records::new(kind);
    records.unreadable = Some(format!("not measured for {} outside git: give the repository", kind.describe()));
    let mut input = Input::new(records);
    input.results.push(CheckResult::new(&RECORDS_READABLE, Outcome::Untested, "ledger", reason));
    Some(input)
}

/// A deployed ledger's records, followed in the results by its consistency checks.
fn deployed_input(ledger: &DeployedLedger, kind: InputKind) -> Input {
    let mut input = Input::new(records(ledger, kind));
    input.results.extend(deployed::verify(ledger));
    // A deployed ledger keeps no receipts: nothing binds a cycle's decision to the audited
    // commit's files (`ledger` says so as CV-A701), whatever its consistency checks find.
    input.results.push(CheckResult::new(
        &RECORDS_UNAUTHENTICATED,
        Outcome::CantTell,
        "ledger",
        format!(
            "{} keeps no receipts: nothing binds a cycle's decision to the audited commit's files (`crossverify ledger` \
             reports it as CV-A701), so the figures are those of records nothing verified",
            kind.describe()
        ),
    ));
    input
}

/// Converts a deployed ledger into the neutral model.
#[must_use]
pub fn records(ledger: &DeployedLedger, kind: InputKind) -> Records {
    let mut records = Records::new(kind);
    let mut meta_missing = Vec::new();
    for c in ledger.counted() {
        let result = c.result.ok();
        let meta = c.metadata.ok();
        if meta.is_none() {
            meta_missing.push(c.label.clone());
        }
        records.cycles.push(CycleRecord {
            id: c.label.clone(),
            number: c.number,
            audited_commit: result
                .and_then(|r| r.audited_commit.clone())
                .or_else(|| meta.and_then(|m| m.audited_commit.clone())),
            decision: result.map(|r| r.decision.clone()),
            model: meta.and_then(|m| m.model.clone()),
            started_at: meta.and_then(|m| m.started_at.clone()),
            completed_at: meta.and_then(|m| m.completed_at.clone()),
            findings: result.map(|r| {
                r.findings
                    .iter()
                    .map(|f| FindingRecord {
                        id: f.finding_id.clone(),
                        severity: f.severity.clone(),
                        scopes: f.blocked_scopes.clone(),
                        source: f.typed_line("source").map(str::to_owned),
                        finding_class: f.typed_line("finding_class").map(str::to_owned),
                        rules: rules::extract(&rules::evidence_text(&f.evidence), Patterns::Analysis),
                        title_sha16: f.title.as_ref().map(|t| Digest::of(t.as_bytes()).hex()[..16].to_owned()),
                    })
                    .collect()
            }),
            verified_closed: result.map(|r| {
                r.verified_closed
                    .iter()
                    .map(|e: &ClosureEntry| Closure {
                        raw: e.raw.clone(),
                        id: e.id.clone(),
                        alt: e.id_anywhere.clone(),
                    })
                    .collect()
            }),
        });
    }
    if !meta_missing.is_empty() {
        let note = format!("run metadata unreadable for {}: model and times unknown there", meta_missing.join(", "));
        for f in ["models", "n_models", "cycles_without_model", "audit_minutes", "gap_minutes"] {
            records.caveat(f, &note);
        }
    }
    let projects = ledger.projects();
    if projects.len() > 1 {
        let names: Vec<String> = projects.iter().map(|p| p.clone().unwrap_or_else(|| "(bare)".into())).collect();
        let note = format!(
            "the ledger holds {} projects ({}); as in the mining script, their cycles are taken in path order as one ledger and finding IDs are matched across projects",
            names.len(),
            names.join(", ")
        );
        for f in ["closed", "closure_lag", "closure_lag_cycle_numbers", "gap_minutes", "numbering_gaps"] {
            records.caveat(f, &note);
        }
    }
    records
}

/// Mined and/or analysis records in `dir`; `prefer` picks the primary set when both exist
/// (default: analysis, which carries more figures).
pub fn records_dir(dir: &Path, prefer: Option<InputKind>) -> Result<Input, Error> {
    let mut results = Vec::new();
    let mut read = BTreeMap::new();
    let mut load = |name: &str| -> Result<Option<Vec<u8>>, Error> {
        let p = dir.join(name);
        if !p.is_file() {
            return Ok(None);
        }
        let bytes = read_file(&p)?;
        read.insert(name.to_owned(), Digest::of(&bytes).hex());
        Ok(Some(bytes))
    };
    let mined = load(CYCLES_JSONL)?.map(|b| mined_records(&b, &mut results));
    let analysis = load(CYCLES_B)?.map(|b| analysis_records(&b, &mut results));
    let mut published = Vec::new();
    for (name, form) in FILES {
        if let Some(bytes) = load(name)? {
            match crate::json::parse(&bytes) {
                Ok(value) => published.push(Published { name, value, form }),
                Err(e) => results.push(CheckResult::new(
                    &RECORDS_READABLE,
                    Outcome::Failed,
                    name,
                    format!("not strict JSON: {e}; its figures are not checked"),
                )),
            }
        }
    }
    let primary = match (prefer, &mined, &analysis) {
        (Some(k), Some(m), _) if k == kind::MINED_RECORDS => m.clone(),
        (_, Some(m), None) => m.clone(),
        (_, _, Some(a)) => a.clone(),
        (_, None, None) => {
            return Err(Error::Input(format!(
                "{}: has published summaries but no records to recompute them from ({CYCLES_JSONL} or {CYCLES_B})",
                dir.display()
            )));
        }
    };
    let subject = if primary.kind == kind::ANALYSIS_RECORDS { CYCLES_B } else { CYCLES_JSONL };
    results.push(CheckResult::new(
        &RECORDS_UNAUTHENTICATED,
        Outcome::CantTell,
        subject,
        format!(
            "{} carry no receipt, manifest or signature: nothing binds their decisions to the commits they name, so \
             nothing in them was verified; verify the ledger they were mined from (`crossverify ledger --audit LEDGER`)",
            primary.kind.describe()
        ),
    ));
    let mut input = Input::new(primary);
    input.sets = [(CYCLES_JSONL, mined), (CYCLES_B, analysis)]
        .into_iter()
        .filter_map(|(name, records)| records.map(|records| RecordSet { name, records }))
        .collect();
    input.published = published;
    input.results = results;
    input.read = read;
    Ok(input)
}

type Obj = BTreeMap<String, Value>;

fn field_str(o: &Obj, key: &str) -> Result<Option<String>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!("`{key}` is a {}, expected a string", v.type_name())),
    }
}

fn field_strs(o: &Obj, key: &str) -> Result<Option<Vec<String>>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(|| format!("`{key}` holds a {}", i.type_name())))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(v) => Err(format!("`{key}` is a {}, expected a list", v.type_name())),
    }
}

fn required<T>(v: Result<Option<T>, String>, key: &str) -> Result<T, String> {
    v?.ok_or_else(|| format!("no `{key}`"))
}

fn findings_list<'a>(o: &'a Obj, key: &str) -> Result<Vec<&'a Obj>, String> {
    match o.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, f)| f.as_object().ok_or_else(|| format!("{key} #{} is a {}", i + 1, f.type_name())))
            .collect(),
        Some(v) => Err(format!("`{key}` is a {}, expected a list", v.type_name())),
        None => Err(format!("no `{key}` list")),
    }
}

fn unreadable_cycle(id: String) -> CycleRecord {
    CycleRecord { id, ..CycleRecord::default() }
}

/// `cycles.jsonl`: one strict JSON object per line (real-ledger note §2.2).
fn mined_records(bytes: &[u8], results: &mut Vec<CheckResult>) -> Records {
    let mut records = Records::new(kind::MINED_RECORDS);
    records.cannot_measure(
        &[Group::Labels],
        "cycles.jsonl keeps no evidence lines, so the `source:` and `finding_class:` labels were not mined",
    );
    records
        .caveat("rules", "from the mined `rules_cited` (R-… and Gate… citations only; CA-… citations are not mined)");
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            records.unreadable = Some(format!("{CYCLES_JSONL} is not UTF-8"));
            results.push(CheckResult::new(&RECORDS_READABLE, Outcome::Failed, CYCLES_JSONL, format!("not UTF-8: {e}")));
            return records;
        }
    };
    let lines = text.strip_suffix('\n').unwrap_or(text).split('\n').enumerate();
    // A blank line holds no record (JSON Lines readers skip it); it is not a cycle.
    let parsed = lines
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| (format!("{CYCLES_JSONL} line {}", i + 1), mined_cycle(line)));
    push_cycles(&mut records, results, CYCLES_JSONL, parsed);
    records
}

/// Adds parsed cycle records in ledger order: one that does not parse keeps its place as an
/// unreadable cycle (so positions and lags stay true) and fails CV-S004 where it stands.
fn push_cycles(
    records: &mut Records,
    results: &mut Vec<CheckResult>,
    source: &str,
    parsed: impl Iterator<Item = (String, Result<CycleRecord, String>)>,
) {
    let mut bad = 0;
    for (at, cycle) in parsed {
        match cycle {
            Ok(c) => records.cycles.push(c),
            Err(e) => {
                bad += 1;
                results.push(CheckResult::new(&RECORDS_READABLE, Outcome::Failed, &at, e));
                records.cycles.push(unreadable_cycle(at));
            }
        }
    }
    if bad == 0 {
        results.push(CheckResult::new(
            &RECORDS_READABLE,
            Outcome::Passed,
            source,
            format!("{} cycle record(s) read strictly", records.cycles.len()),
        ));
    }
}

/// The field names of one record format; the two formats say the same things in other words.
struct Dialect {
    cycle_id: &'static str,
    finding_id: &'static str,
    severity: &'static str,
    scopes: &'static str,
    rules: &'static str,
    source: Option<&'static str>,
    finding_class: Option<&'static str>,
    title_sha16: Option<&'static str>,
    /// Only the mined format states its finding count, so only there can it disagree.
    n_findings: bool,
    closed: &'static str,
    /// The mined format keeps closure entries as written; analysis records hold plain IDs.
    closure: fn(&str) -> Closure,
    audited_commit: Option<&'static str>,
    started: &'static str,
    completed: &'static str,
}

const MINED: Dialect = Dialect {
    cycle_id: "cycle_id",
    finding_id: "finding_id",
    severity: "severity",
    scopes: "blocked_scopes",
    rules: "rules_cited",
    source: None,
    finding_class: None,
    title_sha16: Some("title_sha16"),
    n_findings: true,
    closed: "verified_closed",
    closure,
    audited_commit: Some("audited_commit"),
    started: "started_at",
    completed: "completed_at",
};

const ANALYSIS_FIELDS: Dialect = Dialect {
    cycle_id: "cid",
    finding_id: "fid",
    severity: "sev",
    scopes: "scopes",
    rules: "rules",
    source: Some("source"),
    finding_class: Some("fclass"),
    title_sha16: None,
    n_findings: false,
    closed: "closed",
    closure: Closure::plain,
    audited_commit: None,
    started: "started",
    completed: "completed",
};

fn optional(o: &Obj, key: Option<&str>) -> Result<Option<String>, String> {
    key.map_or(Ok(None), |k| field_str(o, k))
}

fn finding(f: &Obj, d: &Dialect) -> Result<FindingRecord, String> {
    let mut rules = field_strs(f, d.rules)?.unwrap_or_default();
    rules.sort();
    rules.dedup();
    Ok(FindingRecord {
        id: required(field_str(f, d.finding_id), d.finding_id)?,
        severity: field_str(f, d.severity)?,
        scopes: field_strs(f, d.scopes)?,
        source: optional(f, d.source)?,
        finding_class: optional(f, d.finding_class)?,
        rules,
        title_sha16: optional(f, d.title_sha16)?,
    })
}

fn cycle(v: &Value, d: &Dialect) -> Result<CycleRecord, String> {
    let o = v.as_object().ok_or_else(|| format!("a {}, expected an object", v.type_name()))?;
    let id = required(field_str(o, d.cycle_id), d.cycle_id)?;
    let findings = findings_list(o, "findings")?
        .into_iter()
        .enumerate()
        .map(|(i, f)| finding(f, d).map_err(|e| format!("{id} finding #{}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(n) = o.get("n_findings").filter(|_| d.n_findings) {
        match n.as_i64() {
            Some(n) if usize::try_from(n).ok() == Some(findings.len()) => {}
            _ => {
                return Err(format!(
                    "{id}: n_findings is {}, but {} finding(s) are listed",
                    crate::json::canonical(n),
                    findings.len()
                ));
            }
        }
    }
    let closed = field_strs(o, d.closed)?.unwrap_or_default();
    Ok(CycleRecord {
        number: cycle_number(&id),
        verified_closed: Some(closed.iter().map(|s| (d.closure)(s)).collect()),
        audited_commit: optional(o, d.audited_commit)?,
        decision: Some(required(field_str(o, "decision"), "decision")?),
        model: field_str(o, "model")?,
        started_at: field_str(o, d.started)?,
        completed_at: field_str(o, d.completed)?,
        findings: Some(findings),
        id,
    })
}

fn mined_cycle(line: &str) -> Result<CycleRecord, String> {
    let v = crate::json::parse(line.as_bytes()).map_err(|e| format!("not strict JSON: {e}"))?;
    cycle(&v, &MINED)
}

fn closure(raw: &str) -> Closure {
    let e = ClosureEntry::new(raw);
    Closure { raw: e.raw, id: e.id, alt: e.id_anywhere }
}

/// `cycles-b.json`: a JSON array of cycle objects (real-ledger note §2.5).
fn analysis_records(bytes: &[u8], results: &mut Vec<CheckResult>) -> Records {
    let mut records = Records::new(kind::ANALYSIS_RECORDS);
    let doc = match crate::json::parse(bytes) {
        Ok(d) => d,
        Err(e) => {
            records.unreadable = Some(format!("{CYCLES_B} is not strict JSON ({e})"));
            results.push(CheckResult::new(
                &RECORDS_READABLE,
                Outcome::Failed,
                CYCLES_B,
                format!("not strict JSON: {e}"),
            ));
            return records;
        }
    };
    let Some(items) = doc.as_array() else {
        records.unreadable = Some(format!("{CYCLES_B} is not a list of cycles"));
        results.push(CheckResult::new(
            &RECORDS_READABLE,
            Outcome::Failed,
            CYCLES_B,
            format!("a {}, expected a list of cycles", doc.type_name()),
        ));
        return records;
    };
    let parsed =
        items.iter().enumerate().map(|(i, item)| (format!("{CYCLES_B} #{}", i + 1), cycle(item, &ANALYSIS_FIELDS)));
    push_cycles(&mut records, results, CYCLES_B, parsed);
    records
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_lines_tolerate_crlf_and_blank_lines() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let line = |id: &str| {
            format!(
                r#"{{"cycle_id": "{id}", "decision": "PASS", "model": null, "n_findings": 0, "verified_closed": [], "findings": []}}"#
            )
        };
        let text = format!("{}\r\n\r\n{}\r\n", line("CYCLE-000001"), line("CYCLE-000002"));
        std::fs::write(tmp.path().join("cycles.jsonl"), text).expect("write");
        let input = super::read(tmp.path(), None, None, crate::progress::Ctx::silent()).expect("reads");
        assert_eq!(input.records.cycles.len(), 2);
        // Read without a complaint; the records are unauthenticated all the same (CV-S006).
        assert!(
            input.results.iter().all(|r| r.outcome == crate::report::Outcome::Passed
                || (r.code == "CV-S006" && r.outcome == crate::report::Outcome::CantTell)),
            "{:?}",
            input.results
        );
    }
}

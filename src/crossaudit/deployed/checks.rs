//! Consistency checks on a deployed ledger (`CV-A011`…`CV-A018`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::model::{
    AUDIT_REPORT, AUDIT_RESULT, AuditResult, DeployedCycle, DeployedLedger, REPORT_MANIFEST, RUN_METADATA, Record,
    RunMetadata, find_finding_id, is_full_digest,
};
use crate::checks::Check;
use crate::report::{CheckResult, Level, Outcome};
use crate::stats::time::parse_timestamp;

/// The spec line of a deployed check: its anchor, then the notes every one of them follows.
macro_rules! spec {
    ($anchor:literal) => {
        concat!(
            "[specs/crossaudit.md#",
            $anchor,
            "](../../specs/crossaudit.md#",
            $anchor,
            "); formats note §4.4 and §5.7 (deployed variant), §12 item 10; real-ledger note §4 and §6"
        )
    };
}

/// Missing cycle numbers.
pub static NUMBERING_GAP: Check = Check {
    code: "CV-A011",
    name: "cycle-numbering-gap",
    level: Level::Info,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "Cycle directories are numbered CYCLE-000001, CYCLE-000002, … without gaps (a gap is reported, never a failure)",
    what: "Reads the number of every `CYCLE-NNNNNN` directory of each project and lists the numbers missing between \
           1 and the highest one. A gap is reported as a `failed` result at level info, so it never changes the \
           verdict; a directory whose name does not end in digits is reported the same way.",
    why: "Numbering gaps are legitimate in the deployed variant: the real ledger has no `CYCLE-000003` because that \
          leg was a deterministic follow-up recorded only on the science side. But a reader counting cycles, or \
          computing closure lag in cycle numbers, must know the numbers skip; and a gap is also what a deleted \
          cycle would look like, so it is worth seeing even when it is innocent.",
    example: "CV-A011 failed perovskite: CYCLE-000003 is missing (cycles 1–8 present except 3); numbering gaps are legitimate in the deployed variant",
    spec: spec!("cv-a011"),
};

/// Decision vs findings' scopes.
pub static DECISION_SCOPES: Check = Check {
    code: "CV-A012",
    name: "decision-inconsistent-with-scopes",
    level: Level::Error,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "Each cycle's decision follows from its findings: BLOCK iff a finding gates a scope, PASS_WITH_CAVEATS iff findings but none gates, PASS iff no findings",
    what: "For every cycle, computes the decision its `audit_result.json` findings imply: `BLOCK` when at least one \
           finding has a non-empty `blocked_scopes`, `PASS_WITH_CAVEATS` when there are findings but none gates a \
           scope, `PASS` when there are none, and compares it with `decision`. When `audit_report.md` is present, \
           the IDs listed under its \"Blocking findings\" and \"Non-blocking caveats\" sections are put in the \
           evidence beside the JSON reading, and a disagreement between the two is named (it is not a failure: \
           the check follows the JSON, as every published analysis does).",
    why: "Scope-granular blocking is what the deployment gates on; a BLOCK with no gated scope, or a PASS that \
          leaves a scope gated, means the machine-readable decision and its own findings tell different stories. \
          The rule held in all 21 cycles of the second freeze. The report and the JSON can disagree about what \
          \"blocking\" means: CYCLE-000001's report lists F-005 and F-007 as non-blocking caveats while the JSON \
          gives both `blocked_scopes: [\"publish_claim\"]`.",
    example: "CV-A012 failed CYCLE-000004: decision PASS_WITH_CAVEATS, but the findings imply BLOCK (F-011 gate(s) a scope)",
    spec: spec!("cv-a012"),
};

/// Closure of an ID never raised.
pub static UNKNOWN_CLOSURE: Check = Check {
    code: "CV-A013",
    name: "closure-of-unraised-finding",
    level: Level::Error,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "Every ID in a cycle's verified_closed_findings was raised as a finding by an earlier cycle",
    what: "Walks the cycles in ledger order. Each `verified_closed_findings` entry is read as the mining script \
           reads it (text before the first `:`, then its leading `F-<digits>`); the ID must have appeared in the \
           `findings` of an earlier cycle. The analysis script's reading (the first `F-<digits>` anywhere in the \
           entry) is given in the evidence when it differs.",
    why: "A verified closure is the ledger's evidence that a defect was real and was fixed; \"twelve behaviourally \
          confirmed\" is a count of them. A closure naming something no audit ever raised confirms nothing, and a \
          count that included it would overstate the record.",
    example: "CV-A013 failed CYCLE-000005: verifies F-099 closed, but no earlier cycle raised F-099",
    spec: spec!("cv-a013"),
};

/// Double closure.
pub static CLOSED_TWICE: Check = Check {
    code: "CV-A014",
    name: "finding-closed-twice",
    level: Level::Warning,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "No finding is verified closed twice without being raised again in between",
    what: "Tracks each finding ID through the ledger: raised (listed in `findings`), then verified closed. A second \
           verified closure of an ID that no cycle re-raised since its previous closure is reported. Statistics \
           use the first closure.",
    why: "A second closure of something already closed is at best redundant and at worst a sign that the auditor \
          does not track the ledger's state; either way a closure count that took every closure at face value \
          would count one fix twice.",
    example: "CV-A014 failed CYCLE-000006: verifies F-006 closed again; it was closed in CYCLE-000005 and not raised since",
    spec: spec!("cv-a014"),
};

/// Manifest digests.
pub static MANIFEST_DIGESTS: Check = Check {
    code: "CV-A015",
    name: "cycle-manifest-digest-mismatch",
    level: Level::Error,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "report_manifest.json digests match the cycle's files (redacted digests are reported as not hash-verifiable)",
    what: "For every file listed in a cycle's `report_manifest.json`, re-hashes the file's bytes (SHA-256) and \
           compares them with a full 64-hex digest. A digest that is redacted or truncated (`e4e6a3586dbc…`, as in \
           the public mirror) is reported `cantTell`: \"redacted, not hash-verifiable\", never as tampering; the \
           evidence says whether the visible prefix matches the present bytes. A record file present but not \
           listed, a listed file that is absent, and an entry without a digest fail; a cycle with no manifest is \
           `cantTell`.",
    why: "The manifest is the deployment's own binding of the cycle's report, result and metadata. A full digest \
          that does not match means the files changed after the cycle was recorded. The public mirror was \
          redacted after hashing and its digests truncated, so its files cannot match; calling that tampering \
          would be false, and calling it verified would be worse.",
    example: "CV-A015 cantTell CYCLE-000001/audit_report.md: digest e4e6a3586dbc… is redacted (truncated), not hash-verifiable; this is not evidence of tampering",
    spec: spec!("cv-a015"),
};

/// Record identity.
pub static RECORD_IDENTITY: Check = Check {
    code: "CV-A016",
    name: "cycle-record-identity-mismatch",
    level: Level::Error,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "A cycle's files agree on who they are: cycle_id equals the directory, audited_commit agrees, timestamps parse and completed ≥ started",
    what: "For every cycle directory: `cycle_id` in `audit_result.json`, `codex_run_metadata.json` and \
           `report_manifest.json` equals the directory name; `audited_commit` is present in the result and the \
           metadata and is the same in both (and matches the report's `Audited commit:` line and `Decision:` line \
           when the report has them); `started_at` and `completed_at` parse as ISO-8601 with a zone and \
           `completed_at` is not before `started_at`. A missing timestamp makes the cycle `cantTell` (its \
           duration is not measured, not zero).",
    why: "Every figure about a cycle (its duration, the gap to the next one, which commit it judged) comes from \
          joining these files. Files that disagree about their own cycle or commit were copied, renamed or \
          edited; a duration computed from them would be a number about nothing.",
    example: "CV-A016 failed CYCLE-000004: codex_run_metadata.json says cycle_id CYCLE-000003; audited_commit differs between audit_result.json (746564b6…) and codex_run_metadata.json (b7de4784…)",
    spec: spec!("cv-a016"),
};

/// Malformed or missing records.
pub static RECORDS_WELL_FORMED: Check = Check {
    code: "CV-A017",
    name: "cycle-record-malformed",
    level: Level::Error,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "Each cycle directory holds a well-formed audit_result.json and codex_run_metadata.json (strict JSON, expected field types)",
    what: "Parses `audit_result.json`, `codex_run_metadata.json` and `report_manifest.json` strictly (duplicate \
           keys, lone surrogates and trailing data are refused) and checks the field types the deployed format \
           uses: `decision` a string, `findings` a list of objects each with a string `finding_id`, \
           `blocked_scopes` a list of strings or null, `evidence` a list of strings, `verified_closed_findings` \
           strings or objects with `finding_id`. A directory without `audit_result.json` fails and is not counted \
           as a cycle; one without `codex_run_metadata.json` fails (its model and times are unknown).",
    why: "A record with two `decision` keys shows one value to a Python reader and possibly another to us; a \
          verifier must refuse it rather than pick one. A cycle with an unreadable result makes every count that \
          includes it unknowable, and the statistics say so instead of computing around it.",
    example: "CV-A017 failed CYCLE-000002: audit_result.json: not strict JSON: line 3, column 15: duplicate key \"decision\"",
    spec: spec!("cv-a017"),
};

/// Closed and listed open in the same cycle.
pub static CLOSED_WHILE_OPEN: Check = Check {
    code: "CV-A018",
    name: "closed-while-listed-open",
    level: Level::Error,
    family: &crate::crossaudit::checks::FAMILY,
    group: None,
    summary: "No cycle both lists a finding among its findings and verifies it closed",
    what: "For every cycle, intersects the IDs of its `findings` with the IDs of its `verified_closed_findings`.",
    why: "A finding cannot be open and verified closed in the same audit. Either the closure or the finding is \
          wrong, and closure lag, closed and open counts all depend on which.",
    example: "CV-A018 failed CYCLE-000004: F-008 is listed as a finding and verified closed in the same cycle",
    spec: spec!("cv-a018"),
};

/// Checks owned by this module.
pub static CHECKS: &[&Check] = &[
    &NUMBERING_GAP,
    &DECISION_SCOPES,
    &UNKNOWN_CLOSURE,
    &CLOSED_TWICE,
    &MANIFEST_DIGESTS,
    &RECORD_IDENTITY,
    &RECORDS_WELL_FORMED,
    &CLOSED_WHILE_OPEN,
];

/// Every consistency result for `ledger` (`CV-A011`…`CV-A018`), unsorted ([`crate::report::Report::finish`]
/// sorts). Locations name the repository `audit`, the cycle path and, for a git ledger, the
/// commit it was read at.
#[must_use]
pub fn verify(ledger: &DeployedLedger) -> Vec<CheckResult> {
    let commit = ledger.origin.commit();
    let at = |r: CheckResult, path: &str| r.at(Some("audit"), Some(path), commit.as_deref());
    let mut out = Vec::new();
    numbering(ledger, &mut out, &at);
    for c in &ledger.cycles {
        well_formed(c, &mut out, &at);
        identity(c, &mut out, &at);
        manifest(c, &mut out, &at);
        decision(c, &mut out, &at);
        closed_while_open(c, &mut out, &at);
    }
    lifecycle(ledger, &mut out, &at);
    out
}

type At<'a> = dyn Fn(CheckResult, &str) -> CheckResult + 'a;

fn numbering(ledger: &DeployedLedger, out: &mut Vec<CheckResult>, at: &At<'_>) {
    for project in ledger.projects() {
        let cycles: Vec<&DeployedCycle> = ledger.counted().filter(|c| c.project == project).collect();
        let subject = project.clone().unwrap_or_else(|| "ledger".to_owned());
        let dir = cycles.first().map_or(String::new(), |c| c.path.rsplit_once('/').map_or("", |p| p.0).to_owned());
        if cycles.is_empty() {
            continue;
        }
        let unnumbered: Vec<&str> = cycles.iter().filter(|c| c.number.is_none()).map(|c| c.dir.as_str()).collect();
        let numbers: BTreeSet<u64> = cycles.iter().filter_map(|c| c.number).collect();
        let max = numbers.last().copied().unwrap_or(0);
        let missing: Vec<u64> = (1..=max).filter(|n| !numbers.contains(n)).collect();
        let missing_names: Vec<String> = missing.iter().map(|n| format!("CYCLE-{n:06}")).collect();
        let r = if missing.is_empty() && unnumbered.is_empty() {
            CheckResult::new(
                &NUMBERING_GAP,
                Outcome::Passed,
                &subject,
                format!("{} cycle(s) numbered 1–{max} without gaps", numbers.len()),
            )
        } else {
            let mut parts = Vec::new();
            if !missing.is_empty() {
                parts.push(format!(
                    "{} {} missing (cycles 1–{max}, {} present)",
                    abbreviate(&missing_names),
                    if missing.len() == 1 { "is" } else { "are" },
                    numbers.len()
                ));
            }
            if !unnumbered.is_empty() {
                parts.push(format!("{} not numbered CYCLE-NNNNNN", unnumbered.join(", ")));
            }
            CheckResult::new(
                &NUMBERING_GAP,
                Outcome::Failed,
                &subject,
                format!("{}; numbering gaps are legitimate in the deployed variant", parts.join("; ")),
            )
        };
        out.push(at(
            r.with("missing", missing_names).with("present", numbers.len()).with("unnumbered", unnumbered),
            &dir,
        ));
    }
}

fn abbreviate(names: &[String]) -> String {
    if names.len() <= 6 { names.join(", ") } else { format!("{}, … ({} in all)", names[..5].join(", "), names.len()) }
}

fn well_formed(c: &DeployedCycle, out: &mut Vec<CheckResult>, at: &At<'_>) {
    let mut problems = Vec::new();
    match &c.result {
        Record::Missing => problems.push(format!("no {AUDIT_RESULT}: the directory is not counted as a cycle")),
        Record::Malformed(m) => problems.push(format!("{AUDIT_RESULT}: {m}")),
        Record::Ok(_) => {}
    }
    match &c.metadata {
        // Without a result the directory is not a cycle; its metadata is beside the point.
        _ if matches!(c.result, Record::Missing) => {}
        Record::Missing => problems.push(format!("no {RUN_METADATA}: the cycle's model and times are unknown")),
        Record::Malformed(m) => problems.push(format!("{RUN_METADATA}: {m}")),
        Record::Ok(_) => {}
    }
    if let Record::Malformed(m) = &c.manifest {
        problems.push(format!("{REPORT_MANIFEST}: {m}"));
    }
    for (name, reason) in &c.unreadable {
        if ![AUDIT_RESULT, RUN_METADATA, REPORT_MANIFEST].contains(&name.as_str()) {
            problems.push(format!("{name}: unreadable ({reason})"));
        }
    }
    let r = if problems.is_empty() {
        CheckResult::new(
            &RECORDS_WELL_FORMED,
            Outcome::Passed,
            &c.label,
            "records are strict JSON with the expected fields",
        )
    } else {
        CheckResult::new(&RECORDS_WELL_FORMED, Outcome::Failed, &c.label, problems.join("; "))
            .with("problems", problems.clone())
    };
    out.push(at(r, &c.path));
}

/// The report's `Decision:` and `Audited commit:` values, when it has them.
fn report_header(report: &str) -> (Option<String>, Option<String>) {
    let mut decision = None;
    let mut commit = None;
    for line in report.lines() {
        let l = line.trim();
        if decision.is_none()
            && let Some(rest) = l.strip_prefix("Decision:").or_else(|| l.strip_prefix("## Audit decision:"))
        {
            decision = Some(rest.trim().trim_matches('*').trim().to_owned());
        }
        if commit.is_none()
            && let Some(rest) = l.strip_prefix("Audited commit:")
        {
            commit = Some(rest.trim().trim_matches('`').trim().to_owned());
        }
    }
    (decision, commit)
}

/// Whether two commit renderings name the same commit: equal, or one an abbreviation (possibly
/// redacted with a trailing `…`) of the other.
fn same_commit(a: &str, b: &str) -> bool {
    let a = a.trim_end_matches('…').to_ascii_lowercase();
    let b = b.trim_end_matches('…').to_ascii_lowercase();
    !a.is_empty() && !b.is_empty() && (a.starts_with(&b) || b.starts_with(&a))
}

fn identity(c: &DeployedCycle, out: &mut Vec<CheckResult>, at: &At<'_>) {
    if matches!(c.result, Record::Missing) && matches!(c.metadata, Record::Missing) {
        return;
    }
    let mut failed = Vec::new();
    let mut unknown = Vec::new();
    let mut ev: BTreeMap<String, Value> = BTreeMap::new();
    let mut id_of = |file: &str, id: Option<&String>| match id {
        Some(id) if *id == c.dir => {}
        Some(id) => failed.push(format!("{file} says cycle_id {id}")),
        None => failed.push(format!("{file} has no cycle_id")),
    };
    let result = c.result.ok();
    let meta = c.metadata.ok();
    if let Some(r) = result {
        id_of(AUDIT_RESULT, r.cycle_id.as_ref());
    }
    if let Some(m) = meta {
        id_of(RUN_METADATA, m.cycle_id.as_ref());
    }
    if let Some(m) = c.manifest.ok() {
        id_of(REPORT_MANIFEST, m.cycle_id.as_ref());
    }
    let rc = result.and_then(|r| r.audited_commit.clone());
    let mc = meta.and_then(|m| m.audited_commit.clone());
    if result.is_some() && rc.is_none() {
        failed.push(format!("{AUDIT_RESULT} has no audited_commit"));
    }
    if meta.is_some() && mc.is_none() {
        failed.push(format!("{RUN_METADATA} has no audited_commit"));
    }
    if let (Some(a), Some(b)) = (&rc, &mc)
        && a != b
    {
        failed.push(format!("audited_commit differs between {AUDIT_RESULT} ({a}) and {RUN_METADATA} ({b})"));
    }
    ev.insert("audited_commit".into(), json!({AUDIT_RESULT: rc, RUN_METADATA: mc}));
    if let (Some(report), Some(r)) = (c.report(), result) {
        let (decision, commit) = report_header(&report);
        if let Some(d) = &decision
            && *d != r.decision
        {
            failed.push(format!("{AUDIT_REPORT} says decision {d}, {AUDIT_RESULT} says {}", r.decision));
        }
        if let (Some(rep), Some(res)) = (&commit, &rc)
            && !same_commit(rep, res)
        {
            failed.push(format!("{AUDIT_REPORT} names audited commit {rep}, {AUDIT_RESULT} {res}"));
        }
        ev.insert("report".into(), json!({"decision": decision, "audited_commit": commit}));
    }
    times(meta, &mut failed, &mut unknown, &mut ev);
    let mut r = if !failed.is_empty() {
        CheckResult::new(&RECORD_IDENTITY, Outcome::Failed, &c.label, failed.join("; "))
    } else if !unknown.is_empty() {
        CheckResult::new(
            &RECORD_IDENTITY,
            Outcome::CantTell,
            &c.label,
            format!("identity agrees, but {}: the cycle's duration is not measured", unknown.join(", ")),
        )
    } else {
        CheckResult::new(
            &RECORD_IDENTITY,
            Outcome::Passed,
            &c.label,
            "cycle_id, audited_commit and times agree across the cycle's files",
        )
    };
    r.evidence.extend(ev);
    out.push(at(r, &c.path));
}

/// The run's start and completion times (part of CV-A013): each an ISO-8601 time
/// with a zone, completion not before start; the audit's minutes go into the evidence.
fn times(
    meta: Option<&RunMetadata>,
    failed: &mut Vec<String>,
    unknown: &mut Vec<String>,
    ev: &mut BTreeMap<String, Value>,
) {
    match meta {
        Some(m) => {
            let parse = |name: &str, v: &Option<String>, failed: &mut Vec<String>, unknown: &mut Vec<String>| match v {
                None => {
                    unknown.push(format!("no {name}"));
                    None
                }
                Some(s) => {
                    let t = parse_timestamp(s);
                    if t.is_none() {
                        failed.push(format!("{name} {s:?} is not an ISO-8601 time with a zone"));
                    }
                    t
                }
            };
            let s = parse("started_at", &m.started_at, failed, unknown);
            let e = parse("completed_at", &m.completed_at, failed, unknown);
            if let (Some(s), Some(e)) = (s, e) {
                if e < s {
                    failed.push(format!(
                        "completed_at {} is before started_at {}",
                        m.completed_at.as_deref().unwrap_or_default(),
                        m.started_at.as_deref().unwrap_or_default()
                    ));
                }
                ev.insert(
                    "audit_minutes".into(),
                    serde_json::Number::from_f64(s.minutes_until(e)).map_or(Value::Null, Value::Number),
                );
            }
            ev.insert("started_at".into(), m.started_at.clone().into());
            ev.insert("completed_at".into(), m.completed_at.clone().into());
        }
        None => unknown.push(format!("{RUN_METADATA} unavailable: times unknown")),
    }
}

fn manifest(c: &DeployedCycle, out: &mut Vec<CheckResult>, at: &At<'_>) {
    let file_at = |name: &str| format!("{}/{name}", c.path);
    let m = match &c.manifest {
        Record::Ok(m) => m,
        Record::Malformed(_) => return,
        Record::Missing => {
            if !matches!(c.result, Record::Missing) {
                out.push(at(
                    CheckResult::new(
                        &MANIFEST_DIGESTS,
                        Outcome::CantTell,
                        &c.label,
                        format!("no {REPORT_MANIFEST}: the cycle's files cannot be hash-verified"),
                    ),
                    &c.path,
                ));
            }
            return;
        }
    };
    for (name, digest) in &m.files {
        let subject = format!("{}/{name}", c.label);
        let actual = c.files.get(name).map(|b| crate::manifest::Digest::of(b).hex());
        let r = match (digest, &actual) {
            (None, _) => CheckResult::new(&MANIFEST_DIGESTS, Outcome::Failed, &subject, "manifest entry has no sha256"),
            (Some(_), None) => CheckResult::new(
                &MANIFEST_DIGESTS,
                Outcome::Failed,
                &subject,
                "listed in the manifest, but the file is not in the cycle directory",
            )
            .with("listed", digest.clone()),
            (Some(d), Some(a)) if is_full_digest(d) => {
                if d.eq_ignore_ascii_case(a) {
                    CheckResult::new(&MANIFEST_DIGESTS, Outcome::Passed, &subject, "SHA-256 matches the manifest")
                        .with("sha256", a.clone())
                } else {
                    CheckResult::new(
                        &MANIFEST_DIGESTS,
                        Outcome::Failed,
                        &subject,
                        format!("SHA-256 is {a}, the manifest says {d}: the file changed after the cycle was recorded"),
                    )
                    .with("listed", d.clone())
                    .with("actual", a.clone())
                }
            }
            (Some(d), Some(a)) => {
                let visible: String =
                    d.chars().take_while(char::is_ascii_hexdigit).collect::<String>().to_ascii_lowercase();
                let prefix_matches = !visible.is_empty() && a.starts_with(&visible);
                CheckResult::new(
                    &MANIFEST_DIGESTS,
                    Outcome::CantTell,
                    &subject,
                    format!(
                        "digest {d} is redacted (truncated), not hash-verifiable; this is not evidence of tampering{}",
                        if prefix_matches {
                            " (its visible prefix matches the file)"
                        } else {
                            " (its visible prefix does not match the present bytes, as expected when the files were redacted after hashing)"
                        }
                    ),
                )
                .with("listed", d.clone())
                .with("actual", a.clone())
                .with("prefix_matches", prefix_matches)
            }
        };
        out.push(at(r, &file_at(name)));
    }
    for name in [AUDIT_REPORT, AUDIT_RESULT, RUN_METADATA] {
        if c.files.contains_key(name) && !m.files.contains_key(name) {
            out.push(at(
                CheckResult::new(
                    &MANIFEST_DIGESTS,
                    Outcome::Failed,
                    format!("{}/{name}", c.label),
                    format!("present in the cycle directory but not listed in {REPORT_MANIFEST}"),
                ),
                &file_at(name),
            ));
        }
    }
}

/// IDs listed under the report's "Blocking findings" and "Non-blocking caveats" headings: the
/// first `F-<digits>` of each list item in those sections.
fn report_sections(report: &str) -> Option<(Vec<String>, Vec<String>)> {
    let mut blocking = Vec::new();
    let mut caveats = Vec::new();
    let mut section: Option<bool> = None;
    let mut seen = false;
    for line in report.lines() {
        let l = line.trim();
        if l.starts_with('#') {
            let h = l.trim_start_matches('#').trim().to_ascii_lowercase();
            section = if h.starts_with("non-blocking") {
                Some(false)
            } else if h.starts_with("blocking findings") {
                Some(true)
            } else {
                None
            };
            seen |= section.is_some();
            continue;
        }
        let item = l.starts_with(['-', '*'])
            || l.split_once('.').is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if let (Some(block), true) = (section, item)
            && let Some(id) = find_finding_id(l)
        {
            if block { blocking.push(id) } else { caveats.push(id) }
        }
    }
    seen.then_some((blocking, caveats))
}

fn decision(c: &DeployedCycle, out: &mut Vec<CheckResult>, at: &At<'_>) {
    let Some(r) = c.result.ok() else { return };
    let blocking: Vec<&str> = r.findings.iter().filter(|f| f.is_blocking()).map(|f| f.finding_id.as_str()).collect();
    let caveats: Vec<&str> = r.findings.iter().filter(|f| !f.is_blocking()).map(|f| f.finding_id.as_str()).collect();
    let implied = if r.findings.is_empty() {
        "PASS"
    } else if blocking.is_empty() {
        "PASS_WITH_CAVEATS"
    } else {
        "BLOCK"
    };
    let mut note = String::new();
    let mut ev: BTreeMap<String, Value> = BTreeMap::new();
    if let Some((rb, rc)) = c.report().as_deref().and_then(report_sections) {
        let json_set: BTreeSet<&str> = blocking.iter().copied().collect();
        let report_set: BTreeSet<&str> = rb.iter().map(String::as_str).collect();
        if json_set != report_set {
            let gated_in_json_only: Vec<&str> = json_set.difference(&report_set).copied().collect();
            note = format!(
                "; the report's \"Blocking findings\" section disagrees: {} gate a scope in {AUDIT_RESULT} but the report does not list them as blocking (this check follows the JSON, as the published analyses do)",
                gated_in_json_only.join(", ")
            );
            ev.insert("report_disagrees".into(), true.into());
        }
        ev.insert("report_blocking".into(), json!(rb));
        ev.insert("report_non_blocking".into(), json!(rc));
    }
    let describe = |ids: &[&str]| if ids.is_empty() { "none".to_owned() } else { ids.join(", ") };
    let res = if r.decision == implied {
        CheckResult::new(
            &DECISION_SCOPES,
            Outcome::Passed,
            &c.label,
            format!(
                "decision {} follows from the findings (gating a scope: {}; not gating: {}){note}",
                r.decision,
                describe(&blocking),
                describe(&caveats)
            ),
        )
    } else {
        let why = match implied {
            "PASS" => "there are no findings".to_owned(),
            "PASS_WITH_CAVEATS" => format!("{} listed, none gating a scope", describe(&caveats)),
            _ => format!("{} gate(s) a scope", describe(&blocking)),
        };
        CheckResult::new(
            &DECISION_SCOPES,
            Outcome::Failed,
            &c.label,
            format!("decision {}, but the findings imply {implied} ({why}){note}", r.decision),
        )
    };
    let mut res = res
        .with("decision", r.decision.clone())
        .with("implied", implied)
        .with("blocking", blocking.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
        .with("non_blocking", caveats.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
    res.evidence.extend(ev);
    out.push(at(res, &format!("{}/{AUDIT_RESULT}", c.path)));
}

fn closed_while_open(c: &DeployedCycle, out: &mut Vec<CheckResult>, at: &At<'_>) {
    let Some(r) = c.result.ok() else { return };
    let listed: BTreeSet<&str> = r.findings.iter().map(|f| f.finding_id.as_str()).collect();
    let both: BTreeSet<&str> =
        r.verified_closed.iter().filter_map(|e| e.id.as_deref()).filter(|id| listed.contains(id)).collect();
    let res = if both.is_empty() {
        CheckResult::new(&CLOSED_WHILE_OPEN, Outcome::Passed, &c.label, "no finding is both listed and verified closed")
    } else {
        let ids: Vec<&str> = both.into_iter().collect();
        CheckResult::new(
            &CLOSED_WHILE_OPEN,
            Outcome::Failed,
            &c.label,
            format!("{} listed as finding(s) and verified closed in the same cycle", ids.join(", ")),
        )
        .with("ids", ids.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    };
    out.push(at(res, &format!("{}/{AUDIT_RESULT}", c.path)));
}

/// CV-A013 and CV-A014: one walk over the counted cycles in ledger order.
fn lifecycle(ledger: &DeployedLedger, out: &mut Vec<CheckResult>, at: &At<'_>) {
    let cycles: Vec<&DeployedCycle> = ledger.counted().collect();
    let unreadable: Vec<&str> = cycles.iter().filter(|c| c.result.ok().is_none()).map(|c| c.label.as_str()).collect();
    if !unreadable.is_empty() {
        for check in [&UNKNOWN_CLOSURE, &CLOSED_TWICE] {
            out.push(CheckResult::new(
                check,
                Outcome::CantTell,
                "ledger",
                format!(
                    "cannot follow findings through the ledger: {AUDIT_RESULT} unreadable in {}",
                    unreadable.join(", ")
                ),
            ));
        }
        return;
    }
    // Per project: findings do not carry over between projects' ledgers.
    for project in ledger.projects() {
        let mut state: BTreeMap<String, (State, String)> = BTreeMap::new();
        let mut any_closure = false;
        for c in cycles.iter().filter(|c| c.project == project) {
            let r = c.result.ok().expect("the walk returns early when any result is unreadable");
            let path = format!("{}/{AUDIT_RESULT}", c.path);
            if !r.verified_closed.is_empty() {
                any_closure = true;
                unknown_closure(c, r, &state, &path, out, at);
                let mut twice = Vec::new();
                for e in &r.verified_closed {
                    let Some(id) = e.id.as_deref() else { continue };
                    match state.get(id) {
                        Some((State::Closed, when)) => twice.push((id.to_owned(), when.clone())),
                        Some((State::Open, _)) => {
                            state.insert(id.to_owned(), (State::Closed, c.label.clone()));
                        }
                        None => {}
                    }
                }
                let res = if twice.is_empty() {
                    CheckResult::new(&CLOSED_TWICE, Outcome::Passed, &c.label, "no closure repeats an earlier one")
                } else {
                    let text: Vec<String> = twice.iter().map(|(id, when)| format!("{id} (closed in {when})")).collect();
                    CheckResult::new(
                        &CLOSED_TWICE,
                        Outcome::Failed,
                        &c.label,
                        format!(
                            "verifies closed again, with no re-raise since the previous closure: {}",
                            text.join(", ")
                        ),
                    )
                    .with("ids", twice.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>())
                };
                out.push(at(res, &path));
            }
            // Raises after closures: a closure verifies the state the previous cycles left.
            for f in &r.findings {
                state.insert(f.finding_id.clone(), (State::Open, c.label.clone()));
            }
        }
        if !any_closure {
            let subject = project.clone().unwrap_or_else(|| "ledger".to_owned());
            for check in [&UNKNOWN_CLOSURE, &CLOSED_TWICE] {
                out.push(CheckResult::new(check, Outcome::Inapplicable, &subject, "no cycle verifies any closure"));
            }
        }
    }
}

/// Whether a finding is open or closed as the walk through a project's cycles left it.
#[derive(Clone, Copy, PartialEq)]
enum State {
    Open,
    Closed,
}

/// CV-A016 for one cycle: every finding it verifies closed was raised by an
/// earlier cycle of its project.
fn unknown_closure(
    c: &DeployedCycle,
    r: &AuditResult,
    state: &BTreeMap<String, (State, String)>,
    path: &str,
    out: &mut Vec<CheckResult>,
    at: &At<'_>,
) {
    let mut unknown = Vec::new();
    let mut readings = Vec::new();
    for e in &r.verified_closed {
        match e.id.as_deref() {
            Some(id) if state.contains_key(id) => {}
            _ => {
                unknown.push(e.id.clone().unwrap_or_else(|| format!("{:?}", e.raw)));
                if e.id != e.id_anywhere {
                    readings.push(json!({"entry": e.raw, "mining_reading": e.id, "analysis_reading": e.id_anywhere}));
                }
            }
        }
    }
    let named: Vec<String> = r.verified_closed.iter().map(|e| e.raw.clone()).collect();
    let res = if unknown.is_empty() {
        CheckResult::new(
            &UNKNOWN_CLOSURE,
            Outcome::Passed,
            &c.label,
            format!("all {} verified closure(s) name findings raised earlier", named.len()),
        )
    } else {
        CheckResult::new(
            &UNKNOWN_CLOSURE,
            Outcome::Failed,
            &c.label,
            format!(
                "verifies {} closed, but no earlier cycle raised {}",
                unknown.join(", "),
                if unknown.len() == 1 { "it" } else { "them" }
            ),
        )
        .with("unknown", unknown)
        .with("readings", readings)
    };
    out.push(at(res.with("closed", named), path));
}

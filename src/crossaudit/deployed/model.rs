//! The deployed ledger as read: one [`DeployedCycle`] per `CYCLE-*` directory, its raw files and
//! the typed records parsed from them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::git::ObjectId;
use crate::json::Value;

/// Where a ledger was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A plain directory (the files as they are on disk).
    Directory {
        /// The directory the user named.
        root: PathBuf,
    },
    /// A git repository, read from objects at one commit (never from the work tree).
    Git {
        /// The repository the user named.
        repo: PathBuf,
        /// The commit the tree was read at.
        commit: ObjectId,
    },
}

impl Origin {
    /// The commit, for result locations.
    #[must_use]
    pub fn commit(&self) -> Option<String> {
        match self {
            Origin::Git { commit, .. } => Some(commit.to_string()),
            Origin::Directory { .. } => None,
        }
    }
}

/// A deployed-variant audit ledger (formats note §4.4, §5.7).
#[derive(Debug, Clone)]
pub struct DeployedLedger {
    /// Where it was read.
    pub origin: Origin,
    /// Every `CYCLE-*` directory found, sorted by path: project, then directory name (the
    /// order of the deployment's own `sorted(glob(...))`). Directories without an
    /// `audit_result.json` are kept (checks report them) but are not cycles for statistics.
    pub cycles: Vec<DeployedCycle>,
}

impl DeployedLedger {
    /// The cycles that count (§4 of the real-ledger note: a directory with an
    /// `audit_result.json`).
    pub fn counted(&self) -> impl Iterator<Item = &DeployedCycle> {
        self.cycles.iter().filter(|c| !matches!(c.result, Record::Missing))
    }

    /// Distinct project names, sorted (`None` for bare `CYCLE-*` directories).
    #[must_use]
    pub fn projects(&self) -> Vec<Option<String>> {
        let mut p: Vec<Option<String>> = self.cycles.iter().map(|c| c.project.clone()).collect();
        p.dedup();
        p
    }
}

/// A record file's state.
#[derive(Debug, Clone, PartialEq)]
pub enum Record<T> {
    /// The file is not in the cycle directory.
    Missing,
    /// The file is there but is not a well-formed record; the reason says why.
    Malformed(String),
    /// Parsed.
    Ok(T),
}

impl<T> Record<T> {
    /// The parsed record, if any.
    #[must_use]
    pub fn ok(&self) -> Option<&T> {
        match self {
            Record::Ok(t) => Some(t),
            _ => None,
        }
    }
}

/// One cycle directory.
#[derive(Debug, Clone)]
pub struct DeployedCycle {
    /// `<project>` of `projects/<project>/cycles/…`; `None` for a bare `CYCLE-*` directory.
    pub project: Option<String>,
    /// Directory name, e.g. `CYCLE-000004`.
    pub dir: String,
    /// Path of the directory relative to the ledger root (`projects/p/cycles/CYCLE-000004`).
    pub path: String,
    /// Subject used in results: the directory name, prefixed by the project when the ledger
    /// holds more than one.
    pub label: String,
    /// `NNNNNN` of `CYCLE-NNNNNN`, when the name has that shape.
    pub number: Option<u64>,
    /// Every regular file directly in the directory: name → bytes.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Files that could not be read (too large, unreadable object): name → reason.
    pub unreadable: BTreeMap<String, String>,
    /// `audit_result.json`.
    pub result: Record<AuditResult>,
    /// `codex_run_metadata.json`.
    pub metadata: Record<RunMetadata>,
    /// `report_manifest.json`.
    pub manifest: Record<ReportManifest>,
}

impl DeployedCycle {
    /// `audit_report.md` as text (lossy UTF-8), when present.
    #[must_use]
    pub fn report(&self) -> Option<String> {
        self.files.get(AUDIT_REPORT).map(|b| String::from_utf8_lossy(b).into_owned())
    }
}

/// `audit_report.md`.
pub const AUDIT_REPORT: &str = "audit_report.md";
/// `audit_result.json`.
pub const AUDIT_RESULT: &str = "audit_result.json";
/// `codex_run_metadata.json`.
pub const RUN_METADATA: &str = "codex_run_metadata.json";
/// `report_manifest.json`.
pub const REPORT_MANIFEST: &str = "report_manifest.json";

/// `audit_result.json` (formats note §5.7).
#[derive(Debug, Clone, PartialEq)]
pub struct AuditResult {
    /// `cycle_id`, when present.
    pub cycle_id: Option<String>,
    /// `audited_commit`, when present.
    pub audited_commit: Option<String>,
    /// `decision` (`BLOCK`, `PASS_WITH_CAVEATS`, `PASS`; other values are kept verbatim).
    pub decision: String,
    /// `findings`, in file order.
    pub findings: Vec<DeployedFinding>,
    /// `verified_closed_findings`, in file order (an absent list reads as empty, as the
    /// mining script's `.get(…, [])` does).
    pub verified_closed: Vec<ClosureEntry>,
    /// `summary`, when present.
    pub summary: Option<String>,
}

/// One finding of `audit_result.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeployedFinding {
    /// `finding_id` (`F-NNN`).
    pub finding_id: String,
    /// `title`.
    pub title: Option<String>,
    /// `severity` (`CRITICAL`, `HIGH`, `MEDIUM`, `LOW`).
    pub severity: Option<String>,
    /// `status` (only `OPEN` observed).
    pub status: Option<String>,
    /// `blocked_scopes`; `None` when null or absent.
    pub blocked_scopes: Option<Vec<String>>,
    /// `evidence` lines.
    pub evidence: Vec<String>,
}

impl DeployedFinding {
    /// Whether the finding gates some scope (the analyses' definition of blocking).
    #[must_use]
    pub fn is_blocking(&self) -> bool {
        self.blocked_scopes.as_ref().is_some_and(|s| !s.is_empty())
    }

    /// The value of the first evidence line typed `<prefix>:` (e.g. `source`), trimmed.
    #[must_use]
    pub fn typed_line(&self, prefix: &str) -> Option<&str> {
        self.evidence.iter().find_map(|l| {
            let rest = l.trim_start().strip_prefix(prefix)?;
            rest.strip_prefix(':').map(str::trim)
        })
    }
}

/// One entry of `verified_closed_findings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosureEntry {
    /// The string, or the object's `finding_id`.
    pub raw: String,
    /// The ID as the mining script reads it: the text before the first `:`, trimmed, then its
    /// leading `F-<digits>`, or that whole text when it has none (`None` when it is empty).
    pub id: Option<String>,
    /// The ID as the analysis script reads it: the first `F-<digits>` anywhere.
    pub id_anywhere: Option<String>,
}

impl ClosureEntry {
    /// Reads one entry's text both ways.
    #[must_use]
    pub fn new(raw: &str) -> ClosureEntry {
        let head = raw.split(':').next().unwrap_or("").trim();
        let id = leading_finding_id(head).or_else(|| (!head.is_empty()).then(|| head.to_owned()));
        ClosureEntry { raw: raw.to_owned(), id, id_anywhere: find_finding_id(raw) }
    }
}

/// `F-<digits>` at the start of `s`.
fn leading_finding_id(s: &str) -> Option<String> {
    let rest = s.strip_prefix("F-")?;
    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
    (n > 0).then(|| format!("F-{}", &rest[..n]))
}

/// The first `F-<digits>` anywhere in `s`.
#[must_use]
pub fn find_finding_id(s: &str) -> Option<String> {
    s.match_indices("F-").find_map(|(i, _)| leading_finding_id(&s[i..]))
}

/// `codex_run_metadata.json`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunMetadata {
    /// `cycle_id`.
    pub cycle_id: Option<String>,
    /// `audited_commit`.
    pub audited_commit: Option<String>,
    /// `runner` (`codex-cli`).
    pub runner: Option<String>,
    /// `runner_version`.
    pub runner_version: Option<String>,
    /// `model`; `None` when null or absent (CYCLE-000001 has none).
    pub model: Option<String>,
    /// `started_at`, verbatim.
    pub started_at: Option<String>,
    /// `completed_at`, verbatim.
    pub completed_at: Option<String>,
}

/// `report_manifest.json`: the per-file SHA-256 of the cycle's other files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportManifest {
    /// `cycle_id`.
    pub cycle_id: Option<String>,
    /// `files`: name → `sha256` value as written (`None` when the entry has no string `sha256`).
    pub files: BTreeMap<String, Option<String>>,
}

/// Whether a manifest digest is a full SHA-256 (64 hex) rather than a redacted or truncated
/// one such as `e4e6a3586dbc…`.
#[must_use]
pub fn is_full_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

// ---- strict record parsing -------------------------------------------------------------------

type Fields<'a> = &'a BTreeMap<String, Value>;

fn opt_str(m: Fields<'_>, key: &str) -> Result<Option<String>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!("`{key}` is a {}, expected a string", v.type_name())),
    }
}

fn str_list(v: &Value, what: &str) -> Result<Vec<String>, String> {
    let items = v.as_array().ok_or_else(|| format!("`{what}` is a {}, expected an array", v.type_name()))?;
    items
        .iter()
        .map(|i| i.as_str().map(str::to_owned).ok_or_else(|| format!("`{what}` holds a {}", i.type_name())))
        .collect()
}

fn object<'a>(v: &'a Value, what: &str) -> Result<Fields<'a>, String> {
    v.as_object().ok_or_else(|| format!("{what} is a {}, expected an object", v.type_name()))
}

fn parse_json(bytes: &[u8]) -> Result<Value, String> {
    crate::json::parse(bytes).map_err(|e| format!("not strict JSON: {e}"))
}

/// Parses `audit_result.json`.
///
/// # Errors
/// A sentence saying what is malformed.
pub fn parse_audit_result(bytes: &[u8]) -> Result<AuditResult, String> {
    let doc = parse_json(bytes)?;
    let m = object(&doc, "the document")?;
    let decision = match m.get("decision") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => return Err(format!("`decision` is a {}, expected a string", v.type_name())),
        None => return Err("no `decision`".into()),
    };
    let findings_v = m.get("findings").ok_or("no `findings` list")?;
    let items = findings_v
        .as_array()
        .ok_or_else(|| format!("`findings` is a {}, expected an array", findings_v.type_name()))?;
    let mut findings = Vec::with_capacity(items.len());
    for (i, f) in items.iter().enumerate() {
        let fm = object(f, &format!("finding #{}", i + 1))?;
        let at = |e: String| format!("finding #{}: {e}", i + 1);
        let finding_id = opt_str(fm, "finding_id").map_err(at)?.ok_or_else(|| at("no `finding_id`".into()))?;
        let blocked_scopes = match fm.get("blocked_scopes") {
            None | Some(Value::Null) => None,
            Some(v) => Some(str_list(v, "blocked_scopes").map_err(at)?),
        };
        let evidence = match fm.get("evidence") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => str_list(v, "evidence").map_err(at)?,
        };
        findings.push(DeployedFinding {
            finding_id,
            title: opt_str(fm, "title").map_err(at)?,
            severity: opt_str(fm, "severity").map_err(at)?,
            status: opt_str(fm, "status").map_err(at)?,
            blocked_scopes,
            evidence,
        });
    }
    let mut verified_closed = Vec::new();
    match m.get("verified_closed_findings") {
        None | Some(Value::Null) => {}
        Some(Value::Array(entries)) => {
            for (i, e) in entries.iter().enumerate() {
                let raw = match e {
                    Value::String(s) => s.clone(),
                    Value::Object(o) => match o.get("finding_id") {
                        Some(Value::String(s)) => s.clone(),
                        _ => {
                            return Err(format!(
                                "verified_closed_findings #{}: object without a string `finding_id`",
                                i + 1
                            ));
                        }
                    },
                    other => {
                        return Err(format!("verified_closed_findings #{} is a {}", i + 1, other.type_name()));
                    }
                };
                verified_closed.push(ClosureEntry::new(&raw));
            }
        }
        Some(v) => return Err(format!("`verified_closed_findings` is a {}, expected an array", v.type_name())),
    }
    Ok(AuditResult {
        cycle_id: opt_str(m, "cycle_id")?,
        audited_commit: opt_str(m, "audited_commit")?,
        decision,
        findings,
        verified_closed,
        summary: opt_str(m, "summary")?,
    })
}

/// Parses `codex_run_metadata.json`.
///
/// # Errors
/// A sentence saying what is malformed.
pub fn parse_run_metadata(bytes: &[u8]) -> Result<RunMetadata, String> {
    let doc = parse_json(bytes)?;
    let m = object(&doc, "the document")?;
    Ok(RunMetadata {
        cycle_id: opt_str(m, "cycle_id")?,
        audited_commit: opt_str(m, "audited_commit")?,
        runner: opt_str(m, "runner")?,
        runner_version: opt_str(m, "runner_version")?,
        model: opt_str(m, "model")?,
        started_at: opt_str(m, "started_at")?,
        completed_at: opt_str(m, "completed_at")?,
    })
}

/// Parses `report_manifest.json`.
///
/// # Errors
/// A sentence saying what is malformed.
pub fn parse_report_manifest(bytes: &[u8]) -> Result<ReportManifest, String> {
    let doc = parse_json(bytes)?;
    let m = object(&doc, "the document")?;
    let files_v = m.get("files").ok_or("no `files` object")?;
    let fm = object(files_v, "`files`")?;
    let mut files = BTreeMap::new();
    for (name, entry) in fm {
        let digest = match entry {
            Value::Object(o) => match o.get("sha256") {
                Some(Value::String(s)) => Some(s.clone()),
                _ => None,
            },
            // A bare string digest is not the deployed shape but names the digest unambiguously.
            Value::String(s) => Some(s.clone()),
            _ => None,
        };
        files.insert(name.clone(), digest);
    }
    Ok(ReportManifest { cycle_id: opt_str(m, "cycle_id")?, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_entries_are_read_both_ways() {
        let e = ClosureEntry::new("F-003");
        assert_eq!((e.id.as_deref(), e.id_anywhere.as_deref()), (Some("F-003"), Some("F-003")));
        let e = ClosureEntry::new("F-012: fixed in 4aed10a");
        assert_eq!((e.id.as_deref(), e.id_anywhere.as_deref()), (Some("F-012"), Some("F-012")));
        let e = ClosureEntry::new("closed F-004: see F-009");
        assert_eq!((e.id.as_deref(), e.id_anywhere.as_deref()), (Some("closed F-004"), Some("F-004")));
        let e = ClosureEntry::new(": F-007");
        assert_eq!((e.id.as_deref(), e.id_anywhere.as_deref()), (None, Some("F-007")));
        let e = ClosureEntry::new("nothing");
        assert_eq!((e.id.as_deref(), e.id_anywhere), (Some("nothing"), None));
    }

    #[test]
    fn strict_parsing_refuses_duplicates_and_wrong_types() {
        assert!(parse_audit_result(br#"{"decision":"PASS","findings":[],"decision":"BLOCK"}"#).is_err());
        assert!(parse_audit_result(br#"{"decision":1,"findings":[]}"#).is_err());
        assert!(parse_audit_result(br#"{"decision":"PASS"}"#).is_err());
        let r = parse_audit_result(
            br#"{"decision":"PASS_WITH_CAVEATS","findings":[{"finding_id":"F-1","blocked_scopes":null,
                "evidence":["source: JUDGMENT","finding_class:HARD"]}],
                "verified_closed_findings":[{"finding_id":"F-0"},"F-2: done"]}"#,
        )
        .expect("parses");
        assert!(!r.findings[0].is_blocking());
        assert_eq!(r.findings[0].typed_line("source"), Some("JUDGMENT"));
        assert_eq!(r.findings[0].typed_line("finding_class"), Some("HARD"));
        assert_eq!(
            r.verified_closed.iter().map(|c| c.id.clone().unwrap_or_default()).collect::<Vec<_>>(),
            ["F-0", "F-2"]
        );
        assert!(parse_run_metadata(br#"{"model": 5}"#).is_err());
        let m = parse_report_manifest(br#"{"cycle_id":"CYCLE-000001","files":{"a":{"sha256":"e4e6a3586dbc\u2026"}}}"#)
            .expect("manifest");
        assert!(!is_full_digest(m.files["a"].as_deref().unwrap_or_default()));
    }
}

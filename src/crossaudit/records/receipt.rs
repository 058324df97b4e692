//! Receipts: the v1 flat receipt (formats note §5.4) and the product's schema 2 (§5.6),
//! parsed into one normalised view with every structural problem listed.

use std::collections::BTreeMap;

pub use super::manifest::Manifest;
use crate::json::{self, Value};
use crate::manifest::Digest;

/// Receipt family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum Family {
    /// v1 reference: flat, identity = SHA-256 of the file bytes.
    V1,
    /// Product receipt schema 2: nested, identity = SHA-256 of the canonical JSON.
    Schema2,
}

impl Family {
    /// Name used in reports.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Family::V1 => "v1",
            Family::Schema2 => "schema2",
        }
    }
}

/// The `isolation` block of a schema-2 receipt.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Isolation {
    /// Dimension → asserted (`parametric`, `contextual`, `permissive`).
    pub dims: BTreeMap<String, bool>,
    /// Evidence strings (`execution`, `credential`, `provider`, `provisioner`, `admission`).
    pub evidence: BTreeMap<String, String>,
}

/// A parsed receipt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Receipt {
    /// Family.
    pub family: Family,
    /// SHA-256 of the file bytes (v1 identity): always for v1; for schema 2 from
    /// [`Receipt::parse`], not from [`Receipt::parse_identity`].
    pub file_sha256: Option<Digest>,
    /// SHA-256 of the canonical JSON (schema-2 identity).
    pub canonical_sha256: Digest,
    /// `science_repo` / `subject.science_repo`.
    pub science_repo: Option<String>,
    /// Audited commit.
    pub sha: Option<String>,
    /// Its tree.
    pub tree: Option<String>,
    /// Round.
    pub round: Option<i64>,
    /// Controller cycle id.
    pub cycle_id: Option<String>,
    /// `cycle.root_sha` (schema 2).
    pub root_sha: Option<String>,
    /// `cycle.active_sha` (schema 2).
    pub active_sha: Option<String>,
    /// `cycle.parent_receipt` (schema 2).
    pub parent_receipt: Option<String>,
    /// Manifest path → digest or `ABSENT`.
    pub manifest: Option<Manifest>,
    /// v1 `constitution_hash` / schema-2 `inputs.constitution_commit`.
    pub constitution_commit: Option<String>,
    /// Schema-2 `inputs.constitution_sha256`.
    pub constitution_sha256: Option<String>,
    /// Constitution path (schema 2 `inputs.constitution_path`, default `AUDIT_RULES.md`).
    pub constitution_path: String,
    /// DCL source digest.
    pub dcl_source_sha256: Option<String>,
    /// Schema-2 `inputs.checks` as canonical JSON: with the DCL digest, what the layer ran.
    pub dcl_checks: Option<String>,
    /// Prompt digest.
    pub prompt_sha256: Option<String>,
    /// Report digest.
    pub report_sha256: Option<String>,
    /// Auditor model (`auditor_model` / `audit.model`).
    pub auditor_model: Option<String>,
    /// Schema-2 `audit.vendor`.
    pub auditor_vendor: Option<String>,
    /// Schema-2 `audit.provider`.
    pub provider: Option<String>,
    /// Verdict.
    pub verdict: Option<String>,
    /// `audit_integrity`.
    pub integrity: Option<String>,
    /// v1 `input_bounds_exceeded`.
    pub bounds_exceeded: Option<i64>,
    /// Schema-2 `subject.scope`.
    pub scope: Option<String>,
    /// Schema-2 `ledger.audit_repo`.
    pub audit_repo: Option<String>,
    /// Schema-2 `ledger.report_commit`.
    pub report_commit: Option<String>,
    /// Schema-2 `ledger.cycle_path`.
    pub cycle_path: Option<String>,
    /// Schema-2 `audit.exchange.mode`.
    pub exchange_mode: Option<String>,
    /// Schema-2 `audit.exchange.error` present.
    pub exchange_error: bool,
    /// Schema-2 `verifier.version`.
    pub verifier_version: Option<String>,
    /// Schema-2 `verifier.install_mode`.
    pub install_mode: Option<String>,
    /// Schema-2 `isolation`.
    pub isolation: Option<Isolation>,
    /// Schema-2 `audit.reasoning_effort` present (product 4.x).
    pub v4: bool,
    /// Schema-2 `audit.reasoning_effort` (product 4.x).
    pub reasoning_effort: Option<String>,
    /// Schema-2 `audit.exchange` identity fields an online run records (`provider`, `vendor`,
    /// `model`, `reasoning_effort`).
    pub exchange_identity: BTreeMap<String, String>,
    /// Structural problems, in reference order; each is a `receipt-malformed` failure.
    pub problems: Vec<String>,
    /// Manifest keys that are not repository paths (never looked up in a tree).
    pub bad_keys: std::collections::BTreeSet<String>,
    /// Schema-2 fields the product's builder always writes or derives, missing or contradicting
    /// their source (CV-A718).
    pub derivation: Vec<String>,
    /// Schema-2 `inputs.checks` when it is a list of names.
    pub inputs_checks: Option<Vec<String>>,
    /// Schema-2 `audit.fallback` when boolean.
    pub audit_fallback: Option<bool>,
}

/// A receipt that is not even a receipt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// Not strict JSON.
    #[error("not valid JSON: {0}")]
    Json(#[from] json::Error),
    /// Not an object.
    #[error("receipt is not a JSON object")]
    NotAnObject,
    /// Neither family.
    #[error("neither a v1 receipt (no constitution_hash) nor a schema-2 receipt (no receipt_schema)")]
    UnknownFamily,
    /// `receipt_schema` present but not the integer 2.
    #[error("receipt_schema {0} is not supported (expects the integer 2)")]
    UnsupportedSchema(String),
}

/// v1 required keys, in the reference verifier's order (§7.1 check 2).
pub const V1_REQUIRED: [&str; 13] = [
    "science_repo",
    "sha",
    "tree",
    "round",
    "cycle_id",
    "manifest",
    "constitution_hash",
    "dcl_source_sha256",
    "prompt_sha256",
    "report_sha256",
    "auditor_model",
    "verdict",
    "audit_integrity",
];

/// Verdicts a receipt may carry.
pub const VERDICTS: [&str; 4] = ["PASS", "BLOCKED", "ESCALATE", "DCL_ONLY"];

/// Schema-2 required keys per block, in the reference order (§7.3 check 5).
pub const S2_REQUIRED: [(&str, &[&str]); 7] = [
    ("top level", &["receipt_schema", "subject", "cycle", "inputs", "audit", "ledger", "verifier", "isolation"]),
    ("subject", &["science_repo", "sha", "tree", "scope"]),
    ("cycle", &["cycle_id", "root_sha", "active_sha", "parent_receipt", "round"]),
    (
        "inputs",
        &[
            "manifest",
            "constitution_sha256",
            "constitution_commit",
            "dcl_source_sha256",
            "prompt_sha256",
            "checks",
            "skills",
        ],
    ),
    ("audit", &["verdict", "provider", "model", "vendor", "audit_integrity", "exchange", "retention"]),
    ("ledger", &["audit_repo", "report_commit", "cycle_path", "report_sha256"]),
    ("verifier", &["project", "version", "code_digest_sha256", "install_mode"]),
];

fn is_hex(s: &str, len: usize) -> bool {
    // Every byte tested without an early exit: the loop vectorises (ten thousand digests per
    // receipt; a short-circuiting `all` was 2% of a cold ledger run).
    s.len() == len && s.bytes().fold(true, |ok, b| ok & ((b.wrapping_sub(b'0') < 10) | (b.wrapping_sub(b'a') < 6)))
}

/// Problems with a manifest key under its dialect's spelling of tree names (see
/// [`scope::manifest_key`](crate::crossaudit::records::scope::manifest_key)): v1 keys are git's C-quoted form of
/// any name git quotes and the raw name otherwise, so each file has exactly one spelling;
/// schema-2 keys are raw UTF-8, backslashes and control characters included (git accepts
/// them). Either way the name must be a repository path: not empty, not absolute, no `..`,
/// empty or `.` component, no NUL.
#[must_use]
pub fn manifest_key_problem(k: &str, family: Family) -> Option<String> {
    use gix::bstr::ByteSlice;
    let raw: Vec<u8> = match family {
        Family::V1 if k.starts_with('"') => {
            let Some(bytes) = crate::git::c_unquote(k) else {
                return Some("not a well-formed C-quoted name".into());
            };
            if !crate::git::needs_c_quote(bytes.as_bstr()) {
                return Some(format!("git writes this name unquoted ({bytes}): a second spelling of one path"));
            }
            let canonical = crate::git::c_quote(bytes.as_bstr());
            if canonical != k {
                return Some(format!("git quotes this name as {canonical}: a second spelling of one path"));
            }
            bytes.into()
        }
        Family::V1 if crate::git::needs_c_quote(k.as_bytes().as_bstr()) => {
            return Some(format!(
                "git writes this name C-quoted ({}): the raw spelling would name one file two ways",
                crate::git::c_quote(k.as_bytes().as_bstr())
            ));
        }
        // The key is its own name: checked where it lies, not copied (ten thousand per receipt).
        Family::V1 | Family::Schema2 => return name_problem(k.as_bytes(), k),
    };
    name_problem(&raw, &String::from_utf8_lossy(&raw))
}

/// Problems with a name given as its bytes and as text.
fn name_problem(raw: &[u8], text: &str) -> Option<String> {
    if raw.contains(&0) {
        return Some("NUL in path (git cannot store it)".into());
    }
    path_shape_problem(text).map(str::to_owned)
}

/// Component rules shared by every dialect.
fn path_shape_problem(p: &str) -> Option<&'static str> {
    if p.is_empty() {
        return Some("empty path");
    }
    if p.starts_with('/') {
        return Some("absolute path");
    }
    // A `.` or `..` component starts the path or follows a `/`, and an empty one (the path is
    // neither empty nor absolute here) is a `//` or a trailing `/`: most keys are answered by
    // looking at the byte after each `/`, without splitting.
    let b = p.as_bytes();
    if b[0] != b'.' && memchr::memchr_iter(b'/', b).all(|i| !matches!(b.get(i + 1), None | Some(b'.' | b'/'))) {
        return None;
    }
    let comps = p.split('/');
    let (mut dot_dot, mut empty_or_dot) = (false, false);
    for c in comps {
        dot_dot |= c == "..";
        empty_or_dot |= c.is_empty() || c == ".";
    }
    component_problem(dot_dot, empty_or_dot)
}

/// The verdict on a path's components, shared by both key spellings.
fn component_problem(dot_dot: bool, empty_or_dot: bool) -> Option<&'static str> {
    if dot_dot {
        Some("`..` component escapes the repository")
    } else if empty_or_dot {
        Some("empty or `.` path component")
    } else {
        None
    }
}

/// Problems with a manifest key as a repository path (absolute, `..`, empty components…).
#[must_use]
pub fn path_problem(p: &str) -> Option<&'static str> {
    if p.is_empty() {
        return Some("empty path");
    }
    if p.starts_with('/') {
        return Some("absolute path");
    }
    // One pass over the bytes: manifests run to tens of thousands of keys.
    let (mut dot_dot, mut empty_or_dot, mut start) = (false, false, 0);
    let bytes = p.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\\' => return Some("backslash in path"),
            0..0x20 => return Some("control character in path"),
            b'/' => {
                let c = &bytes[start..i];
                dot_dot |= c == b"..";
                empty_or_dot |= c.is_empty() || c == b".";
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = &bytes[start..];
    dot_dot |= last == b"..";
    empty_or_dot |= last.is_empty() || last == b".";
    component_problem(dot_dot, empty_or_dot)
}

/// Moves the object at `path` out of `v`, leaving an empty object: `Some(Err(()))` when
/// something other than an object is there, `None` when nothing is.
fn take_object(v: &mut Value, path: &[&str]) -> Option<Result<BTreeMap<String, Value>, ()>> {
    let (last, parents) = path.split_last()?;
    let mut cur = v;
    for p in parents {
        cur = match cur {
            Value::Object(m) => m.get_mut(*p)?,
            _ => return None,
        };
    }
    let Value::Object(m) = cur else { return None };
    match m.get_mut(*last)? {
        Value::Object(inner) => Some(Ok(std::mem::take(inner))),
        _ => Some(Err(())),
    }
}

impl Receipt {
    /// Parses receipt bytes.
    ///
    /// # Errors
    /// When the bytes are not a receipt of either family at all; structural problems of a
    /// recognisable receipt are collected in [`Receipt::problems`] instead.
    pub fn parse(bytes: &[u8]) -> Result<Receipt, ParseError> {
        Self::parse_digests(bytes, true)
    }

    /// [`Receipt::parse`] with only the digest that is the family's identity: a schema-2
    /// receipt's file bytes are not hashed. A ledger run needs no other, and each digest is a
    /// SHA-256 pass over the whole receipt (4% of a cold run of the bench ledger).
    ///
    /// # Errors
    /// As [`Receipt::parse`].
    pub fn parse_identity(bytes: &[u8]) -> Result<Receipt, ParseError> {
        Self::parse_digests(bytes, false)
    }

    fn parse_digests(bytes: &[u8], file_digest: bool) -> Result<Receipt, ParseError> {
        let (mut raw, canonical) = json::parse_canonical_sha256(bytes)?;
        let Value::Object(top) = &raw else { return Err(ParseError::NotAnObject) };
        let family = if let Some(s) = top.get("receipt_schema") {
            match s {
                Value::Number(n) if n.as_str() == "2" => Family::Schema2,
                other => return Err(ParseError::UnsupportedSchema(json::canonical(other))),
            }
        } else if top.contains_key("constitution_hash") {
            Family::V1
        } else {
            return Err(ParseError::UnknownFamily);
        };
        let file_sha256 = (file_digest || family == Family::V1).then(|| Digest::of(bytes));
        let canonical_sha256 = Digest(canonical);
        // The manifest is moved out (its place left as an empty object, so presence checks
        // still see it): copying ten thousand entries per receipt is the cost to avoid.
        let manifest_path: &[&str] = match family {
            Family::V1 => &["manifest"],
            Family::Schema2 => &["inputs", "manifest"],
        };
        let taken = take_object(&mut raw, manifest_path);
        let mut r = Receipt {
            family,
            file_sha256,
            canonical_sha256,
            science_repo: None,
            sha: None,
            tree: None,
            round: None,
            cycle_id: None,
            root_sha: None,
            active_sha: None,
            parent_receipt: None,
            manifest: None,
            constitution_commit: None,
            constitution_sha256: None,
            constitution_path: "AUDIT_RULES.md".into(),
            dcl_source_sha256: None,
            dcl_checks: None,
            prompt_sha256: None,
            report_sha256: None,
            auditor_model: None,
            auditor_vendor: None,
            provider: None,
            verdict: None,
            integrity: None,
            bounds_exceeded: None,
            scope: None,
            audit_repo: None,
            report_commit: None,
            cycle_path: None,
            exchange_mode: None,
            exchange_error: false,
            verifier_version: None,
            install_mode: None,
            isolation: None,
            v4: false,
            reasoning_effort: None,
            exchange_identity: BTreeMap::new(),
            problems: Vec::new(),
            bad_keys: std::collections::BTreeSet::new(),
            derivation: Vec::new(),
            inputs_checks: None,
            audit_fallback: None,
        };
        match family {
            Family::V1 => r.read_v1(&raw),
            Family::Schema2 => r.read_schema2(&raw),
        }
        r.manifest_from(taken);
        r.check_values();
        Ok(r)
    }

    /// The identity controllers record: file bytes (v1) or canonical JSON (schema 2). Both
    /// parsers compute it; `None` only for a receipt deserialized without it.
    #[must_use]
    pub fn identity(&self) -> Option<Digest> {
        match self.family {
            Family::V1 => self.file_sha256,
            Family::Schema2 => Some(self.canonical_sha256),
        }
    }

    fn string(&mut self, v: &Value, path: &[&str]) -> Option<String> {
        match v.pointer(path) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.problems.push(format!("{} is a {}, not a string", path.join("."), other.type_name()));
                None
            }
            None => None,
        }
    }

    fn int(&mut self, v: &Value, path: &[&str]) -> Option<i64> {
        match v.pointer(path) {
            Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64(),
            Some(other) => {
                self.problems.push(format!("{} is not an integer ({})", path.join("."), json::canonical(other)));
                None
            }
            None => None,
        }
    }

    fn manifest_from(&mut self, taken: Option<Result<BTreeMap<String, Value>, ()>>) {
        match taken {
            Some(Ok(m)) => self.manifest = Some(Manifest::from_object(m, &mut self.problems)),
            Some(Err(())) => self.problems.push("manifest must be a mapping of path to digest".into()),
            None => {}
        }
    }

    fn read_v1(&mut self, v: &Value) {
        let missing: Vec<&str> = V1_REQUIRED.iter().copied().filter(|k| v.get(k).is_none()).collect();
        if !missing.is_empty() {
            self.problems.push(format!("receipt missing fields: {missing:?}"));
        }
        self.science_repo = self.string(v, &["science_repo"]);
        self.sha = self.string(v, &["sha"]);
        self.tree = self.string(v, &["tree"]);
        self.round = self.int(v, &["round"]);
        self.cycle_id = self.string(v, &["cycle_id"]);
        self.constitution_commit = self.string(v, &["constitution_hash"]);
        self.dcl_source_sha256 = self.string(v, &["dcl_source_sha256"]);
        self.prompt_sha256 = self.string(v, &["prompt_sha256"]);
        self.report_sha256 = self.string(v, &["report_sha256"]);
        self.auditor_model = self.string(v, &["auditor_model"]);
        self.verdict = self.string(v, &["verdict"]);
        self.integrity = self.string(v, &["audit_integrity"]);
        self.bounds_exceeded = self.int(v, &["input_bounds_exceeded"]);
        if let Some(i) = &self.integrity
            && !["OK", "AUDITOR_INVALID_ESCALATION_REQUIRED"].contains(&i.as_str())
        {
            self.problems
                .push(format!("audit_integrity {i:?} is not a v1 value (OK, AUDITOR_INVALID_ESCALATION_REQUIRED)"));
        }
    }

    fn read_schema2(&mut self, v: &Value) {
        for (block, keys) in S2_REQUIRED {
            let obj = if block == "top level" { Some(v) } else { v.get(block) };
            match obj {
                Some(Value::Object(m)) => {
                    let missing: Vec<&str> = keys.iter().copied().filter(|k| !m.contains_key(*k)).collect();
                    if !missing.is_empty() {
                        self.problems.push(format!("receipt {block} is missing {missing:?}"));
                    }
                }
                Some(other) => self.problems.push(format!("receipt {block} is a {}, not an object", other.type_name())),
                None => {}
            }
        }
        self.science_repo = self.string(v, &["subject", "science_repo"]);
        self.sha = self.string(v, &["subject", "sha"]);
        self.tree = self.string(v, &["subject", "tree"]);
        self.scope = self.string(v, &["subject", "scope"]);
        self.cycle_id = self.string(v, &["cycle", "cycle_id"]);
        self.root_sha = self.string(v, &["cycle", "root_sha"]);
        self.active_sha = self.string(v, &["cycle", "active_sha"]);
        self.parent_receipt = self.string(v, &["cycle", "parent_receipt"]);
        self.round = self.int(v, &["cycle", "round"]);
        self.constitution_sha256 = self.string(v, &["inputs", "constitution_sha256"]);
        self.constitution_commit = self.string(v, &["inputs", "constitution_commit"]);
        if let Some(p) = self.string(v, &["inputs", "constitution_path"]) {
            self.constitution_path = p;
        }
        self.dcl_source_sha256 = self.string(v, &["inputs", "dcl_source_sha256"]);
        self.dcl_checks = v.pointer(&["inputs", "checks"]).map(json::canonical);
        self.inputs_checks = v
            .pointer(&["inputs", "checks"])
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(|c| c.as_str().map(str::to_owned)).collect());
        self.audit_fallback = v.pointer(&["audit", "fallback"]).and_then(Value::as_bool);
        self.derivation = crate::crossaudit::records::derive::receipt_problems(v);
        self.prompt_sha256 = self.string(v, &["inputs", "prompt_sha256"]);
        self.verdict = self.string(v, &["audit", "verdict"]);
        self.provider = self.string(v, &["audit", "provider"]);
        self.auditor_model = self.string(v, &["audit", "model"]);
        self.auditor_vendor = self.string(v, &["audit", "vendor"]);
        self.integrity = self.string(v, &["audit", "audit_integrity"]);
        self.exchange_mode = self.string(v, &["audit", "exchange", "mode"]);
        self.exchange_error = v.pointer(&["audit", "exchange", "error"]).is_some();
        self.v4 = v.pointer(&["audit", "reasoning_effort"]).is_some();
        self.reasoning_effort = self.string(v, &["audit", "reasoning_effort"]);
        for k in ["provider", "vendor", "model", "reasoning_effort"] {
            // Only compared when present as text (CV-A102); the exchange block's shape is the
            // product's business, not a required field.
            if let Some(x) = v.pointer(&["audit", "exchange", k]).and_then(Value::as_str) {
                self.exchange_identity.insert(k.to_owned(), x.to_owned());
            }
        }
        self.audit_repo = self.string(v, &["ledger", "audit_repo"]);
        self.report_commit = self.string(v, &["ledger", "report_commit"]);
        self.cycle_path = self.string(v, &["ledger", "cycle_path"]);
        self.report_sha256 = self.string(v, &["ledger", "report_sha256"]);
        self.verifier_version = self.string(v, &["verifier", "version"]);
        self.install_mode = self.string(v, &["verifier", "install_mode"]);
        if let Some(r) = self.string(v, &["audit", "retention"])
            && !["sealed", "redacted", "no-raw"].contains(&r.as_str())
        {
            self.problems.push("retention mode must be one of ('sealed', 'redacted', 'no-raw')".into());
        }
        if let Some(i) = &self.integrity
            && !["OK", "INVALID_REPLY", "BOUNDS_EXCEEDED", "PROVIDER_FAILURE", "NON_EVIDENTIAL_PROVIDER"]
                .contains(&i.as_str())
        {
            self.problems.push(format!("audit_integrity {i:?} is not a schema-2 value"));
        }
        match v.get("isolation") {
            Some(Value::Object(iso)) => {
                let mut out = Isolation::default();
                for dim in ["parametric", "contextual", "permissive"] {
                    match iso.get(dim) {
                        Some(Value::Bool(b)) => {
                            out.dims.insert(dim.to_owned(), *b);
                        }
                        _ => self.problems.push(format!("isolation.{dim} must be present and boolean")),
                    }
                }
                for key in ["execution", "credential", "provisioner", "admission", "provider"] {
                    match iso.get(key) {
                        Some(Value::String(s)) => {
                            out.evidence.insert(key.to_owned(), s.clone());
                        }
                        Some(_) => self.problems.push(format!("isolation.{key} evidence is not a string")),
                        None if key != "provider" => self.problems.push(format!("isolation.{key} evidence is missing")),
                        None => {}
                    }
                }
                self.isolation = Some(out);
            }
            Some(_) => self.problems.push("isolation must be a mapping".into()),
            None => {}
        }
    }

    /// Value-level rules shared by both families (stricter than the references: they only
    /// check presence, so a 39-character SHA or a `../` manifest key would pass there).
    fn check_values(&mut self) {
        let mut p = Vec::new();
        if let Some(s) = &self.sha
            && !is_hex(s, 40)
        {
            p.push(format!("sha {s:?} is not a full 40-hex commit id"));
        }
        if let Some(t) = &self.tree
            && !is_hex(t, 40)
        {
            p.push(format!("tree {t:?} is not a 40-hex tree id"));
        }
        if let Some(r) = self.round
            && r < 1
        {
            p.push(format!("round {r} is not a positive integer"));
        }
        if let Some(v) = &self.verdict
            && !VERDICTS.contains(&v.as_str())
        {
            p.push(format!("verdict {v:?} is not one of {VERDICTS:?}"));
        }
        let digests = [
            ("report_sha256", &self.report_sha256),
            ("dcl_source_sha256", &self.dcl_source_sha256),
            ("prompt_sha256", &self.prompt_sha256),
            ("constitution_sha256", &self.constitution_sha256),
        ];
        for (name, d) in digests {
            if let Some(d) = d
                && !is_hex(d, 64)
            {
                p.push(format!("{name} {d:?} is not a 64-hex SHA-256"));
            }
        }
        if let Some(m) = &self.auditor_model
            && m.trim().is_empty()
        {
            p.push("auditor model is empty: the auditor's identity is not declared".into());
        }
        if let Some(m) = &self.manifest {
            for (k, v) in m.iter() {
                if let Some(why) = manifest_key_problem(k, self.family) {
                    p.push(format!("manifest key {k:?}: {why}"));
                    self.bad_keys.insert(k.clone());
                }
                if v != "ABSENT" && !is_hex(v, 64) {
                    p.push(format!("manifest entry {k:?} is neither a 64-hex SHA-256 nor ABSENT"));
                }
            }
        }
        if self.family == Family::Schema2 {
            if let Some(pr) = &self.parent_receipt
                && !pr.is_empty()
                && !is_hex(pr, 64)
            {
                p.push(format!("parent_receipt {pr:?} is neither empty nor a 64-hex digest"));
            }
            if let Some(c) = &self.cycle_path
                && let Some(why) = path_problem(c)
            {
                p.push(format!("ledger.cycle_path {c:?}: {why}"));
            }
        }
        self.problems.extend(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_refusals() {
        assert!(matches!(Receipt::parse(b"[]"), Err(ParseError::NotAnObject)));
        assert!(matches!(Receipt::parse(b"{}"), Err(ParseError::UnknownFamily)));
        assert!(matches!(Receipt::parse(br#"{"receipt_schema":"2"}"#), Err(ParseError::UnsupportedSchema(_))));
        assert!(matches!(Receipt::parse(br#"{"receipt_schema":99}"#), Err(ParseError::UnsupportedSchema(_))));
        assert!(matches!(Receipt::parse(br#"{"receipt_schema":2.0}"#), Err(ParseError::UnsupportedSchema(_))));
        assert!(matches!(
            Receipt::parse(br#"{"constitution_hash":"x","verdict":"PASS","verdict":"BLOCKED"}"#),
            Err(ParseError::Json(_))
        ));
        let r =
            Receipt::parse(br#"{"constitution_hash":"unversioned","sha":"abc","manifest":{"../x":"ABSENT","a":"zz"}}"#)
                .unwrap();
        assert_eq!(r.family, Family::V1);
        let all = r.problems.join("\n");
        assert!(all.contains("receipt missing fields"), "{all}");
        assert!(all.contains("not a full 40-hex"), "{all}");
        assert!(all.contains("escapes the repository"), "{all}");
        assert!(all.contains("neither a 64-hex"), "{all}");
    }

    #[test]
    fn path_rules() {
        assert_eq!(path_problem("experiments/a.json"), None);
        assert!(path_problem("/etc/passwd").is_some());
        assert!(path_problem("a/../b").is_some());
        assert!(path_problem("a//b").is_some());
        assert!(path_problem("./a").is_some());
        assert!(path_problem("").is_some());
        // Names git accepts are legal keys in the spelling of their dialect.
        for k in ["a\\b", "a\tb", "a\nb", "\"quoted\"", "é.json"] {
            assert_eq!(manifest_key_problem(k, Family::Schema2), None, "{k:?}");
        }
        assert_eq!(manifest_key_problem("\"experiments/\\303\\251.json\"", Family::V1), None);
        assert_eq!(manifest_key_problem("\"a\\tb\\\\c\"", Family::V1), None);
        // v1 has one spelling per name: raw where git quotes, or quoting where git does not, is a second one.
        assert!(manifest_key_problem("experiments/é.json", Family::V1).unwrap().contains("\\303\\251"));
        assert!(manifest_key_problem("\"abc\"", Family::V1).is_some());
        assert!(manifest_key_problem("\"a\\q\"", Family::V1).is_some());
        assert!(manifest_key_problem("\"../x\"", Family::V1).is_some());
        assert!(manifest_key_problem("a\u{0}b", Family::Schema2).is_some());
        assert!(manifest_key_problem("a/../b", Family::Schema2).is_some());
    }

    /// The split every component used to go through: the fast paths must agree with it.
    fn shape_by_split(p: &str) -> Option<&'static str> {
        if p.is_empty() {
            return Some("empty path");
        }
        if p.starts_with('/') {
            return Some("absolute path");
        }
        let dot_dot = p.split('/').any(|c| c == "..");
        let empty_or_dot = p.split('/').any(|c| c.is_empty() || c == ".");
        component_problem(dot_dot, empty_or_dot)
    }

    proptest::proptest! {
        #[test]
        fn shape_fast_path_agrees_with_the_split(p in "[a./é]{0,12}") {
            proptest::prop_assert_eq!(path_shape_problem(&p), shape_by_split(&p));
        }

        #[test]
        fn hex_without_early_exit_agrees(s in "[0-9a-gA-F/:`@]{0,66}", len in 0usize..67) {
            let slow = s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            proptest::prop_assert_eq!(is_hex(&s, len), slow);
        }
    }

    #[test]
    fn the_identity_only_parse_skips_the_schema_2_file_digest() {
        let s2 = br#"{"receipt_schema": 2, "inputs": {"manifest": {}}}"#;
        let (full, lean) = (Receipt::parse(s2).unwrap(), Receipt::parse_identity(s2).unwrap());
        assert_eq!(full.file_sha256, Some(Digest::of(s2)));
        assert_eq!(lean.file_sha256, None);
        assert_eq!((lean.identity(), full.identity()), (Some(full.canonical_sha256), Some(full.canonical_sha256)));
        // v1's identity is its file digest: both parsers compute it.
        let v1 = br#"{"constitution_hash": "x", "manifest": {}}"#;
        let (full, lean) = (Receipt::parse(v1).unwrap(), Receipt::parse_identity(v1).unwrap());
        assert_eq!(lean, full);
        assert_eq!(lean.identity(), Some(Digest::of(v1)));
    }
}

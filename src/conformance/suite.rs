//! Reading a suite: its manifest (every file and its SHA-256), then its index (the cases) and
//! the recorded implementations it carries. Everything here is untrusted input: read within a
//! size limit, parsed by the strict parser (a duplicate key is refused), paths confined to the
//! suite's root, and every byte checked against the manifest before a case runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path};

use rayon::prelude::*;
use sha2::{Digest as _, Sha256};

use super::model::{CATEGORIES, Case, Decision, Error, InputKind, OPERATIONS, Recorded, Required, Suite};
use crate::json::{self, Value};

/// The manifest's file name inside the suite directory.
pub const MANIFEST: &str = "manifest.json";
/// Largest manifest read.
pub(super) const MAX_MANIFEST_BYTES: usize = 4 << 20;
/// Largest index or recorded-decisions file read: the memory a hostile index can cost is
/// bounded by this times the parser's per-byte constant.
pub const MAX_INDEX_BYTES: usize = 16 << 20;
/// Largest single input file hashed.
pub(super) const MAX_FILE_BYTES: usize = 256 << 20;
/// The manifest format this reader knows.
const MANIFEST_FORMAT: &str = "crossverify-conformance-manifest/1";

/// Reads the suite in directory `dir` (the one holding `manifest.json`): every file the manifest
/// lists is hashed and compared, then the index and the recorded decisions are parsed.
///
/// # Errors
/// A file that cannot be read, a digest that differs (naming the file), a file the index uses
/// that the manifest does not list, or an index or manifest that is not the format.
pub fn load(dir: &Path) -> Result<Suite, Error> {
    let manifest_path = dir.join(MANIFEST);
    let label = manifest_path.display().to_string();
    let bytes = crate::files::read_capped(&manifest_path, MAX_MANIFEST_BYTES)
        .map_err(|e| Error::Read { path: label.clone(), message: e.to_string() })?;
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let m = parse_manifest(&bytes).map_err(|message| Error::Format { path: label.clone(), message })?;
    let root = dir.join(&m.root);
    verify_files(&root, &m.files)?;
    let read = |rel: &str| -> Result<Vec<u8>, Error> {
        crate::files::read_capped(&root.join(rel), MAX_INDEX_BYTES)
            .map_err(|e| Error::Read { path: rel.to_owned(), message: e.to_string() })
    };
    let index = parse_index(&read(&m.index)?).map_err(|message| Error::Format { path: m.index.clone(), message })?;
    if index.name != m.name || index.version != m.version {
        return Err(Error::Format {
            path: m.index.clone(),
            message: format!(
                "names suite {} {} but the manifest names {} {}",
                index.name, index.version, m.name, m.version
            ),
        });
    }
    let mut recorded = Vec::new();
    for rel in &index.recorded {
        listed(&m.files, rel)?;
        recorded.push(parse_recorded(&read(rel)?).map_err(|message| Error::Format { path: rel.clone(), message })?);
    }
    listed(&m.files, &m.index)?;
    for case in &index.cases {
        for input in case.inputs.values() {
            match input {
                InputKind::File(p) => listed(&m.files, p)?,
                InputKind::Directory(p) => {
                    let prefix = format!("{p}/");
                    if !m.files.keys().any(|f| f.starts_with(&prefix)) {
                        return Err(Error::Manifest {
                            path: p.clone(),
                            message: format!("case {}: the manifest lists no file in this directory", case.id),
                        });
                    }
                }
                InputKind::Repository { bundles, .. } => bundles.iter().try_for_each(|b| listed(&m.files, b))?,
            }
        }
    }
    Ok(Suite { name: m.name, version: m.version, sha256, root, files: m.files, cases: index.cases, recorded })
}

fn listed(files: &BTreeMap<String, String>, rel: &str) -> Result<(), Error> {
    if files.contains_key(rel) {
        Ok(())
    } else {
        Err(Error::Manifest {
            path: rel.to_owned(),
            message: "used by the suite but not listed in its manifest".into(),
        })
    }
}

/// Every listed file hashed (in parallel) and compared; the first difference in path order is
/// the error, so the message does not depend on scheduling.
fn verify_files(root: &Path, files: &BTreeMap<String, String>) -> Result<(), Error> {
    let mut problems: Vec<(String, String)> = files
        .par_iter()
        .filter_map(|(rel, want)| {
            let got = match crate::files::read_capped(&root.join(rel), MAX_FILE_BYTES) {
                Ok(bytes) => hex::encode(Sha256::digest(&bytes)),
                Err(e) => return Some((rel.clone(), format!("listed in the manifest but unreadable: {e}"))),
            };
            (got != *want).then(|| (rel.clone(), format!("SHA-256 is {got}, the manifest lists {want}")))
        })
        .collect();
    problems.sort();
    match problems.into_iter().next() {
        Some((path, message)) => Err(Error::Manifest { path, message }),
        None => Ok(()),
    }
}

/// The manifest's content.
#[derive(Debug)]
pub struct Manifest {
    /// Suite name.
    pub name: String,
    /// Suite version.
    pub version: String,
    /// The root, relative to the manifest's directory.
    pub root: String,
    /// The index, relative to the root.
    pub index: String,
    /// Every file and its SHA-256.
    pub files: BTreeMap<String, String>,
}

/// Parses a manifest.
///
/// # Errors
/// Not strict JSON, a missing or mistyped member, a path that leaves the root, or a digest that
/// is not 64 lowercase hex digits.
pub fn parse_manifest(bytes: &[u8]) -> Result<Manifest, String> {
    let v = json::parse(bytes).map_err(|e| e.to_string())?;
    let o = object(&v, "the manifest")?;
    known(o, &["format", "suite", "version", "root", "index", "files"], "the manifest")?;
    if string(o, "format")? != MANIFEST_FORMAT {
        return Err(format!("format is not {MANIFEST_FORMAT}"));
    }
    let root = string(o, "root")?.to_owned();
    if Path::new(&root).is_absolute() || Path::new(&root).components().any(|c| matches!(c, Component::Prefix(_))) {
        return Err(format!("root {root:?} must be relative to the manifest"));
    }
    let mut files = BTreeMap::new();
    for (path, digest) in object(o.get("files").ok_or("no files")?, "files")? {
        confined(path)?;
        let d = digest.as_str().ok_or_else(|| format!("files.{path}: not a string"))?;
        if d.len() != 64 || !d.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(format!("files.{path}: not a SHA-256 in lowercase hex"));
        }
        files.insert(path.clone(), d.to_owned());
    }
    let index = string(o, "index")?.to_owned();
    confined(&index)?;
    Ok(Manifest { name: string(o, "suite")?.to_owned(), version: string(o, "version")?.to_owned(), root, index, files })
}

/// The index's content.
#[derive(Debug)]
pub struct Index {
    /// Suite name.
    pub name: String,
    /// Suite version.
    pub version: String,
    /// Recorded-decision files, relative to the root.
    pub recorded: Vec<String>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// Parses a suite index.
///
/// # Errors
/// Not strict JSON, an unknown or missing member, a duplicate case id, an unknown protocol,
/// operation, category or decision, an argument naming no input, or a path leaving the root.
pub fn parse_index(bytes: &[u8]) -> Result<Index, String> {
    let v = json::parse(bytes).map_err(|e| e.to_string())?;
    let o = object(&v, "the index")?;
    known(o, &["suite", "version", "about", "recorded", "cases"], "the index")?;
    let mut recorded = Vec::new();
    for r in array(o, "recorded")? {
        let p = r.as_str().ok_or("recorded: not a string")?;
        confined(p)?;
        recorded.push(p.to_owned());
    }
    let mut cases = Vec::new();
    let mut ids = BTreeSet::new();
    for (i, c) in array(o, "cases")?.iter().enumerate() {
        let case = parse_case(c).map_err(|e| format!("cases[{i}]: {e}"))?;
        if !ids.insert(case.id.clone()) {
            return Err(format!("cases[{i}]: id {} is used twice", case.id));
        }
        cases.push(case);
    }
    Ok(Index { name: string(o, "suite")?.to_owned(), version: string(o, "version")?.to_owned(), recorded, cases })
}

fn parse_case(v: &Value) -> Result<Case, String> {
    let o = object(v, "a case")?;
    known(
        o,
        &[
            "id",
            "protocol",
            "operation",
            "category",
            "class",
            "expected",
            "reason",
            "section",
            "source",
            "inputs",
            "args",
        ],
        "a case",
    )?;
    let s = |k: &str| string(o, k).map(str::to_owned);
    let (protocol, operation, category) = (s("protocol")?, s("operation")?, s("category")?);
    if !OPERATIONS.contains(&(operation.as_str(), protocol.as_str())) {
        return Err(format!("operation {operation:?} is not an operation of protocol {protocol:?}"));
    }
    if !CATEGORIES.contains(&category.as_str()) {
        return Err(format!("category {category:?} is not one of {}", CATEGORIES.join(", ")));
    }
    let expected = match string(o, "expected")? {
        "either" => Required::Either,
        word => Required::Exactly(Decision::parse(word).ok_or_else(|| format!("expected {word:?}"))?),
    };
    let mut inputs = BTreeMap::new();
    for (name, input) in object(o.get("inputs").ok_or("no inputs")?, "inputs")? {
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            return Err(format!("input name {name:?}: letters, digits, - and _ only"));
        }
        inputs.insert(name.clone(), parse_input(input).map_err(|e| format!("inputs.{name}: {e}"))?);
    }
    let mut args = Vec::new();
    for a in array(o, "args")? {
        let a = a.as_str().ok_or("args: not a string")?;
        if let Some(name) = a.strip_prefix('{').and_then(|r| r.strip_suffix('}'))
            && !inputs.contains_key(name)
        {
            return Err(format!("argument {a} names no input"));
        }
        args.push(a.to_owned());
    }
    Ok(Case {
        id: s("id")?,
        protocol,
        operation,
        category,
        class: s("class")?,
        expected,
        reason: s("reason")?,
        section: s("section")?,
        source: s("source")?,
        inputs,
        args,
    })
}

fn parse_input(v: &Value) -> Result<InputKind, String> {
    let o = object(v, "an input")?;
    match string(o, "kind")? {
        "file" | "directory" => {
            known(o, &["kind", "path"], "an input")?;
            let p = string(o, "path")?.to_owned();
            confined(&p)?;
            Ok(if string(o, "kind")? == "file" { InputKind::File(p) } else { InputKind::Directory(p) })
        }
        "repository" => {
            known(o, &["kind", "bundles", "head"], "an input")?;
            let mut bundles = Vec::new();
            for b in array(o, "bundles")? {
                let b = b.as_str().ok_or("bundles: not a string")?;
                confined(b)?;
                bundles.push(b.to_owned());
            }
            let head = string(o, "head")?.to_owned();
            if bundles.is_empty()
                || !(head.len() == 40 || head.len() == 64)
                || !head.bytes().all(|b| b.is_ascii_hexdigit())
            {
                return Err("a repository needs bundles and a full commit id as head".into());
            }
            Ok(InputKind::Repository { bundles, head })
        }
        other => Err(format!("kind {other:?} is not file, directory or repository")),
    }
}

/// Parses a recorded-decisions file.
///
/// # Errors
/// Not strict JSON, a missing member, or a decision other than accept or reject.
pub fn parse_recorded(bytes: &[u8]) -> Result<Recorded, String> {
    let v = json::parse(bytes).map_err(|e| e.to_string())?;
    let o = object(&v, "recorded decisions")?;
    known(o, &["name", "version", "date", "how", "source", "decisions"], "recorded decisions")?;
    let mut decisions = BTreeMap::new();
    for (id, d) in object(o.get("decisions").ok_or("no decisions")?, "decisions")? {
        let d = object(d, "a decision")?;
        let word = string(d, "decision")?;
        let decision = Decision::parse(word).ok_or_else(|| format!("decisions.{id}: decision {word:?}"))?;
        let reason = d.get("reason").and_then(Value::as_str).map(str::to_owned);
        decisions.insert(id.clone(), (decision, reason));
    }
    let s = |k: &str| string(o, k).map(str::to_owned);
    Ok(Recorded { name: s("name")?, version: s("version")?, date: s("date")?, how: s("how")?, decisions })
}

/// A path inside the root: relative, no `..`, no empty or `.` part, no backslash.
fn confined(p: &str) -> Result<(), String> {
    let ok = !p.is_empty()
        && !p.contains('\\')
        && p.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
        && !Path::new(p).is_absolute();
    if ok { Ok(()) } else { Err(format!("path {p:?} leaves the suite's root or is not a plain relative path")) }
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a BTreeMap<String, Value>, String> {
    v.as_object().ok_or_else(|| format!("{what} is not an object"))
}

fn known(o: &BTreeMap<String, Value>, keys: &[&str], what: &str) -> Result<(), String> {
    match o.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(format!("{what}: unknown member {k:?}")),
        None => Ok(()),
    }
}

fn string<'a>(o: &'a BTreeMap<String, Value>, key: &str) -> Result<&'a str, String> {
    o.get(key).and_then(Value::as_str).ok_or_else(|| format!("{key}: missing or not a string"))
}

fn array<'a>(o: &'a BTreeMap<String, Value>, key: &str) -> Result<&'a [Value], String> {
    o.get(key).and_then(Value::as_array).ok_or_else(|| format!("{key}: missing or not an array"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: &str = r#"{"id": "x", "protocol": "crossexam", "operation": "verify-transcript", "category": "genuine",
        "class": "c", "expected": "accept", "reason": "r", "section": "s", "source": "t",
        "inputs": {"msg": {"kind": "directory", "path": "crossexam/a/_Msg"}}, "args": ["--transcript", "{msg}"]}"#;

    fn index(cases: &str) -> String {
        format!(r#"{{"suite": "s", "version": "1.0", "recorded": [], "cases": [{cases}]}}"#)
    }

    #[test]
    fn an_index_parses_and_its_placeholders_name_inputs() {
        let i = parse_index(index(CASE).as_bytes()).expect("parses");
        assert_eq!(i.cases.len(), 1);
        assert_eq!(i.cases[0].args, ["--transcript", "{msg}"]);
        let bad = CASE.replace("\"{msg}\"", "\"{other}\"");
        assert!(parse_index(index(&bad).as_bytes()).expect_err("refused").contains("names no input"));
    }

    #[test]
    fn hostile_indexes_are_refused() {
        let twice = format!("{CASE}, {CASE}");
        assert!(parse_index(index(&twice).as_bytes()).expect_err("dup").contains("used twice"));
        let dup_key = index(CASE).replacen("\"suite\": \"s\"", "\"suite\": \"s\", \"suite\": \"t\"", 1);
        assert!(parse_index(dup_key.as_bytes()).is_err());
        let escape = CASE.replace("crossexam/a/_Msg", "../../etc");
        assert!(parse_index(index(&escape).as_bytes()).expect_err("escape").contains("leaves"));
        let abs = CASE.replace("crossexam/a/_Msg", "/etc");
        assert!(parse_index(index(&abs).as_bytes()).is_err());
        let wrong_op = CASE.replace("verify-transcript", "verify-bundle");
        assert!(parse_index(index(&wrong_op).as_bytes()).is_err());
        let unknown = CASE.replace("\"class\"", "\"klass\"");
        assert!(parse_index(index(&unknown).as_bytes()).is_err());
    }

    #[test]
    fn a_manifest_lists_lowercase_digests_of_confined_paths() {
        let ok = format!(
            r#"{{"format": "{MANIFEST_FORMAT}", "suite": "s", "version": "1.0", "root": "..", "index": "c/suite.json",
                "files": {{"c/suite.json": "{}"}}}}"#,
            "a".repeat(64)
        );
        assert_eq!(parse_manifest(ok.as_bytes()).expect("parses").files.len(), 1);
        assert!(parse_manifest(ok.replace(&"a".repeat(64), &"A".repeat(64)).as_bytes()).is_err());
        assert!(parse_manifest(ok.replace("\"c/suite.json\": ", "\"../x\": ").as_bytes()).is_err());
    }
}

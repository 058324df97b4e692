//! SARIF 2.1.0: one run, one rule per check code, one result per check result.
//!
//! - `ruleId` is the check code; the rule carries the registry's name (PascalCase, as SARIF
//!   viewers expect, with the kebab slug in `properties.slug`), summary, description, the
//!   whole doc page as `help.markdown`, `helpUri` to the committed page and the level.
//! - `kind` carries the outcome: passed → `pass`, failed → `fail`, cantTell → `review`,
//!   untested → `open`, inapplicable → `notApplicable`. `level` is the check's level
//!   (`error`/`warning`/`note`) for `fail` and `none` otherwise, as §3.27.10 requires.
//! - Locations are repository-relative URIs under a `uriBaseId` named for the repository
//!   (`SCIENCE`, `AUDIT`); the commit sits in the location's `properties.commit`. A result
//!   about a whole file gets `region.startLine` 1 so viewers can anchor it.
//! - [`Profile::Full`] (`--format sarif`) keeps every result: a SARIF file is then a complete
//!   conformance record. [`Profile::Github`] (`--format sarif-github`) drops `pass` and
//!   `notApplicable` results, because GitHub code scanning ignores `kind` and would open an
//!   alert for each; their counts stay in `run.properties.omitted`. It also gives every kept
//!   result a location, which code scanning requires.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use sha2::Digest as _;

use crate::report::{CheckResult, Level, Outcome, Report};

/// Which results a SARIF file keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Profile {
    /// Every result.
    Full,
    /// Only results GitHub code scanning should show as alerts.
    Github,
}

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

pub(super) fn render(report: &Report, profile: Profile) -> String {
    let kept: Vec<&CheckResult> = report
        .results
        .iter()
        .filter(|r| profile == Profile::Full || !matches!(r.outcome, Outcome::Passed | Outcome::Inapplicable))
        .collect();

    let mut codes: Vec<&str> = kept.iter().map(|r| r.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    let index: BTreeMap<&str, usize> = codes.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    let rules: Vec<Value> =
        codes.iter().map(|c| rule(c, report, kept.iter().find(|r| r.code == *c).map(|r| r.level))).collect();

    let mut bases: BTreeMap<String, String> = BTreeMap::new();
    let results: Vec<Value> = kept
        .iter()
        .map(|r| {
            let base = repo_base(r);
            if let Some((id, name)) = &base {
                bases.entry(id.clone()).or_insert_with(|| name.clone());
            }
            result(r, index[r.code.as_str()], report, profile)
        })
        .collect();
    let original: Map<String, Value> = bases
        .into_iter()
        .map(|(id, name)| {
            (id, json!({"description": {"text": format!("Root of the {name} repository named in the report's inputs.")}}))
        })
        .collect();

    let mut props = Map::new();
    props.insert("command".into(), report.command.clone().into());
    props.insert("outcome".into(), report.outcome.as_str().into());
    props.insert("summary".into(), serde_json::to_value(&report.summary).expect("summary serialises"));
    props.insert("inputs".into(), Value::from_iter(report.inputs.clone()));
    props.insert("schemaVersion".into(), report.schema_version.into());
    if let Some(a) = &report.audit_outcome {
        props.insert("auditOutcome".into(), serde_json::to_value(a).expect("audit outcome serialises"));
    }
    if profile == Profile::Github {
        let mut omitted = BTreeMap::new();
        for r in &report.results {
            if matches!(r.outcome, Outcome::Passed | Outcome::Inapplicable) {
                *omitted.entry(r.outcome.as_str()).or_insert(0u64) += 1;
            }
        }
        props.insert("omitted".into(), json!(omitted));
        props.insert("profile".into(), "github".into());
    }

    let mut run = Map::new();
    run.insert(
        "tool".into(),
        json!({"driver": {
            "name": report.tool.name,
            "version": report.tool.version,
            "semanticVersion": report.tool.version,
            "informationUri": env!("CARGO_PKG_REPOSITORY"),
            "rules": rules,
        }}),
    );
    run.insert(
        "invocations".into(),
        json!([{
            "executionSuccessful": true,
            "exitCode": report.exit_code(),
            "exitCodeDescription": report.outcome.as_str(),
        }]),
    );
    if !original.is_empty() {
        run.insert("originalUriBaseIds".into(), Value::Object(original));
    }
    run.insert("columnKind".into(), "unicodeCodePoints".into());
    run.insert("results".into(), Value::Array(results));
    run.insert("properties".into(), Value::Object(props));

    let log = json!({"$schema": SCHEMA, "version": "2.1.0", "runs": [Value::Object(run)]});
    let mut s = serde_json::to_string_pretty(&log).expect("a SARIF log holds only JSON-safe values");
    s.push('\n');
    s
}

fn rule(code: &str, report: &Report, seen_level: Option<Level>) -> Value {
    let Some(c) = report.checks.get(code) else {
        // A code this build does not know (a report written by a newer crossverify): say so
        // rather than invent metadata.
        let level = seen_level.map_or("warning", sarif_level);
        return json!({
            "id": code,
            "name": "UnregisteredCheck",
            "shortDescription": {"text": format!("Check {code}, not in this build's registry.")},
            "fullDescription": {"text": format!("Check {code} is not registered in this build of crossverify, so its documentation is not available here.")},
            "helpUri": super::help_uri(report, code),
            "defaultConfiguration": {"level": level},
        });
    };
    let mut props = Map::new();
    props.insert("slug".into(), c.name.clone().into());
    props.insert("family".into(), c.family.clone().into());
    let mut tags = vec![Value::from(c.family.clone())];
    if let Some((label, group)) = &c.group {
        props.insert(label.clone(), group.clone().into());
        tags.push(group.clone().into());
    }
    props.insert("tags".into(), Value::Array(tags));
    json!({
        "id": code,
        "name": pascal(&c.name),
        "shortDescription": {"text": sentence(&c.summary)},
        "fullDescription": {"text": sentence(&squash(&c.what))},
        "help": {"text": sentence(&squash(&c.why)), "markdown": c.page},
        "helpUri": c.help_uri,
        "defaultConfiguration": {"level": sarif_level(c.level)},
        "properties": Value::Object(props),
    })
}

fn result(r: &CheckResult, rule_index: usize, report: &Report, profile: Profile) -> Value {
    let kind = match r.outcome {
        Outcome::Passed => "pass",
        Outcome::Failed => "fail",
        Outcome::CantTell => "review",
        Outcome::Untested => "open",
        Outcome::Inapplicable => "notApplicable",
    };
    let level = if r.outcome == Outcome::Failed { sarif_level(r.level) } else { "none" };
    let text =
        if r.subject.is_empty() { sentence(&r.message) } else { sentence(&format!("{}: {}", r.subject, r.message)) };
    let mut v = Map::new();
    v.insert("ruleId".into(), r.code.clone().into());
    v.insert("ruleIndex".into(), rule_index.into());
    v.insert("kind".into(), kind.into());
    v.insert("level".into(), level.into());
    v.insert("message".into(), json!({"text": text}));
    let mut locations = Vec::new();
    if let Some(loc) = physical(r, report, profile) {
        locations.push(loc);
    } else if profile == Profile::Github {
        locations.push(fallback_location(r, report));
    }
    if !r.subject.is_empty() {
        // The subject (a record, a file, a claim) is what the check judged; viewers show
        // it beside the file location.
        let logical = json!({"logicalLocations": [{"name": r.subject, "kind": "object"}]});
        match locations.first_mut() {
            Some(Value::Object(first)) => {
                first.insert("logicalLocations".into(), logical["logicalLocations"].clone());
            }
            _ => locations.push(logical),
        }
    }
    if !locations.is_empty() {
        v.insert("locations".into(), Value::Array(locations));
    }
    v.insert("partialFingerprints".into(), json!({"crossverify/v1": fingerprint(r)}));
    let mut props = Map::new();
    props.insert("outcome".into(), r.outcome.as_str().into());
    if !r.subject.is_empty() {
        props.insert("subject".into(), r.subject.clone().into());
    }
    if !r.evidence.is_empty() {
        props.insert("evidence".into(), Value::from_iter(r.evidence.clone()));
    }
    v.insert("properties".into(), Value::Object(props));
    Value::Object(v)
}

/// `("SCIENCE", "science")` for a result located in the science repository.
fn repo_base(r: &CheckResult) -> Option<(String, String)> {
    let loc = r.location.as_ref()?;
    loc.path.as_ref()?;
    let repo = loc.repository.as_deref()?;
    let id: String =
        repo.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    Some((if id.is_empty() { "REPOSITORY".to_owned() } else { id }, repo.to_owned()))
}

/// `repository`'s path as the report's inputs give it, when it is relative to the directory
/// crossverify ran in (`.`, `.audit`): the checkout root, in CI.
fn checkout_relative<'a>(report: &'a Report, repository: &str) -> Option<&'a str> {
    let p = report.inputs.get(repository)?.as_str()?;
    let ok = !p.is_empty() && !p.starts_with('/') && !p.starts_with('<') && !p.split('/').any(|c| c == "..");
    ok.then_some(p)
}

fn physical(r: &CheckResult, report: &Report, profile: Profile) -> Option<Value> {
    let loc = r.location.as_ref()?;
    let path = loc.path.as_deref().filter(|p| !p.is_empty())?;
    let mut artifact = Map::new();
    // Code scanning resolves URIs against the checked-out repository and has no notion of a
    // second one, so a repository checked out below it (`--audit .audit`) is folded into the
    // path; the full profile keeps the repository as a uriBaseId.
    let folded = (profile == Profile::Github)
        .then(|| loc.repository.as_deref().and_then(|repo| checkout_relative(report, repo)))
        .flatten();
    match folded {
        Some(root) => {
            let root = root.trim_start_matches("./").trim_end_matches('/');
            let joined = if root.is_empty() || root == "." { path.to_owned() } else { format!("{root}/{path}") };
            artifact.insert("uri".into(), encode_path(&joined).into());
        }
        None => {
            artifact.insert("uri".into(), encode_path(path).into());
            if let Some((id, _)) = repo_base(r) {
                artifact.insert("uriBaseId".into(), id.into());
            }
        }
    }
    let mut out = Map::new();
    out.insert(
        "physicalLocation".into(),
        json!({"artifactLocation": Value::Object(artifact), "region": {"startLine": 1}}),
    );
    if let Some(commit) = &loc.commit {
        out.insert("properties".into(), json!({"commit": commit}));
    }
    Some(Value::Object(out))
}

/// GitHub code scanning rejects a result without a file: point at the input the report was
/// about (the inputs the report names for it, in order), else at the repository root.
fn fallback_location(r: &CheckResult, report: &Report) -> Value {
    let input = report
        .hints
        .location_inputs
        .iter()
        .find_map(|k| report.inputs.get(k).and_then(Value::as_str))
        .filter(|p| !p.is_empty() && !p.starts_with('/'))
        .unwrap_or(".");
    let mut loc =
        json!({"physicalLocation": {"artifactLocation": {"uri": encode_path(input)}, "region": {"startLine": 1}}});
    if let Some(commit) = r.location.as_ref().and_then(|l| l.commit.as_ref()) {
        loc["properties"] = json!({"commit": commit});
    }
    loc
}

fn fingerprint(r: &CheckResult) -> String {
    let loc = r.location.clone().unwrap_or_default();
    let key = format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        r.code,
        r.subject,
        loc.repository.unwrap_or_default(),
        loc.path.unwrap_or_default()
    );
    hex::encode(sha2::Sha256::digest(key.as_bytes()))
}

fn sarif_level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Info => "note",
    }
}

/// `blob-unreadable` → `BlobUnreadable`.
fn pascal(kebab: &str) -> String {
    kebab
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| f.to_ascii_uppercase().to_string() + c.as_str())
        })
        .collect()
}

/// Collapses the registry's line-wrapped text to single spaces.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// SARIF viewers show the first sentence; messages end with a full stop (SARIF2001).
fn sentence(s: &str) -> String {
    let t = s.trim_end();
    if t.ends_with(['.', '!', '?']) { t.to_owned() } else { format!("{t}.") }
}

/// Percent-encodes a repository-relative path as a relative URI reference (RFC 3986), keeping
/// `/` as the separator.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    // A first segment with a colon would read as a scheme.
    if out.split('/').next().is_some_and(|s| s.contains(':')) { format!("./{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_relative_uri_references() {
        assert_eq!(encode_path("experiments/run 1/a#b.json"), "experiments/run%201/a%23b.json");
        assert_eq!(encode_path("a:b/c"), "./a:b/c");
        assert_eq!(encode_path("\"notes-\\377.md\""), "%22notes-%5C377.md%22");
        assert_eq!(encode_path("é"), "%C3%A9");
    }

    #[test]
    fn names_and_sentences() {
        assert_eq!(pascal("blob-unreadable"), "BlobUnreadable");
        assert_eq!(sentence("done"), "done.");
        assert_eq!(sentence("done?"), "done?");
    }
}

//! Fixture ledgers from plain-text scenarios: emulates the v1 reference runner and the
//! product (receipt schema 2) closely enough that their ledgers are genuine under every rule
//! in the formats note, with pinned identities and dates so commit ids are stable.
//!
//! A scenario (`ledger-fixtures/*.toml`) lists science commits, audit cycles (deterministic
//! findings, the auditor's reply or its failure) and optional tampers applied to the minted
//! records, either as if minted so (`mode = "rewrite"`), before the receipt binds the report
//! (`mode = "forge"`: the forger wrote the receipt too) or as a later commit on the audit
//! branch (`mode = "commit"`). A TOML file with `[[repo]]` tables instead is a plain
//! repository description ([`crate::fixture::spec`]).

use std::path::Path;

mod controller;
mod minter;
mod receipts;
mod report;
mod run;
mod scenario;
mod synthetic;
mod tamper;

use minter::Minter;
use scenario::Scenario;
pub use synthetic::{Synthetic, SyntheticBuilt, synthetic};

use crate::fixture::{self, Error};

/// Builds the fixture described by the TOML file at `path` into `out`.
///
/// # Errors
/// Unreadable or malformed description, or a write failure.
pub fn build_file(path: &Path, out: &Path) -> Result<(), Error> {
    let text = resolve(path, 0)?;
    build(&text, out)
}

/// Reads a scenario, merging it over the scenario its `base` key names (a sibling file, without
/// `.toml`): top-level keys of the derived scenario replace the base's, except `tamper`, which
/// is appended.
fn resolve(path: &Path, depth: usize) -> Result<String, Error> {
    let err = |m: String| Error { path: path.to_owned(), message: m };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let mut t: toml::Table = text.parse().map_err(|e: toml::de::Error| err(format!("invalid TOML: {e}")))?;
    let Some(base) = t.remove("base") else { return Ok(text) };
    let name = base.as_str().ok_or_else(|| err("base must be a fixture name".into()))?;
    if depth > 4 {
        return Err(err("base chain deeper than 4".into()));
    }
    let base_path = path.with_file_name(format!("{name}.toml"));
    let mut merged: toml::Table =
        resolve(&base_path, depth + 1)?.parse().map_err(|e: toml::de::Error| err(e.to_string()))?;
    for (k, v) in t {
        match (k.as_str(), merged.get_mut("tamper"), v) {
            ("tamper", Some(toml::Value::Array(existing)), toml::Value::Array(more)) => existing.extend(more),
            (_, _, v) => {
                merged.insert(k, v);
            }
        }
    }
    toml::to_string(&merged).map_err(|e| err(e.to_string()))
}

/// Builds the fixture described by `text` into `out`: `out/science` and, in paired mode,
/// `out/audit` for a scenario; `out/<name>` for each `[[repo]]` of a repository description.
///
/// # Errors
/// Malformed description or a write failure.
pub fn build(text: &str, out: &Path) -> Result<(), Error> {
    let err = |m: String| Error { path: out.to_owned(), message: m };
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| err(format!("invalid TOML: {e}")))?;
    if table.contains_key("repo") {
        return fixture::spec::build(text, out);
    }
    let s: Scenario = toml::from_str(text).map_err(|e| err(format!("invalid scenario: {e}")))?;
    Minter::new(s, out)?.run()
}

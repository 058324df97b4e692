//! Synthetic schema-2 ledgers of any size, for scale tests and benchmarks.

use std::path::Path;

use super::minter::*;
use super::scenario::*;
use crate::fixture::{self, Error, RepoBuilder};
use crate::rules::Family;

/// Shape of a synthetic schema-2 ledger, for scale tests and benchmarks.
#[derive(Debug, Clone)]
pub struct Synthetic {
    /// The science repository (every commit gets one audit cycle).
    pub science: crate::fixture::synthetic::Options,
    /// Every `blocked_every`-th cycle is BLOCKED by the deterministic layer, so the next
    /// commit continues that cycle in round 2 (0: every cycle passes).
    pub blocked_every: usize,
}

/// What [`synthetic`] built.
#[derive(Debug, Clone)]
pub struct SyntheticBuilt {
    /// The science repository.
    pub science: crate::fixture::synthetic::Generated,
    /// Audit cycles minted.
    pub cycles: usize,
    /// Manifest entries bound across all receipts.
    pub bound_entries: usize,
}

/// Builds a paired schema-2 ledger (`out/science`, `out/audit`) whose every receipt binds every
/// file under the synthetic prefix (the product's `audit` verb): the case where a verifier
/// that re-hashes each receipt's files pays cycles × files, and one that hashes distinct blobs
/// pays the blobs.
///
/// # Errors
/// Bad options or a write failure.
pub fn synthetic(out: &Path, shape: &Synthetic) -> Result<SyntheticBuilt, Error> {
    let science = crate::fixture::synthetic::generate(&out.join("science"), &shape.science)?;
    let header = format!("dialect = \"schema2\"\nmode = \"paired\"\nscope = {:?}\n", shape.science.prefix);
    let scenario: Scenario =
        toml::from_str(&header).map_err(|e| Error { path: out.to_owned(), message: e.to_string() })?;
    let mut m = Minter::assemble(
        scenario,
        Family::Schema2,
        false,
        true,
        RepoBuilder::open(&out.join("science"), fixture::EPOCH)?,
        Some(RepoBuilder::init(&out.join("audit"))?),
        out,
    );
    // The science history exists already; the minter must not commit to it.
    m.science_external = true;
    let mut prev: Option<String> = None;
    for c in &science.commits {
        let label = format!("c{}", c.index);
        m.labels.insert(label.clone(), c.id);
        m.science_parent.insert(label.clone(), prev.replace(label));
    }
    m.bootstrap()?;
    let mut bound = 0;
    for c in &science.commits {
        let blocked = shape.blocked_every > 0 && c.index % shape.blocked_every == shape.blocked_every - 1;
        let artifact = c.changed.first().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default();
        let spec = CycleSpec {
            science: format!("c{}", c.index),
            dcl: if blocked {
                vec![DclFinding {
                    severity: "BLOCKER".into(),
                    rule: "CA-DATA-001".into(),
                    check: "units".into(),
                    artifact,
                    message: "a quantity has no unit".into(),
                }]
            } else {
                Vec::new()
            },
            reply: Some(Reply {
                verdict: if blocked { "BLOCKED" } else { "PASS" }.into(),
                sections_applied: vec!["CA-DATA-001".into(), "CA-REPRO-001".into()],
                findings: Vec::new(),
                notes: None,
            }),
            invalid: None,
            call_failed: false,
            bound_exceeded: 0,
            replay_provider: false,
            precedence: None,
            admit: false,
            amend: None,
            unrecorded: false,
            interrupted: false,
        };
        m.mint_cycle(c.index + 1, &spec)?;
        bound += shape.science.files;
    }
    Ok(SyntheticBuilt { cycles: science.commits.len(), science, bound_entries: bound })
}

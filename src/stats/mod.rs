//! Finding-lifecycle statistics, and stated figures checked against the records they came from.
//!
//! `crossverify stats PATH` reads what a protocol converted into an [`input::Input`]: the
//! neutral [`model::Records`] ([`model`] documents what a converter must fill), the published
//! summaries beside them, and the protocol's own results about the input. This module names
//! no protocol: detecting what a path holds, converting it, and declaring what its records can
//! measure, how its published files are laid out and which commits fix a finding are each
//! protocol's job (its statistics adapter, `specs/stats.md`).
//!
//! [`figures::compute`] turns those into the `stats` object: records, durations, counts and
//! distributions (closure lag by record position and by cycle number, medians and index
//! quartiles, case-sensitive models, both readings of "N occurrences cite a single rule"). A
//! figure the input cannot support is `null`, with its reason under `stats.notMeasured`.
//!
//! Checks: `CV-S001` stated figures from `--claims` (see `docs/claims.md`), `CV-S002` a
//! published summary against its own records, `CV-S003` a published finding lifecycle entry by
//! entry, `CV-S004` reading the records, `CV-S005` (info) published fields the inputs given
//! cannot check, with the input that would make them checkable.

mod checks;
pub mod claims;
pub mod compare;
pub mod figures;
pub mod input;
pub mod model;
pub mod num;
mod published;
pub mod science;
pub mod time;
mod views;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::manifest::Digest;
use crate::progress::Interrupted;
use crate::report::Report;
pub use checks::{
    CHECKS, CLAIM, FAMILY, LIFECYCLE, NOT_CHECKABLE, PUBLISHED, RECORDS_READABLE, RECORDS_UNAUTHENTICATED,
};
use serde_json::json;

/// Why `stats` could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not something crossverify recognises, or cannot be read.
    #[error("{0}")]
    Input(String),
    /// The protocol that reads the input could not read it at all.
    #[error(transparent)]
    Protocol(Box<dyn std::error::Error + Send + Sync>),
    /// Git access failed (the input or the science repository).
    #[error(transparent)]
    Git(#[from] crate::git::Error),
    /// The claims file is unusable.
    #[error(transparent)]
    Claims(#[from] claims::ClaimsError),
    /// The caller interrupted.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// What `crossverify stats` was asked to do.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The records.
    pub path: &'a Path,
    /// Revision, when `path` is a git repository (default `HEAD`).
    pub rev: Option<&'a str>,
    /// A claims file (`docs/claims.md`).
    pub claims: Option<&'a Path>,
    /// The science repository, for fix commits.
    pub science: Option<&'a Path>,
    /// Its revision (default `HEAD`); the revision a published summary was computed at
    /// reproduces its fix-commit figures.
    pub science_rev: Option<&'a str>,
}

/// A protocol's statistics adapter: which paths it reads, and its reader of them into the
/// neutral records (the protocol declares, in the [`model::InputKind`] of what it read, which
/// figures those records can support).
#[derive(Debug, Clone, Copy)]
pub struct Adapter {
    /// Whether a path holds this protocol's records; `None` for the one adapter that reads
    /// whatever no other recognises (its reader says what it looked for when it finds nothing).
    pub recognises: Option<fn(&Path) -> bool>,
    /// Reads `opts.path` (at `opts.rev`).
    pub read: fn(&Options<'_>, crate::progress::Ctx<'_>) -> Result<input::Input, Error>,
}

/// `crossverify stats`: `read` is the protocol's reader of `opts.path` at `opts.rev`, called
/// after the claims file is read so that the errors keep their order.
///
/// # Errors
/// [`Error`] when the input, the claims file or the science repository cannot be used.
pub fn command(opts: &Options<'_>, read: impl FnOnce() -> Result<input::Input, Error>) -> Result<Report, Error> {
    let claims = match opts.claims {
        Some(p) => {
            let bytes = crate::files::read_capped(p, claims::MAX_FILE_BYTES).map_err(|e| {
                let why = match e {
                    crate::files::ReadError::TooLarge(_) => format!("{e}; a claims file is at most 1 MiB"),
                    crate::files::ReadError::Io(_) => e.to_string(),
                };
                claims::ClaimsError(format!("{}: {why}", p.display()))
            })?;
            let text = String::from_utf8(bytes.clone())
                .map_err(|_| claims::ClaimsError(format!("{}: not UTF-8", p.display())))?;
            let parsed = claims::parse(&text).map_err(|e| claims::ClaimsError(format!("{}: {}", p.display(), e.0)))?;
            Some((p, Digest::of(&bytes).hex(), parsed))
        }
        None => None,
    };
    let input = read()?;
    let science = match opts.science {
        Some(p) => Some(science::read(p, opts.science_rev, input.records.kind.declared_fix_rule())?),
        None => None,
    };
    let sci_ok = science.as_ref().and_then(|s| s.as_ref().ok());
    let figs = figures::compute(&input.records, science.as_ref());

    let mut report = inputs(opts, &input, science.as_ref(), claims.as_ref().map(|(p, sha, _)| (*p, sha.as_str())));

    report.results.extend(input.results.iter().cloned());

    // Published summaries are checked against their own records.
    let set_figs: Vec<figures::Figures> =
        input.sets.iter().map(|s| figures::compute(&s.records, science.as_ref())).collect();
    for p in &input.published {
        let own = p.form.records;
        // Its own set, else the one there is, else the primary records.
        let at = input.sets.iter().position(|s| s.name == own).or((!input.sets.is_empty()).then_some(0));
        let (f, basis) = match at {
            Some(i) => (&set_figs[i], input.sets[i].name),
            None => (&figs, "the records"),
        };
        let basis_text = if basis == own { basis.to_owned() } else { format!("{basis} (its own {own} is absent)") };
        match p.form.shape {
            input::Shape::Lifecycle => report.results.extend(published::check_lifecycle(p, f, sci_ok, &basis_text)),
            input::Shape::Summary(fields) => {
                report.results.extend(published::check_summary(p, fields, f, &basis_text, sci_ok.is_some()));
            }
        }
    }

    // The claims table, when there is one, comes first: it is what the user asked about.
    if let Some((_, _, claims)) = &claims {
        let results = claims::check(claims, &figs);
        report.views.push(views::claims(&results));
        report.results.extend(results);
    }
    report.views.push(views::headline(&figs, input.records.kind.declared_terms()));
    report.views.push(views::findings(&figs, &input.records, sci_ok));
    report.views.push(views::cycles(&figs, &input.records));
    report.views.extend(views::charts(&figs, &input.records));
    report.stats = figs.stats.into_iter().collect();
    report.finish();
    Ok(report)
}

/// The `stats` report with its inputs recorded: what was read, how it was detected, the
/// resolved identities of the repositories and the claims file's digest.
fn inputs(
    opts: &Options<'_>,
    input: &input::Input,
    science: Option<&Result<figures::Science, String>>,
    claims: Option<(&Path, &str)>,
) -> Report {
    let mut report = Report::new("stats");
    report.input("path", opts.path.display().to_string());
    report.input("kind", input.records.kind.as_str());
    report.input("detected", input.records.kind.describe());
    if let Some(rev) = opts.rev {
        report.input("rev", rev);
    }
    if let Some(c) = &input.commit {
        report.input("commit", c.clone());
    }
    if input.commit.is_some() {
        report.identify("path", opts.path, input.commit.as_deref());
    }
    if !input.read.is_empty() {
        report.input("read", json!(input.read));
    }
    if !input.sets.is_empty() {
        report.input("records", json!(input.sets.iter().map(|s| s.name).collect::<Vec<_>>()));
        if let Some(s) = input.sets.iter().find(|s| s.records.kind == input.records.kind) {
            report.input("figuresFrom", s.name);
        }
    }
    if !input.published.is_empty() {
        report.input("published", json!(input.published.iter().map(|p| p.name).collect::<Vec<_>>()));
    }
    if let Some(p) = opts.science {
        report.input("science", p.display().to_string());
        if let Some(rev) = opts.science_rev {
            report.input("scienceRev", rev);
        }
        if let Some(Ok(s)) = &science {
            report.identify("science", p, Some(&s.commit));
        }
        match &science {
            Some(Ok(s)) => report.input("scienceCommit", s.commit.clone()),
            Some(Err(e)) => report.input("scienceUnavailable", e.clone()),
            None => {}
        }
    }
    if let Some((p, sha)) = claims {
        report.input("claims", p.display().to_string());
        report.input("claimsSha256", sha);
    }
    report
}

/// Figures of `records` and the lifecycle views (per-finding table, closure-lag histogram)
/// for another command's report (a protocol's own verification command).
#[must_use]
pub fn lifecycle(
    records: &model::Records,
    science: Option<&std::path::Path>,
) -> (std::collections::BTreeMap<String, serde_json::Value>, Vec<crate::report::View>) {
    // The science repository the command was given also answers the figures that need its log:
    // "pass --science" beside a --science that was passed contradicted `stats` on the same
    // inputs. A log that cannot be read leaves those figures not measured, with git's words.
    let science = science.map(|p| {
        science::read(p, None, records.kind.declared_fix_rule())
            .unwrap_or_else(|e| Err(format!("the science log could not be read: {e}")))
    });
    let figs = figures::compute(records, science.as_ref());
    let mut out = vec![views::headline(&figs, records.kind.declared_terms()), views::findings(&figs, records, None)];
    out.extend(
        views::charts(&figs, records)
            .into_iter()
            .filter(|v| matches!(v, crate::report::View::Chart(c) if c.id == "closure-lag")),
    );
    (figs.stats.into_iter().collect(), out)
}

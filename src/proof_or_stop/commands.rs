//! The commands: functions from their inputs to a [`Report`].

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::live::{LiveError, Sources};
use super::reason::{Reason, Step};
use super::trust_store::{TrustStore, TrustStoreError};
use super::verify::{self, Outcome, Request};
use crate::checks::Check;
use crate::git::Repo;
use crate::report::{CheckResult, Outcome as O, Report, Table, View};

/// Why a command could not run (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input file is unreadable or refused.
    #[error("{0}")]
    Input(String),
    /// The trust store or trusted key is unusable.
    #[error("trust store: {0}")]
    TrustStore(TrustStoreError),
    /// The live state cannot be established.
    #[error("live state: {0}")]
    Live(LiveError),
    /// The repository cannot be opened.
    #[error(transparent)]
    Git(#[from] crate::git::Error),
}

// The two wrappers say their cause in their own message, so they name no `source`: a chain
// printed whole (`crossverify: error: …`) would say the cause twice.
impl From<TrustStoreError> for Error {
    fn from(e: TrustStoreError) -> Self {
        Error::TrustStore(e)
    }
}

impl From<LiveError> for Error {
    fn from(e: LiveError) -> Self {
        Error::Live(e)
    }
}

/// Where the trusted keys come from.
#[derive(Debug, Clone)]
pub enum Trust {
    /// `--trust-store FILE`.
    Store(PathBuf),
    /// `--trusted-key KEY`.
    Key(String),
}

/// What `crossverify bundle` was asked.
#[derive(Debug, Clone)]
pub struct BundleOptions {
    /// The bundle file.
    pub bundle: PathBuf,
    /// The repository.
    pub repo: PathBuf,
    /// Its revision (default `HEAD`).
    pub rev: Option<String>,
    /// The trusted keys.
    pub trust: Trust,
    /// The live configuration.
    pub sources: Sources,
    /// The expected story.
    pub story: Option<String>,
}

/// Reads an input file refusing symlinks and oversized files, naming the file in the error.
///
/// # Errors
/// [`Error::Input`].
pub(crate) fn read_input(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    super::live::read_file(path, max).map_err(Error::Input)
}

/// Loads the trust store or the single trusted key.
///
/// # Errors
/// [`Error`] when unreadable or refused.
pub(crate) fn load_trust(trust: &Trust) -> Result<TrustStore, Error> {
    Ok(match trust {
        Trust::Store(p) => {
            let bytes = read_input(p, super::trust_store::MAX_BYTES as u64)?;
            TrustStore::parse(&bytes).map_err(|e| Error::Input(format!("{}: {e}", p.display())))?
        }
        Trust::Key(k) => TrustStore::single(super::trust_store::parse_trusted_key(k)?),
    })
}

/// `crossverify bundle`: the one reason code at the top level (`"reason"`), each step's check,
/// and the state identities live and as claimed.
///
/// # Errors
/// [`Error`] when an input cannot be read or the live state cannot be established.
pub fn bundle(o: &BundleOptions) -> Result<Report, Error> {
    let store = load_trust(&o.trust)?;
    let bytes = read_input(&o.bundle, super::envelope::MAX_BUNDLE_BYTES as u64 + 1)?;
    // materialHash, storyFilesHash and the headHash rule read the same trees: decode each once.
    let repo = Repo::open(&o.repo)?.shared().with_tree_cache().local();
    let rev = o.rev.as_deref().unwrap_or("HEAD");
    let req = Request { store: &store, repo: &repo, rev, sources: &o.sources, story: o.story.as_deref() };
    let out = verify::bundle(&bytes, &req)?;
    let mut report = Report::new("bundle");
    report.input("bundle", o.bundle.display().to_string());
    report.input("repo", o.repo.display().to_string());
    report.input("rev", rev);
    let commit = out.live.as_ref().map(|l| l.head.to_string());
    report.identify("repo", &o.repo, commit.as_deref());
    if let Some(live) = &out.live {
        report.input("commit", live.head.to_string());
        for (k, from) in &live.read_from {
            report.input(k, from.clone());
        }
    }
    let subject = o.bundle.display().to_string();
    report.results = step_results(&out, &subject);
    report.reason = Some(out.reason().as_str().to_owned());
    report.section(
        "bundle",
        match &out.result {
            Err(r) => json!({"step": r.step.as_str(), "detail": r.detail}),
            Ok(()) => json!({"assurance": "local-key-single-host"}),
        },
    );
    let ids = identities(&out);
    report.views.push(identity_view(&ids));
    report.section("identities", ids);
    report.views.push(steps_view(&out));
    report.hints.headline = Some(("reason".into(), out.reason().as_str().into()));
    report.finish();
    Ok(report)
}

/// One result per reason check: failed for the deciding step's check, passed when all its
/// steps ran and passed, untested ("not reached") otherwise.
fn step_results(out: &Outcome, subject: &str) -> Vec<CheckResult> {
    let failed = out.failed_step();
    let ran = |s: Step| failed.is_none_or(|f| s < f);
    Reason::ALL
        .iter()
        .filter_map(|r| r.check().map(|c| (*r, c)))
        .map(|(reason, c): (Reason, &Check)| {
            let steps: Vec<Step> = Step::ORDER.iter().copied().filter(|s| s.reason() == reason).collect();
            let names: Vec<&str> = steps.iter().map(|s| s.as_str()).collect();
            if let Some(f) = failed.filter(|f| steps.contains(f)) {
                let detail = out.result.as_ref().err().map_or(String::new(), |r| r.detail.clone());
                CheckResult::new(c, O::Failed, subject, format!("{} {detail}", f.as_str()))
                    .with("reason", reason.as_str())
            } else if steps.iter().all(|s| ran(*s)) {
                CheckResult::new(c, O::Passed, subject, format!("steps {} passed", names.join(", ")))
            } else {
                CheckResult::new(
                    c,
                    O::Untested,
                    subject,
                    format!("not reached: verification stops at the first failing step ({})", names.join(", ")),
                )
            }
        })
        .collect()
}

fn identities(out: &Outcome) -> Value {
    let claimed = out.evidence.as_ref().map(|e| {
        let mut m: serde_json::Map<String, Value> =
            e.binding.iter().map(|(k, v)| (k.clone(), v.clone().into())).collect();
        m.insert("scopeHash".into(), e.scope_hash.clone().into());
        Value::Object(m)
    });
    let live = out.live.as_ref().map(|l| {
        json!({
            "materialHash": l.material_hash,
            "headHash": l.head.to_string(),
            "storyFilesHash": l.story_files_hash,
            "policyHash": l.policy_hash,
            "commandSetHash": l.command_set_hash,
            "scopeHash": l.scope_hash,
            "objectFormat": l.object_format,
        })
    });
    json!({"claimed": claimed, "live": live})
}

fn identity_view(ids: &Value) -> View {
    let keys = ["materialHash", "headHash", "storyFilesHash", "scopeHash", "policyHash", "commandSetHash"];
    let rows = keys
        .iter()
        .map(|k| {
            let (c, l) = (&ids["claimed"][k], &ids["live"][k]);
            let same = match (c.as_str(), l.as_str()) {
                (Some(a), Some(b)) if a == b => "ok",
                (Some(_), Some(_)) => "stale",
                _ => "not measured",
            };
            vec![Value::from(*k), c.clone(), l.clone(), same.into()]
        })
        .collect();
    View::Table(Table {
        id: "pos-identities".into(),
        title: "State identities".into(),
        columns: vec!["identity".into(), "claimed".into(), "live".into(), "match".into()],
        rows,
        note: Some("`headHash` is also fresh when it is an ancestor changed since only in metadata roots.".into()),
        csv: true,
    })
}

fn steps_view(out: &Outcome) -> View {
    let failed = out.failed_step();
    let rows = Step::ORDER
        .iter()
        .map(|s| {
            let state = match failed {
                Some(f) if f == *s => "failed",
                Some(f) if *s > f => "not reached",
                _ => "passed",
            };
            vec![Value::from(s.as_str()), s.reason().as_str().into(), state.into()]
        })
        .collect();
    View::Table(Table {
        id: "pos-steps".into(),
        title: "Verification order".into(),
        columns: vec!["step".into(), "reason on failure".into(), "result".into()],
        rows,
        note: Some("The first failing step decides the reason; `ok` only after the last step.".into()),
        csv: false,
    })
}

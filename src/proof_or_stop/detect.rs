//! `crossverify verify PATH`, Proof-or-Stop's side: a receipt bundle (by its media type), a
//! story's evidence directory or a directory of them holding signed records (`evidence.rs`),
//! or stories' unsigned findings. A bundle and signed evidence are verified against the live
//! state of a repository with a trust store (`--repo` and `--trust-store`, which a submission
//! gives as `repo` and `trust-store`); when either was not given, the detection names the
//! exact command to run. Unsigned findings get their statistics, marked as verifying nothing.

use std::path::{Path, PathBuf};

use super::envelope::{MAX_BUNDLE_BYTES, MEDIA_TYPE};
use crate::checks::{Detection, Given};

/// What PATH holds, if it is Proof-or-Stop's.
#[must_use]
pub fn detect(path: &Path, given: Given<'_>) -> Option<Detection> {
    let shown = path.display();
    if path.is_file() {
        return is_bundle(path).then(|| {
            needs_live_state("a Proof-or-Stop receipt bundle", "bundle", path, given, |evidence, repo, store| {
                super::bundle(&super::BundleOptions {
                    bundle: evidence,
                    repo,
                    rev: None,
                    trust: super::Trust::Store(store),
                    sources: super::live::Sources::default(),
                    story: None,
                })
            })
        });
    }
    // A repository's own live state (`.proof-or-stop/`: policy, scope, the stories' current
    // findings) is what evidence is checked against, not evidence itself.
    if path.components().any(|c| c.as_os_str() == ".proof-or-stop") {
        return None;
    }
    let stories = super::evidence::stories(path);
    let signed = stories.iter().filter(|s| super::evidence::holds_signed(s)).count();
    if signed > 0 {
        // Signed records mean something only once verified: a directory holding any goes to
        // the floor and the done gate, whatever else it holds, never to the statistics alone.
        let what = if stories.first().is_some_and(|s| s == path) {
            "a Proof-or-Stop evidence directory (a story's signed records and findings.json)".to_owned()
        } else {
            format!(
                "a directory of Proof-or-Stop evidence directories ({} stories, {signed} holding signed records)",
                stories.len()
            )
        };
        return Some(needs_live_state(&what, "floor", path, given, |evidence, repo, store| {
            let sources = super::live::Sources { dir: Some(evidence.clone()), ..Default::default() };
            super::floor(&super::FloorOptions {
                evidence,
                repo,
                rev: None,
                trust_store: store,
                rounds: None,
                per_round: None,
                sources,
            })
        }));
    }
    super::stats::is_evidence(path).then(|| {
        let p = path.to_owned();
        Detection {
            what: "Proof-or-Stop review findings (findings.json, no signed record)".to_owned(),
            command: format!("crossverify stats {shown}"),
            run: Ok(Box::new(move |_| {
                let opts =
                    crate::stats::Options { path: &p, rev: None, claims: None, science: None, science_rev: None };
                let mut report = crate::stats::command(&opts, || super::stats::read(&p))?;
                report.results.push(super::floor::not_run_on_unsigned(&p));
                report.finish();
                Ok(report)
            })),
        }
    })
}

/// Whether `path` is a bundle: a JSON file within the bundle size limit naming its media type.
fn is_bundle(path: &Path) -> bool {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_BUNDLE_BYTES as u64);
    small && std::fs::read(path).is_ok_and(|b| memchr::memmem::find(&b, MEDIA_TYPE.as_bytes()).is_some())
}

/// A command that verifies `path` against the live state: it runs when both `--repo` and
/// `--trust-store` were given, else says which are missing, with the command to run.
fn needs_live_state(
    what: &str,
    command: &str,
    path: &Path,
    given: Given<'_>,
    verify: fn(PathBuf, PathBuf, PathBuf) -> Result<crate::report::Report, super::Error>,
) -> Detection {
    let (repo, store) = (given.get("repo"), given.get("trust-store"));
    let shown =
        |p: Option<&Path>, placeholder: &str| p.map_or_else(|| placeholder.to_owned(), |p| p.display().to_string());
    let command = format!(
        "crossverify {command} {} --repo {} --trust-store {}",
        path.display(),
        shown(repo, "<REPO>"),
        shown(store, "<TRUST-STORE>")
    );
    let run: Result<crate::checks::Run, String> = match (repo, store) {
        (Some(repo), Some(store)) => {
            let (evidence, repo, store) = (path.to_owned(), repo.to_owned(), store.to_owned());
            Ok(Box::new(move |_| verify(evidence, repo, store).map_err(Into::into)))
        }
        _ => {
            let missing: Vec<&str> = [("--repo", repo), ("--trust-store", store)]
                .iter()
                .filter(|(_, p)| p.is_none())
                .map(|(n, _)| *n)
                .collect();
            Err(format!(
                "it is verified against the live state of a repository with a trust store; give {}",
                missing.join(" and ")
            ))
        }
    };
    Detection { what: what.to_owned(), command, run }
}

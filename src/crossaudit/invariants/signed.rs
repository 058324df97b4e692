//! Signed audit commits (`--allowed-signers FILE`): the protocol-free `CV-T0xx` checks
//! (`anchors::commits`) over every commit of the ledger repository's history at the verified
//! audit head. The paper names operator-rewritable history as a limit (§5); signatures by
//! keys the verifier trusts out of band are what a verifier can add.

use std::path::Path;

use crate::anchors::commits;
use crate::crossaudit::load::{Error, Options};
use crate::git::{ObjectId, Repo};
use crate::report::{CheckResult, Outcome, View};
use crate::trust::allowed_signers::AllowedSigners;

/// Reads the allowed-signers file, before any other work, so a bad file stops the run (exit 2).
pub(crate) fn load(opts: &Options) -> Result<Option<AllowedSigners>, Error> {
    opts.allowed_signers.as_deref().map(commits::load_allowed_signers).transpose().map_err(Error::Usage)
}

/// The `CV-T0xx` results for the history of `head` in the ledger repository at `path`, and the
/// per-commit table; inapplicable results without an allowed-signers file.
pub(crate) fn check(
    path: &Path,
    repo: &Repo,
    head: ObjectId,
    signers: Option<&AllowedSigners>,
) -> (Vec<CheckResult>, Option<View>) {
    let Some(signers) = signers else { return (commits::inapplicable(), None) };
    match commits::check_history(repo, "audit", head, signers) {
        Ok((results, view)) => (results, Some(view)),
        // An unreadable commit (a shallow clone, a missing object) leaves every signature
        // check undecided rather than passing the commits that could be read.
        Err(e) => {
            let why = format!("the history of {} cannot be read: {e}", path.display());
            (commits::every_check(Outcome::CantTell, &why), None)
        }
    }
}

/// The same for a deployed ledger: verified when it was read from git at `commit`; a directory
/// has no commits to sign, so the checks are inapplicable there.
pub(crate) fn deployed(opts: &Options, commit: Option<String>) -> Result<(Vec<CheckResult>, Option<View>), Error> {
    let signers = load(opts)?;
    let (Some(signers), Some(commit)) = (signers, commit) else {
        let why = if opts.allowed_signers.is_some() {
            "a directory ledger has no commits"
        } else {
            "no --allowed-signers file given"
        };
        return Ok((commits::every_check(Outcome::Inapplicable, why), None));
    };
    let repo = Repo::open(&opts.audit).map_err(|e| Error::Usage(e.to_string()))?;
    let head = repo.resolve(&commit).map_err(|e| Error::Usage(e.to_string()))?;
    Ok(check(&opts.audit, &repo, head, Some(&signers)))
}

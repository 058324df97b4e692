//! A received repository is read only from the tree it arrived in: every git indirection its
//! files hold (`git::indirection`) must lead inside that tree, and its history substitutions
//! (grafts, replace refs) must name only objects it holds. Checked on what git and gix would
//! follow, resolved, before anything opens the repository (`specs/intake.md`, "Nothing
//! outside the submission is read").

use std::path::{Path, PathBuf};

use super::refusal::RefusalKind;
use crate::git::indirection::{Target, indirections, missing_substitutes};

/// Whether the repository at `repo` stays inside `root`.
///
/// # Errors
/// The file holding the first indirection that leads outside (or the repository, for a
/// substitution naming a missing object), and why.
pub(crate) fn confine(repo: &Path, root: &Path) -> Result<(), (PathBuf, RefusalKind)> {
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    for ind in indirections(repo) {
        // Resolved as the system resolves it, through every link; a target that does not
        // resolve is refused too: nothing may decide where it would lead on another machine.
        let inside = match &ind.target {
            Target::Path(p) => p.canonicalize().is_ok_and(|real| real.starts_with(&real_root)),
            Target::Elsewhere(_) => false,
        };
        if !inside {
            return Err((ind.file, RefusalKind::OutsideLink { what: ind.what, target: format!("{:?}", ind.raw) }));
        }
    }
    match missing_substitutes(repo).into_iter().next() {
        Some((by, id)) => Err((repo.to_owned(), RefusalKind::MissingSubstitute { by, id: id.to_string() })),
        None => Ok(()),
    }
}

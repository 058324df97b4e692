//! Git bundles (`git bundle create NAME.bundle --all`) are read by git itself: cloned into the
//! private directory with an environment that reads no user or system configuration, asks for
//! no credentials, runs no hook and reaches no network (`specs/intake.md`, "Bundles").

use std::path::Path;
use std::process::{Command, Stdio};

use super::refusal::RefusalKind;

/// Clones the bundle at `bundle` into `dest`, which must not exist, with its `HEAD` checked
/// out: every object the bundle holds, and the work tree a record committed in it is found in.
/// Git runs with no filter, hook or configuration of ours or the user's, so the checkout writes
/// the committed bytes.
///
/// # Errors
/// Why git could not read it, with the fix when the bundle is incremental (it needs commits it
/// does not hold) or git is missing.
pub fn clone(bundle: &Path, dest: &Path) -> Result<(), RefusalKind> {
    let abs = std::path::absolute(bundle).map_err(|e| RefusalKind::Unreadable(e.to_string()))?;
    let home = dest.parent().unwrap_or(dest);
    // Objects first, nothing checked out: what the checkout would write is counted against the
    // budget before git writes it (`tree_size`, then `checkout`).
    let out = git(home)
        .args(["clone", "--quiet", "--no-checkout", "--no-hardlinks", "--template="])
        .arg("--")
        .arg(&abs)
        .arg(dest)
        .output()
        .map_err(|e| RefusalKind::NoGit(e.to_string()))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    // What git said, without the paths of the private work directory it names.
    let said = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("hint:"))
        .map(|l| l.replace(&abs.display().to_string(), "BUNDLE").replace(&dest.display().to_string(), "DEST"))
        .collect::<Vec<_>>()
        .join("; ");
    let stem = bundle.file_stem().map(super::tree::shown_name).unwrap_or_else(|| "NAME".to_owned());
    if stderr.contains("prerequisite") {
        return Err(RefusalKind::IncrementalBundle { said, stem });
    }
    Err(RefusalKind::Bundle(said))
}

/// What checking out `HEAD` in the clone at `repo` would write: files and bytes, read from the
/// tree (no filter runs, so the blob sizes are the bytes written); `None` for an unborn `HEAD`,
/// which has nothing to check out.
///
/// # Errors
/// git could not list the tree.
pub fn tree_size(repo: &Path) -> Result<Option<(u64, u64)>, RefusalKind> {
    let home = repo.parent().unwrap_or(repo);
    let head = git(home).arg("-C").arg(repo).args(["rev-parse", "--verify", "--quiet", "HEAD^{tree}"]).output();
    if !head.is_ok_and(|o| o.status.success()) {
        return Ok(None);
    }
    let out = git(home)
        .arg("-C")
        .arg(repo)
        .args(["ls-tree", "-r", "-l", "-z", "HEAD"])
        .output()
        .map_err(|e| RefusalKind::NoGit(e.to_string()))?;
    if !out.status.success() {
        return Err(RefusalKind::Bundle(String::from_utf8_lossy(&out.stderr).trim().to_owned()));
    }
    let (mut files, mut bytes) = (0u64, 0u64);
    for entry in out.stdout.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let meta = entry.split(|b| *b == b'\t').next().unwrap_or_default();
        let size = meta.rsplit(|b| *b == b' ').next().unwrap_or_default();
        files += 1;
        bytes = bytes.saturating_add(std::str::from_utf8(size).ok().and_then(|s| s.parse().ok()).unwrap_or(0));
    }
    Ok(Some((files, bytes)))
}

/// Checks `HEAD` out in the clone at `repo` (one [`tree_size`] found): the committed bytes,
/// with the tree's own `.gitattributes` not applied (attributes from the empty tree: no eol
/// conversion, filter or encoding), symlinks written as files holding their target.
///
/// # Errors
/// git could not check it out.
pub fn checkout(repo: &Path) -> Result<(), RefusalKind> {
    let home = repo.parent().unwrap_or(repo);
    let out = git(home)
        .arg("--attr-source=4b825dc642cb6eb9a060e54bf8d69288fbee4904")
        .args(["-c", "core.symlinks=false", "-c", "core.autocrlf=false"])
        .arg("-C")
        .arg(repo)
        .args(["reset", "--quiet", "--hard", "HEAD"])
        .output()
        .map_err(|e| RefusalKind::NoGit(e.to_string()))?;
    if out.status.success() {
        return Ok(());
    }
    let said =
        String::from_utf8_lossy(&out.stderr).lines().filter(|l| !l.starts_with("hint:")).collect::<Vec<_>>().join("; ");
    Err(RefusalKind::Bundle(format!("its HEAD could not be checked out: {said}")))
}

/// `git` with no configuration but the repository's own, no prompts, no hooks, and only the
/// local transports (a bundle is a file; nothing may be fetched from anywhere else).
fn git(home: &Path) -> Command {
    let mut c = Command::new("git");
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "/bin/false")
        .env("GIT_PROTOCOL_FROM_USER", "0")
        .env("GIT_ALLOW_PROTOCOL", "file")
        .env("LC_ALL", "C")
        .args(["-c", "protocol.allow=never", "-c", "protocol.file.allow=always", "-c", "core.hooksPath=/dev/null"])
        .args(["-c", "core.fsmonitor=false"])
        .stdin(Stdio::null());
    c
}

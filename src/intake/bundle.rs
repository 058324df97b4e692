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
    let out = git(home)
        // The tree's own `.gitattributes` are not applied (attributes from the empty tree): the
        // checkout writes the committed bytes, not an eol or filter conversion of them.
        .arg("--attr-source=4b825dc642cb6eb9a060e54bf8d69288fbee4904")
        .args(["clone", "--quiet", "--no-hardlinks", "--template=", "-c", "core.symlinks=false"])
        .args(["-c", "core.autocrlf=false"])
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
        .filter(|l| !l.is_empty())
        .map(|l| l.replace(&abs.display().to_string(), "BUNDLE").replace(&dest.display().to_string(), "DEST"))
        .collect::<Vec<_>>()
        .join("; ");
    let stem = bundle.file_stem().map(super::tree::shown_name).unwrap_or_else(|| "NAME".to_owned());
    if stderr.contains("prerequisite") {
        return Err(RefusalKind::IncrementalBundle { said, stem });
    }
    Err(RefusalKind::Bundle(said))
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

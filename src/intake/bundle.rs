//! Git bundles (`git bundle create NAME.bundle --all`) are read by git itself: cloned into the
//! private directory with an environment that reads no user or system configuration, asks for
//! no credentials, runs no hook and reaches no network (`specs/intake.md`, "Bundles").

use std::path::Path;
use std::process::{Command, Stdio};

/// Clones the bundle at `bundle` (shown as `shown`) into `dest`, which must not exist, as a
/// bare mirror: every ref the bundle holds, and nothing checked out.
///
/// # Errors
/// Why git could not read it, with the fix when the bundle is incremental (it needs commits it
/// does not hold) or git is missing.
pub fn clone(bundle: &Path, shown: &str, dest: &Path) -> Result<(), String> {
    let abs = std::path::absolute(bundle).map_err(|e| format!("{shown}: {e}"))?;
    let home = dest.parent().unwrap_or(dest);
    let out = git(home)
        .args(["clone", "--mirror", "--quiet", "--no-hardlinks", "--template="])
        .arg("--")
        .arg(&abs)
        .arg(dest)
        .output()
        .map_err(|e| format!("{shown}: a git bundle is read with the git command, which could not be run: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    let stem = bundle.file_stem().and_then(|s| s.to_str()).unwrap_or("NAME");
    if stderr.contains("prerequisite") {
        return Err(format!(
            "{shown}: an incremental bundle (it needs commits it does not hold): git says {said}; in the repository's \
             clone run `git bundle create {stem}.bundle --all` to bundle its whole history"
        ));
    }
    Err(format!("{shown}: git could not read the bundle: {said}"))
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

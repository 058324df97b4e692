//! Laying a case's inputs out in a scratch directory: files and directories copied from the
//! suite (only what its manifest lists, so what an implementation sees is exactly what was
//! hashed), repositories rebuilt from their git bundles with the git CLI, isolated from every
//! user and system configuration.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::model::{Case, Error, InputKind, Suite};

/// Materialises every input of `case` under `dir` and returns the case's arguments with each
/// `{NAME}` replaced by its input's path.
///
/// # Errors
/// A file cannot be copied, or git cannot rebuild a repository at its head.
pub(super) fn materialise(suite: &Suite, case: &Case, dir: &Path) -> Result<Vec<String>, Error> {
    let mut paths: BTreeMap<&str, PathBuf> = BTreeMap::new();
    for (name, input) in &case.inputs {
        let home = dir.join(name);
        std::fs::create_dir_all(&home).map_err(|e| io(&home, &e))?;
        let path = match input {
            InputKind::File(rel) => {
                let to = home.join(base_name(rel));
                std::fs::copy(suite.root.join(rel), &to).map_err(|e| io(&to, &e))?;
                to
            }
            InputKind::Directory(rel) => {
                let to = home.join(base_name(rel));
                let prefix = format!("{rel}/");
                for file in suite.files.keys().filter(|f| f.starts_with(&prefix)) {
                    let inner = file.get(prefix.len()..).unwrap_or_default();
                    let dest = to.join(inner);
                    if let Some(parent) = dest.parent() {
                        std::fs::create_dir_all(parent).map_err(|e| io(parent, &e))?;
                    }
                    std::fs::copy(suite.root.join(file), &dest).map_err(|e| io(&dest, &e))?;
                }
                to
            }
            InputKind::Repository { bundles, head } => {
                let to = home.join("repo");
                repository(&suite.root, bundles, head, &to)
                    .map_err(|e| Error::Io(format!("case {}: input {name}: {e}", case.id)))?;
                to
            }
        };
        paths.insert(name.as_str(), path);
    }
    Ok(case
        .args
        .iter()
        .map(|a| {
            let name = a.strip_prefix('{').and_then(|r| r.strip_suffix('}'));
            match name.and_then(|n| paths.get(n)) {
                Some(p) => p.to_string_lossy().into_owned(),
                None => a.clone(),
            }
        })
        .collect())
}

fn base_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

fn io(path: &Path, e: &std::io::Error) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

/// A work tree on branch `main` at `head`: every bundle fetched in order (a later bundle may
/// need the commits of an earlier one, as git bundles with prerequisites do), then the fetched
/// refs dropped and unreachable objects pruned, so the repository holds what a fresh clone of
/// `head` would and nothing a forger removed.
fn repository(root: &Path, bundles: &[String], head: &str, to: &Path) -> Result<(), String> {
    git(None, &[std::ffi::OsStr::new("init"), "-q".as_ref(), "-b".as_ref(), "main".as_ref(), to.as_os_str()])?;
    for (i, b) in bundles.iter().enumerate() {
        let refspec = format!("+refs/heads/*:refs/conformance/{i}/*");
        let path = std::path::absolute(root.join(b)).map_err(|e| format!("{b}: {e}"))?;
        git(Some(to), &["fetch".as_ref(), "-q".as_ref(), path.as_os_str(), refspec.as_ref()])?;
    }
    git(Some(to), &["reset".as_ref(), "-q".as_ref(), "--hard".as_ref(), head.as_ref()])?;
    let refs = git(Some(to), &["for-each-ref".as_ref(), "--format=%(refname)".as_ref(), "refs/conformance/".as_ref()])?;
    for r in refs.lines() {
        git(Some(to), &["update-ref".as_ref(), "-d".as_ref(), r.as_ref()])?;
    }
    if bundles.len() > 1 {
        git(Some(to), &["reflog".as_ref(), "expire".as_ref(), "--expire=now".as_ref(), "--all".as_ref()])?;
        git(Some(to), &["gc".as_ref(), "-q".as_ref(), "--prune=now".as_ref()])?;
    }
    Ok(())
}

fn git(dir: Option<&Path>, args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let home = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    cmd.args(["-c", "gc.auto=0", "-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .env("LC_ALL", "C")
        .stdin(std::process::Stdio::null());
    let out = cmd.output().map_err(|e| format!("running git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        let shown: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        Err(format!("git {}: {}", shown.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

//! `attest --replay`: where a recorded invocation runs again. Its paths were recorded as the
//! signer gave them, relative to the signer's working directory, which is not recorded (it
//! would make every statement machine-specific). They are looked up in the attestation's own
//! directory first (where the guide writes the attestation, beside the submission), then in
//! the current directory (where a signer who wrote it elsewhere ran); the replay runs in the
//! first that holds them all. A recorded path found in neither is named with both places: the
//! replaying user's missing input, exit 2, never a mismatch blamed on whoever signed.

use std::path::{Path, PathBuf};

use crossverify::attest::{ReplayError, Replayed};

/// The paths the command line `args` (after `crossverify`) names, as clap reads them: every
/// value of a path-typed argument given on the command line.
fn recorded_paths(args: &[String]) -> Vec<PathBuf> {
    use clap::CommandFactory as _;
    let Ok(matches) = super::Cli::command()
        .try_get_matches_from(std::iter::once("crossverify").chain(args.iter().map(String::as_str)))
    else {
        // A line this build cannot parse still runs, and its own error becomes the result.
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut m = Some(&matches);
    while let Some(level) = m {
        for id in level.ids() {
            if level.value_source(id.as_str()) != Some(clap::parser::ValueSource::CommandLine) {
                continue;
            }
            if let Ok(Some(values)) = level.try_get_many::<PathBuf>(id.as_str()) {
                out.extend(values.cloned());
            }
        }
        m = level.subcommand().map(|(_, sub)| sub);
    }
    out
}

/// Where `p` is missing below `base` (an absolute path is looked at as it is).
fn missing_in<'a>(base: &Path, paths: &'a [PathBuf]) -> Vec<&'a PathBuf> {
    paths.iter().filter(|p| std::fs::symlink_metadata(base.join(p)).is_err()).collect()
}

/// Runs `args` again for the attestation at `envelope`, in the first of its directory and the
/// current directory that holds every recorded path.
pub(crate) fn run(envelope: &Path, args: &[String]) -> Result<Replayed, ReplayError> {
    let own = envelope.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let paths = recorded_paths(args);
    let places = [(own, "the attestation's directory"), (Path::new("."), "the current directory")];
    let chosen = places.iter().find(|(dir, _)| missing_in(dir, &paths).is_empty());
    let (dir, which) = chosen.copied().unwrap_or(places[0]);
    let listed = |ps: &[&PathBuf]| ps.iter().map(|p| format!("`{}`", p.display())).collect::<Vec<_>>().join(", ");
    let (beside, here) = (missing_in(own, &paths), missing_in(Path::new("."), &paths));
    let missing = (chosen.is_none()).then(|| {
        let command = format!("`crossverify {}`", args.join(" "));
        let fix = "run attest where the signer ran, or put the inputs beside the attestation";
        if beside == here {
            format!(
                "attest --replay: the recorded command {command} needs {}, found neither in the attestation's \
                 directory ({}) nor in the current directory; {fix}",
                listed(&beside),
                own.display()
            )
        } else {
            format!(
                "attest --replay: the recorded command {command} needs its inputs in one place: the attestation's \
                 directory ({}) lacks {}, the current directory lacks {}; {fix}",
                own.display(),
                listed(&beside),
                listed(&here)
            )
        }
    });
    let report = match replay_run(dir, args) {
        Ok(r) => r,
        // A command that could not run while an input it names is absent lacked that input.
        Err(e) => return Err(missing.map_or(ReplayError::Failed(e), ReplayError::Missing)),
    };
    Ok(Replayed { report, ran_in: format!("{} ({which})", dir.display()), missing })
}

/// Runs a recorded invocation again in `dir`, as a fresh `crossverify` process writing its
/// JSON report to a pipe, so the replay goes through exactly the argument parsing and command
/// code of a normal run; `Err` when it could not run (exit 2: moved or unreadable inputs).
fn replay_run(dir: &Path, args: &[String]) -> Result<crossverify::report::Report, String> {
    let exe = std::env::current_exe().map_err(|e| format!("locating the crossverify binary: {e}"))?;
    let out = std::process::Command::new(exe)
        .current_dir(dir)
        .args(args)
        .args(["--format", "json", "--quiet"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("running the recorded command: {e}"))?;
    if !matches!(out.status.code(), Some(0 | 1 | 3)) {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("reading the replayed report: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(line: &str) -> Vec<String> {
        let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        recorded_paths(&args).iter().map(|p| p.display().to_string()).collect()
    }

    #[test]
    fn the_paths_are_the_path_typed_arguments_and_nothing_else() {
        assert_eq!(paths("verify submission.zip --verified-at 2026-12-02T18:00:00Z"), ["submission.zip"]);
        assert_eq!(paths("verify a.bundle b.bundle --trust-store keys.json"), ["a.bundle", "b.bundle", "keys.json"]);
        let mut ledger = paths("ledger --audit demo/audit --science demo/science --allowed-signers demo/allowed");
        ledger.sort();
        assert_eq!(ledger, ["demo/allowed", "demo/audit", "demo/science"]);
        assert_eq!(paths("manifest science HEAD"), ["science"]);
        assert!(paths("explain CV-T103").is_empty());
        // A line this build cannot parse names no path; its own run then says why.
        assert!(paths("verify --no-such-flag x").is_empty());
    }
}

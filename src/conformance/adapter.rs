//! Running an adapter executable the way `specs/conformance.md` says: `ADAPTER OPERATION
//! ARGS…`, in its own process group, under a memory cap (`ulimit -v` in a `/bin/sh` wrapper,
//! applied to the adapter and everything it starts) and a wall-clock limit (the whole group is
//! killed), with its output read up to a limit. Exit 0 accepts, 1 rejects, 77 declines the
//! operation; a last stdout line that is a JSON object may add a reason and must agree.

use std::io::Read as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::model::{Answer, Decision};
use crate::json::{self, Value};

/// Exit code by which an adapter declines: an operation it does not implement, or (from
/// `probe`) an implementation that is not available here.
pub const DECLINE: i32 = 77;
/// Output kept from each stream.
const MAX_OUTPUT: u64 = 1 << 20;

/// How an adapter is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The executable.
    pub path: PathBuf,
    /// Arguments before the operation (`conformance adapter` for the built-in one).
    pub prefix: Vec<String>,
}

/// Limits on one run of an adapter.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock time.
    pub timeout: Duration,
    /// Address space, in MiB.
    pub memory_mib: u64,
}

/// What a finished process left.
struct Finished {
    code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
}

fn spawn(p: &Program, operation: &str, args: &[String], cwd: &Path, limits: Limits) -> Result<Finished, String> {
    let kib = limits.memory_mib.saturating_mul(1024).to_string();
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("ulimit -v \"$1\" || exit 125; shift; exec \"$@\"")
        .arg("sh")
        .arg(kib)
        .arg(&p.path)
        .args(&p.prefix)
        .arg(operation)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| format!("starting {}: {e}", p.path.display()))?;
    let reader = |stream: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut s) = stream {
                let _ = s.by_ref().take(MAX_OUTPUT).read_to_end(&mut buf);
                // Drain the rest so the child never blocks on a full pipe.
                let _ = std::io::copy(&mut s, &mut std::io::sink());
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(child.stdout.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>));
    let err = reader(child.stderr.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>));
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() >= limits.timeout {
            timed_out = true;
            kill_group(child.id());
            break child.wait().map_err(|e| e.to_string())?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Whatever the adapter left running in its group goes with it.
    kill_group(child.id());
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok(Finished { code: status.code(), signal: status.signal(), timed_out, stdout, stderr })
}

fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

fn last_line(s: &str) -> &str {
    s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

/// The last stdout line as a JSON object, when it is one.
fn json_line(stdout: &str) -> Option<Value> {
    let line = last_line(stdout);
    if !line.starts_with('{') {
        return None;
    }
    json::parse(line.as_bytes()).ok().filter(|v| v.as_object().is_some())
}

/// Runs one operation and reads the answer.
#[must_use]
pub(super) fn run(p: &Program, operation: &str, args: &[String], cwd: &Path, limits: Limits) -> Answer {
    let f = match spawn(p, operation, args, cwd, limits) {
        Ok(f) => f,
        Err(e) => return Answer::Error(e),
    };
    if f.timed_out {
        return Answer::Timeout;
    }
    if let Some(sig) = f.signal {
        return Answer::Crash(format!("killed by signal {sig}: {}", last_line(&f.stderr)));
    }
    let decision = match f.code {
        Some(0) => Decision::Accept,
        Some(1) => Decision::Reject,
        Some(DECLINE) => return Answer::Unsupported,
        Some(c) => return Answer::Error(format!("exit {c}: {}", last_line(&f.stderr))),
        None => return Answer::Crash("no exit code".into()),
    };
    let line = json_line(&f.stdout);
    let said = line.as_ref().and_then(|v| v.get("decision")).and_then(Value::as_str);
    if let Some(word) = said
        && Decision::parse(word) != Some(decision)
    {
        return Answer::Error(format!("exit {} but the JSON line says {word:?}", f.code.unwrap_or_default()));
    }
    let reason = line.as_ref().and_then(|v| v.get("reason")).and_then(Value::as_str).map(str::to_owned);
    Answer::Decided { decision, reason }
}

/// What `ADAPTER probe` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Ready: its version and the operations it claims (all, when it does not say).
    Ready {
        /// The version it names, if any.
        version: Option<String>,
        /// The operations it claims, if it lists them.
        operations: Option<Vec<String>>,
    },
    /// Declined (exit 77): the implementation is not available here, and why.
    Unavailable(String),
    /// Anything else: the adapter is broken.
    Broken(String),
}

/// Asks an adapter whether it can run here.
#[must_use]
pub(super) fn probe(p: &Program, cwd: &Path, limits: Limits) -> Probe {
    let f = match spawn(p, "probe", &[], cwd, limits) {
        Ok(f) => f,
        Err(e) => return Probe::Broken(e),
    };
    let line = json_line(&f.stdout);
    let field = |k: &str| line.as_ref().and_then(|v| v.get(k)).and_then(Value::as_str).map(str::to_owned);
    match (f.timed_out, f.code) {
        (false, Some(0)) => Probe::Ready {
            version: field("version"),
            operations: line.as_ref().and_then(|v| v.get("operations")).and_then(Value::as_array).map(|a| {
                let mut ops: Vec<String> = a.iter().filter_map(Value::as_str).map(str::to_owned).collect();
                ops.sort();
                ops
            }),
        },
        (false, Some(DECLINE)) => Probe::Unavailable(
            field("reason").unwrap_or_else(|| last_line(&f.stderr).to_owned()).chars().take(400).collect(),
        ),
        (true, _) => Probe::Broken("probe timed out".into()),
        (false, code) => Probe::Broken(format!("probe exit {code:?}: {}", last_line(&f.stderr))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, body: &str) -> Program {
        let path = dir.join("adapter");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
        Program { path, prefix: Vec::new() }
    }

    const LIMITS: Limits = Limits { timeout: Duration::from_secs(20), memory_mib: 1024 };

    #[test]
    fn exit_codes_and_json_lines_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let accept = script(d, "echo '{\"decision\": \"accept\", \"reason\": \"ok\"}'; exit 0");
        assert_eq!(
            run(&accept, "verify-bundle", &[], d, LIMITS),
            Answer::Decided { decision: Decision::Accept, reason: Some("ok".into()) }
        );
        let liar = script(d, "echo '{\"decision\": \"reject\"}'; exit 0");
        assert!(matches!(run(&liar, "verify-bundle", &[], d, LIMITS), Answer::Error(_)));
        let declines = script(d, "exit 77");
        assert_eq!(run(&declines, "verify-bundle", &[], d, LIMITS), Answer::Unsupported);
        let broken = script(d, "echo boom >&2; exit 5");
        assert_eq!(run(&broken, "verify-bundle", &[], d, LIMITS), Answer::Error("exit 5: boom".into()));
        let crash = script(d, "kill -SEGV $$");
        assert!(matches!(run(&crash, "verify-bundle", &[], d, LIMITS), Answer::Crash(_)));
    }

    #[test]
    fn a_slow_adapter_is_killed_at_the_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let slow = script(dir.path(), "sleep 30");
        let start = Instant::now();
        let limits = Limits { timeout: Duration::from_millis(300), memory_mib: 1024 };
        assert_eq!(run(&slow, "verify-bundle", &[], dir.path(), limits), Answer::Timeout);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_memory_cap_holds_in_the_adapter() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Accepts only when the address-space limit it runs under is the one asked for.
        let check = script(dir.path(), "[ \"$(ulimit -v)\" = 65536 ] && exit 0; ulimit -v >&2; exit 1");
        let limits = Limits { timeout: Duration::from_secs(20), memory_mib: 64 };
        assert_eq!(
            run(&check, "verify-bundle", &[], dir.path(), limits),
            Answer::Decided { decision: Decision::Accept, reason: None }
        );
    }

    #[test]
    fn probes_say_ready_unavailable_or_broken() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let ready = script(d, "echo '{\"version\": \"9\", \"operations\": [\"verify-ledger\"]}'");
        assert_eq!(
            probe(&ready, d, LIMITS),
            Probe::Ready { version: Some("9".into()), operations: Some(vec!["verify-ledger".into()]) }
        );
        let gone = script(d, "echo '{\"reason\": \"not installed\"}'; exit 77");
        assert_eq!(probe(&gone, d, LIMITS), Probe::Unavailable("not installed".into()));
        let bad = script(d, "exit 3");
        assert!(matches!(probe(&bad, d, LIMITS), Probe::Broken(_)));
    }
}

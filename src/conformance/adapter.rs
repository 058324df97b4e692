//! Running an adapter executable the way `specs/conformance.md` says: `ADAPTER OPERATION
//! ARGS…`, in a session or process group of its own, under a memory cap (`ulimit -v` in a
//! `/bin/sh` wrapper, applied to the adapter and everything it starts) and a wall-clock limit,
//! with its output read up to a limit. When it answers or its time is up, every process it
//! started is killed (`contain`). Exit 0 accepts, 1 rejects, 77 declines the operation; a last
//! stdout line that is a JSON object may add a reason and must agree.

use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use super::contain;
use super::model::{Answer, Decision};
use crate::json::{self, Value};

/// Exit code by which an adapter declines: an operation it does not implement, or (from
/// `probe`) an implementation that is not available here.
pub const DECLINE: i32 = 77;
/// Output kept from each stream.
const MAX_OUTPUT: usize = 1 << 20;
/// How long output may still take to end once the adapter and everything it started are
/// killed: the pipes close then, unless something outside the kit's reach holds them, and that
/// must not hold the run.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

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

/// One output stream, read on a thread of its own so that the run can stop waiting for it.
struct Drain {
    kept: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl Drain {
    fn start(stream: Option<impl std::io::Read + Send + 'static>) -> Drain {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let (tx, done) = mpsc::channel();
        let into = Arc::clone(&kept);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            // Read to the end, past the limit too, so the adapter never blocks on a full pipe.
            if let Some(mut s) = stream {
                loop {
                    match s.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => {
                            let mut kept = into.lock().unwrap_or_else(PoisonError::into_inner);
                            let room = MAX_OUTPUT.saturating_sub(kept.len());
                            kept.extend_from_slice(&chunk[..n.min(room)]);
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
            }
            let _ = tx.send(());
        });
        Drain { kept, done }
    }

    /// What was read by the end of the stream, or by `until` if it has not ended then.
    fn take(self, until: Instant) -> String {
        let _ = self.done.recv_timeout(until.saturating_duration_since(Instant::now()));
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&kept).into_owned()
    }
}

fn spawn(
    p: &Program,
    operation: &str,
    args: &[String],
    cwd: &Path,
    limits: Limits,
    wrapper: Option<&Program>,
) -> Result<Finished, String> {
    let kib = limits.memory_mib.saturating_mul(1024).to_string();
    let mut cmd = match wrapper {
        Some(w) => {
            let mut cmd = Command::new(&w.path);
            cmd.args(&w.prefix).arg("--").arg("/bin/sh");
            cmd
        }
        None => Command::new("/bin/sh"),
    };
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
        .stderr(Stdio::piped());
    let mut child =
        contain::spawn(&mut cmd, wrapper.is_some()).map_err(|e| format!("starting {}: {e}", p.path.display()))?;
    let out = Drain::start(child.stdout.take());
    let err = Drain::start(child.stderr.take());
    let start = Instant::now();
    let mut timed_out = false;
    // A wait that fails is taken for an exit, so that `finish` still kills and reaps it.
    while !contain::exited(&mut child).unwrap_or(true) {
        if start.elapsed() >= limits.timeout {
            timed_out = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = contain::finish(child, timed_out).map_err(|e| e.to_string())?;
    let until = Instant::now() + DRAIN_GRACE;
    let (stdout, stderr) = (out.take(until), err.take(until));
    Ok(Finished { code: status.code(), signal: status.signal(), timed_out, stdout, stderr })
}

/// How a process ended, worded for the report's reader: "exited with status 1", "was killed
/// by signal 9 (SIGKILL)", then the last line it wrote to standard error, if any.
fn ended(f: &Finished) -> String {
    let how = match (f.code, f.signal) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => match signal_name(s) {
            Some(name) => format!("was killed by signal {s} ({name})"),
            None => format!("was killed by signal {s}"),
        },
        (None, None) => "ended without an exit status".to_owned(),
    };
    match last_line(&f.stderr) {
        "" => how,
        said => format!("{how}: {said}"),
    }
}

/// The signals an adapter is commonly killed by (the memory cap's SIGSEGV and SIGABRT among them).
fn signal_name(s: i32) -> Option<&'static str> {
    Some(match s {
        1 => "SIGHUP",
        2 => "SIGINT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
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
pub(super) fn run(
    p: &Program,
    operation: &str,
    args: &[String],
    cwd: &Path,
    limits: Limits,
    wrapper: Option<&Program>,
) -> Answer {
    let f = match spawn(p, operation, args, cwd, limits, wrapper) {
        Ok(f) => f,
        Err(e) => return Answer::Error(e),
    };
    if f.timed_out {
        return Answer::Timeout;
    }
    let decision = match f.code {
        Some(0) => Decision::Accept,
        Some(1) => Decision::Reject,
        Some(DECLINE) => return Answer::Unsupported,
        Some(_) => return Answer::Error(format!("the adapter {}", ended(&f))),
        None => return Answer::Crash(format!("the adapter {}", ended(&f))),
    };
    let line = json_line(&f.stdout);
    let said = line.as_ref().and_then(|v| v.get("decision")).and_then(Value::as_str);
    if let Some(word) = said
        && Decision::parse(word) != Some(decision)
    {
        // The word is the adapter's own text: quoted as a JSON string, so nothing in it is
        // taken for the report's words or reaches a terminal raw.
        return Answer::Error(format!(
            "the adapter exited with status {} ({}) but its JSON line says {}",
            f.code.unwrap_or_default(),
            decision.as_str(),
            json::canonical(&Value::from(word))
        ));
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
pub(super) fn probe(p: &Program, cwd: &Path, limits: Limits, wrapper: Option<&Program>) -> Probe {
    let f = match spawn(p, "probe", &[], cwd, limits, wrapper) {
        Ok(f) => f,
        Err(e) => return Probe::Broken(format!("the probe could not run: {e}")),
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
        (true, _) => Probe::Broken(format!("the probe ran past the time limit ({} s)", limits.timeout.as_secs())),
        (false, _) => Probe::Broken(format!("the probe {}", ended(&f))),
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
            run(&accept, "verify-bundle", &[], d, LIMITS, None),
            Answer::Decided { decision: Decision::Accept, reason: Some("ok".into()) }
        );
        let liar = script(d, "echo '{\"decision\": \"reject\"}'; exit 0");
        assert_eq!(
            run(&liar, "verify-bundle", &[], d, LIMITS, None),
            Answer::Error("the adapter exited with status 0 (accept) but its JSON line says \"reject\"".into())
        );
        let declines = script(d, "exit 77");
        assert_eq!(run(&declines, "verify-bundle", &[], d, LIMITS, None), Answer::Unsupported);
        let broken = script(d, "echo boom >&2; exit 5");
        assert_eq!(
            run(&broken, "verify-bundle", &[], d, LIMITS, None),
            Answer::Error("the adapter exited with status 5: boom".into())
        );
        let crash = script(d, "kill -SEGV $$");
        assert_eq!(
            run(&crash, "verify-bundle", &[], d, LIMITS, None),
            Answer::Crash("the adapter was killed by signal 11 (SIGSEGV)".into())
        );
    }

    #[test]
    fn a_slow_adapter_is_killed_at_the_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let slow = script(dir.path(), "sleep 30");
        let start = Instant::now();
        let limits = Limits { timeout: Duration::from_millis(300), memory_mib: 1024 };
        assert_eq!(run(&slow, "verify-bundle", &[], dir.path(), limits, None), Answer::Timeout);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    /// Whether a process is still running (a zombie is not).
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
    }

    /// A child that calls `setsid` (leaving the adapter's group and session) and keeps its output
    /// open holds neither a hanging adapter past the limit nor one that answered at once, and is
    /// dead when the answer is returned. Before, both waited the child's 30 s and it lived on.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_that_leaves_the_session_is_killed_with_the_adapter() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pids = dir.path().join("pids");
        let escape = format!("setsid sh -c 'echo $$ >> {}; exec sleep 30' &\nsleep 0.5", pids.display());
        let limits = Limits { timeout: Duration::from_secs(2), memory_mib: 1024 };
        for (body, want) in [
            (format!("{escape}\nsleep 30"), Answer::Timeout),
            (format!("{escape}\nexit 0"), Answer::Decided { decision: Decision::Accept, reason: None }),
        ] {
            let _ = std::fs::remove_file(&pids);
            let p = script(dir.path(), &body);
            let start = Instant::now();
            assert_eq!(run(&p, "verify-bundle", &[], dir.path(), limits, None), want);
            assert!(start.elapsed() < Duration::from_secs(10), "{body}: took {:?}", start.elapsed());
            let escaped = std::fs::read_to_string(&pids).expect("the child wrote its pid");
            for pid in escaped.split_whitespace() {
                assert!(!alive(pid), "{body}: the child {pid} outlived its adapter");
            }
        }
    }

    #[test]
    fn the_memory_cap_holds_in_the_adapter() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Accepts only when the address-space limit it runs under is the one asked for.
        let check = script(dir.path(), "[ \"$(ulimit -v)\" = 65536 ] && exit 0; ulimit -v >&2; exit 1");
        let limits = Limits { timeout: Duration::from_secs(20), memory_mib: 64 };
        assert_eq!(
            run(&check, "verify-bundle", &[], dir.path(), limits, None),
            Answer::Decided { decision: Decision::Accept, reason: None }
        );
    }

    #[test]
    fn probes_say_ready_unavailable_or_broken() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let ready = script(d, "echo '{\"version\": \"9\", \"operations\": [\"verify-ledger\"]}'");
        assert_eq!(
            probe(&ready, d, LIMITS, None),
            Probe::Ready { version: Some("9".into()), operations: Some(vec!["verify-ledger".into()]) }
        );
        let gone = script(d, "echo '{\"reason\": \"not installed\"}'; exit 77");
        assert_eq!(probe(&gone, d, LIMITS, None), Probe::Unavailable("not installed".into()));
        // Worded for people, never Rust's `Some(1)` (issue 47).
        let bad = script(d, "echo 'no licence' >&2; exit 1");
        assert_eq!(probe(&bad, d, LIMITS, None), Probe::Broken("the probe exited with status 1: no licence".into()));
        let silent = script(d, "exit 3");
        assert_eq!(probe(&silent, d, LIMITS, None), Probe::Broken("the probe exited with status 3".into()));
        let killed = script(d, "kill -KILL $$");
        assert_eq!(probe(&killed, d, LIMITS, None), Probe::Broken("the probe was killed by signal 9 (SIGKILL)".into()));
    }
}

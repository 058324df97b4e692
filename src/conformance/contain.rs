//! Keeping everything an adapter starts inside its run (issue 46): when the adapter answers or
//! its time is up, every process it started is killed, and none can hold the run open.
//!
//! A process group is not enough: a child may leave it (`setsid`, `setpgid`) and keep the
//! adapter's output open, and a run that waited for the end of that output waited as long as
//! the child lived, which was longer than the run. Nor is a session, which a child leaves the
//! same way. What no child can leave is the process tree, as long as
//! no orphan is handed to init: this process is made a child subreaper, so whatever an adapter
//! orphans comes back to it as a child, where it can be found (its parent is this process, its
//! process group is not this process's) and killed without a race on its pid (an unreaped
//! child's pid names no other process). Killing one generation hands its children back in
//! turn, so the sweep repeats until none is left. A cgroup would hold the tree as well, but is
//! rarely delegated to an unprivileged user; a PID namespace needs user namespaces, which
//! containers and some distributions forbid.
//!
//! The adapter itself runs through `crossverify conformance contain` when the caller names it
//! (`Options::contain`): a new session, and a subreaper of its own, so that what it orphans
//! while it runs stays in its tree, and a sweep at the end of another adapter's run never
//! mistakes it for a leftover (and a child in another session cannot join this process's
//! group to hide). Without it (a library caller), an adapter that leaves a helper running in
//! the background while it works may see that helper killed when another case ends.

use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::{self, Pid, Signal, WaitId, WaitIdOptions, WaitOptions};

/// Adapters started and not reaped yet: children of this process that are no orphans.
static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// How long one sweep may go on, against a tree that forks as fast as it is killed.
const SWEEP_LIMIT: Duration = Duration::from_secs(10);

fn live() -> MutexGuard<'static, BTreeSet<i32>> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn pid_of(child: &Child) -> i32 {
    i32::try_from(child.id()).unwrap_or(i32::MAX)
}

/// Starts an adapter (already wrapped by the caller, or put in its own process group here).
pub(super) fn spawn(cmd: &mut Command, wrapped: bool) -> io::Result<Child> {
    static REAPER: Once = Once::new();
    // If the kernel refuses, orphans go to init as before; the group is still killed.
    REAPER.call_once(|| {
        let _ = process::set_child_subreaper(Some(process::getpid()));
    });
    if !wrapped {
        std::os::unix::process::CommandExt::process_group(cmd, 0);
    }
    // Registered before a sweep can see it, so no sweep takes a new adapter for an orphan.
    let mut live = live();
    let child = cmd.spawn()?;
    live.insert(pid_of(&child));
    Ok(child)
}

/// Whether the adapter has exited, leaving it unreaped so that its pid and its group's id stay
/// its own until everything in the group is killed.
pub(super) fn exited(child: &mut Child) -> io::Result<bool> {
    let Some(pid) = Pid::from_raw(pid_of(child)) else { return Ok(true) };
    let how = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    Ok(process::waitid(WaitId::Pid(pid), how)?.is_some())
}

/// Kills the adapter (when its time is up) and whatever is left in its group, reaps it, and
/// then kills every process it started that is still running.
pub(super) fn finish(mut child: Child, kill: bool) -> io::Result<ExitStatus> {
    if let Some(pid) = Pid::from_raw(pid_of(&child)) {
        let _ = process::kill_process_group(pid, Signal::KILL);
    }
    if kill {
        let _ = child.kill();
    }
    let status = {
        let mut live = live();
        let status = child.wait();
        live.remove(&pid_of(&child));
        status
    };
    sweep();
    status
}

/// Kills the orphans handed back to this process until none is left.
fn sweep() {
    let me = process::getpid().as_raw_pid();
    let group = process::getpgrp().as_raw_pid();
    let start = Instant::now();
    while start.elapsed() < SWEEP_LIMIT {
        let live = live();
        // Children of this process outside its group are adapters or what adapters left; the
        // kit starts nothing else in a group of its own.
        let orphans: Vec<Pid> = children(me)
            .into_iter()
            .filter(|&(pid, pgid)| pgid != group && !live.contains(&pid))
            .filter_map(|(pid, _)| Pid::from_raw(pid))
            .collect();
        if orphans.is_empty() {
            return;
        }
        for &pid in &orphans {
            let _ = process::kill_process(pid, Signal::KILL);
        }
        // Reaped, so their own children are handed back before the next look.
        for &pid in &orphans {
            reap(pid, start);
        }
    }
}

/// Waits for a killed child; one stuck in the kernel is left for a later sweep.
fn reap(pid: Pid, start: Instant) {
    while start.elapsed() < SWEEP_LIMIT {
        match process::waitpid(Some(pid), WaitOptions::NOHANG) {
            Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            Ok(Some(_)) | Err(_) => return,
        }
    }
}

/// This process's children, with their process groups, from `/proc`.
fn children(me: i32) -> Vec<(i32, i32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The name in parentheses may hold anything; the fields follow its last `)`.
            let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(1);
            let ppid: i32 = fields.next()?.parse().ok()?;
            let pgid: i32 = fields.next()?.parse().ok()?;
            (ppid == me).then_some((pid, pgid))
        })
        .collect()
}

/// `crossverify conformance contain ARGV…`: a new session and a subreaper, then ARGV in place
/// of this process (same pid, so the run reads ARGV's own exit status). Returns only on failure.
pub fn exec(argv: &[std::ffi::OsString]) -> io::Error {
    let Some((program, args)) = argv.split_first() else {
        return io::Error::new(io::ErrorKind::InvalidInput, "nothing to run");
    };
    if let Err(e) = process::setsid() {
        return e.into();
    }
    if let Err(e) = process::set_child_subreaper(Some(process::getpid())) {
        return e.into();
    }
    std::os::unix::process::CommandExt::exec(Command::new(program).args(args))
}

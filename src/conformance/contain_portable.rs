//! Where there is no `/proc` and no child subreaper (every Unix but Linux): the adapter runs in
//! its own process group, which is killed when it answers or its time is up; a child that left
//! the group is not found, but the run stops waiting for the output it holds a short grace
//! after the adapter ended.

use std::io;
use std::process::{Child, Command, ExitStatus, Stdio};

/// Starts an adapter in its own process group.
pub(super) fn spawn(cmd: &mut Command, _wrapped: bool) -> io::Result<Child> {
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    cmd.spawn()
}

/// Whether the adapter has exited.
pub(super) fn exited(child: &mut Child) -> io::Result<bool> {
    Ok(child.try_wait()?.is_some())
}

/// Kills the adapter (when its time is up) and its process group, and reaps it.
pub(super) fn finish(mut child: Child, kill: bool) -> io::Result<ExitStatus> {
    if kill {
        let _ = child.kill();
    }
    let status = child.wait();
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    status
}

/// `crossverify conformance contain ARGV…`: ARGV in place of this process. Returns only on
/// failure.
pub fn exec(argv: &[std::ffi::OsString]) -> io::Error {
    let Some((program, args)) = argv.split_first() else {
        return io::Error::new(io::ErrorKind::InvalidInput, "nothing to run");
    };
    std::os::unix::process::CommandExt::exec(Command::new(program).args(args))
}

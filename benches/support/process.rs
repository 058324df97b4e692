//! One `crossverify` process measured from outside: wall time, max RSS from `/usr/bin/time -v`,
//! and the heap split from `/proc/<pid>/status` sampled every ~2 ms. Shared by the benches that
//! time the CLI (`#[path = "support/process.rs"] mod process;`).

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// One `crossverify` process: wall time, memory, stdout, stderr.
pub(crate) struct Proc {
    pub(crate) wall: Duration,
    pub(crate) mem: Mem,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
}

/// Peak memory of one process, in kB. Max RSS counts the touched pages of the memory-mapped
/// packs, which the kernel may drop and re-read at will; the heap is what the run itself
/// holds, so issue 14's "grows with distinct blobs and cycles, not with bound entries" is read
/// from `anon_kb`.
#[derive(Default, Clone, Copy)]
pub(crate) struct Mem {
    /// `/usr/bin/time -v`'s maximum resident set size (the kernel's `ru_maxrss`).
    pub(crate) max_rss_kb: u64,
    /// Largest `RssAnon` sampled from `/proc/<pid>/status`: heap and other private memory.
    pub(crate) anon_kb: u64,
    /// Largest `RssFile` sampled: file-backed pages, chiefly the mapped packs.
    pub(crate) file_kb: u64,
    /// The last `VmHWM` sampled before the process exited (the kernel's own high-water mark).
    pub(crate) hwm_kb: u64,
    /// How many samples were taken, every ~2 ms; 0 means the split was not measured.
    pub(crate) samples: u64,
}

impl Mem {
    /// `max RSS 688 MB (heap (max RssAnon) 301 MB, max RssFile 392 MB, VmHWM 688 MB, 20512
    /// samples)`; the heap is shown as not measured when no sample was taken (no `/proc`, or a
    /// run under 2 ms), never as 0 MB.
    pub(crate) fn show(&self) -> String {
        let split = if self.samples == 0 {
            "heap not measured".to_owned()
        } else {
            format!(
                "heap (max RssAnon) {} MB, max RssFile {} MB, VmHWM {} MB, {} samples",
                self.anon_kb / 1024,
                self.file_kb / 1024,
                self.hwm_kb / 1024,
                self.samples
            )
        };
        format!("max RSS {} MB ({split})", self.max_rss_kb / 1024)
    }
}

/// Samples `/proc/<pid>/status` of the process `/usr/bin/time` (`time_pid`) started, every
/// ~2 ms until `done` is set (both were reaped), as `benches/manifest.rs` does for the manifest
/// CLI; `/usr/bin/time` stays for max RSS, which the kernel counts to the last page.
fn poll_memory(time_pid: u32, done: &std::sync::atomic::AtomicBool) -> Mem {
    use std::sync::atomic::Ordering;
    let children = format!("/proc/{time_pid}/task/{time_pid}/children");
    let mut mem = Mem::default();
    let mut pid = None;
    while !done.load(Ordering::Relaxed) {
        if pid.is_none() {
            pid = std::fs::read_to_string(&children).ok().and_then(|s| s.split_whitespace().next().map(str::to_owned));
        }
        if let Some(status) = pid.as_ref().and_then(|p| std::fs::read_to_string(format!("/proc/{p}/status")).ok()) {
            let kb = |rest: &str| rest.split_whitespace().next().and_then(|v| v.parse::<u64>().ok());
            let mut seen = false;
            for line in status.lines() {
                if let Some(v) = line.strip_prefix("RssAnon:").and_then(kb) {
                    mem.anon_kb = mem.anon_kb.max(v);
                    seen = true;
                } else if let Some(v) = line.strip_prefix("RssFile:").and_then(kb) {
                    mem.file_kb = mem.file_kb.max(v);
                } else if let Some(v) = line.strip_prefix("VmHWM:").and_then(kb) {
                    mem.hwm_kb = mem.hwm_kb.max(v);
                }
            }
            // A zombie's status has no memory lines: the process is over.
            mem.samples += u64::from(seen);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    mem
}

pub(crate) fn process(exe: &Path, args: &[&std::ffi::OsStr]) -> Proc {
    let rss = std::env::temp_dir().join(format!("crossverify-bench-rss-{}", std::process::id()));
    let t = Instant::now();
    let child = Command::new("/usr/bin/time")
        .arg("-v")
        .arg("-o")
        .arg(&rss)
        .arg(exe)
        .args(args)
        .env("CROSSVERIFY_CACHE_KEY", "bench")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("/usr/bin/time runs");
    let done = std::sync::atomic::AtomicBool::new(false);
    let (o, mut mem) = std::thread::scope(|s| {
        let time_pid = child.id();
        let done = &done;
        let poller = s.spawn(move || poll_memory(time_pid, done));
        let o = child.wait_with_output().expect("/usr/bin/time ends");
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (o, poller.join().expect("the memory poller ends"))
    });
    let wall = t.elapsed();
    let text = std::fs::read_to_string(&rss).unwrap_or_default();
    mem.max_rss_kb = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{} {args:?}: {stderr}", exe.display());
    Proc { wall, mem, stdout: o.stdout, stderr }
}

pub(crate) fn ledger_args<'a>(dir: &'a Path, extra: &[&'a str]) -> Vec<std::ffi::OsString> {
    let mut v: Vec<std::ffi::OsString> = vec!["ledger".into(), "--audit".into(), dir.join("audit").into()];
    v.extend(["--science".into(), dir.join("science").into(), "--format".into(), "json".into()]);
    v.extend(extra.iter().map(Into::into));
    v
}

pub(crate) fn os(v: &[std::ffi::OsString]) -> Vec<&std::ffi::OsStr> {
    v.iter().map(std::ffi::OsString::as_os_str).collect()
}

/// Repacks both repositories of a freshly minted ledger into one pack each, as a clone would
/// hold them, without the user's git configuration.
pub(crate) fn repack(dir: &Path) {
    for repo in ["science", "audit"] {
        let st = Command::new("git")
            .args(["repack", "-adq"])
            .env("GIT_DIR", dir.join(repo))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .expect("git runs");
        assert!(st.success(), "git repack {repo}");
    }
}

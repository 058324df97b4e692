//! Panels made by the real CrossExam tool (crossexam 0.6.1 from PyPI, installed by `.ci/test`
//! into `target/oracle/crossexam`): `dev/crossexam/panels.sh` drives its CLI to build a clean
//! panel and panels with one violation each, made by hand (a direct append, a forged phase
//! note, a verify during blind, a rewritten earlier line); crossverify must report exactly the
//! rule codes each violation triggers, and nothing on the clean panel.

use crate::support;

use crate::tools;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn cxam() -> Option<PathBuf> {
    let p = std::env::var_os("CROSSVERIFY_CROSSEXAM")
        .map_or_else(|| support::root().join("target/oracle/crossexam/bin/cxam"), PathBuf::from);
    p.is_file().then_some(p)
}

fn git_on_path() -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join("git")).find(|p| p.is_file())
}

/// (exit code, failed codes at every level) of `crossverify transcript ARGS`.
fn run(args: &[&str]) -> (i32, BTreeSet<String>) {
    let out = support::crossverify().arg("transcript").args(args).args(["--format", "json"]).output().expect("run");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let failed = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["outcome"] == "failed")
        .filter_map(|r| r["code"].as_str().map(str::to_owned))
        .collect();
    (out.status.code().unwrap_or(-1), failed)
}

#[test]
fn real_tool_panels_fail_with_exactly_their_violations() {
    let Some(cxam) = tools::require("crossexam 0.6.1 (pip, into target/oracle/crossexam)", cxam()) else { return };
    if tools::require("git", git_on_path()).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("panels");
    let status = std::process::Command::new("bash")
        .arg(support::root().join("dev/crossexam/panels.sh"))
        .arg(&cxam)
        .arg(&out)
        .current_dir(tmp.path())
        .status()
        .expect("panels.sh runs");
    assert!(status.success(), "dev/crossexam/panels.sh failed");
    let msg = |name: &str| out.join(name).join("_Msg").to_string_lossy().into_owned();
    let cases: [(&str, i32, &[&str]); 5] = [
        ("clean", 0, &[]),
        ("direct-append", 1, &["CX-F11", "CX-G2"]),
        ("forged-phase", 1, &["CX-P3", "CX-R6"]),
        ("verify-in-blind", 1, &["CX-F11", "CX-G1"]),
        ("rewritten-line", 1, &["CX-I3"]),
    ];
    for (name, exit, want) in cases {
        let (code, failed) = run(&[&msg(name)]);
        let want: BTreeSet<String> = want.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!((code, &failed), (exit, &want), "panel {name}");
    }
    // The snapshot taken before the rewrite proves it without git too.
    let prior = out.join("rewritten-line.prior.jsonl").to_string_lossy().into_owned();
    let copy = tmp.path().join("copy/_Msg");
    support::copy_dir(&out.join("rewritten-line/_Msg"), &copy);
    let (code, failed) = run(&[&copy.to_string_lossy(), "--prior", &prior]);
    assert_eq!((code, failed.into_iter().collect::<Vec<_>>()), (1, vec!["CX-I3".to_owned()]));
    let (code, failed) = run(&[&msg("clean"), "--prior", &out.join("clean/_Msg/bus.jsonl").to_string_lossy()]);
    assert_eq!((code, failed.len()), (0, 0), "a file is a prefix of itself");
}

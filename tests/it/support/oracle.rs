//! The CrossAudit product (4.14.0) as a differential oracle: the ledgers it minted
//! (`test-vectors/oracle/`), the decisions it made (`test-vectors/oracle/product-decisions.json`),
//! its verifier when someone has it, and crossverify's decision on the same receipt.
//!
//! The product is not a registry package, so nothing installs it: the recorded decisions are the
//! oracle. Whoever has the product sets `CROSSAUDIT_PRODUCT` to its virtual environment (the
//! directory holding `bin/crossaudit`) to check or re-record them live, and `CROSSAUDIT_TOOLS` to
//! the directory of its offline driver `cadriver.py` to re-mint the ledgers.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::root;

pub const EXPECT_REPO: &str = "lab/water-dimer";

/// The product's virtual environment, when `CROSSAUDIT_PRODUCT` names one.
pub fn venv() -> Option<PathBuf> {
    std::env::var_os("CROSSAUDIT_PRODUCT").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The product's `crossaudit` command, when `CROSSAUDIT_PRODUCT` names an environment holding it.
pub fn product() -> Option<PathBuf> {
    let p = venv()?.join("bin/crossaudit");
    p.is_file().then_some(p)
}

/// The offline driver that mints with the product, when `CROSSAUDIT_TOOLS` names its directory.
pub fn driver() -> Option<PathBuf> {
    let dir = std::env::var_os("CROSSAUDIT_TOOLS").filter(|v| !v.is_empty())?;
    let p = PathBuf::from(dir).join("cadriver.py");
    p.is_file().then_some(p)
}

/// `test-vectors/oracle/ledgers.json`: every minted case, its tips and receipts.
pub fn ledgers() -> Value {
    let p = root().join("test-vectors/oracle/ledgers.json");
    serde_json::from_slice(&std::fs::read(&p).expect("read ledgers.json")).expect("ledgers.json is JSON")
}

/// Commits written by the harness: pinned identity and clock, no host configuration.
pub fn git_env(cmd: &mut Command, home: &Path) {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .env("GIT_AUTHOR_NAME", "Forger")
        .env("GIT_AUTHOR_EMAIL", "forger@example.invalid")
        .env("GIT_COMMITTER_NAME", "Forger")
        .env("GIT_COMMITTER_EMAIL", "forger@example.invalid")
        .env("GIT_AUTHOR_DATE", "1786600000 +0000")
        .env("GIT_COMMITTER_DATE", "1786600000 +0000");
}

/// Runs git in `dir` with [`git_env`]; panics with git's message on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(dir);
    git_env(&mut cmd, dir);
    let out = cmd.output().expect("git runs");
    assert!(out.status.success(), "git {args:?} in {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// One minted case cloned into a scratch directory.
pub struct Checkout {
    pub science: PathBuf,
    pub ledger: PathBuf,
    pub paired: bool,
    pub home: PathBuf,
}

pub fn checkout(case: &Value, dir: &Path) -> Checkout {
    let name = case["case"].as_str().expect("case");
    let paired = case["mode"] == "paired";
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");
    for role in case["tips"].as_object().expect("tips").keys() {
        let bundle = root().join(format!("test-vectors/oracle/{name}/{role}.bundle"));
        let mut cmd = Command::new("git");
        cmd.args(["clone", "-q", "-b", "main"]).arg(&bundle).arg(dir.join(role));
        git_env(&mut cmd, &home);
        let out = cmd.output().expect("git clone runs");
        assert!(out.status.success(), "cloning {}: {}", bundle.display(), String::from_utf8_lossy(&out.stderr));
    }
    let ledger = dir.join(case["ledger_repo"].as_str().expect("ledger_repo"));
    Checkout { science: dir.join("science"), ledger, paired, home }
}

/// Accepted (the receipt's bindings hold) or denied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Accept,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Deny => "deny",
        }
    }
}

/// A verifier's decision and why.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub decision: Decision,
    pub detail: String,
    /// The exit code, where it was seen (a recorded decision may not have kept it).
    pub exit: Option<i32>,
}

/// The product's `verify`: `verified: true` with exit 0 is an acceptance; anything else (a
/// denial object, exit 20–22, or a crash) is a denial.
pub fn product_verify(co: &Checkout, receipt: &str, expect_sha: &str) -> (Verdict, Value) {
    let exe = product().expect("product installed");
    let mut cmd = Command::new(exe);
    cmd.args(["--json", "verify", receipt, "--science-root"])
        .arg(&co.science)
        .arg("--audit-root")
        .arg(&co.ledger)
        .args(["--expect-sha", expect_sha, "--expect-repo", EXPECT_REPO])
        .current_dir(&co.ledger);
    git_env(&mut cmd, &co.home);
    if co.paired {
        cmd.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", co.science.join(".git/objects"));
    }
    let out = cmd.output().expect("product runs");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let accepted = out.status.code() == Some(0) && json["verified"] == true;
    let detail = if accepted {
        String::new()
    } else {
        json["reason"]
            .as_str()
            .map_or_else(|| format!("exit {:?}: {}", out.status.code(), last_line(&out.stderr)), str::to_owned)
    };
    let decision = if accepted { Decision::Accept } else { Decision::Deny };
    (Verdict { decision, detail, exit: out.status.code() }, json)
}

/// `crossaudit --version` of the live product, as it names itself.
pub fn product_version() -> String {
    let exe = product().expect("product installed");
    let out = Command::new(exe).arg("--version").output().expect("product runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Today's date (UTC) for a re-recording, from `date`: the record says when the product decided.
pub fn today() -> String {
    let out = Command::new("date").args(["-u", "+%Y-%m-%d"]).output().expect("date runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_owned()
}

/// `crossverify receipt`: exit 0 or 3 (nothing failed at error level) is an acceptance; exit 1
/// (an error-level check failed) and exit 2 (the receipt could not be read) are denials. The
/// detail is the sorted set of error-level codes that failed, or the cantTell ones.
pub fn crossverify_verify(co: &Checkout, receipt: &str, expect_sha: &str) -> Verdict {
    let mut cmd = crate::support::crossverify();
    cmd.arg("receipt").arg(co.ledger.join(receipt)).arg("--science").arg(&co.science);
    if co.paired {
        cmd.arg("--audit").arg(&co.ledger);
    }
    cmd.args(["--expect-sha", expect_sha, "--expect-repo", EXPECT_REPO]);
    decide(cmd, co)
}

/// `crossverify ledger` over the whole ledger, for records that live beside the receipt
/// (disputes), with the decision mapping of [`crossverify_verify`].
pub fn crossverify_ledger(co: &Checkout) -> Verdict {
    let mut cmd = crate::support::crossverify();
    cmd.arg("ledger").arg("--audit").arg(&co.ledger);
    if co.paired {
        cmd.arg("--science").arg(&co.science);
    }
    decide(cmd, co)
}

fn decide(mut cmd: Command, co: &Checkout) -> Verdict {
    cmd.args(["--format", "json", "--quiet"]);
    cmd.env("HOME", &co.home);
    let out = cmd.output().expect("crossverify runs");
    let code = out.status.code().unwrap_or(-1);
    let codes = |outcome: &str| -> String {
        let json: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let mut v: Vec<String> = json["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["level"] == "error" && r["outcome"] == outcome)
            .filter_map(|r| r["code"].as_str().map(str::to_owned))
            .collect();
        v.sort();
        v.dedup();
        v.join(" ")
    };
    let (decision, detail) = match code {
        0 => (Decision::Accept, String::new()),
        3 => (Decision::Accept, format!("cantTell {}", codes("cantTell"))),
        1 => (Decision::Deny, codes("failed")),
        _ => (Decision::Deny, format!("exit {code}: {}", last_line(&out.stderr))),
    };
    Verdict { decision, detail, exit: Some(code) }
}

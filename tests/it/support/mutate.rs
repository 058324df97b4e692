//! Single mutations of the product's minted ledgers for the differential harness. Each is
//! committed in a scratch clone the way a forger would publish it: the commit holding the record
//! is rewritten (later commits replayed on top, unreachable objects pruned), or a later commit
//! edits it, with a pinned identity and clock.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::support_oracle::{self as oracle, Checkout};

/// The receipt both verifiers are given after the mutation, and the commit it must bind.
pub struct Target {
    pub receipt: String,
    pub expect_sha: String,
    /// crossverify decides on the whole ledger: the mutated record lives beside the receipt.
    pub whole_ledger: bool,
}

type Apply = Box<dyn Fn(&Checkout) -> Target + Send + Sync>;

pub struct Case {
    pub id: String,
    pub class: String,
    pub base: Value,
    pub apply: Apply,
}

/// Names a base receipt of one minted case: `index` counts from the end when negative.
#[derive(Clone)]
struct Base {
    case: Value,
    receipt: String,
    sha: String,
}

fn base(ledgers: &Value, name: &str, index: isize) -> Base {
    let case = ledgers["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["case"] == name)
        .unwrap_or_else(|| panic!("no minted case {name}"))
        .clone();
    let list = case["receipts"].as_array().expect("receipts");
    let i = if index < 0 { list.len().checked_add_signed(index).expect("index") } else { index.unsigned_abs() };
    let r = &list[i];
    let receipt = r["receipt"].as_str().expect("receipt").to_owned();
    let sha = r["expect_sha"].as_str().expect("sha").to_owned();
    Base { case, receipt, sha }
}

fn push(out: &mut Vec<Case>, b: &Base, id: &str, class: &str, f: impl Fn(&Checkout, &Base) + Send + Sync + 'static) {
    let b2 = b.clone();
    let label = b.case["case"].as_str().expect("case").to_owned();
    let class = class.to_owned();
    out.push(Case {
        id: format!("{label}:{id}"),
        class: class.clone(),
        base: b.case.clone(),
        apply: Box::new(move |co| {
            f(co, &b2);
            Target { receipt: b2.receipt.clone(), expect_sha: b2.sha.clone(), whole_ledger: class == "dispute" }
        }),
    });
}

/// Every case of the harness, in a fixed order.
pub fn cases(ledgers: &Value) -> Vec<Case> {
    let mut out = Vec::new();
    receipt_leaves(&base(ledgers, "local-openai-ok", 0), &mut out);
    targeted_fields(ledgers, &mut out);
    manifest(ledgers, &mut out);
    report(ledgers, &mut out);
    dcl(ledgers, &mut out);
    disputes(ledgers, &mut out);
    history(ledgers, &mut out);
    out
}

// ---------------------------------------------------------------- git plumbing

/// Rewrites the commit that last touched `file`: `edit` runs on its tree, later commits are
/// replayed on top, and the replaced objects are pruned so they cannot be read any more.
pub fn rewrite_at(repo: &Path, file: &str, edit: impl FnOnce(&Path)) {
    let commit = oracle::git(repo, &["log", "-1", "--format=%H", "--", file]);
    assert!(!commit.is_empty(), "no commit touches {file}");
    let later = oracle::git(repo, &["rev-list", "--reverse", &format!("{commit}..HEAD")]);
    oracle::git(repo, &["reset", "-q", "--hard", &commit]);
    edit(repo);
    oracle::git(repo, &["add", "-A"]);
    oracle::git(repo, &["commit", "-q", "--amend", "--no-edit", "--allow-empty"]);
    for c in later.lines() {
        oracle::git(repo, &["cherry-pick", "--allow-empty", "--keep-redundant-commits", c]);
    }
    prune(repo);
}

/// A new commit on top of the ledger.
pub fn commit_on_top(repo: &Path, message: &str, edit: impl FnOnce(&Path)) {
    edit(repo);
    oracle::git(repo, &["add", "-A"]);
    oracle::git(repo, &["commit", "-q", "--allow-empty", "-m", message]);
}

fn prune(repo: &Path) {
    let _ = std::process::Command::new("git").args(["remote", "remove", "origin"]).current_dir(repo).output();
    oracle::git(repo, &["reflog", "expire", "--expire=now", "--all"]);
    oracle::git(repo, &["gc", "-q", "--prune=now"]);
}

/// Rewrites a JSON record as the product writes it (`indent=2, sort_keys=True`, ASCII escapes).
pub fn edit_json(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).expect("read record")).expect("record is JSON");
    f(&mut v);
    let parsed = crossverify::json::parse(serde_json::to_string(&v).expect("serialise").as_bytes()).expect("reparse");
    std::fs::write(path, crossverify::json::python_pretty(&parsed, true)).expect("write record");
}

fn edit_text(path: &Path, f: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(path).expect("read text");
    let new = f(text.clone());
    assert_ne!(new, text, "edit of {} changed nothing", path.display());
    std::fs::write(path, new).expect("write text");
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn receipt_json(co: &Checkout, rel: &str) -> Value {
    serde_json::from_slice(&std::fs::read(co.ledger.join(rel)).expect("receipt")).expect("receipt JSON")
}

fn cycle_dir(receipt: &str) -> &str {
    receipt.rsplit_once('/').map_or("", |(d, _)| d)
}

// ---------------------------------------------------------------- receipt fields

#[derive(Clone, Debug)]
enum Key {
    Field(String),
    Index(usize),
}

fn leaves(v: &Value, path: &mut Vec<Key>, out: &mut Vec<Vec<Key>>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, child) in m {
                path.push(Key::Field(k.clone()));
                leaves(child, path, out);
                path.pop();
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, child) in a.iter().enumerate() {
                path.push(Key::Index(i));
                leaves(child, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn dotted(path: &[Key]) -> String {
    let mut s = String::new();
    for k in path {
        match k {
            Key::Field(f) if s.is_empty() => s.push_str(f),
            Key::Field(f) => {
                s.push('.');
                s.push_str(f);
            }
            Key::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn at<'a>(v: &'a mut Value, path: &[Key]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match k {
        Key::Field(f) => &mut v[f.as_str()],
        Key::Index(i) => &mut v[*i],
    })
}

/// A different value of the same kind: a flipped hex digit, the other verdict, a number + 1.
fn changed(v: &Value) -> Value {
    match v {
        Value::String(s) => {
            let swaps = [
                ("PASS", "BLOCKED"),
                ("BLOCKED", "PASS"),
                ("ESCALATE", "PASS"),
                ("OK", "NON_EVIDENTIAL_PROVIDER"),
                ("NON_EVIDENTIAL_PROVIDER", "OK"),
                ("INVALID_REPLY", "OK"),
            ];
            if let Some((_, to)) = swaps.iter().find(|(from, _)| from == s) {
                return json!(to);
            }
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit()) && s.len() >= 12 {
                let mut t = s.clone();
                let last = if t.ends_with('0') { '1' } else { '0' };
                t.pop();
                t.push(last);
                return json!(t);
            }
            json!(format!("{s}-forged"))
        }
        Value::Number(n) => json!(n.as_i64().unwrap_or(0) + 1),
        Value::Bool(b) => json!(!b),
        Value::Null => json!("forged"),
        Value::Object(_) => json!({"skills/forged.md": "0".repeat(64)}),
        Value::Array(_) => json!(["forged"]),
    }
}

fn remove(v: &mut Value, path: &[Key]) {
    let (last, parent) = path.split_last().expect("non-empty path");
    match (at(v, parent), last) {
        (Value::Object(m), Key::Field(f)) => {
            m.remove(f);
        }
        (Value::Array(a), Key::Index(i)) => {
            a.remove(*i);
        }
        _ => panic!("bad path"),
    }
}

/// Every leaf of the schema-2 receipt, changed and removed, rewritten in its own commit.
fn receipt_leaves(b: &Base, out: &mut Vec<Case>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let co = oracle::checkout(&b.case, dir.path());
    let receipt = receipt_json(&co, &b.receipt);
    let mut paths = Vec::new();
    leaves(&receipt, &mut Vec::new(), &mut paths);
    for path in paths {
        let name = dotted(&path);
        let p2 = path.clone();
        push(out, b, &format!("receipt.change.{name}"), &format!("receipt-field:{}", class_of(&path)), move |co, b| {
            rewrite_at(&co.ledger, &b.receipt, |r| {
                edit_json(&r.join(&b.receipt), |v| {
                    let slot = at(v, &p2);
                    *slot = changed(slot);
                });
            });
        });
        push(out, b, &format!("receipt.remove.{name}"), &format!("receipt-field:{}", class_of(&path)), move |co, b| {
            rewrite_at(&co.ledger, &b.receipt, |r| edit_json(&r.join(&b.receipt), |v| remove(v, &path)));
        });
    }
}

/// The class a leaf belongs to: its top-level section, or its field under `inputs` and `audit`,
/// whose fields are bound by different invariants.
fn class_of(path: &[Key]) -> String {
    let names: Vec<&str> = path
        .iter()
        .filter_map(|k| match k {
            Key::Field(f) => Some(f.as_str()),
            Key::Index(_) => None,
        })
        .collect();
    match names.as_slice() {
        ["inputs" | "audit", b, ..] => format!("{}.{b}", names[0]),
        [a, ..] => (*a).to_owned(),
        [] => String::new(),
    }
}

fn set_fields(co: &Checkout, b: &Base, fields: &[(&str, Value)]) {
    let fields: Vec<(String, Value)> = fields.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    rewrite_at(&co.ledger, &b.receipt, |r| {
        edit_json(&r.join(&b.receipt), |v| {
            for (dotted, value) in &fields {
                let mut slot = &mut *v;
                for part in dotted.split('.') {
                    slot = &mut slot[part];
                }
                *slot = value.clone();
            }
        });
    });
}

/// Fields set to another genuine value (not a garbled one): what a careful forger writes.
fn targeted_fields(ledgers: &Value, out: &mut Vec<Case>) {
    let multi = base(ledgers, "local-audit-multiround", -1);
    let multi_r1 = base(ledgers, "local-audit-multiround", 0);
    let r1_sha = multi_r1.sha.clone();
    push(out, &multi, "cycle.root_sha=own-sha", "cycle-identity", |co, b| {
        set_fields(co, b, &[("cycle.root_sha", json!(b.sha))]);
    });
    push(out, &multi, "cycle.round=1", "cycle-identity", |co, b| set_fields(co, b, &[("cycle.round", json!(1))]));
    push(out, &multi, "cycle.parent_receipt=empty", "cycle-identity", |co, b| {
        set_fields(co, b, &[("cycle.parent_receipt", json!(""))]);
    });
    push(out, &multi, "subject.sha=round-1-commit", "subject-rebound", move |co, b| {
        set_fields(co, b, &[("subject.sha", json!(r1_sha)), ("cycle.active_sha", json!(r1_sha))]);
    });
    let lock = base(ledgers, "paired-escalation-lock", -1);
    push(out, &lock, "cycle.active_sha=own-sha", "escalation-lock", |co, b| {
        set_fields(co, b, &[("cycle.active_sha", json!(b.sha))]);
    });
    push(out, &lock, "audit.verdict=PASS", "escalation-lock", |co, b| {
        set_fields(co, b, &[("audit.verdict", json!("PASS"))]);
    });
    let run = base(ledgers, "local-run-deletion", -1);
    push(out, &run, "subject.scope=experiments", "scope", |co, b| {
        set_fields(co, b, &[("subject.scope", json!("experiments"))]);
    });
    push(out, &run, "subject.scope=empty", "scope", |co, b| set_fields(co, b, &[("subject.scope", json!(""))]));
    let esc = base(ledgers, "local-escalate-reaudit", 0);
    push(out, &esc, "audit.audit_integrity=OK", "integrity", |co, b| {
        set_fields(co, b, &[("audit.audit_integrity", json!("OK"))]);
    });
    let reattempt = base(ledgers, "local-escalate-reaudit", -1);
    push(out, &reattempt, "ledger.cycle_path=first-attempt", "ledger-location", |co, b| {
        let first = cycle_dir(&b.receipt).trim_end_matches(".2").to_owned();
        set_fields(co, b, &[("ledger.cycle_path", json!(first))]);
    });
}

// ---------------------------------------------------------------- manifest

fn edit_manifest(co: &Checkout, b: &Base, f: impl FnOnce(&mut serde_json::Map<String, Value>, &Checkout)) {
    let mut manifest = receipt_json(co, &b.receipt)["inputs"]["manifest"].as_object().cloned().unwrap_or_default();
    f(&mut manifest, co);
    let manifest = Value::Object(manifest);
    rewrite_at(&co.ledger, &b.receipt, |r| edit_json(&r.join(&b.receipt), |v| v["inputs"]["manifest"] = manifest));
}

fn blob_digest(co: &Checkout, sha: &str, path: &str) -> String {
    let out = std::process::Command::new("git")
        .args(["cat-file", "blob", &format!("{sha}:{path}")])
        .current_dir(&co.science)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "no {path} at {sha}");
    sha256_hex(&out.stdout)
}

fn manifest(ledgers: &Value, out: &mut Vec<Case>) {
    let ok = base(ledgers, "local-openai-ok", 0);
    push(out, &ok, "manifest.add-in-scope-absent", "manifest", |co, b| {
        edit_manifest(co, b, |m, _| {
            m.insert("experiments/2026-07-30-demo/extra.dat".into(), json!("0".repeat(64)));
        });
    });
    push(out, &ok, "manifest.add-out-of-scope-correct-digest", "manifest-scope", |co, b| {
        let sha = b.sha.clone();
        edit_manifest(co, b, |m, co| {
            m.insert("crossaudit.yml".into(), json!(blob_digest(co, &sha, "crossaudit.yml")));
        });
    });
    push(out, &ok, "manifest.rename-key", "manifest", |co, b| {
        edit_manifest(co, b, |m, _| {
            let v = m.remove("experiments/2026-07-30-demo/results.json").expect("results bound");
            m.insert("experiments/2026-07-30-demo/results-v2.json".into(), v);
        });
    });
    push(out, &ok, "manifest.empty", "manifest-completeness", |co, b| edit_manifest(co, b, |m, _| m.clear()));
    push(out, &ok, "manifest.drop-results", "manifest-completeness", |co, b| {
        edit_manifest(co, b, |m, _| {
            m.remove("experiments/2026-07-30-demo/results.json");
        });
    });
    let paired = base(ledgers, "paired-multiround", -1);
    push(out, &paired, "manifest.task-only", "manifest-completeness", |co, b| {
        edit_manifest(co, b, |m, _| m.retain(|k, _| k == "TASK.md"));
    });
    push(out, &paired, "manifest.swap-digests", "manifest", |co, b| {
        edit_manifest(co, b, |m, _| {
            let a = "experiments/2026-07-30-demo/metadata.yml";
            let c = "experiments/2026-07-30-demo/results.json";
            let (va, vc) = (m[a].clone(), m[c].clone());
            m.insert(a.into(), vc);
            m.insert(c.into(), va);
        });
    });
}

// ---------------------------------------------------------------- report rows

/// A forged report, re-bound: the report commit is rewritten and the receipt's `report_commit`
/// and `report_sha256` follow it, as a forger who controls the ledger would do.
fn forge_report(co: &Checkout, b: &Base, edit: &dyn Fn(String) -> String) {
    let report = format!("{}/report.md", cycle_dir(&b.receipt));
    rewrite_at(&co.ledger, &report, |r| edit_text(&r.join(&report), edit));
    let commit = oracle::git(&co.ledger, &["log", "-1", "--format=%H", "--", &report]);
    let digest = sha256_hex(&std::fs::read(co.ledger.join(&report)).expect("report"));
    set_fields(co, b, &[("ledger.report_commit", json!(commit)), ("ledger.report_sha256", json!(digest))]);
}

fn replace(from: &'static str, to: &'static str) -> impl Fn(String) -> String + Send + Sync {
    move |s: String| s.replacen(from, to, 1)
}

type Edit = Box<dyn Fn(String) -> String + Send + Sync>;

fn report_edits() -> Vec<(&'static str, Edit)> {
    vec![
        ("verdict-row", Box::new(replace("| verdict | **PASS** |", "| verdict | **BLOCKED** |"))),
        (
            "second-verdict-row",
            Box::new(replace("| verdict | **PASS** |", "| verdict | **PASS** |\n| verdict | **BLOCKED** |")),
        ),
        ("auditor-row", Box::new(replace("`openai_compat:fixture-auditor`", "`openai_compat:other-model`"))),
        ("auditor-vendor", Box::new(replace("(vendor openai;", "(vendor anthropic;"))),
        ("round-row", Box::new(replace("| round | 1 |", "| round | 2 |"))),
        ("dcl-row", Box::new(replace("| 0 hard failure(s) |", "| 1 hard failure(s) |"))),
        ("constitution-row", Box::new(|s: String| constitution_row(&s))),
        ("rules-applied-removed", Box::new(|s: String| drop_line(&s, "Rules applied:"))),
        ("rules-applied-twice", Box::new(|s: String| dup_line(&s, "Rules applied:"))),
        ("rules-applied-unknown-rule", Box::new(replace("Rules applied: CA-DATA-001", "Rules applied: CA-DATA-999"))),
        (
            "blocker-finding-added",
            Box::new(replace(
                "## Model findings\n\n",
                "## Model findings\n\n### [BLOCKER] CA-DATA-001 — experiments/2026-07-30-demo/results.json\nA unit is missing.\n\n",
            )),
        ),
        ("finding-severity-major", Box::new(replace("### [ADVISORY]", "### [MAJOR]"))),
        ("finding-rule-unknown", Box::new(replace("### [ADVISORY] CA-REPRO-001", "### [ADVISORY] CA-REPRO-999"))),
        ("finding-removed", Box::new(|s: String| drop_finding(&s))),
    ]
}

fn constitution_row(s: &str) -> String {
    let start = s.find("| constitution | `").expect("constitution row") + "| constitution | `".len();
    let mut t = s.to_owned();
    let flip = if &t[start..=start] == "0" { "1" } else { "0" };
    t.replace_range(start..=start, flip);
    t
}

fn drop_line(s: &str, prefix: &str) -> String {
    s.lines().filter(|l| !l.starts_with(prefix)).map(|l| format!("{l}\n")).collect::<String>().trim_end().to_owned()
}

fn dup_line(s: &str, prefix: &str) -> String {
    let line = s.lines().find(|l| l.starts_with(prefix)).expect("line").to_owned();
    s.replacen(&line, &format!("{line}\n{line}"), 1)
}

fn drop_finding(s: &str) -> String {
    let start = s.find("### [ADVISORY]").expect("a finding");
    let end = s[start..].find("\n\n").map_or(s.len(), |e| start + e + 2);
    format!("{}{}", &s[..start], &s[end..])
}

fn report(ledgers: &Value, out: &mut Vec<Case>) {
    let ok = base(ledgers, "local-openai-ok", 0);
    for (name, edit) in report_edits() {
        let edit = std::sync::Arc::new(edit);
        push(out, &ok, &format!("report.{name}"), "report-forged", move |co, b| forge_report(co, b, &**edit));
    }
    push(out, &ok, "report.verdict-row-unbound", "report-unbound", |co, b| {
        let report = format!("{}/report.md", cycle_dir(&b.receipt));
        rewrite_at(&co.ledger, &report, |r| {
            edit_text(&r.join(&report), replace("| verdict | **PASS** |", "| verdict | **BLOCKED** |"));
        });
    });
    let esc = base(ledgers, "local-escalate-reaudit", 0);
    push(out, &esc, "report+receipt.invalid-reply-forged-pass", "report-forged", |co, b| {
        forge_report(co, b, &|s: String| s.replacen("**ESCALATE**", "**PASS**", 1));
        set_fields(co, b, &[("audit.verdict", json!("PASS")), ("audit.audit_integrity", json!("OK"))]);
    });
}

// ---------------------------------------------------------------- deterministic layer

fn edit_checks(co: &Checkout, b: &Base, f: impl FnOnce(&mut Value)) {
    let checks = format!("{}/checks.json", cycle_dir(&b.receipt));
    rewrite_at(&co.ledger, &checks, |r| {
        let path = r.join(&checks);
        let mut v: Value = serde_json::from_slice(&std::fs::read(&path).expect("checks")).expect("checks JSON");
        f(&mut v);
        std::fs::write(&path, serde_json::to_string_pretty(&v).expect("serialise")).expect("write checks");
    });
}

fn dcl(ledgers: &Value, out: &mut Vec<Case>) {
    let blocked = base(ledgers, "paired-multiround", 0);
    push(out, &blocked, "checks.verdict=PASS", "dcl-output", |co, b| {
        edit_checks(co, b, |v| v["verdict"] = json!("PASS"))
    });
    push(out, &blocked, "checks.count=0", "dcl-output", |co, b| {
        edit_checks(co, b, |v| v["total_hard_failures"] = json!(0));
    });
    push(out, &blocked, "checks.cleared", "dcl-output", |co, b| {
        edit_checks(co, b, |v| {
            v["verdict"] = json!("PASS");
            v["total_hard_failures"] = json!(0);
            v["findings"] = json!([]);
        });
    });
    push(out, &blocked, "checks.removed", "dcl-output", |co, b| {
        let checks = format!("{}/checks.json", cycle_dir(&b.receipt));
        rewrite_at(&co.ledger, &checks, |r| std::fs::remove_file(r.join(&checks)).expect("rm checks"));
    });
    let ok = base(ledgers, "local-openai-ok", 0);
    push(out, &ok, "checks.blocker-added", "dcl-output", |co, b| {
        edit_checks(co, b, |v| {
            v["verdict"] = json!("BLOCKED");
            v["total_hard_failures"] = json!(1);
            v["findings"] = json!([{"severity": "BLOCKER", "rule": "DCL:units", "artifact": "experiments/2026-07-30-demo/results.json",
                                     "observation": "a quantity has no unit", "check": "units", "implementation_code": "CA-DATA-001"}]);
        });
    });
    push(out, &ok, "checks.count=1", "dcl-output", |co, b| edit_checks(co, b, |v| v["total_hard_failures"] = json!(1)));
}

// ---------------------------------------------------------------- disputes

fn edit_disputes(co: &Checkout, f: impl FnOnce(String) -> String) {
    let log = "cycles/disputes.jsonl";
    rewrite_at(&co.ledger, log, |r| edit_text(&r.join(log), f));
}

fn disputes(ledgers: &Value, out: &mut Vec<Case>) {
    let d = base(ledgers, "local-dispute", 0);
    push(out, &d, "disputes.ruling=UPHELD", "dispute", |co, _| {
        edit_disputes(co, |s| s.replace("\"ruling\": \"WITHDRAWN\"", "\"ruling\": \"UPHELD\""));
    });
    push(out, &d, "disputes.rule-disagrees-with-key", "dispute", |co, _| {
        edit_disputes(co, |s| s.replace("\"rule\": \"CA-DATA-002\"", "\"rule\": \"CA-DATA-001\""));
    });
    push(out, &d, "disputes.withdraws-dcl-finding", "dispute", |co, _| {
        edit_disputes(co, |s| s.replace("CA-DATA-002", "DCL:schema"));
    });
    push(out, &d, "disputes.withdraws-nonexistent-finding", "dispute", |co, _| {
        edit_disputes(co, |s| s.replace("CA-DATA-002", "CA-METH-002"));
    });
    push(out, &d, "disputes.twice", "dispute", |co, _| edit_disputes(co, |s| format!("{s}{s}")));
    push(out, &d, "disputes.removed", "dispute", |co, _| {
        rewrite_at(&co.ledger, "cycles/disputes.jsonl", |r| {
            std::fs::remove_file(r.join("cycles/disputes.jsonl")).expect("rm");
        });
    });
}

// ---------------------------------------------------------------- git history

fn history(ledgers: &Value, out: &mut Vec<Case>) {
    let ok = base(ledgers, "local-openai-ok", 0);
    push(out, &ok, "history.receipt-commit-reworded", "history-benign", |co, b| {
        rewrite_at(&co.ledger, &b.receipt, |r| {
            oracle::git(r, &["commit", "-q", "--amend", "--allow-empty", "-m", "reworded receipt commit"]);
        });
    });
    push(out, &ok, "history.later-science-commit", "history-benign", |co, _| {
        commit_on_top(&co.science, "later work", |r| {
            std::fs::write(r.join("experiments/2026-07-30-demo/later.txt"), "later\n").expect("write");
        });
    });
    push(out, &ok, "history.report-commit-rewritten", "history-rewritten", |co, b| {
        let report = format!("{}/report.md", cycle_dir(&b.receipt));
        rewrite_at(&co.ledger, &report, |r| {
            oracle::git(r, &["commit", "-q", "--amend", "--allow-empty", "-m", "reworded report commit"]);
        });
    });
    push(out, &ok, "history.receipt-edited-later", "append-only", |co, b| {
        let receipt = b.receipt.clone();
        commit_on_top(&co.ledger, "touch up the receipt", |r| {
            edit_json(&r.join(&receipt), |v| v["audit"]["model"] = json!("fixture-auditor-2"));
        });
    });
    push(out, &ok, "history.report-edited-later", "append-only", |co, b| {
        let report = format!("{}/report.md", cycle_dir(&b.receipt));
        commit_on_top(&co.ledger, "touch up the report", |r| {
            edit_text(&r.join(&report), replace("| verdict | **PASS** |", "| verdict | **BLOCKED** |"));
        });
    });
    push(out, &ok, "history.constitution-amended-later", "constitution-amended-later", |co, _| {
        commit_on_top(&co.ledger, "amend: a new rule", |r| {
            edit_text(&r.join("AUDIT_RULES.md"), |s| {
                format!("{s}\n### CA-DATA-009 — New rule\n- **Severity:** ADVISORY\n")
            });
        });
    });
    let paired = base(ledgers, "paired-multiround", -1);
    push(out, &paired, "history.audited-commit-rewritten", "history-rewritten", |co, _| {
        let head = oracle::git(&co.science, &["rev-parse", "HEAD"]);
        let file = oracle::git(&co.science, &["diff-tree", "--no-commit-id", "--name-only", "-r", &head]);
        rewrite_at(&co.science, file.lines().next().expect("a changed file"), |r| {
            oracle::git(r, &["commit", "-q", "--amend", "--allow-empty", "-m", "reworded science commit"]);
        });
    });
    let multi = base(ledgers, "local-audit-multiround", -1);
    let r1 = base(ledgers, "local-audit-multiround", 0).receipt;
    push(out, &multi, "history.round-1-receipt-rewritten", "history-rewritten", move |co, _| {
        let r1 = r1.clone();
        rewrite_at(&co.ledger, &r1.clone(), move |r| {
            edit_json(&r.join(&r1), |v| v["audit"]["model"] = json!("replay-transcript-2"));
        });
    });
}

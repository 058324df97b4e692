//! The CrossAudit product (4.14.0) as a differential oracle, kept as recorded data.
//!
//! The product is not a registry package and its build may not be kept beside this project, so
//! what it decided is data: the ledgers it minted (`test-vectors/oracle/*/`, `ledgers.json`) and
//! its decision on every mutation of the tamper harness (`product-decisions.json`, with the
//! product version, the date and the run it was recorded from, and a fingerprint of each case's
//! inputs: the tips the mutation leaves).
//!
//! - The ledgers the product minted verify with crossverify.
//! - Every mutation of those ledgers is verified by crossverify and compared with the product's
//!   recorded decision; every disagreement must be listed in
//!   `test-vectors/oracle/disagreements.json` (with the paper's reason) and in the table of
//!   `specs/crossaudit.md`, every listed one must still occur, and every record must still match
//!   the inputs it was recorded from. `CROSSVERIFY_UPDATE_ORACLE=1 cargo test --test it oracle::`
//!   rewrites the list and the table from the run.
//! - With the product at hand (`CROSSAUDIT_PRODUCT` names its virtual environment), the same
//!   tests also run it live: its decisions must equal the record (`CROSSVERIFY_UPDATE_ORACLE=1`
//!   then re-records them), it verifies its committed bundles and our genuine fixtures, and with
//!   `CROSSAUDIT_TOOLS` a re-mint gives the same commits. Without it those parts say `SKIPPED`.

use crate::mutate;
use crate::support;
use crate::support_oracle as oracle;
use crate::tools;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use oracle::{Decision, Verdict};
use serde_json::{Value, json};
use sha2::Digest as _;

/// The product itself, or `None` after saying why its live checks are skipped. Never required:
/// nothing can install it, and its decisions are checked from the record either way.
fn live_product(what: &str) -> Option<PathBuf> {
    let found = oracle::product();
    if found.is_none() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {what} needs the CrossAudit 4.14.0 product, which is not a registry package and is not \
             installed here; set CROSSAUDIT_PRODUCT to its virtual environment to run it. The product's recorded \
             decisions (test-vectors/oracle/product-decisions.json) are checked by differential_tamper_harness."
        );
    }
    found
}

fn receipts() -> Vec<(Value, Value)> {
    let all = oracle::ledgers();
    let mut out = Vec::new();
    for case in all["cases"].as_array().expect("cases") {
        for r in case["receipts"].as_array().expect("receipts") {
            out.push((case.clone(), r.clone()));
        }
    }
    out
}

/// Every receipt the product minted: crossverify accepts exactly those the product accepted
/// at mint time (with its controller state), and the product's admission readiness is recorded.
#[test]
fn product_ledgers_verify_with_crossverify() {
    let mut ready = 0;
    for (case, r) in receipts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let co = oracle::checkout(&case, dir.path());
        let rel = r["receipt"].as_str().expect("receipt");
        let got = oracle::crossverify_verify(&co, rel, r["expect_sha"].as_str().expect("sha"));
        let at_mint = &r["product_at_mint"];
        let want = if at_mint["verified"] == true { Decision::Accept } else { Decision::Deny };
        assert_eq!(got.decision, want, "{} {rel}: crossverify {got:?}, product at mint {at_mint}", case["case"]);
        assert!(
            !got.detail.starts_with("cantTell"),
            "{} {rel}: inconclusive on a genuine receipt: {got:?}",
            case["case"]
        );
        if at_mint["admission_ready"] == true {
            ready += 1;
        }
    }
    assert!(ready >= 1, "no minted receipt is admission-ready for the product (the openai_replies case)");
}

/// `crossverify ledger` over each whole minted ledger: exit 0, except the ledger whose round 1
/// binds a file past the product's 512 KiB read limit (the product refuses that receipt too).
#[test]
fn product_ledgers_crawl_clean() {
    for case in oracle::ledgers()["cases"].as_array().expect("cases") {
        let dir = tempfile::tempdir().expect("tempdir");
        let co = oracle::checkout(case, dir.path());
        let mut cmd = support::crossverify();
        cmd.arg("ledger").arg("--audit").arg(&co.ledger);
        if co.paired {
            cmd.arg("--science").arg(&co.science);
        }
        let out = cmd.args(["--format", "json", "--quiet"]).output().expect("crossverify runs");
        let all_verified =
            case["receipts"].as_array().expect("receipts").iter().all(|r| r["product_at_mint"]["verified"] == true);
        let want = if all_verified { 0 } else { 1 };
        assert_eq!(out.status.code(), Some(want), "{}: {}", case["case"], String::from_utf8_lossy(&out.stdout));
    }
}

/// The committed bundles are what `dev/oracle/mint.py` produces today, commit for commit (live
/// only: minting needs the product and its offline driver).
#[test]
fn remint_is_deterministic() {
    let Some(exe) = live_product("re-minting the ledgers") else { return };
    let Some(driver) = oracle::driver() else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: re-minting needs the product's offline driver; set CROSSAUDIT_TOOLS to the directory holding cadriver.py."
        );
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let python = exe.parent().expect("the venv's bin directory").join("python");
    let out = std::process::Command::new(python)
        .arg(support::root().join("dev/oracle/mint.py"))
        .arg(dir.path())
        .env("CROSSAUDIT_TOOLS", driver.parent().expect("tools dir"))
        .output()
        .expect("mint.py runs");
    assert!(out.status.success(), "mint.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let fresh: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("ledgers.json")).expect("ledgers.json")).expect("JSON");
    assert_eq!(fresh, oracle::ledgers(), "re-minted ledgers differ from test-vectors/oracle/ledgers.json");
}

/// A fresh clone of each bundle (no controller state) still verifies with the product.
#[test]
fn product_verifies_committed_bundles() {
    if live_product("verifying the committed bundles with the product").is_none() {
        return;
    }
    for (case, r) in receipts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let co = oracle::checkout(&case, dir.path());
        let rel = r["receipt"].as_str().expect("receipt");
        let (got, _) = oracle::product_verify(&co, rel, r["expect_sha"].as_str().expect("sha"));
        let want = if r["product_at_mint"]["verified"] == true { Decision::Accept } else { Decision::Deny };
        assert_eq!(got.decision, want, "{} {rel}: {got:?}", case["case"]);
    }
}

/// Every untampered schema-2 ledger crossverify's fixture machinery mints and crossverify
/// accepts is accepted by the product as well, receipt by receipt.
#[test]
fn minted_fixtures_pass_the_product() {
    if live_product("checking our genuine fixtures with the product").is_none() {
        return;
    }
    let mut checked = 0;
    for name in genuine_fixture_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        let built = support::materialize(&name, dir.path());
        let paired = built.join("audit").is_dir();
        if !crossverify_accepts_ledger(&built, paired) {
            continue;
        }
        let co = worktrees(&built, paired, dir.path());
        // An empty ledger (s2-empty) holds no receipt to give the product.
        let list = oracle::git(&co.ledger, &["ls-files", "--", "*receipt.json"]);
        for rel in list.lines() {
            let sha = receipt_sha(&co.ledger.join(rel));
            let (got, json) = oracle::product_verify(&co, rel, &sha);
            if got.decision == Decision::Deny && amended_since(&co, rel) {
                // The listed difference `constitution-amended-later`: the product hashes the
                // Constitution at the checkout's HEAD, so every receipt before an amendment fails.
                continue;
            }
            assert_eq!(got.decision, Decision::Accept, "{name} {rel}: the product refuses our minted receipt: {json}");
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} minted receipts were checked against the product");
}

/// Whether the Constitution in the checkout differs from the version the receipt binds.
fn amended_since(co: &oracle::Checkout, rel: &str) -> bool {
    let v: Value = serde_json::from_slice(&std::fs::read(co.ledger.join(rel)).expect("receipt")).expect("receipt JSON");
    let path = v["inputs"]["constitution_path"].as_str().unwrap_or("AUDIT_RULES.md");
    let Ok(bytes) = std::fs::read(co.ledger.join(path)) else { return false };
    let digest: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    v["inputs"]["constitution_sha256"].as_str().is_some_and(|want| want != digest)
}

fn genuine_fixture_names() -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(support::root().join("ledger-fixtures")).expect("ledger-fixtures") {
        let path = entry.expect("entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_none_or(|e| e != "toml") || stem.starts_with("v1") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("scenario");
        let schema2 = stem == "demo" || text.contains("base = \"demo\"");
        if schema2 && !text.contains("[[tamper]]") {
            names.push(stem.to_owned());
        }
    }
    names.sort();
    names
}

fn crossverify_accepts_ledger(built: &Path, paired: bool) -> bool {
    let mut cmd = support::crossverify();
    cmd.arg("ledger");
    if paired {
        cmd.arg("--audit").arg(built.join("audit")).arg("--science").arg(built.join("science"));
    } else {
        cmd.arg("--audit").arg(built.join("science"));
    }
    let code = cmd.args(["--format", "json", "--quiet"]).output().expect("crossverify runs").status.code();
    matches!(code, Some(0 | 3))
}

/// The product reads `crossaudit.yml` from a working tree; the minter writes bare repositories.
fn worktrees(built: &Path, paired: bool, dir: &Path) -> oracle::Checkout {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let clone = |from: &str, to: &str| {
        let dest = dir.join(to);
        oracle::git(dir, &["clone", "-q", &built.join(from).to_string_lossy(), &dest.to_string_lossy()]);
        dest
    };
    let science = clone("science", "wt-science");
    let ledger = if paired { clone("audit", "wt-audit") } else { science.clone() };
    oracle::Checkout { science, ledger, paired, home }
}

fn receipt_sha(path: &Path) -> String {
    let v: Value = serde_json::from_slice(&std::fs::read(path).expect("receipt")).expect("receipt JSON");
    v["subject"]["sha"].as_str().unwrap_or_default().to_owned()
}

/// The differential tamper harness: every mutation verified by crossverify and compared with
/// the product's recorded decision (and, when the product is at hand, its live one).
#[test]
fn differential_tamper_harness() {
    let live = live_product("the live half of the differential harness").is_some();
    let cases = mutate::cases(&oracle::ledgers());
    let record = Record::load();
    let rows = run_parallel(&cases, live);
    let update = std::env::var_os("CROSSVERIFY_UPDATE_ORACLE").is_some_and(|v| !v.is_empty());
    if update && live {
        record.rewrite_from_live(&rows);
    }
    write_observed(&rows);
    let record = Record::load();
    let compared = compare(&rows, &record, &listed());
    let table = agreement_table(&compared.rows);
    let path = tools::artifacts().join("oracle-agreement.md");
    std::fs::write(&path, &table).expect("write oracle-agreement.md");
    let _ = writeln!(std::io::stderr(), "{table}");
    if !compared.unrecorded.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED for {} case(s) with no recorded product decision (nobody has run the product on them): {}",
            compared.unrecorded.len(),
            compared.unrecorded.join(", ")
        );
    }
    if update {
        let observed: Vec<&Compared> =
            compared.rows.iter().filter(|r| r.product.decision != r.crossverify.decision).collect();
        write_disagreements(&observed);
    }
    let problems = compare(&rows, &Record::load(), &listed()).problems;
    assert!(
        problems.is_empty(),
        "{} problem(s); after checking each, `CROSSVERIFY_UPDATE_ORACLE=1 cargo test --test it oracle::` rewrites the list \
         of disagreements (and, with CROSSAUDIT_PRODUCT set, re-records the product's decisions):\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        compared.rows.len() >= 100,
        "only {} cases were compared with a recorded product decision",
        compared.rows.len()
    );
}

/// One mutation as this run saw it: what crossverify decided, what the inputs were, and the
/// product's live decision when it ran.
struct Row {
    id: String,
    class: String,
    inputs: Value,
    crossverify: Verdict,
    live: Option<Verdict>,
}

/// A case compared with the product's decision.
struct Compared {
    id: String,
    class: String,
    product: Verdict,
    crossverify: Verdict,
}

fn run_parallel(cases: &[mutate::Case], live: bool) -> Vec<Row> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let row = run_case(case, live);
                    results.lock().expect("results").push(row);
                }
            });
        }
    });
    let mut rows = results.into_inner().expect("results");
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    rows
}

fn run_case(case: &mutate::Case, live: bool) -> Row {
    let dir = tempfile::tempdir().expect("tempdir");
    let co = oracle::checkout(&case.base, dir.path());
    let target = (case.apply)(&co);
    let inputs = fingerprint(&co, &target);
    let live = live.then(|| oracle::product_verify(&co, &target.receipt, &target.expect_sha).0);
    let crossverify = if target.whole_ledger {
        oracle::crossverify_ledger(&co)
    } else {
        oracle::crossverify_verify(&co, &target.receipt, &target.expect_sha)
    };
    Row { id: case.id.clone(), class: case.class.clone(), inputs, crossverify, live }
}

/// Every case as this run saw it, for people to read beside the agreement table.
fn write_observed(rows: &[Row]) {
    let cases: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({"id": r.id, "class": r.class, "inputs": r.inputs,
                   "crossverify": {"decision": r.crossverify.decision.as_str(), "exit": r.crossverify.exit,
                                   "codes": r.crossverify.detail}})
        })
        .collect();
    let text = serde_json::to_string_pretty(&json!({"cases": cases})).expect("serialise") + "\n";
    std::fs::write(tools::artifacts().join("oracle-observed.json"), text).expect("write oracle-observed.json");
}

/// What a recorded decision was about: the receipt and commit given to the verifiers and the
/// repositories' tips after the mutation (commits are pinned, so the same mutation of the same
/// bundle gives the same ids, and any change to either gives others).
fn fingerprint(co: &oracle::Checkout, target: &mutate::Target) -> Value {
    let tip = |repo: &Path| oracle::git(repo, &["rev-parse", "HEAD"]);
    json!({
        "receipt": target.receipt,
        "expectSha": target.expect_sha,
        "ledgerTip": tip(&co.ledger),
        "scienceTip": tip(&co.science),
        "wholeLedger": target.whole_ledger,
    })
}

const RECORD: &str = "test-vectors/oracle/product-decisions.json";

/// `product-decisions.json`: the product's decision on every case, with where it came from.
struct Record {
    doc: Value,
    cases: BTreeMap<String, Value>,
}

impl Record {
    fn load() -> Self {
        let p = support::root().join(RECORD);
        let doc: Value = serde_json::from_slice(&std::fs::read(&p).expect("read product-decisions.json"))
            .expect("product-decisions.json is JSON");
        let cases = doc["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|c| (c["id"].as_str().expect("id").to_owned(), c.clone()))
            .collect();
        Self { doc, cases }
    }

    /// Re-records every case from the live product: its decision, exit code and reason, the
    /// inputs it saw, today's date and the product's version.
    fn rewrite_from_live(&self, rows: &[Row]) {
        let version = oracle::product_version();
        let cases: Vec<Value> = rows
            .iter()
            .map(|r| {
                let live = r.live.as_ref().expect("a live decision for every case");
                json!({"id": r.id, "class": r.class, "inputs": r.inputs,
                       "product": {"decision": live.decision.as_str(), "exit": live.exit,
                                   "reason": if live.detail.is_empty() { Value::Null } else { json!(live.detail) }}})
            })
            .collect();
        let mut doc = self.doc.clone();
        doc["product"] = json!(version);
        doc["recorded"] =
            json!({"date": oracle::today(), "how": "live: CROSSVERIFY_UPDATE_ORACLE=1 with CROSSAUDIT_PRODUCT set"});
        doc["cases"] = json!(cases);
        let text = serde_json::to_string_pretty(&doc).expect("serialise") + "\n";
        std::fs::write(support::root().join(RECORD), text).expect("write product-decisions.json");
    }
}

/// The comparison's outcome: the cases compared, the problems that fail the test, and the
/// cases no product decision was recorded for.
struct Comparison {
    rows: Vec<Compared>,
    problems: Vec<String>,
    unrecorded: Vec<String>,
}

/// Compares crossverify's decisions with the product's recorded ones (and the live ones, when the
/// product ran): a disagreement must be listed, a listed one must occur, a record must match the
/// inputs it was made from, and a live decision must equal the recorded one.
fn compare(rows: &[Row], record: &Record, listed: &Value) -> Comparison {
    let mut problems = Vec::new();
    let mut unrecorded = Vec::new();
    let mut compared = Vec::new();
    for r in rows {
        let Some(rec) = record.cases.get(&r.id) else {
            unrecorded.push(r.id.clone());
            continue;
        };
        if rec["inputs"] != r.inputs {
            problems.push(format!(
                "{}: the record no longer matches its inputs (recorded {}, now {}): the product never decided this case; \
                 restore the mutation or re-record with the product",
                r.id, rec["inputs"], r.inputs
            ));
            continue;
        }
        let product = recorded_verdict(rec);
        if let Some(live) = &r.live
            && live.decision != product.decision
        {
            problems.push(format!(
                "{}: the product now decides {} ({}), recorded {}",
                r.id,
                live.decision.as_str(),
                live.detail,
                product.decision.as_str()
            ));
        }
        compared.push(Compared {
            id: r.id.clone(),
            class: r.class.clone(),
            product,
            crossverify: r.crossverify.clone(),
        });
    }
    let ids: BTreeSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    for id in record.cases.keys().filter(|id| !ids.contains(id.as_str())) {
        problems.push(format!("recorded case {id} is not in the harness any more (restore it, or drop its record)"));
    }
    let observed: Vec<&Compared> = compared.iter().filter(|r| r.product.decision != r.crossverify.decision).collect();
    problems.extend(listing_problems(&observed, listed));
    Comparison { rows: compared, problems, unrecorded }
}

fn recorded_verdict(rec: &Value) -> Verdict {
    let p = &rec["product"];
    let decision = match p["decision"].as_str() {
        Some("accept") => Decision::Accept,
        Some("deny") => Decision::Deny,
        other => panic!("{}: recorded decision {other:?} is neither accept nor deny", rec["id"]),
    };
    let exit = p["exit"].as_i64().and_then(|e| i32::try_from(e).ok());
    Verdict { decision, detail: p["reason"].as_str().unwrap_or_default().to_owned(), exit }
}

fn agreement_table(rows: &[Compared]) -> String {
    let agree = rows.iter().filter(|r| r.product.decision == r.crossverify.decision).count();
    let mut by_class: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for r in rows {
        let e = by_class.entry(r.class.as_str()).or_default();
        e[0] += 1;
        e[1] += usize::from(r.product.decision == r.crossverify.decision);
        e[2] += usize::from(r.product.decision == Decision::Deny);
    }
    let mut t = String::from("# CrossAudit product vs crossverify: differential tamper harness\n\n");
    let _ = writeln!(t, "cases: {}, agreements: {agree}, disagreements: {}\n", rows.len(), rows.len() - agree);
    t.push_str("| class | cases | agree | product denies |\n|---|---|---|---|\n");
    for (class, [n, a, d]) in &by_class {
        let _ = writeln!(t, "| {class} | {n} | {a} | {d} |");
    }
    t.push_str("\n## Disagreements\n\n| case | product | crossverify |\n|---|---|---|\n");
    for r in rows.iter().filter(|r| r.product.decision != r.crossverify.decision) {
        let _ = writeln!(
            t,
            "| {} | {} {} | {} {} |",
            r.id,
            r.product.decision.as_str(),
            cell(&r.product.detail),
            r.crossverify.decision.as_str(),
            cell(&r.crossverify.detail)
        );
    }
    // Not failures of this test: mutations neither tool refuses, for the reader to judge (some are
    // benign, such as a reworded commit message; the rest are forgeries both verifiers miss).
    t.push_str("\n## Accepted by both\n\n");
    for r in
        rows.iter().filter(|r| r.product.decision == Decision::Accept && r.crossverify.decision == Decision::Accept)
    {
        let _ = writeln!(t, "- {} ({})", r.id, r.class);
    }
    t
}

fn cell(s: &str) -> String {
    let s: String = s.chars().take(120).collect();
    if s.is_empty() { String::new() } else { format!("({})", s.replace('|', "\\|").replace('\n', " ")) }
}

const LIST: &str = "test-vectors/oracle/disagreements.json";
const SPEC: &str = "specs/crossaudit.md";
const BEGIN: &str = "<!-- oracle-disagreements:begin (generated by tests/it/oracle.rs) -->";
const END: &str = "<!-- oracle-disagreements:end -->";

fn listed() -> Value {
    let p = support::root().join(LIST);
    serde_json::from_slice(&std::fs::read(&p).expect("read disagreements.json")).expect("disagreements.json is JSON")
}

fn write_disagreements(observed: &[&Compared]) {
    let old = std::fs::read(support::root().join(LIST))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .unwrap_or(Value::Null);
    let mut reasons = old["reasons"].as_object().cloned().unwrap_or_default();
    let cases: Vec<Value> = observed
        .iter()
        .map(|r| {
            reasons.entry(r.class.clone()).or_insert_with(|| json!({"paper": "", "section": ""}));
            json!({"id": r.id, "class": r.class, "product": r.product.decision.as_str(),
                   "productReason": r.product.detail, "crossverify": r.crossverify.decision.as_str(),
                   "crossverifyCodes": r.crossverify.detail})
        })
        .collect();
    let used: std::collections::BTreeSet<&str> = observed.iter().map(|r| r.class.as_str()).collect();
    reasons.retain(|k, _| used.contains(k.as_str()));
    let doc = json!({
        "about": "Cases of tests/it/oracle.rs where the CrossAudit product 4.14.0 (its decisions as recorded in product-decisions.json) and crossverify decide differently, each with the paper's reason for crossverify's side. Regenerate with CROSSVERIFY_UPDATE_ORACLE=1 cargo test --test it oracle::; a new class gets an empty reason, which fails the test until it is written.",
        "reasons": reasons,
        "cases": cases,
    });
    let text = serde_json::to_string_pretty(&doc).expect("serialise") + "\n";
    std::fs::write(support::root().join(LIST), text).expect("write disagreements.json");
    let spec_path = support::root().join(SPEC);
    let spec = std::fs::read_to_string(&spec_path).expect("read spec");
    let (head, rest) = spec.split_once(BEGIN).expect("spec has the oracle-disagreements markers");
    let (_, tail) = rest.split_once(END).expect("spec has the closing marker");
    let table = spec_table(&doc);
    std::fs::write(&spec_path, format!("{head}{BEGIN}\n{table}{END}{tail}")).expect("write spec");
}

/// The spec's table, one row per class of disagreement.
fn spec_table(doc: &Value) -> String {
    let mut by_class: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for c in doc["cases"].as_array().into_iter().flatten() {
        by_class.entry(c["class"].as_str().unwrap_or_default().to_owned()).or_default().push(c);
    }
    let mut t = String::from(
        "| class | cases | product | crossverify | why crossverify is right (paper) |\n|---|---|---|---|---|\n",
    );
    for (class, cases) in &by_class {
        let reason = &doc["reasons"][class.as_str()];
        let decisions = |k: &str| {
            let mut v: Vec<&str> = cases.iter().filter_map(|c| c[k].as_str()).collect();
            v.sort_unstable();
            v.dedup();
            v.join("/")
        };
        let _ = writeln!(
            t,
            "| {class} | {} | {} | {} | {} ({}) |",
            cases.len(),
            decisions("product"),
            decisions("crossverify"),
            reason["paper"].as_str().unwrap_or_default(),
            reason["section"].as_str().unwrap_or_default()
        );
    }
    t
}

/// Disagreements against the list: unlisted ones, listed ones observed the other way round or
/// not at all, classes without the paper's reason, and a spec table out of step with the list.
fn listing_problems(observed: &[&Compared], doc: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let listed: BTreeMap<String, (String, String)> = doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            (s("id"), (s("product"), s("crossverify")))
        })
        .collect();
    for r in observed {
        match listed.get(&r.id) {
            None => problems.push(format!(
                "unlisted disagreement {}: product {} ({}), crossverify {} ({})",
                r.id,
                r.product.decision.as_str(),
                r.product.detail,
                r.crossverify.decision.as_str(),
                r.crossverify.detail
            )),
            Some((p, c)) if p != r.product.decision.as_str() || c != r.crossverify.decision.as_str() => {
                problems.push(format!("{}: listed as product {p} / crossverify {c}, observed otherwise", r.id));
            }
            Some(_) => {}
        }
    }
    let seen: BTreeSet<&str> = observed.iter().map(|r| r.id.as_str()).collect();
    for id in listed.keys().filter(|id| !seen.contains(id.as_str())) {
        problems.push(format!("listed disagreement {id} no longer occurs"));
    }
    for (class, reason) in doc["reasons"].as_object().expect("reasons") {
        if reason["paper"].as_str().is_none_or(str::is_empty) || reason["section"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("class {class} has no paper reason in {LIST}"));
        }
    }
    let spec = std::fs::read_to_string(support::root().join(SPEC)).expect("read spec");
    let table = spec.split_once(BEGIN).and_then(|(_, r)| r.split_once(END)).map(|(t, _)| t.trim().to_owned());
    if table.as_deref() != Some(spec_table(doc).trim()) {
        problems.push(format!("the table in {SPEC} does not match {LIST}"));
    }
    problems
}

/// The comparison can fail: from the record and the list themselves, the expected run compares
/// clean, and each planted departure from it (a new disagreement, a listed one gone, inputs that
/// changed, a recorded case dropped from the harness) is reported by name.
#[test]
fn planted_disagreements_fail_the_comparison() {
    let record = Record::load();
    let list = listed();
    let flip = |d: Decision| if d == Decision::Accept { Decision::Deny } else { Decision::Accept };
    let listed_ids: BTreeSet<String> =
        list["cases"].as_array().expect("cases").iter().map(|c| c["id"].as_str().expect("id").to_owned()).collect();
    // The run the record and the list describe: crossverify agrees with the product except on
    // the listed cases.
    let expected: Vec<Row> = record
        .cases
        .iter()
        .map(|(id, rec)| {
            let product = recorded_verdict(rec);
            let decision = if listed_ids.contains(id) { flip(product.decision) } else { product.decision };
            Row {
                id: id.clone(),
                class: rec["class"].as_str().expect("class").to_owned(),
                inputs: rec["inputs"].clone(),
                crossverify: Verdict { decision, detail: String::new(), exit: None },
                live: None,
            }
        })
        .collect();
    let clean = compare(&expected, &record, &list);
    assert!(clean.problems.is_empty(), "the record and the list disagree with each other: {:#?}", clean.problems);
    assert!(clean.unrecorded.is_empty());

    let unlisted = expected.iter().position(|r| !listed_ids.contains(&r.id)).expect("an agreeing case");
    let listed_one = expected.iter().position(|r| listed_ids.contains(&r.id)).expect("a listed case");
    let planted = |f: &dyn Fn(&mut Vec<Row>)| {
        let mut rows: Vec<Row> = expected
            .iter()
            .map(|r| Row {
                id: r.id.clone(),
                class: r.class.clone(),
                inputs: r.inputs.clone(),
                crossverify: r.crossverify.clone(),
                live: None,
            })
            .collect();
        f(&mut rows);
        compare(&rows, &record, &list).problems
    };
    let id = |i: usize| expected[i].id.clone();

    let p = planted(&|rows| rows[unlisted].crossverify.decision = flip(rows[unlisted].crossverify.decision));
    assert!(p.iter().any(|m| m.starts_with(&format!("unlisted disagreement {}", id(unlisted)))), "{p:#?}");
    let p = planted(&|rows| rows[listed_one].crossverify.decision = flip(rows[listed_one].crossverify.decision));
    assert!(p.iter().any(|m| m == &format!("listed disagreement {} no longer occurs", id(listed_one))), "{p:#?}");
    let p = planted(&|rows| rows[unlisted].inputs["ledgerTip"] = json!("0".repeat(40)));
    assert!(
        p.iter().any(|m| m.starts_with(&format!("{}: the record no longer matches its inputs", id(unlisted)))),
        "{p:#?}"
    );
    let p = planted(&|rows| {
        rows.remove(unlisted);
    });
    assert!(
        p.iter().any(|m| m.starts_with(&format!("recorded case {} is not in the harness", id(unlisted)))),
        "{p:#?}"
    );
    let p = planted(&|rows| {
        rows[unlisted].live =
            Some(Verdict { decision: flip(rows[unlisted].crossverify.decision), detail: String::new(), exit: None });
    });
    assert!(p.iter().any(|m| m.starts_with(&format!("{}: the product now decides", id(unlisted)))), "{p:#?}");
}

//! The CrossAudit product (4.14.0) as a differential oracle.
//!
//! - The ledgers the product minted (`test-vectors/oracle/`, from `dev/oracle/mint.py`) verify
//!   with crossverify, and a re-mint gives the same commits.
//! - A systematic set of single mutations of those ledgers is verified by both tools; every
//!   disagreement must be listed in `test-vectors/oracle/disagreements.json` (with the paper's
//!   reason) and in the table of `specs/crossaudit.md`, and every listed one must still occur.
//!   `CROSSVERIFY_UPDATE_ORACLE=1 cargo test --test oracle` rewrites both from the run.
//! - Every genuine ledger crossverify's own fixture machinery mints is accepted by the product.
//!
//! Without the product installed (`bash .ci/test` installs it) the product-dependent tests print
//! `SKIPPED` and return; with `CROSSVERIFY_REQUIRE_TOOLS` set they fail instead.

#[path = "support/mutate.rs"]
mod mutate;
#[path = "support/oracle.rs"]
mod oracle;
mod support;
#[path = "support/tools.rs"]
mod tools;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use oracle::{Decision, Verdict};
use serde_json::{Value, json};
use sha2::Digest as _;

fn product_or_skip() -> bool {
    tools::require("the CrossAudit 4.14.0 product (target/oracle/crossaudit)", oracle::product()).is_some()
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

/// The committed bundles are what `dev/oracle/mint.py` produces today, commit for commit.
#[test]
fn remint_is_deterministic() {
    if !product_or_skip() {
        return;
    }
    let Some(driver) = tools::require("../shared/tools/crossaudit-4.14.0/cadriver.py", oracle::driver()) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(oracle::venv().join("bin/python"))
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
    if !product_or_skip() {
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
    if !product_or_skip() {
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

/// The differential tamper harness.
#[test]
fn differential_tamper_harness() {
    if !product_or_skip() {
        return;
    }
    let cases = mutate::cases(&oracle::ledgers());
    let rows = run_parallel(&cases);
    let table = agreement_table(&rows);
    let path = tools::artifacts().join("oracle-agreement.md");
    std::fs::write(&path, &table).expect("write oracle-agreement.md");
    let _ = writeln!(std::io::stderr(), "{table}");
    let observed: Vec<&Row> = rows.iter().filter(|r| r.product.decision != r.crossverify.decision).collect();
    let update = std::env::var_os("CROSSVERIFY_UPDATE_ORACLE").is_some_and(|v| !v.is_empty());
    if update {
        write_disagreements(&observed);
    }
    compare_with_listed(&observed);
}

struct Row {
    id: String,
    class: String,
    product: Verdict,
    crossverify: Verdict,
}

fn run_parallel(cases: &[mutate::Case]) -> Vec<Row> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let row = run_case(case);
                    results.lock().expect("results").push(row);
                }
            });
        }
    });
    let mut rows = results.into_inner().expect("results");
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    rows
}

fn run_case(case: &mutate::Case) -> Row {
    let dir = tempfile::tempdir().expect("tempdir");
    let co = oracle::checkout(&case.base, dir.path());
    let target = (case.apply)(&co);
    let (product, _) = oracle::product_verify(&co, &target.receipt, &target.expect_sha);
    let crossverify = if target.whole_ledger {
        oracle::crossverify_ledger(&co)
    } else {
        oracle::crossverify_verify(&co, &target.receipt, &target.expect_sha)
    };
    Row { id: case.id.clone(), class: case.class.clone(), product, crossverify }
}

fn agreement_table(rows: &[Row]) -> String {
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
const BEGIN: &str = "<!-- oracle-disagreements:begin (generated by tests/oracle.rs) -->";
const END: &str = "<!-- oracle-disagreements:end -->";

fn listed() -> Value {
    let p = support::root().join(LIST);
    serde_json::from_slice(&std::fs::read(&p).expect("read disagreements.json")).expect("disagreements.json is JSON")
}

fn write_disagreements(observed: &[&Row]) {
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
        "about": "Cases of tests/oracle.rs where the CrossAudit product 4.14.0 and crossverify decide differently, each with the paper's reason for crossverify's side. Regenerate with CROSSVERIFY_UPDATE_ORACLE=1 cargo test --test oracle; a new class gets an empty reason, which fails the test until it is written.",
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

fn compare_with_listed(observed: &[&Row]) {
    let doc = listed();
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
    let seen: std::collections::BTreeSet<&str> = observed.iter().map(|r| r.id.as_str()).collect();
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
    if table.as_deref() != Some(spec_table(&doc).trim()) {
        problems.push(format!("the table in {SPEC} does not match {LIST}"));
    }
    assert!(
        problems.is_empty(),
        "{} problem(s); after checking each, `CROSSVERIFY_UPDATE_ORACLE=1 cargo test --test oracle` rewrites the list:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

//! The CI gate (`crossverify receipt`) behaves the same every time: each row of the behaviour
//! table in docs/guide.md ("The gate's behaviour") is run here, and the guide's table must be
//! exactly [`ROWS`], so the documentation and the tests cannot drift apart.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The guide's table, row for row: situation, exit without `--admit`, exit with `--admit`,
/// what happens to the `--output` reports.
const ROWS: &[[&str; 4]] = &[
    ["the receipt verifies and admits the commit", "0", "0", "written"],
    ["the receipt verifies but does not admit (BLOCKED, stale, consumed, integrity not OK)", "0", "1", "written"],
    ["admissibility cannot be established (schema 2 without `--consumed`)", "0", "3", "written"],
    ["no receipt binds `--expect-sha` (the audit has not run yet)", "1", "1", "written"],
    ["a binding is broken (a forged or tampered receipt), with the right `--science`", "1", "1", "written"],
    [
        "`--consumed FILE` does not exist yet",
        "as for an empty file",
        "as for an empty file",
        "written; `inputs.consumed` says so",
    ],
    ["`--expect-sha` in upper case", "as in lower case", "as in lower case", "written"],
    ["relative paths, run from another directory", "the same", "the same", "written"],
    ["`--science` holds none of the commits the receipts bind (the wrong repository)", "2", "2", "none"],
    ["`--dialect` names a layout the ledger does not hold", "2", "2", "none"],
    ["a usage error or an unreadable repository", "2", "2", "none"],
];

#[test]
fn the_guide_documents_exactly_the_tested_behaviour() {
    let guide = std::fs::read_to_string(support::root().join("docs/guide.md")).expect("guide");
    let start = guide.find("### The gate's behaviour").expect("the guide has a gate behaviour section");
    let rows: Vec<Vec<String>> = guide[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_owned()).collect())
        .collect();
    let want: Vec<Vec<String>> = ROWS.iter().map(|r| r.iter().map(|c| (*c).to_owned()).collect()).collect();
    assert_eq!(rows, want, "docs/guide.md's gate table and tests/it/gate.rs ROWS differ");
}

/// The product's own paired ledger (`test-vectors/real/`), cloned into `dir/science` and
/// `dir/audit`.
fn paired(dir: &Path) -> (PathBuf, PathBuf) {
    let case = support::root().join("test-vectors/real/crossaudit/schema2-ledgers/paired-multiround-r2");
    support::clone_bundle(&case.join("science.bundle"), &dir.join("science"));
    support::clone_bundle(&case.join("audit.bundle"), &dir.join("audit"));
    (dir.join("science"), dir.join("audit"))
}

const PAIRED_SHA: &str = "9c604cba4273e7c456bfbd34e855eb2489155b8e";

struct Run {
    code: i32,
    report: Option<Value>,
    stderr: String,
}

fn run(cwd: &Path, args: &[&str]) -> Run {
    let out = support::crossverify().current_dir(cwd).args(args).args(["--format", "json"]).output().expect("runs");
    Run {
        code: out.status.code().expect("exited"),
        report: serde_json::from_slice(&out.stdout).ok(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn report(r: &Run) -> &Value {
    r.report.as_ref().unwrap_or_else(|| panic!("no report (exit {}): {}", r.code, r.stderr))
}

/// The results without inputs: what must not depend on how the inputs were spelled.
fn verdict_and_results(r: &Run) -> (i32, Value, Value) {
    let v = report(r);
    (r.code, v["results"].clone(), v["admission"].clone())
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn admits_denies_and_cannot_tell() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let v1 = support::materialize("v1-genuine", tmp.path());
    let (sci, aud) = (v1.join("science"), v1.join("audit"));
    let admissible = "cycles/1b03559f8f25d574c75eab8dbf6e1c9adc8af559/receipt.json";
    let blocked = "cycles/d44a1a4f77e2fb365fe2217c09af55b25b4241e8/receipt.json";
    let (sci, aud) = (s(&sci), s(&aud));
    let gate = |receipt: &str, admit: bool| {
        let mut args = vec!["receipt", receipt, "--science", sci, "--audit", aud];
        if admit {
            args.push("--admit");
        }
        run(tmp.path(), &args)
    };
    // Row 1: admits.
    assert_eq!(gate(admissible, false).code, 0);
    assert_eq!(gate(admissible, true).code, 0);
    // Row 2: verifies, does not admit; CV-A801's message names every shortfall.
    assert_eq!(gate(blocked, false).code, 0);
    let denied = gate(blocked, true);
    assert_eq!(denied.code, 1);
    let a = &report(&denied)["admission"];
    assert_eq!(a["ready"], false);
    for shortfall in a["shortfalls"].as_array().expect("shortfalls") {
        assert!(a["reason"].as_str().expect("reason").contains(shortfall.as_str().expect("text")), "{a:#}");
    }
    assert!(!a["tier"].as_str().expect("tier").is_empty());

    // Row 3: schema 2 without --consumed cannot establish single use.
    let p = tempfile::tempdir().expect("tempdir");
    let (sci, aud) = paired(p.path());
    let args = ["receipt", "--science", s(&sci), "--audit", s(&aud), "--expect-sha", PAIRED_SHA];
    assert_eq!(run(p.path(), &args).code, 0);
    // The product's replayed PASS carries integrity NON_EVIDENTIAL_PROVIDER: not admissible (row 2).
    let r = run(p.path(), &[&args[..], &["--admit"]].concat());
    assert_eq!(r.code, 1, "{}", report(&r)["admission"]);
}

#[test]
fn single_use_unobservable_is_inconclusive_only_under_admit() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::materialize("demo", tmp.path());
    let receipt = "cycles/946b514c0d72-r2/receipt.json";
    let args = ["receipt", receipt, "--science", "demo/science", "--audit", "demo/audit"];
    assert_eq!(run(tmp.path(), &args).code, 0);
    let r = run(tmp.path(), &[&args[..], &["--admit"]].concat());
    assert_eq!(r.code, 3, "{}", report(&r)["admission"]);
}

#[test]
fn no_receipt_for_the_commit_is_exit_1_with_every_report_written() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (sci, aud) = paired(tmp.path());
    let absent = "0000000000000000000000000000000000000000";
    for admit in [false, true] {
        let out = tmp.path().join(format!("admit-{admit}"));
        std::fs::create_dir(&out).expect("dir");
        let json = out.join("r.json");
        let sarif = out.join("r.sarif");
        let mut args = vec!["receipt", "--science", s(&sci), "--audit", s(&aud), "--expect-sha", absent, "--output"];
        let (j, sa) = (format!("json={}", json.display()), format!("sarif-github={}", sarif.display()));
        args.extend([j.as_str(), "--output", sa.as_str()]);
        if admit {
            args.push("--admit");
        }
        let r = run(tmp.path(), &args);
        assert_eq!(r.code, 1, "admit={admit}: {}", r.stderr);
        assert!(json.is_file() && sarif.is_file(), "admit={admit}: reports written");
        let v = report(&r);
        assert_eq!(v["inputs"]["admit"], admit);
        assert_eq!(v["admission"]["ready"], false);
        assert_eq!(v["admission"]["tier"], "none (no readable receipt)");
        assert!(v["results"].as_array().expect("results").iter().any(|x| x["code"] == "CV-A801"));
    }
}

#[test]
fn a_forged_receipt_with_the_right_science_repository_stays_exit_1() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = support::materialize("s2-forged-pass", tmp.path());
    let r = run(tmp.path(), &["ledger", "--audit", s(&f.join("audit")), "--science", s(&f.join("science"))]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let failing: Vec<&str> = report(&r)["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|x| x["outcome"] == "failed" && x["level"] == "error")
        .filter_map(|x| x["code"].as_str())
        .collect();
    assert!(failing.contains(&"CV-A711"), "{failing:?}");
}

#[test]
fn an_absent_consumed_file_is_an_empty_record_and_said_so() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (sci, aud) = paired(tmp.path());
    std::fs::write(tmp.path().join("empty.txt"), "").expect("write");
    let args = ["receipt", "--science", s(&sci), "--audit", s(&aud), "--expect-sha", PAIRED_SHA, "--admit"];
    let empty = run(tmp.path(), &[&args[..], &["--consumed", "empty.txt"]].concat());
    let absent = run(tmp.path(), &[&args[..], &["--consumed", "admitted.txt"]].concat());
    assert_eq!(verdict_and_results(&empty), verdict_and_results(&absent));
    let said = report(&absent)["inputs"]["consumed"].as_str().expect("consumed input").to_owned();
    assert!(said.contains("does not exist yet") && said.contains("empty"), "{said}");
    assert!(absent.stderr.contains("does not exist yet"), "{}", absent.stderr);
    // A directory that does not exist is a typo, not a first run.
    assert_eq!(run(tmp.path(), &[&args[..], &["--consumed", "no-such-dir/admitted.txt"]].concat()).code, 2);
}

#[test]
fn upper_case_shas_and_relative_paths_change_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    paired(tmp.path());
    let upper = PAIRED_SHA.to_ascii_uppercase();
    let base = ["receipt", "--science", "science", "--audit", "audit", "--admit", "--expect-sha"];
    let lower = run(tmp.path(), &[&base[..], &[PAIRED_SHA]].concat());
    let up = run(tmp.path(), &[&base[..], &[upper.as_str()]].concat());
    assert_eq!(verdict_and_results(&lower), verdict_and_results(&up));
    assert_eq!(report(&up)["inputs"]["expectSha"], PAIRED_SHA);
    // The same run from inside the audit repository, every path relative to there; and a
    // receipt named relative to the ledger repository.
    let inside = run(
        &tmp.path().join("audit"),
        &["receipt", "--science", "../science", "--audit", ".", "--admit", "--expect-sha", PAIRED_SHA],
    );
    assert_eq!(verdict_and_results(&lower), verdict_and_results(&inside));
    let named = ["receipt", "cycles/9c604cba4273-r2/receipt.json", "--science", "science", "--audit", "audit"];
    let named_inside = ["receipt", "cycles/9c604cba4273-r2/receipt.json", "--science", "../science", "--audit", "."];
    let a = run(tmp.path(), &named);
    let b = run(&tmp.path().join("audit"), &named_inside);
    assert_eq!(verdict_and_results(&a), verdict_and_results(&b));
}

#[test]
fn operator_mistakes_are_exit_2_with_the_fix_and_no_reports() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (_, aud) = paired(tmp.path());
    let other = support::materialize("v1-genuine", tmp.path()).join("science");
    let json = tmp.path().join("r.json");
    let out = format!("json={}", json.display());
    // The wrong science repository: not one bound commit exists in it.
    for cmd in [
        vec!["receipt", "--science", s(&other), "--audit", s(&aud), "--expect-sha", PAIRED_SHA, "--admit"],
        vec!["ledger", "--science", s(&other), "--audit", s(&aud)],
        vec!["stats", s(&aud), "--science", s(&other)],
    ] {
        let r = run(tmp.path(), &[&cmd[..], &["--output", out.as_str()]].concat());
        assert_eq!(r.code, 2, "{cmd:?}: {}", r.stderr);
        assert!(r.stderr.contains("not the science repository") && r.stderr.contains("--science PATH"), "{}", r.stderr);
        assert!(!json.exists(), "{cmd:?}: no report for a run that could not start");
    }
    // A forced dialect whose layout is absent.
    for d in ["v1", "deployed"] {
        let sci = tmp.path().join("science");
        let r = run(tmp.path(), &["ledger", "--audit", s(&aud), "--science", s(&sci), "--dialect", d]);
        assert_eq!(r.code, 2, "--dialect {d}: {}", r.stderr);
        assert!(r.stderr.contains("drop --dialect"), "{}", r.stderr);
    }
    // A usage error.
    let r = run(
        tmp.path(),
        &["receipt", "--science", s(&tmp.path().join("nowhere")), "--admit", "--expect-sha", PAIRED_SHA],
    );
    assert_eq!(r.code, 2);
}

#[test]
fn a_denial_names_every_shortfall() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let v1 = support::materialize("v1-genuine", tmp.path());
    let r = run(
        tmp.path(),
        &[
            "receipt",
            "cycles/d44a1a4f77e2fb365fe2217c09af55b25b4241e8/receipt.json",
            "--science",
            s(&v1.join("science")),
            "--audit",
            s(&v1.join("audit")),
            "--admit",
        ],
    );
    let v = report(&r);
    let a801: Vec<&Value> =
        v["results"].as_array().expect("results").iter().filter(|x| x["code"] == "CV-A801").collect();
    insta::assert_json_snapshot!("gate_denial_names_every_shortfall", (&v["admission"], a801));
}

/// A ledger run hashes a schema-2 receipt's canonical form only; the receipt command still
/// reports the digest of the file's bytes: of the committed blob, of a file given on the
/// command line, and of a cycle answered from a cache a ledger run filled.
#[test]
fn the_receipt_file_digest_is_of_the_bytes_in_every_mode() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::materialize("demo", tmp.path());
    let rel = "cycles/946b514c0d72-r2/receipt.json";
    let show = std::process::Command::new("git")
        .args(["-C", "demo/audit", "show", &format!("HEAD:{rel}")])
        .current_dir(tmp.path())
        .output()
        .expect("git show");
    let committed = crossverify::manifest::Digest::of(&show.stdout).hex();
    let args = ["receipt", rel, "--science", "demo/science", "--audit", "demo/audit"];
    let digest = |r: &Run| report(r)["inputs"]["receiptFileSha256"].as_str().map(str::to_owned);
    assert_eq!(digest(&run(tmp.path(), &args)), Some(committed.clone()), "the committed blob");

    let given = tmp.path().join("given.json");
    let mut bytes = show.stdout.clone();
    bytes.extend_from_slice(b"\n\n");
    std::fs::write(&given, &bytes).expect("write");
    let r = run(tmp.path(), &["receipt", s(&given), "--science", "demo/science", "--audit", "demo/audit"]);
    let mine = crossverify::manifest::Digest::of(&bytes).hex();
    assert_ne!(mine, committed);
    assert_eq!(digest(&r), Some(mine), "the given file's bytes: {}", r.stderr);

    let cache = tmp.path().join("cache");
    let filled = ["ledger", "--science", "demo/science", "--audit", "demo/audit", "--cache", s(&cache)];
    assert_eq!(run(tmp.path(), &filled).code, 0);
    let r = run(tmp.path(), &[&args[..], &["--cache", s(&cache)]].concat());
    assert!(r.stderr.contains("receipts: 3 hits, 0 misses"), "answered from the cache: {}", r.stderr);
    assert_eq!(digest(&r), Some(committed), "from the cache");
}

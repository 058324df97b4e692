//! `conformance run` as a new user meets it (issue 47), with the command lines of README.md's
//! Commands table, docs/guide.md and specs/conformance.md, each run from an empty temporary
//! directory, never the checkout: the suite built into the binary is used and checked against
//! its manifest, and decides as the suite in `test-vectors/conformance/` does; the terminal
//! shows the scores and the wrong decisions (one line when there are none), the matrix is left
//! to the document formats; a broken adapter's reason is worded for people.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// The `crossverify conformance run …` command of a document: the first code span (README) or
/// shell line (guide, spec) containing `marker`, continuations joined, without `crossverify`.
fn command_in(doc: &str, marker: &str) -> Vec<String> {
    let text = std::fs::read_to_string(support::root().join(doc)).expect("document");
    let text = text.replace("\\\n", " ");
    let line = text.lines().find(|l| l.contains(marker)).unwrap_or_else(|| panic!("{doc} has no {marker:?}"));
    let start = line.find("crossverify conformance run").expect("the command");
    let command = line[start..].split('`').next().and_then(|c| c.split(" #").next()).expect("command");
    let words: Vec<String> = command.split_whitespace().skip(1).map(str::to_owned).collect();
    assert_eq!(words[..2], ["conformance", "run"], "{doc}: {command}");
    words
}

/// Runs `crossverify ARGS…` in `dir` (the terminal format unless ARGS say otherwise).
fn run_in(dir: &Path, args: &[String]) -> Output {
    let mut cmd = support::crossverify();
    cmd.args(args).arg("--quiet").current_dir(dir);
    cmd.output().expect("crossverify runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("JSON")
}

/// The checkout's suite: its manifest's SHA-256, as a report cites it.
fn checkout_suite_sha256() -> String {
    use sha2::Digest as _;
    let bytes = std::fs::read(support::root().join("test-vectors/conformance/manifest.json")).expect("manifest");
    hex::encode(sha2::Sha256::digest(bytes))
}

/// The number of cases of the checkout's suite, of one protocol or all.
fn cases(protocol: Option<&str>) -> usize {
    let index = json_file(&support::root().join("test-vectors/conformance/suite.json"));
    index["cases"].as_array().expect("cases").iter().filter(|c| protocol.is_none_or(|p| c["protocol"] == p)).count()
}

/// Every answer of a report by implementation and case: the word and its detail.
fn answers(report: &Value) -> BTreeMap<(String, String), (String, Value)> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let e = &r["evidence"];
            let key =
                (e["implementation"].as_str().expect("name").to_owned(), e["case"].as_str().expect("id").to_owned());
            (key, (e["answer"].as_str().expect("answer").to_owned(), e["detail"].clone()))
        })
        .collect()
}

/// The README's command, from an empty directory: the built-in suite (the checkout's, by its
/// digest), the scores and one line for the wrong decisions, no matrix. Before, the same
/// command exited 2 with "no suite at test-vectors/conformance" outside a checkout, and in one
/// it printed the 386-row matrix and an empty "Wrong decisions by category and class" table.
#[test]
fn the_readme_command_runs_anywhere_and_shows_the_scores() {
    let mut args = command_in("README.md", "`crossverify conformance run");
    assert_eq!(args.last().map(String::as_str), Some("NAME[=ADAPTER]…"), "{args:?}");
    *args.last_mut().expect("last") = "crossverify".into();
    // The terminal run of the whole suite is the next test's; here one protocol, to stay quick.
    args.extend(["--only", "crossexam"].map(str::to_owned));
    let empty = tempfile::tempdir().expect("tempdir");
    let out = run_in(empty.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    let sha = checkout_suite_sha256();
    assert!(text.contains(&format!("suite: built in: crossverify-conformance 1.0, sha256 {sha}\n")), "{text}");
    assert!(text.contains("\nScores: decided as the paper requires\n"), "{text}");
    let n = cases(Some("crossexam"));
    assert!(text.contains(&format!("100.0% ({n}/{n})")), "{text}");
    assert!(text.contains("\nWrong decisions: none\n"), "{text}");
    for absent in ["\nMatrix", "\nWrong decisions by category", "paper's reason", "Results that did not pass"] {
        assert!(!text.contains(absent), "the terminal shows {absent:?}:\n{text}");
    }
    assert!(text.contains("In --format html, json and markdown: Matrix: one row per case"), "{text}");
    assert!(text.lines().count() < 40, "{} lines:\n{text}", text.lines().count());
    assert_eq!(std::fs::read_dir(empty.path()).expect("dir").count(), 0, "the run left files in the directory");
}

/// The guide's journal command from an empty directory, with the built-in suite: every decision
/// (crossverify's, run; the product's, recorded) is the one the same command makes with the
/// checkout's suite given as `--suite`; the report says which suite each ran; the terminal lists
/// the product's wrong decisions, not the matrix, which the HTML and JSON files keep whole.
#[test]
fn the_built_in_suite_decides_as_the_checkout_s() {
    let args = command_in("docs/guide.md", "--implementation crossaudit-recorded");
    assert!(args.iter().any(|a| a == "--output"), "{args:?}");
    let empty = tempfile::tempdir().expect("tempdir");
    let out = run_in(empty.path(), &args);
    // The recorded product accepts forged records: exit 1.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let built_in = json_file(&empty.path().join("conformance.json"));

    // The suite on disk is read by the recorded product alone: its answers are keyed by the
    // cases' files, and crossverify's own column on the checkout's suite is `conformance::`'s
    // (a second full run of it here cost CI minutes for no other check).
    let checkout = tempfile::tempdir().expect("tempdir");
    let mut with_suite: Vec<String> = Vec::new();
    let mut words = args.iter();
    while let Some(w) = words.next() {
        if w == "--implementation" {
            let name = words.next().expect("a name");
            if name == "crossverify" {
                continue;
            }
            with_suite.extend([w.clone(), name.clone()]);
        } else {
            with_suite.push(w.clone());
        }
    }
    with_suite.push("--suite".into());
    with_suite.push(support::root().join("test-vectors/conformance").to_string_lossy().into_owned());
    let given = run_in(checkout.path(), &with_suite);
    assert_eq!(given.status.code(), Some(1), "{}", String::from_utf8_lossy(&given.stderr));
    let on_disk = json_file(&checkout.path().join("conformance.json"));

    let (a, b) = (answers(&built_in), answers(&on_disk));
    assert_eq!(a.len(), 2 * cases(None), "every case for both implementations");
    assert_eq!(b.len(), cases(None), "every case for the recorded product");
    let differ: Vec<_> = b.iter().filter(|(k, v)| a.get(*k) != Some(*v)).map(|(k, v)| (k, v, a.get(k))).collect();
    assert!(differ.is_empty(), "the built-in suite decides otherwise than the checkout's: {differ:#?}");
    let (sa, sb) = (&built_in["conformance"]["suite"], &on_disk["conformance"]["suite"]);
    assert_eq!(sa["sha256"], checkout_suite_sha256());
    assert_eq!(sa["sha256"], sb["sha256"]);
    assert_eq!(sa["from"], "built in");
    assert_eq!(sb["from"], with_suite.last().expect("path").as_str());
    assert!(
        on_disk["inputs"]["suite"].as_str().is_some_and(|s| s.ends_with(sb["sha256"].as_str().expect("sha"))),
        "{}",
        on_disk["inputs"]
    );

    let text = stdout(&out);
    let cv = &built_in["conformance"]["implementations"][0];
    assert_eq!((cv["name"].as_str(), cv["allAsRequired"].as_bool()), (Some("crossverify"), Some(true)), "{cv}");
    let recorded = &built_in["conformance"]["implementations"][1];
    let wrong = recorded["falseAccepts"].as_u64().expect("n") + recorded["falseRejects"].as_u64().expect("n");
    assert!(wrong > 0, "{recorded}");
    let listed = text.lines().filter(|l| l.contains("crossaudit-recorded") && l.contains("✗ false")).count();
    assert_eq!(listed as u64, wrong, "one line per wrong decision:\n{text}");
    assert!(text.contains("\nWrong decisions\n") && !text.contains("\nMatrix"), "{text}");
    assert!(!text.contains("Results that did not pass"), "{text}");
    let html = std::fs::read_to_string(empty.path().join("conformance.html")).expect("html");
    let matrix = built_in["views"].as_array().expect("views").iter().find(|v| v["id"] == "matrix").expect("matrix");
    assert_eq!(matrix["rows"].as_array().map(Vec::len), Some(cases(None)));
    assert!(html.contains("Matrix: one row per case") && html.matches("✓ reject").count() >= 100);
}

/// An adapter whose probe fails, with the guide's implementers' command: the reason says how
/// the probe ended in words ("exited with status 1", "was killed by signal 9 (SIGKILL)"), in
/// the terminal, the HTML page and the journal. Before, the report said `probe exit Some(1)`.
#[test]
fn a_broken_probe_is_worded_for_people() {
    let base = command_in("docs/guide.md", "mine=./my-adapter");
    for (body, want) in [
        ("echo 'licence server unreachable' >&2; exit 1", "the probe exited with status 1: licence server unreachable"),
        ("kill -KILL $$", "the probe was killed by signal 9 (SIGKILL)"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let adapter = dir.path().join("my-adapter");
        std::fs::write(&adapter, format!("#!/bin/sh\n[ \"$1\" = probe ] && {{ {body}; }}\nexit 0\n")).expect("write");
        std::fs::set_permissions(&adapter, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
        let mut args = base.clone();
        args.extend(["--only", "crossexam"].map(str::to_owned));
        let out = run_in(dir.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let text = stdout(&out);
        assert!(text.contains(&format!("broken: {want}")), "{want}:\n{text}");
        assert!(text.contains(&format!("✗ error ({want})")), "{want}:\n{text}");
        let html = std::fs::read_to_string(dir.path().join("matrix.html")).expect("html");
        let journal = std::fs::read_to_string(dir.path().join("run.jsonl")).expect("journal");
        for (what, s) in [("terminal", &text), ("html", &html), ("journal", &journal)] {
            assert!(!s.contains("Some("), "{what} shows a Debug form:\n{s}");
        }
        assert!(html.contains(want), "{want}: not in the HTML");
    }
}

/// The matrix is a CSV companion (`--output csv=PATH` writes PATH-matrix.csv, every case), and
/// the spec's command for a checkout's suite reads that directory and says so.
#[test]
fn the_matrix_is_a_csv_companion_and_a_suite_directory_is_read() {
    let mut args = command_in("specs/conformance.md", "--suite test-vectors/conformance");
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("scores.csv");
    args.extend(["--only", "crossexam", "--output"].map(str::to_owned));
    args.push(format!("csv={}", csv.display()));
    let out = run_in(&support::root(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let matrix = std::fs::read_to_string(dir.path().join("scores-matrix.csv")).expect("the matrix companion");
    assert_eq!(matrix.lines().count(), 1 + cases(Some("crossexam")), "{matrix}");
    assert!(matrix.lines().next().is_some_and(|h| h.starts_with("case,protocol,category,required,crossverify")));
    let text = stdout(&out);
    let said =
        format!("suite: test-vectors/conformance: crossverify-conformance 1.0, sha256 {}", checkout_suite_sha256());
    assert!(text.contains(&said), "{text}");
}

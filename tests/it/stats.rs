//! `crossverify stats` end to end: the real first-freeze records and ledger mirror, the
//! synthetic deployed ledgers (directory and git), claims files.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const FIRST_FREEZE: &str = "test-vectors/real/crossaudit/experiment/v3/real-ledger";
const MIRROR: &str = "test-vectors/real/crossaudit/ledger-mirror";

/// Runs `crossverify` from the repository root (so paths in the output are relative).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = support::crossverify().current_dir(support::root()).args(args).output().expect("run crossverify");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

fn report(args: &[&str]) -> (i32, Value) {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let (code, stdout, stderr) = run(&a);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {stderr}"));
    (code, v)
}

fn results<'a>(r: &'a Value, code: &str) -> Vec<&'a Value> {
    r["results"].as_array().expect("results").iter().filter(|x| x["code"] == code).collect()
}

fn outcome_of(r: &Value, code: &str, subject: &str) -> String {
    let hits: Vec<&Value> = results(r, code).into_iter().filter(|x| x["subject"] == subject).collect();
    assert_eq!(hits.len(), 1, "{code} {subject}: {hits:#?}");
    hits[0]["outcome"].as_str().expect("outcome").to_owned()
}

fn read_json(path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(support::root().join(path)).expect("read")).expect("json")
}

/// Every real file is listed in `test-vectors/real/README.md` with its SHA-256, and matches it.
#[test]
fn real_copies_are_byte_identical_to_their_recorded_digests() {
    let real = support::root().join("test-vectors/real");
    let readme = std::fs::read_to_string(real.join("README.md")).expect("README");
    let mut listed = std::collections::BTreeMap::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(|c| c.trim().trim_matches('`')).collect();
        if cells.len() == 4 && cells[2].len() == 64 && cells[2].bytes().all(|b| b.is_ascii_hexdigit()) {
            listed.insert(cells[1].to_owned(), cells[2].to_owned());
        }
    }
    let mut on_disk = Vec::new();
    let mut stack = vec![real.join("crossaudit")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                on_disk.push(p.strip_prefix(&real).expect("under real").to_string_lossy().replace('\\', "/"));
            }
        }
    }
    on_disk.sort();
    assert!(on_disk.len() >= 20, "real records missing");
    for file in &on_disk {
        let digest = listed
            .get(file)
            .unwrap_or_else(|| panic!("{file} is not listed with its SHA-256 in test-vectors/real/README.md"));
        let bytes = std::fs::read(real.join(file)).expect("real file");
        assert_eq!(&hex::encode(Sha256::digest(&bytes)), digest, "{file} changed: real records are never edited");
    }
    assert_eq!(listed.len(), on_disk.len(), "README lists files that are not there");
}

#[test]
fn first_freeze_reproduces_its_summary_and_the_papers_first_arc() {
    let (code, r) = report(&["stats", FIRST_FREEZE]);
    let s = &r["stats"];
    assert_eq!(r["inputs"]["kind"], "mined-records");

    // Every recomputable field of summary.json, compared here independently of CV-S002.
    let summary = read_json(&format!("{FIRST_FREEZE}/summary.json"));
    assert_eq!(s["cycles"], summary["n_cycles"]);
    assert_eq!(s["decision_sequence"], summary["decisions"]);
    assert_eq!(s["findings_per_cycle"], summary["findings_per_cycle"]);
    assert_eq!(s["distinct_findings"], summary["n_distinct_findings"]);
    assert_eq!(s["closed"], summary["n_confirmed_real"]);
    assert_eq!(s["open"], summary["n_unresolved"]);
    let models: Vec<&String> = s["models"].as_object().expect("models").keys().collect();
    assert_eq!(json!(models), summary["models"]);

    // The paper's first arc (§4.2, Figure 4).
    assert_eq!(s["cycles"], 7);
    assert_eq!(s["findings_per_cycle"], json!([7, 4, 3, 2, 1, 1, 0]));
    assert_eq!(
        s["decision_sequence"],
        json!(["BLOCK", "BLOCK", "BLOCK", "BLOCK", "BLOCK", "PASS_WITH_CAVEATS", "PASS"])
    );
    assert_eq!(s["decisions"], json!({"BLOCK": 5, "PASS_WITH_CAVEATS": 1, "PASS": 1}));
    assert_eq!(
        (s["distinct_findings"].clone(), s["closed"].clone(), s["open"].clone()),
        (json!(14), json!(12), json!(2))
    );
    assert_eq!(s["open_findings"], json!(["F-005", "F-009"]));
    assert_eq!(s["numbering_gaps"], json!(["CYCLE-000003"]));

    // Further figures, checked against a hand computation from cycles.jsonl.
    assert_eq!(s["finding_occurrences"], 18);
    assert_eq!(s["closure_lag"]["median"], 1);
    assert_eq!(s["closure_lag"]["mean"], 1.25);
    assert_eq!(s["closure_lag"]["max"], 3);
    assert_eq!(s["closure_lag"]["per_finding"]["F-006"], 3);
    assert_eq!(s["closure_lag_cycle_numbers"]["max"], 4, "F-006: CYCLE-000001 to CYCLE-000005 skips cycle 3");
    assert_eq!(s["recurring"], json!({"F-005": 2, "F-006": 3, "F-008": 2}));
    assert_eq!(s["severity_distinct"], json!({"CRITICAL": 2, "HIGH": 8, "LOW": 1, "MEDIUM": 3}));
    assert_eq!(s["scopes"], json!({"publish_claim": 17, "submit_production_job": 12}));
    assert_eq!(s["rules"]["Gate 11"], 8);
    assert_eq!(s["most_cited_rule"]["rule"], "Gate 11");
    assert_eq!(s["single_rule_occurrences"], 3);
    assert_eq!(s["audit_minutes"]["min"], 3.95);
    assert_eq!(s["gap_minutes"]["max"], 1084.9);
    assert_eq!(s["gap_minutes"]["q1"], 51.6);
    assert_eq!(s["models"], json!({"gpt-5": 3, "gpt-5.6": 2, "gpt-5.6-sol": 1}));
    assert_eq!(s["cycles_without_model"], 1);
    assert_eq!(s["decision_is_definitional"], true);
    // Mined records keep no evidence lines: no source labels, and never a 0.
    assert_eq!(s["source"], Value::Null);
    assert!(s["notMeasured"]["source"].as_str().expect("reason").contains("not mined"));
    assert_eq!(s["closed_by_fix_commit"], Value::Null);

    // The published files agree with their records; what needs the repositories is named as not
    // checkable from these inputs (CV-S005, info), so the paper's own records verify.
    for x in results(&r, "CV-S002") {
        assert_eq!(x["outcome"], "passed", "{x:#}");
    }
    let lifecycle = results(&r, "CV-S003");
    assert_eq!(lifecycle.iter().filter(|x| x["outcome"] == "passed").count(), 14);
    for subject in ["summary.json freeze", "summary.json n_science_fix_commits", "findings_lifecycle.json fix_commits"]
    {
        assert_eq!(outcome_of(&r, "CV-S005", subject), "cantTell", "{subject}");
    }
    assert!(results(&r, "CV-S005").iter().all(|x| x["level"] == "info"));
    assert_eq!(
        outcome_of(&r, "CV-S006", "cycles.jsonl"),
        "cantTell",
        "mined records carry no evidence: nothing in them is verified"
    );
    assert_eq!(
        code, 3,
        "nothing failed (the freeze heads and fix commits, not checkable offline, are info level), but the mined \
         records themselves are unauthenticated (CV-S006)"
    );
}

#[test]
fn the_mirror_reads_the_real_cycle_000001_and_agrees_with_the_mined_records() {
    let (code, r) = report(&["stats", MIRROR]);
    assert_eq!(code, 3);
    assert_eq!(r["inputs"]["kind"], "deployed-ledger-directory");
    let s = &r["stats"];
    assert_eq!(s["cycles"], 1);
    assert_eq!(s["decision_sequence"], json!(["BLOCK"]));
    assert_eq!(s["findings_per_cycle"], json!([7]));
    assert_eq!(s["source"], json!({"DETERMINISTIC": 5, "JUDGMENT": 2}));
    assert_eq!(s["finding_class"], json!({"HARD": 2, "SOFT": 1, "null": 4}));
    assert_eq!(s["closure_lag"], Value::Null);
    assert!(s["notMeasured"]["closure_lag"].is_string());
    assert_eq!(s["audit_minutes"]["median"].as_f64().map(|m| (m * 60.0).round()), Some(340.0));
    // Redacted, truncated digests: not hash-verifiable, never tampered.
    for f in ["audit_report.md", "audit_result.json", "codex_run_metadata.json"] {
        let subject = format!("CYCLE-000001/{f}");
        assert_eq!(outcome_of(&r, "CV-A015", &subject), "cantTell");
    }
    let a012 = &results(&r, "CV-A012")[0];
    assert_eq!(a012["outcome"], "passed");
    assert_eq!(a012["evidence"]["report_non_blocking"], json!(["F-005", "F-007"]));
    assert_eq!(a012["evidence"]["report_disagrees"], true);

    // Mirror and mined records describe the same cycle: rules per finding and title digests.
    let lifecycle = read_json(&format!("{FIRST_FREEZE}/findings_lifecycle.json"));
    let table = r["views"].as_array().expect("views").iter().find(|v| v["id"] == "findings").expect("findings");
    let cols: Vec<&str> = table["columns"].as_array().expect("cols").iter().map(|c| c.as_str().expect("s")).collect();
    let (id_col, rules_col) = (
        cols.iter().position(|c| *c == "finding_id").expect("id"),
        cols.iter().position(|c| *c == "rules").expect("rules"),
    );
    for row in table["rows"].as_array().expect("rows") {
        let id = row[id_col].as_str().expect("id");
        let mined = lifecycle.as_array().expect("list").iter().find(|e| e["finding_id"] == id).expect("mined entry");
        let rules: Vec<&str> =
            mined["rules_cited"].as_array().expect("rules").iter().map(|x| x.as_str().expect("s")).collect();
        assert_eq!(row[rules_col], rules.join(";"), "{id}");
    }
    let mirror = read_json(&format!("{MIRROR}/CYCLE-000001/audit_result.json"));
    let cycles = std::fs::read_to_string(support::root().join(FIRST_FREEZE).join("cycles.jsonl")).expect("jsonl");
    let first: Value = serde_json::from_str(cycles.lines().next().expect("line")).expect("json");
    for (m, f) in mirror["findings"].as_array().expect("f").iter().zip(first["findings"].as_array().expect("f")) {
        let title = m["title"].as_str().expect("title");
        assert_eq!(hex::encode(Sha256::digest(title.as_bytes()))[..16], f["title_sha16"].as_str().expect("sha16")[..]);
    }
}

#[test]
fn a_single_cycle_directory_is_a_ledger_of_one() {
    let (_, r) = report(&["stats", &format!("{MIRROR}/CYCLE-000001")]);
    assert_eq!(r["stats"]["cycles"], 1);
    assert_eq!(outcome_of(&r, "CV-A016", "CYCLE-000001"), "passed");
}

/// The figures of `ledger-fixtures/deployed-lifecycle`, worked out by hand from
/// `make-fixtures.py` (positions p0…p5 are CYCLE-000001, 2, 4, 5, 7, 8).
#[test]
fn every_figure_on_the_synthetic_lifecycle_ledger() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("deployed-lifecycle", tmp.path());
    let (code, r) = report(&["stats", dir.to_str().expect("utf-8")]);
    assert_eq!(code, 1, "F-099 closed without being raised fails CV-A013");
    let mut s = r["stats"].clone();
    let not_measured = s.as_object_mut().expect("stats").remove("notMeasured").expect("notMeasured");
    assert_eq!(
        not_measured.as_object().expect("map").keys().collect::<Vec<_>>(),
        ["closed_by_fix_commit", "closed_fix_and_verified", "science_fix_commits"]
    );
    let want = json!({
        "cycles": 6,
        "decisions": {"BLOCK": 3, "PASS": 1, "PASS_WITH_CAVEATS": 2},
        "decision_sequence": ["BLOCK", "BLOCK", "BLOCK", "PASS_WITH_CAVEATS", "PASS_WITH_CAVEATS", "PASS"],
        "findings_per_cycle": [3, 2, 2, 1, 3, 0],
        "finding_occurrences": 11,
        "distinct_findings": 7,
        // F-001 (closed p1, raised again p4), F-002 (p3), F-003 (p1), F-004 (p2, closed again p3),
        // F-005 (p3), F-006 (p5); F-007 is never closed.
        "closed": 6,
        "open": 1,
        "open_findings": ["F-007"],
        "closed_by_fix_commit": null,
        "closed_fix_and_verified": null,
        "science_fix_commits": null,
        // Positions [1, 3, 1, 1, 1, 2]; cycle numbers [1, 4, 1, 2, 1, 3] (gaps at 3 and 6).
        "closure_lag": {"median": 1, "mean": 1.5, "max": 3, "n": 6,
            "per_finding": {"F-001": 1, "F-002": 3, "F-003": 1, "F-004": 1, "F-005": 1, "F-006": 2}},
        "closure_lag_cycle_numbers": {"median": 1.5, "mean": 2, "max": 4, "n": 6,
            "per_finding": {"F-001": 1, "F-002": 4, "F-003": 1, "F-004": 2, "F-005": 1, "F-006": 3}},
        "recurring": {"F-001": 2, "F-002": 3, "F-006": 2},
        "n_recurring": 3,
        "reopened": ["F-001"],
        "unknown_closures": [{"cycle": "CYCLE-000004", "entry": "F-099"}],
        "severity_distinct": {"CRITICAL": 1, "HIGH": 2, "LOW": 2, "MEDIUM": 2},
        "severity_occurrences": {"CRITICAL": 1, "HIGH": 4, "LOW": 2, "MEDIUM": 4},
        // F-006 at CYCLE-000005 carries no `source:` line: counted under null, not dropped.
        "source": {"DETERMINISTIC": 3, "JUDGMENT": 7, "null": 1},
        "source_x_severity": {"DETERMINISTIC|CRITICAL": 1, "DETERMINISTIC|LOW": 1, "DETERMINISTIC|MEDIUM": 1,
            "JUDGMENT|HIGH": 4, "JUDGMENT|LOW": 1, "JUDGMENT|MEDIUM": 2, "null|MEDIUM": 1},
        "finding_class": {"HARD": 2, "SOFT": 1, "null": 8},
        "scopes": {"publish_claim": 5, "submit_production_job": 3},
        // `Gate 11` and `Gate11` are different keys; CA- citations are extracted from evidence.
        "rules": {"CA-DATA-001": 1, "Gate 11": 5, "Gate11": 1, "R-COR-001": 1, "R-EVD-002": 2, "R-NAV-003": 3},
        "rule_cycle_spread": {"CA-DATA-001": 1, "Gate 11": 4, "Gate11": 1, "R-COR-001": 1, "R-EVD-002": 2, "R-NAV-003": 3},
        "single_rule_occurrences": 7,
        "most_cited_rule": {"rule": "Gate 11", "occurrences": 5, "cycles": 4, "of_occurrences": 11, "of_cycles": 6, "tied_with": []},
        // CYCLE-000005 has no started_at: its duration and the gap before it are not measured.
        "audit_minutes": {"median": 5, "min": 3, "max": 10, "n": 5, "unmeasured": ["CYCLE-000005"]},
        // Gaps [54, 55.5, 60, 57] → sorted [54, 55.5, 57, 60]: q1 = s[1], q3 = s[3].
        "gap_minutes": {"median": 56.25, "q1": 55.5, "q3": 60, "max": 60, "n": 4},
        // Case-sensitive: GPT-5 and gpt-5 are different identifiers.
        "models": {"GPT-5": 1, "gpt-5": 3, "gpt-5.6": 1},
        "n_models": 3,
        "cycles_without_model": 1,
        "decision_is_definitional": true,
        "decision_vs_blocking": {"BLOCK|any_blocking=True": 3, "PASS_WITH_CAVEATS|any_blocking=False": 2, "PASS|any_blocking=False": 1},
        "numbering_gaps": ["CYCLE-000003", "CYCLE-000006"],
        "caveats": {},
    });
    assert_eq!(s, want);
}

#[test]
fn a_git_ledger_is_read_from_objects_at_the_revision() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = support::materialize("deployed-git", tmp.path());
    let audit = base.join("audit");
    let science = base.join("science");
    let a = audit.to_str().expect("utf-8");
    let (code, head) = report(&["stats", a]);
    assert_eq!(code, 3, "a deployed ledger keeps no receipts: its records are not evidence (CV-S006)");
    assert_eq!(head["inputs"]["kind"], "deployed-ledger-git");
    let commit = head["inputs"]["commit"].as_str().expect("commit");
    assert_eq!(commit.len(), 40);
    assert_eq!(head["stats"]["cycles"], 3);
    let (_, earlier) = report(&["stats", a, "--rev", "HEAD~1"]);
    assert_eq!(earlier["stats"]["cycles"], 2);
    assert_eq!(earlier["stats"]["open"], 0);
    assert_eq!(earlier["inputs"]["rev"], "HEAD~1");
    // Results point at the commit the ledger was read at.
    let loc = &results(&head, "CV-A017")[0]["location"];
    assert_eq!(loc["commit"], commit);

    let (_, with_science) = report(&["stats", a, "--science", science.to_str().expect("utf-8")]);
    let s = &with_science["stats"];
    assert_eq!(s["science_fix_commits"], 2, "two subjects name a finding or an audit cycle");
    assert_eq!(s["closed_by_fix_commit"], 2, "F-001 and F-002 are named");
    assert_eq!(s["closed_fix_and_verified"], 1, "only F-001 is also verified closed");
    assert!(s["notMeasured"].as_object().expect("map").is_empty());
    let findings =
        with_science["views"].as_array().expect("views").iter().find(|v| v["id"] == "findings").expect("table");
    assert_eq!(findings["columns"].as_array().expect("cols").last(), Some(&json!("fix_commits")));
}

#[test]
fn usage_errors_exit_2_and_say_why() {
    let (code, _, err) = run(&["stats", MIRROR, "--rev", "HEAD"]);
    assert_eq!(code, 2);
    assert!(err.contains("applies to a git repository"), "{err}");
    let (code, _, err) = run(&["stats", "test-vectors/README.md"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a recognised input"), "{err}");
    let tmp = tempfile::tempdir().expect("tempdir");
    let claims = tmp.path().join("claims.toml");
    std::fs::write(&claims, "\"/cycels\" = 7\n").expect("write");
    let (code, _, err) = run(&["stats", FIRST_FREEZE, "--claims", claims.to_str().expect("utf-8")]);
    assert_eq!(code, 2);
    assert!(err.contains("names no figure"), "{err}");
    let (code, _, err) = run(&["stats", tmp.path().to_str().expect("utf-8")]);
    assert_eq!(code, 2);
    assert!(err.contains("holds no deployed ledger"), "{err}");
}

#[test]
fn a_claims_file_over_one_mib_is_refused_before_it_is_parsed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let claims = tmp.path().join("claims.toml");
    let path = claims.to_str().expect("utf-8");
    // Valid TOML of exactly `bytes` bytes: blank space, then one claim. The size, not the
    // syntax, decides.
    let sized = |bytes: usize| {
        let line = "\"/cycles\" = 7\n";
        format!("{}\n{line}", " ".repeat(bytes - line.len() - 1))
    };
    let max = crossverify::stats::claims::MAX_FILE_BYTES;
    std::fs::write(&claims, sized(max + 1)).expect("write");
    let (code, _, err) = run(&["stats", FIRST_FREEZE, "--claims", path]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("claims.toml") && err.contains("at most 1 MiB"), "{err}");
    std::fs::write(&claims, sized(max)).expect("write");
    let (code, _, err) = run(&["stats", FIRST_FREEZE, "--claims", path]);
    assert!(matches!(code, 1 | 3), "read, so decided or inconclusive (mined records, CV-S006): exit {code}: {err}");
}

#[test]
fn a_wrong_claim_exits_1_and_is_named() {
    let claims = "test-vectors/claims/first-freeze-one-wrong.toml";
    let (code, r) = report(&["stats", FIRST_FREEZE, "--claims", claims]);
    assert_eq!(code, 1);
    let failed: Vec<&Value> = results(&r, "CV-S001").into_iter().filter(|x| x["outcome"] == "failed").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["subject"], "/closed");
    assert_eq!(failed[0]["evidence"]["stated"], 13);
    assert_eq!(failed[0]["evidence"]["recomputed"], 12);
    let (code, stdout, _) = run(&["stats", FIRST_FREEZE, "--claims", claims]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("claims_one_wrong_table", stdout);
}

#[test]
fn views_for_the_human_formats() {
    let (_, r) = report(&["stats", FIRST_FREEZE, "--claims", "test-vectors/claims/first-freeze.toml"]);
    let views = r["views"].as_array().expect("views");
    let ids: Vec<&str> = views.iter().map(|v| v["id"].as_str().expect("id")).collect();
    assert_eq!(ids, ["claims", "figures", "findings", "cycles", "timeline", "findings-per-cycle", "closure-lag"]);
    let csv: Vec<&str> = views.iter().filter(|v| v["csv"] == true).map(|v| v["id"].as_str().expect("id")).collect();
    assert_eq!(csv, ["findings", "cycles"], "per-finding rows are the primary CSV");
    let timeline = &views[4];
    assert_eq!(timeline["chart"], "timeline");
    assert_eq!(timeline["points"][5]["category"], "PASS_WITH_CAVEATS");
    let lag = &views[6];
    assert_eq!(lag["chart"], "histogram");
    assert_eq!(
        lag["points"],
        json!([{"label": "1", "value": 10.0}, {"label": "2", "value": 1.0}, {"label": "3", "value": 1.0}])
    );
}

#[test]
fn output_is_deterministic() {
    let a = run(&["stats", MIRROR, "--format", "json"]);
    let b = run(&["stats", MIRROR, "--format", "json", "--threads", "1"]);
    assert_eq!(a, b);
    assert!(!a.1.contains(&*support::root().to_string_lossy()), "no host paths beyond what the user passed");
}

#[test]
fn published_summaries_are_checked_against_their_own_records_when_both_formats_sit_together() {
    // A directory holding both record sets: figures come from the richer analysis records,
    // while summary.json is still checked against cycles.jsonl.
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("both");
    support::copy_dir(&support::root().join(FIRST_FREEZE), &dir);
    let analysis = support::materialize("analysis-small", tmp.path());
    for f in ["cycles-b.json", "analysis.json"] {
        std::fs::copy(analysis.join(f), dir.join(f)).expect("copy");
    }
    let (_, r) = report(&["stats", dir.to_str().expect("utf-8")]);
    assert_eq!(r["inputs"]["kind"], "analysis-records");
    assert_eq!(r["inputs"]["records"], json!(["cycles.jsonl", "cycles-b.json"]));
    assert_eq!(r["stats"]["cycles"], 3, "figures from cycles-b.json");
    assert_eq!(outcome_of(&r, "CV-S002", "summary.json n_cycles"), "passed");
    assert_eq!(outcome_of(&r, "CV-S002", "analysis.json n_cycles"), "passed");
    assert!(Path::new(&dir).join("cycles.jsonl").is_file());
}

#[test]
fn with_the_science_log_fix_commits_are_checked_too() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mined = support::materialize("mined-wrong-summary", tmp.path());
    let science = support::materialize("deployed-git", tmp.path()).join("science");
    let (code, r) = report(&["stats", mined.to_str().expect("utf-8"), "--science", science.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert_eq!(r["inputs"]["scienceCommit"].as_str().map(str::len), Some(40));
    // The science log has two fix commits; the summary says 1.
    assert_eq!(r["stats"]["science_fix_commits"], 2);
    assert_eq!(outcome_of(&r, "CV-S002", "summary.json n_science_fix_commits"), "failed");
    // F-001's stated fix commit is not the one the log names.
    let f001 =
        results(&r, "CV-S003").into_iter().find(|x| x["subject"] == "findings_lifecycle.json F-001").expect("F-001");
    assert_eq!(f001["outcome"], "failed");
    assert!(f001["message"].as_str().expect("message").contains("fix_commits"), "{f001:#}");
    assert!(results(&r, "CV-S003").iter().all(|x| x["subject"] != "findings_lifecycle.json fix_commits"));
}

/// A deployed ledger says what it decided about the work beside its integrity verdict: the
/// latest decision per audited commit, and that this format publishes no admission.
#[test]
fn a_deployed_ledger_reports_its_audit_outcome() {
    let (code, r) = report(&["ledger", "--audit", MIRROR]);
    assert_eq!(code, 3, "redacted digests keep the mirror inconclusive");
    let o = &r["auditOutcome"];
    assert_eq!(o["basis"], "latest verdict of each of 1 audited commit");
    assert_eq!(o["parts"][1], json!({"label": "blocked", "count": 1, "tone": "bad"}));
    assert_eq!(o["decision"]["label"], "admission not published by this ledger format");
    assert_eq!(o["tone"], "bad");
}

/// A figure a protocol cannot measure is "not measured" because its adapter declared so, with
/// the adapter's reason; and each protocol's views speak of its own records, not CrossAudit's.
#[test]
fn each_protocol_declares_what_it_cannot_measure_and_names_its_own_order() {
    let transcript = "test-vectors/crossexam/real/claim-and-concede/_Msg";
    let (code, r) = report(&["stats", transcript]);
    assert_eq!(code, 0, "{r:#}");
    let s = &r["stats"];
    for (figure, why) in [("numbering_gaps", "bus lines"), ("decision_is_definitional", "message types")] {
        assert!(s[figure].is_null(), "{figure}: {}", s[figure]);
        let reason = s["notMeasured"][figure].as_str().unwrap_or_default();
        assert!(reason.contains(why), "{figure}: {reason}");
    }
    assert!(s["decisions"].is_object(), "a transcript's decisions are still counted: {}", s["decisions"]);
    let (_, table, _) = run(&["stats", transcript]);
    assert!(table.contains("closure lag (bus positions)") && table.contains("Cycles in bus order"), "{table}");
    assert!(!table.contains("CYCLE") && !table.contains("ledger"), "{table}");

    let (_, table, _) = run(&["stats", "test-vectors/proof-or-stop/stats"]);
    assert!(table.contains("closure lag (round positions)") && table.contains("Cycles in round order"), "{table}");
    assert!(!table.contains("CYCLE") && !table.contains("ledger"), "{table}");

    // CrossAudit's own words stay where they were.
    let (_, table, _) = run(&["stats", FIRST_FREEZE]);
    assert!(table.contains("closure lag (ledger positions)"), "{table}");
    assert!(table.contains("lag counts ledger positions and CYCLE numbers"), "{table}");
}

//! The command-line contract: help, listings, reports on fixtures, every error path and the
//! exit codes, pinned with insta snapshots (`cargo insta review` to update). Commands run inside
//! a temporary directory with relative paths, so no host path reaches a snapshot; the version
//! is filtered too.

use crate::support;

use std::path::Path;
use std::process::Command;

use insta_cmd::assert_cmd_snapshot;

/// A scratch directory holding the fixtures a test names, plus a plain directory and a file.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(fixtures: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for f in fixtures {
            support::materialize(f, dir.path());
        }
        std::fs::create_dir(dir.path().join("plain-dir")).expect("dir");
        std::fs::write(dir.path().join("a-file"), "not a repository\n").expect("file");
        Scratch { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `crossverify ARGS` in the scratch directory.
    fn run(&self, args: &[&str]) -> Command {
        let mut c = support::crossverify();
        c.current_dir(self.path()).args(args);
        c
    }
}

fn filters(tmp: &Path) -> Vec<(String, String)> {
    let mut f = vec![
        (regex_escape(&tmp.display().to_string()), "[TMP]".into()),
        (format!(r"\b{}\b", regex_escape(env!("CARGO_PKG_VERSION"))), "[VERSION]".into()),
    ];
    // `tool.commit`, the commit this build came from, changes with every commit.
    f.extend(option_env!("CROSSVERIFY_BUILD_COMMIT").map(|c| (regex_escape(c), "[BUILD]".to_owned())));
    f
}

fn regex_escape(s: &str) -> String {
    s.chars().fold(String::new(), |mut out, c| {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

macro_rules! snapshot {
    ($scratch:expr, $name:expr, $args:expr) => {{
        let f = filters($scratch.path());
        let f: Vec<(&str, &str)> = f.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        insta::with_settings!({ filters => f, prepend_module_to_snapshot => false }, {
            assert_cmd_snapshot!($name, $scratch.run($args));
        });
    }};
}

fn exit_code(c: &mut Command) -> i32 {
    c.output().expect("runs").status.code().expect("exited")
}

#[test]
fn help_and_version() {
    let s = Scratch::new(&[]);
    snapshot!(s, "help", &["--help"]);
    snapshot!(s, "help_manifest", &["manifest", "--help"]);
    snapshot!(s, "version", &["--version"]);
}

#[test]
fn checks_and_explain() {
    let s = Scratch::new(&[]);
    snapshot!(s, "checks_table", &["checks"]);
    snapshot!(s, "checks_json", &["checks", "--format", "json"]);
    snapshot!(s, "explain_cv_g002", &["explain", "CV-G002"]);
    snapshot!(s, "explain_lowercase_json", &["explain", "cv-g003", "--format", "json"]);
}

#[test]
fn manifest_reports_on_a_fixture() {
    let s = Scratch::new(&["repo-plain", "repo-special"]);
    snapshot!(s, "manifest_table", &["manifest", "repo-plain/repo", "HEAD"]);
    snapshot!(
        s,
        "manifest_json_scoped",
        &["manifest", "repo-plain/repo", "HEAD~1", "--scope", "experiments/run-2", "--format", "json"]
    );
    snapshot!(s, "manifest_special_entries_table", &["manifest", "repo-special/repo", "main"]);
}

/// 0 verified (warnings allowed), 3 inconclusive (a blob is missing: cantTell at error level).
/// No current check fails at level error, so exit 1 is pinned by `report::tests::verdict_rules`
/// until the first such check brings a CLI vector.
#[test]
fn exit_codes_follow_the_verdict() {
    let s = Scratch::new(&["repo-plain", "repo-special", "repo-missing-blob"]);
    assert_eq!(exit_code(&mut s.run(&["manifest", "repo-plain/repo", "HEAD"])), 0);
    assert_eq!(exit_code(&mut s.run(&["manifest", "repo-special/repo", "HEAD"])), 0, "CV-G002 is a warning");
    assert_eq!(exit_code(&mut s.run(&["manifest", "repo-plain/repo", "HEAD", "--scope", "nothing"])), 0, "CV-G003 too");
    assert_eq!(exit_code(&mut s.run(&["manifest", "repo-missing-blob/repo", "HEAD"])), 3);
    assert_eq!(exit_code(&mut s.run(&["checks"])), 0);
    snapshot!(s, "manifest_missing_blob_inconclusive", &["manifest", "repo-missing-blob/repo", "HEAD"]);
    snapshot!(s, "manifest_missing_blob_json", &["manifest", "repo-missing-blob/repo", "HEAD", "--format", "json"]);
}

/// Every way of not being able to run exits 2 with one line naming the input and the reason.
#[test]
fn every_error_path_exits_2_with_the_input_and_the_reason() {
    let s = Scratch::new(&["repo-plain"]);
    let cases: &[(&str, &[&str], &str)] = &[
        ("error_nonexistent_path", &["manifest", "no-such-dir", "HEAD"], "no-such-dir"),
        ("error_not_a_repository", &["manifest", "plain-dir", "HEAD"], "plain-dir"),
        ("error_file_is_not_a_repository", &["manifest", "a-file", "HEAD"], "a-file"),
        ("error_unknown_revision", &["manifest", "repo-plain/repo", "no-such-branch"], "no-such-branch"),
        ("error_revision_out_of_range", &["manifest", "repo-plain/repo", "HEAD~9"], "HEAD~9"),
        ("error_revision_names_a_tree", &["manifest", "repo-plain/repo", "HEAD^{tree}"], "HEAD^{tree}"),
        ("error_output_unknown_format", &["manifest", "repo-plain/repo", "HEAD", "--output", "xml=out.xml"], "xml"),
        ("error_output_without_path", &["manifest", "repo-plain/repo", "HEAD", "--output", "json"], "json"),
        ("error_output_empty_path", &["manifest", "repo-plain/repo", "HEAD", "--output", "json="], "json="),
        (
            "error_output_unwritable",
            &["manifest", "repo-plain/repo", "HEAD", "--output", "json=a-file/r.json"],
            "a-file/r.json",
        ),
        (
            "error_output_is_a_directory",
            &["manifest", "repo-plain/repo", "HEAD", "--output", "json=plain-dir"],
            "plain-dir",
        ),
        ("error_threads_zero", &["manifest", "repo-plain/repo", "HEAD", "--threads", "0"], "--threads"),
        ("error_threads_not_a_number", &["checks", "--threads", "two"], "--threads"),
        ("error_unknown_format", &["checks", "--format", "yaml"], "yaml"),
        ("error_unknown_code", &["explain", "CV-X999"], "CV-X999"),
        ("error_missing_arguments", &["manifest"], "<REPO>"),
        ("error_unknown_command", &["frobnicate"], "frobnicate"),
    ];
    for (name, args, named) in cases {
        let out = s.run(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{name}: {args:?}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(named), "{name}: stderr names {named}: {err}");
        snapshot!(s, *name, args);
    }
    // A failed --output leaves no partial report behind and still exits 2.
    assert!(!s.path().join("out.xml").exists());
}

#[test]
fn outputs_write_each_format_and_match_stdout() {
    let s = Scratch::new(&["repo-plain"]);
    let base = ["manifest", "repo-plain/repo", "HEAD"];
    let stdout = |fmt: &str| {
        let out = s.run(&[&base[..], &["--format", fmt]].concat()).output().expect("runs");
        assert_eq!(out.status.code(), Some(0));
        out.stdout
    };
    let (json, table) = (stdout("json"), stdout("table"));
    // --output never creates directories (a missing one is a usage error, pinned below).
    std::fs::create_dir_all(s.path().join("out/deeper")).expect("mkdir");
    let out = s
        .run(&[&base[..], &["--quiet", "--output", "json=out/r.json", "--output", "table=out/deeper/r.txt"]].concat())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "--quiet: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, table, "stdout keeps the --format (table by default)");
    let read = |p: &str| std::fs::read(s.path().join(p)).expect("written");
    assert_eq!(read("out/r.json"), json);
    assert_eq!(read("out/deeper/r.txt"), table);
    let report: serde_json::Value = serde_json::from_slice(&json).expect("JSON");
    for key in ["schemaVersion", "tool", "command", "inputs", "outcome", "summary", "results", "stats", "manifest"] {
        assert!(report.get(key).is_some(), "report has {key}");
    }
    assert_eq!(report["inputs"]["repository"], "repo-plain/repo", "only the path the user gave");
}

/// A reftable repository is read like a files one: a repository without a ledger gets the same
/// report and exit code in either format, never an undecodable `HEAD` or a refusal.
#[test]
fn reftable_repositories_fail_as_their_files_twin() {
    let s = Scratch::new(&[]);
    let mut errs = Vec::new();
    for format in ["files", "reftable"] {
        std::fs::create_dir_all(s.path().join(format)).expect("mkdir");
        let init = Command::new("git")
            .args(["init", "-q", &format!("--ref-format={format}"), "rt"])
            .current_dir(s.path().join(format))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(init.status.success(), "this test needs git ≥ 2.45: {init:?}");
        let commit = Command::new("git")
            .args(["-c", "user.name=T", "-c", "user.email=t@x.invalid", "commit", "-q", "--allow-empty", "-m", "x"])
            .current_dir(s.path().join(format).join("rt"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            // The same commit in both, so the reports can be compared byte for byte.
            .env("GIT_AUTHOR_DATE", "1786525200 +0000")
            .env("GIT_COMMITTER_DATE", "1786525200 +0000")
            .output()
            .expect("git runs");
        assert!(commit.status.success(), "{commit:?}");
        let out = s.run(&["ledger", "--audit", &format!("{format}/rt")]).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr).replace(format, "FORMAT");
        assert!(!err.contains("could not be decoded") && !err.contains("reftable"), "{err}");
        let report = String::from_utf8_lossy(&out.stdout).replace(format, "FORMAT");
        assert!(!report.is_empty(), "a report");
        errs.push((out.status.code(), err, report));
    }
    assert_eq!(errs[0], errs[1]);
}

/// Every subcommand's `--help` ends with examples and the exit-code table.
#[test]
fn every_help_ends_with_examples_and_the_exit_codes() {
    let s = Scratch::new(&[]);
    // Every subcommand the top-level help lists, so a new one cannot ship without examples.
    let top = s.run(&["--help"]).output().expect("runs");
    let top = String::from_utf8_lossy(&top.stdout).into_owned();
    let subs: Vec<&str> = top
        .split("Commands:\n")
        .nth(1)
        .expect("the help lists the commands")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(subs.len() >= 9, "{subs:?}");
    for sub in subs {
        let out = s.run(&[sub, "--help"]).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{sub} --help");
        let text = String::from_utf8_lossy(&out.stdout);
        let examples = text.find("\nExamples:\n").unwrap_or_else(|| panic!("{sub}: no examples:\n{text}"));
        let codes = text.find("\nExit codes:\n").unwrap_or_else(|| panic!("{sub}: no exit codes:\n{text}"));
        assert!(examples < codes, "{sub}: examples, then the exit codes");
        let n =
            text[examples..codes].lines().filter(|l| l.trim_start().starts_with(&format!("crossverify {sub}"))).count();
        assert!((2..=3).contains(&n), "{sub}: {n} examples");
        for code in ["0  verified", "1  failed", "2  could not run", "3  inconclusive"] {
            assert!(text.contains(code), "{sub}: exit code line {code:?}");
        }
    }
    snapshot!(s, "help_ledger", &["ledger", "--help"]);
}

/// clap's usage errors use the same single `crossverify: error:` line as every other error.
#[test]
fn usage_errors_are_one_line() {
    let s = Scratch::new(&[]);
    for args in [
        &["manifest"][..],
        &["frobnicate"],
        &["checks", "--format", "yaml"],
        &["checks", "--threads", "0"],
        &["ledger"],
        &["ledger", "--audit", "x", "--dialect", "v9"],
        &["checks", "--no-such-flag"],
    ] {
        let out = s.run(args).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("crossverify: error: "), "{args:?}: {err}");
    }
}

/// `--format` and `--output FORMAT=` take a format name in any letter case.
#[test]
fn format_names_are_case_insensitive() {
    let s = Scratch::new(&[]);
    let lower = s.run(&["checks", "--format", "json"]).output().expect("runs");
    for name in ["JSON", "Json"] {
        let out = s.run(&["checks", "--format", name]).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(out.stdout, lower.stdout, "{name}");
    }
    let out = s.run(&["checks", "--quiet", "--output", "MARKDOWN=checks.md"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(s.path().join("checks.md").is_file());
}

/// A failed run ends with the verdict and the failing checks (code, subject, one line each),
/// then the audit outcome; `--summary` prints just those lines.
#[test]
fn the_closing_lines_name_the_failing_checks() {
    let s = Scratch::new(&["s2-wrong-sha"]);
    let args = ["ledger", "--audit", "s2-wrong-sha/audit", "--science", "s2-wrong-sha/science"];
    let full = s.run(&args).output().expect("runs");
    assert_eq!(full.status.code(), Some(1));
    let full = String::from_utf8_lossy(&full.stdout).into_owned();
    let summary = s.run(&[&args[..], &["--summary"]].concat()).output().expect("runs");
    assert_eq!(summary.status.code(), Some(1));
    let summary = String::from_utf8_lossy(&summary.stdout).into_owned();
    // The summary is the full report's first and closing lines, nothing else.
    let closing: Vec<&str> = summary.lines().skip(1).collect();
    assert!(full.starts_with(summary.lines().next().expect("first line")));
    assert!(full.trim_end().ends_with(&closing.join("\n")), "the full report ends with the summary's lines");
    assert!(closing.iter().any(|l| l.trim_start().starts_with("CV-A701 failed ")), "{summary}");
    assert!(closing.last().is_some_and(|l| l.starts_with("audit outcome (")), "{summary}");
    snapshot!(s, "ledger_failed_summary", &[&args[..], &["--summary"]].concat());
    snapshot!(s, "ledger_failed_markdown_head", &[&args[..], &["--summary", "--format", "markdown"]].concat());
}

/// A ledger whose every commit was BLOCKED is genuine (exit 0), and says that the work did not
/// pass: the two answers are never one word.
#[test]
fn an_all_blocked_ledger_is_genuine_and_says_blocked() {
    use crossverify_fixtures::fixture::synthetic::Options;
    use crossverify_fixtures::mint;
    let s = Scratch::new(&[]);
    let shape = mint::Synthetic {
        science: Options { seed: 7, commits: 2, files: 3, files_per_dir: 3, ..Options::default() },
        blocked_every: 1,
    };
    mint::synthetic(&s.path().join("blocked"), &shape).expect("mint");
    let args = ["ledger", "--audit", "blocked/audit", "--science", "blocked/science", "--summary"];
    let out = s.run(&args).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("0 passed audit, 2 blocked, 0 escalated; 2 not admissible"), "{text}");
    assert!(text.starts_with("crossverify ledger · records genuine: VERIFIED (exit 0) · audit outcome: "), "{text}");
    let json = s.run(&[&args[..5], &["--format", "json"]].concat()).output().expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(report["outcome"], "verified");
    assert_eq!(report["auditOutcome"]["tone"], "bad");
    assert_eq!(report["auditOutcome"]["decision"]["label"], "2 not admissible");
    snapshot!(s, "ledger_all_blocked_summary", &args);
}

/// The demo, summarised: integrity and audit outcome on separate lines.
#[test]
fn demo_summary() {
    let s = Scratch::new(&[]);
    snapshot!(s, "demo_summary", &["demo", "--summary"]);
}

/// Revisions that are not commits are named in plain words, never gix's internals.
#[test]
fn revision_errors_speak_plainly() {
    let s = Scratch::new(&["repo-plain"]);
    support::git(s.path(), &["init", "-q", "empty"]);
    for (args, says) in [
        (&["manifest", "empty", "HEAD"][..], "the repository has no commits"),
        (&["ledger", "--audit", "empty"], "the repository has no commits"),
        (&["manifest", "repo-plain/repo", "HEAD^{tree}"], "it names the tree"),
        (&["manifest", "repo-plain/repo", "no-such-branch"], "no branch, tag or commit is called `no-such-branch`"),
    ] {
        let out = s.run(args).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("peel") && !err.contains("Last encountered"), "{args:?}: {err}");
    }
}

/// Issue 21: `verify PATH` verifies everything PATH holds. A directory holding CrossAudit
/// ledger records and a CrossExam transcript is refused as ambiguous (exit 2) with the exact
/// command for each, never verified as one of them silently; with one protocol it runs.
#[test]
fn verify_refuses_a_path_holding_two_protocols_and_names_each_command() {
    let s = Scratch::new(&[]);
    let both = s.path().join("both");
    support::copy_dir(&support::root().join("test-vectors/crossexam/real/clean-two-seat/_Msg"), &both);
    let transcript_only = exit_code(&mut s.run(&["verify", "both", "--format", "json"]));
    assert!(matches!(transcript_only, 0 | 1 | 3), "one protocol runs: exit {transcript_only}");
    std::fs::copy(support::root().join("ledger-fixtures/analysis-small/cycles-b.json"), both.join("cycles-b.json"))
        .expect("copy records");
    let out = s.run(&["verify", "both", "--format", "json"]).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "ran one protocol silently: {err}");
    assert!(out.stdout.is_empty(), "no report for an ambiguous path");
    for command in ["crossverify stats both", "crossverify transcript both"] {
        assert!(err.contains(command), "`{command}` is not named: {err}");
    }
}

// Issue 23 §1: nothing misleads. The README's own command lines, on fixture ledgers.

/// Work-tree clones of fixture `name`'s bare `audit` and `science` repositories, as a user
/// has them, at `audit` and `science` in the scratch directory.
fn checked_out(s: &Scratch, name: &str) {
    for repo in ["audit", "science"] {
        support::git(s.path(), &["clone", "-q", &format!("{name}/{repo}"), repo]);
    }
}

/// A receipt of the demo's paired ledger (the third cycle: genuine, PASS).
const PAIRED_RECEIPT: &str = "audit/cycles/8413b5ae42a5-r1/receipt.json";
/// The demo's BLOCKED receipt: genuine, not admissible.
const BLOCKED_RECEIPT: &str = "audit/cycles/739e7b6f5ebf-r1/receipt.json";

/// `crossverify receipt RECEIPT --science PATH`, as the README writes it, on a receipt file of a
/// paired ledger: verified in the ledger repository it lives in (said once on standard error),
/// genuine, exit 0; never its genuine bindings reported as forged (CV-A503, A706, A710, A712).
#[test]
fn the_readme_receipt_line_on_a_paired_receipt_finds_its_ledger() {
    let s = Scratch::new(&["demo"]);
    checked_out(&s, "demo");
    let args = ["receipt", PAIRED_RECEIPT, "--science", "science", "--summary"];
    let out = s.run(&args).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("lives in the ledger repository audit").count(), 1, "{err}");
    let with_audit = s.run(&[&args[..], &["--audit", "audit", "--format", "json"]].concat()).output().expect("runs");
    let inferred = s.run(&[&args[..4], &["--format", "json"]].concat()).output().expect("runs");
    let results = |o: &std::process::Output| {
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("JSON")["results"].clone()
    };
    assert_eq!(results(&inferred), results(&with_audit), "the same verification as with --audit");
    snapshot!(s, "paired_receipt_science_only", &args);
}

/// `verify RECEIPT` without `--science` on a paired receipt stops with the exact command (exit
/// 2): the ledger repository is not the science repository it audits. With `--science` it runs.
#[test]
fn verify_asks_for_the_science_repository_of_a_paired_receipt() {
    let s = Scratch::new(&["demo"]);
    checked_out(&s, "demo");
    snapshot!(s, "paired_receipt_verify_without_science", &["verify", PAIRED_RECEIPT, "--summary"]);
    snapshot!(
        s,
        "paired_receipt_verify_with_science",
        &["verify", PAIRED_RECEIPT, "--science", "science", "--summary"]
    );
}

/// The ledger repository given as the science one, by `ledger`, `receipt` or `stats`, is the
/// caller's mix-up of two paths: exit 2 with the fix, never every commit reported as missing.
#[test]
fn the_audit_repository_as_science_is_exit_2_with_the_fix() {
    let s = Scratch::new(&["demo", "v1-genuine"]);
    checked_out(&s, "demo");
    snapshot!(s, "ledger_audit_as_science", &["ledger", "--audit", "audit", "--science", "audit"]);
    for args in [
        &["receipt", PAIRED_RECEIPT, "--science", "audit"][..],
        &[
            "receipt",
            "--science",
            "audit",
            "--audit",
            "audit",
            "--expect-sha",
            "8413b5ae42a5e8ba12daf4138a2e4ba9d90d2117",
        ],
        &["ledger", "--audit", "v1-genuine/audit", "--science", "v1-genuine/audit"],
    ] {
        let out = s.run(args).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("is the ledger repository itself") && err.contains("--science PATH"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: no report");
    }
}

/// A genuine receipt that is only not admissible reads "records genuine, not admissible" in
/// the terminal, Markdown, HTML and JUnit, never "records not genuine"; a forged one still does.
#[test]
fn the_headline_says_what_failed_integrity_or_admission() {
    let s = Scratch::new(&["demo", "s2-forged-pass"]);
    checked_out(&s, "demo");
    let gate = ["receipt", BLOCKED_RECEIPT, "--science", "science", "--admit", "--quiet"];
    snapshot!(s, "blocked_receipt_admit_summary", &[&gate[..], &["--summary"]].concat());
    snapshot!(
        s,
        "blocked_receipt_admit_markdown_summary",
        &[&gate[..], &["--summary", "--format", "markdown"]].concat()
    );
    let text = |format: &str| {
        let out = s.run(&[&gate[..], &["--format", format]].concat()).output().expect("runs");
        assert_eq!(out.status.code(), Some(1), "{format}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let html = text("html");
    assert!(html.contains("<small>records genuine, not admissible</small>"), "the HTML banner");
    assert!(html.contains("The records are genuine; the decision failed: not admissible"), "the HTML reason");
    let junit = text("junit");
    assert!(junit.contains(r#"<property name="integrity" value="records genuine"/>"#), "{junit}");
    assert!(junit.contains(r#"<property name="decision" value="not admissible"/>"#), "{junit}");
    for format in ["table", "markdown", "html", "junit"] {
        assert!(!text(format).contains("not genuine"), "{format} calls a genuine receipt not genuine");
    }
    let forged = ["ledger", "--audit", "s2-forged-pass/audit", "--science", "s2-forged-pass/science", "--summary"];
    let out = s.run(&forged).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.starts_with("crossverify ledger · records not genuine: FAILED (exit 1)"), "{out}");
    assert!(out.contains("\nintegrity failed (exit 1): an error-level check failed\n"), "{out}");
}

/// `--summary` never hides a failed warning: "verified, with 1 warning", and the warning named.
#[test]
fn the_summary_names_every_failed_warning() {
    let s = Scratch::new(&["s2-stray-file"]);
    let args = ["ledger", "--audit", "s2-stray-file/audit", "--science", "s2-stray-file/science", "--summary"];
    snapshot!(s, "ledger_warning_summary", &args);
    snapshot!(s, "ledger_warning_markdown_summary", &[&args[..], &["--format", "markdown"]].concat());
}

// Issue 23 §5: the rough edges.

/// A usage error's usage line is the subcommand's own: the options given (`--summary`) are
/// not listed as if they were required.
#[test]
fn a_usage_error_shows_the_commands_own_usage() {
    let s = Scratch::new(&[]);
    for (name, args) in [
        ("error_bundle_usage", &["bundle", "b.json", "--summary"][..]),
        ("error_floor_usage", &["floor", "--summary", "evidence"]),
    ] {
        let out = s.run(args).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("--summary"), "{name}: {err}");
        snapshot!(s, name, args);
    }
}

/// An error says its cause once: no wrapper repeats the message it wraps.
#[test]
fn an_error_says_its_cause_once() {
    let s = Scratch::new(&["repo-plain"]);
    let out = s.run(&["bundle", "a-file", "--repo", "repo-plain/repo", "--trusted-key", "abc"]).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.matches("is not an ssh-ed25519 line").count(), 1, "{err}");
}

/// Bare `crossverify` shows the help as help (many lines), then one error line (exit 2).
#[test]
fn bare_crossverify_shows_the_help_readably() {
    let s = Scratch::new(&[]);
    let out = s.run(&[]).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.lines().any(|l| l == "Commands:"), "{err}");
    assert!(err.lines().any(|l| l.trim_start().starts_with("demo ")), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("crossverify: error:")).collect();
    assert_eq!(
        errors,
        ["crossverify: error: no command given (`crossverify demo` verifies the demo ledger built into the binary)"]
    );
}

/// Files that are not there are named with the reason in words, never as an OS error.
#[test]
fn missing_files_are_named_with_the_reason_in_words() {
    let s = Scratch::new(&["demo"]);
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "error_consumed_directory_missing",
            &[
                "receipt",
                "--science",
                "demo/audit",
                "--audit",
                "demo/audit",
                "--expect-sha",
                "8413b5ae42a5e8ba12daf4138a2e4ba9d90d2117",
                "--consumed",
                "no-such-dir/consumed.txt",
            ],
            "its directory no-such-dir does not exist",
        ),
        ("error_transcript_without_bus", &["transcript", "plain-dir"], "plain-dir: holds no bus.jsonl"),
        ("error_transcript_missing", &["transcript", "no-such-dir"], "no-such-dir: does not exist"),
        (
            "error_bundle_missing",
            &["bundle", "no-such.json", "--repo", "demo/audit", "--trust-store", "no-such-store.json"],
            "does not exist",
        ),
    ];
    for (name, args, says) in cases {
        let out = s.run(args).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(!err.contains("os error") && !err.contains("No such file"), "{name}: {err}");
        snapshot!(s, *name, args);
    }
}

/// The repositories a run resolved read as words in the table, Markdown and HTML headers,
/// never as a JSON blob.
#[test]
fn identities_read_as_words() {
    let s = Scratch::new(&["demo"]);
    let args = ["ledger", "--audit", "demo/audit", "--science", "demo/science", "--quiet"];
    for format in ["table", "markdown", "html"] {
        let out = s.run(&[&args[..], &["--format", format]].concat()).output().expect("runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().find(|l| l.contains("identities")).unwrap_or_else(|| panic!("{format}: no identities"));
        assert!(!line.contains("{\"") && !line.contains("&quot;"), "{format}: {line}");
        let head = support::git(&s.path().join("demo/audit"), &["rev-parse", "HEAD"]);
        let short = String::from_utf8_lossy(&head[..12]).into_owned();
        assert!(
            line.contains(&format!("audit {}", s.path().join("demo/audit").canonicalize().expect("path").display())),
            "{format}: {line}"
        );
        assert!(line.contains(&format!("at {short}…")), "{format}: {line}");
    }
}

/// `explain` takes the check names reports print as well as codes, in any case, and suggests
/// the nearest of either for a near miss.
#[test]
fn explain_takes_names_and_suggests_the_nearest() {
    let s = Scratch::new(&[]);
    let by_code = s.run(&["explain", "CV-A701"]).output().expect("runs");
    let by_name = s.run(&["explain", "subject-binding-broken"]).output().expect("runs");
    assert_eq!(by_name.status.code(), Some(0));
    assert_eq!(by_code.stdout, by_name.stdout);
    snapshot!(s, "error_explain_near_name", &["explain", "subject-binding-brokn"]);
    snapshot!(s, "error_explain_near_code", &["explain", "CV-A71"]);
}

/// The README's synopses of `bundle` and `floor` name every option their `--help` lists.
#[test]
fn the_readme_synopses_name_every_option() {
    let s = Scratch::new(&[]);
    let readme = std::fs::read_to_string(support::root().join("README.md")).expect("README");
    for command in ["bundle", "floor"] {
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `crossverify {command} ")))
            .unwrap_or_else(|| panic!("no README row for {command}"));
        let help = s.run(&[command, "--help"]).output().expect("runs");
        let help = String::from_utf8_lossy(&help.stdout);
        let own = help.split("Global options:").next().expect("help");
        for option in own.split_whitespace().filter(|w| w.starts_with("--") && *w != "--help") {
            let option = option.trim_end_matches(',');
            assert!(row.contains(option), "README's {command} synopsis lacks {option}: {row}");
        }
    }
}

/// The run that creates a cache in the user's home says where it is and where its key is,
/// once; the next run says nothing about it.
#[test]
fn a_new_cache_says_where_it_is_once() {
    let s = Scratch::new(&["demo"]);
    let run = || {
        let mut c = s.run(&["ledger", "--audit", "demo/audit", "--science", "demo/science", "--format", "json"]);
        c.env("XDG_CACHE_HOME", s.path().join("xdg-cache")).env("XDG_STATE_HOME", s.path().join("xdg-state"));
        let out = c.output().expect("runs");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = run();
    let db = s.path().join("xdg-cache/crossverify/cache.redb");
    let key = s.path().join("xdg-state/crossverify/cache-key");
    let said = format!("keeping authenticated results between runs in {} (key: {})", db.display(), key.display());
    assert_eq!(first.matches(&said).count(), 1, "{first}");
    assert!(db.is_file() && key.is_file());
    let second = run();
    assert!(!second.contains("keeping authenticated results"), "{second}");
}

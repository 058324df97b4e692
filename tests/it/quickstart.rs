//! The guide's quick starts, run end to end as written in docs/guide.md on copies of the shared
//! real ledgers (the four the CrossAudit product minted, paired and local, and the paper's
//! mined records): the `crossverify` and `git clone` lines are read from the guide itself, so a
//! quick start that stops working, or a guide that drifts from the tool, fails here.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn guide() -> String {
    std::fs::read_to_string(support::root().join("docs/guide.md")).expect("guide")
}

/// The text of the section whose heading starts with `heading`, up to the next `## `.
fn section(heading: &str) -> String {
    let g = guide();
    let start = g.find(heading).unwrap_or_else(|| panic!("guide has no section {heading:?}"));
    let rest = &g[start + heading.len()..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_owned()
}

/// Fenced blocks of `lang` in `text`, in order, with their indentation removed.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut current {
            None if trimmed == format!("```{lang}") => current = Some((indent, String::new())),
            Some(_) if trimmed == "```" => out.push(current.take().expect("open block").1),
            Some((n, body)) => {
                body.push_str(line.get(*n..).unwrap_or(trimmed));
                body.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The command lines of a shell script: continuations joined, comments dropped.
fn commands(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in script.lines() {
        let line = line.split(" #").next().unwrap_or(line).trim();
        if let Some(head) = line.strip_suffix('\\') {
            cur.push_str(head);
            cur.push(' ');
        } else {
            cur.push_str(line);
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_owned());
            }
            cur.clear();
        }
    }
    out
}

fn words(line: &str, subst: &BTreeMap<&str, String>) -> Vec<String> {
    line.split_whitespace()
        .map(|w| {
            let w = w.trim_matches('"');
            subst.iter().fold(w.to_owned(), |acc, (from, to)| acc.replace(from, to))
        })
        .collect()
}

struct Out {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs one guide line (`crossverify …` or `git clone …`) in `cwd`.
fn run(line: &str, cwd: &Path, subst: &BTreeMap<&str, String>) -> Out {
    let w = words(line, subst);
    let mut cmd = match w[0].as_str() {
        "crossverify" => {
            // The workflow's `--cache` uses the platform directories: keep them in the test's
            // temporary tree, never the user's.
            let home = cwd.parent().unwrap_or(cwd);
            let mut c = support::crossverify();
            c.env("XDG_CACHE_HOME", home.join("xdg-cache"))
                .env("XDG_STATE_HOME", home.join("xdg-state"))
                .env_remove("CROSSVERIFY_CACHE_DIR")
                .env_remove("CROSSVERIFY_CACHE_KEY");
            c
        }
        "git" => {
            let mut c = std::process::Command::new("git");
            c.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null");
            c
        }
        other => panic!("the quick starts run only crossverify and git, not {other}"),
    };
    let out = cmd.args(&w[1..]).current_dir(cwd).output().expect("runs");
    Out {
        code: out.status.code().expect("exited"),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("json")
}

/// The four product ledgers: (case, paired).
fn cases() -> Vec<(PathBuf, bool)> {
    let base = support::root().join("test-vectors/real/crossaudit/schema2-ledgers");
    let mut v: Vec<(PathBuf, bool)> = std::fs::read_dir(&base)
        .expect("schema2-ledgers")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let paired = p.join("audit.bundle").exists();
            (p, paired)
        })
        .collect();
    v.sort();
    assert_eq!(v.len(), 4);
    v
}

/// `science` and `audit` as the reviewer's clones: for a local-mode ledger the ledger lives in
/// the science repository, so `audit` is a second clone of it.
fn clones(case: &Path, paired: bool, dir: &Path) {
    support::clone_bundle(&case.join("science.bundle"), &dir.join("science"));
    let audit = if paired { case.join("audit.bundle") } else { case.join("science.bundle") };
    support::clone_bundle(&audit, &dir.join("audit"));
}

#[test]
fn quick_start_1_a_reviewer_on_every_product_ledger() {
    let qs = section("## Quick start 1");
    let sh: Vec<String> = blocks(&qs, "sh").iter().flat_map(|b| commands(b)).collect();
    let cv: Vec<&String> = sh.iter().filter(|l| l.starts_with("crossverify ")).collect();
    assert!(cv.len() >= 2, "quick start 1 runs ledger and stats: {cv:?}");
    let claims = blocks(&qs, "toml").pop().expect("the claims file");
    let subst = BTreeMap::new();
    for (case, paired) in cases() {
        let name = case.file_name().expect("name").to_string_lossy().into_owned();
        let tmp = tempfile::tempdir().expect("tempdir");
        clones(&case, paired, tmp.path());
        std::fs::write(tmp.path().join("claims.toml"), &claims).expect("claims");
        for line in &cv {
            let out = run(line, tmp.path(), &subst);
            // Every step runs and gives a report: verified, or (stats) a claim the paper's
            // figures make about another ledger failing with the recomputed value.
            let stats = line.starts_with("crossverify stats");
            assert!(out.code == 0 || (stats && out.code == 1), "{name}: `{line}` exit {}: {}", out.code, out.stderr);
            assert!(!out.stdout.is_empty(), "{name}: `{line}` printed no report");
        }
        let ledger = json(&tmp.path().join("ledger.json"));
        assert_eq!(ledger["outcome"], "verified", "{name}");
        assert!(tmp.path().join("ledger.html").is_file());
        assert_eq!(ledger["inputs"]["identities"]["audit"]["given"], "audit", "{name}: the archived identity");
        // Step 3 reads the paired ledger through --science: figures measured, not "not measured".
        let csv = std::fs::read_to_string(tmp.path().join("figures-cycles.csv")).expect("figures-cycles.csv");
        assert!(csv.lines().count() >= 2, "{name}: one row per cycle: {csv}");
    }
}

#[test]
fn quick_start_1_claims_hold_on_the_papers_mined_records() {
    // The guide's claims are the paper's first-freeze figures: on the published mined records
    // they all pass, the fields no record supports are info, and the run is inconclusive only
    // because the records themselves are unauthenticated (CV-S006).
    let qs = section("## Quick start 1");
    let claims = blocks(&qs, "toml").pop().expect("the claims file");
    let tmp = tempfile::tempdir().expect("tempdir");
    let records = support::root().join("test-vectors/real/crossaudit/experiment/v3/real-ledger");
    std::fs::write(tmp.path().join("claims.toml"), claims).expect("claims");
    let out = support::crossverify()
        .current_dir(tmp.path())
        .arg("stats")
        .arg(&records)
        .args(["--claims", "claims.toml", "--format", "json"])
        .output()
        .expect("runs");
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    // The claims agree, and the records they agree with carry no evidence: inconclusive.
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let undecided: Vec<&Value> = r["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|x| x["level"] == "error" && x["outcome"] != "passed")
        .collect();
    assert!(undecided.iter().all(|x| x["code"] == "CV-S006") && undecided.len() == 1, "{undecided:#?}");
    let claims: Vec<&Value> =
        r["results"].as_array().expect("results").iter().filter(|x| x["code"] == "CV-S001").collect();
    assert_eq!(claims.len(), 4);
    assert!(claims.iter().all(|c| c["outcome"] == "passed"), "{claims:#?}");
}

#[test]
fn quick_start_2_a_journal_on_the_paired_ledger() {
    let qs = section("## Quick start 2");
    let sh: Vec<String> = blocks(&qs, "sh").iter().flat_map(|b| commands(b)).collect();
    let case = support::root().join("test-vectors/real/crossaudit/schema2-ledgers/paired-multiround-r2");
    let tmp = tempfile::tempdir().expect("tempdir");
    // The submission as received: a zip of the authors' two bundles, in a folder of their own.
    support::journal_folder(tmp.path());
    let head = String::from_utf8(support::git(&case, &["bundle", "list-heads", "audit.bundle"])).expect("utf-8");
    let head = head.split_whitespace().next().expect("a head").to_owned();
    assert!(sh.first().is_some_and(|l| l.starts_with("crossverify verify submission.zip")), "{sh:?}");
    for line in &sh {
        let out = run(line, tmp.path(), &BTreeMap::new());
        assert_eq!(out.code, 0, "`{line}`: {}", out.stderr);
    }
    let v = json(&tmp.path().join("verification.json"));
    assert_eq!(v["command"], "submission");
    assert_eq!(v["outcome"], "verified");
    let heads: Vec<&str> = v["received"]["repositories"]
        .as_array()
        .expect("repositories")
        .iter()
        .filter_map(|r| r["head"].as_str())
        .collect();
    assert!(heads.contains(&head.as_str()), "the audit head the authors vouch for: {heads:?}");
    let records = v["records"].as_array().expect("records");
    assert!(records.iter().any(|r| r["pairedWith"].as_array().is_some_and(|p| !p.is_empty())), "{records:?}");
    assert!(v["tool"]["version"].is_string());
    let jsonl = std::fs::read_to_string(tmp.path().join("verification.jsonl")).expect("jsonl");
    assert!(jsonl.lines().last().is_some_and(|l| l.contains("\"record\":\"summary\"")));
    assert!(tmp.path().join("certificate.html").is_file() && tmp.path().join("certificate.vsa.json").is_file());
}

#[test]
fn quick_start_3_the_ci_gate_on_its_first_run() {
    let qs = section("## Quick start 3");
    let yaml = blocks(&qs, "yaml").pop().expect("the workflow");
    // The gate's step: the `crossverify receipt` command of the workflow's `run: |` block.
    let gate: String = commands(&yaml)
        .into_iter()
        .find(|l| l.starts_with("crossverify receipt"))
        .expect("the workflow runs crossverify receipt");
    let gate = gate.split(">>").next().expect("command").trim().to_owned();
    let case = support::root().join("test-vectors/real/crossaudit/schema2-ledgers/paired-multiround-r2");
    let expected = json(&case.join("expected.json"));
    let tmp = tempfile::tempdir().expect("tempdir");
    // The workflow checks the science repository out at the job's root and the audit ledger
    // at `.audit`; `.audit/admitted.txt` does not exist on the first run.
    let root = tmp.path().join("work");
    support::clone_bundle(&case.join("science.bundle"), &root);
    support::clone_bundle(&case.join("audit.bundle"), &root.join(".audit"));
    let mut subst = BTreeMap::new();
    subst.insert("${HEAD_SHA}", expected["expect_sha"].as_str().expect("sha").to_owned());
    // `${{ github.repository }}` spans three words once split: join it back first.
    let gate = gate.replace("${{ github.repository }}", "${{github.repository}}");
    subst.insert("${{github.repository}}", expected["expect_repo"].as_str().expect("repo").to_owned());
    // The shell's tilde expansion, into the test's own home.
    let home = tmp.path().join("home");
    subst.insert("~", home.to_str().expect("utf-8 temp path").to_owned());
    let out = run(&gate, &root, &subst);
    // The product's replayed PASS has integrity NON_EVIDENTIAL_PROVIDER: not admissible, so
    // the gate closes (exit 1), with every report written and the first run said so.
    assert_eq!(out.code, 1, "`{gate}`: {}", out.stderr);
    assert!(out.stderr.contains("does not exist yet"), "{}", out.stderr);
    let md = String::from_utf8(out.stdout).expect("utf-8");
    assert!(!md.is_empty(), "the job summary");
    for f in ["crossverify.sarif", "crossverify.json", "crossverify.xml"] {
        assert!(root.join(f).is_file(), "{f} written");
    }
    assert!(home.join(".cache/crossverify/cache.redb").is_file(), "`--cache DIR` keeps the cache where it says");
    let r = json(&root.join("crossverify.json"));
    assert_eq!(r["admission"]["ready"], false);
    assert!(r["admission"]["reason"].as_str().expect("reason").contains("NON_EVIDENTIAL_PROVIDER"));
    assert_eq!(r["inputs"]["receiptCanonicalSha256"], expected["receipt_canonical_sha256_python"]);
}

#[test]
fn the_front_door_detects_each_real_input_and_runs_its_command() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let real = support::root().join("test-vectors/real/crossaudit");
    let case = real.join("schema2-ledgers/paired-multiround-r2");
    clones(&case, true, tmp.path());
    let cases: [(Vec<String>, &str, i32); 5] = [
        (vec!["audit".into(), "--science".into(), "science".into()], "ledger", 0),
        (vec!["audit/cycles/9c604cba4273-r2/receipt.json".into(), "--science".into(), "science".into()], "receipt", 0),
        // Mined records carry no evidence: the front door runs `stats`, which verifies nothing.
        (vec![real.join("experiment/v3/real-ledger").display().to_string()], "stats", 3),
        (vec![real.join("experiment/v3/real-ledger/cycles.jsonl").display().to_string()], "stats", 3),
        (vec![real.join("ledger-mirror").display().to_string()], "ledger", 3),
    ];
    for (args, command, code) in cases {
        let out = support::crossverify()
            .current_dir(tmp.path())
            .arg("verify")
            .args(&args)
            .args(["--format", "json"])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "verify {args:?}: {stderr}");
        let r: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(r["command"], command, "{args:?}");
        let ran = r["inputs"]["frontDoor"]["ran"].as_str().expect("frontDoor.ran");
        assert!(ran.starts_with(&format!("crossverify {command}")), "{ran}");
        assert!(stderr.contains("detected "), "it says what it detected: {stderr}");
    }
    // The folder holding both clones side by side is a submission (issue 24): one report.
    let out = support::crossverify()
        .current_dir(tmp.path())
        .args(["verify", ".", "--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["command"], "submission");
    // Something that is no one's records: could not run, saying what was looked for.
    let other = tmp.path().join("notes");
    std::fs::create_dir(&other).expect("dir");
    std::fs::write(other.join("README.txt"), "nothing to verify\n").expect("write");
    let out = support::crossverify().current_dir(tmp.path()).args(["verify", "notes"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not something crossverify recognises"));
}

#[test]
fn stats_reads_the_minted_demo_ledger_through_its_science_repository() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::materialize("demo", tmp.path());
    let out = support::crossverify()
        .current_dir(tmp.path())
        .args(["stats", "demo/audit", "--science", "demo/science", "--format", "json"])
        .output()
        .expect("runs");
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(r["inputs"]["kind"], "schema2-ledger");
    assert!(r["stats"]["cycles"].as_u64().is_some_and(|n| n >= 2), "{}", r["stats"]);
    // Without it, the paired ledger cannot be read: could not run, with the fix.
    let out = support::crossverify().current_dir(tmp.path()).args(["stats", "demo/audit"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--science PATH"));
}

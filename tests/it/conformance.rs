//! The conformance kit (`specs/conformance.md`, `test-vectors/conformance/`): the committed suite
//! is what the generator writes (`CROSSVERIFY_UPDATE_CONFORMANCE=1 cargo test --test it
//! conformance::` rewrites it), its manifest verifies and a tampered file is exit 2 naming the
//! file, crossverify's adapter decides every case as required, and adapters that accept or
//! reject everything, the product's recorded decisions and the product's live adapter (not
//! installed here) are scored exactly as the suite's index says they must be.

mod generate;
mod vectors;

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn suite_dir() -> PathBuf {
    generate::vectors().join("conformance")
}

fn index() -> Value {
    serde_json::from_slice(&std::fs::read(suite_dir().join("suite.json")).expect("suite.json")).expect("JSON")
}

fn run(args: &[&str], path_env: Option<&str>) -> (Output, Value) {
    let mut cmd = support::crossverify();
    cmd.args(["conformance", "run", "--suite"]).arg(suite_dir()).args(args).args(["--format", "json", "--quiet"]);
    cmd.current_dir(support::root());
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    let out = cmd.output().expect("crossverify runs");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, json)
}

fn column<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["conformance"]["implementations"]
        .as_array()
        .expect("implementations")
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no column {name}: {report}"))
}

fn adapter(dir: &Path, name: &str, exit: u8) -> String {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!("#!/bin/sh\n# {name}: the conformance protocol's answer to every operation.\n[ \"$1\" = probe ] && exit 0\nexit {exit}\n"),
    )
    .expect("write adapter");
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    format!("{name}={}", p.display())
}

/// The committed suite is what the generator writes from the corpora it is made of.
#[test]
fn committed_suite_is_current() {
    let update = std::env::var_os("CROSSVERIFY_UPDATE_CONFORMANCE").is_some_and(|v| !v.is_empty());
    let files = generate::generate(update);
    let mut stale = Vec::new();
    for (rel, bytes) in &files {
        let path = generate::vectors().join(rel);
        if update {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, bytes).expect("write");
        } else if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            stale.push(rel.clone());
        }
    }
    let mut on_disk = Vec::new();
    collect(&suite_dir(), &mut on_disk);
    for p in on_disk {
        let rel = p.strip_prefix(generate::vectors()).expect("under").to_string_lossy().into_owned();
        if !files.contains_key(&rel) {
            if update {
                std::fs::remove_file(&p).expect("remove a file the suite no longer has");
            } else {
                stale.push(format!("{rel} (not written by the generator)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "the conformance suite is stale: {stale:?}; `CROSSVERIFY_UPDATE_CONFORMANCE=1 cargo test --test it conformance::` rewrites it"
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read dir") {
        let p = e.expect("entry").path();
        if p.is_dir() { collect(&p, out) } else { out.push(p) }
    }
}

/// Per decision the paper requires, the number of cases (of one protocol, or all).
fn required_counts(protocol: Option<&str>) -> BTreeMap<String, usize> {
    let mut n = BTreeMap::new();
    for c in index()["cases"].as_array().expect("cases") {
        if protocol.is_none_or(|p| c["protocol"] == p) {
            *n.entry(c["expected"].as_str().expect("expected").to_owned()).or_insert(0) += 1;
        }
    }
    n
}

/// The whole suite in one run with five columns: crossverify decides every case as required;
/// accept-all and reject-all are exactly as wrong as the index says; the product's recorded
/// column shows its false accepts per class; the product's live adapter is SKIPPED here.
#[test]
fn the_whole_suite_scores_every_column_as_the_index_says() {
    let dir = tempfile::tempdir().expect("tempdir");
    let accept_all = adapter(dir.path(), "accept-all", 0);
    let reject_all = adapter(dir.path(), "reject-all", 1);
    let product = format!("crossaudit={}", support::root().join("conformance/adapters/crossaudit").display());
    let started = std::time::Instant::now();
    let (out, report) = run(
        &[
            "--implementation",
            "crossverify",
            "--implementation",
            &accept_all,
            "--implementation",
            &reject_all,
            "--implementation",
            "crossaudit-recorded",
            "--implementation",
            &product,
            "--times",
        ],
        // A PATH without the product: its adapter must say it is not installed.
        Some("/usr/bin:/bin"),
    );
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!("conformance: whole suite, five columns, {:.1} s\n", started.elapsed().as_secs_f64()),
    );
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let n = required_counts(None);
    let total: usize = n.values().sum();
    let get = |k: &str| n.get(k).copied().unwrap_or(0);

    let cv = column(&report, "crossverify");
    let misses: Vec<&Value> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["evidence"]["implementation"] == "crossverify" && r["outcome"] != "passed")
        .collect();
    assert!(misses.is_empty(), "crossverify misses {} case(s): {misses:#?}", misses.len());
    assert_eq!((cv["cases"].as_u64(), cv["decidedAsRequired"].as_u64()), (Some(total as u64), Some(total as u64)));
    assert_eq!(cv["allAsRequired"], true);

    let acc = column(&report, "accept-all");
    assert_eq!(acc["falseAccepts"].as_u64(), Some(get("reject") as u64));
    assert_eq!(acc["falseRejects"].as_u64(), Some(0));
    assert_eq!(acc["decidedAsRequired"].as_u64(), Some((get("accept") + get("either")) as u64));
    let rej = column(&report, "reject-all");
    assert_eq!(rej["falseRejects"].as_u64(), Some(get("accept") as u64));
    assert_eq!(rej["falseAccepts"].as_u64(), Some(0));
    assert_eq!(rej["decidedAsRequired"].as_u64(), Some((get("reject") + get("either")) as u64));

    recorded_column(&report);
    let live = column(&report, "crossaudit");
    assert_eq!(live["status"], "SKIPPED");
    assert!(live["reason"].as_str().expect("reason").contains("not installed"), "{live}");
    assert_eq!((live["notRun"].as_u64(), live["decidedAsRequired"].as_u64()), (Some(total as u64), Some(0)));
}

/// The recorded column against the record itself: a false accept per case the product accepted
/// and the paper rejects, by class; a case it never decided is not recorded, not a pass.
fn recorded_column(report: &Value) {
    let recorded: Value = serde_json::from_slice(
        &std::fs::read(generate::vectors().join(generate::RECORDED)).expect("recorded decisions"),
    )
    .expect("JSON");
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    let mut not_recorded = 0;
    for c in index()["cases"].as_array().expect("cases") {
        match recorded["decisions"].get(c["id"].as_str().expect("id")) {
            Some(d) if d["decision"] == "accept" && c["expected"] == "reject" => {
                *want.entry(c["class"].as_str().expect("class").to_owned()).or_insert(0) += 1;
            }
            Some(_) => {}
            None => not_recorded += 1,
        }
    }
    assert!(!want.is_empty(), "the record holds no false accept: the product's column would show nothing");
    let mut got: BTreeMap<String, u64> = BTreeMap::new();
    for row in report["conformance"]["wrongByClass"].as_array().expect("wrongByClass") {
        if row["implementation"] == "crossaudit-recorded" && row["falseAccepts"].as_u64() > Some(0) {
            *got.entry(row["class"].as_str().expect("class").to_owned()).or_insert(0) +=
                row["falseAccepts"].as_u64().expect("n");
        }
    }
    assert_eq!(got, want, "the recorded column's false accepts per class");
    let col = column(report, "crossaudit-recorded");
    assert_eq!(col["kind"], "recorded");
    assert_eq!(col["notRun"].as_u64(), Some(not_recorded));
    assert_eq!(col["falseAccepts"].as_u64(), Some(want.values().sum::<u64>()));
    assert!(col["version"].as_str().expect("version").starts_with("crossaudit "), "{col}");
    assert!(col["recorded"]["date"].as_str().is_some_and(|d| d.len() == 10), "{col}");
}

/// crossverify alone: exit 0 and a headline saying 100%; the same run twice gives the same bytes
/// (no times unless asked); a journal resumes a run without running its cases again.
#[test]
fn crossverify_alone_exits_0_deterministically_and_resumes() {
    let args = ["--implementation", "crossverify", "--only", "crossexam"];
    let (a, report) = run(&args, None);
    assert_eq!(a.status.code(), Some(0), "{}", String::from_utf8_lossy(&a.stderr));
    let headline = report["hints"]["headline"][1].as_str().expect("headline");
    assert!(headline.contains("crossverify 100.0%"), "{headline}");
    assert!(headline.contains(report["conformance"]["suite"]["sha256"].as_str().expect("sha")), "{headline}");
    let (b, _) = run(&args, None);
    assert_eq!(a.stdout, b.stdout, "two runs differ");
    let dir = tempfile::tempdir().expect("tempdir");
    let journal = dir.path().join("run.jsonl");
    let j = journal.to_string_lossy().into_owned();
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = args.to_vec();
        v.extend(["--journal", &j]);
        v.extend(extra);
        run(&v, None).0
    };
    let first = with(&[]);
    let lines = std::fs::read_to_string(&journal).expect("journal").lines().count();
    assert_eq!(lines, required_counts(Some("crossexam")).values().sum::<usize>());
    let second = with(&[]);
    assert_eq!(first.stdout, second.stdout, "a resumed run differs");
    assert_eq!(std::fs::read_to_string(&journal).expect("journal").lines().count(), lines, "cases ran again");
}

/// A copy of the suite made from its manifest alone runs; one changed byte is exit 2 naming the file.
#[test]
fn the_manifest_verifies_and_a_tampered_file_is_exit_2() {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(suite_dir().join("manifest.json")).expect("manifest")).expect("JSON");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("tv");
    for rel in manifest["files"].as_object().expect("files").keys() {
        let to = root.join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(generate::vectors().join(rel), &to).expect("copy");
    }
    std::fs::copy(suite_dir().join("manifest.json"), root.join("conformance/manifest.json")).expect("copy");
    let copy = |args: &[&str]| {
        let mut cmd = support::crossverify();
        cmd.args(["conformance", "run", "--suite"]).arg(root.join("conformance")).args(args);
        cmd.args(["--format", "json", "--quiet"]).output().expect("runs")
    };
    let ok = copy(&["--implementation", "crossverify", "--only", "crossexam"]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    let victim = "proof-or-stop/keys/trust-store.json";
    let mut bytes = std::fs::read(root.join(victim)).expect("victim");
    bytes[10] ^= 1;
    std::fs::write(root.join(victim), bytes).expect("tamper");
    let bad = copy(&["--implementation", "crossverify", "--only", "crossexam"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains(victim) && err.contains("SHA-256"), "{err}");
}

/// Usage errors are exit 2 with the reason: an unknown implementation, an unknown protocol.
#[test]
fn usage_errors_are_exit_2() {
    let (out, _) = run(&["--implementation", "nobody"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("crossaudit-recorded"));
    let (out, _) = run(&["--implementation", "crossverify", "--only", "nonesuch"], None);
    assert_eq!(out.status.code(), Some(2));
}

/// The product's adapter translates the protocol into `crossaudit --json verify …` as the
/// formats note documents it: checked with a stand-in on PATH that accepts when it is called in
/// the ledger's work tree with a receipt that exists there, science and audit roots that are git
/// work trees, and the expected commit and repository; it declines the other protocols.
#[test]
fn the_product_adapter_calls_the_product_as_documented() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stand_in = dir.path().join("crossaudit");
    std::fs::write(
        &stand_in,
        r#"#!/bin/sh
[ "$1" = --version ] && { echo "crossaudit 0.0-stand-in"; exit 0; }
[ "$1 $2" = "--json verify" ] || exit 9
receipt=$3; shift 3
while [ $# -gt 1 ]; do
  case $1 in
    --science-root) [ -d "$2/.git" ] || exit 9 ;;
    --audit-root) [ -d "$2/.git" ] && [ "$(pwd -P)" = "$(cd "$2" && pwd -P)" ] || exit 9 ;;
    --expect-sha) [ ${#2} = 40 ] || exit 9 ;;
    --expect-repo) [ "$2" = lab/water-dimer ] || exit 9 ;;
  esac
  shift 2
done
[ -f "$receipt" ] || exit 9
echo '{"verified": true}'
"#,
    )
    .expect("write stand-in");
    std::fs::set_permissions(&stand_in, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let product = format!("crossaudit={}", support::root().join("conformance/adapters/crossaudit").display());
    let path = format!("{}:/usr/bin:/bin", dir.path().display());
    let (out, report) = run(
        &["--implementation", &product, "--case", "crossaudit/paired-multiround/", "--case", "crossexam/vx-format"],
        Some(&path),
    );
    // Two declined cases: nothing decided wrong, yet not every case decided (exit 3).
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let col = column(&report, "crossaudit");
    assert_eq!(col["status"], "ran", "{col}");
    assert_eq!(col["version"], "crossaudit 0.0-stand-in");
    assert_eq!(col["errors"].as_u64(), Some(0), "{report:#}");
    // The CrossExam case is not the product's, nor a whole-ledger case naming no receipt.
    assert_eq!(col["unsupported"].as_u64(), Some(2), "{col}");
    assert_eq!(col["decidedAsRequired"].as_u64(), Some(2), "the two receipts of paired-multiround, accepted: {col}");
}

/// Every report format renders a run, with the exit code of the same report; the HTML page is
/// the matrix: one row per case, a column per implementation, the wrong cells marked.
#[test]
fn every_format_renders_the_matrix() {
    let args = [
        "--implementation",
        "crossverify",
        "--implementation",
        "crossaudit-recorded",
        "--case",
        "tamper/local-openai-ok:report.auditor",
    ];
    for format in ["table", "json", "jsonl", "csv", "sarif", "sarif-github", "junit", "markdown", "html"] {
        let mut cmd = support::crossverify();
        cmd.args(["conformance", "run", "--suite"]).arg(suite_dir()).args(args).args(["--format", format, "--quiet"]);
        let out = cmd.output().expect("runs");
        // The recorded product accepts forged reports: exit 1 in every format.
        assert_eq!(out.status.code(), Some(1), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{format}: nothing written");
        if format == "html" {
            let page = String::from_utf8_lossy(&out.stdout);
            for needle in ["crossaudit-recorded", "✗ false accept", "✓ reject", "paper&#39;s reason", "<details"] {
                assert!(page.contains(needle) || page.contains(&needle.replace("&#39;", "'")), "html lacks {needle}");
            }
        }
    }
}

/// An adapter script: `text` whole, as `--implementation NAME=PATH`.
fn executable(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write adapter");
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    format!("{name}={}", p.display())
}

/// The exit code is the report's: 0 only when every column says `allAsRequired`, 1 when one
/// decided a case wrong, 3 otherwise. An adapter that declines every operation (exit 77), or
/// claims none in its probe, decided nothing and is not verified; the report said
/// `allAsRequired: false` while the run exited 0 before (issue 46).
#[test]
fn an_implementation_that_decides_nothing_is_not_verified() {
    let dir = tempfile::tempdir().expect("tempdir");
    let declines = adapter(dir.path(), "declines", 77);
    let claims_none = executable(
        dir.path(),
        "claims-none",
        "#!/bin/sh\n[ \"$1\" = probe ] && { echo '{\"operations\": []}'; exit 0; }\nexit 0\n",
    );
    let accept_all = adapter(dir.path(), "accept-all", 0);
    let only = ["--only", "crossexam"];
    for (imps, code) in [
        (vec![declines.as_str()], 3),
        (vec![claims_none.as_str()], 3),
        (vec!["crossverify", declines.as_str()], 3),
        (vec![declines.as_str(), accept_all.as_str()], 1),
        (vec!["crossverify"], 0),
    ] {
        let mut args: Vec<&str> = only.to_vec();
        for i in &imps {
            args.extend(["--implementation", i]);
        }
        let (out, report) = run(&args, None);
        assert_eq!(out.status.code(), Some(code), "{imps:?}: {}", String::from_utf8_lossy(&out.stderr));
        let cols = report["conformance"]["implementations"].as_array().expect("implementations");
        let all = cols.iter().all(|c| c["allAsRequired"] == true);
        let wrong = cols.iter().any(|c| c["falseAccepts"].as_u64() > Some(0) || c["falseRejects"].as_u64() > Some(0));
        assert_eq!(code == 0, all, "{imps:?}: exit {code} and allAsRequired disagree: {cols:?}");
        assert_eq!(code == 1, wrong, "{imps:?}: exit {code} and the wrong decisions disagree: {cols:?}");
        let outcome = ["verified", "failed", "", "inconclusive"][usize::from(u8::try_from(code).expect("code"))];
        assert_eq!(report["outcome"], outcome, "{imps:?}");
        if imps == [declines.as_str()] {
            assert_eq!(column(&report, "declines")["score"], "declined every case");
        }
    }
}

/// An adapter whose probe exits 0 (so it runs) and which answers every operation with `body`.
fn script_adapter(dir: &Path, name: &str, body: &str) -> String {
    executable(dir, name, &format!("#!/bin/sh\n[ \"$1\" = probe ] && exit 0\n{body}\n"))
}

/// Whether a process is still running (a zombie is not).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

/// A child that leaves the adapter's process group and session (`setsid`) and keeps its
/// standard output and error open neither outlasts the timeout nor survives the run, whether the
/// adapter hangs or answers at once. Before (issue 46) a 3-second limit lasted as long as that
/// child (60 s), and the child outlived the run.
#[cfg(target_os = "linux")]
#[test]
fn a_child_that_leaves_the_group_neither_outlasts_the_timeout_nor_survives() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pids = dir.path().join("pids");
    let escape = format!("setsid sh -c 'echo $$ >> {}; exec sleep 60' &\nsleep 1", pids.display());
    let hangs = script_adapter(dir.path(), "hangs", &format!("{escape}\nsleep 60"));
    let answers =
        script_adapter(dir.path(), "answers", &format!("{escape}\necho '{{\"decision\": \"accept\"}}'\nexit 0"));
    for imp in [&hangs, &answers] {
        let _ = std::fs::remove_file(&pids);
        let started = std::time::Instant::now();
        let (out, report) = run(&["--implementation", imp, "--case", "crossexam/vx-format", "--timeout", "3"], None);
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(15), "{imp}: a 3 s limit took {took:?}");
        assert!(matches!(out.status.code(), Some(1 | 0)), "{imp}: {}", String::from_utf8_lossy(&out.stderr));
        let cols = &report["conformance"]["implementations"][0];
        if imp == &hangs {
            assert_eq!(cols["timeouts"].as_u64(), Some(1), "{cols}");
        }
        let escaped = std::fs::read_to_string(&pids).expect("the escaping child wrote its pid");
        for pid in escaped.split_whitespace() {
            assert!(!alive(pid), "{imp}: the escaped child {pid} survived the run");
        }
    }
}

/// What an adapter leaves running while it works is its own until it answers: a helper it
/// double-forks (orphaned at once, in a session of its own) is never taken for another case's
/// leftover and killed when another case ends, on two threads over the ten CrossExam cases.
/// Each adapter checks, 1.0 to 1.9 s after starting it (so that cases end at different times),
/// that its helper still runs; a helper killed early is an error. Without the adapter's own
/// subreaper (`conformance contain`) the helper is handed to the run at once, and the other
/// thread's cases killed it.
#[cfg(target_os = "linux")]
#[test]
fn a_helper_an_adapter_still_needs_is_not_killed_by_another_case() {
    let dir = tempfile::tempdir().expect("tempdir");
    let waits = script_adapter(
        dir.path(),
        "waits",
        "(setsid sh -c 'echo $$ > helper; exec sleep 5' &)\n\
         sleep 1.$(( $$ % 10 ))\n\
         kill -0 \"$(cat helper)\" && exit 0\n\
         echo 'the helper was killed' >&2; exit 5",
    );
    let (out, report) = run(&["--implementation", &waits, "--only", "crossexam", "--threads", "2"], None);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    let col = column(&report, "waits");
    assert_eq!((col["errors"].as_u64(), col["cases"].as_u64()), (Some(0), Some(10)), "{report:#}");
}

//! What a new user meets at the front door (issue 47), with the README's own command lines:
//! a mistyped path, a session directory around its `_Msg/`, mined records nobody can verify,
//! a file given for a directory, `--science` given and then asked for, and archives whose
//! working trees lack `.git`.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support;

fn run(args: &[&str], cwd: &Path) -> Output {
    support::crossverify().current_dir(cwd).args(args).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_path_that_does_not_exist_is_not_found() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let o = run(&["verify", "no-such-ledger"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("no-such-ledger: not found"), "{err}");
    assert!(!err.contains("recognises"), "a typo is not a format problem: {err}");
    let o = run(&["ledger", "--audit", "no-such-ledger"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-ledger: not found"), "{}", stderr(&o));
}

#[test]
fn a_file_given_as_the_audit_repository_is_named_as_a_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("receipt.json"), "{}").expect("write");
    let o = run(&["ledger", "--audit", "receipt.json"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("receipt.json: is a file, not a directory"), "{err}");
    assert!(!err.contains("no such"), "it exists: {err}");
}

#[test]
fn a_session_directory_is_verified_through_its_msg() {
    // The CrossExam transcripts in the test vectors are session directories, `_Msg/` inside.
    let session = support::root().join("test-vectors/crossexam/real/clean-two-seat");
    assert!(session.join("_Msg/bus.jsonl").is_file());
    let o = run(&["verify", session.to_str().expect("utf-8"), "--format", "json"], &support::root());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(r["command"], "transcript");
    let ran = r["inputs"]["frontDoor"]["ran"].as_str().expect("ran");
    assert!(ran.ends_with("clean-two-seat/_Msg"), "{ran}");
    assert!(stderr(&o).contains("holds one record, in"), "{}", stderr(&o));
}

#[test]
fn a_folder_with_one_record_and_something_else_is_still_refused_as_ambiguous() {
    // Only a sole record one level down is taken: a second one keeps the refusal and its
    // commands, so that nothing is verified under a report that looks complete.
    let tmp = tempfile::tempdir().expect("tempdir");
    let session = support::root().join("test-vectors/crossexam/real/clean-two-seat/_Msg");
    support::copy_dir(&session, &tmp.path().join("two/_Msg"));
    support::copy_dir(&session, &tmp.path().join("two/other/_Msg"));
    let o = run(&["verify", "two"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--submission"), "{}", stderr(&o));
}

#[test]
fn mined_records_with_an_invented_commit_are_not_verified() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(tmp.path().join("fab")).expect("mkdir");
    std::fs::write(
        tmp.path().join("fab/cycles.jsonl"),
        "{\"cycle_id\": \"CYCLE-000001\", \"audited_commit\": \"3d2e8e0cfa959edca472ea1287d92ed30c592433\", \
         \"decision\": \"PASS\", \"n_findings\": 0, \"findings\": [], \"verified_closed\": []}\n",
    )
    .expect("write");
    let o = run(&["verify", "fab"], tmp.path());
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stdout));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("INCONCLUSIVE") && !out.contains("VERIFIED"), "{out}");
    assert!(out.contains("CV-S006"), "{out}");
}

#[test]
fn ledger_with_science_measures_what_needs_the_science_log() {
    // README: `crossverify ledger --audit PATH [--science PATH]`. With --science given, no
    // figure may ask for it.
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());
    let (audit, science) = (demo.join("audit"), demo.join("science"));
    let args = ["--audit", audit.to_str().expect("utf-8"), "--science", science.to_str().expect("utf-8")];
    let o = run(&[&["ledger"][..], &args[..]].concat(), tmp.path());
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(!table.contains("pass --science"), "{table}");
    let o = run(&[&["ledger"][..], &args[..], &["--format", "json"][..]].concat(), tmp.path());
    let ledger: Value = serde_json::from_slice(&o.stdout).expect("json");
    let o = run(&["stats", args[1], "--science", args[3], "--format", "json"], tmp.path());
    let stats: Value = serde_json::from_slice(&o.stdout).expect("json");
    let figure = "closed_by_fix_commit";
    assert!(!stats["stats"][figure].is_null(), "stats measures it: {:#}", stats["stats"]);
    assert_eq!(ledger["stats"][figure], stats["stats"][figure], "one answer for one question");
}

fn zip_dir(dir: &Path, name: &str, zip: &Path) {
    let st =
        std::process::Command::new("zip").current_dir(dir).args(["-qr", zip.to_str().expect("utf-8"), name]).status();
    assert!(st.is_ok_and(|s| s.success()), "zip");
}

/// A clone of the (bare) fixture repository `from` at `to`, its `.git` kept or not.
fn clone(from: &Path, to: &Path, keep_git: bool) {
    let parent = to.parent().expect("parent");
    std::fs::create_dir_all(parent).expect("mkdir");
    support::git(parent, &["clone", "-q", from.to_str().expect("utf-8"), to.to_str().expect("utf-8")]);
    if !keep_git {
        std::fs::remove_dir_all(to.join(".git")).expect("remove .git");
    }
}

fn work_tree(from: &Path, to: &Path) {
    clone(from, to, false);
}

#[test]
fn an_archive_of_work_trees_names_each_repository() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());
    let rel = tmp.path().join("rel");
    work_tree(&demo.join("science"), &rel.join("science"));
    work_tree(&demo.join("audit"), &rel.join("audit"));
    std::fs::write(rel.join("README.md"), "# The paper's records\n").expect("readme");
    zip_dir(tmp.path(), "rel", &tmp.path().join("rel.zip"));
    let o = run(&["verify", "rel.zip"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("git bundle create audit.bundle --all"), "{err}");
    assert!(err.contains("git bundle create science.bundle --all"), "{err}");
    assert!(!err.contains("rel.bundle"), "the wrapper is no repository: {err}");
}

#[test]
fn a_work_tree_with_root_marks_is_one_repository() {
    // A repository's own root holds a README and directories too: `.gitignore` says it is one.
    let tmp = tempfile::tempdir().expect("tempdir");
    let tree = tmp.path().join("science");
    for d in ["src", "data"] {
        std::fs::create_dir_all(tree.join(d)).expect("mkdir");
        std::fs::write(tree.join(d).join("x.txt"), "x").expect("write");
    }
    std::fs::write(tree.join("README.md"), "r").expect("write");
    std::fs::write(tree.join(".gitignore"), "target\n").expect("write");
    zip_dir(tmp.path(), "science", &tmp.path().join("science.zip"));
    let err = stderr(&run(&["verify", "science.zip"], tmp.path()));
    assert!(err.contains("git bundle create science.bundle --all"), "{err}");
    assert!(!err.contains("src.bundle") && !err.contains("data.bundle"), "{err}");
}

#[test]
fn an_audit_folder_without_git_beside_its_science_clone_is_named() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());
    let sub = tmp.path().join("sub");
    clone(&demo.join("science"), &sub.join("science"), true);
    work_tree(&demo.join("audit"), &sub.join("audit"));
    let o = run(&["verify", "--submission", "sub"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stdout));
    let err = stderr(&o);
    assert!(err.contains("sub/audit holds files but no `.git`"), "{err}");
    assert!(err.contains("git bundle create audit.bundle --all"), "{err}");
}

// The red team's pass on these surfaces (issue 47): each failed before its fix.

/// A CrossExam session directory (its `_Msg/` one level down) in `dir`.
fn session(dir: &Path) {
    support::copy_dir(&support::root().join("test-vectors/crossexam/real/clean-two-seat/_Msg"), &dir.join("_Msg"));
}

fn failing_ledger() -> std::path::PathBuf {
    support::root().join("ledger-fixtures/deployed-bad-decision")
}

#[test]
fn a_sole_record_is_not_taken_past_what_the_search_could_not_see() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // A failing ledger deeper than the levels searched.
    session(&tmp.path().join("deep"));
    let mut d = tmp.path().join("deep");
    for _ in 0..65 {
        d = d.join("d");
    }
    support::copy_dir(&failing_ledger(), &d.join("ledger"));
    // A symlink to a failing ledger outside.
    session(&tmp.path().join("linked"));
    support::copy_dir(&failing_ledger(), &tmp.path().join("outside/ledger"));
    std::os::unix::fs::symlink("../outside/ledger", tmp.path().join("linked/ledger")).expect("symlink");
    // A claims file that the sole record's command would never read.
    session(&tmp.path().join("claimed"));
    std::fs::write(tmp.path().join("claimed/paper-claims.toml"), "\"/cycles\" = 60\n").expect("claims");
    for dir in ["deep", "linked", "claimed"] {
        let o = run(&["verify", dir], tmp.path());
        assert_eq!(o.status.code(), Some(2), "{dir}: {}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    }
    assert!(stderr(&run(&["verify", "deep"], tmp.path())).contains("deeper than the levels searched"));
}

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fifo = tmp.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let mut child = support::crossverify()
        .current_dir(tmp.path())
        .args(["verify", "fifo"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut waited = 0;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if waited >= 600 {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    };
    assert_eq!(status.and_then(|s| s.code()), Some(2), "verify on a FIFO must not wait for a writer");
}

#[test]
fn a_deployed_ledger_keeps_no_receipts_so_its_figures_are_not_verified() {
    let o = run(&["stats", "ledger-fixtures/deployed-clean", "--format", "json"], &support::root());
    let r: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(o.status.code(), Some(3), "{}", r["results"]);
    let s006: Vec<&Value> =
        r["results"].as_array().expect("results").iter().filter(|x| x["code"] == "CV-S006").collect();
    assert!(s006.len() == 1 && s006[0]["outcome"] == "cantTell", "{s006:?}");
}

#[test]
fn a_receipt_ledger_with_an_unreadable_sigstore_bundle_is_not_evidence() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());
    let audit = tmp.path().join("audit");
    clone(&demo.join("audit"), &audit, true);
    let receipt = std::fs::read_dir(audit.join("cycles"))
        .expect("cycles")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join("receipt.json").is_file())
        .expect("a receipt");
    std::fs::write(receipt.join("receipt.json.sigstore.json"), "{\"garbage\":1}").expect("write");
    support::git(&audit, &["add", "-A"]);
    support::git(&audit, &["-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qm", "sig"]);
    let science = demo.join("science");
    let o = run(&["stats", "audit", "--science", science.to_str().expect("utf-8"), "--format", "json"], tmp.path());
    let r: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_ne!(o.status.code(), Some(0), "ledger does not verify it, so stats may not: {}", r["results"]);
    let s006 = r["results"].as_array().expect("results").iter().find(|x| x["code"] == "CV-S006").expect("CV-S006");
    assert_ne!(s006["outcome"], "passed", "{s006}");
}

#[test]
fn suggested_commands_quote_the_authors_names_and_escape_control_characters() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for name in ["x; touch PWNED; echo ", "$(touch PWNED2)", "-o", "esc\u{1b}[2K"] {
        let d = tmp.path().join("sub").join(name);
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(d.join("f"), "a").expect("write");
    }
    let err = stderr(&run(&["verify", "--submission", "sub"], tmp.path()));
    assert!(err.contains("`git bundle create '$(touch PWNED2).bundle' --all`"), "{err}");
    assert!(err.contains("`git bundle create 'x; touch PWNED; echo .bundle' --all`"), "{err}");
    assert!(err.contains("`git bundle create ./-o.bundle --all`"), "{err}");
    assert!(!err.contains('\u{1b}') && err.contains("esc\\u{1b}[2K"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}

#[test]
fn folders_beside_a_repository_that_are_no_repositories_are_not_named() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = support::materialize("demo", tmp.path());
    let sub = tmp.path().join("sub");
    clone(&demo.join("science"), &sub.join("science"), true);
    for (dir, file) in
        [("science/vendor/docs", "a"), ("science/vendor/lib", "b"), ("__MACOSX/science", "._x"), (".idea", "w")]
    {
        std::fs::create_dir_all(sub.join(dir)).expect("mkdir");
        std::fs::write(sub.join(dir).join(file), "x").expect("write");
    }
    let lib = sub.join("science/vendor/lib");
    support::git(&lib, &["init", "-q"]);
    support::git(&lib, &["add", "."]);
    support::git(&lib, &["-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qm", "l"]);
    let err = stderr(&run(&["verify", "--submission", "sub"], tmp.path()));
    for not in ["vendor/docs", "__MACOSX", ".idea"] {
        assert!(!err.contains(&format!("{not} hold")), "{not} is no lost repository: {err}");
    }
}

//! Issue 46, the third hardening of the intake, as a hostile author attacks it: each property of
//! the issue built as a real submission (git repositories made by git, archives made by the
//! archive crates), each of which got a verdict it should not have before the fix.

use std::path::Path;

use serde_json::Value;

use super::{AT, Sandbox, bundle, json, sandbox, stderr, tar_gz_dir, zip_dir};
use crate::support;

/// A git repository at `dir` holding a copy of a real CrossExam transcript in `_Msg/`,
/// committed with a pinned author and date.
fn transcript_repo(dir: &Path) {
    std::fs::create_dir_all(dir).expect("dir");
    support::git(dir, &["init", "--quiet", "-b", "main"]);
    let src = support::root().join("test-vectors/crossexam/real/clean-two-seat/_Msg");
    support::copy_dir(&src, &dir.join("_Msg"));
    commit_all(dir);
}

fn commit_all(dir: &Path) {
    support::git(dir, &["add", "-A"]);
    support::git(
        dir,
        &[
            "-c",
            "user.name=Author",
            "-c",
            "user.email=author@example.org",
            "commit",
            "--quiet",
            "--date=2026-01-02T03:04:05Z",
            "-m",
            "records",
        ],
    );
}

fn records(r: &Value) -> Vec<(String, String)> {
    r["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|x| {
            (x["record"].as_str().unwrap_or_default().to_owned(), x["what"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

fn results_of<'a>(r: &'a Value, code: &str) -> Vec<&'a Value> {
    r["results"].as_array().expect("results").iter().filter(|x| x["code"] == code).collect()
}

/// §1: a repository nested inside another one's work tree, and one below a directory whose name
/// is not UTF-8, are found and verified like the others; a ledger repository holding a
/// CrossExam `_Msg/` gives both records. Before: the nested repository and the transcript were
/// covered by the ledger's record and never asked, and the non-UTF-8 path was looked up under a
/// lossy name that does not exist.
#[test]
fn every_repository_and_every_protocols_record_is_verified() {
    let sb = sandbox();
    transcript_repo(&sb.side.join("science/paper/supplement"));
    support::copy_dir(
        &support::root().join("test-vectors/crossexam/real/claim-and-concede/_Msg"),
        &sb.side.join("audit/_Msg"),
    );
    #[cfg(unix)]
    let odd = {
        use std::os::unix::ffi::OsStrExt as _;
        let odd = sb.side.join(std::ffi::OsStr::from_bytes(b"data-\xff"));
        transcript_repo(&odd.join("inner"));
        odd
    };
    let o = sb.run(&["verify", "side", "--verified-at", AT, "--format", "json"]);
    let r = json(&o);
    let found = records(&r);
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"side/science/paper/supplement/_Msg"), "{found:?}");
    assert!(names.contains(&"side/audit/_Msg"), "{found:?}");
    assert!(found.iter().any(|(n, w)| n == "side/audit" && w.contains("CrossAudit")), "{found:?}");
    #[cfg(unix)]
    {
        assert!(names.contains(&"side/data-\\xff/inner/_Msg"), "{found:?}");
        assert!(odd.exists());
    }
    // Every repository is named with a CV-N002 result, the nested one too.
    let repos: Vec<&str> = results_of(&r, "CV-N002").iter().filter_map(|x| x["subject"].as_str()).collect();
    assert!(repos.contains(&"side/science/paper/supplement"), "{repos:?}");
    sb.assert_tmp_empty();
}

/// §1: `verify PATH` on a directory holding more than one protocol's records is refused as
/// ambiguous (exit 2) with the commands, `verify --submission PATH` among them. Before: a
/// ledger repository with a transcript in it exited 0 on the ledger alone.
#[test]
fn verify_path_refuses_a_directory_it_would_verify_only_in_part() {
    let sb = sandbox();
    support::copy_dir(
        &support::root().join("test-vectors/crossexam/real/claim-and-concede/_Msg"),
        &sb.side.join("audit/_Msg"),
    );
    let o = sb.run(&["verify", "side/audit", "--science", "side/science"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("crossverify verify --submission side/audit"), "{e}");
    assert!(e.contains("crossverify transcript side/audit/_Msg"), "{e}");
}

/// A zip holding `files` (name, bytes), with a pinned time.
fn zip_of(out: &Path, files: &[(&str, &[u8])]) {
    use std::io::Write as _;
    let mut w = zip::ZipWriter::new(std::fs::File::create(out).expect("zip"));
    let opts = zip::write::SimpleFileOptions::default()
        .last_modified_time(zip::DateTime::from_date_and_time(2026, 1, 2, 3, 4, 5).expect("date"));
    for (name, data) in files {
        w.start_file(*name, opts).expect("member");
        w.write_all(data).expect("write");
    }
    w.finish().expect("finish zip");
}

/// An archive's members: name and bytes.
type Files = Vec<(String, Vec<u8>)>;

/// Runs `verify SUBMISSION` twice, once with the decoy repository the submission points at
/// present and once without it: both are refused (exit 2) with the same bytes, naming `want`.
fn refused_with_and_without_decoy(sb: &Sandbox, submission: &str, decoy: &Path, want: &str) {
    let args = ["verify", submission, "--verified-at", AT, "--format", "json"];
    let with = sb.run(&args);
    let hidden = decoy.with_extension("away");
    std::fs::rename(decoy, &hidden).expect("hide the decoy");
    let without = sb.run(&args);
    std::fs::rename(&hidden, decoy).expect("restore the decoy");
    assert_eq!(with.status.code(), Some(2), "{submission}: {}", stderr(&with));
    assert!(stderr(&with).contains(want), "{submission}: {}", stderr(&with));
    assert!(stderr(&with).contains("leads outside the submission"), "{submission}: {}", stderr(&with));
    assert_eq!((&with.stdout, stderr(&with)), (&without.stdout, stderr(&without)), "{submission}");
    sb.assert_tmp_empty();
}

/// §2: every git indirection that leads outside the received tree is refused, whether the
/// repository it would reach is there or not. Before: a 557-byte zip whose `.git` held only a
/// `commondir` naming a repository of the verifying machine was verified against it.
#[test]
fn no_git_indirection_reads_outside_the_submission() {
    let sb = sandbox();
    // The decoy: a genuine paired ledger on the verifying machine, outside every submission.
    let decoy = sb.root.join("decoy");
    support::copy_dir(&sb.side, &decoy);
    let decoy_git = decoy.join("audit/.git");
    let decoy_s = decoy_git.display().to_string();
    let objects = decoy_git.join("objects").display().to_string();
    let cases: Vec<(&str, Files, &str)> = vec![
        ("commondir", vec![("audit/.git/commondir".into(), decoy_s.clone().into_bytes())], "commondir"),
        (
            "alternates",
            vec![
                ("audit/.git/HEAD".into(), b"ref: refs/heads/main\n".to_vec()),
                ("audit/.git/objects/info/alternates".into(), format!("{objects}\n").into_bytes()),
                ("audit/.git/refs/heads/.keep".into(), Vec::new()),
            ],
            "an object alternate",
        ),
        ("gitfile", vec![("audit/.git".into(), format!("gitdir: {decoy_s}\n").into_bytes())], "gitdir"),
        (
            "include",
            vec![
                ("audit/.git/HEAD".into(), b"ref: refs/heads/main\n".to_vec()),
                ("audit/.git/objects/.keep".into(), Vec::new()),
                ("audit/.git/config".into(), format!("[include]\n\tpath = {decoy_s}/config\n").into_bytes()),
            ],
            "a configuration include",
        ),
        (
            "http-alternates",
            vec![
                ("audit/.git/HEAD".into(), b"ref: refs/heads/main\n".to_vec()),
                ("audit/.git/objects/info/http-alternates".into(), b"https://example.org/objects\n".to_vec()),
            ],
            "an http-alternates list",
        ),
    ];
    for (name, files, want) in cases {
        let path = sb.root.join(format!("{name}.zip"));
        let owned: Vec<(&str, &[u8])> = files.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
        zip_of(&path, &owned);
        refused_with_and_without_decoy(&sb, &format!("{name}.zip"), &decoy, want);
    }
    // A folder given in place: a symlinked object store, which an archive could not carry.
    #[cfg(unix)]
    {
        let folder = sb.root.join("linked");
        support::copy_dir(&sb.side, &folder);
        let objects = folder.join("audit/.git/objects");
        std::fs::remove_dir_all(&objects).expect("objects");
        std::os::unix::fs::symlink(decoy_git.join("objects"), &objects).expect("link");
        refused_with_and_without_decoy(&sb, "linked", &decoy, "a symlink");
    }
}

/// §2: grafts and replace refs naming an object the submission lacks are refused.
#[test]
fn history_substitutions_naming_missing_objects_are_refused() {
    let sb = sandbox();
    let folder = sb.root.join("grafted");
    support::copy_dir(&sb.side, &folder);
    let info = folder.join("audit/.git/info");
    std::fs::create_dir_all(&info).expect("info");
    let head = String::from_utf8(support::git(&folder.join("audit"), &["rev-parse", "HEAD"])).expect("hex");
    std::fs::write(info.join("grafts"), format!("{} {}\n", head.trim(), "1".repeat(40))).expect("grafts");
    let o = sb.run(&["verify", "grafted", "--verified-at", AT]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("info/grafts line 1 names the object 1111"), "{}", stderr(&o));
}

/// §2: git's environment variables of the verifying machine change nothing.
#[test]
fn git_environment_variables_reach_no_verification() {
    let sb = sandbox();
    let decoy = sb.root.join("decoy");
    support::copy_dir(&sb.side, &decoy);
    let args = ["verify", "side", "--verified-at", AT, "--format", "json"];
    let clean = sb.run(&args);
    let d = decoy.join("audit/.git");
    let o = support::crossverify()
        .current_dir(&sb.root)
        .env("TMPDIR", &sb.tmp)
        .env("GIT_DIR", &d)
        .env("GIT_COMMON_DIR", &d)
        .env("GIT_OBJECT_DIRECTORY", d.join("objects"))
        .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", d.join("objects"))
        .env("GIT_CONFIG_PARAMETERS", "'core.worktree'='/'")
        .args(args)
        .output()
        .expect("runs");
    assert_eq!(clean.status.code(), o.status.code(), "{}", stderr(&o));
    assert_eq!(clean.stdout, o.stdout);
}

/// §3: archives nested in archives are taken to the nesting limit, their records found; one
/// level more is refused naming the flag. Before: anything below the first level was
/// silently left out.
#[test]
fn nested_archives_are_taken_to_the_limit_and_refused_past_it() {
    let sb = sandbox();
    let inner = sb.root.join("inner");
    std::fs::create_dir_all(&inner).expect("inner");
    bundle(&sb.bare.join("science"), &inner.join("science.bundle"));
    bundle(&sb.bare.join("audit"), &inner.join("audit.bundle"));
    tar_gz_dir(&inner, "inner", &sb.root.join("level2.tar.gz"));
    let outer = sb.root.join("outer");
    std::fs::create_dir_all(&outer).expect("outer");
    std::fs::copy(sb.root.join("level2.tar.gz"), outer.join("level2.tar.gz")).expect("copy");
    zip_dir(&outer, "outer", &sb.root.join("level1.zip"));
    let o = sb.run(&["verify", "level1.zip", "--verified-at", AT, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o);
    assert!(records(&r).iter().any(|(_, w)| w.contains("CrossAudit ledger")), "{:?}", records(&r));
    let o = sb.run(&["verify", "level1.zip", "--max-nesting", "1", "--verified-at", AT]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-nesting"), "{}", stderr(&o));
    sb.assert_tmp_empty();
}

/// §3: a tar.gz of hard links (a few kilobytes that would write hundreds of megabytes) is
/// refused by the written-bytes budget, naming the ratio and its flag.
#[test]
fn hard_link_bombs_are_refused_by_what_is_written() {
    let sb = sandbox();
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(8 << 20);
    h.set_mode(0o644);
    b.append_data(&mut h, "paper/data.bin", std::io::Read::take(std::io::repeat(7), 8 << 20)).expect("member");
    for i in 0..40 {
        let mut l = tar::Header::new_gnu();
        l.set_entry_type(tar::EntryType::Link);
        l.set_size(0);
        b.append_link(&mut l, format!("paper/copy{i}.bin"), "paper/data.bin").expect("link");
    }
    let tar = b.into_inner().expect("tar");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, &tar).expect("gzip");
    std::fs::write(sb.root.join("links.tar.gz"), gz.finish().expect("gzip")).expect("write");
    let o = sb.run(&["verify", "links.tar.gz", "--verified-at", AT]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-expansion-ratio"), "{}", stderr(&o));
    sb.assert_tmp_empty();
}

/// §4: every entry of a queue gets a line, whatever bytes its name holds; `--resume` keeps a
/// line only while the submission's every byte and the run's stamp (trust anchors, flags,
/// limits, build) are unchanged. Before: a non-UTF-8 entry got no line and the batch exited 0,
/// and a line survived its claims file being changed to a false figure.
#[test]
fn a_queue_gives_every_entry_a_line_and_resumes_only_what_is_unchanged() {
    let sb = sandbox();
    let queue = sb.root.join("queue");
    std::fs::create_dir_all(&queue).expect("queue");
    support::copy_dir(&sb.side, &queue.join("paper-a"));
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        std::fs::write(queue.join(std::ffi::OsStr::from_bytes(b"paper-\xfe.zip")), b"not an archive").expect("odd");
    }
    let out = sb.root.join("out.jsonl");
    let run = |extra: &[&str]| {
        let mut a = vec!["batch", "queue", "--output-jsonl", "out.jsonl"];
        a.extend_from_slice(extra);
        sb.run(&a)
    };
    let lines = || -> Vec<Value> {
        std::fs::read_to_string(&out)
            .expect("out")
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    };
    let o = run(&[]);
    let first = lines();
    #[cfg(unix)]
    {
        assert_eq!(first.len(), 2, "{first:?}");
        assert!(first.iter().any(|l| l["id"] == "paper-\\xfe.zip" && l["exitCode"] == 2), "{first:?}");
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    }
    let paper = first.iter().find(|l| l["id"] == "paper-a").expect("paper-a");
    assert_eq!(paper["exitCode"], 0, "{paper}");
    // Unchanged: taken from the file.
    run(&["--resume"]);
    assert_eq!(lines().len(), first.len() + usize::from(cfg!(unix)), "only the exit-2 line is verified again");
    // A file changed inside the submission's work tree: verified again.
    std::fs::write(queue.join("paper-a/science/NOTES.md"), "changed\n").expect("edit");
    let before = lines().len();
    run(&["--resume"]);
    let after = lines();
    assert!(after[before..].iter().any(|l| l["id"] == "paper-a"), "{after:?}");
    // Another trust store for the same bytes: verified again.
    let before = after.len();
    let store = support::root().join("test-vectors/proof-or-stop/keys/trust-store.json");
    run(&["--resume", "--trust-store", store.to_str().expect("UTF-8")]);
    assert!(lines()[before..].iter().any(|l| l["id"] == "paper-a"), "a new trust store keeps no line");
}

/// A clone of the demo's audit repository at `dir` with one receipt's first manifest digest
/// changed and committed: a ledger that fails when verified alone (exit 1).
fn failing_ledger(sb: &Sandbox, dir: &Path) {
    let from = sb.bare.join("audit");
    support::git(sb.root.as_path(), &["clone", "--quiet", from.to_str().expect("UTF-8"), dir.to_str().expect("UTF-8")]);
    let receipt = dir.join("cycles/739e7b6f5ebf-r1/receipt.json");
    let text = std::fs::read_to_string(&receipt).expect("receipt");
    let text = text.replacen("\": \"38df32e2c680", "\": \"00df32e2c680", 1);
    assert!(text.contains("00df32e2c680"), "the demo's manifest entry to tamper with");
    std::fs::write(&receipt, text).expect("tamper");
    commit_all(dir);
}

fn exit_of(sb: &Sandbox, args: &[&str]) -> (Option<i32>, String) {
    let o = sb.run(args);
    (o.status.code(), stderr(&o))
}

/// Red team, archives: repositories that drop out of the search. A repository inside a bare
/// repository's directory, and one nested in a work tree that tracks files named `HEAD`,
/// `objects` and `refs` (taken for bare before), are found: the failing ledger in either makes
/// the submission fail.
#[test]
fn repositories_hidden_in_git_shaped_folders_are_found() {
    let sb = sandbox();
    let one = sb.root.join("one");
    support::copy_dir(&sb.side, &one);
    support::git(&sb.root, &["clone", "--quiet", "--bare", "one/audit", "one/audit.git"]);
    std::fs::remove_dir_all(one.join("audit")).expect("rm");
    failing_ledger(&sb, &one.join("audit.git/bad"));
    assert_eq!(exit_of(&sb, &["verify", "--submission", "one", "--verified-at", AT]).0, Some(1));
    let two = sb.root.join("two");
    support::copy_dir(&sb.side, &two);
    let science = two.join("science");
    std::fs::write(science.join("HEAD"), "ref: refs/heads/main\n").expect("HEAD");
    for d in ["objects", "refs"] {
        std::fs::create_dir_all(science.join(d)).expect("dir");
        std::fs::write(science.join(d).join("f"), "x\n").expect("file");
    }
    commit_all(&science);
    failing_ledger(&sb, &science.join("vendor/bad"));
    assert_eq!(exit_of(&sb, &["verify", "--submission", "two", "--verified-at", AT]).0, Some(1));
}

/// Red team, archives: indirections that a one-level look missed. An alternates chain deeper
/// than git follows (gix follows every level), a symlink inside an alternate's object directory,
/// a `..` after a symlink (resolved lexically before, through the link by gix), and a
/// `gitoxide.core.shallowFile` setting: each is refused, the decoy there or not.
#[cfg(unix)]
#[test]
fn indirections_through_links_and_chains_are_resolved_as_read() {
    let sb = sandbox();
    let decoy = sb.root.join("decoy");
    support::copy_dir(&sb.side, &decoy);
    let outside = decoy.join("science/.git/objects");
    // A chain of seven alternates inside the folder, the last one pointing outside.
    let chain = sb.root.join("chain");
    support::copy_dir(&sb.side, &chain);
    let mut at = chain.join("science/.git/objects");
    for i in 0..7 {
        let next = chain.join(format!("a{i}/objects"));
        std::fs::create_dir_all(next.join("info")).expect("alt");
        std::fs::write(at.join("info/alternates"), format!("{}\n", next.display())).expect("alternates");
        at = next;
    }
    std::fs::write(at.join("info/alternates"), format!("{}\n", outside.display())).expect("alternates");
    refused_with_and_without_decoy(&sb, "chain", &decoy, "an object alternate");
    // A `..` after a symlink: lexically inside, through the link outside.
    let dots = sb.root.join("dots");
    support::copy_dir(&sb.side, &dots);
    let info = dots.join("science/.git/objects/info");
    std::fs::create_dir_all(&info).expect("info");
    std::os::unix::fs::symlink(&sb.root, info.join("l")).expect("link");
    std::fs::write(info.join("alternates"), "info/l/decoy/science/.git/objects\n").expect("alternates");
    refused_with_and_without_decoy(&sb, "dots", &decoy, "an object alternate");
    // gix reads the shallow file a repository's own configuration names.
    let shallow = sb.root.join("shallow");
    support::copy_dir(&sb.side, &shallow);
    let config = shallow.join("audit/.git/config");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(&format!("[gitoxide \"core\"]\n\tshallowFile = {}/shallow\n", decoy.display()));
    std::fs::write(&config, text).expect("config");
    refused_with_and_without_decoy(&sb, "shallow", &decoy, "gitoxide.core.shallowFile");
}

/// Red team, front door: a symlink in a submitted folder that leads outside it is refused, not
/// followed by a detector (a `cycles.jsonl` read from the verifying machine before).
#[cfg(unix)]
#[test]
fn a_link_out_of_a_submitted_folder_is_refused() {
    let sb = sandbox();
    let decoy = sb.root.join("decoy");
    std::fs::create_dir_all(&decoy).expect("decoy");
    std::fs::write(decoy.join("cycles.jsonl"), "{}\n").expect("records");
    let sub = sb.root.join("sub");
    support::copy_dir(&sb.side, &sub);
    std::fs::create_dir_all(sub.join("rec")).expect("rec");
    std::os::unix::fs::symlink(decoy.join("cycles.jsonl"), sub.join("rec/cycles.jsonl")).expect("link");
    refused_with_and_without_decoy(&sb, "sub", &decoy, "a symlink");
}

/// Red team, front door: a ledger that fails must not pass as statistics because a published
/// `cycles.jsonl` sits beside it (`verify` ran `stats` before and exited 0).
#[test]
fn a_records_file_beside_a_ledger_does_not_replace_its_verification() {
    let sb = sandbox();
    let bad = sb.root.join("bad");
    failing_ledger(&sb, &bad);
    let verify = ["verify", "bad", "--science", "side/science", "--verified-at", AT];
    assert_eq!(exit_of(&sb, &verify), (Some(1), exit_of(&sb, &verify).1), "the control");
    let line = r#"{"cycle": 1, "decision": "PASS", "findings": []}"#;
    std::fs::write(bad.join("cycles.jsonl"), format!("{line}\n")).expect("records");
    assert_eq!(exit_of(&sb, &verify).0, Some(1), "{}", exit_of(&sb, &verify).1);
    let submission = ["verify", "--submission", "bad", "side/science", "--verified-at", AT];
    assert_eq!(exit_of(&sb, &submission).0, Some(1), "{}", exit_of(&sb, &submission).1);
}

/// Red team, front door: a bundle's committed transcript is a record (bundles were cloned with
/// no work tree, and a rewritten transcript in one went unseen: exit 0).
#[test]
fn a_transcript_committed_in_a_bundled_repository_is_verified() {
    let sb = sandbox();
    let repo = sb.root.join("paper");
    support::git(&sb.root, &["clone", "--quiet", sb.bare.join("audit").to_str().expect("UTF-8"), "paper"]);
    support::copy_dir(&support::root().join("test-vectors/crossexam/real/clean-two-seat/_Msg"), &repo.join("_Msg"));
    commit_all(&repo);
    let dir = sb.root.join("bundles");
    std::fs::create_dir_all(&dir).expect("dir");
    bundle(&repo, &dir.join("audit.bundle"));
    bundle(&sb.bare.join("science"), &dir.join("science.bundle"));
    let o = sb.run(&["verify", "bundles", "--verified-at", AT, "--format", "json"]);
    let r = json(&o);
    assert!(records(&r).iter().any(|(n, _)| n == "bundles/audit.bundle/_Msg"), "{:?}", records(&r));
    sb.assert_tmp_empty();
}

/// Red team, archives: a file both a tar and a zip (a polyglot whose first member is named
/// `PK\x03\x04`) is refused: tar and zip tools would unpack it to different trees.
#[test]
fn a_file_both_a_tar_and_a_zip_is_refused() {
    let sb = sandbox();
    let mut poly = vec![0u8; 1024];
    poly[..4].copy_from_slice(b"PK\x03\x04");
    poly[257..262].copy_from_slice(b"ustar");
    std::fs::write(sb.root.join("poly.tar"), &poly).expect("write");
    let o = sb.run(&["verify", "poly.tar", "--verified-at", AT]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("both a tar and a zip"), "{}", stderr(&o));
}

/// Red team, pairing: a decoy repository must not choose a record's verdict. Proof-or-Stop
/// evidence beside two repositories at the same distance (one the floor passes against, one it
/// fails against) is run against both and keeps the worst: before, the first by name won, and
/// adding a decoy turned a failing submission into a passing one.
#[test]
fn a_decoy_repository_does_not_choose_the_verdict() {
    let sb = sandbox();
    let pos = support::root().join("test-vectors/proof-or-stop");
    let sub = sb.root.join("pos");
    support::copy_dir(&support::root().join("test-vectors/intake/pos-self-declared/evidence"), &sub.join("evidence"));
    support::copy_dir(&pos.join("repos/golden.git"), &sub.join("a-decoy.git"));
    support::copy_dir(&pos.join("repos/fixed.git"), &sub.join("z-real.git"));
    let store = pos.join("keys/trust-store.json");
    let o = sb.run(&[
        "verify",
        "--submission",
        "pos",
        "--trust-store",
        store.to_str().expect("UTF-8"),
        "--verified-at",
        AT,
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let r = json(&o);
    let evidence = r["records"].as_array().expect("records").iter().find(|x| x["record"] == "pos/evidence");
    assert_eq!(evidence.map(|e| e["outcome"].clone()), Some(Value::from("failed")), "{r:#}");
}

/// Red team, pairing: a ledger pairs with the repositories holding every commit it binds (one
/// run per distinct `HEAD`, with the nearest), not with the first by name holding one of them; a repository that holds some
/// of its commits but was not verified with is named (CV-N002 cantTell), never passed over.
/// Before: a stale clone sorted first made an honest ledger read as forged, and two complete
/// paper folders side by side crossed their pairings.
#[test]
fn a_ledger_pairs_with_the_complete_and_nearest_science_repository() {
    let sb = sandbox();
    let two = sb.root.join("two");
    for d in ["A", "B"] {
        support::copy_dir(&sb.side, &two.join(d));
    }
    let o = sb.run(&["verify", "two", "--verified-at", AT, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o);
    for d in ["A", "B"] {
        let ledger = r["records"].as_array().expect("records").iter().find(|x| x["record"] == format!("two/{d}/audit"));
        // Both science repositories are at one HEAD: one run, run with the nearest, stands
        // for both, and both are paired.
        let paired = ledger.map(|l| l["pairedWith"].clone()).unwrap_or_default();
        assert!(paired.as_array().is_some_and(|p| p.contains(&Value::from(format!("two/{d}/science")))), "{r:#}");
        assert!(ledger.is_some_and(|l| l["command"].as_str().is_some_and(|c| c.contains(&format!("two/{d}/science")))));
    }
    let stale = sb.root.join("stale");
    support::copy_dir(&sb.side, &stale);
    // The commit the demo's first receipt binds: the stale clone holds it, and not the later ones.
    let first = String::from_utf8(support::git(&stale.join("science"), &["rev-parse", "739e7b6f5ebf"])).expect("hex");
    support::git(&sb.root, &["clone", "--quiet", "--no-local", "stale/science", "stale/0stale"]);
    support::git(&stale.join("0stale"), &["remote", "remove", "origin"]);
    support::git(&stale.join("0stale"), &["reset", "--quiet", "--hard", first.trim()]);
    support::git(&stale.join("0stale"), &["reflog", "expire", "--expire=now", "--all"]);
    support::git(&stale.join("0stale"), &["gc", "--quiet", "--prune=now"]);
    let o = sb.run(&["verify", "stale", "--verified-at", AT, "--format", "json"]);
    let r = json(&o);
    let ledger = r["records"].as_array().expect("records").iter().find(|x| x["record"] == "stale/audit").cloned();
    assert_eq!(ledger.as_ref().map(|l| l["outcome"].clone()), Some(Value::from("verified")), "{r:#}");
    let n002: Vec<&Value> = results_of(&r, "CV-N002").into_iter().filter(|x| x["subject"] == "stale/0stale").collect();
    assert!(n002.iter().all(|x| x["outcome"] == "cantTell"), "{n002:?}");
    assert!(n002.iter().any(|x| x["message"].as_str().is_some_and(|m| m.contains("binds"))), "{n002:?}");
}

/// Red team, queues: an entry that is a FIFO gets its line (exit 2) instead of hanging the
/// queue, and an output path that is a symlink is refused instead of written through.
#[cfg(unix)]
#[test]
fn a_queue_neither_hangs_on_a_fifo_nor_writes_through_a_link() {
    let sb = sandbox();
    let queue = sb.root.join("queue");
    std::fs::create_dir_all(&queue).expect("queue");
    let made = std::process::Command::new("mkfifo").arg(queue.join("fifo")).status().expect("mkfifo");
    assert!(made.success());
    let o = support::crossverify()
        .current_dir(&sb.root)
        .env("TMPDIR", &sb.tmp)
        .args(["batch", "queue", "--output-jsonl", "out.jsonl"])
        .output()
        .expect("runs");
    let out = std::fs::read_to_string(sb.root.join("out.jsonl")).expect("out");
    assert!(out.contains("\"id\":\"fifo\"") && out.contains("\"exitCode\":2"), "{out} {}", stderr(&o));
    std::fs::write(sb.root.join("keep.txt"), "the journal's notes").expect("keep");
    std::os::unix::fs::symlink("keep.txt", sb.root.join("link.jsonl")).expect("link");
    let o = sb.run(&["batch", "queue", "--output-jsonl", "link.jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(sb.root.join("keep.txt")).expect("keep"), "the journal's notes");
}

/// Red team, second pass: what "verify every candidate" must not break. A science repository
/// given twice (a clone and its bundle, the same `HEAD`) is paired with the ledger once and
/// both count as paired; a deployed ledger's `CYCLE-NNNNNN` folders are not ledgers of their
/// own; a bundle whose tree asks for CRLF line ends checks out the committed bytes; a
/// Proof-or-Stop repository's own live state (`.proof-or-stop/`) is no record.
#[test]
fn honest_layouts_stay_verified() {
    let sb = sandbox();
    let twice = sb.root.join("twice");
    support::copy_dir(&sb.side, &twice);
    bundle(&twice.join("science"), &twice.join("science.bundle"));
    let o = sb.run(&["verify", "twice", "--verified-at", AT, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let deployed = sb.root.join("deployed");
    support::copy_dir(&sb.side, &deployed);
    support::copy_dir(&support::root().join("ledger-fixtures/deployed-clean"), &deployed.join("ledger"));
    let r = json(&sb.run(&["verify", "deployed", "--verified-at", AT, "--format", "json"]));
    let names: Vec<String> = records(&r).into_iter().map(|(n, _)| n).collect();
    assert!(names.iter().all(|n| !n.contains("CYCLE-")), "{names:?}");
    let crlf = sb.root.join("crlf");
    std::fs::create_dir_all(&crlf).expect("dir");
    support::git(&crlf, &["init", "--quiet", "-b", "main"]);
    support::copy_dir(&support::root().join("test-vectors/crossexam/real/clean-two-seat/_Msg"), &crlf.join("_Msg"));
    std::fs::write(crlf.join(".gitattributes"), "*.jsonl text eol=crlf\n").expect("attributes");
    commit_all(&crlf);
    let direct = exit_of(&sb, &["verify", "--submission", "crlf", "--verified-at", AT]).0;
    bundle(&crlf, &sb.root.join("crlf.bundle"));
    assert_eq!(exit_of(&sb, &["verify", "crlf.bundle", "--verified-at", AT]).0, direct);
    let pos = support::root().join("test-vectors/intake/pos-self-declared");
    let live = sb.root.join("live");
    support::copy_dir(&pos.join("evidence"), &live.join("evidence"));
    support::git(&sb.root, &["clone", "--quiet", pos.join("golden.git").to_str().expect("UTF-8"), "live/project"]);
    let store = support::root().join("test-vectors/proof-or-stop/keys/trust-store.json");
    let args = ["verify", "--submission", "live", "--trust-store", store.to_str().expect("UTF-8"), "--verified-at", AT];
    let (code, e) = exit_of(&sb, &args);
    assert_eq!(code, Some(0), "{e}");
}

/// Red team, third pass: a bundle's checkout is charged to the budget before git writes it
/// (before: a 1 MB bundle of one 1 GiB file wrote it all, then was refused); and a bundle with
/// no `HEAD` that a ledger was verified with is paired, not "unresolved" (before: exit 3).
#[test]
fn a_bundle_checkout_is_budgeted_first_and_a_headless_bundle_still_pairs() {
    let sb = sandbox();
    let big = sb.root.join("big");
    std::fs::create_dir_all(&big).expect("dir");
    support::git(&big, &["init", "--quiet", "-b", "main"]);
    std::fs::write(big.join("a.bin"), vec![b'a'; 4 << 20]).expect("file");
    commit_all(&big);
    bundle(&big, &sb.root.join("big.bundle"));
    let work = tempfile::tempdir().expect("work");
    let limits = crossverify::intake::Limits { max_bytes: 1 << 20, ..crossverify::intake::Limits::default() };
    let got = crossverify::intake::receive(
        &[sb.root.join("big.bundle")],
        work.path(),
        limits,
        crossverify::progress::Ctx::silent(),
    );
    let e = got.expect_err("over the budget");
    assert!(matches!(e.kind, crossverify::intake::RefusalKind::Limit { .. }), "{e}");
    let written: u64 = walk_sizes(work.path());
    assert!(written < 1 << 20, "{written} bytes written before the refusal");
    let headless = sb.root.join("headless");
    std::fs::create_dir_all(&headless).expect("dir");
    bundle(&sb.bare.join("audit"), &headless.join("audit.bundle"));
    let sci = headless.join("science.bundle");
    support::git(&sb.bare.join("science"), &["bundle", "create", sci.to_str().expect("UTF-8"), "refs/heads/main"]);
    let (code, e) = exit_of(&sb, &["verify", "headless", "--verified-at", AT]);
    assert_eq!(code, Some(0), "{e}");
}

fn walk_sizes(dir: &Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(dir).expect("dir").filter_map(Result::ok) {
        let m = std::fs::symlink_metadata(e.path()).expect("meta");
        total += if m.is_dir() { walk_sizes(&e.path()) } else { m.len() };
    }
    total
}

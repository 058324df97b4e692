//! Issue 24, a journal's submission: archives, bundles and folders built the way authors make
//! them from the demo fixture ledger, each verified in one report with its certificate and
//! signed summary; and hostile archives, each refused (exit 2) naming the member and the
//! reason, with nothing written outside the private work directory.

use crate::support;

mod hostile;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// The verification time every run here records.
const AT: &str = "2026-12-02T00:00:00Z";

/// A sandbox: clones (work trees with `.git`) of the demo fixture's `science` and `audit`
/// side by side in `side/`, the bare repositories minted in `bare/`, and a `tmp/` that the
/// binary is told to use as its temporary directory.
struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    side: PathBuf,
    bare: PathBuf,
    tmp: PathBuf,
}

fn sandbox() -> Sandbox {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().to_owned();
    let built = support::materialize("demo", &root.join("build"));
    let bare = root.join("bare");
    std::fs::rename(&built, &bare).expect("move the fixture");
    let side = root.join("side");
    std::fs::create_dir(&side).expect("side");
    for name in ["science", "audit"] {
        let from = bare.join(name);
        support::git(&side, &["clone", "--quiet", "--no-hardlinks", from.to_str().expect("UTF-8"), name]);
    }
    let tmp = root.join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    Sandbox { _dir: dir, root, side, bare, tmp }
}

impl Sandbox {
    /// `crossverify ARGS` with `TMPDIR` in the sandbox, run in the sandbox.
    fn run(&self, args: &[&str]) -> Output {
        support::crossverify().current_dir(&self.root).env("TMPDIR", &self.tmp).args(args).output().expect("runs")
    }

    /// The private work directory was removed: the sandbox's temporary directory is empty.
    fn assert_tmp_empty(&self) {
        let left: Vec<_> =
            std::fs::read_dir(&self.tmp).expect("tmp").filter_map(Result::ok).map(|e| e.path()).collect();
        assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("JSON report: {e}; stderr: {}", stderr(o)))
}

/// Every file below `dir`, relative, sorted (symlinks as themselves).
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").filter_map(Result::ok) {
            let p = e.path();
            if e.file_type().expect("type").is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).expect("below").to_owned());
            }
        }
    }
    out.sort();
    out
}

/// A zip of every file below `dir` under `prefix/`, with a pinned time.
fn zip_dir(dir: &Path, prefix: &str, out: &Path) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(out).expect("zip"));
    let opts = zip::write::SimpleFileOptions::default()
        .last_modified_time(zip::DateTime::from_date_and_time(2026, 1, 2, 3, 4, 5).expect("date"));
    for rel in files_below(dir) {
        w.start_file(format!("{prefix}/{}", rel.display()), opts).expect("member");
        w.write_all(&std::fs::read(dir.join(&rel)).expect("read")).expect("write");
    }
    w.finish().expect("finish zip");
}

/// A `.tar.gz` of every file below `dir` under `prefix/`, with a pinned time.
fn tar_gz_dir(dir: &Path, prefix: &str, out: &Path) {
    let gz = flate2::write::GzEncoder::new(std::fs::File::create(out).expect("tgz"), flate2::Compression::default());
    let mut b = tar::Builder::new(gz);
    for rel in files_below(dir) {
        let data = std::fs::read(dir.join(&rel)).expect("read");
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(1_767_323_045);
        b.append_data(&mut h, format!("{prefix}/{}", rel.display()), data.as_slice()).expect("member");
    }
    b.into_inner().expect("tar").finish().expect("gzip");
}

fn bundle(repo: &Path, out: &Path) {
    support::git(repo, &["bundle", "create", out.to_str().expect("UTF-8"), "--all"]);
}

/// The expectations every accepted submission meets: one CrossAudit ledger record paired with
/// the science repository, its verdict the one `ledger` gives, no work path in the report.
fn assert_paired(sb: &Sandbox, o: &Output, want_exit: i32) -> Value {
    assert_eq!(o.status.code(), Some(want_exit), "stderr: {}", stderr(o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("crossverify-submission-"), "a work path leaked into the report");
    let r = json(o);
    assert_eq!(r["command"], "submission");
    let records = r["records"].as_array().expect("records");
    let ledger = records
        .iter()
        .find(|x| x["what"].as_str().is_some_and(|w| w.contains("CrossAudit ledger")))
        .expect("the ledger");
    let paired = ledger["pairedWith"].as_array().expect("paired");
    assert!(paired.iter().any(|p| p.as_str().is_some_and(|p| p.contains("science"))), "{ledger}");
    let n001: Vec<&Value> =
        r["results"].as_array().expect("results").iter().filter(|x| x["code"] == "CV-N001").collect();
    assert!(n001.iter().all(|x| x["outcome"] == "passed"), "{n001:?}");
    sb.assert_tmp_empty();
    r
}

#[test]
fn submissions_as_authors_send_them_are_verified_in_one_report() {
    let sb = sandbox();
    let ledger = sb.run(&["ledger", "--audit", "side/audit", "--science", "side/science", "--format", "json"]);
    let want = ledger.status.code().expect("exit");
    assert!(matches!(want, 0 | 1 | 3), "{}", stderr(&ledger));
    let ledger = json(&ledger);
    zip_dir(&sb.side, "paper-1234", &sb.root.join("submission.zip"));
    tar_gz_dir(&sb.side, "paper-1234", &sb.root.join("submission.tar.gz"));
    std::fs::create_dir(sb.root.join("bundles")).expect("dir");
    bundle(&sb.side.join("science"), &sb.root.join("bundles/science.bundle"));
    bundle(&sb.side.join("audit"), &sb.root.join("bundles/audit.bundle"));
    let cases: [&[&str]; 6] = [
        &["side"],
        &["bare"],
        &["submission.zip"],
        &["submission.tar.gz"],
        &["bundles/science.bundle", "bundles/audit.bundle"],
        &["bundles"],
    ];
    for inputs in cases {
        let mut args = vec!["verify"];
        args.extend_from_slice(inputs);
        args.extend(["--verified-at", AT, "--format", "json", "--certificate", "cert.html"]);
        let o = sb.run(&args);
        let r = assert_paired(&sb, &o, want);
        // The record's own results are the ledger's, under the record's name.
        let ledger_codes: std::collections::BTreeSet<&str> =
            ledger["results"].as_array().expect("results").iter().filter_map(|x| x["code"].as_str()).collect();
        let codes: std::collections::BTreeSet<&str> = r["results"]
            .as_array()
            .expect("results")
            .iter()
            .filter_map(|x| x["code"].as_str())
            .filter(|c| !c.starts_with("CV-N"))
            .collect();
        assert_eq!(codes, ledger_codes, "{inputs:?}");
        let received = r["received"]["items"].as_array().expect("items");
        for item in received.iter().filter(|i| i["kind"] != "directory") {
            let sha = item["sha256"].as_str().expect("sha256");
            assert_eq!(sha.len(), 64, "{item}");
        }
        let heads = r["received"]["repositories"].as_array().expect("repositories");
        assert_eq!(heads.len(), 2, "{inputs:?}: {heads:?}");
        let cert = std::fs::read_to_string(sb.root.join("cert.html")).expect("certificate");
        assert!(cert.contains(ledger["outcome"].as_str().expect("outcome").to_uppercase().as_str()), "{inputs:?}");
        for h in heads {
            assert!(cert.contains(h["head"].as_str().expect("head")), "the certificate names each commit");
        }
    }
}

/// The claims figure the demo ledger gives, and a wrong one: the claims check runs against the
/// paired ledger and the wrong figure fails (exit 1), named in the certificate.
#[test]
fn a_claims_file_is_checked_against_the_paired_ledger() {
    let sb = sandbox();
    let stats = json(&sb.run(&["stats", "side/audit", "--science", "side/science", "--format", "json"]));
    let cycles = stats["stats"]["cycles"].as_u64().expect("cycles");
    std::fs::write(sb.side.join("claims.toml"), format!("\"/cycles\" = {cycles}\n")).expect("claims");
    let o = sb.run(&["verify", "side", "--verified-at", AT, "--format", "json"]);
    let r = json(&o);
    let claim = r["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|x| x["code"].as_str().is_some_and(|c| c.starts_with("CV-S")) && x["outcome"] == "passed");
    assert!(claim.is_some(), "the stated figure is checked: {}", r["records"]);
    std::fs::write(sb.side.join("claims.toml"), format!("\"/cycles\" = {}\n", cycles + 5)).expect("claims");
    zip_dir(&sb.side, "p", &sb.root.join("wrong.zip"));
    let o = sb.run(&["verify", "wrong.zip", "--verified-at", AT, "--format", "json", "--certificate", "c.html"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let cert = std::fs::read_to_string(sb.root.join("c.html")).expect("certificate");
    assert!(cert.contains("Claims check") && cert.contains("/cycles"), "the certificate shows the claims check");
    sb.assert_tmp_empty();
}

/// The work trees of both repositories without `.git`, as a release download holds them.
fn release_trees(sb: &Sandbox) -> PathBuf {
    let trees = sb.root.join("release");
    for name in ["science", "audit"] {
        for rel in files_below(&sb.side.join(name)).into_iter().filter(|r| !r.starts_with(".git")) {
            let to = trees.join(format!("{name}-1.0")).join(&rel);
            std::fs::create_dir_all(to.parent().expect("parent")).expect("dir");
            std::fs::copy(sb.side.join(name).join(&rel), &to).expect("copy");
        }
    }
    trees
}

#[test]
fn a_release_download_without_git_gets_the_bundle_command() {
    let sb = sandbox();
    let trees = release_trees(&sb);
    tar_gz_dir(&trees, "release", &sb.root.join("release.tar.gz"));
    let o = sb.run(&["verify", "release.tar.gz", "--verified-at", AT]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("cannot be verified from git objects"), "{e}");
    for repo in ["science-1.0", "audit-1.0"] {
        assert!(e.contains(&format!("in the clone of {repo}: `git bundle create {repo}.bundle --all`")), "{e}");
    }
    sb.assert_tmp_empty();
}

#[test]
fn a_shallow_clone_inside_an_archive_is_named_with_the_fix() {
    let sb = sandbox();
    let shallow = sb.root.join("shallow");
    std::fs::create_dir(&shallow).expect("dir");
    let url = format!("file://{}", sb.bare.join("science").display());
    support::git(&shallow, &["clone", "--quiet", "--depth", "1", &url, "science"]);
    support::copy_dir(&sb.bare.join("audit"), &shallow.join("audit"));
    zip_dir(&shallow, "s", &sb.root.join("shallow.zip"));
    let o = sb.run(&["verify", "shallow.zip", "--verified-at", AT]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("shallow.zip/s/science: a shallow clone"), "{e}");
    assert!(e.contains("git fetch --unshallow") && e.contains("git bundle create science.bundle --all"), "{e}");
    sb.assert_tmp_empty();
}

/// A tar archive written header by header, so that names `tar::Builder` refuses to write
/// (`..`, absolute) can be built.
fn raw_tar(entries: &[(&str, tar::EntryType, &str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, kind, link, data) in entries {
        let mut h = tar::Header::new_ustar();
        let raw = &mut h.as_old_mut().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        h.set_entry_type(*kind);
        h.set_mode(0o644);
        h.set_mtime(1_767_323_045);
        h.set_size(data.len() as u64);
        if !link.is_empty() {
            h.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
        }
        h.set_cksum();
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}

/// Each hostile archive is refused with exit 2, naming the member and the reason, leaving
/// nothing outside the private work directory (which is removed).
#[test]
fn hostile_archives_are_refused_naming_the_member() {
    use tar::EntryType::{Block, Char, Fifo, Link, Regular, Symlink};
    let sb = sandbox();
    let ok: &[u8] = b"x";
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        ("traversal.tar", raw_tar(&[("../evil", Regular, "", ok)]), "\"../evil\"", "`..` component"),
        ("absolute.tar", raw_tar(&[("/tmp/evil-abs", Regular, "", ok)]), "\"/tmp/evil-abs\"", "an absolute path"),
        (
            "symlink-out.tar",
            raw_tar(&[("a/link", Symlink, "../../outside", b"")]),
            "\"a/link\"",
            "leaves the archive's tree",
        ),
        ("symlink-abs.tar", raw_tar(&[("link", Symlink, "/etc", b"")]), "\"link\"", "absolute path"),
        (
            "through-link.tar",
            raw_tar(&[("d", Symlink, "e", b""), ("d/f", Regular, "", ok)]),
            "\"d/f\"",
            "below the symlink",
        ),
        ("hardlink-out.tar", raw_tar(&[("h", Link, "../etc/passwd", b"")]), "\"h\"", "hard link"),
        ("hardlink-none.tar", raw_tar(&[("h", Link, "nothing", b"")]), "\"h\"", "not a file unpacked before it"),
        ("chardev.tar", raw_tar(&[("null", Char, "", b"")]), "\"null\"", "character device"),
        ("blockdev.tar", raw_tar(&[("sda", Block, "", b"")]), "\"sda\"", "block device"),
        ("fifo.tar", raw_tar(&[("pipe", Fifo, "", b"")]), "\"pipe\"", "FIFO"),
        ("duplicate.tar", raw_tar(&[("a/f", Regular, "", ok), ("a/f", Regular, "", ok)]), "\"a/f\"", "appears twice"),
        (
            "case.tar",
            raw_tar(&[("README", Regular, "", ok), ("readme", Regular, "", ok)]),
            "\"readme\"",
            "only in case",
        ),
        (
            "truncated.tar.gz",
            gzip(&raw_tar(&[("big", Regular, "", &[7u8; 5000])])).get(..60).expect("cut").to_vec(),
            "\"",
            "truncated",
        ),
    ];
    for (name, bytes, member, reason) in cases {
        std::fs::write(sb.root.join(name), &bytes).expect("archive");
        let before = files_below(&sb.root);
        let o = sb.run(&["verify", name, "--verified-at", AT]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert!(e.contains(&format!("{name}: member {member}")) || (member == "\"" && e.contains(name)), "{name}: {e}");
        assert!(e.contains(reason), "{name}: {e}");
        assert_eq!(files_below(&sb.root), before, "{name}: something was written outside the work directory");
        assert!(!Path::new("/tmp/evil-abs").exists() && !sb.root.parent().expect("parent").join("evil").exists());
        sb.assert_tmp_empty();
    }
}

/// Zip versions of the name checks, a truncated zip, and both bombs: refused in bounded time.
#[test]
fn zip_hostile_members_and_bombs_are_refused_in_bounded_time() {
    let sb = sandbox();
    let zip_of = |path: &Path, members: &[(&str, u64)]| {
        let mut w = zip::ZipWriter::new(std::fs::File::create(path).expect("zip"));
        let opts = zip::write::SimpleFileOptions::default().large_file(true);
        for (name, zeros) in members {
            w.start_file(*name, opts).expect("member");
            std::io::copy(&mut std::io::repeat(0).take(*zeros), &mut w).expect("write");
        }
        w.finish().expect("finish");
    };
    use std::io::Read as _;
    zip_of(&sb.root.join("zip-traversal.zip"), &[("../evil", 1)]);
    zip_of(&sb.root.join("zip-case.zip"), &[("a/Name", 1), ("a/name", 1)]);
    zip_of(&sb.root.join("zip-bomb.zip"), &[("zeros", 1 << 30)]);
    let whole = std::fs::read(sb.root.join("zip-traversal.zip")).expect("zip");
    std::fs::write(sb.root.join("zip-truncated.zip"), whole.get(..whole.len() / 2).expect("cut")).expect("cut");
    let tar_bomb = sb.root.join("gzip-bomb.tar.gz");
    {
        let gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&tar_bomb).expect("tgz"),
            flate2::Compression::default(),
        );
        let mut b = tar::Builder::new(gz);
        let mut h = tar::Header::new_gnu();
        h.set_size(1 << 30);
        h.set_mode(0o644);
        b.append_data(&mut h, "zeros", std::io::repeat(0).take(1 << 30)).expect("member");
        b.into_inner().expect("tar").finish().expect("gzip");
    }
    let cases = [
        ("zip-traversal.zip", "\"../evil\"", "`..` component"),
        ("zip-case.zip", "\"a/name\"", "only in case"),
        ("zip-truncated.zip", "\"(the central directory)\"", "not a readable zip archive"),
        ("zip-bomb.zip", "\"zeros\"", "a zip bomb"),
        ("gzip-bomb.tar.gz", "\"zeros\"", "a gzip bomb"),
    ];
    let mut figures = String::from("# Hostile zip and gzip archives: time to refusal (debug build)\n\n");
    for (name, member, reason) in cases {
        let started = std::time::Instant::now();
        let o = sb.run(&["verify", name, "--verified-at", AT]);
        let took = started.elapsed();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert!(e.contains(&format!("{name}: member {member}")) && e.contains(reason), "{name}: {e}");
        // 1 GiB of zeros is refused after at most the slack and the ratio's allowance.
        assert!(took < std::time::Duration::from_secs(60), "{name}: {took:?}");
        figures.push_str(&format!(
            "- {name} ({} bytes): refused in {took:.2?}\n",
            std::fs::metadata(sb.root.join(name)).expect("size").len()
        ));
        sb.assert_tmp_empty();
    }
    let artifacts = support::root().join("target/test-artifacts");
    std::fs::create_dir_all(&artifacts).expect("artifacts");
    std::fs::write(artifacts.join("intake-bombs.md"), figures).expect("figures");
}

fn write_keys(dir: &Path) -> (PathBuf, PathBuf) {
    let key = crossverify_fixtures::signing::TestKey::named("journal-editor");
    let (private, public) = (dir.join("editor_ed25519"), dir.join("editor_ed25519.pub"));
    std::fs::write(&private, key.private_openssh()).expect("key");
    std::fs::write(&public, format!("{}\n", key.public_openssh())).expect("key");
    (private, public)
}

/// The certificate's signed summary is a SLSA VSA v1 statement naming the certificate's
/// digest; `attest` verifies it and `attest --replay` derives the same bytes.
#[test]
fn the_verification_summary_is_a_vsa_that_attest_verifies_and_replays() {
    let sb = sandbox();
    zip_dir(&sb.side, "paper", &sb.root.join("submission.zip"));
    let (private, public) = write_keys(&sb.root);
    let (private, public) = (private.to_str().expect("UTF-8"), public.to_str().expect("UTF-8"));
    let o = sb.run(&[
        "verify",
        "submission.zip",
        "--verified-at",
        AT,
        "--certificate",
        "certificate.html",
        "--sign-report",
        private,
        "--attestation",
        "report.dsse.json",
        "--vsa",
        "vsa.dsse.json",
        "--format",
        "json",
    ]);
    let verdict = json(&o);
    let envelope: Value =
        serde_json::from_slice(&std::fs::read(sb.root.join("vsa.dsse.json")).expect("vsa")).expect("JSON");
    assert_eq!(envelope["payloadType"], "application/vnd.in-toto+json");
    let payload =
        crossverify::trust::dsse::decode_base64(envelope["payload"].as_str().expect("payload")).expect("base64");
    let st: Value = serde_json::from_slice(&payload).expect("statement");
    assert_eq!(st["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(st["predicateType"], "https://slsa.dev/verification_summary/v1");
    let cert = std::fs::read(sb.root.join("certificate.html")).expect("certificate");
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&cert));
    assert_eq!(st["subject"][0]["name"], "certificate.html");
    assert_eq!(st["subject"][0]["digest"]["sha256"], digest.as_str());
    let p = &st["predicate"];
    assert!(p["verifier"]["id"].as_str().is_some_and(|s| s.starts_with("https://")));
    assert_eq!(p["timeVerified"], AT);
    assert_eq!(p["resourceUri"], "submission.zip");
    assert!(p["policy"]["uri"].as_str().is_some_and(|s| s.starts_with("https://")));
    let passed = verdict["outcome"] == "verified";
    assert_eq!(p["verificationResult"], if passed { "PASSED" } else { "FAILED" });
    assert!(p["verifiedLevels"].is_array());
    assert!(st["subject"].as_array().expect("subject").iter().any(|s| s["digest"]["gitCommit"].is_string()));
    for envelope in ["vsa.dsse.json", "report.dsse.json"] {
        let o = sb.run(&["attest", envelope, "--trusted-key", public, "--replay", "--format", "json"]);
        let r = json(&o);
        assert_eq!(o.status.code(), Some(0), "{envelope}: {}", r["results"]);
        let replay =
            r["results"].as_array().expect("results").iter().find(|x| x["code"] == "CV-T103").expect("CV-T103");
        assert_eq!(replay["outcome"], "passed", "{envelope}: {replay}");
    }
    // A changed certificate time is another statement: the replay of a tampered one fails.
    let other = sb.run(&["attest", "vsa.dsse.json", "--trusted-key", private, "--format", "json"]);
    assert_eq!(other.status.code(), Some(2), "a private key is not a public key: {}", stderr(&other));
    sb.assert_tmp_empty();
}

#[test]
fn a_queue_of_submissions_gives_one_line_and_one_certificate_each_and_resumes() {
    let sb = sandbox();
    let queue = sb.root.join("queue");
    std::fs::create_dir(&queue).expect("queue");
    zip_dir(&sb.side, "paper", &queue.join("paper-1.zip"));
    tar_gz_dir(&sb.side, "paper", &queue.join("paper-2.tar.gz"));
    tar_gz_dir(&release_trees(&sb), "release", &queue.join("paper-3.tar.gz"));
    let out = sb.root.join("results.jsonl");
    let args = ["batch", "queue", "--output-jsonl", "results.jsonl", "--certificates", "certs"];
    let first = sb.run(&args);
    assert!(matches!(first.status.code(), Some(0 | 1 | 3)), "{}", stderr(&first));
    let lines: Vec<Value> =
        std::fs::read_to_string(&out).expect("out").lines().map(|l| serde_json::from_str(l).expect("line")).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["exitCode"], 2, "a release download cannot be verified: {}", lines[2]);
    for l in &lines[..2] {
        let cert = sb.root.join(l["certificate"].as_str().expect("certificate"));
        assert!(cert.is_file(), "{l}");
    }
    let again = sb.run(&args);
    assert_eq!(again.status.code(), Some(2), "an output with lines needs --resume");
    let mut resume = args.to_vec();
    resume.push("--resume");
    let resumed = sb.run(&resume);
    assert_eq!(resumed.status.code(), first.status.code(), "{}", stderr(&resumed));
    let after = std::fs::read_to_string(&out).expect("out").lines().count();
    assert_eq!(after, 4, "two kept, the one that could not run verified again");
    sb.assert_tmp_empty();
}

/// The certificate in a real browser: it loads nothing and Chromium logs no failure.
#[test]
fn the_certificate_renders_offline_in_chromium() {
    let Some(chromium) = crate::tools::require("chromium", crate::tools::chromium()) else { return };
    let sb = sandbox();
    let o = sb.run(&["verify", "side", "--verified-at", AT, "--certificate", "certificate.html", "--format", "json"]);
    assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{}", stderr(&o));
    let page = sb.root.join("certificate.html");
    let png = support::root().join("target/test-artifacts/certificate.png");
    std::fs::create_dir_all(png.parent().expect("dir")).expect("artifacts");
    let loaded = crate::html_chromium::load(&chromium, &page, Some(&png));
    assert!(crate::html_chromium::load_failures(&loaded.log).is_empty(), "{}", loaded.log);
    assert!(loaded.dom.contains("What was received") && loaded.dom.contains("Records and their verdicts"));
}

/// The CV-N101 vectors' envelopes under `test-vectors/intake/`: the demo fixture's summary,
/// and the same statement with `verificationResult` "MAYBE", both signed by the editor's
/// test key. `CROSSVERIFY_UPDATE_VECTORS=1` writes them again; otherwise this checks that
/// both are signed by that key and that only the second is malformed.
#[test]
fn the_summary_vectors_are_signed_by_the_editor_key() {
    use crossverify::trust::dsse::{Envelope, IN_TOTO_PAYLOAD_TYPE};
    let dir = support::root().join("test-vectors/intake");
    let key = crossverify_fixtures::signing::TestKey::named("journal-editor");
    let signing = crossverify::trust::ed25519::SigningKey::from_openssh_private(&key.private_openssh()).expect("key");
    let (good, bad) = (dir.join("vsa.dsse.json"), dir.join("vsa-malformed.dsse.json"));
    if std::env::var_os("CROSSVERIFY_UPDATE_VECTORS").is_some() {
        let sb = sandbox();
        let (private, _) = write_keys(&sb.root);
        let o = sb.run(&[
            "verify",
            "side",
            "--verified-at",
            AT,
            "--sign-report",
            private.to_str().expect("UTF-8"),
            "--attestation",
            "r.json",
            "--vsa",
            "vsa.json",
            "--quiet",
        ]);
        assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{}", stderr(&o));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::copy(sb.root.join("vsa.json"), &good).expect("copy");
        std::fs::write(dir.join("editor_ed25519.pub"), format!("{}\n", key.public_openssh())).expect("key");
        let env = Envelope::parse(&std::fs::read(&good).expect("vsa")).expect("envelope");
        let mut st: Value = serde_json::from_slice(&env.payload).expect("statement");
        st["predicate"]["verificationResult"] = "MAYBE".into();
        let payload = crossverify::anchors::reports::payload_bytes(&st);
        std::fs::write(&bad, Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &payload, &signing).to_json()).expect("write");
    }
    for (file, malformed) in [(&good, false), (&bad, true)] {
        let env = Envelope::parse(&std::fs::read(file).expect("vector")).expect("envelope");
        assert!(env.verify(&signing.public()).is_ok(), "{}", file.display());
        let (shape, _) = crossverify::submission::vsa::well_formed(&env, "v");
        assert_eq!(shape.outcome == crossverify::report::Outcome::Failed, malformed, "{}", file.display());
    }
}

/// The verdict the direct command gives, for comparison with a record's in a submission.
fn outcome_of(sb: &Sandbox, args: &[&str]) -> String {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    json(&sb.run(&a))["outcome"].as_str().expect("outcome").to_owned()
}

/// A submission holding records of all three protocols — a paired CrossAudit ledger, a
/// CrossExam transcript, Proof-or-Stop evidence beside its repository and trust store — gives
/// one report with each record verified by its own command, with the verdict that command
/// gives alone.
#[test]
fn records_of_every_protocol_are_found_and_verified_in_one_report() {
    let sb = sandbox();
    let vectors = support::root().join("test-vectors");
    support::copy_dir(&vectors.join("crossexam/real/clean-two-seat/_Msg"), &sb.side.join("debate/_Msg"));
    let pos = vectors.join("proof-or-stop");
    support::copy_dir(&pos.join("repos/golden.git"), &sb.side.join("pos/golden.git"));
    support::copy_dir(&pos.join("floor/full-quorum"), &sb.side.join("pos/evidence"));
    // The live configuration beside the evidence, as the floor command reads it.
    for f in ["policy.json", "command-set.json", "scope.json"] {
        std::fs::copy(pos.join("config").join(f), sb.side.join("pos/evidence").join(f)).expect("config");
    }
    std::fs::copy(pos.join("keys/trust-store.json"), sb.side.join("pos/trust-store.json")).expect("trust store");
    let o = sb.run(&["verify", "side", "--verified-at", AT, "--format", "json"]);
    let r = json(&o);
    let records = r["records"].as_array().expect("records");
    let find = |what: &str| {
        records
            .iter()
            .find(|x| x["what"].as_str().is_some_and(|w| w.contains(what)))
            .unwrap_or_else(|| panic!("no {what} record in {records:?}"))
    };
    let transcript = find("CrossExam transcript");
    assert_eq!(transcript["outcome"], outcome_of(&sb, &["transcript", "side/debate/_Msg"]).as_str());
    let evidence = find("Proof-or-Stop evidence directory");
    let paired: Vec<&str> =
        evidence["pairedWith"].as_array().expect("paired").iter().filter_map(Value::as_str).collect();
    assert_eq!(paired, ["side/pos/golden.git", "side/pos/trust-store.json"], "{evidence}");
    let direct = outcome_of(
        &sb,
        &["floor", "side/pos/evidence", "--repo", "side/pos/golden.git", "--trust-store", "side/pos/trust-store.json"],
    );
    assert_eq!(evidence["outcome"], direct.as_str(), "{evidence}");
    assert_eq!(direct, "verified");
    let ledger = find("CrossAudit ledger");
    assert!(ledger["pairedWith"].as_array().is_some_and(|p| p.iter().any(|x| x == "side/science")), "{ledger}");
    sb.assert_tmp_empty();
}

/// `--science` beside a submission is refused (exit 2) with the command that adds it to the
/// submission: the pairing comes from the receipts, never from a flag that could point elsewhere.
#[test]
fn science_beside_a_submission_is_refused_with_the_command() {
    let sb = sandbox();
    let o = sb.run(&["verify", "side", "--science", "bare/science", "--verified-at", AT]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("`crossverify verify side bare/science`"), "{}", stderr(&o));
    sb.assert_tmp_empty();
}

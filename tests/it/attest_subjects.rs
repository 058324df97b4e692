//! Issue 47, `attest`: the files a verification summary names are hashed beside it and compared
//! (CV-N102), and `attest --replay` run from another directory resolves the recorded paths
//! against the attestation's own directory or names the path it needs (exit 2). The journal's
//! lines are read from docs/guide.md's Quick start 2 and run as written; the hostile cases are
//! statements signed by the trusted key whose subject names are someone else's input.
//! `CROSSVERIFY_UPDATE_VECTORS=1 cargo test --test it attest_subjects::` rewrites the envelopes
//! and files under `test-vectors/intake/journal*/` the CV-N102 vectors check.

use crate::support;

use std::path::Path;

use crossverify::trust::dsse::{Envelope, IN_TOTO_PAYLOAD_TYPE};
use crossverify_fixtures::signing::TestKey;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

fn editor() -> TestKey {
    TestKey::named("journal-editor")
}

/// The command lines of the guide's Quick start 2 (continuations joined).
fn guide_lines() -> Vec<String> {
    let guide = std::fs::read_to_string(support::root().join("docs/guide.md")).expect("guide");
    let start = guide.find("## Quick start 2").expect("Quick start 2");
    let rest = &guide[start..];
    let section = &rest[..rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3)];
    let mut lines = Vec::new();
    let (mut inside, mut cur) = (false, String::new());
    for line in section.lines().map(str::trim) {
        if line == "```sh" {
            inside = true;
        } else if line == "```" {
            inside = false;
        } else if inside {
            match line.strip_suffix('\\') {
                Some(head) => cur.push_str(head),
                None => {
                    cur.push_str(line);
                    lines.push(cur.split_whitespace().collect::<Vec<_>>().join(" "));
                    cur.clear();
                }
            }
        }
    }
    lines
}

/// The guide's line starting with `prefix`, split into words with `subst` applied to each.
fn guide_line(prefix: &str, subst: &[(&str, String)]) -> Vec<String> {
    let line =
        guide_lines().into_iter().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no `{prefix}` line"));
    line.split_whitespace()
        .skip(1)
        .map(|w| subst.iter().find(|(from, _)| *from == w).map_or_else(|| w.to_owned(), |(_, to)| to.clone()))
        .collect()
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|_| panic!("no JSON report: {}", self.stderr))
    }
}

fn run(cwd: &Path, args: &[String], extra: &[&str]) -> Ran {
    let out = support::crossverify().current_dir(cwd).args(args).args(extra).output().expect("runs");
    Ran {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn results<'a>(r: &'a Value, code: &str) -> Vec<&'a Value> {
    r["results"].as_array().expect("results").iter().filter(|x| x["code"] == code).collect()
}

fn result<'a>(r: &'a Value, code: &str, subject: &str) -> &'a Value {
    results(r, code)
        .into_iter()
        .find(|x| x["subject"] == subject)
        .unwrap_or_else(|| panic!("no {code} result for {subject}: {}", r["results"]))
}

fn sha256_file(p: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(p).expect("read")))
}

/// The journal's folder as the guide has it: the authors' `submission.zip` (their two bundles
/// in a folder of their own) and the editor's key pair; then the guide's `verify` line run in it.
fn journal(dir: &Path) {
    std::fs::create_dir_all(dir).expect("dir");
    support::journal_folder(dir);
    let verify = run(dir, &guide_line("crossverify verify", &[]), &["--quiet"]);
    assert_eq!(verify.code, 0, "{}", verify.stderr);
    assert!(dir.join("certificate.html").is_file() && dir.join("certificate.vsa.json").is_file());
}

/// The issue's case: after signing, `certificate.html` is edited. `attest … --replay` said
/// VERIFIED (exit 0) and never showed the digest; now the edited certificate fails CV-N102 with
/// both digests in the JSON and the table, and a missing one is not checked (exit 3).
#[test]
fn the_guide_s_summary_fails_on_an_edited_certificate_and_shows_both_digests() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("journal");
    journal(&dir);
    let attest = guide_line("crossverify attest", &[]);
    let cert = dir.join("certificate.html");
    let signed = sha256_file(&cert);

    let good = run(&dir, &attest, &["--format", "json"]);
    let r = good.json();
    assert_eq!(good.code, 0, "{}", r["results"]);
    let c = result(&r, "CV-N102", "certificate.html");
    assert_eq!((c["outcome"].as_str(), c["evidence"]["recorded"].as_str()), (Some("passed"), Some(signed.as_str())));
    assert_eq!(c["evidence"]["computed"], signed.as_str());
    assert_eq!(result(&r, "CV-N102", "submission.zip")["outcome"], "passed");
    assert_eq!(result(&r, "CV-N102", "submission.zip/paper-1234/audit.bundle")["outcome"], "inapplicable");
    assert_eq!(result(&r, "CV-T103", "certificate.vsa.json")["outcome"], "passed");

    let mut edited = std::fs::read(&cert).expect("certificate");
    edited.extend_from_slice(b"<!-- edited after signing -->\n");
    std::fs::write(&cert, &edited).expect("edit");
    let now = hex::encode(Sha256::digest(&edited));
    let bad = run(&dir, &attest, &["--format", "json"]);
    let r = bad.json();
    assert_eq!(bad.code, 1, "{}", r["results"]);
    assert_eq!(r["outcome"], "failed");
    let c = result(&r, "CV-N102", "certificate.html");
    assert_eq!(c["outcome"], "failed", "{c}");
    assert_eq!((c["evidence"]["recorded"].as_str(), c["evidence"]["computed"].as_str()), (Some(&*signed), Some(&*now)));
    // The replay re-derives the report, not the file: it still matches, and does not hide this.
    assert_eq!(result(&r, "CV-T103", "certificate.vsa.json")["outcome"], "passed");
    let table = run(&dir, &attest, &[]);
    assert_eq!(table.code, 1);
    assert!(table.stdout.contains(&signed) && table.stdout.contains(&now), "{}", table.stdout);
    assert!(table.stdout.contains("FAILED"), "{}", table.stdout);

    std::fs::remove_file(&cert).expect("remove");
    let absent = run(&dir, &attest, &["--format", "json"]);
    let r = absent.json();
    assert_eq!(absent.code, 3, "{}", r["results"]);
    assert_eq!(r["outcome"], "inconclusive");
    let c = result(&r, "CV-N102", "certificate.html");
    assert_eq!(c["outcome"], "cantTell", "{c}");
    let says = |w: &str| c["message"].as_str().is_some_and(|m| m.contains(w));
    assert!(says("not checked") && says("written with --certificate"), "{c}");
    let table = run(&dir, &attest, &[]);
    assert!(!table.stdout.contains("VERIFIED"), "an absent certificate is never reported checked: {}", table.stdout);
}

/// `attest --replay` from another directory: the recorded `verify submission.zip` resolves
/// beside the attestation (it ran in the current directory and could not find it: CV-T103
/// `cantTell`, exit 3); an attestation away from its inputs names the path it needs (exit 2).
#[test]
fn the_guide_s_replay_runs_from_another_directory_or_names_what_it_needs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("journal");
    journal(&dir);
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("dir");
    let at = |f: &str| format!("../journal/{f}");
    for envelope in ["certificate.vsa.json", "verification.dsse.json"] {
        let subst = [("certificate.vsa.json", at(envelope)), ("editor_ed25519.pub", at("editor_ed25519.pub"))];
        let ran = run(&elsewhere, &guide_line("crossverify attest", &subst), &["--format", "json"]);
        let r = ran.json();
        assert_eq!(ran.code, 0, "{envelope}: {} {}", r["results"], ran.stderr);
        let replay = result(&r, "CV-T103", &at(envelope));
        assert_eq!(replay["outcome"], "passed", "{replay}");
        assert_eq!(replay["evidence"]["replayedIn"], "../journal (the attestation's directory)", "{replay}");
    }
    // The summary alone, away from the submission, replayed from a third place.
    let lonely = tmp.path().join("lonely");
    std::fs::create_dir(&lonely).expect("dir");
    std::fs::copy(dir.join("certificate.vsa.json"), lonely.join("certificate.vsa.json")).expect("copy");
    let subst = [
        ("certificate.vsa.json", "../lonely/certificate.vsa.json".to_owned()),
        ("editor_ed25519.pub", at("editor_ed25519.pub")),
    ];
    let ran = run(&elsewhere, &guide_line("crossverify attest", &subst), &["--format", "json"]);
    assert_eq!(ran.code, 2, "{}", ran.stdout);
    assert!(ran.stdout.is_empty(), "no verdict on a replay that lacked its input: {}", ran.stdout);
    for needle in ["needs `submission.zip`", "attestation's directory (../lonely)", "current directory"] {
        assert!(ran.stderr.contains(needle), "{needle}: {}", ran.stderr);
    }
}

/// A statement like `base` with `subject`, signed by the editor's key, written to `path`.
fn sign(base: &Value, subject: Value, path: &Path) {
    let mut st = base.clone();
    st["subject"] = subject;
    let key = crossverify::trust::ed25519::SigningKey::from_openssh_private(&editor().private_openssh()).expect("key");
    let payload = crossverify::anchors::reports::payload_bytes(&st);
    std::fs::write(path, Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &payload, &key).to_json()).expect("write");
}

fn statement(envelope: &Path) -> Value {
    let env = Envelope::parse(&std::fs::read(envelope).expect("envelope")).expect("DSSE");
    serde_json::from_slice(&env.payload).expect("statement")
}

/// A summary signed by the trusted key whose subject names are hostile: links (to the right
/// bytes), `..`, an absolute path, a FIFO (which would block a reader), a directory; each is
/// `cantTell` with why, none is read through. A file larger than any read cap is hashed as it
/// streams; another algorithm is `untested`; a repository `inapplicable`.
#[cfg(unix)]
#[test]
fn hostile_subject_names_are_refused_and_never_followed() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("journal");
    journal(&dir);
    let base = statement(&dir.join("certificate.vsa.json"));
    let att = tmp.path().join("att");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&att).expect("dir");
    std::fs::create_dir_all(&outside).expect("dir");
    std::fs::copy(dir.join("certificate.html"), outside.join("certificate.html")).expect("copy");
    std::fs::write(outside.join("secret.txt"), b"not the journal's\n").expect("write");
    let secret = sha256_file(&outside.join("secret.txt"));
    symlink("../outside/certificate.html", att.join("certificate.html")).expect("link");
    symlink("../outside", att.join("linked")).expect("link");
    std::fs::create_dir(att.join("dir")).expect("dir");
    let fifo = std::process::Command::new("mkfifo").arg(att.join("fifo")).status().expect("mkfifo runs");
    assert!(fifo.success());
    // Larger than the 64 MiB any envelope read is capped at; sparse, so cheap to write.
    let big = std::fs::File::create(att.join("big.bin")).expect("big");
    big.set_len((64 << 20) + 1).expect("size");
    drop(big);
    let big_sha = {
        let mut h = Sha256::new();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            h.update(&zeros);
        }
        h.update([0u8]);
        hex::encode(h.finalize())
    };
    let absolute = outside.join("secret.txt").to_str().expect("UTF-8").to_owned();
    let subject = json!([
        {"name": "certificate.html", "digest": {"sha256": sha256_file(&dir.join("certificate.html"))}},
        {"name": "../outside/secret.txt", "digest": {"sha256": secret}},
        {"name": absolute, "digest": {"sha256": secret}},
        {"name": "linked/secret.txt", "digest": {"sha256": secret}},
        {"name": "fifo", "digest": {"sha256": secret}},
        {"name": "dir", "digest": {"sha256": secret}},
        {"name": "big.bin", "digest": {"sha256": big_sha}},
        {"name": "notes.txt", "digest": {"sha512": "00"}},
        {"name": "paper/audit", "digest": {"gitCommit": "5d0d14f2161ee84169b3d42f7d2627d90c6402fd"}},
    ]);
    sign(&base, subject, &att.join("summary.dsse.json"));
    let key = dir.join("editor_ed25519.pub").to_str().expect("UTF-8").to_owned();
    let args: Vec<String> = ["attest", "att/summary.dsse.json", "--trusted-key", &key].map(str::to_owned).to_vec();
    let ran = run(tmp.path(), &args, &["--format", "json"]);
    let r = ran.json();
    assert_eq!(ran.code, 3, "{}", r["results"]);
    let says = |name: &str, outcome: &str, words: &str| {
        let x = result(&r, "CV-N102", name);
        assert_eq!(x["outcome"], outcome, "{name}: {x}");
        assert!(x["message"].as_str().is_some_and(|m| m.contains(words)), "{name}: {x}");
    };
    says("certificate.html", "cantTell", "symbolic link");
    says("../outside/secret.txt", "cantTell", "`..` component");
    says(&absolute, "cantTell", "an absolute name");
    says("linked/secret.txt", "cantTell", "symbolic link");
    says("fifo", "cantTell", "a FIFO");
    says("dir", "cantTell", "a directory");
    says("big.bin", "passed", &big_sha);
    says("notes.txt", "untested", "sha512");
    says("paper/audit", "inapplicable", "gitCommit");
    assert!(results(&r, "CV-N102").iter().all(|x| x["evidence"]["computed"].is_null() || x["subject"] == "big.bin"));

    // Statements no signer of ours writes are malformed, and their subjects are not read.
    let cert = sha256_file(&dir.join("certificate.html"));
    let cases = [
        (
            "twice.dsse.json",
            json!([{"name": "certificate.html", "digest": {"sha256": cert}},
                   {"name": "certificate.html", "digest": {"sha256": secret}}]),
            "named twice with different sha256 digests",
        ),
        (
            "short.dsse.json",
            json!([{"name": "certificate.html", "digest": {"sha256": cert}},
                   {"name": "submission.zip", "digest": {"sha256": "abc"}}]),
            "is not a digest of that kind",
        ),
        (
            "nameless.dsse.json",
            json!([{"name": "certificate.html", "digest": {"sha256": cert}}, {"digest": {"sha256": cert}}]),
            "has no name",
        ),
    ];
    for (file, subject, words) in cases {
        sign(&base, subject, &att.join(file));
        let args: Vec<String> = ["attest", &format!("att/{file}"), "--trusted-key", &key].map(str::to_owned).to_vec();
        let ran = run(tmp.path(), &args, &["--format", "json"]);
        let r = ran.json();
        assert_eq!(ran.code, 1, "{file}: {}", r["results"]);
        let shape = &results(&r, "CV-N101")[0];
        assert!(
            shape["outcome"] == "failed" && shape["message"].as_str().is_some_and(|m| m.contains(words)),
            "{shape}"
        );
        let subjects = results(&r, "CV-N102");
        assert!(subjects.len() == 1 && subjects[0]["outcome"] == "inapplicable", "{file}: {subjects:?}");
    }
}

/// The CV-N102 vectors' files: `journal/` is the guide's folder after its `verify` line (the
/// submission, its certificate and the summary), `journal-edited/` the same summary beside a
/// certificate edited after signing and no submission. Checked for what the vectors rely on;
/// `CROSSVERIFY_UPDATE_VECTORS=1` writes them again.
#[test]
fn the_subject_vectors_hold_what_they_claim() {
    let vectors = support::root().join("test-vectors/intake");
    let (good, edited) = (vectors.join("journal"), vectors.join("journal-edited"));
    if std::env::var_os("CROSSVERIFY_UPDATE_VECTORS").is_some() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("journal");
        journal(&dir);
        for (d, files) in [
            (&good, &["submission.zip", "certificate.html", "certificate.vsa.json"][..]),
            (&edited, &["certificate.vsa.json"][..]),
        ] {
            std::fs::create_dir_all(d).expect("dir");
            for f in files {
                std::fs::copy(dir.join(f), d.join(f)).expect("copy");
            }
        }
        let mut cert = std::fs::read(dir.join("certificate.html")).expect("certificate");
        cert.extend_from_slice(b"<!-- edited after signing -->\n");
        std::fs::write(edited.join("certificate.html"), cert).expect("write");
    }
    let vsa = std::fs::read(good.join("certificate.vsa.json")).expect("vector");
    assert_eq!(vsa, std::fs::read(edited.join("certificate.vsa.json")).expect("vector"), "one summary in both");
    let env = Envelope::parse(&vsa).expect("DSSE");
    let key = crossverify::trust::ed25519::SigningKey::from_openssh_private(&editor().private_openssh()).expect("key");
    assert!(env.verify(&key.public()).is_ok(), "signed by the editor's test key");
    let st: Value = serde_json::from_slice(&env.payload).expect("statement");
    let recorded = |name: &str| {
        st["subject"].as_array().expect("subject").iter().find(|s| s["name"] == name).expect(name)["digest"]["sha256"]
            .as_str()
            .expect("sha256")
            .to_owned()
    };
    assert_eq!(sha256_file(&good.join("certificate.html")), recorded("certificate.html"));
    assert_eq!(sha256_file(&good.join("submission.zip")), recorded("submission.zip"));
    assert_ne!(sha256_file(&edited.join("certificate.html")), recorded("certificate.html"));
}

/// A signed ledger report whose inputs were split between the attestation's directory and the
/// current directory: the replay runs in neither, and says what each place lacks (exit 2).
#[test]
fn a_replay_whose_inputs_are_split_names_what_each_place_lacks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let signed_in = tmp.path().join("signed");
    std::fs::create_dir(&signed_in).expect("dir");
    let dir = support::materialize("demo-signed", &signed_in);
    let key = TestKey::named("report-signer");
    std::fs::write(signed_in.join("signer"), key.private_openssh()).expect("key");
    std::fs::write(signed_in.join("signer.pub"), format!("{}\n", key.public_openssh())).expect("key");
    let args: Vec<String> = [
        "ledger",
        "--audit",
        "demo-signed/audit",
        "--science",
        "demo-signed/science",
        "--sign-report",
        "signer",
        "--attestation",
        "ledger.dsse.json",
    ]
    .map(str::to_owned)
    .to_vec();
    let signed = run(&signed_in, &args, &["--quiet"]);
    assert_eq!(signed.code, 0, "{}", signed.stderr);
    let attest: Vec<String> =
        ["attest", "../signed/ledger.dsse.json", "--trusted-key", "../signed/signer.pub", "--replay"]
            .map(str::to_owned)
            .to_vec();
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("demo-signed")).expect("dir");
    let ran = run(&elsewhere, &attest, &["--format", "json"]);
    assert_eq!(ran.code, 0, "beside the attestation: {}", ran.stderr);
    std::fs::rename(dir.join("science"), elsewhere.join("demo-signed/science")).expect("move");
    let ran = run(&elsewhere, &attest, &["--format", "json"]);
    assert_eq!(ran.code, 2, "{}", ran.stdout);
    for needle in [
        "needs its inputs in one place",
        "the attestation's directory (../signed) lacks `demo-signed/science`",
        "the current directory lacks `demo-signed/audit`",
    ] {
        assert!(ran.stderr.contains(needle), "{needle}: {}", ran.stderr);
    }
}

/// A journal names each certificate after its paper: the summary names the certificate as
/// `--certificate` wrote it, so `attest` checks that file (it looked for `certificate.html`
/// and said "not checked", exit 3), and the replay derives the same statement.
#[test]
fn a_certificate_under_its_own_name_is_checked_under_that_name() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("journal");
    journal(&dir);
    let names = [
        ("certificate.html", "paper-1234.html".to_owned()),
        ("certificate.vsa.json", "paper-1234.vsa.json".to_owned()),
    ];
    let verify = run(&dir, &guide_line("crossverify verify", &names), &["--quiet"]);
    assert_eq!(verify.code, 0, "{}", verify.stderr);
    let attest = run(&dir, &guide_line("crossverify attest", &names), &["--format", "json"]);
    let r = attest.json();
    assert_eq!(attest.code, 0, "{}", r["results"]);
    let c = result(&r, "CV-N102", "paper-1234.html");
    assert_eq!(c["outcome"], "passed", "{c}");
    assert_eq!(c["evidence"]["computed"], sha256_file(&dir.join("paper-1234.html")).as_str());
    assert_eq!(result(&r, "CV-T103", "paper-1234.vsa.json")["outcome"], "passed");
}

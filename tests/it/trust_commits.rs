//! Signed audit commits against the tools we did not write: every fixture commit's verdict is
//! compared with `git verify-commit` (gpg.format=ssh, the same allowed-signers file) and every
//! raw SSH signature with `ssh-keygen -Y verify`; the fixture signer is checked byte for byte
//! against `ssh-keygen -Y sign`.

use crate::support;
use crate::tools;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crossverify::anchors::commits::{Verdict, verify_commit};
use crossverify::git::Repo;
use crossverify::trust::allowed_signers;
use crossverify_fixtures::signing::TestKey;

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}

fn ssh_keygen() -> Option<PathBuf> {
    tools::require("ssh-keygen (openssh-client)", on_path("ssh-keygen"))
}

fn git_bin() -> Option<PathBuf> {
    tools::require("git", on_path("git"))
}

/// Runs a tool with `stdin`, isolated from the user's git and ssh configuration; (success, output).
fn run(program: &Path, args: &[&str], stdin: &[u8], home: &Path) -> (bool, String) {
    let mut child = Command::new(program)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tool runs");
    child.stdin.take().expect("stdin").write_all(stdin).expect("write stdin");
    let out = child.wait_with_output().expect("tool finishes");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn fixture_signatures_are_what_ssh_keygen_writes() {
    let Some(keygen) = ssh_keygen() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let key = TestKey::auditor();
    let key_file = tmp.path().join("id_ed25519");
    std::fs::write(&key_file, key.private_openssh()).expect("write key");
    std::fs::set_permissions(&key_file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).expect("chmod");
    for message in [&b"tree 0\n"[..], b"", &[0xff; 3000]] {
        let msg = tmp.path().join("msg");
        std::fs::write(&msg, message).expect("write message");
        let _ = std::fs::remove_file(tmp.path().join("msg.sig"));
        let (ok, out) = run(
            &keygen,
            &["-Y", "sign", "-n", "git", "-f", &key_file.to_string_lossy(), &msg.to_string_lossy()],
            b"",
            tmp.path(),
        );
        assert!(ok, "ssh-keygen -Y sign failed: {out}");
        let theirs = std::fs::read_to_string(tmp.path().join("msg.sig")).expect("signature written");
        assert_eq!(theirs, key.sshsig(message, "git"), "the fixture signer differs from ssh-keygen -Y sign");
        // And crossverify's reader verifies ssh-keygen's signature.
        let sig = crossverify::trust::sshsig::parse_armored(theirs.as_bytes()).expect("ssh-keygen's signature parses");
        let public = sig.verify(message, "git").expect("ssh-keygen's signature verifies");
        assert_eq!(public.as_bytes(), &key.public_bytes());
    }
}

/// The fixtures whose every audit commit is compared, with the tip's expected verdict word.
const CASES: &[(&str, &str)] = &[
    ("demo-signed", "allowed"),
    ("trust-tip-unknown", "unknown key"),
    ("trust-tip-bad", "bad signature"),
    ("trust-tip-unsigned", "unsigned"),
    ("trust-tip-openpgp", "not verified"),
];

#[test]
fn every_commit_verdict_matches_git_verify_commit_and_ssh_keygen() {
    let (Some(git), Some(keygen)) = (git_bin(), ssh_keygen()) else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    // A second allowed-signers file that lists the auditor key only for another principal:
    // git accepts it (it looks the principal up by key), crossverify and `ssh-keygen -Y verify
    // -I <committer>` do not.
    let elsewhere = tmp.path().join("allowed_signers_elsewhere");
    std::fs::write(&elsewhere, format!("auditor@elsewhere.invalid {}\n", TestKey::auditor().public_openssh()))
        .expect("write");
    let mut compared = 0;
    for (name, tip_word) in CASES {
        let dir = support::materialize(name, tmp.path());
        for signers_file in [dir.join("allowed_signers"), elsewhere.clone()] {
            let signers =
                allowed_signers::parse(&std::fs::read_to_string(&signers_file).expect("read")).expect("parses");
            let repo = Repo::open(&dir.join("audit")).expect("audit repo");
            let tip = repo.resolve("HEAD").expect("HEAD");
            for commit in repo.history(tip).expect("history") {
                let sig = repo.commit_signature(commit.id).expect("signature");
                let ours = verify_commit(&sig, &signers);
                if commit.id == tip && signers_file.ends_with("allowed_signers") {
                    assert_eq!(ours.word(), *tip_word, "{name}: tip verdict");
                }
                let audit = dir.join("audit");
                let (git_ok, git_out) = run(
                    &git,
                    &[
                        "-C",
                        &audit.to_string_lossy(),
                        "-c",
                        "gpg.format=ssh",
                        "-c",
                        &format!("gpg.ssh.allowedSignersFile={}", signers_file.display()),
                        "verify-commit",
                        &commit.id.to_string(),
                    ],
                    b"",
                    tmp.path(),
                );
                // crossverify's `git` dialect says what git decides; a signature crossverify
                // does not verify (OpenPGP) must not verify in git either with this fixture.
                let expected_git = ours.git_decision() == Some("good");
                assert_eq!(git_ok, expected_git, "{name} {}: git says {git_out:?}, crossverify {ours:?}", commit.id);
                compared += 1;
                let Some(armored) = &sig.signature else { continue };
                if !armored.starts_with(b"-----BEGIN SSH SIGNATURE-----") {
                    continue;
                }
                let sig_file = tmp.path().join("commit.sig");
                std::fs::write(&sig_file, armored).expect("write signature");
                let (kg_ok, kg_out) = run(
                    &keygen,
                    &[
                        "-Y",
                        "verify",
                        "-f",
                        &signers_file.to_string_lossy(),
                        "-I",
                        &sig.committer_email,
                        "-n",
                        "git",
                        "-s",
                        &sig_file.to_string_lossy(),
                    ],
                    &sig.payload,
                    tmp.path(),
                );
                let allowed = matches!(ours, Verdict::Allowed { .. });
                assert_eq!(kg_ok, allowed, "{name} {}: ssh-keygen says {kg_out:?}, crossverify {ours:?}", commit.id);
            }
        }
    }
    assert!(compared >= 60, "only {compared} commits compared");
}

#[test]
fn a_malformed_allowed_signers_file_stops_the_run_naming_file_and_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("demo-signed", tmp.path());
    let bad = tmp.path().join("signers");
    std::fs::write(&bad, "# ok\nlab@example.invalid ssh-ed25519 not-base64!\n").expect("write");
    let out = support::crossverify()
        .args(["ledger", "--audit"])
        .arg(dir.join("audit"))
        .arg("--science")
        .arg(dir.join("science"))
        .arg("--allowed-signers")
        .arg(&bad)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("signers") && err.contains("line 2"), "{err}");
}

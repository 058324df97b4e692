//! `crossverify transcript` and `crossverify stats` on CrossExam transcripts: bad input is
//! refused by name (exit 2), the bus's git history proves or refutes append-only, output is
//! deterministic and shows the per-seat table and the violations on their bus lines, and the
//! statistics adapter turns claims and concessions into lifecycles.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn real(name: &str) -> PathBuf {
    support::root().join("test-vectors/crossexam/real").join(name).join("_Msg")
}

fn json(args: &[&str]) -> (i32, Value) {
    let out = support::crossverify().args(args).args(["--format", "json"]).output().expect("run");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

fn stderr_of(args: &[&str]) -> (i32, String) {
    let out = support::crossverify().args(args).output().expect("run");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn failed(report: &Value, code: &str) -> Vec<String> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["code"] == code && r["outcome"] == "failed")
        .map(|r| r["subject"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn unreadable_transcripts_are_refused_by_name() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let missing = tmp.path().join("nope");
    let (code, err) = stderr_of(&["transcript", &missing.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("nope"), "{err}");
    let empty = tmp.path().join("_Msg");
    std::fs::create_dir(&empty).expect("mkdir");
    let (code, err) = stderr_of(&["transcript", &empty.to_string_lossy()]);
    assert!(code == 2 && err.contains("bus.jsonl"), "{err}");
    let outside = tmp.path().join("elsewhere.jsonl");
    std::fs::write(&outside, b"{}\n").expect("write");
    std::os::unix::fs::symlink(&outside, empty.join("bus.jsonl")).expect("symlink");
    let (code, err) = stderr_of(&["transcript", &empty.to_string_lossy()]);
    assert!(code == 2 && err.contains("bus.jsonl") && err.contains("symbolic link"), "{err}");
    let (code, err) = stderr_of(&["transcript", &outside.to_string_lossy()]);
    assert!(code == 2 && err.contains("not a directory"), "{err}");
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&empty, &link).expect("symlink");
    let (code, err) = stderr_of(&["transcript", &link.to_string_lossy()]);
    assert!(code == 2 && err.contains("symbolic link"), "{err}");
}

#[test]
fn a_linked_side_directory_is_not_followed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let msg = tmp.path().join("_Msg");
    support::copy_dir(&real("clean-two-seat"), &msg);
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("alpha"), b"999\n").expect("write");
    std::fs::remove_dir_all(msg.join(".seen")).expect("rm");
    std::os::unix::fs::symlink(&elsewhere, msg.join(".seen")).expect("symlink");
    let (_, report) = json(&["transcript", &msg.to_string_lossy()]);
    let i1: Vec<&Value> = report["results"].as_array().expect("r").iter().filter(|r| r["code"] == "CX-I1").collect();
    assert_eq!(i1.len(), 1);
    assert_eq!(i1[0]["outcome"], "cantTell", "{i1:?}");
}

#[test]
fn invalid_utf8_on_the_bus_is_a_finding_not_a_crash() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let msg = tmp.path().join("_Msg");
    support::copy_dir(&real("clean-two-seat"), &msg);
    let mut bus = std::fs::read(msg.join("bus.jsonl")).expect("bus");
    bus.extend_from_slice(b"{\"ts\": \"x\", \"from\": \"alpha\", \"type\": \"info\", \"msg\": \"\xff\"}\n");
    std::fs::write(msg.join("bus.jsonl"), bus).expect("write");
    let (code, report) = json(&["transcript", &msg.to_string_lossy()]);
    assert_eq!(code, 1);
    assert_eq!(failed(&report, "CX-F1"), ["bus #10"]);
    // Cursors stay within the tool's count, which counts the undecodable line too.
    assert!(failed(&report, "CX-I1").is_empty());
}

fn git(dir: &Path, args: &[&str]) {
    support::git(dir, args);
}

fn commit(dir: &Path, what: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["-c", "user.name=t", "-c", "user.email=t@crossverify.invalid", "commit", "-q", "-m", what]);
}

#[test]
fn the_bus_history_in_git_proves_or_refutes_append_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("project");
    let msg = root.join("_Msg");
    support::copy_dir(&real("claim-and-concede"), &msg);
    let full = std::fs::read(msg.join("bus.jsonl")).expect("bus");
    let lines: Vec<&[u8]> = full.split_inclusive(|b| *b == b'\n').collect();
    git(&root, &["init", "-q", "."]);
    let (code, report) = json(&["transcript", &msg.to_string_lossy()]);
    assert_eq!(code, 3, "in a repository without commits, append-only is undecided");
    assert_eq!(report["results"].as_array().expect("r").iter().filter(|r| r["code"] == "CX-I3").count(), 1);
    std::fs::write(msg.join("bus.jsonl"), lines[..4].concat()).expect("write");
    commit(&root, "blind");
    std::fs::write(msg.join("bus.jsonl"), &full).expect("write");
    commit(&root, "closed");
    let (code, report) = json(&["transcript", &msg.to_string_lossy()]);
    assert_eq!(code, 0, "{report:#}");
    let mut rewritten = full.clone();
    let at = rewritten.windows(5).position(|w| w == b"08:05").expect("a time in line 1");
    rewritten[at + 4] = b'9';
    std::fs::write(msg.join("bus.jsonl"), &rewritten).expect("write");
    let (code, report) = json(&["transcript", &msg.to_string_lossy()]);
    assert_eq!((code, failed(&report, "CX-I3")), (1, vec!["work tree".to_owned()]));
    commit(&root, "rewrite");
    let (code, report) = json(&["transcript", &msg.to_string_lossy()]);
    let subjects = failed(&report, "CX-I3");
    assert!(code == 1 && subjects.len() == 1 && subjects[0].starts_with("commit "), "{subjects:?}");
}

#[test]
fn output_is_deterministic_and_places_violations_on_their_lines() {
    let msg = real("claim-and-concede");
    let run = |format: &str| {
        let out = support::crossverify()
            .current_dir(support::root())
            .args(["transcript", "test-vectors/crossexam/real/claim-and-concede/_Msg", "--format", format])
            .output()
            .expect("run");
        out.stdout
    };
    assert_eq!(run("json"), run("json"));
    let md = String::from_utf8(run("markdown")).expect("markdown");
    for want in ["Seats", "Phase timeline", "Bus replay", "violation: CX-C1", "| erin |"] {
        assert!(md.contains(want), "markdown lacks {want:?}");
    }
    let html = String::from_utf8(run("html")).expect("html");
    assert!(html.contains("names every seat that never conceded"), "the headline");
    let (_, report) = json(&["transcript", &msg.to_string_lossy()]);
    let seats = report["views"].as_array().expect("views").iter().find(|v| v["id"] == "seats").expect("seats");
    let rows = seats["rows"].as_array().expect("rows");
    assert_eq!(rows[0], serde_json::json!(["carol", 1, 1, 0, 1, 0, "conceded", "named"]));
    assert_eq!(rows[1], serde_json::json!(["dave", 1, 0, 2, 0, 1, "standing", "named"]));
}

#[test]
fn stats_turns_claims_and_concessions_into_lifecycles() {
    let (code, report) = json(&["stats", &real("claim-and-concede").to_string_lossy()]);
    assert_eq!(code, 0, "{report:#}");
    let s = &report["stats"];
    assert_eq!(s["cycles"], 8);
    assert_eq!(s["closed"], 2);
    assert_eq!(s["open_findings"], serde_json::json!(["dave#2"]));
    assert_eq!(s["closure_lag"]["per_finding"], serde_json::json!({"carol#1": 6, "erin#3": 5}));
    assert_eq!(report["inputs"]["kind"], "crossexam-transcript");
    assert!(s["closed_by_fix_commit"].is_null(), "not measured, never 0");
    let (code, err) = stderr_of(&["stats", &real("claim-and-concede").to_string_lossy(), "--rev", "HEAD"]);
    assert!(code == 2 && err.contains("--rev"), "{err}");
}

mod properties {
    use proptest::prelude::*;

    /// Bus lines built from the pieces that matter to the tool's numbering: message objects,
    /// phase notes, the splitlines characters, CR, blank lines, broken JSON and invalid UTF-8.
    fn bus() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(br#"{"ts": "2026-11-30T10:00:00+00:00", "from": "a", "type": "claim", "msg": "x"}"#.to_vec()),
            Just(br#"{"ts": "2026-11-30T10:00:01+00:00", "from": "moderator", "type": "info", "msg": "phase -> debate (1 sealed claim(s) revealed)"}"#.to_vec()),
            Just(br#"{"ts": "t", "from": "b", "type": "verify", "msg": "y"}"#.to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\r\n".to_vec()),
            Just("\u{2028}".as_bytes().to_vec()),
            Just("\u{85}".as_bytes().to_vec()),
            Just(b"\x0b\x0c\x1c".to_vec()),
            Just(b"   ".to_vec()),
            Just(b"{torn".to_vec()),
            Just(b"\xff".to_vec()),
            Just(crossverify::fuzzing::SEALED_SEPARATOR.to_vec()),
        ];
        proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// The fuzz target's property (splitlines numbering, undecoded lines kept, every rule
        /// judged, the same twice) on generated buses.
        #[test]
        fn any_bus_replays_with_the_tools_numbering(data in bus()) {
            crossverify::fuzzing::crossexam_bus(&data);
        }
    }
}

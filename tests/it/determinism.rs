//! Same inputs, same bytes, whatever the thread count.

use crate::support;

#[test]
fn ledger_report_bytes_do_not_depend_on_threads() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("v1-genuine", tmp.path());
    let run = |threads: &str, format: &str| {
        let out = support::crossverify()
            .args(["ledger", "--audit"])
            .arg(dir.join("audit"))
            .arg("--science")
            .arg(dir.join("science"))
            .args(["--threads", threads, "--format", format])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    for format in ["json", "sarif", "html", "csv", "table"] {
        let one = run("1", format);
        assert!(!one.is_empty());
        assert_eq!(one, run("4", format), "--format {format}: --threads 1 and --threads 4 differ");
        assert_eq!(one, run("1", format), "--format {format}: two runs differ");
    }
}

#[test]
fn demo_is_byte_identical_across_runs() {
    let run = || support::crossverify().args(["demo", "--format", "json"]).output().expect("run").stdout;
    assert_eq!(run(), run());
}

/// The replay reads bus lines on every core: a bus long enough to be split, with every kind of
/// line, gives the same bytes in every format for one thread and for four.
#[test]
fn transcript_report_bytes_do_not_depend_on_threads() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("_Msg");
    std::fs::create_dir(&dir).expect("mkdir");
    let kinds = [
        r#"{"ts": "2026-11-30T12:00:00+00:00", "from": "a", "type": "claim", "msg": "x"}"#,
        r#"{"ts": "2026-11-30T12:00:01+00:00", "from": "moderator", "type": "info", "msg": "phase -> debate (1 sealed claim(s) revealed)"}"#,
        r#"{"ts": "2026-11-30T12:00:02+00:00", "from": "b\u0062", "type": "verify", "msg": "q \"y\"", "ref": "r"}"#,
        "",
        "not json",
        r#"{"ts": "1", "ts": "2"}"#,
        "{\"msg\": \"a\u{2028}b\"}\r",
        r#"{"ts": "2026-11-30T12:00:03+00:00", "from": "c", "type": "challenge", "msg": "z"}"#,
    ];
    let bus: String = (0..6000).map(|i| format!("{}\n", kinds[(i * 7 + i / 13) % kinds.len()])).collect();
    std::fs::write(dir.join("bus.jsonl"), bus).expect("write the bus");
    std::fs::write(dir.join("task.md"), "status: debate\n").expect("write task.md");
    let run = |threads: &str, format: &str| {
        let out = support::crossverify()
            .arg("transcript")
            .arg(&dir)
            .args(["--threads", threads, "--format", format])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    for format in ["json", "sarif", "html", "csv", "table", "markdown", "junit"] {
        let one = run("1", format);
        assert!(!one.is_empty());
        assert_eq!(one, run("4", format), "--format {format}: --threads 1 and --threads 4 differ");
    }
}

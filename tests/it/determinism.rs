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

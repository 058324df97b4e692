//! Runs every check vector in `test-vectors/checks/` against the binary.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

fn expand(arg: &str, tmp: &Path, built: &mut BTreeMap<String, std::path::PathBuf>) -> String {
    let mut out = arg.to_owned();
    while let Some(start) = out.find("{fixture:").or_else(|| out.find("{vectors:")) {
        let end = start + out[start..].find('}').expect("closing brace");
        let inner = &out[start + 1..end];
        let (kind, name) = inner.split_once(':').expect("kind:name");
        let path = if kind == "vectors" {
            support::root().join("test-vectors").join(name)
        } else {
            let (base, sub) = name.split_once('/').map_or((name, None), |(b, s)| (b, Some(s)));
            let dir = built.entry(base.to_owned()).or_insert_with(|| support::materialize(base, tmp)).clone();
            sub.map_or(dir.clone(), |s| dir.join(s))
        };
        out.replace_range(start..=end, &path.to_string_lossy());
    }
    out
}

#[test]
fn every_vector_holds() {
    let vectors = support::load_vectors();
    let mut failures = Vec::new();
    for v in &vectors {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut built = BTreeMap::new();
        let args: Vec<String> = v.args.iter().map(|a| expand(a, tmp.path(), &mut built)).collect();
        let out = support::crossverify().args(&args).args(["--format", "json"]).output().expect("run crossverify");
        let code = out.status.code().unwrap_or(-1);
        if code != v.exit {
            failures.push(format!(
                "{} ({}): exit {code}, expected {}\nstderr: {}",
                v.id,
                v.file,
                v.exit,
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        if v.results.is_empty() && v.absent.is_empty() {
            continue;
        }
        let report: Value = match serde_json::from_slice(&out.stdout) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: report is not JSON: {e}", v.id));
                continue;
            }
        };
        let results = report["results"].as_array().cloned().unwrap_or_default();
        let matches = |want: &Value, r: &Value| {
            r["code"] == want["code"]
                && r["outcome"] == want["outcome"]
                && (want.get("subject").is_none() || r["subject"] == want["subject"])
        };
        for want in &v.results {
            if !results.iter().any(|r| matches(want, r)) {
                let got: Vec<String> = results
                    .iter()
                    .filter(|r| r["code"] == want["code"])
                    .map(|r| format!("{} {} {}", r["outcome"], r["subject"], r["message"]))
                    .collect();
                failures.push(format!("{}: expected {want} not found; results with that code: {got:#?}", v.id));
            }
        }
        for not in &v.absent {
            if let Some(r) = results.iter().find(|r| matches(not, r)) {
                failures.push(format!("{}: unexpected {r}", v.id));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors failed:\n{}", failures.len(), vectors.len(), failures.join("\n\n"));
}

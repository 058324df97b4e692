//! Runs every check vector in `test-vectors/checks/` against the binary.

use crate::support;

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

/// The error-level codes that failed, sorted and deduplicated.
fn failing_codes(results: &[Value]) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = results
        .iter()
        .filter(|r| r["level"] == "error" && r["outcome"] == "failed")
        .filter_map(|r| r["code"].as_str().map(str::to_owned))
        .collect();
    set.into_iter().collect()
}

/// `CROSSVERIFY_UPDATE_VECTORS=1` rewrites each vector's `expect.failing` to what the run gives:
/// for a deliberate change only, reviewed in the diff like any other.
fn update_failing(v: &support::Vector, got: &[String]) {
    let text = std::fs::read_to_string(&v.path).expect("read vector");
    let mut doc: Value = serde_json::from_str(&text).expect("vector JSON");
    doc["expect"]["failing"] = Value::from(got.to_vec());
    write_vector(&v.path, &doc);
}

/// Keys in the order the vector files are written in (serde_json's map would sort them).
const KEY_ORDER: [&str; 12] = [
    "id",
    "description",
    "args",
    "expect",
    "exit",
    "failing",
    "stderr",
    "results",
    "absent",
    "code",
    "outcome",
    "subject",
];

fn write_vector(path: &Path, doc: &Value) {
    fn pretty(v: &Value, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent + 1);
        match v {
            Value::Object(m) if !m.is_empty() => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by_key(|k| (KEY_ORDER.iter().position(|o| o == k).unwrap_or(KEY_ORDER.len()), k.as_str()));
                out.push_str("{\n");
                for (i, k) in keys.iter().enumerate() {
                    out.push_str(&format!("{pad}{}: ", Value::from(k.as_str())));
                    pretty(&m[k.as_str()], indent + 1, out);
                    out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
                }
                out.push_str(&format!("{}}}", "  ".repeat(indent)));
            }
            Value::Array(a) if !a.is_empty() => {
                out.push_str("[\n");
                for (i, x) in a.iter().enumerate() {
                    out.push_str(&pad);
                    pretty(x, indent + 1, out);
                    out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
                }
                out.push_str(&format!("{}]", "  ".repeat(indent)));
            }
            other => out.push_str(&serde_json::to_string(other).expect("serialise")),
        }
    }
    let mut out = String::new();
    pretty(doc, 0, &mut out);
    out.push('\n');
    std::fs::write(path, out).expect("write vector");
}

#[test]
fn every_vector_holds() {
    let update = std::env::var_os("CROSSVERIFY_UPDATE_VECTORS").is_some();
    let vectors = support::load_vectors();
    let mut failures = Vec::new();
    for v in &vectors {
        if !v.features.is_empty() {
            continue;
        }
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut built = BTreeMap::new();
        let args: Vec<String> = v.args.iter().map(|a| expand(a, tmp.path(), &mut built)).collect();
        let out = support::crossverify().args(&args).args(["--format", "json"]).output().expect("run crossverify");
        let code = out.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if code != v.exit {
            failures.push(format!("{} ({}): exit {code}, expected {}\nstderr: {stderr}", v.id, v.file, v.exit));
            continue;
        }
        if code == 2 {
            match &v.stderr {
                Some(want) if !stderr.contains(want.as_str()) => {
                    failures.push(format!("{}: stderr does not contain {want:?}: {stderr}", v.id));
                }
                Some(_) => {}
                None if update => {
                    let text = std::fs::read_to_string(&v.path).expect("read vector");
                    let mut doc: Value = serde_json::from_str(&text).expect("vector JSON");
                    doc["expect"]["stderr"] = Value::from(stderr.lines().next().unwrap_or("").to_owned());
                    write_vector(&v.path, &doc);
                }
                None => failures.push(format!("{}: an exit-2 vector states expect.stderr", v.id)),
            }
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
        let got = failing_codes(&results);
        if update {
            update_failing(v, &got);
        } else {
            match &v.failing {
                Some(want) if *want != got => failures.push(format!(
                    "{} ({}): error-level codes failing {got:?}, the vector pins {want:?} \
                     (if deliberate: CROSSVERIFY_UPDATE_VECTORS=1 cargo test --test it vectors::)",
                    v.id, v.file
                )),
                Some(_) => {}
                None => {
                    failures.push(format!("{} ({}): expect.failing (the exact failing set) is missing", v.id, v.file))
                }
            }
        }
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

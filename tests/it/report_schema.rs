//! `docs/report.schema.json` describes the JSON report exactly: real reports validate against
//! it (checked by boon, an independent JSON Schema implementation), and reports with an unknown
//! field or a wrong value do not, so a model change without a schema change fails here.

use crate::sample;
use crate::support;

use serde_json::{Value, json};

fn validator() -> (boon::Schemas, boon::SchemaIndex) {
    let path = support::root().join("docs/report.schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(&path).expect("schema file")).expect("schema is JSON");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let url = "https://github.com/crossverify/crossverify/blob/main/docs/report.schema.json";
    compiler.add_resource(url, schema).expect("add schema");
    let index = compiler.compile(url, &mut schemas).expect("the schema compiles");
    (schemas, index)
}

fn report_json(args: &[&str]) -> Value {
    let out = support::crossverify().args(args).args(["--format", "json"]).output().expect("run crossverify");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"))
}

#[test]
fn real_reports_validate() {
    let (schemas, index) = validator();
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = support::materialize("repo-special", tmp.path()).join("repo");
    let repo = repo.to_str().expect("utf-8 temp path");
    let reports = [
        ("sample", serde_json::to_value(sample::ledger_report()).expect("serialises")),
        ("manifest", report_json(&["manifest", repo, "HEAD"])),
        ("demo (with an audit outcome)", report_json(&["demo"])),
        ("checks", report_json(&["checks"])),
        ("explain", report_json(&["explain", "CV-G001"])),
    ];
    for (name, report) in reports {
        if let Err(e) = schemas.validate(&report, index) {
            panic!("{name} does not validate: {e:#}");
        }
    }
}

/// Breaks one thing in a valid report.
type Mutation = fn(&mut Value);

#[test]
fn wrong_reports_do_not_validate() {
    let (schemas, index) = validator();
    let good = serde_json::to_value(sample::ledger_report()).expect("serialises");
    let mutations: [(&str, Mutation); 6] = [
        ("unknown verdict", |r| r["outcome"] = json!("ok")),
        ("unknown result field", |r| r["results"][0]["severity"] = json!("high")),
        ("bad outcome", |r| r["results"][0]["outcome"] = json!("pass")),
        ("negative count", |r| r["summary"]["failed"] = json!(-1)),
        ("chart value as text", |r| r["views"][1]["points"][0]["value"] = json!("7")),
        ("missing views", |r| {
            r.as_object_mut().expect("object").remove("views");
        }),
    ];
    for (what, mutate) in mutations {
        let mut bad = good.clone();
        mutate(&mut bad);
        assert!(schemas.validate(&bad, index).is_err(), "{what}: accepted by the schema");
    }
}

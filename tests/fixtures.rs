//! Fixture repositories are deterministic: their tip commit ids are pinned in
//! `test-vectors/fixtures.json`. A changed id means a changed fixture description or a changed
//! writer (identity, clock, object encoding); update deliberately with
//! `CROSSVERIFY_UPDATE_FIXTURES=1 cargo test --test fixtures`.

mod support;

use std::collections::BTreeMap;

use crossverify::git::Repo;

/// Every repository in every `ledger-fixtures/*.toml` scenario, as `scenario/repo` → tip.
fn built_tips(tmp: &std::path::Path) -> BTreeMap<String, String> {
    let names = support::scenarios();
    let mut tips = BTreeMap::new();
    for name in names {
        let dir = support::materialize(&name, tmp);
        let mut repos: Vec<_> = std::fs::read_dir(&dir).expect("built").map(|e| e.expect("entry").path()).collect();
        repos.sort();
        for r in repos {
            let Ok(repo) = Repo::open(&r) else { continue };
            let tip = repo.resolve("HEAD").unwrap_or_else(|e| panic!("{name}: {e}"));
            let key = format!("{name}/{}", r.file_name().expect("name").to_string_lossy());
            tips.insert(key, tip.to_string());
        }
    }
    tips
}

#[test]
fn fixture_commit_ids_are_pinned() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let tips = built_tips(tmp.path());
    let file = support::root().join("test-vectors/fixtures.json");
    if std::env::var_os("CROSSVERIFY_UPDATE_FIXTURES").is_some() {
        let doc = serde_json::json!({
            "description": "Tip commit id of every fixture repository built from ledger-fixtures/ (scenario/repository). Regenerate with CROSSVERIFY_UPDATE_FIXTURES=1 cargo test --test fixtures.",
            "fixtures": tips,
        });
        let mut text = serde_json::to_string_pretty(&doc).expect("json");
        text.push('\n');
        std::fs::write(&file, text).expect("write fixtures.json");
        return;
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("test-vectors/fixtures.json")).expect("JSON");
    let pinned: BTreeMap<String, String> =
        serde_json::from_value(doc["fixtures"].clone()).expect("fixtures is a map of strings");
    assert_eq!(
        tips, pinned,
        "fixture commit ids changed; if deliberate, run CROSSVERIFY_UPDATE_FIXTURES=1 cargo test --test fixtures"
    );
}

/// Building twice gives the same ids (no clock, no randomness, no host state).
#[test]
fn fixtures_build_identically_twice() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    for name in ["repo-plain", "repo-special"] {
        let x = Repo::open(&support::materialize(name, a.path()).join("repo")).expect("open");
        let y = Repo::open(&support::materialize(name, b.path()).join("repo")).expect("open");
        assert_eq!(x.resolve("HEAD").expect("tip"), y.resolve("HEAD").expect("tip"), "{name}");
    }
}

//! Fixture repositories are deterministic: their tip commit ids are pinned in
//! `test-vectors/fixtures.json`. A changed id means a changed fixture description or a changed
//! writer (identity, clock, object encoding); update deliberately with
//! `CROSSVERIFY_UPDATE_FIXTURES=1 cargo test --test it fixtures::`.

use crate::support;

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
        "fixture commit ids changed; if deliberate, run CROSSVERIFY_UPDATE_FIXTURES=1 cargo test --test it fixtures::"
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

/// The v1 minter lists what the reference runner lists: for every receipt of the genuine v1
/// fixtures whose names git quotes, deletes or renames, the manifest's keys are exactly the lines
/// of git's own `diff --name-only` against the first parent under `experiments/` (the commit's
/// listing when that is empty), C-quoting and rename detection by git itself.
#[test]
fn v1_manifest_keys_are_what_git_diff_lists() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut receipts = 0;
    for name in ["v1-genuine", "v1-quoted-names", "v1-quoted-rename"] {
        let dir = support::materialize(name, tmp.path());
        let (audit, science) = (dir.join("audit"), dir.join("science"));
        let listing =
            String::from_utf8(support::git(&audit, &["ls-tree", "-r", "--name-only", "HEAD"])).expect("UTF-8");
        for path in listing.lines().filter(|p| p.ends_with("/receipt.json")) {
            let bytes = support::git(&audit, &["show", &format!("HEAD:{path}")]);
            let receipt: serde_json::Value = serde_json::from_slice(&bytes).expect("receipt JSON");
            let sha = receipt["sha"].as_str().expect("sha");
            let keys: Vec<&str> =
                receipt["manifest"].as_object().expect("manifest").keys().map(String::as_str).collect();
            let lines = |args: &[&str]| -> Vec<String> {
                let out = String::from_utf8(support::git(&science, args)).expect("git prints C-quoted ASCII");
                let mut v: Vec<String> =
                    out.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect();
                v.sort();
                v
            };
            let parents = String::from_utf8(support::git(&science, &["log", "-1", "--format=%P", sha])).expect("UTF-8");
            let mut listed = match parents.split_whitespace().next() {
                Some(first) => lines(&["diff", "--name-only", first, sha, "--", "experiments"]),
                None => Vec::new(),
            };
            if listed.is_empty() {
                listed = lines(&["ls-tree", "-r", "--name-only", sha, "--", "experiments"]);
            }
            let mut keys: Vec<String> = keys.into_iter().map(str::to_owned).collect();
            keys.sort();
            assert_eq!(keys, listed, "{name} {path}: manifest keys against git's listing");
            receipts += 1;
        }
    }
    assert!(receipts >= 3, "only {receipts} receipts compared");
}

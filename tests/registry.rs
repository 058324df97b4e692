//! Keeps check codes, their doc pages and their test vectors in step.

mod support;

use std::collections::{BTreeMap, BTreeSet};

use crossverify::protocols as checks;

#[test]
fn codes_are_unique_well_formed_and_unlike_rule_ids() {
    let all = checks::all();
    assert!(!all.is_empty());
    let mut codes = BTreeSet::new();
    let mut names = BTreeSet::new();
    for c in &all {
        assert!(codes.insert(c.code), "duplicate code {}", c.code);
        assert!(names.insert(c.name), "duplicate name {}", c.name);
        assert!(
            c.code.starts_with(c.family.prefix) && (c.family.code_ok)(c.code),
            "{} does not follow its family's grammar: {}",
            c.code,
            c.family.grammar
        );
        assert!((c.family.group_ok)(c.code, c.group), "{}: group {:?} is not the one its code names", c.code, c.group);
        // A Constitution rule ID is `CA-<LETTERS>-<DIGITS>`; ours must never parse as one.
        assert!(!c.code.starts_with("CA-"), "{} looks like a Constitution rule ID", c.code);
        assert!(
            c.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{} is not kebab-case",
            c.name
        );
        for (part, text) in
            [("summary", c.summary), ("what", c.what), ("why", c.why), ("example", c.example), ("spec", c.spec)]
        {
            assert!(!text.trim().is_empty(), "{} has an empty {part}", c.code);
        }
        assert!(c.example.contains(c.code), "{}: the example should show the code", c.code);
    }
}

#[test]
fn doc_pages_are_generated_and_current() {
    let dir = support::root().join("docs/checks");
    let update = std::env::var_os("CROSSVERIFY_UPDATE_DOCS").is_some();
    if update {
        std::fs::create_dir_all(&dir).expect("create docs/checks");
    }
    let mut stale = Vec::new();
    let mut expected = BTreeSet::new();
    for c in checks::all() {
        let file = format!("{}.md", c.code);
        let path = dir.join(&file);
        let want = crossverify::checks::doc_page(c);
        expected.insert(file);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            if update {
                std::fs::write(&path, want).expect("write doc page");
            } else {
                stale.push(c.code);
            }
        }
    }
    let index = dir.join("README.md");
    if std::fs::read_to_string(&index).ok().as_deref() != Some(checks::index_page().as_str()) {
        if update {
            std::fs::write(&index, checks::index_page()).expect("write index");
        } else {
            stale.push("README.md (index)");
        }
    }
    let strays: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("CV-") && !expected.contains(n))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        stale.is_empty() && strays.is_empty(),
        "stale or missing pages {stale:?}, pages for unknown codes {strays:?}; regenerate with CROSSVERIFY_UPDATE_DOCS=1 cargo test --test registry"
    );
}

#[test]
fn every_code_has_a_pass_and_a_fail_vector() {
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for v in support::load_vectors() {
        for r in &v.results {
            let code = r["code"].as_str().expect("code").to_owned();
            assert!(checks::find(&code).is_some(), "vector {} names unknown code {code}", v.id);
            seen.entry(code).or_default().insert(r["outcome"].as_str().expect("outcome").to_owned());
        }
    }
    let mut missing = Vec::new();
    for c in checks::all() {
        let got = seen.get(c.code).cloned().unwrap_or_default();
        if !got.contains("passed") {
            missing.push(format!("{} has no `passed` vector", c.code));
        }
        // A check whose negative outcome is "evidence unavailable" (CV-G001) fails as cantTell.
        if !got.contains("failed") && !got.contains("cantTell") {
            missing.push(format!("{} has no `failed` (or `cantTell`) vector", c.code));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

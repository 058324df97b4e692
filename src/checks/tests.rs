use super::*;

#[test]
fn registry_is_sorted_and_lookup_ignores_case() {
    let all = all();
    let codes: Vec<&str> = all.iter().map(|c| c.code).collect();
    let mut sorted = codes.clone();
    sorted.sort_unstable();
    assert_eq!(codes, sorted);
    assert_eq!(find("cv-g002").map(|c| c.code), Some("CV-G002"));
    assert!(find("CV-Z999").is_none());
}

#[test]
fn doc_pages_have_the_fixed_sections() {
    for c in all() {
        let page = doc_page(c);
        for h in ["## What it checks", "## Why it matters", "## Example", "## Spec"] {
            assert!(page.contains(h), "{}: {h}", c.code);
        }
        assert!(page.starts_with(&format!("# {} `{}`", c.code, c.name)));
    }
}

#[test]
fn checks_and_explain_commands_build_reports() {
    let r = command();
    let crate::report::View::Table(t) = &r.views[0] else { panic!("a table") };
    assert_eq!(t.rows.len(), all().len());
    let e = explain("cv-g001").expect("known code");
    assert_eq!(e.sections["doc"], doc_page(&crate::manifest::BLOB_READABLE));
    let err = explain("CV-X000").expect_err("unknown");
    assert!(err.to_string().contains("`CV-X000`") && err.to_string().contains("crossverify checks"));
}

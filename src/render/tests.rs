use serde_json::json;

use super::*;
use crate::report::{Table, View};

fn table(id: &str, csv: bool) -> View {
    View::Table(Table {
        id: id.into(),
        title: id.into(),
        columns: vec!["a".into(), "b".into()],
        rows: vec![vec![json!("=1+1"), json!(null)], vec![json!(2.5), json!(["x"])]],
        note: None,
        csv,
    })
}

#[test]
fn every_format_name_parses_back() {
    for f in Format::ALL {
        assert_eq!(Format::parse(f.name()), Some(*f));
    }
    assert_eq!(Format::parse("xml"), None);
}

#[test]
fn csv_without_marked_tables_is_the_results_alone() {
    let mut r = Report::new("x");
    r.views.push(table("shown", false));
    r.finish();
    let primary = String::from_utf8(render(&r, Format::Csv, &Options::default())).unwrap();
    assert!(primary.starts_with("code,level,outcome,subject,message,"), "{primary}");
    assert!(companions(&r, Format::Csv).is_empty());
}

#[test]
fn first_marked_table_is_primary_and_the_rest_are_companions() {
    let mut r = Report::new("x");
    r.views.push(table("skipped", false));
    r.views.push(table("items", true));
    r.views.push(table("rows", true));
    r.views.push(table("results", true));
    r.finish();
    let primary = String::from_utf8(render(&r, Format::Csv, &Options::default())).unwrap();
    // null is an empty cell, formulas are defused, nested values are JSON.
    assert_eq!(primary, "a,b\n'=1+1,\n2.5,\"[\"\"x\"\"]\"\n");
    let names: Vec<String> = companions(&r, Format::Csv).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["rows", "results-2", "results"]);
    assert!(companions(&r, Format::Json).is_empty());
}

#[test]
fn slugs_are_file_name_safe() {
    assert_eq!(slug("Per row/x"), "per-row-x");
    assert_eq!(slug(""), "view");
}

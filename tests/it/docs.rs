//! The user docs stay in step with the code: every check is linked from the guide, every
//! report field is described in docs/report.md, every format is explained.

use crate::support;

use serde_json::Value;

fn read(path: &str) -> String {
    std::fs::read_to_string(support::root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_guide_links_the_check_index_and_explains_every_format() {
    let guide = read("docs/guide.md");
    assert!(guide.contains("(checks/README.md)"), "docs/guide.md does not link the check index");
    let index = read("docs/checks/README.md");
    for c in crossverify::protocols::all() {
        assert!(index.contains(&format!("({}.md)", c.code)), "docs/checks/README.md does not link {}", c.code);
    }
    for f in crossverify::render::Format::ALL {
        assert!(guide.contains(&format!("`{}`", f.name())), "docs/guide.md does not explain --format {}", f.name());
    }
}

#[test]
fn report_md_describes_every_schema_field() {
    let schema: Value = serde_json::from_str(&read("docs/report.schema.json")).expect("schema is JSON");
    let doc = read("docs/report.md");
    let mut missing = Vec::new();
    let mut walk = vec![&schema];
    while let Some(node) = walk.pop() {
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                if !doc.contains(&format!("`{name}`")) {
                    missing.push(name.clone());
                }
                walk.push(sub);
            }
        }
        for key in ["$defs", "items"] {
            match node.get(key) {
                Some(Value::Object(m)) if key == "$defs" => walk.extend(m.values()),
                Some(v @ Value::Object(_)) => walk.push(v),
                _ => {}
            }
        }
    }
    assert!(missing.is_empty(), "docs/report.md does not describe {missing:?}");
}

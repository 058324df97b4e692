//! Data flows one way (docs/development.md): a module may import only the layers below it, and
//! a protocol never imports another protocol. This test reads every `crate::` path under `src/`
//! (in `use` lines and inline) and fails on any that goes against the table, naming the file and
//! line; `a_planted_back_edge_is_reported` shows that it can fail.

mod support;

use std::path::{Path, PathBuf};

/// Layers, bottom first. A module may import modules of a lower layer, never of its own layer
/// or a higher one; the exceptions are spelled out in [`allowed`].
const LAYERS: &[&[&str]] = &[
    &["json", "progress"],
    // Git access, and the persistent cache (keyed by object ids; it knows no git type).
    &["git", "cache"],
    // Manifests from git objects; keys, signatures and envelopes.
    &["manifest", "trust"],
    // The report model, then the registry's types and the renderers (pure functions of the
    // report: see RENDER_ONLY).
    &["report"],
    &["checks", "render"],
    // Protocol-free checks and figures: git objects and manifests, finding lifecycles.
    &["foundation", "stats", "anchors"],
    // One module per protocol; each may use every layer below, never another protocol.
    &["crossaudit", "proof_or_stop", "crossexam"],
    // The list of families, one line per protocol, used by the command layer.
    &["protocols", "attest"],
    // Entry points that wire everything together.
    &["fuzzing", "bin"],
];

/// What the layers alone do not say: renderers are pure functions of the report, so they may
/// import only these, whatever lies below them.
const RENDER_ONLY: &[&str] = &["report", "json", "progress"];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Whether `from` may import `to`; `Err` says why not.
fn allowed(from: &str, to: &str) -> Result<(), String> {
    if from == to {
        return Ok(());
    }
    if from == "render" && !RENDER_ONLY.contains(&to) {
        return Err(format!("renderers are pure functions of the report: `render` may import only {RENDER_ONLY:?}"));
    }
    match (layer(from), layer(to)) {
        (Some(f), Some(t)) if t < f => Ok(()),
        (Some(f), Some(t)) if t == f => {
            Err(format!("`{from}` and `{to}` are in the same layer; neither may import the other"))
        }
        (Some(_), Some(_)) => Err(format!("`{to}` is a layer above `{from}`")),
        (None, _) => Err(format!("module `{from}` is not in the layer table (tests/architecture.rs)")),
        (_, None) => Err(format!("module `{to}` is not in the layer table (tests/architecture.rs)")),
    }
}

/// The top-level module a file of `src/` belongs to (`src/crossaudit/verify.rs` → `crossaudit`).
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" => None,
        "main.rs" | "bin" => Some("bin".into()),
        f => Some(f.trim_end_matches(".rs").to_owned()),
    }
}

/// Every `crate::<module>` (and, in the binary, `crossverify::<module>`) a line names.
fn targets(line: &str, in_bin: bool) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    for prefix in if in_bin { &["crate::", "crossverify::"][..] } else { &["crate::"][..] } {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            let after = &rest[i + prefix.len()..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                out.push(name);
            }
            rest = after;
        }
    }
    // `use crate::{a, b::c}` groups
    if let Some(start) = code.find("crate::{") {
        let inner = &code[start + "crate::{".len()..];
        for part in inner.split([',', '}']) {
            let name: String = part.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// The violations in `files` (path relative to `src/`, text): `path:line: from -> to: why`.
fn violations(files: &[(PathBuf, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let Some(from) = module_of(rel) else { continue };
        let in_bin = from == "bin";
        for (n, line) in text.lines().enumerate() {
            for to in targets(line, in_bin) {
                if let Err(why) = allowed(&from, &to) {
                    out.push(format!("src/{}:{}: {from} -> {to}: {why}", rel.display(), n + 1));
                }
            }
        }
    }
    out
}

fn sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(PathBuf, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("src/").map(|e| e.expect("entry").path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p.strip_prefix(root).expect("under src/").to_owned();
                out.push((rel, std::fs::read_to_string(&p).expect("source is UTF-8")));
            }
        }
    }
    let root = support::root().join("src");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

#[test]
fn data_flows_one_way() {
    let v = violations(&sources());
    assert!(v.is_empty(), "{} import(s) against the layer table (docs/development.md):\n{}", v.len(), v.join("\n"));
}

#[test]
fn every_module_is_in_the_table() {
    let mut missing: Vec<String> =
        sources().iter().filter_map(|(rel, _)| module_of(rel)).filter(|m| layer(m).is_none()).collect();
    missing.dedup();
    assert!(missing.is_empty(), "modules missing from the layer table: {missing:?}");
}

#[test]
fn a_planted_back_edge_is_reported() {
    let planted = vec![
        (PathBuf::from("render/html.rs"), "use crate::report::Report;\nuse crate::crossaudit::Ledger;\n".to_owned()),
        (PathBuf::from("stats/mod.rs"), "fn f() { crate::crossaudit::ledger(); }\n".to_owned()),
        (PathBuf::from("crossexam/mod.rs"), "use crate::{json, crossaudit::receipt};\n".to_owned()),
        (PathBuf::from("checks/mod.rs"), "use crate::render;\n".to_owned()),
        (PathBuf::from("crossaudit/mod.rs"), "use crate::stats::model::Records; // allowed\n".to_owned()),
    ];
    let v = violations(&planted);
    assert_eq!(
        v,
        vec![
            "src/render/html.rs:2: render -> crossaudit: renderers are pure functions of the report: `render` may import only [\"report\", \"json\", \"progress\"]".to_owned(),
            "src/stats/mod.rs:1: stats -> crossaudit: `crossaudit` is a layer above `stats`".to_owned(),
            "src/crossexam/mod.rs:1: crossexam -> crossaudit: `crossexam` and `crossaudit` are in the same layer; neither may import the other".to_owned(),
            "src/checks/mod.rs:1: checks -> render: `checks` and `render` are in the same layer; neither may import the other".to_owned(),
        ]
    );
}

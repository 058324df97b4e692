//! Keeps check codes, their doc pages and their test vectors in step.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};

use crossverify::checks::Whereabouts;
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

/// `code → identifier of its static`, read from the declarations in `src/`.
fn declarations(files: &[(String, String)]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (_, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            // `check!(IDENT, "CODE", …` or `pub static IDENT: Check = Check {` then `code: "CODE",`.
            let (ident, rest) = if let Some(r) = t.strip_prefix("check!(") {
                let Some((id, rest)) = r.split_once(',') else { continue };
                (id.trim(), rest.to_owned())
            } else if let Some(r) = t.strip_prefix("pub static ")
                && let Some(id) = r.strip_suffix(": Check = Check {")
            {
                (id, lines.get(i + 1).copied().unwrap_or("").to_owned())
            } else {
                continue;
            };
            if let Some(code) = rest.split('"').nth(1).filter(|c| checks::find(c).is_some()) {
                out.insert(code.to_owned(), ident.to_owned());
            }
        }
    }
    out
}

fn rust_files(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read src").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") && p.file_name().is_some_and(|n| n != "tests.rs") {
            let text = std::fs::read_to_string(&p).expect("read source");
            // Unit tests name checks without emitting them.
            let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or("").to_owned();
            let rel = p.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
            out.push((rel, text));
        }
    }
}

/// `text` without what names a check without emitting it: imports and the `CHECKS` lists.
fn without_declarations(text: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in text.lines() {
        let t = line.trim_start();
        if !skipping && (t.starts_with("use ") || t.starts_with("pub use ") || t.starts_with("pub static CHECKS")) {
            skipping = true;
        }
        if !skipping && !t.starts_with("check!(") && !t.starts_with("pub static ") {
            out.push_str(line);
            out.push('\n');
        }
        if skipping && t.ends_with(';') {
            skipping = false;
        }
    }
    out
}

/// Whether `text` uses `ident` as a word.
fn emits(text: &str, ident: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    text.match_indices(ident).any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + ident.len()).copied();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// Where every code is emitted (source files using its static) and exercised (vectors whose
/// expectations name it), computed from the repository as it is.
fn whereabouts() -> BTreeMap<String, Whereabouts> {
    let root = support::root();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &root, &mut files);
    let idents = declarations(&files);
    let files: Vec<(String, String)> =
        files.into_iter().map(|(rel, text)| (rel, without_declarations(&text))).collect();
    let mut out: BTreeMap<String, Whereabouts> = BTreeMap::new();
    for c in checks::all() {
        let ident = idents.get(c.code).unwrap_or_else(|| panic!("no declaration found for {}", c.code));
        let sources = files.iter().filter(|(_, text)| emits(text, ident)).map(|(rel, _)| rel.clone()).collect();
        out.insert(c.code.to_owned(), Whereabouts { sources, vectors: Vec::new() });
    }
    for v in support::load_vectors() {
        let mut codes: BTreeSet<String> =
            v.results.iter().filter_map(|r| r["code"].as_str()).map(str::to_owned).collect();
        codes.extend(v.failing.iter().flatten().cloned());
        for code in codes {
            if let Some(w) = out.get_mut(&code) {
                w.vectors.push(v.file.clone());
            }
        }
    }
    out
}

#[test]
fn every_code_has_an_anchor_in_the_specs() {
    let mut specs = String::new();
    for dir in ["specs", "specs/notes"] {
        for e in std::fs::read_dir(support::root().join(dir)).expect("specs") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "md") {
                specs.push_str(&std::fs::read_to_string(&p).expect("read spec"));
            }
        }
    }
    let missing: Vec<&str> = checks::all()
        .into_iter()
        .map(|c| c.code)
        .filter(|code| !specs.contains(&format!("<a id=\"{}\"></a>", code.to_ascii_lowercase())))
        .collect();
    assert!(missing.is_empty(), "codes without an `<a id=\"cv-…\"></a>` anchor in specs/: {missing:?}");
}

#[test]
fn every_code_is_emitted_somewhere() {
    let unused: Vec<String> =
        whereabouts().into_iter().filter(|(_, w)| w.sources.is_empty()).map(|(code, _)| code).collect();
    assert!(unused.is_empty(), "registered but emitted by no source file: {unused:?}");
}

#[test]
fn doc_pages_are_generated_and_current() {
    let dir = support::root().join("docs/checks");
    let update = std::env::var_os("CROSSVERIFY_UPDATE_DOCS").is_some();
    if update {
        std::fs::create_dir_all(&dir).expect("create docs/checks");
    }
    let at = whereabouts();
    let mut stale = Vec::new();
    let mut expected = BTreeSet::new();
    for c in checks::all() {
        let file = format!("{}.md", c.code);
        let path = dir.join(&file);
        let want = crossverify::checks::doc_page(c, &at[c.code]);
        expected.insert(file);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            if update {
                std::fs::write(&path, want).expect("write doc page");
            } else {
                stale.push(c.code);
            }
        }
    }
    // `crossverify explain` reads the whereabouts compiled in from this file.
    let tsv = checks::whereabouts_tsv(at.iter().map(|(c, w)| (c.as_str(), w)));
    let tsv_path = dir.join("whereabouts.tsv");
    if std::fs::read_to_string(&tsv_path).ok().as_deref() != Some(tsv.as_str()) {
        if update {
            std::fs::write(&tsv_path, tsv).expect("write whereabouts");
        } else {
            stale.push("whereabouts.tsv");
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
                .filter(|n| (n.starts_with("CV-") || n.starts_with("CX-")) && !expected.contains(n))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        stale.is_empty() && strays.is_empty(),
        "stale or missing pages {stale:?}, pages for unknown codes {strays:?}; regenerate with CROSSVERIFY_UPDATE_DOCS=1 cargo test --test it registry::"
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

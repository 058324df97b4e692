//! Data flows one way (docs/development.md): a module may import only the layers below it, and
//! a protocol never imports another protocol. This test reads every `crate::` path under `src/`
//! (in `use` lines and inline), and every `super::`/`self::` path resolved against the file's
//! place, and fails on any that goes against the table, naming the file and line. Inside a
//! module, the files and folders form floors: no import circle among the children of any folder
//! (`no_import_circle_inside_a_module`), and a check of an invariant family never imports another
//! family or what drives the checks (`a_check_imports_no_other_check`). The circle rule, read
//! the same way, holds in the fixture crate's `ledger-fixtures/src/` too, its root included
//! (`no_import_circle_in_the_fixture_crate`). The planted tests show that each rule can fail.

use crate::support;

use std::path::{Path, PathBuf};

/// Layers, bottom first. A module may import modules of a lower layer, never of its own layer
/// or a higher one; the exceptions are spelled out in [`allowed`].
const LAYERS: &[&[&str]] = &[
    &["json", "progress", "files"],
    // Git access, and the persistent cache (keyed by object ids; it knows no git type).
    &["git", "cache"],
    // Manifests from git objects; keys, signatures and envelopes.
    &["manifest", "trust"],
    // The report model, then the registry's types and the renderers (pure functions of the
    // report: see RENDER_ONLY).
    &["report"],
    &["checks", "render"],
    // Protocol-free checks and figures: git objects and manifests, finding lifecycles.
    &["foundation", "stats", "anchors", "intake"],
    // One module per protocol; each may use every layer below, never another protocol.
    &["crossaudit", "proof_or_stop", "crossexam"],
    // The list of families, one line per protocol, used by the command layer.
    &["protocols", "attest"],
    // A journal's submission (every record found and verified through the front door) and the
    // conformance kit (suites, adapters run as processes, scores as reports; no protocol's code:
    // every implementation, crossverify's own included, is an adapter or a record). Neither
    // imports the other.
    &["conformance", "submission"],
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
    if from == "protocols" && to == "submission::checks" {
        // The registry lists every family; the submission's is declared in a file of its own
        // that imports only the registry's types (`submission_checks_import_only_the_registry`).
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
        (None, _) => Err(format!("module `{from}` is not in the layer table (tests/it/architecture.rs)")),
        (_, None) => Err(format!("module `{to}` is not in the layer table (tests/it/architecture.rs)")),
    }
}

/// The top-level module a file of `src/` belongs to (`src/crossaudit/crawl/verify.rs` → `crossaudit`).
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
                // The one declaration file named below its module (see `allowed`).
                let named = if after.starts_with("submission::checks::") { "submission::checks".into() } else { name };
                out.push(named);
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
    let mut seen = std::collections::BTreeSet::new();
    for (rel, text) in files {
        let Some(from) = module_of(rel) else { continue };
        let in_bin = from == "bin";
        for (n, line) in text.lines().enumerate() {
            for to in targets(line, in_bin) {
                seen.insert((rel.clone(), n + 1, to.clone()));
                if let Err(why) = allowed(&from, &to) {
                    out.push(format!("src/{}:{}: {from} -> {to}: {why}", rel.display(), n + 1));
                }
            }
        }
    }
    // `super::` and `self::` paths (and relative `use` paths) that leave their module.
    for i in imports(files) {
        let (Some(from), Some(to)) = (module_of(&i.file), i.to.first()) else { continue };
        if *to == from || !seen.insert((i.file.clone(), i.line, to.clone())) {
            continue;
        }
        let declaration = to == "submission" && i.to.get(1).is_some_and(|c| c == "checks");
        let to = if declaration { "submission::checks" } else { to.as_str() };
        if let Err(why) = allowed(&from, to) {
            out.push(format!("src/{}:{}: {from} -> {to}: {why}", i.file.display(), i.line));
        }
    }
    out
}

fn sources() -> Vec<(PathBuf, String)> {
    sources_in(LIB)
}

/// The library's sources, and the fixture crate's: the circle rule holds in both.
const LIB: &str = "src";
const FIXTURES: &str = "ledger-fixtures/src";

/// Every `.rs` file under `dir` (relative to the repository root), path relative to `dir`.
fn sources_in(dir: &str) -> Vec<(PathBuf, String)> {
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
    let root = support::root().join(dir);
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

/// The submission's check declarations, which the registry names from below, import nothing
/// but the registry's types: no edge leads from them back up to the submission's workings.
#[test]
fn submission_checks_import_only_the_registry() {
    let files = sources();
    let (_, text) = files.iter().find(|(rel, _)| rel == Path::new("submission/checks.rs")).expect("the file");
    let named: Vec<String> = text.lines().flat_map(|l| targets(l, false)).collect();
    assert!(named.iter().all(|m| m == "checks" || m == "report"), "{named:?}");
    assert!(!text.contains("super::"), "submission/checks.rs imports its siblings");
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

// ---------------------------------------------------------------------------------------------
// Inside a module: the files and folders of every module form floors, not circles, and a check
// of an invariant family never imports another family or what drives them.

/// An import edge left out of the circle rule: folder, importing child, imported child, why.
type Exception = (&'static str, &'static str, &'static str, &'static str);

/// Child → parent-file edges of `src/` that still close a circle, each with why it is left for
/// now. An entry that no longer closes a circle fails the test: the table only shrinks. Empty:
/// neither `src/` nor the fixture crate has a circle left (issue 22).
const CIRCLE_EXCEPTIONS: &[Exception] = &[(
    "",
    "protocols",
    "submission",
    "the registry lists every family, the submission's too (issue 46: submission owns the CV-N codes); \
     its declaration file imports only the registry's types (`submission_checks_import_only_the_registry`)",
)];

/// Folders whose children are checks of one invariant family each, and the modules above them
/// (the orchestrators) that a check may not import; `crossaudit` itself is the module's face.
const CHECK_FOLDERS: &[(&str, &[&str])] =
    &[("crossaudit/invariants", &["crossaudit", "crossaudit/crawl", "crossaudit/replay", "crossaudit/commands"])];

/// A file's module path: `crossaudit/load/mod.rs` → `["crossaudit", "load"]`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib") {
        parts.push(stem.to_owned());
    }
    parts
}

/// The file's text with comments and the contents of string and character literals blanked,
/// line structure kept, so that braces and paths are read from code only.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                out.push(blank(b[i]));
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && (next == Some('"') || (next == Some('#') && b.get(i + 2).is_some_and(|&c| c == '"' || c == '#')))
        {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            out.push_str("\"\"");
            j += 1;
            while j < b.len() && !(b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#'))) {
                out.push(blank(b[j]));
                j += 1;
            }
            i = j + 1 + hashes;
        } else if c == '"' {
            out.push_str("\"\"");
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(blank(b[i]));
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' && (b.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            out.push_str("' '");
            let mut j = i + 1;
            if b.get(j) == Some(&'\\') {
                j += 1;
            }
            j += 1;
            while j < b.len() && b[j] != '\'' {
                j += 1;
            }
            i = j + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Every path a line of code names from `crate::`, `super::` or `self::` (and, in a `use`,
/// relative paths), as written: `["super", "load", "Options"]`. `use` groups are expanded.
fn written_paths(stmt: &str, is_use: bool) -> Vec<Vec<String>> {
    fn expand(prefix: &[String], rest: &str, out: &mut Vec<Vec<String>>) {
        let rest = rest.trim();
        if let Some(open) = rest.find('{') {
            let mut path = prefix.to_vec();
            path.extend(rest[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned));
            let inner = &rest[open + 1..rest.rfind('}').unwrap_or(rest.len())];
            let (mut depth, mut start) = (0, 0);
            for (k, ch) in inner.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&path, &inner[start..k], out);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            expand(&path, &inner[start..], out);
        } else {
            let mut path = prefix.to_vec();
            let body = rest.split(" as ").next().unwrap_or("");
            path.extend(body.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned));
            if path.len() > prefix.len() {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    if is_use {
        expand(&[], stmt, &mut out);
        return out;
    }
    let bytes = stmt.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = stmt[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let path: String =
                stmt[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':').collect();
            out.push(path.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect());
        }
    }
    out
}

/// One import inside the library: the file and line, the module it is written in (inline
/// modules included) and the deepest module its path names.
struct Import {
    file: PathBuf,
    line: usize,
    from: Vec<String>,
    to: Vec<String>,
}

/// Each line of a file, with the module it is written in.
type Scoped = Vec<(Vec<String>, String)>;

/// Every import of the library's files (the binary is another crate and is left out).
fn imports(files: &[(PathBuf, String)]) -> Vec<Import> {
    let lib: Vec<&(PathBuf, String)> =
        files.iter().filter(|(rel, _)| !rel.starts_with("bin") && rel.as_path() != Path::new("main.rs")).collect();
    let mut known: std::collections::BTreeSet<Vec<String>> = std::collections::BTreeSet::new();
    let mut scoped: Vec<(&PathBuf, Scoped)> = Vec::new();
    for (rel, text) in lib {
        let base = module_path(rel);
        for n in 0..=base.len() {
            known.insert(base[..n].to_vec());
        }
        // Each line with the module it is in: inline `mod x { … }` blocks open a module.
        let mut stack: Vec<(String, i64)> = Vec::new();
        let mut depth: i64 = 0;
        let mut lines = Vec::new();
        for line in code_only(text).lines() {
            let trimmed = line.trim_start();
            let decl = trimmed
                .strip_prefix("pub(crate) ")
                .or_else(|| trimmed.strip_prefix("pub(super) "))
                .or_else(|| trimmed.strip_prefix("pub "))
                .unwrap_or(trimmed)
                .strip_prefix("mod ")
                .and_then(|r| r.split_once('{'))
                .map(|(name, _)| name.trim().to_owned());
            let mut here = base.clone();
            here.extend(stack.iter().map(|(n, _)| n.clone()));
            if let Some(name) = &decl {
                here.push(name.clone());
                known.insert(here.clone());
                stack.push((name.clone(), depth));
            }
            lines.push((here, line.to_owned()));
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            while stack.last().is_some_and(|(_, d)| depth <= *d) {
                stack.pop();
            }
        }
        scoped.push((rel, lines));
    }
    let mut out = Vec::new();
    for (rel, lines) in scoped {
        let mut k = 0;
        while k < lines.len() {
            let (here, line) = &lines[k];
            let first = k;
            let t = line.trim_start();
            let t = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub ")).unwrap_or(t);
            let (stmt, is_use) = match t.strip_prefix("use ") {
                Some(u) => {
                    let mut s = u.to_owned();
                    while !s.contains(';') && k + 1 < lines.len() {
                        k += 1;
                        s.push(' ');
                        s.push_str(lines[k].1.trim());
                    }
                    (s.split(';').next().unwrap_or("").to_owned(), true)
                }
                None => (line.clone(), false),
            };
            for path in written_paths(&stmt, is_use) {
                if let Some(to) = resolve(&path, here, &known) {
                    out.push(Import { file: rel.clone(), line: first + 1, from: here.clone(), to });
                }
            }
            k += 1;
        }
    }
    out
}

/// The deepest module `path`, written in module `here`, names; `None` for paths outside the
/// library (`std::`, other crates).
fn resolve(path: &[String], here: &[String], known: &std::collections::BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut segs = path.iter().peekable();
    let mut cur: Vec<String> = match segs.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segs.next();
            Vec::new()
        }
        Some("super" | "self") => {
            let mut cur = here.to_vec();
            while let Some(s) = segs.next_if(|s| *s == "super" || *s == "self") {
                if s == "super" {
                    cur.pop()?;
                }
            }
            cur
        }
        Some(first) => {
            let mut child = here.to_vec();
            child.push(first.to_owned());
            if !known.contains(&child) {
                return None;
            }
            here.to_vec()
        }
        None => return None,
    };
    for s in segs {
        if s == "self" {
            continue;
        }
        cur.push(s.clone());
        if !known.contains(&cur) {
            cur.pop();
            break;
        }
    }
    Some(cur)
}

/// The child of folder module `dir` that module `m` lies in: a file or folder name, or `mod`
/// for the folder's own file (and modules declared inline in it).
fn child_of(dir: &[String], m: &[String], files: &std::collections::BTreeSet<Vec<String>>) -> Option<String> {
    if !m.starts_with(dir) {
        return None;
    }
    match m.get(dir.len()) {
        None => Some("mod".into()),
        Some(c) => {
            let mut child = dir.to_vec();
            child.push(c.clone());
            Some(if files.contains(&child) { c.clone() } else { "mod".into() })
        }
    }
}

/// Import circles among the files and folders of every folder module of `files` (the crate
/// root `lib.rs` included), the sources of the crate at `root`, one line per circle naming an
/// import that closes it; and the `exceptions` that no longer close one.
fn circles(root: &str, files: &[(PathBuf, String)], exceptions: &[Exception]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let imports = imports(files);
    let file_modules: BTreeSet<Vec<String>> =
        files.iter().filter(|(rel, _)| !rel.starts_with("bin")).map(|(rel, _)| module_path(rel)).collect();
    let folders: BTreeSet<Vec<String>> = files
        .iter()
        .filter(|(rel, _)| (rel.ends_with("mod.rs") || rel.as_path() == Path::new("lib.rs")) && !rel.starts_with("bin"))
        .map(|(rel, _)| module_path(rel))
        .collect();
    let mut out = Vec::new();
    let mut used = BTreeSet::new();
    for dir in &folders {
        let name = dir.join("/");
        let shown = if dir.is_empty() { "the crate root" } else { name.as_str() };
        let mut edges: BTreeMap<(String, String), &Import> = BTreeMap::new();
        for i in &imports {
            let (Some(a), Some(b)) = (child_of(dir, &i.from, &file_modules), child_of(dir, &i.to, &file_modules))
            else {
                continue;
            };
            if a == b {
                continue;
            }
            if exceptions.iter().any(|(m, x, y, _)| *m == name && *x == a && *y == b) {
                used.insert((name.clone(), a, b));
                continue;
            }
            edges.entry((a, b)).or_insert(i);
        }
        // A circle exists iff some edge a → b has a path back from b to a.
        let reaches = |from: &str, to: &str| {
            let mut seen = BTreeSet::from([from.to_owned()]);
            let mut todo = vec![from.to_owned()];
            while let Some(n) = todo.pop() {
                if n == to {
                    return true;
                }
                for (x, y) in edges.keys() {
                    if *x == n && seen.insert(y.clone()) {
                        todo.push(y.clone());
                    }
                }
            }
            false
        };
        let mut reported = BTreeSet::new();
        for ((a, b), i) in &edges {
            if reaches(b, a) && reported.insert(a.clone()) {
                out.push(format!(
                    "{root}/{}:{}: {shown}: `{a}` imports `{b}`, which leads back to `{a}`: an import circle",
                    i.file.display(),
                    i.line
                ));
            }
        }
    }
    for (m, a, b, _) in exceptions {
        // The crate root's exception holds while the importing module is in the sources.
        let in_sources = if m.is_empty() {
            files.iter().any(|(rel, _)| {
                rel.components().next().is_some_and(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs") == *a)
            })
        } else {
            files.iter().any(|(rel, _)| rel.starts_with(m))
        };
        if in_sources && !used.contains(&((*m).to_owned(), (*a).to_owned(), (*b).to_owned())) {
            out.push(format!("the exception {m}: {a} -> {b} is no longer needed: remove it from CIRCLE_EXCEPTIONS"));
        }
    }
    out
}

/// Checks that import another family's check, or a module above the checks (the module's face,
/// the crawl, the replay, the commands).
fn check_imports(files: &[(PathBuf, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for i in imports(files) {
        for (folder, above) in CHECK_FOLDERS {
            let folder: Vec<String> = folder.split('/').map(str::to_owned).collect();
            let Some(family) = i.from.get(folder.len()).filter(|_| i.from.starts_with(&folder)) else { continue };
            let to = i.to.join("/");
            if i.to.starts_with(&folder) && i.to.get(folder.len()).is_none_or(|f| f != family) {
                out.push(format!(
                    "src/{}:{}: the check `{family}` imports `{to}`: a check never imports another check",
                    i.file.display(),
                    i.line
                ));
            } else if above.iter().any(|a| to == *a || (*a != folder[0] && to.starts_with(&format!("{a}/")))) {
                out.push(format!(
                    "src/{}:{}: the check `{family}` imports `{to}`, which drives the checks: checks read the model below them",
                    i.file.display(),
                    i.line
                ));
            }
        }
    }
    out
}

#[test]
fn no_import_circle_inside_a_module() {
    let v = circles(LIB, &sources(), CIRCLE_EXCEPTIONS);
    assert!(v.is_empty(), "{} import circle(s) inside modules (docs/development.md):\n{}", v.len(), v.join("\n"));
}

#[test]
fn no_import_circle_in_the_fixture_crate() {
    let files = sources_in(FIXTURES);
    assert!(files.iter().any(|(rel, _)| rel.ends_with("mint/mod.rs")), "the fixture crate's sources are read");
    let v = circles(FIXTURES, &files, &[]);
    assert!(v.is_empty(), "{} import circle(s) in the fixture crate (docs/development.md):\n{}", v.len(), v.join("\n"));
}

#[test]
fn a_check_imports_no_other_check() {
    let v = check_imports(&sources());
    assert!(v.is_empty(), "{} check import(s) against the floors (docs/development.md):\n{}", v.len(), v.join("\n"));
}

#[test]
fn planted_circles_and_check_imports_are_reported() {
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_owned());
    let planted = vec![
        file("crossaudit/mod.rs", "mod load;\nmod model;\nmod invariants;\nmod crawl;\npub use load::Options;\n"),
        // A circle written with `super::` one way and `crate::` the other.
        file("crossaudit/load/mod.rs", "mod read;\nmod shard;\npub use read::load;\n"),
        file("crossaudit/load/read.rs", "use super::shard::Plan;\n"),
        file("crossaudit/load/shard.rs", "fn f() { crate::crossaudit::load::read::load(); }\n"),
        // `use super::*` in an inline test module names the file itself, not its parent.
        file("crossaudit/model.rs", "use super::load::Options;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"),
        file("crossaudit/invariants/mod.rs", "mod i1;\nmod i2;\n"),
        file(
            "crossaudit/invariants/i1.rs",
            "use crate::crossaudit::model::Ctx;\nuse super::{i2::norm, super::crawl::verify};\nfn s() -> &'static str { \"crate::crossaudit::crawl\" }\n",
        ),
        file("crossaudit/invariants/i2.rs", "// use super::i1::x;\nfn g() { let _ = super::super::Options::new(); }\n"),
        file("crossaudit/crawl/mod.rs", "mod verify;\n"),
        file("crossaudit/crawl/verify.rs", "use crate::crossaudit::invariants::{i1, i2};\n"),
        // The layer rule reads `super::` too: this is `stats` importing `crossaudit`.
        file("stats/mod.rs", "use super::crossaudit::Options;\n"),
    ];
    assert_eq!(
        circles(LIB, &planted, CIRCLE_EXCEPTIONS),
        vec![
            "src/crossaudit/crawl/verify.rs:1: crossaudit: `crawl` imports `invariants`, which leads back to `crawl`: an import circle".to_owned(),
            "src/crossaudit/invariants/i1.rs:2: crossaudit: `invariants` imports `crawl`, which leads back to `invariants`: an import circle".to_owned(),
            "src/crossaudit/load/read.rs:1: crossaudit/load: `read` imports `shard`, which leads back to `read`: an import circle".to_owned(),
            "src/crossaudit/load/shard.rs:1: crossaudit/load: `shard` imports `read`, which leads back to `shard`: an import circle".to_owned(),
        ]
    );
    assert_eq!(
        check_imports(&planted),
        vec![
            "src/crossaudit/invariants/i1.rs:2: the check `i1` imports `crossaudit/invariants/i2`: a check never imports another check".to_owned(),
            "src/crossaudit/invariants/i1.rs:2: the check `i1` imports `crossaudit/crawl/verify`, which drives the checks: checks read the model below them".to_owned(),
            "src/crossaudit/invariants/i2.rs:2: the check `i2` imports `crossaudit`, which drives the checks: checks read the model below them".to_owned(),
        ]
    );
    assert_eq!(
        violations(&planted),
        vec!["src/stats/mod.rs:1: stats -> crossaudit: `crossaudit` is a layer above `stats`".to_owned()]
    );
}

#[test]
fn planted_circles_in_the_fixture_crate_are_reported() {
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_owned());
    let planted = vec![
        file("lib.rs", "pub mod fixture;\npub mod identity;\npub mod mint;\npub mod signing;\n"),
        // Between two modules of the crate root: the builder signs, the signer takes the
        // builder's identity from it.
        file("fixture/mod.rs", "pub mod spec;\npub use crate::identity::EMAIL;\nfn f(m: crate::signing::Mode) {}\n"),
        file("signing.rs", "use crate::fixture::EMAIL;\n"),
        file("identity.rs", "pub const EMAIL: &str = \"\";\n"),
        // Inside a folder, through a glob: the face uses a child that takes everything from it.
        file("mint/mod.rs", "mod minter;\nmod scenario;\nuse scenario::*;\n"),
        file("mint/scenario.rs", "use super::*;\n"),
        // Below the face, no circle: a leaf model its siblings read.
        file("mint/minter.rs", "use super::scenario::Scenario;\n"),
        file("fixture/spec.rs", "use super::super::identity::EMAIL;\nuse crossverify::git::Repo;\n"),
    ];
    assert_eq!(
        circles(FIXTURES, &planted, &[]),
        vec![
            "ledger-fixtures/src/fixture/mod.rs:3: the crate root: `fixture` imports `signing`, which leads back to `fixture`: an import circle".to_owned(),
            "ledger-fixtures/src/signing.rs:1: the crate root: `signing` imports `fixture`, which leads back to `signing`: an import circle".to_owned(),
            "ledger-fixtures/src/mint/mod.rs:3: mint: `mod` imports `scenario`, which leads back to `mod`: an import circle".to_owned(),
            "ledger-fixtures/src/mint/scenario.rs:1: mint: `scenario` imports `mod`, which leads back to `scenario`: an import circle".to_owned(),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Generic layers name no protocol: they know records, durations, counts, distributions and
// claims, and take every protocol's words (its decisions, its numbering, its files, what its
// views call the order of its records) from the protocol's adapter.

/// Layers that must name no protocol, tests included. The other generic layers join the list as
/// they are cleared (issue 22).
const PROTOCOL_FREE: &[&str] = &["stats"];

/// Words that name a protocol, its records or its verdicts, matched at the start of a word in
/// any case: `ledgers` and `Receipt` are caught, `determined` is not.
const PROTOCOL_WORDS: &[&str] = &[
    "crossaudit",
    "crossexam",
    "proof-or-stop",
    "proof_or_stop",
    "ledger",
    "receipt",
    "runner",
    "constitution",
    "transcript",
    "freeze",
    "mining",
    "mined",
    "cycles.jsonl",
    "cycles-b.json",
    "summary.json",
    "analysis.json",
    "findings_lifecycle.json",
    "findings.json",
    "bus.jsonl",
];

/// Verdict and numbering words matched as written, at the start of a word (`PASS_WITH_CAVEATS`
/// and `CYCLE-000001` are caught, `LIFECYCLE` is not).
const PROTOCOL_TOKENS: &[&str] = &["CYCLE", "PASS", "BLOCK"];

/// Every protocol word in the files of the protocol-free layers, one line per word and line.
fn protocol_words(files: &[(PathBuf, String)]) -> Vec<String> {
    let starts_word =
        |text: &str, at: usize| text[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric() && c != '_');
    let found = |text: &str, word: &str| {
        let mut from = 0;
        while let Some(k) = text[from..].find(word) {
            let at = from + k;
            let end = at + word.len();
            let upper_token_ends = word.chars().all(|c| c.is_ascii_uppercase())
                && text[end..].chars().next().is_some_and(char::is_alphabetic);
            if starts_word(text, at) && !upper_token_ends {
                return true;
            }
            from = end;
        }
        false
    };
    let mut out = Vec::new();
    for (rel, text) in files {
        let Some(m) = module_of(rel) else { continue };
        if !PROTOCOL_FREE.contains(&m.as_str()) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let words = PROTOCOL_WORDS.iter().filter(|w| found(&lower, w));
            for w in words.chain(PROTOCOL_TOKENS.iter().filter(|t| found(line, t))) {
                out.push(format!(
                    "src/{}:{}: {m} names `{w}`: a protocol word in a generic layer",
                    rel.display(),
                    n + 1
                ));
            }
        }
    }
    out
}

#[test]
fn no_protocol_word_in_a_generic_layer() {
    let v = protocol_words(&sources());
    assert!(
        v.is_empty(),
        "{} protocol word(s) in a generic layer; take them from the protocol's adapter (docs/development.md):\n{}",
        v.len(),
        v.join("\n")
    );
}

#[test]
fn a_planted_protocol_word_is_reported() {
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_owned());
    let planted = vec![
        file(
            "stats/views.rs",
            "// Cycles in Ledger order.\nlet gate = (\"PASS_WITH_CAVEATS\", \"BLOCK\");\nuse super::checks::LIFECYCLE; // determined, PASSES\n",
        ),
        file("stats/input.rs", "const F: &str = \"cycles.jsonl\"; // CYCLE-000001\n"),
        // A protocol's own directory may use its words.
        file("crossaudit/stats/input.rs", "const F: &str = \"cycles.jsonl\"; // CYCLE-000001 PASS\n"),
    ];
    assert_eq!(
        protocol_words(&planted),
        vec![
            "src/stats/views.rs:1: stats names `ledger`: a protocol word in a generic layer".to_owned(),
            "src/stats/views.rs:2: stats names `PASS`: a protocol word in a generic layer".to_owned(),
            "src/stats/views.rs:2: stats names `BLOCK`: a protocol word in a generic layer".to_owned(),
            "src/stats/input.rs:1: stats names `cycles.jsonl`: a protocol word in a generic layer".to_owned(),
            "src/stats/input.rs:1: stats names `CYCLE`: a protocol word in a generic layer".to_owned(),
        ]
    );
}

#[test]
fn a_stale_circle_exception_is_reported() {
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_owned());
    let planted =
        vec![file("lib.rs", "pub mod git;\n"), file("git/mod.rs", "mod repo;\nmod tree;\n"), file("git/tree.rs", "")];
    let stale: &[Exception] = &[("git", "tree", "mod", "was a circle once")];
    assert_eq!(
        circles(LIB, &planted, stale),
        vec!["the exception git: tree -> mod is no longer needed: remove it from CIRCLE_EXCEPTIONS".to_owned()]
    );
}

/// Longest file allowed in `src/` (issue 22; functions are held to 100 lines by clippy's
/// `too_many_lines`, configured in `clippy.toml`).
const MAX_FILE_LINES: usize = 800;

fn long_files(files: &[(PathBuf, String)]) -> Vec<String> {
    files
        .iter()
        .map(|(p, text)| (p, text.lines().count()))
        .filter(|(_, n)| *n > MAX_FILE_LINES)
        .map(|(p, n)| format!("src/{}: {n} lines, more than {MAX_FILE_LINES}: split it along its seams", p.display()))
        .collect()
}

#[test]
fn no_source_file_is_longer_than_800_lines() {
    let long = long_files(&sources_in(LIB));
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn a_planted_long_file_is_reported() {
    let planted =
        vec![(PathBuf::from("report/mod.rs"), "x\n".repeat(801)), (PathBuf::from("ok.rs"), "x\n".repeat(800))];
    assert_eq!(
        long_files(&planted),
        vec!["src/report/mod.rs: 801 lines, more than 800: split it along its seams".to_owned()]
    );
}

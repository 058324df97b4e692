//! Records the commit the tool is built from (`CROSSVERIFY_BUILD_COMMIT`), so an archived report
//! names the exact code that verified it (`tool.commit`). A build outside a git checkout (a
//! crates.io package) records none unless the packager sets the variable; the git queried is
//! isolated from the builder's configuration, as verification is.
//!
//! Lists the conformance suite's files for `src/conformance/embedded.rs`, so an installed
//! binary carries the suite (issue 47): one `include_bytes!` per file its manifest lists.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| text.trim().to_owned()).filter(|t| !t.is_empty())
}

fn main() {
    embed_conformance_suite();
    println!("cargo:rerun-if-env-changed=CROSSVERIFY_BUILD_COMMIT");
    if let Ok(given) = std::env::var("CROSSVERIFY_BUILD_COMMIT") {
        println!("cargo:rustc-env=CROSSVERIFY_BUILD_COMMIT={given}");
        return;
    }
    // Rebuild when HEAD moves: the HEAD file itself and the branch it points at.
    for path in [
        git(&["rev-parse", "--git-path", "HEAD"]),
        git(&["rev-parse", "--symbolic-full-name", "HEAD"]).and_then(|r| git(&["rev-parse", "--git-path", &r])),
    ]
    .into_iter()
    .flatten()
    {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(commit) = git(&["rev-parse", "--verify", "HEAD^{commit}"]).filter(|c| c.len() == 40 || c.len() == 64) {
        println!("cargo:rustc-env=CROSSVERIFY_BUILD_COMMIT={commit}");
    }
}

/// Where the suite's manifest lives in the crate (and in the package: Cargo.toml's `include`).
const SUITE_DIR: &str = "test-vectors/conformance";

/// Writes `$OUT_DIR/conformance_suite.rs`: the manifest and every file it lists, each as an
/// `include_bytes!` of its absolute path. The compiler then records each file in the crate's
/// dep-info, so a changed file rebuilds the crate and `.ci/packages` checks that each is
/// packaged; this script reads only the manifest (which files), hence its one
/// `rerun-if-changed`. The digests are not trusted here: the embedded suite is checked against
/// its manifest when it is loaded, as a suite on disk is.
fn embed_conformance_suite() {
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let suite = crate_dir.join(SUITE_DIR);
    let manifest = suite.join("manifest.json");
    println!("cargo:rerun-if-changed={}", manifest.display());
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("{}: {e} (the conformance suite is built into the binary)", manifest.display()));
    let root_rel = string_member(&text, "root").unwrap_or_else(|| panic!("{}: no root", manifest.display()));
    let root = normalise(&suite.join(root_rel));
    let manifest_dir = suite
        .strip_prefix(&root)
        .unwrap_or_else(|_| panic!("{}: the manifest is outside its root {}", manifest.display(), root.display()))
        .to_str()
        .expect("a UTF-8 path")
        .to_owned();
    let files = file_names(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut out = String::new();
    let _ = writeln!(out, "/// The manifest's directory, relative to the suite's root.");
    let _ = writeln!(out, "pub(super) const MANIFEST_DIR: &str = {manifest_dir:?};");
    let _ = writeln!(out, "/// The manifest's bytes.");
    let _ = writeln!(out, "pub(super) const MANIFEST_BYTES: &[u8] = include_bytes!({:?});", path_str(&manifest));
    let _ = writeln!(out, "/// Every file the manifest lists, relative to the suite's root, with its bytes.");
    let _ = writeln!(out, "pub(super) const FILES: &[(&str, &[u8])] = &[");
    for rel in &files {
        let _ = writeln!(out, "    ({rel:?}, include_bytes!({:?})),", path_str(&root.join(rel)));
    }
    let _ = writeln!(out, "];");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("conformance_suite.rs");
    // Rewritten only when it changes, so an unrelated rerun does not rebuild the crate.
    if std::fs::read_to_string(&dest).ok().as_deref() != Some(out.as_str()) {
        std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("the conformance suite's paths are UTF-8")
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The string value of a top-level member, as the suite generator writes the manifest (one
/// member per line, paths without escapes).
fn string_member<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!("\n  \"{key}\": \""))? + key.len() + 8;
    text.get(at..)?.split('"').next()
}

/// The names in the manifest's `files` object. A path with a quote or a backslash is refused:
/// the reader refuses it too, and this scanner does not unescape.
fn file_names(text: &str) -> Result<Vec<String>, String> {
    let start = text.find("\"files\": {").ok_or("no files object")? + "\"files\": {".len();
    let body = text.get(start..).and_then(|t| t.split('}').next()).ok_or("files is not closed")?;
    let mut names = Vec::new();
    for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let rest = line.strip_prefix('"').ok_or_else(|| format!("unexpected line in files: {line}"))?;
        let (name, _) = rest.split_once("\": \"").ok_or_else(|| format!("unexpected line in files: {line}"))?;
        if name.contains(['\\', '"']) {
            return Err(format!("files: {name}: a path with a quote or a backslash"));
        }
        names.push(name.to_owned());
    }
    if names.is_empty() {
        return Err("files is empty".into());
    }
    Ok(names)
}

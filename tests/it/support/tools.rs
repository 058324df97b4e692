//! External validators (SARIF Multitool, xmllint, Chromium) for the output-format tests.
//!
//! `bash .ci/test` installs them. When one is missing, a test prints a skip notice and
//! returns, unless `CROSSVERIFY_REQUIRE_TOOLS` is set (CI sets it), in which case it fails.
#![allow(dead_code, unreachable_pub)]

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Where `.ci/test` installs npm tools: `target/tools`.
pub fn tools_dir() -> PathBuf {
    std::env::var_os("CROSSVERIFY_TOOLS")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/tools"), PathBuf::from)
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}

/// The SARIF Multitool's native binary (the npm wrapper quotes arguments through a shell).
pub fn sarif_multitool() -> Option<PathBuf> {
    let p = tools_dir().join("node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    p.is_file().then_some(p)
}

/// `xmllint` from libxml2-utils.
pub fn xmllint() -> Option<PathBuf> {
    on_path("xmllint")
}

/// Debian's `chromium`.
pub fn chromium() -> Option<PathBuf> {
    on_path("chromium").or_else(|| on_path("chromium-browser"))
}

/// Returns the tool, or `None` after printing why the test is skipped; panics instead when
/// `CROSSVERIFY_REQUIRE_TOOLS` is set.
pub fn require(name: &str, found: Option<PathBuf>) -> Option<PathBuf> {
    if found.is_some() {
        return found;
    }
    let required = std::env::var_os("CROSSVERIFY_REQUIRE_TOOLS").is_some_and(|v| !v.is_empty());
    assert!(!required, "{name} is required (CROSSVERIFY_REQUIRE_TOOLS is set) but not installed; run `bash .ci/test`");
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {name} is not installed, so this validation did not run. `bash .ci/test` installs it."
    );
    None
}

/// Directory under `target/` for files tests leave for people to look at.
pub fn artifacts() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-artifacts");
    std::fs::create_dir_all(&d).expect("create target/test-artifacts");
    d
}

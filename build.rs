//! Records the commit the tool is built from (`CROSSVERIFY_BUILD_COMMIT`), so an archived report
//! names the exact code that verified it (`tool.commit`). A build outside a git checkout (a
//! crates.io package) records none unless the packager sets the variable; the git queried is
//! isolated from the builder's configuration, as verification is.

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

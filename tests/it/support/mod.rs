//! Shared helpers for integration tests: fixtures, the binary, vectors.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `crossverify` binary under test, with an environment that cannot leak the host's git
/// configuration or colour settings into results, nor write into the developer's home.
pub fn crossverify() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_crossverify"));
    c.env("NO_COLOR", "1").env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null");
    isolate(&mut c);
    c
}

/// Points the cache (on by default) and its key file at a home under the target directory,
/// shared by the tests of this process, and clears the cache variables a developer may have
/// set; a test that wants them sets them after this.
pub fn isolate(c: &mut Command) -> &mut Command {
    let home = test_home();
    c.env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env_remove("CROSSVERIFY_CACHE_DIR")
        .env_remove("CROSSVERIFY_CACHE_KEY")
        .env_remove("CROSSVERIFY_NO_CACHE")
}

/// `$CARGO_TARGET_TMPDIR/test-home`, created once per process.
pub fn test_home() -> &'static Path {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-home");
        std::fs::create_dir_all(&home).expect("create the tests' home under the target directory");
        // The run that creates a cache says where it is; made here, before any test runs, so
        // which test goes first never changes what another prints.
        let dir = home.join("cache/crossverify");
        let key = crossverify::cache::key::find_with(None, &dir, Some(&home.join("state/crossverify/cache-key")))
            .expect("a key file for the tests' cache");
        drop(crossverify::cache::Cache::open(&dir, key.0).expect("the tests' cache"));
        home
    })
}

/// The name of every `.toml` scenario under `ledger-fixtures/`, sorted.
pub fn scenarios() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("ledger-fixtures"))
        .expect("ledger-fixtures")
        .map(|e| e.expect("entry").path())
        // The minter's own crate manifest lives beside its scenarios.
        .filter(|p| p.extension().is_some_and(|e| e == "toml") && !p.ends_with("Cargo.toml"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Materialises fixture `name` (a directory or a `.toml` scenario under `ledger-fixtures/`)
/// into `dir/name` and returns that path.
pub fn materialize(name: &str, dir: &Path) -> PathBuf {
    let src = root().join("ledger-fixtures").join(name);
    let out = dir.join(name);
    if src.is_dir() {
        copy_dir(&src, &out);
        return out;
    }
    let scenario = src.with_extension("toml");
    assert!(scenario.is_file(), "no fixture ledger-fixtures/{name} (directory or .toml scenario)");
    crossverify_fixtures::mint::build_file(&scenario, &out).unwrap_or_else(|e| panic!("building {name}: {e}"));
    out
}

/// Recursive copy (regular files and directories only; fixtures hold nothing else).
pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("create fixture dir");
    for entry in std::fs::read_dir(src).expect("read fixture dir") {
        let entry = entry.expect("dir entry");
        let to = dst.join(entry.file_name());
        let ty = entry.file_type().expect("file type");
        if ty.is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).expect("copy fixture file");
        }
    }
}

/// Runs `git` with an isolated configuration (the independent reference in tests).
pub fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// One parsed vector file.
pub struct Vector {
    pub id: String,
    pub file: String,
    pub args: Vec<String>,
    pub exit: i32,
    pub results: Vec<Value>,
    pub absent: Vec<Value>,
    /// The exact set of error-level codes that fail (`expect.failing`); `None` when the vector
    /// does not state it (only allowed for exit 2, where no report is written).
    pub failing: Option<Vec<String>>,
    /// A fragment the error message must contain (`expect.stderr`, exit 2 only).
    pub stderr: Option<String>,
    pub path: std::path::PathBuf,
    /// Cargo features the vector needs (`features`); such vectors are run by their feature's
    /// own test (`tests/it/sigstore.rs` for `sigstore`), not by `tests/it/vectors.rs`.
    pub features: Vec<String>,
}

pub fn load_vectors() -> Vec<Vector> {
    let dir = root().join("test-vectors/checks");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("test-vectors/checks").map(|e| e.expect("entry").path()).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).expect("read vector")).expect("vector is JSON");
            let strs = |v: &Value| -> Vec<String> {
                v.as_array().expect("array").iter().map(|s| s.as_str().expect("string").to_owned()).collect()
            };
            Vector {
                id: v["id"].as_str().expect("id").to_owned(),
                file: p.file_name().expect("name").to_string_lossy().into_owned(),
                args: strs(&v["args"]),
                exit: i32::try_from(v["expect"]["exit"].as_i64().expect("expect.exit")).expect("small"),
                results: v["expect"]["results"].as_array().cloned().unwrap_or_default(),
                absent: v["expect"]["absent"].as_array().cloned().unwrap_or_default(),
                failing: v["expect"].get("failing").map(strs),
                stderr: v["expect"]["stderr"].as_str().map(str::to_owned),
                path: p.clone(),
                features: v.get("features").map(strs).unwrap_or_default(),
            }
        })
        .collect()
}

/// Clones branch `main` of a git bundle (the shared real ledgers are kept as bundles) with an
/// isolated git configuration.
pub fn clone_bundle(bundle: &Path, dest: &Path) {
    let out = Command::new("git")
        .args(["clone", "-q", "-b", "main"])
        .arg(bundle)
        .arg(dest)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git clone {}: {}", bundle.display(), String::from_utf8_lossy(&out.stderr));
}

/// The journal's folder of the guide's Quick start 2 in `dir`: the authors' `submission.zip`
/// (the two bundles of the paired product ledger, in a folder of their own, pinned dates) and
/// the editor's key pair `editor_ed25519`, `editor_ed25519.pub`.
pub fn journal_folder(dir: &Path) {
    let case = root().join("test-vectors/real/crossaudit/schema2-ledgers/paired-multiround-r2");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(dir.join("submission.zip")).expect("zip"));
    let opts = zip::write::SimpleFileOptions::default()
        .last_modified_time(zip::DateTime::from_date_and_time(2026, 1, 2, 3, 4, 5).expect("date"));
    for name in ["science.bundle", "audit.bundle"] {
        zip.start_file(format!("paper-1234/{name}"), opts).expect("member");
        std::io::Write::write_all(&mut zip, &std::fs::read(case.join(name)).expect("bundle")).expect("write");
    }
    zip.finish().expect("zip");
    let key = crossverify_fixtures::signing::TestKey::named("journal-editor");
    std::fs::write(dir.join("editor_ed25519"), key.private_openssh()).expect("key");
    std::fs::write(dir.join("editor_ed25519.pub"), format!("{}\n", key.public_openssh())).expect("key");
}

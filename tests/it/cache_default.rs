//! The cache on by default (issue 14, docs/scale.md): a run with no flags keeps its entries in
//! `$XDG_CACHE_HOME/crossverify` under a key in `$XDG_STATE_HOME/crossverify` and reads them
//! back; `--no-cache` and `CROSSVERIFY_NO_CACHE=1` write nothing; a default cache that cannot
//! be used costs one line on standard error and changes nothing else, while a directory named
//! with `--cache DIR` that cannot be written stops the run.

use crate::cache_lines;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use crossverify::cache::{self, Key};

/// A fixture and a home of its own: `xdg-cache` and `xdg-state` are not created beforehand.
struct Home {
    tmp: tempfile::TempDir,
    ledger: PathBuf,
}

impl Home {
    fn new(fixture: &str) -> Home {
        let tmp = tempfile::tempdir().expect("tempdir");
        let ledger = support::materialize(fixture, tmp.path());
        Home { tmp, ledger }
    }

    fn cache_home(&self) -> PathBuf {
        self.tmp.path().join("xdg-cache")
    }

    fn state_home(&self) -> PathBuf {
        self.tmp.path().join("xdg-state")
    }

    fn db(&self) -> PathBuf {
        self.cache_home().join("crossverify").join(cache::FILE)
    }

    fn key_file(&self) -> PathBuf {
        self.state_home().join("crossverify/cache-key")
    }

    /// `crossverify ARGS` with this home's XDG directories and `env` on top.
    fn run_with(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut c = support::crossverify();
        c.env("XDG_CACHE_HOME", self.cache_home()).env("XDG_STATE_HOME", self.state_home());
        for (k, v) in env {
            c.env(k, v);
        }
        c.args(args).output().expect("run crossverify")
    }

    /// `crossverify ledger` on the fixture, JSON on standard output.
    fn ledger(&self, extra: &[&str], env: &[(&str, &Path)]) -> Output {
        let (audit, science) = (self.ledger.join("audit"), self.ledger.join("science"));
        let mut args = vec!["ledger", "--audit", path(&audit), "--science", path(&science), "--format", "json"];
        args.extend_from_slice(extra);
        self.run_with(&args, env)
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn same_report(a: &Output, b: &Output) {
    assert_eq!(a.status.code(), b.status.code(), "exit codes differ: {}", stderr(b));
    assert!(a.stdout == b.stdout, "report bytes differ\n{}", stderr(b));
}

fn figure(o: &Output, word: &str) -> u64 {
    cache_lines::figure(&stderr(o), word)
}

/// The blob-digest entries' table keys start with this (`src/manifest/mod.rs`).
const BLOB_KEY: &[u8] = b"blob-sha256/";

/// Re-signs every blob-digest entry under `key` with a digest of zeros (what a tampered
/// receipt would need) and removes every other kind of entry, so that the digests are
/// consulted; returns how many were forged.
fn forge(db: &Path, key: &Key) -> usize {
    let forged = std::cell::Cell::new(0);
    cache_lines::edit_rows(db, |k, v| {
        // The payload is the digest then the size (8 bytes), before the 32-byte MAC.
        k.starts_with(BLOB_KEY).then(|| {
            forged.set(forged.get() + 1);
            let size = &v[v.len() - 32 - 8..v.len() - 32];
            cache::entry::encode(key, cache::VERSION, k, &[[0u8; 32].as_slice(), size].concat())
        })
    });
    forged.get()
}

/// Nothing under `home` but what the test made: no cache directory, no key.
fn wrote_nothing(h: &Home, how: &str) {
    assert!(!h.cache_home().exists(), "{how}: the cache directory was created");
    assert!(!h.state_home().exists(), "{how}: the key's directory was created");
}

#[test]
fn a_run_without_flags_keeps_its_entries_in_the_platform_directories_and_reads_them_back() {
    let h = Home::new("v1-genuine");
    let plain = h.ledger(&["--no-cache"], &[]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let first = h.ledger(&[], &[]);
    same_report(&plain, &first);
    assert_eq!(
        stderr(&first),
        format!(
            "crossverify: cache: keeping authenticated results between runs in {} (key: {}); --no-cache or \
             CROSSVERIFY_NO_CACHE=1 runs without\n",
            h.db().display(),
            h.key_file().display()
        ),
        "the run that creates the default cache says where it and its key are, and nothing else"
    );
    assert!(h.db().is_file(), "no {}", h.db().display());
    let raw = std::fs::read(h.key_file()).expect("the key file was created");
    assert_eq!(raw.len(), 32);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(h.key_file()).expect("key").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let second = h.ledger(&[], &[]);
    same_report(&plain, &second);
    assert_eq!(stderr(&second), "", "the default cache says nothing more when all is well");
    // `--cache` alone names the same directory and prints the figures.
    let named = h.ledger(&["--cache"], &[]);
    same_report(&plain, &named);
    assert!(figure(&named, "hits") > 0 && figure(&named, "written") == 0, "{}", stderr(&named));
    // The run without flags reads those entries: blob digests forged under the key file's key
    // are believed (the threat model's boundary, `tests/it/cache.rs`), and the report changes.
    let key = Key::from_bytes(raw.try_into().expect("32 bytes"));
    let forged_rows = forge(&h.db(), &key);
    assert!(forged_rows > 0, "the first run wrote blob digests");
    let forged = h.ledger(&[], &[]);
    assert_eq!(forged.status.code(), Some(1), "the forged digests were read: {}", stderr(&forged));
    let audit = h.ledger(&["--cache-audit"], &[]);
    same_report(&plain, &audit);
    let err = stderr(&audit);
    assert!(err.contains("; audit: ") && !err.contains("; audit: 0 of"), "{err}");
}

#[test]
fn no_cache_and_crossverify_no_cache_write_nothing() {
    let h = Home::new("v1-genuine");
    let off = h.ledger(&["--no-cache"], &[]);
    assert_eq!(off.status.code(), Some(0), "{}", stderr(&off));
    wrote_nothing(&h, "--no-cache");
    let one = Path::new("1");
    let env_off = h.ledger(&[], &[("CROSSVERIFY_NO_CACHE", one)]);
    same_report(&off, &env_off);
    assert_eq!(stderr(&env_off), "");
    wrote_nothing(&h, "CROSSVERIFY_NO_CACHE=1");
    // It also turns off a directory given by the environment...
    let elsewhere = h.tmp.path().join("env-cache");
    let both = h.ledger(&[], &[("CROSSVERIFY_NO_CACHE", one), ("CROSSVERIFY_CACHE_DIR", &elsewhere)]);
    same_report(&off, &both);
    assert!(!elsewhere.exists(), "CROSSVERIFY_NO_CACHE=1 beats CROSSVERIFY_CACHE_DIR");
    wrote_nothing(&h, "CROSSVERIFY_NO_CACHE=1 with CROSSVERIFY_CACHE_DIR");
    // ...but not a cache asked for on the command line, nor does "0" turn anything off.
    let asked = h.ledger(&["--cache"], &[("CROSSVERIFY_NO_CACHE", one)]);
    same_report(&off, &asked);
    assert!(h.db().is_file(), "--cache beats CROSSVERIFY_NO_CACHE: {}", stderr(&asked));
    std::fs::remove_dir_all(h.cache_home()).expect("clean");
    let zero = h.ledger(&[], &[("CROSSVERIFY_NO_CACHE", Path::new("0"))]);
    same_report(&off, &zero);
    assert!(h.db().is_file(), "CROSSVERIFY_NO_CACHE=0 leaves the cache on");
}

/// What is wrong, the environment that makes it so, and what the one line says.
type Case<'a> = (&'a str, Vec<(&'a str, PathBuf)>, &'a str);

#[test]
fn a_default_cache_that_cannot_be_used_costs_one_line_and_nothing_else() {
    let h = Home::new("s2-manifest-digest");
    let plain = h.ledger(&["--no-cache"], &[]);
    assert_eq!(plain.status.code(), Some(1), "the tampered fixture fails: {}", stderr(&plain));
    let file = h.tmp.path().join("a-file");
    std::fs::write(&file, "not a directory\n").expect("file");
    let cases: [Case; 4] = [
        ("XDG_CACHE_HOME is a file", vec![("XDG_CACHE_HOME", file.clone())], "not used"),
        ("CROSSVERIFY_CACHE_DIR is under a file", vec![("CROSSVERIFY_CACHE_DIR", file.join("c"))], "not used"),
        ("XDG_STATE_HOME is a file", vec![("XDG_STATE_HOME", file.clone())], "not used"),
        (
            "the key file would be inside the cache",
            vec![("XDG_STATE_HOME", h.cache_home())],
            "inside the cache directory",
        ),
    ];
    for (what, env, says) in &cases {
        let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
        let o = h.ledger(&[], &env);
        same_report(&plain, &o);
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{what}: one line: {err}");
        assert!(err.starts_with("crossverify: cache ") && err.contains(says), "{what}: {err}");
        assert!(!h.db().exists(), "{what}: no database was written");
        let quiet = h.ledger(&["--quiet"], &env);
        same_report(&plain, &quiet);
        assert_eq!(stderr(&quiet), "", "{what}: --quiet");
        let _ = std::fs::remove_dir_all(h.cache_home());
    }
    assert!(!h.key_file().exists(), "no key is made for a cache that cannot be written");
    read_only(&h, &plain);
    // No HOME and no XDG_CACHE_HOME: no directory at all.
    let o = support::crossverify()
        .env_remove("HOME")
        .env_remove("XDG_CACHE_HOME")
        .args(["ledger", "--audit", path(&h.ledger.join("audit")), "--science", path(&h.ledger.join("science"))])
        .args(["--format", "json"])
        .output()
        .expect("run crossverify");
    same_report(&plain, &o);
    assert_eq!(
        stderr(&o),
        "crossverify: cache not used: no directory (set CROSSVERIFY_CACHE_DIR, XDG_CACHE_HOME or HOME)\n"
    );
}

/// A read-only cache home: a 0500 directory (skipped where permissions do not bind: root, or
/// a process with CAP_DAC_OVERRIDE, as in some containers), and on Linux `/sys`, where not even
/// root may make a directory.
#[cfg(unix)]
fn read_only(h: &Home, plain: &Output) {
    use std::os::unix::fs::PermissionsExt as _;
    if cfg!(target_os = "linux") {
        let o = h.ledger(&[], &[("XDG_CACHE_HOME", Path::new("/sys"))]);
        same_report(plain, &o);
        let err = stderr(&o);
        assert!(err.lines().count() == 1 && err.starts_with("crossverify: cache /sys/crossverify not used"), "{err}");
    }
    let ro = h.tmp.path().join("read-only");
    std::fs::create_dir_all(&ro).expect("dir");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o500)).expect("chmod");
    if std::fs::write(ro.join("probe"), b"").is_ok() {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: a 0500 cache home: this process may write into it (root or CAP_DAC_OVERRIDE)"
        );
        return;
    }
    let o = h.ledger(&[], &[("XDG_CACHE_HOME", &ro)]);
    same_report(plain, &o);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o700)).expect("chmod back");
}

#[cfg(not(unix))]
fn read_only(_h: &Home, _plain: &Output) {}

#[test]
fn a_directory_named_with_cache_that_cannot_be_written_stops_the_run() {
    let h = Home::new("v1-genuine");
    let file = h.tmp.path().join("a-file");
    std::fs::write(&file, "not a directory\n").expect("file");
    let named = file.join("cache");
    let o = h.ledger(&["--cache", path(&named)], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "no report");
    let err = stderr(&o);
    assert!(err.starts_with("crossverify: error: --cache: ") && err.contains(path(&named)), "{err}");
    assert!(err.contains("--no-cache"), "says how to go on: {err}");
    // A key is another matter: a CI run without the secret (an empty CROSSVERIFY_CACHE_KEY,
    // as GitHub gives pull requests from forks) goes on without the cache.
    let plain = h.ledger(&["--no-cache"], &[]);
    let dir = h.tmp.path().join("named");
    let no_key = h.ledger(&["--cache", path(&dir)], &[("CROSSVERIFY_CACHE_KEY", Path::new(""))]);
    same_report(&plain, &no_key);
    let err = stderr(&no_key);
    assert!(err.lines().count() == 1 && err.contains("set but empty"), "{err}");
    assert!(!dir.join(cache::FILE).exists());
}

#[test]
fn batch_uses_the_default_cache_too() {
    let h = Home::new("v1-genuine");
    let list = h.tmp.path().join("queue.jsonl");
    std::fs::write(&list, "{\"audit\": \"v1-genuine/audit\", \"science\": \"v1-genuine/science\"}\n").expect("list");
    let out = h.tmp.path().join("out.jsonl");
    let o = h.run_with(&["batch", path(&list), "--output-jsonl", path(&out), "--quiet"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(h.db().is_file(), "batch wrote the default cache");
    let again = h.tmp.path().join("again.jsonl");
    let o = h.run_with(&["batch", path(&list), "--output-jsonl", path(&again), "--cache"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(figure(&o, "hits") > 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).expect("out"), std::fs::read(&again).expect("again"));
}

/// Issue 46: the default directory is one nobody named, so a link in its place was not made by
/// the user but planted (a CI cache restored from an archive a pull request wrote): neither
/// it nor a link as its database is followed. The run goes on without the cache, in one line,
/// and nothing is made where the links point. Failed before the fix: the run created the
/// database at the dangling link's target, and a database in the directory linked to.
#[cfg(unix)]
#[test]
fn links_planted_in_the_default_cache_are_not_followed() {
    use std::os::unix::fs::symlink;
    let h = Home::new("v1-genuine");
    let plain = h.ledger(&["--no-cache"], &[]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let outside = h.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    let dir = h.cache_home().join("crossverify");
    std::fs::create_dir_all(&dir).expect("dir");
    let target = outside.join("target");
    symlink(&target, h.db()).expect("symlink");
    let o = h.ledger(&[], &[]);
    same_report(&plain, &o);
    assert!(!target.exists(), "the run created the link's target: {}", stderr(&o));
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).expect("rm");
    // The directory itself a link to one of the user's own directories.
    let mine = outside.join("mine");
    std::fs::create_dir(&mine).expect("mine");
    symlink(&mine, &dir).expect("symlink");
    let o = h.ledger(&[], &[]);
    same_report(&plain, &o);
    let err = stderr(&o);
    assert!(err.lines().count() == 1 && err.contains("not used") && err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(&mine).expect("mine").count(), 0, "files made through the link: {err}");
    // Named (`CROSSVERIFY_CACHE_DIR`), the same link is the user's own, and followed.
    let o = h.ledger(&[], &[("CROSSVERIFY_CACHE_DIR", &dir)]);
    same_report(&plain, &o);
    assert!(mine.join(cache::FILE).is_file(), "{}", stderr(&o));
}

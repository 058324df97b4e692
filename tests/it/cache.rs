//! The persistent cache (issue 14, docs/scale.md): it never changes a report's bytes, and a
//! poisoned, damaged, foreign or concurrently written cache is dropped or survived, never
//! trusted.

use crate::cache_lines;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use crossverify::cache::{self, Cache, Key};

const SECRET: &str = "crossverify-test-cache-secret";

struct Ledger {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    cache: PathBuf,
}

fn ledger(name: &str) -> Ledger {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize(name, tmp.path());
    let cache = tmp.path().join("cache");
    Ledger { _tmp: tmp, dir, cache }
}

fn run(l: &Ledger, extra: &[&str]) -> Output {
    support::crossverify()
        .args(["ledger", "--audit"])
        .arg(l.dir.join("audit"))
        .arg("--science")
        .arg(l.dir.join("science"))
        .args(["--format", "json"])
        .args(extra)
        .env("CROSSVERIFY_CACHE_KEY", SECRET)
        .env_remove("CROSSVERIFY_CACHE_DIR")
        .output()
        .expect("run crossverify")
}

fn cached(l: &Ledger, extra: &[&str]) -> Output {
    let mut args = vec!["--cache", l.cache.to_str().expect("utf-8 temp path")];
    args.extend_from_slice(extra);
    run(l, &args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The figure before `word` in the cache's stderr line.
fn figure(o: &Output, word: &str) -> u64 {
    cache_lines::figure(&stderr(o), word)
}

fn same_report(a: &Output, b: &Output) {
    assert_eq!(a.status.code(), b.status.code(), "exit codes differ: {}", stderr(b));
    assert!(a.stdout == b.stdout, "report bytes differ with the cache\n{}", stderr(b));
}

/// Rewrites every entry of the cache's database with `f(table key, stored bytes)`.
fn rewrite(cache_dir: &Path, f: impl Fn(&[u8], &[u8]) -> Vec<u8>) -> usize {
    cache_lines::edit_rows(&cache_dir.join(cache::FILE), |k, v| Some(f(k, v)))
}

/// A payload claiming that every blob hashes to zeros (the tampered receipt's claim) and has
/// `size` bytes.
fn zeros_payload(stored: &[u8]) -> Vec<u8> {
    let size = &stored[stored.len() - 32 - 8..stored.len() - 32];
    [[0u8; 32].as_slice(), size].concat()
}

/// Whether `table_key` holds a blob digest (the other kinds: a receipt's results, a receipt's
/// family marker, the changes between two trees).
fn is_blob(table_key: &[u8]) -> bool {
    table_key.starts_with(b"blob-sha256/")
}

/// Keeps only the blob digests, so that the next run must consult them.
fn only_blobs(cache_dir: &Path) -> usize {
    cache_lines::edit_rows(&cache_dir.join(cache::FILE), |k, v| is_blob(k).then(|| v.to_vec()));
    rewrite(cache_dir, |_, v| v.to_vec())
}

fn payload_of(stored: &[u8]) -> &[u8] {
    &stored[stored.len() - 32 - 40..stored.len() - 32]
}

#[test]
fn the_report_is_byte_identical_cold_warm_and_without_the_cache() {
    let l = ledger("v1-genuine");
    let plain = run(&l, &["--no-cache"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let cold = cached(&l, &[]);
    same_report(&plain, &cold);
    assert_eq!(figure(&cold, "hits"), 0);
    let written = figure(&cold, "written");
    assert!(written > 0, "{}", stderr(&cold));
    let warm = cached(&l, &[]);
    same_report(&plain, &warm);
    // Receipts answered from the cache leave their blobs unread: every lookup hits.
    assert_eq!((figure(&warm, "misses"), figure(&warm, "written")), (0, 0), "{}", stderr(&warm));
    assert!(figure(&warm, "hits") > 0, "{}", stderr(&warm));
    let blobs = only_blobs(&l.cache);
    let from_blobs = cached(&l, &[]);
    same_report(&plain, &from_blobs);
    assert_eq!(figure(&from_blobs, "hits"), blobs as u64, "every digest written is read back: {}", stderr(&from_blobs));
    // The work line counts what this run hashed, not the digests the cache answered.
    let work = stderr(&from_blobs);
    assert!(work.contains(&format!("work: 0 blobs hashed (0 bytes), {blobs} digests from the cache")), "{work}");
    let cold_work = stderr(&cold);
    assert!(cold_work.contains(", 0 digests from the cache"), "{cold_work}");
    let audit = cached(&l, &["--cache-audit"]);
    same_report(&plain, &audit);
    assert!(stderr(&audit).contains("audit: 0 of"), "{}", stderr(&audit));
}

#[test]
fn entries_forged_without_the_key_cannot_make_a_tampered_manifest_verify() {
    let l = ledger("s2-manifest-digest");
    let plain = run(&l, &["--no-cache"]);
    assert_eq!(plain.status.code(), Some(1), "the tampered fixture fails: {}", stderr(&plain));
    let cold = cached(&l, &[]);
    same_report(&plain, &cold);
    // Every entry now claims the tampered receipt's digest, MACed with another key.
    let wrong = Key::derive(b"an attacker's key");
    let n = rewrite(&l.cache, |k, v| cache::entry::encode(&wrong, cache::VERSION, k, &zeros_payload(v)));
    assert!(n > 0);
    let poisoned = cached(&l, &[]);
    same_report(&plain, &poisoned);
    assert_eq!(figure(&poisoned, "unused"), n as u64, "{}", stderr(&poisoned));
    assert_eq!(figure(&poisoned, "hits"), 0);
    // The run wrote the true digests back: the next run is served by them.
    let healed = cached(&l, &[]);
    same_report(&plain, &healed);
    assert_eq!((figure(&healed, "misses"), figure(&healed, "unused")), (0, 0), "{}", stderr(&healed));
}

#[test]
fn a_flipped_byte_anywhere_in_an_entry_drops_it() {
    let l = ledger("s2-manifest-digest");
    let plain = run(&l, &["--no-cache"]);
    let _ = cached(&l, &[]);
    let len = rewrite(&l.cache, |_, v| v.to_vec());
    for at in [0usize, 1, 8, 20] {
        rewrite(&l.cache, |_, v| {
            let mut v = v.to_vec();
            let i = v.len() - 1 - (at * 7919) % v.len();
            v[i] ^= 0x01;
            v
        });
        let o = cached(&l, &[]);
        same_report(&plain, &o);
        assert_eq!(figure(&o, "unused"), len as u64, "flip {at}: {}", stderr(&o));
    }
}

#[test]
fn a_cache_written_by_another_version_is_not_used() {
    let l = ledger("s2-manifest-digest");
    let plain = run(&l, &["--no-cache"]);
    let _ = cached(&l, &[]);
    // Validly authenticated, by another version, with digests that would hide the tamper.
    let key = Key::derive(SECRET.as_bytes());
    let n = rewrite(&l.cache, |k, v| {
        let payload = cache::entry::decode(&key, cache::VERSION, k, v).expect("our own entry");
        if !is_blob(k) {
            return cache::entry::encode(&key, "0.0.1/payloads-0", k, payload);
        }
        assert_eq!(payload, payload_of(v));
        cache::entry::encode(&key, "0.0.1/payloads-0", k, &zeros_payload(v))
    });
    let o = cached(&l, &[]);
    same_report(&plain, &o);
    assert_eq!((figure(&o, "stale"), figure(&o, "hits")), (n as u64, 0), "{}", stderr(&o));
}

#[test]
fn a_truncated_database_is_moved_aside_and_the_run_is_unchanged() {
    let l = ledger("v1-genuine");
    let plain = run(&l, &["--no-cache"]);
    let cold = cached(&l, &[]);
    let written = figure(&cold, "written");
    let file = l.cache.join(cache::FILE);
    for keep in [0.5f64, 0.1, 0.9] {
        let bytes = std::fs::read(&file).expect("db");
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let cut = (bytes.len() as f64 * keep) as usize;
        std::fs::write(&file, &bytes[..cut]).expect("truncate");
        let o = cached(&l, &[]);
        same_report(&plain, &o);
        assert!(stderr(&o).contains("unreadable"), "truncated to {keep}: {}", stderr(&o));
        assert_eq!(figure(&o, "written"), written, "a fresh database is started: {}", stderr(&o));
        assert!(l.cache.join(format!("{}.damaged", cache::FILE)).is_file());
    }
}

#[test]
fn a_leaked_key_is_caught_by_cache_audit() {
    let l = ledger("s2-manifest-digest");
    let plain = run(&l, &["--no-cache"]);
    let _ = cached(&l, &[]);
    let key = Key::derive(SECRET.as_bytes());
    only_blobs(&l.cache);
    let n = rewrite(&l.cache, |k, v| cache::entry::encode(&key, cache::VERSION, k, &zeros_payload(v)));
    // The boundary of the threat model: entries authenticated with the real key are believed,
    // which is what makes the forged-without-the-key test above a real attack that failed.
    let believed = cached(&l, &[]);
    assert_ne!(plain.stdout, believed.stdout, "a forgery under the real key changes the run");
    let audit = cached(&l, &["--cache-audit"]);
    same_report(&plain, &audit);
    // The believed run also stored receipts computed from the forged digests: they disagree too.
    assert!(figure(&audit, "of") >= n as u64, "{}", stderr(&audit));
    let after = cached(&l, &[]);
    same_report(&plain, &after);
}

/// The same boundary for a receipt's cached results: under the real key, a forged entry that
/// turns a failing receipt's results into passes is believed; `--cache-audit` recomputes every
/// receipt and names the disagreement, and its report is the true one.
#[test]
fn a_leaked_key_forging_a_receipt_verdict_is_caught_by_cache_audit() {
    let l = ledger("s2-manifest-digest");
    let plain = run(&l, &["--no-cache"]);
    assert_eq!(plain.status.code(), Some(1), "{}", stderr(&plain));
    let _ = cached(&l, &[]);
    let key = Key::derive(SECRET.as_bytes());
    let forged = std::cell::Cell::new(0);
    rewrite(&l.cache, |k, v| {
        let payload = cache::entry::decode(&key, cache::VERSION, k, v).expect("our own entry");
        if !k.starts_with(b"cycle/") {
            return v.to_vec();
        }
        let mut doc: serde_json::Value = serde_json::from_slice(payload).expect("a receipt entry is JSON");
        for r in doc["results"].as_array_mut().expect("results") {
            if r["outcome"] == "failed" {
                r["outcome"] = "passed".into();
                forged.set(forged.get() + 1);
            }
        }
        doc["facts"]["binding"]["failures"] = serde_json::json!([]);
        cache::entry::encode(&key, cache::VERSION, k, &serde_json::to_vec(&doc).expect("json"))
    });
    assert!(forged.get() > 0, "the fixture's receipt fails and was cached");
    let believed = cached(&l, &[]);
    assert_ne!(plain.stdout, believed.stdout, "a forgery under the real key changes the run");
    let audit = cached(&l, &["--cache-audit"]);
    same_report(&plain, &audit);
    assert_eq!(audit.status.code(), Some(1), "{}", stderr(&audit));
    assert!(figure(&audit, "of") > 0, "{}", stderr(&audit));
    // The audit wrote what it recomputed: the cache is honest again.
    let after = cached(&l, &[]);
    same_report(&plain, &after);
}

#[test]
fn two_runs_writing_at_once_both_land() {
    let a = ledger("v1-genuine");
    let b = ledger("s2-manifest-digest");
    let shared = a.cache.clone();
    let spawn = |l: &Ledger| {
        support::crossverify()
            .args(["ledger", "--audit"])
            .arg(l.dir.join("audit"))
            .arg("--science")
            .arg(l.dir.join("science"))
            .args(["--format", "json", "--cache"])
            .arg(&shared)
            .env("CROSSVERIFY_CACHE_KEY", SECRET)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let (pa, pb) = (spawn(&a), spawn(&b));
    let (oa, ob) = (pa.wait_with_output().expect("a"), pb.wait_with_output().expect("b"));
    same_report(&run(&a, &["--no-cache"]), &oa);
    same_report(&run(&b, &["--no-cache"]), &ob);
    let written = figure(&oa, "written") + figure(&ob, "written");
    // Both runs' entries are in the database: reading it holds every entry once, authentic.
    let key = Key::derive(SECRET.as_bytes());
    let c = Cache::open(&shared, key).expect("open");
    assert!(c.stats().notes.is_empty(), "{:?}", c.stats().notes);
    let rows = rewrite(&shared, |_, v| v.to_vec());
    assert!(rows as u64 <= written && rows > 0, "{rows} rows, {written} written");
    let again = spawn(&a).wait_with_output().expect("again");
    assert_eq!((figure(&again, "unused"), figure(&again, "written")), (0, 0), "{}", stderr(&again));
}

#[test]
fn threads_writing_at_once_lose_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let key = Key::derive(b"k");
    std::thread::scope(|s| {
        for t in 0..4u8 {
            let (dir, key) = (tmp.path(), key.clone());
            s.spawn(move || {
                let c = Cache::open(dir, key).expect("open");
                for i in 0..50u8 {
                    c.put(&[t, i], &[t, i, 1]);
                }
                c.flush();
                assert_eq!(c.stats().written, 50, "{:?}", c.stats().notes);
            });
        }
    });
    let c = Cache::open(tmp.path(), key).expect("open");
    for t in 0..4u8 {
        for i in 0..50u8 {
            assert_eq!(c.get(&[t, i]), Some(vec![t, i, 1]));
        }
    }
    assert_eq!(c.stats().hits, 200);
}

#[test]
fn a_key_inside_the_cache_directory_or_readable_by_others_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("cache");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let inside = cache::key::find_with(None, &dir, Some(&dir.join("key")));
    assert!(inside.is_err_and(|e| e.contains("inside the cache directory")));
    let file = tmp.path().join("state/crossverify/cache-key");
    assert!(cache::key::find_with(Some("".into()), &dir, Some(&file)).is_err_and(|e| e.contains("empty")));
    let made = cache::key::find_with(None, &dir, Some(&file)).expect("created");
    let again = cache::key::find_with(None, &dir, Some(&file)).expect("read back");
    assert_eq!(format!("{:?}", made.1), format!("{:?}", again.1));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&file).expect("key file").permissions().mode() & 0o777, 0o600);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(cache::key::find_with(None, &dir, Some(&file)).is_err_and(|e| e.contains("0600")));
    }
}

/// Issue 21: the key lives outside the cache by what it resolves to. A key file that is a
/// symbolic link into the cache directory, a hard link to a file in it, or whose directory is
/// (through a link) inside it, is refused — even when the planted file is a perfectly good
/// 32-byte key of mode 0600 — and so is a cache directory that is a link to the key's.
#[cfg(unix)]
#[test]
fn a_key_file_resolving_into_the_cache_directory_is_refused() {
    use std::os::unix::fs::{PermissionsExt as _, symlink};
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("cache");
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    let planted = dir.join("planted");
    std::fs::write(&planted, [9u8; 32]).expect("plant a key");
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).expect("mkdir");
    let refused = |what: &str, cache_dir: &Path, file: &Path| {
        let got = cache::key::find_with(None, cache_dir, Some(file));
        assert!(got.as_ref().is_err_and(|e| e.contains("cache directory")), "{what}: {:?}", got.map(|(_, s)| s));
    };
    let link = state.join("symlinked-key");
    symlink(&planted, &link).expect("symlink");
    refused("a symbolic link to a file in the cache", &dir, &link);
    let relative = state.join("relative-key");
    symlink("../cache/planted", &relative).expect("symlink");
    refused("a relative symbolic link to a file in the cache", &dir, &relative);
    let hard = state.join("hard-linked-key");
    std::fs::hard_link(&planted, &hard).expect("hard link");
    refused("a hard link to a file in the cache", &dir, &hard);
    let via = tmp.path().join("state-link");
    symlink(dir.join("sub"), &via).expect("symlink");
    refused("a key whose directory is a link into the cache", &dir, &via.join("cache-key"));
    let cache_link = tmp.path().join("cache-is-state");
    symlink(&state, &cache_link).expect("symlink");
    refused("a cache directory that is a link to the key's directory", &cache_link, &state.join("cache-key"));
    // A key file beside the cache, not linked into it, is still made and read.
    let fine = state.join("cache-key");
    cache::key::find_with(None, &dir, Some(&fine)).expect("a key outside the cache");
    cache::key::find_with(None, &dir, Some(&fine)).expect("read back");
}

/// A dangling symbolic link as the key file: one into the cache directory is refused (the
/// key would be created there), one elsewhere is refused naming the link, and neither loops.
#[cfg(unix)]
#[test]
fn a_dangling_key_link_is_refused_without_looping() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("cache");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).expect("mkdir");
    let into = state.join("into-cache");
    symlink(dir.join("not-yet"), &into).expect("symlink");
    let got = cache::key::find_with(None, &dir, Some(&into));
    assert!(got.as_ref().is_err_and(|e| e.contains("cache directory")), "{:?}", got.map(|(_, s)| s));
    assert!(!dir.join("not-yet").exists(), "no key was created inside the cache");
    let elsewhere = state.join("dangling");
    symlink(tmp.path().join("nowhere/key"), &elsewhere).expect("symlink");
    let got = cache::key::find_with(None, &dir, Some(&elsewhere));
    assert!(got.as_ref().is_err_and(|e| e.contains("symbolic link")), "{:?}", got.map(|(_, s)| s));
}

/// Issue 46: what a run does to the files of a cache directory it did not make, `DIR` being
/// one the user named (`--cache DIR`).
#[cfg(unix)]
mod planted {
    use super::{Ledger, cache, cached, ledger, run, same_report, stderr};

    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _, symlink};
    use std::path::{Path, PathBuf};

    /// A ledger, its report without the cache, and a directory outside the cache.
    fn setup() -> (Ledger, std::process::Output, PathBuf) {
        let l = ledger("v1-genuine");
        let plain = run(&l, &["--no-cache"]);
        assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
        let outside = l.dir.parent().expect("the ledger's temporary directory").join("outside");
        std::fs::create_dir_all(&outside).expect("outside");
        std::fs::create_dir_all(&l.cache).expect("cache dir");
        (l, plain, outside)
    }

    /// The bytes of each file, or `None` where there is none.
    fn snapshot(paths: &[&Path]) -> Vec<Option<Vec<u8>>> {
        paths.iter().map(|p| std::fs::read(p).ok()).collect()
    }

    /// A valid cache database outside the cache directory: another cache of the same key.
    fn other_database(l: &Ledger, outside: &Path) -> PathBuf {
        let other = outside.join("other-cache");
        let o = run(l, &["--cache", other.to_str().expect("utf-8")]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        other.join(cache::FILE)
    }

    /// `cache.redb` a symbolic link to a file outside (missing, empty, of other bytes, another
    /// cache's database): the run leaves that file as it was (not created, not written), its
    /// report is that of `--no-cache`, and it says the link was not followed. Failed before
    /// the fix: redb's own open followed the link, creating the missing target and writing a
    /// database into the empty file and the other cache's.
    #[test]
    fn a_link_as_the_database_is_not_followed() {
        let (l, plain, outside) = setup();
        let db = l.cache.join(cache::FILE);
        let targets =
            [outside.join("target"), outside.join("empty"), outside.join("precious"), other_database(&l, &outside)];
        std::fs::write(&targets[1], b"").expect("empty");
        std::fs::write(&targets[2], b"precious bytes\n").expect("precious");
        for target in &targets {
            let before = snapshot(&[target]);
            let _ = std::fs::remove_file(&db);
            symlink(target, &db).expect("symlink");
            let o = cached(&l, &[]);
            same_report(&plain, &o);
            assert_eq!(
                snapshot(&[target]),
                before,
                "{} was written through the link: {}",
                target.display(),
                stderr(&o)
            );
            let err = stderr(&o);
            assert!(err.contains("symbolic link"), "{}: says why: {err}", target.display());
            assert!(std::fs::symlink_metadata(&db).is_ok_and(|m| m.file_type().is_symlink()), "the link is left");
        }
    }

    /// `cache.redb` a second name (a hard link) of a file outside: not opened, which no check
    /// of the name could tell. Failed before the fix: the empty file became a database.
    #[test]
    fn a_hard_link_as_the_database_is_not_written() {
        let (l, plain, outside) = setup();
        let db = l.cache.join(cache::FILE);
        for (name, bytes) in
            [("empty", Vec::new()), ("database", std::fs::read(other_database(&l, &outside)).expect("db"))]
        {
            let target = outside.join(name);
            std::fs::write(&target, &bytes).expect("target");
            let _ = std::fs::remove_file(&db);
            std::fs::hard_link(&target, &db).expect("hard link");
            let o = cached(&l, &[]);
            same_report(&plain, &o);
            assert_eq!(
                std::fs::read(&target).expect("target"),
                bytes,
                "{name} written through a hard link: {}",
                stderr(&o)
            );
            assert!(stderr(&o).contains("names"), "{name}: says why: {}", stderr(&o));
        }
    }

    /// A damaged database is moved aside onto `cache.redb.damaged`, which is a link to a file
    /// outside: the link is replaced, its target left as it was (`rename` does not follow a
    /// link; this held before the fix too, and must go on holding).
    #[test]
    fn the_file_a_damaged_database_is_moved_to_is_not_followed() {
        let (l, plain, outside) = setup();
        let target = outside.join("aside-target");
        std::fs::write(&target, b"precious bytes\n").expect("target");
        let missing = outside.join("aside-missing");
        for t in [&target, &missing] {
            std::fs::write(l.cache.join(cache::FILE), b"not a database").expect("damaged");
            let aside = l.cache.join(format!("{}.damaged", cache::FILE));
            let _ = std::fs::remove_file(&aside);
            symlink(t, &aside).expect("symlink");
            let o = cached(&l, &[]);
            same_report(&plain, &o);
            assert!(stderr(&o).contains("unreadable"), "{}", stderr(&o));
            assert_eq!(std::fs::read(&target).expect("target"), b"precious bytes\n");
            assert!(!missing.exists(), "created through the link");
            assert_eq!(std::fs::read(&aside).expect("moved aside"), b"not a database");
        }
    }

    /// The directory the user named may itself be a link they made (to a disk with room): it is
    /// followed, and the cache works there. Held before the fix.
    #[test]
    fn a_named_directory_may_be_a_link() {
        let (l, plain, outside) = setup();
        let real = outside.join("real-cache");
        std::fs::create_dir(&real).expect("real");
        let link = outside.join("linked-cache");
        symlink(&real, &link).expect("symlink");
        let named = ["--cache", link.to_str().expect("utf-8")];
        let cold = run(&l, &named);
        same_report(&plain, &cold);
        assert!(real.join(cache::FILE).is_file(), "{}", stderr(&cold));
        let warm = run(&l, &named);
        same_report(&plain, &warm);
        assert!(super::figure(&warm, "hits") > 0, "{}", stderr(&warm));
    }

    /// A cache directory, or database, that others may write (group or world write permission),
    /// or that another user owns, is not used: the run verifies without it, says why in one
    /// line, and writes nothing there. Failed before the fix: the cache was used and written.
    #[test]
    fn a_cache_others_can_write_is_not_used() {
        let (l, plain, _outside) = setup();
        let db = l.cache.join(cache::FILE);
        for mode in [0o777, 0o770, 0o720, 0o702] {
            let _ = std::fs::remove_file(&db);
            std::fs::set_permissions(&l.cache, std::fs::Permissions::from_mode(mode)).expect("chmod");
            let o = cached(&l, &[]);
            same_report(&plain, &o);
            let err = stderr(&o);
            assert!(err.contains("not used") && err.contains("write"), "mode {mode:o}: {err}");
            assert!(!db.exists(), "mode {mode:o}: a database was written: {err}");
        }
        std::fs::set_permissions(&l.cache, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let cold = cached(&l, &[]);
        same_report(&plain, &cold);
        assert!(db.is_file(), "{}", stderr(&cold));
        for mode in [0o666, 0o660, 0o606] {
            std::fs::set_permissions(&db, std::fs::Permissions::from_mode(mode)).expect("chmod");
            let before = std::fs::read(&db).expect("db");
            let o = cached(&l, &[]);
            same_report(&plain, &o);
            let err = stderr(&o);
            assert!(err.contains("not used") && err.contains("write"), "mode {mode:o}: {err}");
            assert!(std::fs::read(&db).expect("db") == before, "mode {mode:o}: the database was written");
        }
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let warm = cached(&l, &[]);
        assert!(super::figure(&warm, "hits") > 0, "{}", stderr(&warm));
        owned_by_another(&l, &plain);
    }

    /// A directory or database owned by another user (the nobody account): only a process that
    /// may give files away (root) can set this up; elsewhere the case is skipped, saying so.
    fn owned_by_another(l: &Ledger, plain: &std::process::Output) {
        let db = l.cache.join(cache::FILE);
        let nobody = 65534;
        if std::os::unix::fs::chown(&db, Some(nobody), None).is_err() {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "SKIPPED: a cache owned by another user: this process cannot chown");
            return;
        }
        let before = std::fs::read(&db).expect("db");
        let o = cached(l, &[]);
        same_report(plain, &o);
        assert!(stderr(&o).contains("owned by"), "{}", stderr(&o));
        assert!(std::fs::read(&db).expect("db") == before, "another user's database was written");
        std::fs::remove_file(&db).expect("rm");
        std::os::unix::fs::chown(&l.cache, Some(nobody), None).expect("chown");
        let o = cached(l, &[]);
        same_report(plain, &o);
        assert!(stderr(&o).contains("owned by"), "{}", stderr(&o));
        assert!(!db.exists(), "a database was made in another user's directory");
        assert_eq!(std::fs::metadata(&l.cache).expect("dir").uid(), nobody);
    }

    /// What the cache makes, it makes private: the directory 0700, the database 0600, whatever
    /// the umask. Failed before the fix: 0755 and 0644.
    #[test]
    fn the_cache_is_made_private() {
        let (l, plain, _outside) = setup();
        std::fs::remove_dir(&l.cache).expect("rm");
        let o = cached(&l, &[]);
        same_report(&plain, &o);
        let mode = |p: &Path| format!("{:o}", std::fs::metadata(p).expect("stat").permissions().mode() & 0o777);
        assert_eq!((mode(&l.cache), mode(&l.cache.join(cache::FILE))), ("700".into(), "600".into()));
    }
}

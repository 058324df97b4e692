//! The per-receipt cache (issue 14, `src/crossaudit/memo.rs`) as a differential test: every
//! fixture ledger is verified without a cache, then into an empty cache, then from it, then
//! with `--cache-audit`, and the four reports must be the same bytes. The fixtures are the
//! forgeries and corner cases of the whole suite, so a key that misses an input shows up here
//! as a report that changed.

mod support;

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use crossverify::cache::{Cache, Key};
use crossverify::crossaudit::{self, Options};
use crossverify::progress::Ctx;

fn key() -> Key {
    Key::from_bytes([7; 32])
}

fn report(dir: &Path, cache: Option<Arc<Cache>>) -> Result<Vec<u8>, String> {
    let mut o = Options::new(&dir.join("audit"));
    o.science = Some(dir.join("science")).filter(|s| s.is_dir());
    o.cache = cache;
    crossaudit::ledger(&o, Ctx::silent())
        .map(|r| serde_json::to_vec(&r).expect("report serialises"))
        .map_err(|e| e.to_string())
}

/// Where two reports part, with some context from each.
fn first_difference(a: &Result<Vec<u8>, String>, b: &Result<Vec<u8>, String>) -> String {
    match (a, b) {
        (Ok(a), Ok(b)) => {
            let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            let around =
                |v: &[u8]| String::from_utf8_lossy(&v[at.saturating_sub(120)..(at + 120).min(v.len())]).into_owned();
            format!("at byte {at}:\n  got:  …{}…\n  want: …{}…", around(a), around(b))
        }
        _ => format!("{a:?} against {b:?}"),
    }
}

fn open(dir: &Path, audit: bool) -> Arc<Cache> {
    let c = Cache::open(dir, key()).expect("cache opens");
    Arc::new(if audit { c.auditing() } else { c })
}

#[test]
fn every_fixture_ledger_reports_the_same_bytes_from_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let names = support::scenarios();
    let (mut ledgers, mut hits, mut stored) = (0, 0, 0);
    for name in &names {
        let dir = support::materialize(name, tmp.path());
        if !dir.join("audit").is_dir() {
            continue;
        }
        let plain = report(&dir, None);
        let cache_dir = tmp.path().join(format!("{name}.cache"));
        let cold_cache = open(&cache_dir, false);
        let cold = report(&dir, Some(cold_cache.clone()));
        cold_cache.flush();
        let written = cold_cache.stats().by_kind.get("cycle").map_or(0, |k| k.written);
        let warm_cache = open(&cache_dir, false);
        let warm = report(&dir, Some(warm_cache.clone()));
        let warm_hits = warm_cache.stats().by_kind.get("cycle").map_or(0, |k| k.hits);
        let audit_cache = open(&cache_dir, true);
        let audited = report(&dir, Some(audit_cache.clone()));
        let s = audit_cache.stats();
        for (what, got) in
            [("written into an empty cache", &cold), ("read from the cache", &warm), ("with --cache-audit", &audited)]
        {
            assert!(
                *got == plain,
                "{name}: the report {what} differs from the one without a cache: {}",
                first_difference(got, &plain)
            );
        }
        assert_eq!(s.audit_mismatches, 0, "{name}: --cache-audit found cached receipts that differ: {s:?}");
        assert_eq!(warm_hits, written, "{name}: every receipt entry written is read back");
        assert_eq!(s.dropped, 0, "{name}: {s:?}");
        ledgers += 1;
        hits += warm_hits;
        stored += written;
    }
    let _ = writeln!(std::io::stderr(), "{ledgers} fixture ledgers; {stored} receipt entries stored, {hits} read back");
    assert!(ledgers >= 50, "the fixture set shrank: {ledgers} ledgers");
    assert!(hits >= 100, "too few receipts were cached to mean anything: {hits}");
}

/// One cache for every fixture, each built in turn at the same path, twice over: the fixtures
/// share commits, receipts and cycle directories in different contexts (an amended history,
/// a tampered science tree, another Constitution), so an input the key forgot would let one
/// fixture's cached cycle answer for another's.
#[test]
fn one_cache_shared_by_every_fixture_at_one_path() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let names = support::scenarios();
    let shared = tmp.path().join("shared.cache");
    let here = tmp.path().join("ledger");
    let mut plain = std::collections::BTreeMap::new();
    let mut hits = 0;
    for pass in 0..2 {
        for name in &names {
            let _ = std::fs::remove_dir_all(&here);
            let built = support::materialize(name, &tmp.path().join("build"));
            std::fs::rename(&built, &here).expect("move the fixture into place");
            if !here.join("audit").is_dir() {
                continue;
            }
            if pass == 0 {
                plain.insert(name.clone(), report(&here, None));
            }
            let cache = open(&shared, false);
            let got = report(&here, Some(cache.clone()));
            cache.flush();
            hits += cache.stats().by_kind.get("cycle").map_or(0, |k| k.hits);
            let want = &plain[name];
            assert!(
                got == *want,
                "{name} (pass {pass}): the shared cache changed the report: {}",
                first_difference(&got, want)
            );
        }
    }
    let _ = writeln!(std::io::stderr(), "{} ledgers, {hits} receipts read from the shared cache", plain.len());
    assert!(hits >= 200, "the second pass should read most receipts back: {hits}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// What a cached receipt depends on beyond its key is asked again: the same ledger, at the same
/// path, verified against a science repository that no longer holds the last audited commit
/// (a clone taken one commit earlier) reports what an uncached run reports, not the cached pass.
#[test]
fn a_science_commit_that_disappears_is_not_answered_from_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("demo", tmp.path());
    let cache_dir = tmp.path().join("c");
    let first = open(&cache_dir, false);
    let full = report(&dir, Some(first.clone()));
    first.flush();
    assert!(first.stats().by_kind.get("cycle").is_some_and(|k| k.written > 0), "the demo's receipts are stored");
    let science = dir.join("science");
    let earlier = tmp.path().join("earlier.git");
    git(
        tmp.path(),
        &["clone", "-q", "--bare", "--no-local", science.to_str().expect("utf-8"), earlier.to_str().expect("utf-8")],
    );
    git(&earlier, &["update-ref", "HEAD", "HEAD~1"]);
    git(&earlier, &["reflog", "expire", "--expire=now", "--all"]);
    git(&earlier, &["gc", "-q", "--prune=now"]);
    std::fs::rename(&science, tmp.path().join("science-full")).expect("move");
    std::fs::rename(&earlier, &science).expect("move");
    let plain = report(&dir, None);
    assert_ne!(plain, full, "the truncated science repository changes the report");
    let again = open(&cache_dir, false);
    let cached = report(&dir, Some(again.clone()));
    assert!(
        cached == plain,
        "the cache answered for a commit the repository lost: {}",
        first_difference(&cached, &plain)
    );
    let receipts = again.stats().by_kind.get("cycle").copied().unwrap_or_default();
    assert!(receipts.misses >= 1, "the superseded receipt is counted a miss, not a hit: {receipts:?}");
}

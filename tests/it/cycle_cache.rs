//! The per-receipt cache (issue 14, `src/crossaudit/crawl/memo.rs`) as a differential test: every
//! fixture ledger is verified without a cache, then into an empty cache, then from it, then
//! with `--cache-audit`, and the four reports must be the same bytes. The fixtures are the
//! forgeries and corner cases of the whole suite, so a key that misses an input shows up here
//! as a report that changed.

use crate::support;

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
    let (mut ledgers, mut hits, mut stored, mut removed_variants, mut damaged_variants) = (0, 0, 0, 0, 0);
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
        removed_variants += objects_removed_after_the_cache_was_filled(name, &dir, &cache_dir, tmp.path());
        // Damage is costlier to stage (repacks): every fifteenth ledger, which still spans the
        // families and layouts (and `a_damaged_repository_is_not_answered_from_the_cache`).
        if ledgers % 15 == 0 {
            damaged_variants +=
                objects_damaged_after_the_cache_was_filled(name, &dir, &cache_dir, tmp.path(), warm_hits);
        }
        ledgers += 1;
        hits += warm_hits;
        stored += written;
    }
    let _ = writeln!(
        std::io::stderr(),
        "{ledgers} fixture ledgers; {stored} receipt entries stored, {hits} read back; {removed_variants} runs with objects removed, {damaged_variants} with objects damaged"
    );
    assert!(damaged_variants >= 4 * (ledgers / 15), "too few damage variants ran: {damaged_variants}");
    assert!(ledgers >= 50, "the fixture set shrank: {ledgers} ledgers");
    assert!(removed_variants >= 3 * ledgers, "too few removal variants ran: {removed_variants}");
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

/// The cache is keyed by content, not by path: every fixture verified at one path, then at
/// another (a copy, as a CI runner's fresh workspace restores it, and a `--no-local` clone with
/// packs of its own, as a journal's temporary directory receives it) is answered from the
/// entries the first run wrote, and each report is the bytes an uncached run at the new path
/// gives. An entry whose results spell the first path answers only at that path.
#[test]
fn a_ledger_at_another_path_is_answered_from_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let shared = tmp.path().join("shared.cache");
    let (mut written, mut ledgers, mut unclonable) = (0, 0, 0);
    // (hits, misses) of the receipt entries at the new paths.
    let (mut copied_hits, mut cloned_hits) = ((0, 0), (0, 0));
    for name in support::scenarios() {
        let dir = support::materialize(&name, &tmp.path().join("first"));
        if !dir.join("audit").is_dir() {
            continue;
        }
        let cache = open(&shared, false);
        let _ = report(&dir, Some(cache.clone()));
        cache.flush();
        written += cache.stats().by_kind.get("cycle").map_or(0, |k| k.written);
        let copy = tmp.path().join("elsewhere").join(format!("{name}-copied"));
        support::copy_dir(&dir, &copy);
        let clone = tmp.path().join("elsewhere").join(format!("{name}-cloned"));
        std::fs::create_dir_all(&clone).expect("mkdir");
        // A fixture whose repository lacks an object on purpose cannot be cloned (git refuses):
        // it is checked at the copy only.
        let clonable = ["audit", "science"].into_iter().filter(|r| dir.join(r).is_dir()).all(|repo| {
            let (from, to) = (dir.join(repo), clone.join(repo));
            std::process::Command::new("git")
                .args(["clone", "-q", "--mirror", "--no-local", path_str(&from), path_str(&to)])
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .is_ok_and(|o| o.status.success())
        });
        unclonable += usize::from(!clonable);
        let places = if clonable {
            vec![(&copy, &mut copied_hits), (&clone, &mut cloned_hits)]
        } else {
            vec![(&copy, &mut copied_hits)]
        };
        for (elsewhere, hits) in places {
            let plain = report(elsewhere, None);
            let cache = open(&shared, false);
            let got = report(elsewhere, Some(cache.clone()));
            let cycles = cache.stats().by_kind.get("cycle").copied().unwrap_or_default();
            hits.0 += cycles.hits;
            hits.1 += cycles.misses;
            assert!(
                got == plain,
                "{name} at {}: the cache filled at another path changed the report: {}",
                elsewhere.display(),
                first_difference(&got, &plain)
            );
        }
        ledgers += 1;
    }
    let _ = writeln!(
        std::io::stderr(),
        "{ledgers} ledgers ({unclonable} not clonable): {written} receipt entries written at the first path; (hits, misses) at a copy {copied_hits:?}, at a fresh clone {cloned_hits:?}"
    );
    assert!(written >= 100, "too few receipts were cached to mean anything: {written}");
    assert!(unclonable * 10 <= ledgers, "most fixtures can be cloned: {unclonable} of {ledgers} could not");
    // Entries spelling a path (a git error naming the repository) do not answer elsewhere, nor
    // do cycles never stored (not definite); every other lookup is a hit.
    for (place, (hits, misses)) in [("a copy", copied_hits), ("a fresh clone", cloned_hits)] {
        assert!(hits >= 100 && misses * 5 <= hits, "{place}: {hits} receipt lookups answered, {misses} missed");
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
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

/// The object ids of `kind` (`blob`, `tree`, `commit`) in the repository at `repo`, sorted.
fn objects(repo: &Path, kind: &str) -> Vec<String> {
    let out = support::git(repo, &["cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)"]);
    let mut ids: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(t, _)| *t == kind)
        .map(|(_, id)| id.to_owned())
        .collect();
    ids.sort();
    ids
}

/// The blob ids of every receipt (`…receipt.json`) anywhere in the history of `repo`, sorted.
fn receipts(repo: &Path) -> Vec<String> {
    let out = support::git(repo, &["rev-list", "--objects", "--all"]);
    let mut ids: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, path)| path.ends_with("receipt.json"))
        .map(|(id, _)| id.to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Deletes `ids` from the repository at `repo`, unpacking its packs first so that every object
/// is a loose file (what a partial clone, a pruned or a damaged repository looks like to a
/// reader: the object is simply not there).
fn remove_objects(repo: &Path, ids: &[String]) {
    let objects =
        repo.join(String::from_utf8_lossy(&support::git(repo, &["rev-parse", "--git-path", "objects"])).trim());
    let packs = objects.join("pack");
    if let Ok(entries) = std::fs::read_dir(&packs) {
        let aside = repo.join("packs-aside");
        std::fs::create_dir_all(&aside).expect("a place for the packs");
        let mut files: Vec<_> = entries.map(|e| e.expect("entry").path()).collect();
        files.sort();
        for f in &files {
            std::fs::rename(f, aside.join(f.file_name().expect("name"))).expect("move the pack aside");
        }
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "pack")) {
            let pack = std::fs::File::open(aside.join(f.file_name().expect("name"))).expect("open the pack");
            let out = std::process::Command::new("git")
                .arg("unpack-objects")
                .arg("-q")
                .current_dir(repo)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .stdin(pack)
                .output()
                .expect("git runs");
            assert!(out.status.success(), "unpack-objects: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::fs::remove_dir_all(&aside).expect("drop the packs");
    }
    for id in ids {
        let loose = objects.join(&id[..2]).join(&id[2..]);
        std::fs::remove_file(&loose).unwrap_or_else(|e| panic!("removing {}: {e}", loose.display()));
    }
}

/// Issue 21: the cache never answers for evidence that is gone. The fixture at `dir`, whose
/// receipts `cache_dir` now holds, loses objects after the cache was filled — every blob of the
/// science repository (a `--filter=blob:none` clone), the first blob or the first tree of the
/// audit repository, every receipt of the audit history (what the layout detection reads),
/// the first blob of the science repository — and each time the run through
/// the cache must be the run without it, byte for byte. Returns how many variants ran.
fn objects_removed_after_the_cache_was_filled(name: &str, dir: &Path, cache_dir: &Path, tmp: &Path) -> usize {
    let pristine = tmp.join(format!("{name}.pristine"));
    support::copy_dir(dir, &pristine);
    let (audit, science) = (dir.join("audit"), dir.join("science"));
    let has_science = science.is_dir();
    let mut variants: Vec<(&str, &Path, Vec<String>)> = Vec::new();
    if has_science {
        variants.push(("every science blob", &science, objects(&science, "blob")));
        variants.push(("the first science blob", &science, objects(&science, "blob").into_iter().take(1).collect()));
    }
    variants.push(("the first audit blob", &audit, objects(&audit, "blob").into_iter().take(1).collect()));
    variants.push(("every receipt of the audit history", &audit, receipts(&audit)));
    variants.push(("the first audit tree", &audit, objects(&audit, "tree").into_iter().take(1).collect()));
    let mut ran = 0;
    for (what, repo, ids) in variants {
        if ids.is_empty() {
            continue;
        }
        std::fs::remove_dir_all(dir).expect("reset the fixture");
        support::copy_dir(&pristine, dir);
        remove_objects(repo, &ids);
        let plain = report(dir, None);
        let cache = open(cache_dir, false);
        let cached = report(dir, Some(cache.clone()));
        cache.flush();
        assert!(
            cached == plain,
            "{name} without {what}: the cache answered for objects that are gone: {}",
            first_difference(&cached, &plain)
        );
        let audited = report(dir, Some(open(cache_dir, true)));
        assert!(audited == plain, "{name} without {what}, --cache-audit: {}", first_difference(&audited, &plain));
        ran += 1;
    }
    std::fs::remove_dir_all(dir).expect("reset the fixture");
    support::copy_dir(&pristine, dir);
    std::fs::remove_dir_all(&pristine).expect("drop the copy");
    ran
}

/// One genuine paired ledger, cached, then damaged each [`Damage`] way on both sides: the
/// quick witness of the sweep above (a seal that always answers "sealed" fails it).
#[test]
fn a_damaged_repository_is_not_answered_from_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("v1-genuine", tmp.path());
    let cache_dir = tmp.path().join("cache");
    let cold = open(&cache_dir, false);
    let plain = report(&dir, Some(cold.clone()));
    cold.flush();
    let warm = open(&cache_dir, false);
    assert!(report(&dir, Some(warm.clone())) == plain);
    let hits = warm.stats().by_kind.get("cycle").map_or(0, |k| k.hits);
    assert!(hits > 0, "the fixture's receipts are cached");
    let ran = objects_damaged_after_the_cache_was_filled("v1-genuine", &dir, &cache_dir, tmp.path(), hits);
    assert_eq!(ran, 10, "five kinds of damage on each of two repositories");
}

/// How a repository is damaged after the cache was filled (issue 21: the cache never answers
/// for evidence that no longer reads as it did; `src/manifest/seal.rs`).
#[derive(Clone, Copy, Debug)]
enum Damage {
    /// Repacked into one pack, undamaged: the cache must still answer (after reading the new
    /// pack in full once), or the seal would be a cache that never answers.
    Repacked,
    /// One byte in the middle of the pack flipped: its checksum no longer matches.
    PackByte,
    /// The same byte flipped, and the pack's and the index's checksums recomputed over the
    /// damage: only reading the pack's objects in full finds it.
    PackByteResealed,
    /// A loose blob's file holding another object (valid zlib, valid header, wrong id).
    LooseSwapped,
    /// The pack intact, its index rewritten with two objects' offsets swapped and its checksum
    /// recomputed: a lookup of one reads the other. Only a full read through this index finds it
    /// (the pack's bytes are those read in full before).
    IndexResealed,
}

/// `git repack -adq` in `repo`, then the pack file and its index.
fn repack(repo: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    git(repo, &["repack", "-adq"]);
    let objects =
        repo.join(String::from_utf8_lossy(&support::git(repo, &["rev-parse", "--git-path", "objects"])).trim());
    let mut packs: Vec<_> = std::fs::read_dir(objects.join("pack"))
        .expect("a pack directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "pack"))
        .collect();
    assert_eq!(packs.len(), 1, "repack -ad leaves one pack: {packs:?}");
    let pack = packs.remove(0);
    let idx = pack.with_extension("idx");
    (pack, idx)
}

/// SHA-1 of `bytes`, by `sha1sum` (the test's own reading, not the verifier's).
fn sha1(bytes: &[u8]) -> Vec<u8> {
    let mut child = std::process::Command::new("sha1sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha1sum runs");
    child.stdin.take().expect("stdin").write_all(bytes).expect("write");
    let out = child.wait_with_output().expect("sha1sum finishes");
    hex::decode(&String::from_utf8_lossy(&out.stdout)[..40]).expect("hex")
}

fn damage(repo: &Path, how: Damage) -> bool {
    let writable = |p: &Path| {
        let mut perm = std::fs::metadata(p).expect("metadata").permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perm.set_readonly(false);
        std::fs::set_permissions(p, perm).expect("make writable");
    };
    match how {
        Damage::Repacked => {
            repack(repo);
        }
        Damage::PackByte | Damage::PackByteResealed => {
            let (pack, idx) = repack(repo);
            writable(&pack);
            writable(&idx);
            let mut bytes = std::fs::read(&pack).expect("read the pack");
            let n = bytes.len();
            // Past the 12-byte header, before the 20-byte trailer.
            bytes[12 + (n - 32) / 2] ^= 0x55;
            if matches!(how, Damage::PackByteResealed) {
                let sum = sha1(&bytes[..n - 20]);
                bytes[n - 20..].copy_from_slice(&sum);
                let mut index = std::fs::read(&idx).expect("read the index");
                let m = index.len();
                index[m - 40..m - 20].copy_from_slice(&sum);
                let own = sha1(&index[..m - 20]);
                index[m - 20..].copy_from_slice(&own);
                std::fs::write(&idx, index).expect("write the index");
            }
            std::fs::write(&pack, bytes).expect("write the pack");
        }
        Damage::IndexResealed => {
            let (_, idx) = repack(repo);
            writable(&idx);
            let mut index = std::fs::read(&idx).expect("read the index");
            // Version 2: magic and version (8), fan-out (256 × 4), then per object its id, its
            // CRC and its 4-byte offset, in id order.
            let n = u32::from_be_bytes(index[8 + 255 * 4..8 + 256 * 4].try_into().expect("4 bytes")) as usize;
            if n < 2 {
                return false;
            }
            let offsets = 8 + 256 * 4 + n * (20 + 4);
            let (a, b) = (offsets, offsets + 4);
            let first: [u8; 4] = index[a..a + 4].try_into().expect("4 bytes");
            index.copy_within(b..b + 4, a);
            index[b..b + 4].copy_from_slice(&first);
            let m = index.len();
            let own = sha1(&index[..m - 20]);
            index[m - 20..].copy_from_slice(&own);
            std::fs::write(&idx, index).expect("write the index");
        }
        Damage::LooseSwapped => {
            let store =
                repo.join(String::from_utf8_lossy(&support::git(repo, &["rev-parse", "--git-path", "objects"])).trim());
            let path = |id: &str| store.join(&id[..2]).join(&id[2..]);
            let Some(victim) = objects(repo, "blob").into_iter().find(|id| path(id).is_file()) else {
                return false;
            };
            let file = repo.with_extension("stranger");
            std::fs::write(&file, format!("not {victim}\n")).expect("write the stranger");
            let path_arg = file.to_string_lossy().into_owned();
            let stranger =
                String::from_utf8_lossy(&support::git(repo, &["hash-object", "-w", &path_arg])).trim().to_owned();
            std::fs::remove_file(&file).expect("drop the file");
            let bytes = std::fs::read(path(&stranger)).expect("read the stranger's loose object");
            writable(&path(&victim));
            std::fs::write(path(&victim), bytes).expect("swap the loose object");
        }
    }
    true
}

/// Issue 21, the cache's other half of "evidence that is gone": the fixture at `dir`, whose
/// entries `cache_dir` holds, is damaged in each [`Damage`] way (audit repository, then science
/// repository when there is one) and each time the run through the cache must be the run
/// without it, byte for byte; an undamaged repack must still be answered from the cache, with
/// as many `hits` as before it.
fn objects_damaged_after_the_cache_was_filled(
    name: &str,
    dir: &Path,
    cache_dir: &Path,
    tmp: &Path,
    hits: u64,
) -> usize {
    let pristine = tmp.join(format!("{name}.pristine"));
    support::copy_dir(dir, &pristine);
    let mut ran = 0;
    let sides = [dir.join("audit"), dir.join("science")];
    for repo in sides.iter().filter(|r| r.is_dir()) {
        for how in
            [Damage::Repacked, Damage::PackByte, Damage::PackByteResealed, Damage::IndexResealed, Damage::LooseSwapped]
        {
            std::fs::remove_dir_all(dir).expect("reset the fixture");
            support::copy_dir(&pristine, dir);
            if !damage(repo, how) {
                continue;
            }
            let plain = report(dir, None);
            let cache = open(cache_dir, false);
            let cached = report(dir, Some(cache.clone()));
            cache.flush();
            assert!(
                cached == plain,
                "{name}, {} {how:?}: the cache answered for objects that no longer read as they did: {}",
                repo.display(),
                first_difference(&cached, &plain)
            );
            if matches!(how, Damage::Repacked) {
                // Read in full once (above); now the pack is known and the cache answers.
                let warm = open(cache_dir, false);
                let again = report(dir, Some(warm.clone()));
                assert!(again == plain, "{name}, repacked, warm: {}", first_difference(&again, &plain));
                let s = warm.stats();
                let got = s.by_kind.get("cycle").map_or(0, |k| k.hits);
                assert_eq!(got, hits, "{name}: an undamaged repack is answered from the cache as before: {s:?}");
            }
            ran += 1;
        }
    }
    std::fs::remove_dir_all(dir).expect("reset the fixture");
    support::copy_dir(&pristine, dir);
    std::fs::remove_dir_all(&pristine).expect("drop the copy");
    ran
}

/// The facts "every tree and blob below this tree is held" are kept between runs with the
/// packs (pack and index checksums) they were found in: a third run over packed, unchanged
/// repositories reads them back, a fourth under `--cache-audit` recomputes them and agrees, and
/// after the science pack is rewritten without every file under `experiments/` at its tip
/// (the packs the entries name are gone) they are asked again, so the report is the uncached
/// one, which reports those files missing.
#[test]
fn trees_found_whole_are_kept_with_their_packs_and_asked_again_when_a_pack_loses_an_object() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("demo", tmp.path());
    let (audit, science) = (dir.join("audit"), dir.join("science"));
    for repo in [&audit, &science] {
        repack(repo);
    }
    let cache_dir = tmp.path().join("c");
    let held = |c: &Cache| c.stats().by_kind.get("held-tree").copied().unwrap_or_default();
    let mut runs = Vec::new();
    for _ in 0..3 {
        let c = open(&cache_dir, false);
        let r = report(&dir, Some(c.clone()));
        c.flush();
        runs.push((r, held(&c)));
    }
    let full = report(&dir, None);
    assert!(runs.iter().all(|(r, _)| *r == full), "every cached run reports the uncached bytes");
    assert!(runs[1].1.written > 0, "the second run, answered from cycle entries, keeps its trees: {:?}", runs[1].1);
    assert_eq!((runs[2].1.misses, runs[2].1.written), (0, 0), "the third run reads them back: {:?}", runs[2].1);
    assert!(runs[2].1.hits > 0);
    let audited = open(&cache_dir, true);
    assert!(report(&dir, Some(audited.clone())) == full, "--cache-audit reports the uncached bytes");
    assert_eq!(audited.stats().audit_mismatches, 0, "every kept tree is whole when recomputed");
    assert!(held(&audited).hits > 0, "--cache-audit met the kept trees: {:?}", held(&audited));

    // Objects added beside the packs (a fetch of a few objects leaves them loose) take nothing
    // away: the kept trees still answer.
    git_stdin(&science, &["hash-object", "-w", "--stdin"], b"fetched later\n");
    let grown = open(&cache_dir, false);
    assert!(report(&dir, Some(grown.clone())) == full, "a loose object beside the packs changes nothing");
    assert!(held(&grown).hits > 0 && held(&grown).misses == 0, "the kept trees answer: {:?}", held(&grown));

    // The newest audited commit's tree loses one blob: the science pack is rewritten without it.
    let head = String::from_utf8_lossy(&support::git(&science, &["rev-parse", "HEAD"])).trim().to_owned();
    let tree = String::from_utf8_lossy(&support::git(&science, &["ls-tree", "-r", &head])).into_owned();
    let gone: Vec<String> = tree
        .lines()
        .filter(|l| l.contains(" blob ") && l.contains("\texperiments/"))
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_owned))
        .collect();
    assert!(!gone.is_empty(), "the demo's tip has files under experiments/: {tree}");
    let (pack, idx) = repack(&science);
    let keep: String = objects(&science, "blob")
        .into_iter()
        .chain(objects(&science, "tree"))
        .chain(objects(&science, "commit"))
        .filter(|id| !gone.contains(id))
        .map(|id| id + "\n")
        .collect();
    let prefix = pack.parent().expect("pack directory").join("pack");
    git_stdin(&science, &["pack-objects", "-q", prefix.to_str().expect("utf-8")], keep.as_bytes());
    std::fs::remove_file(&pack).expect("old pack removed");
    std::fs::remove_file(&idx).expect("old index removed");
    assert!(objects(&science, "blob").iter().all(|b| !gone.contains(b)), "{gone:?} are gone");

    let plain = report(&dir, None);
    assert!(plain != full, "missing blobs change the report");
    let c = open(&cache_dir, false);
    let cached = report(&dir, Some(c.clone()));
    assert!(
        cached == plain,
        "the cache answered for a blob the repository lost: {}",
        first_difference(&cached, &plain)
    );
    assert!(held(&c).misses > 0, "the science trees are asked again under the new storage: {:?}", held(&c));
}

/// `git ARGS` in `repo` with `input` on its standard input, without the user's configuration.
fn git_stdin(repo: &Path, args: &[&str], input: &[u8]) {
    let mut child = std::process::Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("git runs");
    child.stdin.take().expect("stdin").write_all(input).expect("input written");
    assert!(child.wait().expect("git finishes").success(), "git {args:?}");
}

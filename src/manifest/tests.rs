use std::sync::atomic::AtomicBool;

use super::*;
use crate::progress::Silent;
use crossverify_fixtures::fixture::{Content, RepoBuilder};

fn science(dir: &std::path::Path) -> (Repo, ObjectId, ObjectId) {
    let path = dir.join("m.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    b.file("exp/a.json", "{}\n").file("exp/copy.json", "{}\n").file("exp/b.bin", vec![7u8; 10_000]).file("top", "t");
    let c0 = b.commit("c0").expect("commit");
    b.file("exp/c.json", "{}\n")
        .put("exp/run.sh", Content::Executable(b"#!/bin/sh\n".to_vec()))
        .put("exp/latest", Content::Symlink(b"a.json".to_vec()))
        .put(
            "exp/vendor",
            Content::Submodule(ObjectId::from_hex(b"1111111111111111111111111111111111111111").expect("hex")),
        )
        .file(b"exp/n\xffm".as_slice(), "x")
        .file("exp/empty", "");
    let c1 = b.commit("c1").expect("commit");
    (Repo::open(&path).expect("open"), c0, c1)
}

#[test]
fn the_previous_answer_is_reused_only_where_the_same_table_gave_it_at_the_same_place() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, c0, _) = science(tmp.path());
    let listed = repo.walk(repo.commit(c0).expect("commit").tree, &Scope::all()).expect("walk");
    let ids: Vec<ObjectId> = listed.iter().map(|e| e.id).collect();
    let (hashes, other) = (BlobHashes::new(), BlobHashes::new());
    let mut buf = Vec::new();
    let digests: Vec<Digest> = ids.iter().map(|id| hashes.get_or_hash(&repo, *id, &mut buf).expect("hash")).collect();
    let stranger = ObjectId::from_hex(b"2222222222222222222222222222222222222222").expect("hex");
    let before: Vec<Option<ObjectId>> = vec![Some(ids[0]), Some(ids[1]), Some(stranger), Some(ids[2])];
    let mut recent = Recent::default();
    // The stranger's digest is made up, which `remember`'s contract forbids: it goes unused
    // only because the next list has no id at its place. The rest is asked of the table.
    recent.remember(&hashes, before, vec![Some(digests[0]), Some(digests[1]), Some(Digest::of(b"x")), None]);
    let now = [Some(ids[0]), Some(ids[2]), None, Some(ids[2]), Some(ids[3])];
    let hits = hashes.stats().cache_hits;
    let answered = hashes.known_many_after(&now, &recent);
    assert_eq!(answered, hashes.known_many(&now), "the same answers as the table's");
    assert_eq!(answered, [Some(digests[0]), Some(digests[2]), None, Some(digests[2]), Some(digests[3])]);
    assert_eq!(hashes.stats().cache_hits, hits + 2 * 4, "each answer counted as a lookup, both times");
    // Another table's list is not this one's: nothing is taken from it.
    let mut foreign = Recent::default();
    foreign.remember(&other, now.to_vec(), vec![Some(Digest::of(b"y")); now.len()]);
    assert_eq!(hashes.known_many_after(&now, &foreign), hashes.known_many(&now));
}

#[test]
fn digests_round_trip_through_hex() {
    let d = Digest::of(b"abc");
    assert_eq!(d.hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(Digest::from_hex(&d.hex()), Some(d));
    assert_eq!(Digest::from_hex(&d.hex().to_uppercase()), Some(d));
    assert_eq!(Digest::from_hex("ab"), None);
    assert_eq!(format!("{d:?}"), format!("Digest({d})"));
}

#[test]
fn each_distinct_blob_is_hashed_once_per_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, c0, c1) = science(tmp.path());
    let hashes = BlobHashes::new();
    let m0 = derive(&repo, c0, &Scope::all(), &hashes, Ctx::silent()).expect("derive");
    let st = hashes.stats();
    // `{}\n` appears twice: three distinct blobs for four files.
    assert_eq!((m0.len(), st.blobs_hashed, st.bytes_hashed), (4, 3, 3 + 10_000 + 1));
    let m1 = derive(&repo, c1, &Scope::all(), &hashes, Ctx::silent()).expect("derive");
    let st = hashes.stats();
    // c1 adds `#!/bin/sh\n`, the non-UTF-8 file's `x` and the empty blob; `{}\n` is cached.
    assert_eq!(st.blobs_hashed, 6, "{st:?}");
    assert!(st.cache_hits >= 4 + 7, "{st:?}");
    assert_eq!(m1.len(), 10);
}

#[test]
fn known_many_answers_hashed_blobs_in_order_and_counts_them_as_hits() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, c0, _) = science(tmp.path());
    let hashes = BlobHashes::new();
    let listed = repo.walk(repo.commit(c0).expect("commit").tree, &Scope::all()).expect("walk");
    let ids: Vec<ObjectId> = listed.iter().map(|e| e.id).collect();
    let mut buf = Vec::new();
    let first = hashes.get_or_hash(&repo, ids[0], &mut buf).expect("hash");
    let stranger = ObjectId::from_hex(b"2222222222222222222222222222222222222222").expect("hex");
    // Asked twice, unknown, not asked: only the hashed blob is answered, at each of its places.
    let asked = [Some(ids[0]), Some(ids[1]), None, Some(stranger), Some(ids[0])];
    let before = hashes.stats().cache_hits;
    assert_eq!(hashes.known_many(&asked), [Some(first), None, None, None, Some(first)]);
    assert_eq!(hashes.stats().cache_hits, before + 2);
    for id in &ids {
        hashes.get_or_hash(&repo, *id, &mut buf).expect("hash");
    }
    let all: Vec<Option<ObjectId>> = ids.iter().copied().map(Some).collect();
    let want: Vec<Option<Digest>> = ids.iter().map(|id| hashes.get(*id).map(|d| d.expect("readable"))).collect();
    assert_eq!(hashes.known_many(&all), want);
    assert!(want.iter().all(Option::is_some));
}

#[test]
fn special_entries_carry_markers_and_files_their_digest() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, _, c1) = science(tmp.path());
    let m = derive(&repo, c1, &Scope::new(["exp"]), &BlobHashes::new(), Ctx::silent()).expect("derive");
    let json = m.to_json();
    assert_eq!(json["exp/latest"], "symlink");
    assert_eq!(json["exp/vendor"], "submodule");
    assert_eq!(json["\"exp/n\\377m\""], "non-utf8-path");
    assert_eq!(json["exp/a.json"], Digest::of(b"{}\n").hex());
    assert_eq!(json["exp/empty"], Digest::of(b"").hex());
    assert_eq!(json["exp/run.sh"], Digest::of(b"#!/bin/sh\n").hex());
    assert!(!json.contains_key("top"));
    let paths: Vec<&[u8]> = m.entries.iter().map(|e| e.path.as_slice()).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted, "entries are in raw path order");
}

#[test]
fn a_missing_blob_is_an_unreadable_entry_not_an_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, c0, _) = science(tmp.path());
    let tree = repo.commit(c0).expect("c").tree;
    let id = repo.entry(tree, "exp/b.bin".into()).expect("e").expect("b").id;
    let hex = id.to_string();
    std::fs::remove_file(repo.path().join("objects").join(&hex[..2]).join(&hex[2..])).expect("rm");
    let repo = Repo::open(repo.path()).expect("reopen");
    let m = derive(&repo, c0, &Scope::all(), &BlobHashes::new(), Ctx::silent()).expect("derive");
    let e = m.entries.iter().find(|e| e.path == "exp/b.bin").expect("entry");
    match &e.value {
        Value::Unreadable(reason) => assert!(reason.contains("missing") && reason.contains(&hex), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(e.value.marker(), "unreadable");
}

#[test]
fn thread_count_does_not_change_the_manifest() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, _, c1) = science(tmp.path());
    let path = repo.path().to_owned();
    let run = |n: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("pool");
        pool.install(|| {
            let repo = Repo::open(&path).expect("open");
            derive(&repo, c1, &Scope::all(), &BlobHashes::new(), Ctx::silent()).expect("derive")
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(4));
}

#[test]
fn an_interrupt_stops_hashing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, c0, _) = science(tmp.path());
    let stop = AtomicBool::new(true);
    let ctx = Ctx { progress: &Silent, interrupt: &stop };
    let e = derive(&repo, c0, &Scope::all(), &BlobHashes::new(), ctx).expect_err("interrupted");
    assert!(matches!(e, Error::Interrupted(_)), "{e:?}");
}

proptest::proptest! {
    /// The manifest comparison without decoding answers as decoding and refusing uppercase did:
    /// on the digest's own spelling, on its uppercase spelling, and on any edit of one byte.
    #[test]
    fn lower_hex_comparison_agrees_with_decoding(bytes: [u8; 32], at in 0usize..66, with in 0u8..=255) {
        let d = Digest(bytes);
        let reference = |s: &str| Digest::from_hex(s) == Some(d) && !s.bytes().any(|b| b.is_ascii_uppercase());
        let lower = d.hex();
        let mut edited = lower.clone().into_bytes();
        if at < edited.len() {
            edited[at] = with;
        } else {
            edited.push(with);
        }
        let edited = String::from_utf8_lossy(&edited).into_owned();
        for s in [lower.clone(), lower.to_uppercase(), edited, String::new(), lower[..63].to_owned()] {
            proptest::prop_assert_eq!(d.is_lower_hex(&s), reference(&s), "{}", s);
        }
    }
}

/// One file in `versions` versions of about 24 KB, each a line longer, packed by git, which
/// stores most versions as deltas of a newer (larger) one; the blob ids, oldest first.
fn packed_versions(dir: &std::path::Path, versions: usize) -> (Repo, Vec<ObjectId>) {
    let path = dir.join("versions.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    let mut lines: Vec<String> = (0..800).map(|i| format!("{i:06} {}\n", i * 7919 % 1_000_003)).collect();
    let mut ids = Vec::new();
    for v in 0..versions {
        lines.push(format!("version {v}\n"));
        let text = lines.concat();
        ids.push(gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Blob, text.as_bytes()).expect("id"));
        b.file("data.txt", text);
        b.commit(&format!("v{v}")).expect("commit");
    }
    let out = std::process::Command::new("git")
        .args(["repack", "-adfq", "--window=10", "--depth=50"])
        .current_dir(&path)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", &path)
        .output()
        .expect("the git CLI runs");
    assert!(out.status.success(), "git repack: {}", String::from_utf8_lossy(&out.stderr));
    (Repo::open(&path).expect("open"), ids)
}

#[test]
fn hashing_ahead_answers_and_counts_as_reading_would() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, ids) = packed_versions(tmp.path(), 12);
    let (plain, ahead) = (BlobHashes::new(), BlobHashes::new().with_hash_ahead_after(1));
    let mut buf = Vec::new();
    // Newest first, as a ledger is verified: the older versions are deltas of the newer ones.
    for (n, id) in ids.iter().rev().enumerate() {
        assert_eq!(ahead.get_or_hash(&repo, *id, &mut buf), plain.get_or_hash(&repo, *id, &mut buf), "{id}");
        let (waiting, bytes) = ahead.stashed();
        if n == 0 {
            assert!(waiting >= 1, "the versions stored as deltas of the newest were hashed ahead");
        }
        let asked = plain.stats().bytes_hashed;
        assert!(bytes <= asked, "never more bytes ahead than asked: {bytes} against {asked}");
        assert_eq!(ahead.stats(), plain.stats(), "counted when asked, not when hashed ahead");
    }
    assert_eq!(ahead.stashed(), (0, 0), "every version was asked for");
}

#[test]
fn hashing_ahead_waits_for_enough_fresh_reads() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (repo, ids) = packed_versions(tmp.path(), 6);
    let hashes = BlobHashes::new().with_hash_ahead();
    let mut buf = Vec::new();
    let newest = *ids.last().expect("versions");
    hashes.get_or_hash(&repo, newest, &mut buf).expect("reads");
    assert_eq!(hashes.stashed(), (0, 0), "one blob read is far below the start");
    let ahead = BlobHashes::new().with_hash_ahead_after(1);
    ahead.get_or_hash(&repo, newest, &mut buf).expect("reads");
    assert!(ahead.stashed().0 >= 1, "the same read hashes ahead once started");
}

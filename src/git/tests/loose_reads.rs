//! Loose objects read by plain reads (`git::loose`): the same kind, size and bytes as git
//! prints, and for a damaged file either nothing (gix answers) or exactly what gix reads.

use std::io::Read as _;

use proptest::prelude::*;

use super::*;
use crate::git::loose::{Loose, MAX_FILE_BYTES, Read};

fn kind_of(name: &str) -> gix::object::Kind {
    gix::object::Kind::from_bytes(name.as_bytes()).expect("git prints a kind")
}

/// Every object of a loose repository, as `git cat-file` prints it, against the loose reader
/// and against the handle's readers (which go through it).
#[test]
fn every_loose_object_reads_as_git_prints_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, _) = linear(tmp.path());
    let loose_store = Loose::at(&bare.join("objects")).expect("a loose repository has fan-out directories");
    let repo = Repo::open(&bare).expect("opens");
    let listing = git(&bare, &["cat-file", "--batch-all-objects", "--batch-check"]);
    let mut seen = 0;
    for line in listing.lines() {
        let [id, kind, size] = line.split(' ').collect::<Vec<_>>()[..] else { panic!("{line}") };
        let (id, kind, size) = (oid(id), kind_of(kind), size.parse::<u64>().expect("size"));
        let printed = git_out(&bare, &["cat-file", &kind.to_string(), &id.to_string()]).stdout;
        let mut out = vec![0xAA; 3];
        assert_eq!(loose_store.read(&id, &mut out, u64::MAX), Some(Read::Object(kind)), "{id}");
        assert_eq!(out, printed, "{id}");
        assert_eq!(out.len() as u64, size, "{id}");
        assert_eq!(loose_store.read(&id, &mut out, size), Some(Read::Object(kind)), "a cap of the size itself");
        if size > 0 {
            assert_eq!(loose_store.read(&id, &mut out, size - 1), Some(Read::Declined), "a smaller cap: gix");
        }
        assert_eq!(repo.object(id, kind, "object").expect("reads"), printed);
        seen += 1;
    }
    assert!(seen >= 9, "three commits, their trees and blobs: {seen}");
}

/// [`linear`], every object moved into one pack.
fn packed_linear(dir: &Path) -> (PathBuf, Vec<ObjectId>) {
    let (bare, ids) = linear(dir);
    git(&bare, &["repack", "-a", "-d", "-q"]);
    git(&bare, &["prune-packed"]);
    (bare, ids)
}

/// A packed repository has no fan-out directory: every lookup goes straight to gix, and an
/// object written after opening (a fan-out directory the handle did not see) still reads.
#[test]
fn packed_repositories_skip_the_loose_reader() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = packed_linear(tmp.path());
    assert!(Loose::at(&bare.join("objects")).is_none());
    let repo = Repo::open(&bare).expect("opens");
    assert_eq!(repo.commit(ids[2]).expect("packed commit").parents, vec![ids[1]]);
    let id = repo.write_blob(b"written after opening\n").expect("writes");
    assert_eq!(repo.blob(id).expect("reads through gix"), b"written after opening\n");
    assert_eq!(repo.blob_size(id).expect("size"), 22);
}

/// A loose file above [`MAX_FILE_BYTES`] is left to gix's map, and reads the same.
#[test]
fn large_loose_files_are_left_to_gix() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, _) = linear(tmp.path());
    let data = incompressible(MAX_FILE_BYTES + 4096);
    let repo = Repo::open(&bare).expect("opens");
    let id = repo.write_blob(&data).expect("writes");
    let reopened = Repo::open(&bare).expect("opens");
    let loose_store = Loose::at(&bare.join("objects")).expect("loose");
    assert_eq!(loose_store.read(&id, &mut Vec::new(), u64::MAX), Some(Read::Declined), "left to gix");
    assert_eq!(reopened.blob(id).expect("gix reads it"), data);
}

/// Deflates `bytes` as a loose file's stream (zlib, git's format).
fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::ZlibEncoder::new(bytes, flate2::Compression::default()).read_to_end(&mut out).expect("in memory");
    out
}

/// Damaged files the reader must leave to gix, which then names the damage.
#[test]
fn damaged_loose_files_are_left_to_gix() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let path = loose(&bare, ids[0]);
    let sound = std::fs::read(&path).expect("loose commit");
    let mut body = Vec::new();
    flate2::read::ZlibDecoder::new(&sound[..]).read_to_end(&mut body).expect("inflates");
    let nul = body.iter().position(|&b| b == 0).expect("header");
    let payload = &body[nul + 1..];
    let restated = |header: &str| {
        let mut b = header.as_bytes().to_vec();
        b.extend_from_slice(payload);
        deflate(&b)
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", sound[..sound.len() / 2].to_vec()),
        ("checksum", {
            let mut b = sound.clone();
            *b.last_mut().expect("bytes") ^= 1;
            b
        }),
        ("states more", restated(&format!("commit {}\0", payload.len() + 1))),
        ("states less", restated(&format!("commit {}\0", payload.len() - 1))),
        ("states far more", restated("commit 99999999999\0")),
        ("unknown kind", restated(&format!("thing {}\0", payload.len()))),
        ("no header", deflate(payload)),
    ];
    let repo = Repo::open(&bare).expect("opens");
    let store = gix::odb::loose::Store::at(bare.join("objects"), gix::hash::Kind::Sha1);
    for (what, bytes) in cases {
        std::fs::write(&path, &bytes).expect("rewrite");
        let mut out = Vec::new();
        assert_eq!(crate::git::loose::decode(&bytes, &mut out), None, "{what}");
        // The handle answers as gix does (an error), or, where gix reads bytes from the file
        // (a stream longer than it states: gix reads the stated prefix), names them as
        // another object: they do not hash to the id.
        let e = repo.commit(ids[0]).expect_err(what);
        assert!(matches!(e, Error::CorruptObject { .. }), "{what}: {e:?}");
        if let Ok(Some(d)) = store.try_find(&ids[0], &mut out) {
            assert_ne!(gix::objs::compute_hash(gix::hash::Kind::Sha1, d.kind, d.data).ok(), Some(ids[0]), "{what}");
            assert!(e.to_string().contains("holds another object"), "{what}: {e}");
        }
    }
    std::fs::write(&path, &sound).expect("restore");
    assert_eq!(repo.commit(ids[0]).expect("sound again").id, ids[0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever a loose file holds, decoding it answers nothing or exactly what gix's loose
    /// store reads from it, and never more bytes than the stream can inflate to.
    #[test]
    fn the_reader_answers_nothing_or_what_gix_reads(
        body in proptest::collection::vec(any::<u8>(), 0..3000),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        flip in proptest::option::of((any::<prop::sample::Index>(), 1u8..)),
        tail in proptest::collection::vec(any::<u8>(), 0..8),
        stated in proptest::option::of(0u64..4000),
    ) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let objects = tmp.path().join("objects");
        let id = ObjectId::from_hex(b"ab00000000000000000000000000000000000000").expect("id");
        std::fs::create_dir_all(objects.join("ab")).expect("mkdir");
        let size = stated.unwrap_or(body.len() as u64);
        let mut raw = format!("blob {size}\0").into_bytes();
        raw.extend_from_slice(&body);
        let mut file = deflate(&raw);
        if let Some(cut) = cut {
            file.truncate(cut.index(file.len()).max(1));
        }
        if let Some((at, mask)) = flip {
            let at = at.index(file.len());
            file[at] ^= mask;
        }
        file.extend_from_slice(&tail);
        std::fs::write(objects.join("ab").join(&id.to_string()[2..]), &file).expect("write");
        let mut out = Vec::new();
        let answer = crate::git::loose::decode(&file, &mut out);
        let mut theirs_buf = Vec::new();
        let theirs = gix::odb::loose::Store::at(&objects, gix::hash::Kind::Sha1).try_find(&id, &mut theirs_buf);
        if let Some(kind) = answer {
            let theirs = theirs.expect("gix reads what we read").expect("gix finds it");
            prop_assert_eq!(theirs.kind, kind);
            prop_assert_eq!(theirs.data, &out[..]);
            prop_assert!(out.len() as u64 <= file.len() as u64 * 1032);
        }
        // Through the store, only an id the bytes hash to is answered; other bytes that
        // decode are named as another object.
        let ours = Loose::at(&objects).expect("one fan-out directory");
        let through = ours.read(&id, &mut Vec::new(), u64::MAX);
        prop_assert!(!matches!(through, Some(Read::Object(_))), "{through:?}");
        prop_assert_eq!(matches!(through, Some(Read::Other { .. })), answer.is_some());
        if stated.is_none() && flip.is_none() && cut.is_none() {
            prop_assert_eq!(answer, Some(gix::object::Kind::Blob), "a sound file reads");
            prop_assert_eq!(out, body);
        }
    }
}

/// The seal's check of every loose object: a sound store passes (stray files ignored), and
/// each kind of damage is named by path and id, the same first one on every run.
#[test]
fn every_loose_object_is_verified_and_damage_is_named() {
    use std::sync::atomic::AtomicBool;
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let objects = bare.join("objects");
    let go = AtomicBool::new(false);
    std::fs::write(objects.join(&ids[0].to_string()[..2]).join("tmp_obj_stray"), b"junk").expect("stray");
    std::fs::create_dir_all(objects.join("zz")).expect("not a fan-out directory");
    std::fs::write(objects.join("zz").join("0".repeat(38)), b"junk").expect("stray");
    crate::git::loose::verify_all(&objects, gix::hash::Kind::Sha1, &go).expect("a sound store");
    let repo = Repo::open(&bare).expect("opens");
    assert_eq!(repo.storage().expect("sound storage"), Vec::new(), "no packs");

    let blob = repo.entry(repo.commit(ids[0]).expect("c").tree, "a.txt".into()).expect("e").expect("a").id;
    let path = loose(&bare, blob);
    let sound = std::fs::read(&path).expect("loose blob");
    let other = deflate(b"blob 4\0two\n");
    // (A file with only its checksum cut off is sound: gix reads the whole body from it, and
    // it hashes to the id.)
    let cases: [(&str, &[u8], Option<&str>); 3] = [
        ("other content", &other, Some("its bytes hash to")),
        ("truncated", &sound[..sound.len() / 2], None),
        ("empty", b"", None),
    ];
    for (what, bytes, reason) in cases {
        std::fs::write(&path, bytes).expect("damage");
        let e = crate::git::loose::verify_all(&objects, gix::hash::Kind::Sha1, &go).expect_err(what);
        assert!(e.contains(&path.display().to_string()) && e.contains(&blob.to_string()), "{what}: {e}");
        assert!(reason.is_none_or(|r| e.contains(r)), "{what}: {e}");
        let e = repo.storage().expect_err(what);
        assert!(e.contains("a loose object is damaged"), "{what}: {e}");
    }
    std::fs::write(&path, &sound).expect("restore");

    // A tree that hashes to its id but does not decode as a tree.
    let bad_tree = b"100644 a.txt\0short";
    let mut raw = format!("tree {}\0", bad_tree.len()).into_bytes();
    raw.extend_from_slice(bad_tree);
    let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Tree, bad_tree).expect("hash");
    let at = loose(&bare, id);
    std::fs::create_dir_all(at.parent().expect("fan-out")).expect("mkdir");
    std::fs::write(&at, deflate(&raw)).expect("write");
    let e = crate::git::loose::verify_all(&objects, gix::hash::Kind::Sha1, &go).expect_err("undecodable tree");
    assert!(e.contains("does not decode as a tree") && e.contains(&id.to_string()), "{e}");
    std::fs::remove_file(&at).expect("remove");

    // A fan-out directory reached through a symbolic link is read by lookups, so it is checked.
    let fan = objects.join(&blob.to_string()[..2]);
    let moved = tmp.path().join("moved-fan-out");
    std::fs::rename(&fan, &moved).expect("move");
    std::os::unix::fs::symlink(&moved, &fan).expect("symlink");
    assert_eq!(repo.blob(blob).expect("read through the link"), b"one\n");
    std::fs::write(&path, &other).expect("damage behind the link");
    let e = crate::git::loose::verify_all(&objects, gix::hash::Kind::Sha1, &go).expect_err("behind a link");
    assert!(e.contains(&blob.to_string()), "{e}");
}

/// Two damaged objects: the one with the smaller id is named, on every run.
#[test]
fn the_first_damaged_object_by_id_is_named() {
    use std::sync::atomic::AtomicBool;
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let objects = bare.join("objects");
    let mut damaged = vec![ids[0], ids[2]];
    damaged.sort();
    for id in &damaged {
        std::fs::write(loose(&bare, *id), deflate(b"blob 4\0two\n")).expect("damage");
    }
    for _ in 0..3 {
        let e = crate::git::loose::verify_all(&objects, gix::hash::Kind::Sha1, &AtomicBool::new(false))
            .expect_err("damaged");
        assert!(e.contains(&damaged[0].to_string()) && !e.contains(&damaged[1].to_string()), "{e}");
    }
}

/// A loose copy holding other bytes than its id promises is named as damage, even where a
/// pack holds the object: git prints the packed bytes, and gix, which does not recompute the
/// id, answered the loose copy's (before `git::loose`, a read here returned `two`).
#[test]
fn a_loose_copy_with_other_bytes_is_damage_even_beside_a_pack() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = packed_linear(tmp.path());
    let repo = Repo::open(&bare).expect("opens");
    let tree = repo.commit(ids[0]).expect("c").tree;
    let blob = repo.entry(tree, "a.txt".into()).expect("e").expect("a").id;
    for id in [blob, ids[0]] {
        let path = loose(&bare, id);
        std::fs::create_dir_all(path.parent().expect("fan-out")).expect("mkdir");
        std::fs::write(&path, deflate(b"blob 4\0two\n")).expect("plant");
    }
    assert_eq!(git_out(&bare, &["cat-file", "blob", &blob.to_string()]).stdout, b"one\n");
    let repo = Repo::open(&bare).expect("opens with fan-out directories");
    let mut buf = Vec::new();
    let errors = [
        repo.blob(blob).map(|_| ()),
        repo.record(blob, "a.txt").map(|_| ()),
        repo.blob_into(blob, &mut buf).map(|_| ()),
        repo.record_into(blob, "a.txt", &mut buf).map(|_| ()),
        repo.commit(ids[0]).map(|_| ()),
    ];
    for e in errors {
        let e = e.expect_err("another object");
        assert!(matches!(e, Error::CorruptObject { .. }), "{e:?}");
        assert!(e.to_string().contains("holds another object"), "{e}");
    }
    // A file the reader leaves to gix (above MAX_FILE_BYTES): what gix reads is held to the id.
    let large = incompressible(MAX_FILE_BYTES + 4096);
    let mut raw = format!("blob {}\0", large.len()).into_bytes();
    raw.extend_from_slice(&large);
    let planted = deflate(&raw);
    assert!(planted.len() as u64 > MAX_FILE_BYTES);
    std::fs::write(loose(&bare, blob), planted).expect("plant");
    let errors = [
        repo.blob(blob).map(|_| ()),
        repo.record(blob, "a.txt").map(|_| ()),
        repo.blob_into(blob, &mut buf).map(|_| ()),
        repo.record_into(blob, "a.txt", &mut buf).map(|_| ()),
    ];
    for e in errors {
        let e = e.expect_err("another object, read by gix");
        assert!(e.to_string().contains("holds another object"), "{e}");
    }
}

/// Bytes that do not compress, so that a loose file is as large as its blob.
fn incompressible(n: u64) -> Vec<u8> {
    let n = usize::try_from(n).expect("a test size");
    (0..=n / 32).flat_map(|i| <sha2::Sha256 as sha2::Digest>::digest(i.to_le_bytes())).take(n).collect()
}

/// The empty tree, which gix answers without storage, is answered so whatever a loose file at
/// its path holds.
#[test]
fn the_empty_tree_is_answered_as_gix_answers_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, _) = linear(tmp.path());
    let empty = ObjectId::empty_tree(gix::hash::Kind::Sha1);
    let before = Repo::open(&bare).expect("opens");
    let size = before.blob_size(empty).ok();
    let path = loose(&bare, empty);
    std::fs::create_dir_all(path.parent().expect("fan-out")).expect("mkdir");
    std::fs::write(&path, deflate(b"tree 28\x00100644 x\x00aaaaaaaaaaaaaaaaaaaa")).expect("plant");
    let repo = Repo::open(&bare).expect("opens");
    assert_eq!(repo.tree_children(empty).expect("the empty tree").len(), 0);
    assert_eq!(repo.blob_size(empty).ok(), size);
}

/// A FIFO at a loose path is not opened (opening it for reading would wait for a writer).
#[test]
fn a_fifo_at_a_loose_path_does_not_hang_a_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let path = loose(&bare, ids[1]);
    std::fs::remove_file(&path).expect("remove");
    let made = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo runs");
    assert!(made.success());
    let (tx, rx) = std::sync::mpsc::channel();
    let bare2 = bare.clone();
    let id = ids[1];
    std::thread::spawn(move || {
        let repo = Repo::open(&bare2).expect("opens");
        let _ = tx.send(repo.commit(id).is_err());
    });
    let failed = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the read returns");
    assert!(failed, "a FIFO holds no commit");
    // The seal's check does not open it either (no lookup reads it).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let checked = crate::git::loose::verify_all(
            &bare.join("objects"),
            gix::hash::Kind::Sha1,
            &std::sync::atomic::AtomicBool::new(false),
        );
        let _ = tx.send(checked);
    });
    let checked = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the check returns");
    assert_eq!(checked, Ok(()));
}

//! Shallow, missing and corrupt objects: typed errors, never a panic.

use super::*;

/// A shallow clone as `git clone --depth 2` leaves it: the boundary's parents are absent.
#[test]
fn shallow_clones_are_detected_and_typed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    std::fs::write(bare.join("shallow"), format!("{}\n", ids[1])).expect("shallow file");
    std::fs::remove_file(loose(&bare, ids[0])).expect("drop the commit beyond the boundary");
    let r = Repo::open(&bare).expect("opens");
    assert_eq!(r.shallow_boundary(), Some(&[ids[1]][..]));
    let e = r.require_full_history().expect_err("shallow");
    assert!(matches!(e, Error::Shallow { .. }) && e.is_evidence_gap(), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("git fetch --unshallow") && msg.contains(&ids[1].to_string()), "{msg}");
    // The boundary is a root, as in git.
    let h: Vec<ObjectId> = r.history(ids[2]).expect("history").iter().map(|c| c.id).collect();
    assert_eq!(h, vec![ids[1], ids[2]]);
    assert_eq!(r.last_change(ids[2], "a.txt").expect("lc"), Some(ids[1]));
    assert_eq!(r.last_change(ids[2], "dir/c.txt").expect("lc"), Some(ids[1]), "unchanged since the boundary");
    // The boundary names its parent, so that answer is known; an unrelated commit might still
    // hide beyond the boundary, so that answer is not.
    assert!(r.is_ancestor(ids[1], ids[2]).expect("reachable inside"));
    assert!(r.is_ancestor(ids[0], ids[2]).expect("named by the boundary"));
    let tree = r.commit(ids[2]).expect("c").tree.to_string();
    let stranger = oid(&git(&bare, &["commit-tree", &tree, "-m", "unrelated root"]));
    let e = r.is_ancestor(stranger, ids[2]).expect_err("cannot tell past the boundary");
    assert!(matches!(e, Error::Shallow { .. }), "{e:?}");
    assert!(!r.is_ancestor(ids[2], stranger).expect("a root has no ancestors to hide"));
    // Reading the absent commit directly names the cure.
    let e = r.commit(ids[0]).expect_err("absent");
    assert!(matches!(e, Error::MissingObject { what: "commit", .. }), "{e:?}");
    assert!(e.to_string().contains("git fetch --unshallow"), "{e}");
    // The shared handle keeps the boundary.
    assert!(r.shared().local().require_full_history().is_err());
    let full = Repo::open(&tmp.path().join("nowhere"));
    assert!(full.is_err());
}

#[test]
fn missing_objects_are_typed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let r = Repo::open(&bare).expect("opens");
    let t2 = r.commit(ids[2]).expect("c").tree;
    let sub = r.entry(t2, "dir/sub".into()).expect("e").expect("sub").id;
    let blob = r.entry(t2, "a.txt".into()).expect("e").expect("a").id;
    for id in [sub, blob, ids[1]] {
        std::fs::remove_file(loose(&bare, id)).expect("delete");
    }
    let r = Repo::open(&bare).expect("reopen");
    let check = |e: Error, what: &str, id: ObjectId| {
        match &e {
            Error::MissingObject { what: w, id: i, .. } => assert_eq!((*w, **i), (what, id)),
            other => panic!("{other:?}"),
        }
        assert!(e.is_evidence_gap());
        assert!(e.to_string().contains(&id.to_string()), "{e}");
    };
    check(r.walk(t2, &Scope::all()).expect_err("walk"), "tree", sub);
    assert!(r.walk(t2, &Scope::new(["a.txt", "dir/c.txt"])).is_ok(), "an out-of-scope hole is not read");
    check(r.blob(blob).expect_err("blob"), "blob", blob);
    check(r.blob_size(blob).expect_err("size"), "blob", blob);
    check(r.file_at(ids[2], "a.txt").expect_err("file_at"), "blob", blob);
    check(r.history(ids[2]).expect_err("history"), "commit", ids[1]);
    check(r.commit(ids[1]).expect_err("commit"), "commit", ids[1]);
    check(r.is_ancestor(ids[0], ids[2]).expect_err("ancestor"), "commit", ids[1]);
    check(r.last_change(ids[2], "dir/c.txt").expect_err("last_change"), "commit", ids[1]);
    assert!(!r.has(blob) && r.has(ids[2]));
    // A revision naming a missing object resolves to nothing readable.
    let e = r.resolve(&ids[1].to_string()).expect_err("missing");
    assert!(matches!(e, Error::MissingObject { .. } | Error::Revision { .. }), "{e:?}");
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    // A stored (uncompressed) deflate stream: enough for loose objects, no extra dependency.
    let mut out = vec![0x78, 0x01];
    let chunks: Vec<&[u8]> = if bytes.is_empty() { vec![&[][..]] } else { bytes.chunks(65_535).collect() };
    for (i, c) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let n = u16::try_from(c.len()).expect("chunked");
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(!n).to_le_bytes());
        out.extend_from_slice(c);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &x in bytes {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

/// Replaces the loose object `id` with `raw` (already including the `kind size\0` header).
fn overwrite(repo: &Path, id: ObjectId, raw: &[u8], compress: bool) {
    let p = loose(repo, id);
    let mut perms = std::fs::metadata(&p).expect("meta").permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&p, perms).expect("writable");
    std::fs::write(&p, if compress { zlib(raw) } else { raw.to_vec() }).expect("write");
}

#[test]
fn corrupt_objects_are_typed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let r = Repo::open(&bare).expect("opens");
    let t2 = r.commit(ids[2]).expect("c").tree;
    let sub = r.entry(t2, "dir/sub".into()).expect("e").expect("sub").id;
    let blob = r.entry(t2, "a.txt".into()).expect("e").expect("a").id;
    // Our own zlib writer is right: a rewritten intact object still reads.
    overwrite(&bare, blob, b"blob 4\0two\n", true);
    assert_eq!(Repo::open(&bare).expect("o").blob(blob).expect("blob"), b"two\n");

    let cases: Vec<(ObjectId, Vec<u8>, bool, &str)> = vec![
        (blob, b"not zlib at all".to_vec(), false, "blob"),
        (blob, zlib(b"blob 99\0short"), false, "blob"),
        (blob, zlib(b"blob 4\0two\n")[..6].to_vec(), false, "blob"),
        (blob, b"tree 4\0two\n".to_vec(), true, "blob"),
        (sub, b"tree 9\0garbage!!".to_vec(), true, "tree"),
        (sub, [&b"tree 12\0"[..], b"100644 b.txt\0\x01"].concat(), true, "tree"),
        (sub, b"blob 3\0abc".to_vec(), true, "tree"),
        (ids[1], b"commit 10\0not a cmt\n".to_vec(), true, "commit"),
        (ids[1], b"blob 3\0abc".to_vec(), true, "commit"),
    ];
    let pristine: BTreeMap<ObjectId, Vec<u8>> =
        [blob, sub, ids[1]].iter().map(|id| (*id, std::fs::read(loose(&bare, *id)).expect("read"))).collect();
    for (id, raw, compress, what) in cases {
        for (k, v) in &pristine {
            overwrite(&bare, *k, v, false);
        }
        overwrite(&bare, id, &raw, compress);
        let r = Repo::open(&bare).expect("opens");
        let e = match what {
            "blob" => r.blob(id).expect_err("corrupt blob"),
            "tree" => r.walk(t2, &Scope::all()).expect_err("corrupt tree"),
            _ => r.history(ids[2]).expect_err("corrupt commit"),
        };
        assert!(
            matches!(&e, Error::CorruptObject { id: i, what: w, .. } if **i == id && *w == what)
                || matches!(&e, Error::MissingObject { id: i, .. } if **i == id),
            "{what} {raw:?}: {e:?}"
        );
        assert!(e.is_evidence_gap());
    }
}

/// Whatever bytes a loose object holds, reading it gives a value or an error, never a panic.
#[test]
fn arbitrary_object_bytes_never_panic() {
    use proptest::prelude::*;
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let r = Repo::open(&bare).expect("opens");
    let t2 = r.commit(ids[2]).expect("c").tree;
    let sub = r.entry(t2, "dir/sub".into()).expect("e").expect("sub").id;
    let targets = [(sub, "tree"), (ids[1], "commit"), (t2, "tree")];
    let pristine: Vec<Vec<u8>> =
        targets.iter().map(|(id, _)| std::fs::read(loose(&bare, *id)).expect("read")).collect();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 200, ..ProptestConfig::default() });
    runner
        .run(
            &(0usize..3, proptest::collection::vec(any::<u8>(), 0..64), any::<bool>(), any::<u8>()),
            |(t, body, as_kind, flip)| {
                for (i, (id, _)) in targets.iter().enumerate() {
                    overwrite(&bare, *id, &pristine[i], false);
                }
                let (id, kind) = targets[t];
                let raw = if as_kind {
                    // A well-formed header over random (or bit-flipped real) content.
                    let mut content = r
                        .object(
                            id,
                            if kind == "tree" { gix::object::Kind::Tree } else { gix::object::Kind::Commit },
                            kind,
                        )
                        .expect("pristine");
                    if body.is_empty() {
                        let at = usize::from(flip) % content.len().max(1);
                        if let Some(b) = content.get_mut(at) {
                            *b ^= 0x5a;
                        }
                    } else {
                        content = body;
                    }
                    let mut raw = format!("{kind} {}\0", content.len()).into_bytes();
                    raw.extend_from_slice(&content);
                    raw
                } else {
                    body
                };
                overwrite(&bare, id, &raw, true);
                let r = Repo::open(&bare).expect("opens");
                let _ = r.walk(t2, &Scope::all());
                let _ = r.history(ids[2]);
                let _ = r.last_change(ids[2], "dir/sub/b.txt");
                let _ = r.is_ancestor(ids[0], ids[2]);
                let _ = r.diff(Some(r.commit(ids[0]).map(|c| c.tree).unwrap_or(t2)), Some(t2));
                Ok(())
            },
        )
        .expect("no panic");
}

#[test]
fn records_above_the_limit_are_refused_before_reading() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("big.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    let size = usize::try_from(MAX_RECORD_BYTES).expect("fits") + 1;
    b.file("big.json", vec![b' '; size]).file("small.json", "{}");
    let c = b.commit("c").expect("commit");
    let r = Repo::open(&path).expect("opens");
    let e = r.file_at(c, "big.json").expect_err("too large");
    assert!(matches!(e, Error::TooLarge { size: s, .. } if s == MAX_RECORD_BYTES + 1), "{e:?}");
    assert!(e.to_string().contains("big.json"), "{e}");
    assert_eq!(r.file_at(c, "small.json").expect("small"), Some(b"{}".to_vec()));
    assert_eq!(r.file_at(c, "nope.json").expect("absent"), None);
    assert_eq!(r.file_at(c, "").expect("the root is not a file"), None);
}

/// A tree nested far deeper than git allows must fail cleanly instead of exhausting the stack.
#[test]
fn absurdly_deep_trees_fail_cleanly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("deep.git");
    let b = RepoBuilder::init(&path).expect("init");
    let r = Repo::open(&path).expect("opens");
    let leaf = b.write_blob(b"leaf").expect("blob");
    let mut tree = r
        .inner
        .write_object(&gix::objs::Tree {
            entries: vec![gix::objs::tree::Entry {
                mode: gix::objs::tree::EntryKind::Blob.into(),
                filename: "f".into(),
                oid: leaf,
            }],
        })
        .expect("tree")
        .detach();
    for _ in 0..20_000 {
        tree = r
            .inner
            .write_object(&gix::objs::Tree {
                entries: vec![gix::objs::tree::Entry {
                    mode: gix::objs::tree::EntryKind::Tree.into(),
                    filename: "d".into(),
                    oid: tree,
                }],
            })
            .expect("tree")
            .detach();
    }
    let e = r.walk(tree, &Scope::all()).expect_err("too deep");
    assert!(matches!(e, Error::CorruptObject { what: "tree", .. }), "{e:?}");
    assert!(e.to_string().contains("deeper than"), "{e}");
    assert!(r.diff(None, Some(tree)).is_err());
    assert!(r.diff(Some(leaf_tree(&r, leaf)), Some(tree)).is_err());
}

fn leaf_tree(r: &Repo, leaf: ObjectId) -> ObjectId {
    r.inner
        .write_object(&gix::objs::Tree {
            entries: vec![gix::objs::tree::Entry {
                mode: gix::objs::tree::EntryKind::Blob.into(),
                filename: "g".into(),
                oid: leaf,
            }],
        })
        .expect("tree")
        .detach()
}

#[test]
fn paths_display_like_git_quote_path() {
    assert_eq!(display_path(b"experiments/r\xc3\xa9sum\xc3\xa9.md".as_bstr()), "experiments/résumé.md");
    assert_eq!(display_path(b"a/n\xff.md".as_bstr()), "\"a/n\\377.md\"");
    assert_eq!(display_path(b"tab\there".as_bstr()), "\"tab\\there\"");
    assert_eq!(display_path(b"q\"uote".as_bstr()), "\"q\\\"uote\"");
    assert_eq!(c_quote(b"\x07\x08\x0b\x0c\r\n\\".as_bstr()), "\"\\a\\b\\v\\f\\r\\n\\\\\"");
}

#[test]
fn scopes_normalise_prefixes() {
    assert_eq!(Scope::new(["./exp/", "exp", "a//"]).prefixes(), vec!["a".to_owned(), "exp".to_owned()]);
    assert_eq!(Scope::new(["exp", ""]), Scope::all());
    assert_eq!(Scope::new(["."]), Scope::all());
    let s = Scope::new(["exp/run"]);
    assert!(s.contains("exp/run".into()) && s.contains("exp/run/x".into()));
    assert!(!s.contains("exp/run-2/x".into()) && !s.contains("exp".into()));
}

/// Raw tree data from `(mode, name, id byte)` triples, in the order given.
fn raw_tree(entries: &[(&str, &[u8], u8)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (mode, name, id) in entries {
        out.extend_from_slice(mode.as_bytes());
        out.push(b' ');
        out.extend_from_slice(name);
        out.push(0);
        out.extend_from_slice(&[*id; 20]);
    }
    out
}

#[test]
fn trees_git_would_not_write_are_refused() {
    type Raw<'a> = &'a [(&'a str, &'a [u8], u8)];
    let sha1 = gix::hash::Kind::Sha1;
    let ok = raw_tree(&[
        ("100644", b"a", 1),
        ("100755", b"a-b", 2),
        ("40000", b"d", 3),
        ("120000", b"l", 4),
        ("160000", b"s", 5),
        ("100664", b"z", 6),
    ]);
    let decoded = decode_tree(&ok, sha1).expect("a well-formed tree");
    assert_eq!(decoded.len(), 6);
    // The zero-padded tree mode of old tools is still a tree.
    let padded = decode_tree(&raw_tree(&[("040000", b"d", 3)]), sha1).expect("a zero-padded tree mode");
    assert_eq!(padded[0].1, EntryKind::Tree);
    let cases: &[(Raw<'_>, &str)] = &[
        (&[("100644", b"b", 1), ("100644", b"a", 2)], "order"),
        (&[("100644", b"a", 1), ("100644", b"a", 2)], "order"),
        (&[("40000", b"a", 3), ("100644", b"a", 1)], "order"),
        // A file and a directory named alike, in git's order.
        (&[("100644", b"a", 1), ("100644", b"a-b", 2), ("40000", b"a", 3)], "two entries have this name"),
        // A symlink or a submodule and a directory named alike; a file's name is no tree's.
        (&[("120000", b"a", 1), ("40000", b"a", 3)], "two entries have this name"),
        (&[("160000", b"a", 1), ("40000", b"a-", 3), ("40000", b"a", 3)], "two entries have this name"),
        (&[("100644", b"x/y", 1)], "valid file name"),
        (&[("100644", b"..", 1)], "valid file name"),
        (&[("40000", b".", 1)], "valid file name"),
        (&[("22", b"odd", 1)], "mode 22"),
        (&[("100600", b"odd", 1)], "mode 100600"),
        // Type bits 14: gix reads a tree, git a submodule (found by the tree_decode fuzz target).
        (&[("140644", b"odd", 1)], "is not one git writes"),
        (&[("140000", b"odd", 1)], "is not one git writes"),
    ];
    for (entries, want) in cases {
        let e = decode_tree(&raw_tree(entries), sha1).expect_err("refused");
        assert!(e.to_string().contains(want), "{entries:?}: {e}");
    }
    assert!(decode_tree(b"100644 a\0short", sha1).is_err());
    assert!(decode_tree(b"", sha1).expect("the empty tree").is_empty());
}

/// A tree that lists `data.csv` twice must not yield a manifest holding one of the two digests.
#[test]
fn a_tree_with_duplicate_names_is_corrupt_not_half_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("dup.git");
    let b = RepoBuilder::init(&path).expect("init");
    let (x, y) = (b.write_blob(b"honest").expect("blob"), b.write_blob(b"forged").expect("blob"));
    let mut data = Vec::new();
    for id in [x, y] {
        data.extend_from_slice(b"100644 data.csv\0");
        data.extend_from_slice(id.as_bytes());
    }
    let r = Repo::open(&path).expect("opens");
    let tree = gix::prelude::Write::write_buf(&r.inner, gix::object::Kind::Tree, &data).expect("write");
    let e = r.walk(tree, &Scope::all()).expect_err("refused");
    assert!(matches!(e, Error::CorruptObject { what: "tree", .. }), "{e:?}");
    assert!(e.to_string().contains("data.csv"), "{e}");
    assert!(git_out(&path, &["ls-tree", &tree.to_string()]).stdout.len() > 80, "git itself lists both entries");
}

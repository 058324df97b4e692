//! Walk and diff, compared with `git ls-tree` and `git diff-tree`.

use super::*;

#[test]
fn walk_lists_kinds_and_respects_scope_like_ls_tree() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("w.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    b.file("a", "a")
        .put("exp/run.sh", Content::Executable(b"#!/bin/sh\n".to_vec()))
        .put("exp/latest", Content::Symlink(b"run.sh".to_vec()))
        .put(
            "exp/vendor",
            Content::Submodule(ObjectId::from_hex(b"1111111111111111111111111111111111111111").expect("hex")),
        )
        .file("exp/deep/er/f", "f")
        .file("exp-2/g", "g")
        .file("expx", "x")
        .file(b"exp/n\xffm".as_slice(), "latin-1");
    let c = b.commit("c").expect("commit");
    let r = Repo::open(&path).expect("opens");
    let tree = r.commit(c).expect("commit").tree;
    for scope in [
        vec![],
        vec!["exp"],
        vec!["exp/deep"],
        vec!["exp/", "./a"],
        vec!["exp/deep/er/f"],
        vec!["ex"],
        vec!["exp-2", "expx"],
    ] {
        let got: Vec<(BString, &str, ObjectId)> = r
            .walk(tree, &Scope::new(&scope))
            .expect("walk")
            .into_iter()
            .map(|e| (e.path, e.kind.as_str(), e.id))
            .collect();
        let mut args = vec!["ls-tree", "-r", "-z", "main", "--"];
        args.extend(scope.iter().map(|s| s.trim_start_matches("./")));
        let out = git_out(&path, &args);
        assert!(out.status.success());
        let mut want: Vec<(BString, &str, ObjectId)> = out
            .stdout
            .split(|b| *b == 0)
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (meta, p) = l.split_at(l.find_byte(b'\t').expect("tab"));
                let meta = meta.to_str().expect("ascii");
                let mut it = meta.split(' ');
                let kind = match it.next().expect("mode") {
                    "100644" => "file",
                    "100755" => "executable",
                    "120000" => "symlink",
                    "160000" => "submodule",
                    m => panic!("mode {m}"),
                };
                let id = oid(it.nth(1).expect("id"));
                (BString::from(&p[1..]), kind, id)
            })
            .collect();
        want.sort();
        assert_eq!(got, want, "scope {scope:?}");
    }
}

/// `(path, old mode, old id, new mode, new id)` from `git diff-tree -r --raw -z`.
type RawChange = (BString, Option<(EntryKind, ObjectId)>, Option<(EntryKind, ObjectId)>);

fn git_diff(path: &Path, a: ObjectId, b: ObjectId) -> Vec<RawChange> {
    let out = git_out(
        path,
        &["diff-tree", "-r", "-z", "--no-renames", "--raw", "--abbrev=40", &a.to_string(), &b.to_string()],
    );
    assert!(out.status.success());
    let mut parts = out.stdout.split(|x| *x == 0).filter(|p| !p.is_empty());
    let kind = |m: &str| match m {
        "000000" => None,
        "100644" => Some(EntryKind::File),
        "100755" => Some(EntryKind::Executable),
        "120000" => Some(EntryKind::Symlink),
        "160000" => Some(EntryKind::Submodule),
        m => panic!("mode {m}"),
    };
    let mut v = Vec::new();
    while let Some(meta) = parts.next() {
        let meta = meta.to_str().expect("ascii");
        let f: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let p = BString::from(parts.next().expect("path"));
        let old = kind(f[0]).map(|k| (k, oid(f[2])));
        let new = kind(f[1]).map(|k| (k, oid(f[3])));
        // git reports a type change (T) as one line; we keep it as one change too.
        v.push((p, old, new));
    }
    v.sort();
    v
}

#[test]
fn diff_reports_adds_modifies_deletes_and_kind_changes_like_git() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("d.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    b.file("keep/deep/k", "k")
        .file("mod", "1")
        .file("del", "d")
        .file("chmod", "c")
        .file("tolink", "t")
        .file("todir", "x")
        .file("fromdir/inner", "i")
        .file("sub", "s");
    let a = b.commit("a").expect("a");
    b.file("mod", "2")
        .remove("del")
        .file("add/new", "n")
        .put("chmod", Content::Executable(b"c".to_vec()))
        .put("tolink", Content::Symlink(b"t".to_vec()))
        .remove("todir")
        .file("todir/now", "x")
        .remove("fromdir/inner")
        .file("fromdir", "i")
        .put("sub", Content::Submodule(ObjectId::from_hex(b"2222222222222222222222222222222222222222").expect("hex")));
    let c = b.commit("b").expect("b");
    let r = Repo::open(&path).expect("opens");
    let (ta, tc) = (r.commit(a).expect("a").tree, r.commit(c).expect("b").tree);
    let got: Vec<RawChange> =
        r.diff(Some(ta), Some(tc)).expect("diff").into_iter().map(|c| (c.path, c.old, c.new)).collect();
    assert_eq!(got, git_diff(&path, a, c));
    let paths: Vec<&[u8]> = got.iter().map(|c| c.0.as_slice()).collect();
    for p in [
        &b"chmod"[..],
        b"tolink",
        b"todir",
        b"todir/now",
        b"fromdir",
        b"fromdir/inner",
        b"sub",
        b"mod",
        b"del",
        b"add/new",
    ] {
        assert!(paths.contains(&p), "{} reported", p.as_bstr());
    }
    assert!(!paths.iter().any(|p| p.starts_with(b"keep")));
    // Limited to a scope: the changes inside it, as the whole diff lists them.
    for prefixes in [vec![], vec!["todir"], vec!["fromdir", "add"], vec!["fromdir/inner"], vec!["to"], vec!["./sub/"]] {
        let scope = Scope::new(&prefixes);
        let within: Vec<RawChange> = r
            .diff_within(Some(ta), Some(tc), &scope)
            .expect("diff")
            .into_iter()
            .map(|c| (c.path, c.old, c.new))
            .collect();
        let filtered: Vec<RawChange> = got.iter().filter(|c| scope.contains(c.0.as_bstr())).cloned().collect();
        assert_eq!(within, filtered, "{prefixes:?}");
    }
    // From nothing and to nothing.
    let all_added = r.diff(None, Some(ta)).expect("diff");
    assert_eq!(all_added.len(), r.walk(ta, &Scope::all()).expect("walk").len());
    assert!(all_added.iter().all(|c| c.old.is_none() && c.new.is_some()));
    let all_deleted = r.diff(Some(ta), None).expect("diff");
    assert!(all_deleted.iter().all(|c| c.old.is_some() && c.new.is_none()));
    assert!(r.diff(Some(ta), Some(ta)).expect("diff").is_empty());
}

/// The unchanged subtree's tree object is deleted: a diff that descended into it would fail.
#[test]
fn diff_skips_identical_subtrees() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let r = Repo::open(&bare).expect("opens");
    let t1 = r.commit(ids[1]).expect("c").tree;
    let t2 = r.commit(ids[2]).expect("c").tree;
    let t0 = r.commit(ids[0]).expect("c").tree;
    let dir = r.entry(t1, "dir".into()).expect("e").expect("dir").id;
    assert_eq!(Some(dir), r.entry(t0, "dir".into()).expect("e").map(|e| e.id), "dir is unchanged from c0 to c1");
    std::fs::remove_file(loose(&bare, dir)).expect("delete the dir tree");
    let r = Repo::open(&bare).expect("reopen");
    let changes = r.diff(Some(t0), Some(t1)).expect("the unchanged subtree is never read");
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, "a.txt");
    let e = r.diff(Some(t1), Some(t2)).expect_err("the changed subtree must be read");
    assert!(matches!(e, Error::MissingObject { what: "tree", .. }), "{e:?}");
    // Outside the scope a changed subtree is not read either.
    let outside = r.diff_within(Some(t1), Some(t2), &Scope::new(["a.txt"])).expect("dir is outside the scope");
    assert!(outside.iter().all(|c| c.path == "a.txt"), "{outside:?}");
    let e = r.diff_within(Some(t1), Some(t2), &Scope::new(["dir"])).expect_err("inside the scope it is read");
    assert!(matches!(e, Error::MissingObject { what: "tree", .. }), "{e:?}");
}

proptest::proptest! {
    /// `git_order` is gix's order of tree entries, and `find_child` finds in a tree of any
    /// names (prefixes of each other, bytes on either side of `/`) what a scan finds.
    #[test]
    fn child_lookup_agrees_with_a_scan(
        names in proptest::collection::btree_set(proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(b'a'), proptest::strategy::Just(b'-'), proptest::strategy::Just(b'0'), proptest::strategy::Just(0xc3u8)], 1..4), 0..24),
        trees in proptest::collection::vec(proptest::bool::ANY, 24),
        probe in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(b'a'), proptest::strategy::Just(b'-'), proptest::strategy::Just(b'0')], 1..4),
    ) {
        use crate::git::tree::{find_child, git_order};
        let id = |i: usize| ObjectId::from_bytes_or_panic(&[u8::try_from(i).expect("small"); 20]);
        let mut children: Vec<(BString, EntryKind, ObjectId)> = names
            .iter()
            .zip(&trees)
            .enumerate()
            .map(|(i, (n, t))| (BString::from(n.clone()), if *t { EntryKind::Tree } else { EntryKind::File }, id(i)))
            .collect();
        let mode = |k: EntryKind| if k == EntryKind::Tree { gix::objs::tree::EntryKind::Tree } else { gix::objs::tree::EntryKind::Blob };
        children.sort_by(|a, b| git_order(&a.0, a.1 == EntryKind::Tree, &b.0, b.1 == EntryKind::Tree));
        for w in children.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let gix_order = gix::objs::tree::EntryRef { mode: mode(a.1).into(), filename: a.0.as_bstr(), oid: &a.2 }
                .cmp(&gix::objs::tree::EntryRef { mode: mode(b.1).into(), filename: b.0.as_bstr(), oid: &b.2 });
            proptest::prop_assert_eq!(gix_order, std::cmp::Ordering::Less);
        }
        for name in names.iter().map(Vec::as_slice).chain([probe.as_slice()]) {
            let scanned = children.iter().find(|(n, _, _)| n.as_slice() == name).map(|(_, k, i)| (*k, *i));
            proptest::prop_assert_eq!(find_child(&children, name), scanned);
        }
    }
}

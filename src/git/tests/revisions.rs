//! Revisions: names, ids, ancestry and tags, and the errors for those that name no commit.

use super::*;

#[test]
fn resolves_branches_ancestry_ids_and_tags() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    git(&bare, &["tag", "light", &ids[0].to_string()]);
    git(&bare, &["tag", "-a", "annotated", "-m", "a tag", &ids[1].to_string()]);
    git(&bare, &["tag", "-a", "nested", "-m", "tag of a tag", "annotated"]);
    let r = Repo::open(&bare).expect("opens");
    let cases: &[(&str, ObjectId)] = &[
        ("HEAD", ids[2]),
        ("main", ids[2]),
        ("refs/heads/main", ids[2]),
        ("HEAD~1", ids[1]),
        ("main~2", ids[0]),
        ("HEAD^", ids[1]),
        ("light", ids[0]),
        ("annotated", ids[1]),
        ("nested", ids[1]),
        ("refs/tags/annotated", ids[1]),
    ];
    for (rev, want) in cases {
        assert_eq!(r.resolve(rev).unwrap_or_else(|e| panic!("{rev}: {e}")), *want, "{rev}");
        assert_eq!(oid(&git(&bare, &["rev-parse", &format!("{rev}^{{commit}}")])), *want, "git agrees on {rev}");
    }
    for id in &ids {
        let hex = id.to_string();
        assert_eq!(r.resolve(&hex).expect("full id"), *id);
        assert_eq!(r.resolve(&hex[..8]).expect("abbreviated id"), *id);
        assert_eq!(
            r.resolve(&hex.to_uppercase()[..10]).ok(),
            git_out(&bare, &["rev-parse", "-q", "--verify", &hex.to_uppercase()[..10]]).status.success().then_some(*id)
        );
    }
}

#[test]
fn bad_revisions_are_typed_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let r = Repo::open(&bare).expect("opens");
    let tree = r.commit(ids[0]).expect("commit").tree.to_string();
    for rev in [
        "no-such-branch",
        "HEAD~3",
        "HEAD~99",
        "main^{tree}",
        "HEAD:a.txt",
        tree.as_str(),
        "",
        "0123456789",
        "deadbeef",
    ] {
        match r.resolve(rev) {
            Err(Error::Revision { rev: got, path, .. }) => {
                assert_eq!(got, rev);
                assert_eq!(path, bare);
            }
            other => panic!("{rev:?}: {other:?}"),
        }
        let e = r.resolve(rev).expect_err("still an error");
        assert!(e.to_string().contains(&format!("`{rev}`")), "the message names the revision: {e}");
        assert!(!e.is_evidence_gap(), "{rev}: a bad revision is a usage error");
    }
}

/// Two objects whose ids share a 4-digit prefix make that prefix ambiguous; gix says so and we
/// pass it on as a revision error instead of picking one.
#[test]
fn ambiguous_abbreviated_ids_are_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("amb.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    let mut by_prefix: BTreeMap<String, Vec<ObjectId>> = BTreeMap::new();
    let mut n = 0u32;
    let prefix = loop {
        let id = b.write_blob(format!("blob {n}\n").as_bytes()).expect("blob");
        n += 1;
        let p = id.to_string()[..4].to_owned();
        let v = by_prefix.entry(p.clone()).or_default();
        v.push(id);
        if v.len() == 2 {
            break p;
        }
    };
    b.file("x", "x").commit("c").expect("commit");
    let r = Repo::open(&path).expect("opens");
    let e = r.resolve(&prefix).expect_err("ambiguous");
    assert!(matches!(e, Error::Revision { .. }), "{e:?}");
    assert!(!git_out(&path, &["rev-parse", "--verify", "-q", &prefix]).status.success(), "git refuses it too");
}

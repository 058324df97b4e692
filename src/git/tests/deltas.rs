//! Delta families (`git::deltas`) against `git verify-pack -v`, which prints each packed
//! object's delta base.

use super::*;

/// A bare repository whose one file has `versions` versions of about 24 KB each, a few lines
/// apart, packed: git stores most of them as deltas of one another.
fn packed_versions(dir: &Path, versions: usize) -> (PathBuf, Vec<ObjectId>) {
    let path = dir.join("versions.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    let mut lines: Vec<String> = (0..800).map(|i| format!("{i:06} {}\n", i * 7919 % 1_000_003)).collect();
    let mut blobs = Vec::new();
    for v in 0..versions {
        lines[v * 37 % 800] = format!("version {v}\n");
        let text = lines.concat();
        blobs.push(
            gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Blob, text.as_bytes()).expect("hash"),
        );
        b.file("data.txt", text).file("other.txt", format!("{v}\n"));
        b.commit(&format!("v{v}")).expect("commit");
    }
    git(&path, &["repack", "-adfq", "--window=10", "--depth=50"]);
    (path, blobs)
}

#[test]
fn delta_families_are_the_bases_git_prints() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, _) = packed_versions(tmp.path(), 12);
    let pack = std::fs::read_dir(bare.join("objects/pack"))
        .expect("pack dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "idx"))
        .expect("an index");
    let printed = git(&bare, &["verify-pack", "-v", pack.to_str().expect("UTF-8 path")]);
    // `<id> <type> <size> <size in pack> <offset> [<depth> <base id>]`
    let mut want: BTreeMap<ObjectId, BTreeSet<ObjectId>> = BTreeMap::new();
    for line in printed.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() == 7 && fields[0].len() == 40 {
            want.entry(oid(fields[6])).or_default().insert(oid(fields[0]));
        }
    }
    assert!(want.values().map(BTreeSet::len).sum::<usize>() >= 10, "git stored most versions as deltas: {want:?}");
    let families = Repo::open(&bare).expect("opens").delta_families();
    let got: BTreeMap<ObjectId, BTreeSet<ObjectId>> =
        want.keys().map(|base| (*base, families.children(base).iter().copied().collect())).collect();
    assert_eq!(got, want);
    assert_eq!(families.bases(), want.len());
}

#[test]
fn a_repository_without_packs_has_no_families() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let families = Repo::open(&bare).expect("opens").delta_families();
    assert_eq!(families.bases(), 0);
    assert!(families.children(&ids[0]).is_empty());
}

#[test]
fn a_damaged_pack_or_index_is_skipped_not_trusted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, _) = packed_versions(tmp.path(), 8);
    let file = |ext: &str| {
        std::fs::read_dir(bare.join("objects/pack"))
            .expect("pack dir")
            .map(|e| e.expect("entry").path())
            .find(|p| p.extension().is_some_and(|x| x == ext))
            .expect("a pack file")
    };
    let (pack, idx) = (file("pack"), file("idx"));
    let whole = Repo::open(&bare).expect("opens").delta_families().bases();
    assert!(whole >= 1);
    // Cut inside the entries: the headers past the cut are not read, the rest still are.
    let bytes = std::fs::read(&pack).expect("pack");
    std::fs::write(&pack, &bytes[..bytes.len() / 2]).expect("truncate");
    let cut = Repo::open(&bare).expect("opens").delta_families().bases();
    assert!(cut <= whole, "{cut} > {whole}");
    std::fs::write(&idx, b"not an index").expect("garbage");
    assert_eq!(Repo::open(&bare).expect("opens").delta_families().bases(), 0);
}

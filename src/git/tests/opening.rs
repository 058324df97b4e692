//! Opening: files, reftable and SHA-256 repositories, bare or not, whatever their own configuration says.

use super::*;

#[test]
fn open_refuses_missing_paths_and_plain_directories() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let missing = tmp.path().join("nope");
    let e = Repo::open(&missing).err().expect("missing path is refused");
    assert!(matches!(e, Error::Open { .. }), "{e:?}");
    assert!(e.to_string().contains("no such file or directory"), "{e}");
    let e = Repo::open(tmp.path()).err().expect("a plain directory is refused");
    assert!(matches!(e, Error::Open { .. }), "{e:?}");
    assert!(e.to_string().contains(&tmp.path().display().to_string()), "names the path: {e}");
}

/// A reftable repository (`git init --ref-format=reftable`) with two branches and a deleted one,
/// lightweight and annotated tags, a symref and `n_refs` more refs; `None` when this git cannot
/// make one (older than 2.45).
fn reftable_repo(root: &Path, name: &str, n_refs: usize, extra: &[&str]) -> Option<PathBuf> {
    let mut args = vec!["init", "-q", "--ref-format=reftable", "-b", "main"];
    args.extend_from_slice(extra);
    args.push(name);
    let out = git_out(root, &args);
    if !out.status.success() {
        assert!(String::from_utf8_lossy(&out.stderr).contains("ref-format"), "{out:?}");
        return None;
    }
    let dir = root.join(name);
    for i in 0..3 {
        std::fs::write(dir.join("a.txt"), format!("{i}\n")).expect("write");
        git(&dir, &["add", "-A"]);
        git(&dir, &["commit", "-q", "-m", &format!("c{i}")]);
    }
    git(&dir, &["branch", "side", "HEAD~1"]);
    git(&dir, &["branch", "gone", "HEAD~2"]);
    git(&dir, &["branch", "-D", "-q", "gone"]);
    git(&dir, &["tag", "light", "HEAD~2"]);
    git(&dir, &["tag", "-a", "-m", "annotated", "v1", "HEAD~1"]);
    git(&dir, &["symbolic-ref", "refs/heads/alias", "refs/heads/side"]);
    if n_refs > 0 {
        let input: String =
            (0..n_refs).map(|i| format!("create refs/heads/many/branch-{i:05} HEAD~{}\n", i % 3)).collect();
        let mut child = Command::new("git")
            .args(["update-ref", "--stdin"])
            .current_dir(&dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", &dir)
            .env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false")
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("git update-ref");
        std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), input.as_bytes()).expect("feed update-ref");
        assert!(child.wait().expect("update-ref").success());
    }
    Some(dir)
}

/// Every ref git lists, `HEAD` and `HEAD~1` resolve through [`Repo`] to git's own ids.
fn assert_refs_match_git(dir: &Path) {
    let repo = Repo::open(dir).expect("a reftable repository opens");
    let listed = git(dir, &["for-each-ref", "--format=%(refname) %(objectname)"]);
    let mut n = 0;
    for line in listed.lines() {
        let (name, id) = line.split_once(' ').expect("name and id");
        let want = oid(&git(dir, &["rev-parse", &format!("{name}^{{commit}}")]));
        assert_eq!(repo.resolve(name).expect(name), want, "{name} (listed as {id})");
        n += 1;
    }
    assert!(n >= 5, "git listed only {n} refs");
    for rev in ["HEAD", "HEAD~1", "@", "main", "side", "alias", "light", "v1", "v1^{commit}", "heads/main~2", "HEAD^"] {
        assert_eq!(
            repo.resolve(rev).expect(rev),
            oid(&git(dir, &["rev-parse", &format!("{rev}^{{commit}}")])),
            "{rev}"
        );
    }
    let full = git(dir, &["rev-parse", "HEAD~1"]);
    assert_eq!(repo.resolve(&format!("{}~1", full.trim())).expect("id~1"), oid(&git(dir, &["rev-parse", "HEAD~2"])));
    let e = repo.resolve("gone").expect_err("a deleted branch is gone");
    assert!(e.to_string().contains("no branch, tag or commit is called `gone`"), "{e}");
    let e = repo.resolve("HEAD~9").expect_err("too deep");
    assert!(!e.to_string().contains("no commits"), "{e}");
    // Objects read as in any repository.
    let head = repo.resolve("HEAD").expect("HEAD");
    assert_eq!(repo.history(head).expect("history").len(), 3);
    assert_eq!(repo.shared().local().resolve("side").expect("side"), repo.resolve("HEAD~1").expect("HEAD~1"));
}

/// git's reftable ref storage is a valid repository: every ref git lists resolves to git's id,
/// before and after compaction, in one block and across many.
#[test]
fn reftable_repositories_resolve_like_git() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let Some(small) = reftable_repo(tmp.path(), "small", 0, &[]) else { return };
    let tables = std::fs::read_to_string(small.join(".git/reftable/tables.list")).expect("tables.list");
    assert!(tables.lines().count() > 1, "several tables before compaction: {tables}");
    assert_refs_match_git(&small);
    git(&small, &["pack-refs", "--all"]);
    let tables = std::fs::read_to_string(small.join(".git/reftable/tables.list")).expect("tables.list");
    assert_eq!(tables.lines().count(), 1, "one table after compaction");
    assert_refs_match_git(&small);

    // Enough refs for many ref blocks (and a ref index), with and without compaction.
    let many = reftable_repo(tmp.path(), "many", 3000, &[]).expect("made once already");
    assert_refs_match_git(&many);
    git(&many, &["pack-refs", "--all"]);
    let table = std::fs::read_to_string(many.join(".git/reftable/tables.list")).expect("tables.list");
    let size = std::fs::metadata(many.join(".git/reftable").join(table.trim())).expect("table").len();
    assert!(size > 3 * 4096, "the table spans several blocks ({size} bytes)");
    assert_refs_match_git(&many);

    // SHA-256 (reftable version 2) alike.
    let s = reftable_repo(tmp.path(), "s256", 200, &["--object-format=sha256"]).expect("made once already");
    assert_refs_match_git(&s);
    git(&s, &["pack-refs", "--all"]);
    assert_refs_match_git(&s);
}

/// A linked worktree of a reftable repository has its own `HEAD` in its own stack.
#[test]
fn reftable_linked_worktrees_have_their_own_head() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let Some(main) = reftable_repo(tmp.path(), "m", 0, &[]) else { return };
    git(&main, &["worktree", "add", "-q", "../linked", "side"]);
    let linked = tmp.path().join("linked");
    for (dir, want) in [(&main, "main"), (&linked, "side")] {
        let repo = Repo::open(dir).expect("opens");
        assert_eq!(repo.resolve("HEAD").expect("HEAD"), oid(&git(dir, &["rev-parse", "HEAD"])), "{}", dir.display());
        assert_eq!(repo.resolve("HEAD").expect("HEAD"), repo.resolve(want).expect(want));
        assert_eq!(repo.resolve("v1").expect("shared tag"), oid(&git(dir, &["rev-parse", "v1^{commit}"])));
    }
}

/// An unborn reftable repository says so, as a files one does.
#[test]
fn reftable_unborn_head_says_no_commits() {
    let tmp = tempfile::tempdir().expect("tempdir");
    if !git_out(tmp.path(), &["init", "-q", "--ref-format=reftable", "u"]).status.success() {
        return;
    }
    let repo = Repo::open(&tmp.path().join("u")).expect("opens");
    let e = repo.resolve("HEAD").expect_err("unborn");
    assert!(e.to_string().contains("the repository has no commits"), "{e}");
}

/// A damaged table is an open error naming the file and the reason, never a panic or a
/// silently missing ref: every truncation and every single-byte flip of a real table.
#[test]
fn corrupt_reftables_are_errors_naming_the_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let Some(dir) = reftable_repo(tmp.path(), "c", 40, &[]) else { return };
    git(&dir, &["pack-refs", "--all"]);
    let list = std::fs::read_to_string(dir.join(".git/reftable/tables.list")).expect("tables.list");
    let table = dir.join(".git/reftable").join(list.trim());
    let good = std::fs::read(&table).expect("table");
    let want = Repo::open(&dir).expect("opens").resolve("side").expect("side");
    std::fs::set_permissions(&table, std::os::unix::fs::PermissionsExt::from_mode(0o644)).expect("writable");
    let check = |bytes: &[u8], what: &str| {
        std::fs::write(&table, bytes).expect("write table");
        match Repo::open(&dir) {
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains(list.trim()) && !msg.contains('\n'), "{what}: {msg}");
            }
            // A flip inside an id or a name can leave a well-formed table; it must still not
            // be read as the original.
            Ok(repo) => assert!(
                bytes == good.as_slice() || repo.resolve("side").ok() != Some(want) || what.starts_with("flip"),
                "{what}"
            ),
        }
    };
    for len in (0..good.len()).step_by(7) {
        check(&good[..len], &format!("truncated to {len}"));
    }
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x55;
        check(&bad, &format!("flip at {at}"));
    }
    std::fs::write(&table, &good).expect("restore");
    assert_eq!(Repo::open(&dir).expect("restored").resolve("side").expect("side"), want);
    std::fs::write(dir.join(".git/reftable/tables.list"), "../escape.ref\n").expect("write");
    let e = Repo::open(&dir).err().expect("a path in tables.list is refused");
    assert!(e.to_string().contains("tables.list") && e.to_string().contains("not a table file name"), "{e}");
}

/// A repository in git's SHA-256 object format reads like a SHA-1 one: 64-digit ids equal to
/// the git CLI's, trees, diffs and ancestry; an id of the other format names nothing.
#[test]
fn sha256_repositories_read_like_sha1_ones() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = git_out(tmp.path(), &["init", "-q", "--object-format=sha256", "-b", "main", "s"]);
    assert!(out.status.success(), "git init --object-format=sha256: {out:?}");
    let dir = tmp.path().join("s");
    std::fs::write(dir.join("a.txt"), "one\n").expect("write");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "first"]);
    std::fs::write(dir.join("a.txt"), "two\n").expect("write");
    git(&dir, &["commit", "-q", "-am", "second"]);
    let repo = Repo::open(&dir).expect("a SHA-256 repository opens");
    assert_eq!(repo.object_hash(), gix::hash::Kind::Sha256);
    let head = repo.resolve("HEAD").expect("HEAD");
    assert_eq!(head, oid(&git(&dir, &["rev-parse", "HEAD"])));
    assert_eq!(head.to_string().len(), 64);
    let first = repo.resolve("HEAD~1").expect("HEAD~1");
    assert!(repo.has(first) && repo.is_ancestor(first, head).expect("ancestry"));
    let tree = repo.commit(head).expect("commit").tree;
    let entries = repo.walk(tree, &Scope::all()).expect("walk");
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].id, oid(&git(&dir, &["rev-parse", "HEAD:a.txt"])));
    let changes = repo.diff(Some(repo.commit(first).expect("commit").tree), Some(tree)).expect("diff");
    assert_eq!(changes.len(), 1);
    assert_eq!(repo.file_at(head, "a.txt").expect("read"), Some(b"two\n".to_vec()));
    let sha1 = ObjectId::from_hex(&head.to_string().as_bytes()[..40]).expect("a SHA-1 shaped id");
    assert!(!repo.has(sha1), "a SHA-1 id names nothing in a SHA-256 repository");
}

#[test]
fn opens_bare_work_tree_and_dot_git_alike() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    git(tmp.path(), &["clone", "-q", bare.to_str().expect("utf-8 temp path"), "wt"]);
    let wt = tmp.path().join("wt");
    for p in [bare.clone(), wt.clone(), wt.join(".git")] {
        let r = Repo::open(&p).expect("opens");
        assert_eq!(r.resolve("HEAD").expect("HEAD"), ids[2], "{}", p.display());
        assert_eq!(r.path(), p.as_path());
    }
    // The work tree is never read: a modified checkout changes nothing.
    std::fs::write(wt.join("a.txt"), "edited in the work tree\n").expect("write");
    let r = Repo::open(&wt).expect("opens");
    let tree = r.commit(ids[2]).expect("commit").tree;
    let e = r.entry(tree, "a.txt".into()).expect("entry").expect("present");
    assert_eq!(r.blob(e.id).expect("blob"), b"two\n");
}

/// A repository's own configuration may say anything; none of it may change what is read. The
/// `include.path` target is unparseable, so following it would fail the open.
#[test]
fn repository_config_does_not_change_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (bare, ids) = linear(tmp.path());
    let plain = Repo::open(&bare).expect("opens");
    let scope = Scope::all();
    let want_walk = plain.walk(plain.commit(ids[2]).expect("commit").tree, &scope).expect("walk");
    let want_history: Vec<ObjectId> = plain.history(ids[2]).expect("history").iter().map(|c| c.id).collect();

    // A replace ref swaps `a.txt`'s blob for other content; git itself would honour it.
    let a_blob = plain.entry(plain.commit(ids[2]).expect("c").tree, "a.txt".into()).expect("e").expect("a").id;
    let fake = {
        let mut child = Command::new("git")
            .args(["hash-object", "-w", "--stdin"])
            .current_dir(&bare)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git runs");
        use std::io::Write as _;
        child.stdin.take().expect("stdin").write_all(b"forged\n").expect("write");
        oid(&String::from_utf8(child.wait_with_output().expect("wait").stdout).expect("utf-8"))
    };
    git(&bare, &["replace", &a_blob.to_string(), &fake.to_string()]);
    assert_eq!(git(&bare, &["cat-file", "blob", &a_blob.to_string()]), "forged\n", "git honours the replace ref");

    std::fs::write(tmp.path().join("evil.conf"), "[core\nthis is not configuration\n").expect("write");
    let mut config = std::fs::read_to_string(bare.join("config")).expect("config");
    config.push_str(&format!(
        "[core]\n\tquotePath = false\n\tuseReplaceRefs = true\n\tabbrev = 40\n\tprecomposeUnicode = true\n\
         [include]\n\tpath = {}\n[gitoxide \"objects\"]\n\treplaceRefBase = refs/replace/\n",
        tmp.path().join("evil.conf").display()
    ));
    std::fs::write(bare.join("config"), config).expect("write config");

    let r = Repo::open(&bare).expect("opens despite the include");
    let tree = r.commit(ids[2]).expect("commit").tree;
    assert_eq!(r.walk(tree, &scope).expect("walk"), want_walk);
    assert_eq!(r.blob(a_blob).expect("blob"), b"two\n", "replace refs are not honoured");
    let history: Vec<ObjectId> = r.history(ids[2]).expect("history").iter().map(|c| c.id).collect();
    assert_eq!(history, want_history);
    assert_eq!(r.resolve(&ids[1].to_string()[..7]).expect("short id"), ids[1]);
}

//! The git layer against the git CLI, which serves as the independent reference here: every
//! `git` call runs with the system and global configuration switched off.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use gix::bstr::{BString, ByteSlice};

use super::*;
use crossverify_fixtures::fixture::{Content, RepoBuilder, Stamp};

/// `git` in `dir` with no system or global configuration and a throwaway `HOME`.
fn git_out(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        // Under reftable, keep one table per update (git's own test switch), so that reading
        // merges a real stack until `pack-refs` compacts it.
        .env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false")
        .env("GIT_AUTHOR_NAME", "T")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "T")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_DATE", "1786525200 +0000")
        .output()
        .expect("the git CLI runs")
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_out(dir, args);
    assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("git prints UTF-8 here")
}

fn oid(s: &str) -> ObjectId {
    ObjectId::from_hex(s.trim().as_bytes()).expect("git printed an object id")
}

/// Path of the loose object `id` in a bare repository.
fn loose(repo: &Path, id: ObjectId) -> PathBuf {
    let hex = id.to_string();
    repo.join("objects").join(&hex[..2]).join(&hex[2..])
}

fn stamp(time: i64) -> Stamp {
    Stamp { name: crossverify_fixtures::fixture::NAME.into(), email: crossverify_fixtures::fixture::EMAIL.into(), time }
}

/// Three linear commits: `a.txt` and `dir/sub/b.txt`, then a change to `a.txt`, then a
/// change inside `dir/sub`.
fn linear(dir: &Path) -> (PathBuf, Vec<ObjectId>) {
    let path = dir.join("linear.git");
    let mut b = RepoBuilder::init(&path).expect("init");
    b.file("a.txt", "one\n").file("dir/sub/b.txt", "bee\n").file("dir/c.txt", "sea\n");
    let c0 = b.commit("first").expect("commit");
    b.file("a.txt", "two\n");
    let c1 = b.commit("second").expect("commit");
    b.file("dir/sub/b.txt", "bee 2\n");
    let c2 = b.commit("third").expect("commit");
    (path, vec![c0, c1, c2])
}

// ---------------------------------------------------------------------------------------------
// Opening

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

// ---------------------------------------------------------------------------------------------
// Revisions

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

// ---------------------------------------------------------------------------------------------
// A generated history with branches and merges, compared with git commit by commit

/// xorshift64: deterministic choices without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("small")
    }
}

const PATHS: &[&str] = &["a.txt", "d/x.txt", "d/y.txt", "d/e/z.txt", "f/w.txt", "f/v.bin"];

/// Builds a history of `steps` operations (edits, chmods, deletions, kind changes, branches,
/// clean and evil merges) with commit times that are not monotonic. Returns every commit.
fn dag(path: &Path, seed: u64, steps: usize) -> Vec<ObjectId> {
    let mut rng = Rng(seed);
    let mut b = RepoBuilder::init(path).expect("init");
    for p in PATHS {
        b.file(p, format!("{p} v0\n"));
    }
    let mut time = crossverify_fixtures::fixture::EPOCH;
    let root = b.commit_with("root", &stamp(time)).expect("root");
    let mut all = vec![root];
    let mut tips = vec![root];
    for step in 0..steps {
        // Times wander backwards sometimes, as they do with rebases and skewed clocks.
        time += i64::try_from(rng.below(7200)).expect("small") - 1800;
        let op = rng.below(10);
        if op < 6 || tips.len() < 2 {
            let t = rng.below(tips.len());
            b.reset_to(tips[t]).expect("reset");
            for _ in 0..=rng.below(2) {
                let p = PATHS[rng.below(PATHS.len())];
                match rng.below(6) {
                    0 => {
                        b.remove(p);
                    }
                    1 => match b.get(p).cloned() {
                        Some(Content::File(x)) => {
                            b.put(p, Content::Executable(x));
                        }
                        Some(Content::Executable(x)) => {
                            b.put(p, Content::File(x));
                        }
                        _ => {
                            b.file(p, format!("{p} back at {step}\n"));
                        }
                    },
                    2 => {
                        b.put(p, Content::Symlink(b"a.txt".to_vec()));
                    }
                    3 if step % 2 == 0 => {
                        // Reverts to the root content: the same blob id as long ago.
                        b.file(p, format!("{p} v0\n"));
                    }
                    _ => {
                        b.file(p, format!("{p} at step {step}\n"));
                    }
                }
            }
            // An empty commit now and then: TREESAME to its parent for every path.
            let id = b.commit_with(&format!("step {step}"), &stamp(time)).expect("commit");
            tips[t] = id;
            all.push(id);
            if rng.below(4) == 0 {
                tips.push(id);
            }
        } else {
            let i = rng.below(tips.len());
            let mut j = rng.below(tips.len());
            if i == j {
                j = (j + 1) % tips.len();
            }
            let (left, right) = (tips[i], tips[j]);
            if left == right {
                continue;
            }
            // Merge: start from the left tree, take some paths from the right.
            let repo = Repo::open(path).expect("open");
            let rtree = repo.commit(right).expect("right").tree;
            let theirs = repo.walk(rtree, &Scope::all()).expect("walk");
            b.reset_to(left).expect("reset");
            for p in PATHS {
                if rng.below(2) == 0 {
                    match theirs.iter().find(|e| e.path == p.as_bytes()) {
                        Some(e) => {
                            let bytes = repo.blob(e.id).expect("blob");
                            let c = match e.kind {
                                EntryKind::Executable => Content::Executable(bytes),
                                EntryKind::Symlink => Content::Symlink(bytes),
                                _ => Content::File(bytes),
                            };
                            b.put(p, c);
                        }
                        None => {
                            b.remove(p);
                        }
                    }
                }
            }
            if rng.below(4) == 0 {
                b.file(PATHS[rng.below(PATHS.len())], format!("evil merge {step}\n"));
            }
            let parents = if rng.below(3) == 0 { [right, left] } else { [left, right] };
            let id = b.commit_parents(&format!("merge {step}"), &stamp(time), &parents).expect("merge");
            all.push(id);
            tips[i] = id;
            if rng.below(2) == 0 {
                tips.swap_remove(j);
            }
        }
    }
    // Leave `main` on the commit with the most ancestors, so HEAD sees most of the graph.
    all
}

#[test]
fn generated_histories_are_reproducible() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = dag(&tmp.path().join("a.git"), 7, 30);
    let b = dag(&tmp.path().join("b.git"), 7, 30);
    assert_eq!(a, b, "the same description yields the same commit ids");
    let c = dag(&tmp.path().join("c.git"), 8, 30);
    assert_ne!(a, c);
}

#[test]
fn history_is_topological_deterministic_and_complete() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("h.git");
    let all = dag(&path, 11, 40);
    let r = Repo::open(&path).expect("opens");
    for tip in all.iter().rev().take(8) {
        let h = r.history(*tip).expect("history");
        assert_eq!(h, r.history(*tip).expect("again"), "deterministic");
        assert_eq!(h.last().map(|c| c.id), Some(*tip), "the tip comes last");
        let pos: BTreeMap<ObjectId, usize> = h.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
        for (i, c) in h.iter().enumerate() {
            for p in &c.parents {
                assert!(pos[p] < i, "parent {p} of {} comes first", c.id);
            }
        }
        let want: BTreeSet<ObjectId> = git(&path, &["rev-list", &tip.to_string()]).lines().map(oid).collect();
        let got: BTreeSet<ObjectId> = pos.keys().copied().collect();
        assert_eq!(got, want, "same commits as git rev-list");
    }
    // Siblings are ordered by committer time then id, so the order does not depend on how the
    // walk met them.
    let h = r.history(*all.last().expect("commits")).expect("history");
    let merges = h.iter().filter(|c| c.parents.len() > 1).count();
    assert!(merges > 0, "the generated history has merges");
}

#[test]
fn last_change_agrees_with_git_log_on_merges() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut compared = 0;
    let mut merge_answers = 0;
    for seed in [3, 19] {
        let path = tmp.path().join(format!("lc{seed}.git"));
        let all = dag(&path, seed, 30);
        let r = Repo::open(&path).expect("opens");
        let mut paths: Vec<&str> = PATHS.to_vec();
        paths.extend(["d", "d/e", "f", "never/there"]);
        for (i, c) in all.iter().enumerate() {
            // Every commit of the first seed; a sample of the second keeps the test quick.
            if seed == 19 && i % 3 != 0 {
                continue;
            }
            for p in &paths {
                let want = git(&path, &["log", "-1", "--format=%H", &c.to_string(), "--", p]);
                let want = (!want.trim().is_empty()).then(|| oid(&want));
                let got = r.last_change(*c, p).expect("last_change");
                assert_eq!(got, want, "seed {seed}: last change of {p} from {c}");
                if let Some(g) = got {
                    merge_answers += usize::from(r.commit(g).expect("commit").parents.len() > 1);
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 200);
    assert!(merge_answers > 0, "some answers are merge commits (evil merges)");
}

#[test]
fn is_ancestor_agrees_with_git_merge_base() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("anc.git");
    let all = dag(&path, 5, 25);
    let r = Repo::open(&path).expect("opens");
    let (mut yes, mut no) = (0, 0);
    for (i, a) in all.iter().enumerate() {
        for b in all.iter().skip(i % 3).step_by(3) {
            let want =
                git_out(&path, &["merge-base", "--is-ancestor", &a.to_string(), &b.to_string()]).status.success();
            assert_eq!(r.is_ancestor(*a, *b).expect("is_ancestor"), want, "{a} ancestor of {b}");
            if want { yes += 1 } else { no += 1 }
        }
    }
    assert!(yes > 10 && no > 10, "both answers occur ({yes} yes, {no} no)");
}

// ---------------------------------------------------------------------------------------------
// Walk and diff

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
}

// ---------------------------------------------------------------------------------------------
// Shallow, missing and corrupt

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

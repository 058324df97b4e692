//! Which paths a dialect's own manifest rule binds at an audited commit (formats note §6).
//!
//! The verifier re-derives this set from the science commit alone, so a receipt whose manifest
//! leaves out a selected file is caught (the references never report unbound files).

use std::collections::{BTreeMap, BTreeSet};

use gix::bstr::{BStr, BString, ByteSlice};

use crate::crossaudit::records::config::Config;
use crate::crossaudit::records::receipt::Family;
use crate::git::{self, EntryKind, ObjectId, Repo, Scope};

/// What the dialect's rule expects at one manifest key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// A regular file with this blob.
    File(ObjectId),
    /// The v1 runner records `ABSENT` (deleted, symlink, directory, submodule, or a C-quoted
    /// path that does not exist on disk under that name).
    Absent {
        /// Why it is absent.
        why: &'static str,
        /// The real path behind a C-quoted key, when it is a regular file (unbound in fact).
        hidden: Option<String>,
    },
}

/// The derived expectation for one receipt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Human description of the rule applied.
    pub rule: String,
    /// Manifest key → expectation.
    pub keys: BTreeMap<String, Expect>,
    /// Keys a deleted path would have had; v1 rename detection may omit them legitimately.
    pub optional: BTreeSet<String>,
    /// Directories whose files make up the increment (for listing unbound files).
    pub increment_dirs: BTreeSet<String>,
    /// Symlinks inside the scope (the product refuses to audit those).
    pub symlinks: Vec<String>,
    /// Regular files in scope whose names the dialect's keys cannot spell (schema 2: not
    /// UTF-8), shown C-quoted: no receipt can bind them.
    pub unspellable: Vec<String>,
    /// Keys are v1's C-quoted spelling rather than raw UTF-8.
    pub c_quoted: bool,
}

/// Paths git would C-quote under the default `core.quotePath`.
fn needs_quote(p: &BStr) -> bool {
    git::needs_c_quote(p)
}

/// The manifest key a dialect writes for the tree path `path`, exactly one per path and one
/// path per key: v1 (the runner lists `git diff --name-only`) writes git's C-quoted form of
/// any name git quotes and the raw name otherwise; schema 2 (the product reads `ls-tree -z`
/// as UTF-8 text) writes the raw name, backslashes, tabs and newlines included, and cannot
/// write a name that is not UTF-8 (`None`). A lossy decoding is never a key: two names that
/// differ only in invalid bytes would share it.
#[must_use]
pub fn manifest_key(family: Family, path: &BStr) -> Option<String> {
    manifest_key_owned(family, path.to_owned()).ok()
}

/// [`manifest_key`] of a path the caller gives up: an unquoted key keeps the path's buffer
/// (a ledger builds ten thousand keys per receipt). `Err` returns the path, not UTF-8.
fn manifest_key_owned(family: Family, path: BString) -> Result<String, BString> {
    match family {
        Family::V1 if needs_quote(path.as_bstr()) => Ok(git::c_quote(path.as_bstr())),
        Family::V1 | Family::Schema2 => String::from_utf8(path.into()).map_err(|e| BString::from(e.into_bytes())),
    }
}

fn changes_vs_first_parent(repo: &Repo, commit: ObjectId) -> Result<(Vec<git::Change>, bool), git::Error> {
    let c = repo.commit(commit)?;
    let parent_tree = match c.parents.first() {
        Some(p) => Some(repo.commit(*p)?.tree),
        None => None,
    };
    Ok((repo.diff(parent_tree, Some(c.tree))?, parent_tree.is_none()))
}

fn under(path: &BStr, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix.as_bytes()
        || (path.starts_with(prefix.as_bytes()) && path.get(prefix.len()) == Some(&b'/'))
}

fn parent_dir(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(d, _)| d)
}

/// v1 reference (R1–R2c): the name-only diff against the first parent, limited to
/// `experiments/`; the commit's own listing when that is empty.
///
/// # Errors
/// Unreadable commits or trees.
pub fn v1(repo: &Repo, commit: ObjectId) -> Result<Selection, git::Error> {
    let (changes, root) = changes_vs_first_parent(repo, commit)?;
    let mut paths: Vec<(BString, Option<(EntryKind, ObjectId)>)> =
        changes.into_iter().filter(|c| under(c.path.as_bstr(), "experiments")).map(|c| (c.path, c.new)).collect();
    let mut rule = "v1: paths changed under experiments/ against the first parent".to_owned();
    if paths.is_empty() {
        let tree = repo.commit(commit)?.tree;
        paths = repo
            .walk(tree, &Scope::new(["experiments"]))?
            .into_iter()
            .map(|e| (e.path, Some((e.kind, e.id))))
            .collect();
        rule = if root {
            "v1: root commit, the commit's listing under experiments/".into()
        } else {
            "v1: no change under experiments/, the commit's listing under experiments/".into()
        };
    }
    let mut sel = Selection { rule, c_quoted: true, ..Selection::default() };
    for (path, new) in paths {
        let shown = path.to_str_lossy().into_owned();
        let comps: Vec<&str> = shown.split('/').collect();
        if comps.len() >= 2 {
            sel.increment_dirs.insert(format!("{}/{}", comps[0], comps[1]));
        }
        if needs_quote(path.as_bstr()) {
            let key = git::c_quote(path.as_bstr());
            let hidden = matches!(new, Some((k, _)) if k.is_file()).then(|| shown.clone());
            // A deleted quoted name is as optional as any deleted name: git's rename detection
            // lists only a rename's new path. Only a quoted key whose file is still there hides
            // content, and stays required so CV-A703 names it.
            if new.is_none() {
                sel.optional.insert(key.clone());
            }
            sel.keys.insert(key, Expect::Absent { why: "C-quoted by git; no file has that name", hidden });
            continue;
        }
        let expect = match new {
            Some((k, id)) if k.is_file() => Expect::File(id),
            Some((EntryKind::Symlink, _)) => Expect::Absent { why: "symlink", hidden: None },
            Some(_) => Expect::Absent { why: "not a regular file", hidden: None },
            None => {
                sel.optional.insert(shown.clone());
                Expect::Absent { why: "deleted", hidden: None }
            }
        };
        sel.keys.insert(shown, expect);
    }
    Ok(sel)
}

/// Options that vary between product versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Product {
    /// Product 4.x rules (`TASK.md`, `TEMPLATE` exclusion).
    pub v4: bool,
}

fn template_free(p: &str) -> bool {
    // A byte search answers nearly every path; only one holding TEMPLATE is split.
    !p.contains("TEMPLATE") || !p.split('/').any(|c| c == "TEMPLATE")
}

/// Product, `audit` verb: every blob under the receipt's scope string (`""` = whole tree;
/// several prefixes joined by `, `).
///
/// # Errors
/// Unreadable commits or trees.
pub fn product_audit(repo: &Repo, commit: ObjectId, scope: &str, p: Product) -> Result<Selection, git::Error> {
    audit_tree(repo, repo.commit(commit)?.tree, scope, p)
}

fn audit_scope(scope: &str) -> Scope {
    let prefixes: Vec<&str> = if scope.is_empty() { Vec::new() } else { scope.split(", ").collect() };
    Scope::new(&prefixes)
}

fn audit_tree(repo: &Repo, tree: ObjectId, scope: &str, p: Product) -> Result<Selection, git::Error> {
    let entries = repo.walk(tree, &audit_scope(scope))?;
    let mut sel =
        Selection { rule: format!("product audit verb: every blob under scope {scope:?}"), ..Selection::default() };
    // The walk is sorted by path, so the map is assembled in bulk. The audit verb binds the
    // whole scope: nothing in it can be left unbound, and no increment directories are listed.
    let mut files = Vec::with_capacity(entries.len());
    for e in entries {
        let path = match manifest_key_owned(Family::Schema2, e.path) {
            Ok(path) => path,
            Err(raw) => {
                if e.kind.is_file() {
                    sel.unspellable.push(git::display_path(raw.as_bstr()));
                }
                continue;
            }
        };
        if p.v4 && !template_free(&path) {
            continue;
        }
        match e.kind {
            k if k.is_file() => files.push((path, Expect::File(e.id))),
            EntryKind::Symlink => sel.symlinks.push(path),
            _ => {}
        }
    }
    sel.keys = files.into_iter().collect();
    add_task(repo, tree, p, &mut sel)?;
    Ok(sel)
}

/// A worker's last [`product_audit`] selection, kept so that the next commit's is the same
/// selection patched with the difference between the two trees: a ledger's neighbouring
/// receipts bind nearly the same files, and walking and keying ten thousand paths per receipt
/// was a tenth of a cold run. Belongs to one repository handle: a tree held by one repository
/// may have subtrees another lacks, which only a walk would find missing.
#[derive(Debug, Default)]
pub struct AuditReuse {
    kept: Option<(Reusable, Selection)>,
    /// What the selection handed out last stands for, until it is given back.
    lent: Option<Reusable>,
    /// Selections answered by patching (a unit test shows the patch is taken).
    patched: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Reusable {
    /// The repository read: a guard, since the caller keeps one per repository handle.
    repo: std::path::PathBuf,
    tree: ObjectId,
    scope: String,
    v4: bool,
}

impl AuditReuse {
    /// [`product_audit`], from the kept selection when one of the same repository, scope and
    /// product rules is kept, else by walking the tree. The answer is the walk's: a damaged
    /// tree the patch meets sends it to the walk, which reports it, and a property test
    /// (`tests::reuse_answers_as_the_walk_does`) compares the two over generated histories.
    ///
    /// # Errors
    /// Unreadable commits or trees.
    pub fn product_audit(
        &mut self,
        repo: &Repo,
        commit: ObjectId,
        scope: &str,
        p: Product,
    ) -> Result<Selection, git::Error> {
        self.lent = None;
        let tree = repo.commit(commit)?.tree;
        let key = Reusable { repo: repo.path().to_owned(), tree, scope: scope.to_owned(), v4: p.v4 };
        let patched = match self.kept.take() {
            Some((was, sel)) if was.repo == key.repo && was.scope == key.scope && was.v4 == key.v4 => {
                patch(repo, was.tree, sel, tree, scope, p)
            }
            _ => None,
        };
        let sel = match patched {
            Some(sel) => {
                self.patched += 1;
                sel
            }
            None => audit_tree(repo, tree, scope, p)?,
        };
        self.lent = Some(key);
        Ok(sel)
    }

    /// Keeps `sel`, the selection [`AuditReuse::product_audit`] returned last, for the next
    /// commit. Nothing is kept when the last call failed.
    pub fn give_back(&mut self, sel: Selection) {
        if let Some(key) = self.lent.take() {
            self.kept = Some((key, sel));
        }
    }
}

/// The selection at `tree`, from `sel`, the selection at `was`: every changed entry inside the
/// scope taken out and put back as the walk would list it. Trees are decoded only when git
/// would have written them (names valid, in order, none repeated: `git::tree`), so the walk's
/// entries are the scope's paths and a change names each at most once. `None` where the walk
/// must answer: a symlink or a name the keys cannot spell changed (their lists keep the walk's
/// order), a tree could not be read (the walk names what is damaged), the selection does not
/// hold what the change says was there, or the commits are far apart. The diff reads only
/// the scope's subtrees, so its cost follows the changes inside the scope.
fn patch(repo: &Repo, was: ObjectId, mut sel: Selection, tree: ObjectId, scope: &str, p: Product) -> Option<Selection> {
    if was == tree {
        return Some(sel);
    }
    let within = audit_scope(scope);
    let changes = repo.diff_within(Some(was), Some(tree), &within).ok()?;
    if changes.len() > sel.keys.len() / 4 + 64 {
        // Distant commits: a search per change would cost more than building the map anew.
        return None;
    }
    if p.v4 && !within.contains("TASK.md".into()) {
        // Put there by `add_task`, not by the walk: taken out, and put back below if the new
        // tree has one.
        sel.keys.remove("TASK.md");
    }
    for c in changes {
        let files = |side: Option<(EntryKind, ObjectId)>| -> Option<Option<ObjectId>> {
            match side {
                Some((EntryKind::Symlink, _)) => None,
                Some((k, id)) if k.is_file() => Some(Some(id)),
                _ => Some(None),
            }
        };
        let (old, new) = (files(c.old)?, files(c.new)?);
        if old.is_none() && new.is_none() {
            continue;
        }
        let key = c.path.to_str().ok()?;
        if p.v4 && !template_free(key) {
            continue;
        }
        if old.is_some() && !matches!(sel.keys.remove(key), Some(Expect::File(id)) if Some(id) == old) {
            return None;
        }
        if let Some(id) = new
            && sel.keys.insert(key.to_owned(), Expect::File(id)).is_some()
        {
            return None;
        }
    }
    add_task(repo, tree, p, &mut sel).ok()?;
    Some(sel)
}

/// Product, `run` verb (`subject.scope == "changed-paths"`): the commit's changed paths minus
/// the loop's own files, restricted to `scope.dirs`, widened to every file of each touched
/// directory (not recursive).
///
/// # Errors
/// Unreadable commits or trees.
pub fn product_run(repo: &Repo, commit: ObjectId, cfg: &Config, p: Product) -> Result<Selection, git::Error> {
    let (changes, _) = changes_vs_first_parent(repo, commit)?;
    let own = |path: &str| own_file(cfg, path);
    let in_dirs = |path: &str| match &cfg.scope_dirs {
        Some(dirs) => dirs.iter().any(|d| path.split('/').next() == Some(d.trim_matches('/'))),
        None => true,
    };
    let mut touched_dirs = BTreeSet::new();
    let mut sel = Selection {
        rule: "product run verb: changed paths widened to their directories".into(),
        ..Selection::default()
    };
    let mut root_files = Vec::new();
    for c in &changes {
        // The scope tests read the lossy text: a name that is not UTF-8 is never one of the
        // loop's own files, so it stays in and is reported below rather than dropped.
        let path = c.path.to_str_lossy();
        if own(&path) || !in_dirs(&path) || (p.v4 && !template_free(&path)) {
            continue;
        }
        match c.path.to_str() {
            // The product widens only real directories (`enclose` drops "."): a changed file at
            // the top level is bound alone, not with every other top-level file.
            Ok(text) => match parent_dir(text) {
                "" => root_files.extend(c.new.filter(|(k, _)| k.is_file()).map(|(_, id)| (text.to_owned(), id))),
                dir => {
                    touched_dirs.insert(dir.to_owned());
                }
            },
            Err(_) if c.new.is_some_and(|(k, _)| k.is_file()) => {
                sel.unspellable.push(git::display_path(c.path.as_bstr()));
            }
            Err(_) => {}
        }
    }
    for (path, id) in root_files {
        sel.keys.insert(path, Expect::File(id));
    }
    let tree = repo.commit(commit)?.tree;
    for dir in &touched_dirs {
        let listing = if dir.is_empty() {
            repo.tree_children(tree)?
        } else {
            match repo.entry(tree, dir.as_str().into())? {
                Some(e) if e.kind == EntryKind::Tree => repo.tree_children(e.id)?,
                _ => crate::git::Children::default(),
            }
        };
        for (name, kind, id) in listing.iter() {
            let (kind, id) = (*kind, *id);
            let Ok(name) = name.to_str() else {
                if kind.is_file() {
                    let full: BString = if dir.is_empty() {
                        name.clone()
                    } else {
                        [dir.as_bytes(), b"/".as_slice(), name.as_slice()].concat().into()
                    };
                    sel.unspellable.push(git::display_path(full.as_bstr()));
                }
                continue;
            };
            let path = if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") };
            if own(&path) || (p.v4 && !template_free(&path)) {
                continue;
            }
            match kind {
                k if k.is_file() => {
                    sel.keys.insert(path, Expect::File(id));
                }
                EntryKind::Symlink => sel.symlinks.push(path),
                _ => {}
            }
        }
        sel.increment_dirs.insert(dir.clone());
    }
    add_task(repo, tree, p, &mut sel)?;
    Ok(sel)
}

/// The loop's own files, which the product's `run` verb never binds (`cmd_run`'s `own` and
/// `prefix_own`, product 4.14 `cli/main.py`).
fn own_file(cfg: &Config, path: &str) -> bool {
    let ledger = cfg.ledger_dir().trim_matches('/');
    let state = cfg.state_dir().trim_matches('/');
    path == cfg.constitution()
        || path == "crossaudit.yml"
        || path == ".gitignore"
        || under(path.into(), ledger)
        || under(path.into(), state)
        || under(path.into(), ".github")
}

/// What an increment changed, and which of its changed files the product legitimately leaves
/// unbound.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Increment {
    /// Regular files the audited commit added or modified against its first parent (every
    /// file of a root commit): each must be bound.
    pub files: Vec<String>,
    /// Changed files left out, with the rule that leaves them out.
    pub excluded: Vec<(String, &'static str)>,
}

/// The increment of an audited commit: its regular files changed against the first parent.
/// The product only advances a cycle on a child of its active commit (`open_or_advance`), so
/// for a later round the first parent is the previous round's commit; a same-commit re-audit
/// has the same increment as its first round. `cfg` must be a configuration the increment did
/// not write (paired mode: the audit repository's; local mode: the one at the first parent).
///
/// # Errors
/// Unreadable commits or trees.
pub fn increment(repo: &Repo, commit: ObjectId, cfg: &Config, p: Product) -> Result<Increment, git::Error> {
    let (changes, _) = changes_vs_first_parent(repo, commit)?;
    let mut inc = Increment::default();
    for c in changes {
        let Some((kind, _)) = c.new else { continue };
        if !kind.is_file() {
            continue;
        }
        let path = c.path.to_str_lossy().into_owned();
        let why = if own_file(cfg, &path) {
            Some("the loop's own file (constitution, crossaudit.yml, .gitignore, ledger, state or .github)")
        } else if p.v4 && !template_free(&path) {
            Some("a TEMPLATE scaffold path (product 4.x)")
        } else if let Some(dirs) = &cfg.scope_dirs
            && !dirs.iter().any(|d| path.split('/').next() == Some(d.trim_matches('/')))
        {
            Some("outside the configured scope.dirs")
        } else {
            None
        };
        match why {
            Some(w) => inc.excluded.push((path, w)),
            None => inc.files.push(path),
        }
    }
    Ok(inc)
}

fn add_task(repo: &Repo, tree: ObjectId, p: Product, sel: &mut Selection) -> Result<(), git::Error> {
    if p.v4
        && let Some(e) = repo.entry(tree, "TASK.md".into())?
        && e.kind.is_file()
    {
        sel.keys.insert("TASK.md".into(), Expect::File(e.id));
    }
    Ok(())
}

/// Regular files under the increment's directories (recursively) that `bound` does not hold.
///
/// # Errors
/// Unreadable trees.
pub fn unbound(
    repo: &Repo,
    commit: ObjectId,
    sel: &Selection,
    bound: &super::receipt::Manifest,
) -> Result<Vec<String>, git::Error> {
    if sel.increment_dirs.is_empty() {
        return Ok(Vec::new());
    }
    let tree = repo.commit(commit)?.tree;
    if sel.increment_dirs.contains("") {
        // The whole tree is the increment only when the rule says so; root-level widening is
        // not a reason to list every file of the repository.
        return Ok(Vec::new());
    }
    let scope = Scope::new(&sel.increment_dirs);
    Ok(repo
        .walk(tree, &scope)?
        .into_iter()
        .filter(|e| e.kind.is_file())
        .map(|e| {
            let family = if sel.c_quoted { Family::V1 } else { Family::Schema2 };
            manifest_key_owned(family, e.path).unwrap_or_else(|raw| git::display_path(raw.as_bstr()))
        })
        .filter(|p| !bound.contains_key(p) && !sel.keys.contains_key(p))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossverify_fixtures::fixture::{Content, RepoBuilder};

    fn repo() -> (tempfile::TempDir, Repo, ObjectId) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut b = RepoBuilder::init(&dir.path().join("r")).expect("init");
        b.file("README.md", "readme\n").file("crossaudit.yml", "version: 1\n").file("src/old.py", "1\n");
        b.commit("base").expect("commit");
        b.file("NOTES.md", "note\n").file("src/fit.py", "2\n").file("crossaudit.yml", "version: 2\n");
        b.file("x/TEMPLATE/t.md", "t\n").file("x/a.json", "{}\n");
        let tip = b.commit("increment").expect("commit");
        let r = Repo::open(&dir.path().join("r")).expect("open");
        (dir, r, tip)
    }

    #[test]
    fn run_verb_binds_a_top_level_change_alone() {
        let (_d, r, tip) = repo();
        let sel = product_run(&r, tip, &Config::default(), Product { v4: true }).expect("run");
        let keys: Vec<&str> = sel.keys.keys().map(String::as_str).collect();
        // README.md is not widened in; crossaudit.yml is the loop's own; TEMPLATE is dropped.
        assert_eq!(keys, ["NOTES.md", "src/fit.py", "src/old.py", "x/a.json"]);
    }

    #[test]
    fn increment_is_the_changed_files_minus_the_products_exclusions() {
        let (_d, r, tip) = repo();
        let inc = increment(&r, tip, &Config::default(), Product { v4: true }).expect("increment");
        assert_eq!(inc.files, ["NOTES.md", "src/fit.py", "x/a.json"]);
        let left: Vec<&str> = inc.excluded.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(left, ["crossaudit.yml", "x/TEMPLATE/t.md"]);
        let cfg = Config { scope_dirs: Some(vec!["x".into()]), ..Config::default() };
        let inc = increment(&r, tip, &cfg, Product { v4: true }).expect("increment");
        assert_eq!(inc.files, ["x/a.json"]);
    }

    fn is_below(path: &[u8], dir: &[u8]) -> bool {
        path.len() > dir.len() && path.starts_with(dir) && path[dir.len()] == b'/'
    }

    /// Stages one change: `what` picks removal, a file (two contents), an executable, a
    /// symlink or a submodule. A path and its ancestors cannot both be staged (no tree git
    /// writes holds both), so staging one removes the other: files and directories trade places.
    fn stage(b: &mut RepoBuilder, path: &[u8], what: u8) {
        let clashes: Vec<BString> =
            b.paths().filter(|q| is_below(q, path) || is_below(path, q)).map(|q| q.to_owned()).collect();
        for q in clashes {
            b.remove(q);
        }
        // Contents repeat across kinds, so a file turning executable keeps its blob (a change
        // of mode alone), and two submodule ids alternate.
        let gitlink = ObjectId::from_bytes_or_panic(&[0x11 + what % 2; 20]);
        match what % 6 {
            0 => b.remove(path),
            1 | 2 => b.put(path, Content::File(vec![what % 2])),
            3 => b.put(path, Content::Executable(vec![what % 2])),
            4 => b.put(path, Content::Symlink(b"t".to_vec())),
            _ => b.put(path, Content::Submodule(gitlink)),
        };
    }

    /// A path from names that exercise every rule: TEMPLATE, TASK.md, a name that is not
    /// UTF-8, directories of the scopes below, and names that extend another (`a.b` and `a-`
    /// sort between a file `a` and a tree `a`, so trees leave plain name order).
    fn path_of(ix: &[usize]) -> Vec<u8> {
        const NAMES: [&[u8]; 8] = [b"a", b"b", b"TEMPLATE", b"TASK.md", b"c", b"\xff", b"a.b", b"a-"];
        ix.iter().map(|i| NAMES[i % NAMES.len()]).collect::<Vec<_>>().join(&b'/')
    }

    const SCOPES: [&str; 8] = ["", "a", "a, b/c", "TASK.md", "a/TEMPLATE", "./a/", "a, a/b", "a.b"];

    fn history(commits: &[Vec<(Vec<usize>, u8)>]) -> (tempfile::TempDir, Repo, Vec<ObjectId>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut b = RepoBuilder::init(&dir.path().join("r")).expect("init");
        b.file("a/c", "seed\n").file("TASK.md", "task\n").file("b/c/d", "d\n");
        let mut ids = vec![b.commit("base").expect("commit")];
        for ops in commits {
            for (ix, what) in ops {
                stage(&mut b, &path_of(ix), *what);
            }
            ids.push(b.commit("step").expect("commit"));
        }
        let r = Repo::open(&dir.path().join("r")).expect("open");
        (dir, r, ids)
    }

    #[test]
    fn reuse_patches_a_neighbouring_commit() {
        let ops = vec![vec![(vec![0, 1], 1)], vec![(vec![0, 4], 2), (vec![3], 0)], vec![(vec![1, 1, 1], 3)]];
        let (_d, r, ids) = history(&ops);
        let mut reuse = AuditReuse::default();
        for &id in ids.iter().rev() {
            let got = reuse.product_audit(&r, id, "", Product { v4: true }).expect("reuse");
            assert_eq!(got, product_audit(&r, id, "", Product { v4: true }).expect("walk"));
            reuse.give_back(got);
        }
        assert_eq!(reuse.patched, 3, "every commit after the first is patched");
        // A failed call lends nothing, so what is given back after it is not kept; the
        // selection kept before still serves.
        let missing = ObjectId::from_hex(b"2222222222222222222222222222222222222222").expect("hex");
        assert!(reuse.product_audit(&r, missing, "", Product { v4: true }).is_err());
        reuse.give_back(Selection::default());
        let got = reuse.product_audit(&r, ids[1], "", Product { v4: true }).expect("reuse");
        assert_eq!(got, product_audit(&r, ids[1], "", Product { v4: true }).expect("walk"));
        assert_eq!(reuse.patched, 4);
        // Another scope is walked.
        let got = reuse.product_audit(&r, ids[2], "a", Product { v4: true }).expect("reuse");
        assert_eq!(got, product_audit(&r, ids[2], "a", Product { v4: true }).expect("walk"));
        reuse.give_back(got);
        assert_eq!(reuse.patched, 4);
        // So is another repository holding the same commits (pinned authors and dates): it
        // may lack a subtree this one has, which only a walk would find missing.
        let (_d2, r2, ids2) = history(&ops);
        assert_eq!(ids2, ids);
        let got = reuse.product_audit(&r2, ids[3], "a", Product { v4: true }).expect("reuse");
        assert_eq!(got, product_audit(&r2, ids[3], "a", Product { v4: true }).expect("walk"));
        assert_eq!(reuse.patched, 4);
    }

    /// A tree the patch would read is gone: the answer is the walk's error, not a selection
    /// patched around it, and inside the scope only.
    #[test]
    fn reuse_reports_a_damaged_tree_as_the_walk_does() {
        let ops = vec![vec![(vec![0, 1], 1), (vec![1, 4, 0], 1)]];
        let (d, r, ids) = history(&ops);
        let p = Product { v4: true };
        let tree = r.commit(ids[1]).expect("commit").tree;
        let gone = r.entry(tree, "a".into()).expect("entry").expect("a").id;
        let hex = gone.to_string();
        let mut reuse = AuditReuse::default();
        let mut outside = AuditReuse::default();
        for (reuse, scope) in [(&mut reuse, ""), (&mut outside, "b")] {
            let kept = reuse.product_audit(&r, ids[0], scope, p).expect("walk");
            reuse.give_back(kept);
        }
        std::fs::remove_file(d.path().join("r/objects").join(&hex[..2]).join(&hex[2..])).expect("a loose tree");
        let r = Repo::open(&d.path().join("r")).expect("open");
        let want = product_audit(&r, ids[1], "", p).expect_err("the walk meets the missing tree");
        let got = reuse.product_audit(&r, ids[1], "", p).expect_err("so does the reuse");
        assert_eq!(got.to_string(), want.to_string());
        // Outside the scope the missing tree is read by neither.
        let want = product_audit(&r, ids[1], "b", p).expect("the walk does not read a/");
        let got = outside.product_audit(&r, ids[1], "b", p).expect("nor does the patch");
        assert_eq!(got, want);
        assert_eq!(outside.patched, 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        #[test]
        fn reuse_answers_as_the_walk_does(
            commits in proptest::collection::vec(
                proptest::collection::vec((proptest::collection::vec(0usize..8, 1..=3), 0u8..6), 1..5),
                1..6,
            ),
            scope in 0usize..SCOPES.len(),
            v4 in proptest::bool::ANY,
            // Mostly the case's scope and rules, so that most visits can patch; now and then
            // another scope or the other rules, which must not.
            visits in proptest::collection::vec(
                (0usize..16, proptest::option::weighted(0.2, (0usize..SCOPES.len(), proptest::bool::ANY))),
                1..14,
            ),
        ) {
            let (_d, r, ids) = history(&commits);
            let mut reuse = AuditReuse::default();
            for (c, other) in visits {
                let (s, v4) = other.unwrap_or((scope, v4));
                let (commit, p) = (ids[c % ids.len()], Product { v4 });
                let want = product_audit(&r, commit, SCOPES[s], p).expect("walk");
                let got = reuse.product_audit(&r, commit, SCOPES[s], p).expect("reuse");
                proptest::prop_assert_eq!(&got, &want);
                reuse.give_back(got);
            }
        }

        #[test]
        fn template_free_agrees_with_the_split(p in "(TEMPLATE|TEMPLAT|a|/){0,6}") {
            proptest::prop_assert_eq!(template_free(&p), !p.split('/').any(|c| c == "TEMPLATE"));
        }
    }
}

//! The formats note's rules as the minter needs them, written from the note (§6 manifest
//! derivation, §8 verdict synthesis, §9 controller cycle ids) and not taken from crossverify:
//! the fixtures are then a second reading of the format that the verifier must agree with.

use std::collections::{BTreeMap, BTreeSet};

use crossverify::git::{self, EntryKind, ObjectId, Repo, Scope};
use gix::bstr::{BStr, ByteSlice};
use sha2::Digest as _;

/// The record family a scenario mints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The v1 reference runner (R2a–R2c receipts).
    V1,
    /// The product's receipt schema 2 (v2/v4).
    Schema2,
}

/// Lowercase hex SHA-256 of `bytes`, the digest every record of the note uses.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(bytes))
}

/// §9: a cycle id is the first 16 hex digits of SHA-256 over `repo`, a newline and the root SHA.
#[must_use]
pub fn cycle_id(repo: &str, root_sha: &str) -> String {
    let mut h = sha256_hex(format!("{repo}\n{root_sha}").as_bytes());
    h.truncate(16);
    h
}

/// §8: the order in which synthesis weighs its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precedence {
    /// R2c, the paper's rule: an invalid reply outranks a DCL failure.
    Paper,
    /// R1–R2b and the product: a DCL failure outranks an invalid reply.
    DclFirst,
}

/// §8's inputs, as the minter knows them when it writes a round.
#[derive(Debug, Clone, Default)]
pub struct Round {
    /// The cycle (or its parent) is escalated.
    pub lock: bool,
    /// The reply was invalid or the call failed.
    pub invalid: bool,
    /// Some DCL finding is a BLOCKER.
    pub dcl_blocker: bool,
    /// The model did not see everything.
    pub bound_exceeded: bool,
    /// No model ran.
    pub offline: bool,
    /// The valid reply's verdict.
    pub reply: Option<String>,
}

/// §8: the verdict a round records.
#[must_use]
pub fn verdict(p: Precedence, r: &Round) -> String {
    let invalid_first = p == Precedence::Paper && r.invalid;
    let v = if r.lock || invalid_first {
        "ESCALATE"
    } else if r.dcl_blocker {
        "BLOCKED"
    } else if r.invalid || r.bound_exceeded {
        "ESCALATE"
    } else if r.offline {
        "DCL_ONLY"
    } else {
        // A reply verdict outside the vocabulary is an invalid reply: the round escalates.
        r.reply.as_deref().filter(|v| matches!(*v, "PASS" | "BLOCKED")).unwrap_or("ESCALATE")
    };
    v.to_owned()
}

/// What a manifest key binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// The bytes of this blob.
    Blob(ObjectId),
    /// The literal `ABSENT` (v1: deleted, not a regular file, or a C-quoted name).
    Absent,
}

/// The product's version-dependent manifest rules (§6.2).
#[derive(Debug, Clone, Copy)]
pub struct Product<'a> {
    /// v4: `TEMPLATE` paths dropped, `TASK.md` added.
    pub v4: bool,
    /// `scope.dirs` of the configuration the minter wrote, if any.
    pub scope_dirs: Option<&'a [String]>,
}

/// The loop's own directories and files in the configuration the minter writes.
const CONSTITUTION: &str = "AUDIT_RULES.md";
const LEDGER_DIR: &str = "cycles";
const STATE_DIR: &str = ".crossaudit";

type Error = git::Error;

fn inside(path: &str, dir: &str) -> bool {
    path == dir || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

fn first_parent_changes(repo: &Repo, commit: ObjectId) -> Result<Vec<git::Change>, Error> {
    let c = repo.commit(commit)?;
    let before = c.parents.first().map(|p| repo.commit(*p).map(|p| p.tree)).transpose()?;
    repo.diff(before, Some(c.tree))
}

/// §6.1: the name-only diff against the first parent under `experiments/` (the commit's own
/// listing there when empty), C-quoted names and anything but a regular file `ABSENT`; a
/// rename lists only its new path (git's default rename detection; the minter pairs exact
/// renames only, which git always detects).
///
/// # Errors
/// Unreadable objects.
pub fn v1_manifest(repo: &Repo, commit: ObjectId) -> Result<BTreeMap<String, Bound>, Error> {
    let changes: Vec<_> = first_parent_changes(repo, commit)?
        .into_iter()
        .filter(|c| c.path == "experiments" || c.path.starts_with(b"experiments/"))
        .collect();
    let mut added: Vec<ObjectId> = changes
        .iter()
        .filter_map(|c| match (c.old, c.new) {
            (None, Some((k, id))) if k.is_file() => Some(id),
            _ => None,
        })
        .collect();
    let mut listed: Vec<_> = changes
        .into_iter()
        .filter(|c| match (c.old, c.new) {
            (Some((k, id)), None) if k.is_file() => match added.iter().position(|a| *a == id) {
                Some(i) => {
                    added.swap_remove(i);
                    false
                }
                None => true,
            },
            _ => true,
        })
        .map(|c| (c.path, c.new))
        .collect();
    if listed.is_empty() {
        let tree = repo.commit(commit)?.tree;
        listed = repo
            .walk(tree, &Scope::new(["experiments"]))?
            .into_iter()
            .map(|e| (e.path, Some((e.kind, e.id))))
            .collect();
    }
    Ok(listed
        .into_iter()
        .map(|(path, new)| {
            if git::needs_c_quote(path.as_bstr()) {
                return (git::c_quote(path.as_bstr()), Bound::Absent);
            }
            let bound = match new {
                Some((k, id)) if k.is_file() => Bound::Blob(id),
                _ => Bound::Absent,
            };
            (path.to_str_lossy().into_owned(), bound)
        })
        .collect())
}

fn has_template(path: &str) -> bool {
    path.split('/').any(|c| c == "TEMPLATE")
}

fn with_task(
    repo: &Repo,
    tree: ObjectId,
    p: Product<'_>,
    mut m: BTreeMap<String, Bound>,
) -> Result<BTreeMap<String, Bound>, Error> {
    if p.v4
        && let Some(e) = repo.entry(tree, "TASK.md".into())?
        && e.kind.is_file()
    {
        m.insert("TASK.md".into(), Bound::Blob(e.id));
    }
    Ok(m)
}

/// §6.2 `audit` verb: every regular file under the scope prefixes (`, `-separated; empty is the
/// whole tree), raw UTF-8 names only.
///
/// # Errors
/// Unreadable objects.
pub fn product_audit_manifest(
    repo: &Repo,
    commit: ObjectId,
    scope: &str,
    p: Product<'_>,
) -> Result<BTreeMap<String, Bound>, Error> {
    let prefixes: Vec<&str> = if scope.is_empty() { Vec::new() } else { scope.split(", ").collect() };
    let tree = repo.commit(commit)?.tree;
    let m = repo
        .walk(tree, &Scope::new(&prefixes))?
        .into_iter()
        .filter(|e| e.kind.is_file())
        .filter_map(|e| e.path.to_str().ok().map(|p| (p.to_owned(), e.id)))
        .filter(|(path, _)| !(p.v4 && has_template(path)))
        .map(|(path, id)| (path, Bound::Blob(id)))
        .collect();
    with_task(repo, tree, p, m)
}

fn own(path: &str) -> bool {
    [CONSTITUTION, "crossaudit.yml", ".gitignore"].contains(&path)
        || [LEDGER_DIR, STATE_DIR, ".github"].iter().any(|d| inside(path, d))
}

/// §6.2 `run` verb: changed paths minus the loop's own files, limited to `scope.dirs`, each
/// widened to the files of its own directory (a top-level file stays alone).
///
/// # Errors
/// Unreadable objects.
pub fn product_run_manifest(repo: &Repo, commit: ObjectId, p: Product<'_>) -> Result<BTreeMap<String, Bound>, Error> {
    let keep = |path: &str| {
        !(own(path) || p.v4 && has_template(path))
            && p.scope_dirs.is_none_or(|dirs| dirs.iter().any(|d| path.split('/').next() == Some(d.trim_matches('/'))))
    };
    let mut m = BTreeMap::new();
    let mut dirs = BTreeSet::new();
    for c in first_parent_changes(repo, commit)? {
        let Ok(path) = c.path.to_str() else { continue };
        if !keep(path) {
            continue;
        }
        match path.rsplit_once('/') {
            Some((dir, _)) => {
                dirs.insert(dir.to_owned());
            }
            None => {
                if let Some((k, id)) = c.new
                    && k.is_file()
                {
                    m.insert(path.to_owned(), Bound::Blob(id));
                }
            }
        }
    }
    let tree = repo.commit(commit)?.tree;
    for dir in dirs {
        let Some(e) = repo.entry(tree, BStr::new(dir.as_bytes()))? else { continue };
        if e.kind != EntryKind::Tree {
            continue;
        }
        for (name, kind, id) in repo.tree_children(e.id)?.iter() {
            let Ok(name) = name.to_str() else { continue };
            let path = format!("{dir}/{name}");
            if kind.is_file() && !own(&path) && !(p.v4 && has_template(&path)) {
                m.insert(path, Bound::Blob(*id));
            }
        }
    }
    with_task(repo, tree, p, m)
}

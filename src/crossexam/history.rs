//! Rule I3: earlier versions of the bus are byte prefixes of later ones, from `--prior`
//! snapshots and from every commit of the git repository the transcript sits in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::checks::I3_PREFIX;
use crate::git::{EntryKind, ObjectId, Repo};
use crate::report::{CheckResult, Outcome};

/// The 1-based line of the first byte where `old` and `new` differ.
fn first_difference(old: &[u8], new: &[u8]) -> usize {
    let at = old.iter().zip(new).position(|(a, b)| a != b).unwrap_or(old.len().min(new.len()));
    old[..at].iter().filter(|b| **b == b'\n').count() + 1
}

fn compare(subject: &str, old: &[u8], new: &[u8], what: &str) -> CheckResult {
    if new.starts_with(old) {
        CheckResult::new(&I3_PREFIX, Outcome::Passed, subject, format!("{what} is a byte prefix of the later bus"))
    } else {
        let line = first_difference(old, new);
        CheckResult::new(
            &I3_PREFIX,
            Outcome::Failed,
            subject,
            format!("{what} is not a byte prefix of the later bus: line {line} was rewritten or removed"),
        )
        .with("line", line)
        .at(Some("transcript"), Some("bus.jsonl"), None)
    }
}

/// `--prior` snapshots against the current bus.
pub(crate) fn priors(priors: &[PathBuf], bus: &[u8]) -> Vec<CheckResult> {
    priors
        .iter()
        .map(|p| {
            // The file name only: the subject must not depend on where the snapshot sits.
            let subject = format!(
                "--prior {}",
                p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
            );
            match super::load::read_regular(p) {
                Ok(old) => compare(&subject, &old, bus, &format!("snapshot {}", p.display()))
                    .with("path", p.display().to_string()),
                Err(e) => CheckResult::new(&I3_PREFIX, Outcome::CantTell, subject, format!("{}: {e}", p.display())),
            }
        })
        .collect()
}

/// The repository whose work tree holds `dir`, and `dir/bus.jsonl`'s path inside it.
fn enclosing_repo(dir: &Path) -> Option<(PathBuf, String)> {
    let abs = std::path::absolute(dir).ok()?;
    let mut rel: Vec<String> = vec!["bus.jsonl".into()];
    let mut cur = abs.as_path();
    loop {
        if cur.join(".git").exists() {
            rel.reverse();
            return Some((cur.to_owned(), rel.join("/")));
        }
        rel.push(cur.file_name()?.to_str()?.to_owned());
        cur = cur.parent()?;
    }
}

/// What a commit holds at the lineage's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Absent,
    File(ObjectId),
    /// A symbolic link, submodule or directory: no version of the bus, and no way to follow it.
    Other(EntryKind),
}

fn held(repo: &Repo, tree: ObjectId, path: &str) -> Result<Held, crate::git::Error> {
    Ok(match repo.entry(tree, path.into())? {
        None => Held::Absent,
        Some(e) if e.kind.is_file() => Held::File(e.id),
        Some(e) => Held::Other(e.kind),
    })
}

/// The `bus.jsonl` files `child` removed from `parent` (a move or rename of `_Msg/`), the one
/// sharing the most trailing path components with `path` first.
fn removed_buses(repo: &Repo, parent: ObjectId, child: ObjectId, path: &str) -> Result<Vec<String>, crate::git::Error> {
    let mut out: Vec<(usize, String)> = repo
        .diff(Some(parent), Some(child))?
        .into_iter()
        .filter(|c| c.old.is_some_and(|(k, _)| k.is_file()) && c.new.is_none())
        .filter_map(|c| std::str::from_utf8(&c.path).ok().map(str::to_owned))
        .filter(|p| p.rsplit('/').next() == Some("bus.jsonl"))
        .map(|p| (p.rsplit('/').zip(path.rsplit('/')).take_while(|(a, b)| a == b).count(), p))
        .collect();
    out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(out.into_iter().map(|(_, p)| p).collect())
}

/// Where the bus lives in each commit: `rel` at HEAD, then, walking back, the same path, except
/// in the commit that created the path, where it is the `bus.jsonl` that commit removed (a move
/// of `_Msg/`), if any. A gap where the path is absent (a deletion) keeps the path, so a version
/// re-created there later is compared with the one before the deletion.
fn lineage(
    repo: &Repo,
    commits: &[crate::git::Commit],
    rel: &str,
) -> Result<BTreeMap<ObjectId, (String, Held)>, crate::git::Error> {
    let trees: BTreeMap<ObjectId, ObjectId> = commits.iter().map(|c| (c.id, c.tree)).collect();
    let mut path_of: BTreeMap<ObjectId, String> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for c in commits.iter().rev() {
        let path = path_of.remove(&c.id).unwrap_or_else(|| rel.to_owned());
        let here = held(repo, c.tree, &path)?;
        for p in &c.parents {
            let Some(tree) = trees.get(p) else { continue };
            if path_of.contains_key(p) || out.contains_key(p) {
                continue;
            }
            // Only the commit that creates the path can have moved the bus there; across commits
            // the path itself is followed, since a panel deleted in one commit and another
            // created elsewhere in a later one are two panels as often as one moved.
            let created_here = here != Held::Absent && held(repo, *tree, &path)? == Held::Absent;
            let next = if created_here {
                removed_buses(repo, *tree, c.tree, &path)?.into_iter().next().unwrap_or_else(|| path.clone())
            } else {
                path.clone()
            };
            path_of.insert(*p, next);
        }
        out.insert(c.id, (path, here));
    }
    Ok(out)
}

/// Every version of the bus the repository held, following it through deletions, re-creations
/// and moves (see [`lineage`]), against the versions before it, and the newest against the
/// file. On a shallow clone the versions before the boundary are missing: never a pass.
pub(crate) fn git(dir: &Path, bus: &[u8], have_priors: bool) -> Vec<CheckResult> {
    let Some((root, rel)) = enclosing_repo(dir) else { return Vec::new() };
    let subject = format!("git history of {rel}");
    let cant = |why: String| vec![CheckResult::new(&I3_PREFIX, Outcome::CantTell, subject.clone(), why)];
    let walk = || -> Result<Vec<CheckResult>, crate::git::Error> {
        let repo = Repo::open(&root)?;
        let Ok(head) = repo.resolve("HEAD") else { return Ok(cant(format!("{} has no commits", root.display()))) };
        let commits = repo.history(head)?;
        let held_at = lineage(&repo, &commits, &rel)?;
        // The latest version(s) as of each commit: its own, else those its parents carried
        // (a merge of two branches that both rewrote the bus carries both).
        let mut latest: BTreeMap<ObjectId, BTreeSet<(ObjectId, String)>> = BTreeMap::new();
        let mut judged: BTreeSet<(ObjectId, ObjectId)> = BTreeSet::new();
        let mut out = Vec::new();
        let mut committed = 0usize;
        for c in &commits {
            let inherited: BTreeSet<(ObjectId, String)> =
                c.parents.iter().filter_map(|p| latest.get(p)).flatten().cloned().collect();
            let Some((path, here)) = held_at.get(&c.id) else { continue };
            let now = match *here {
                Held::File(blob) => {
                    committed += 1;
                    for (old, old_path) in inherited.iter().filter(|(o, _)| *o != blob) {
                        if !judged.insert((*old, blob)) {
                            continue;
                        }
                        let (a, b) = (repo.record(*old, old_path)?, repo.record(blob, path)?);
                        let short = c.id.to_hex_with_len(12).to_string();
                        let what = if old_path == path {
                            format!("{path} before {short}")
                        } else {
                            format!("{old_path} (moved or re-created as {path} by {short} or earlier)")
                        };
                        let r = compare(&format!("commit {short}"), &a, &b, &what);
                        if r.outcome == Outcome::Failed {
                            out.push(r.with("commit", c.id.to_string()).with("path", path.as_str()));
                        }
                    }
                    BTreeSet::from([(blob, path.clone())])
                }
                Held::Absent => inherited,
                Held::Other(kind) => {
                    let short = c.id.to_hex_with_len(12).to_string();
                    out.push(
                        CheckResult::new(
                            &I3_PREFIX,
                            Outcome::CantTell,
                            format!("commit {short}"),
                            format!(
                                "{path} is a {} in commit {short}: the bus's history cannot be followed through it",
                                kind.as_str()
                            ),
                        )
                        .with("commit", c.id.to_string()),
                    );
                    inherited
                }
            };
            latest.insert(c.id, now);
        }
        let tips = latest.remove(&head).unwrap_or_default();
        if tips.is_empty() {
            return Ok(cant(format!("{rel} is in a git repository but no commit holds it")));
        }
        let mut tip_results = Vec::new();
        for (blob, path) in &tips {
            let what =
                if path == &rel { format!("{rel} at HEAD") } else { format!("{path}, the last committed version") };
            tip_results.push(
                compare("work tree", &repo.record(*blob, path)?, bus, &what).with("commitsHoldingBus", committed),
            );
        }
        let failed_somewhere = out.iter().any(|r| r.outcome == Outcome::Failed);
        for r in tip_results {
            if r.outcome == Outcome::Failed || (!failed_somewhere && out.is_empty()) {
                out.push(r);
            }
        }
        if let Some(boundary) = repo.shallow_boundary().and_then(|b| b.first()) {
            out.retain(|r| r.outcome != Outcome::Passed);
            let short = boundary.to_hex_with_len(12);
            let r = CheckResult::new(
                &I3_PREFIX,
                Outcome::CantTell,
                subject.clone(),
                format!(
                    "{} is a shallow clone: the versions of {rel} before commit {short} are not in it, so append-only is not proved; run `git fetch --unshallow` in {}, or give an earlier copy of the bus with --prior",
                    root.display(),
                    root.display()
                ),
            )
            .with("shallowBoundary", boundary.to_string());
            // An earlier snapshot the user gave decides what the clone cannot: the gap is then
            // shown, not held against the run.
            out.push(if have_priors { super::judge::at_level(r, crate::report::Level::Info) } else { r });
        }
        Ok(out)
    };
    walk().unwrap_or_else(|e| cant(format!("cannot read the history: {e}")))
}

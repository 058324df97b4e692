//! Rule I3: earlier versions of the bus are byte prefixes of later ones, from `--prior`
//! snapshots and from every commit of the git repository the transcript sits in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::checks::I3_PREFIX;
use crate::git::{ObjectId, Repo};
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

/// Every commit's version of the bus against its parents' and the newest against the file.
pub(crate) fn git(dir: &Path, bus: &[u8]) -> Vec<CheckResult> {
    let Some((root, rel)) = enclosing_repo(dir) else { return Vec::new() };
    let subject = format!("git history of {rel}");
    let cant = |why: String| vec![CheckResult::new(&I3_PREFIX, Outcome::CantTell, subject.clone(), why)];
    let walk = || -> Result<Vec<CheckResult>, crate::git::Error> {
        let repo = Repo::open(&root)?;
        let Ok(head) = repo.resolve("HEAD") else { return Ok(cant(format!("{} has no commits", root.display()))) };
        let commits = repo.history(head)?;
        let mut versions: BTreeMap<ObjectId, Option<Vec<u8>>> = BTreeMap::new();
        let mut out = Vec::new();
        for c in &commits {
            let v = repo.file_at(c.id, &rel)?;
            if let Some(new) = &v {
                for p in &c.parents {
                    if let Some(Some(old)) = versions.get(p).filter(|old| old.as_ref() != Some(new)) {
                        let short = c.id.to_hex_with_len(12).to_string();
                        let r =
                            compare(&format!("commit {short}"), old, new, &format!("{rel} in the parent of {short}"));
                        if r.outcome == Outcome::Failed {
                            out.push(r.with("commit", c.id.to_string()));
                        }
                    }
                }
            }
            versions.insert(c.id, v);
        }
        let committed = commits.iter().filter(|c| versions.get(&c.id).is_some_and(Option::is_some)).count();
        match versions.get(&head).and_then(Clone::clone) {
            Some(tip) => {
                let r = compare("work tree", &tip, bus, &format!("{rel} at HEAD"));
                if r.outcome == Outcome::Failed || out.is_empty() {
                    out.push(r.with("commitsHoldingBus", committed));
                }
            }
            None if committed == 0 => return Ok(cant(format!("{rel} is in a git repository but no commit holds it"))),
            None => out.push(CheckResult::new(
                &I3_PREFIX,
                Outcome::CantTell,
                subject.clone(),
                format!("{rel} is not in HEAD, though earlier commits hold it"),
            )),
        }
        Ok(out)
    };
    walk().unwrap_or_else(|e| cant(format!("cannot read the history: {e}")))
}

//! `crossverify batch FOLDER`: a journal's queue, one submission per entry of the folder (an
//! archive, a bundle or a directory), one JSON line and one certificate each, resumable like
//! the ledger batch (`docs/scale.md`): a line stands for its submission while everything that
//! decided it is unchanged — the submission's bytes (every byte of a file, every file of a
//! directory, claims files and `.git` included), and the stamp of the run: the journal's trust
//! anchors, flags and limits, the check suite, crossverify's version and build — and its
//! verdict was definite.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::report::{Level, Outcome, Report};

/// The submissions of a queue folder: every entry but hidden ones, by name, whatever bytes the
/// name holds (a name that is not UTF-8 is shown with those bytes escaped, `\xff`).
///
/// # Errors
/// The folder cannot be read.
pub fn queue(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| (crate::intake::tree::shown_name(&e.file_name()), e.path()))
        .filter(|(name, _)| !name.starts_with('.'))
        .collect();
    out.sort();
    Ok(out)
}

/// What a submission is, for resuming: `sha256:` of a file's bytes, or for a directory `tree:`
/// a digest of every entry below it (symlinks as their targets' text, not followed), each with
/// its path, kind and bytes: a claims file edited inside a repository's work tree changes it.
#[must_use]
pub fn fingerprint(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        return super::sha256_of(path).ok().map(|d| format!("sha256:{d}"));
    }
    if !meta.is_dir() {
        // A FIFO or a device is never read: it has no bytes to stand for.
        return None;
    }
    let mut entries = Vec::new();
    let mut stack = vec![path.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.filter_map(Result::ok) {
            let p = e.path();
            let t = e.file_type().ok()?;
            if t.is_dir() {
                stack.push(p.clone());
            }
            entries.push((crate::intake::tree::shown_rel(path, &p), p, t));
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = Sha256::new();
    for (rel, p, t) in entries {
        let what = if t.is_dir() {
            "dir".to_owned()
        } else if t.is_symlink() {
            format!("link {}", std::fs::read_link(&p).ok()?.display())
        } else if t.is_file() {
            format!("file {}", super::sha256_of(&p).ok()?)
        } else {
            "special".to_owned()
        };
        h.update(format!("{rel}\t{what}\n").as_bytes());
    }
    Some(format!("tree:{}", hex::encode(h.finalize())))
}

/// What decided a queue run's lines besides the submissions themselves: the journal's trust
/// anchors (the bytes of its trust store), its flags and limits, the check suite, and
/// crossverify's version and build. A line stands only under the same stamp.
#[must_use]
pub fn stamp(trust_store: Option<&Path>, accept_self_declared: bool, limits: crate::intake::Limits) -> String {
    let store = trust_store.map(|p| super::sha256_of(p).unwrap_or_else(|e| format!("unreadable: {e}")));
    let (suite, _) = super::policy::suite();
    let mut h = Sha256::new();
    h.update(
        format!(
            "crossverify {} {}\npolicy {} {suite}\ntrust-store {}\naccept-self-declared {accept_self_declared}\nlimits {limits:?}\n",
            env!("CARGO_PKG_VERSION"),
            crate::report::BUILD_COMMIT.unwrap_or("unknown"),
            super::policy::POLICY_URI,
            store.as_deref().unwrap_or("none"),
        )
        .as_bytes(),
    );
    format!("sha256:{}", hex::encode(h.finalize()))
}

/// One line done: its id, exit code and the fingerprint of what it was about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    /// The submission's id.
    pub id: String,
    /// Its exit code.
    pub code: u8,
    /// [`fingerprint`] of the submission verified.
    pub fingerprint: Option<String>,
    /// [`stamp`] of the run that verified it.
    pub stamp: Option<String>,
}

/// The whole lines already in an output, and the length of the part that holds them (a line
/// torn by a killed run is after it).
#[must_use]
pub fn done(existing: &[u8]) -> (Vec<Done>, usize) {
    let whole = existing.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let lines = existing
        .get(..whole)
        .unwrap_or_default()
        .split(|b| *b == b'\n')
        .filter_map(|l| crate::json::parse(l).ok())
        .map(|v| crate::json::to_serde(&v))
        .filter_map(|v| {
            Some(Done {
                id: v.get("id")?.as_str()?.to_owned(),
                code: u8::try_from(v.get("exitCode")?.as_u64()?).ok()?,
                fingerprint: v.get("fingerprint").and_then(Value::as_str).map(str::to_owned),
                stamp: v.get("stamp").and_then(Value::as_str).map(str::to_owned),
            })
        })
        .collect();
    (lines, whole)
}

/// Whether a line still stands for the submission: a definite verdict about the same bytes,
/// reached under the same stamp.
#[must_use]
pub fn still_stands(line: &Done, now: Option<&str>, stamp: &str) -> bool {
    matches!(line.code, 0 | 1)
        && line.fingerprint.is_some()
        && line.fingerprint.as_deref() == now
        && line.stamp.as_deref() == Some(stamp)
}

/// A submission's line (without the newline).
#[must_use]
pub fn line(
    id: &str,
    fingerprint: Option<&str>,
    stamp: &str,
    result: Result<&Report, &str>,
    certificate: Option<(&str, &str)>,
) -> String {
    let mut v = match result {
        Ok(r) => {
            let failing: std::collections::BTreeSet<&str> = r
                .results
                .iter()
                .filter(|x| x.outcome == Outcome::Failed && x.level == Level::Error)
                .map(|x| x.code.as_str())
                .collect();
            json!({"id": id, "exitCode": r.exit_code(), "outcome": r.outcome.as_str(), "failing": failing,
                   "summary": r.summary, "records": r.sections.get("records").and_then(Value::as_array).map(Vec::len)})
        }
        Err(e) => json!({"id": id, "exitCode": 2, "error": e}),
    };
    v["fingerprint"] = fingerprint.map_or(Value::Null, Value::from);
    v["stamp"] = stamp.into();
    if let Some((path, digest)) = certificate {
        v["certificate"] = path.into();
        v["certificateSha256"] = digest.into();
    }
    serde_json::to_string(&v).expect("a line serialises")
}

/// The queue's exit code: 1 if any failed, else 3 if any was inconclusive or could not run,
/// else 0.
#[must_use]
pub fn exit_code(codes: impl IntoIterator<Item = u8>) -> u8 {
    codes.into_iter().fold(0, |acc, c| match (acc, c) {
        (1, _) | (_, 1) => 1,
        (_, 0) => acc,
        _ => 3,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_stands_only_for_a_definite_verdict_about_the_same_bytes() {
        let out = b"{\"exitCode\":0,\"fingerprint\":\"sha256:aa\",\"id\":\"a\",\"stamp\":\"s1\"}\n{\"exitCode\":2,\"id\":\"b\"}\n{\"exitCo";
        let (lines, whole) = done(out);
        assert_eq!(whole, out.iter().rposition(|b| *b == b'\n').expect("a newline") + 1, "the torn line is cut off");
        assert_eq!(lines.len(), 2);
        assert!(still_stands(&lines[0], Some("sha256:aa"), "s1"));
        assert!(!still_stands(&lines[0], Some("sha256:bb"), "s1"), "another archive under the same name");
        assert!(!still_stands(&lines[0], Some("sha256:aa"), "s2"), "another trust store, flag or build");
        assert!(!still_stands(&lines[1], None, "s1"), "could not run: verified again");
        assert_eq!(exit_code([0, 3, 0]), 3);
        assert_eq!(exit_code([0, 2, 1]), 1);
        assert_eq!(exit_code([]), 0);
        let l = line("c", Some("sha256:cc"), "s1", Err("no repository"), None);
        assert_eq!(l, r#"{"error":"no repository","exitCode":2,"fingerprint":"sha256:cc","id":"c","stamp":"s1"}"#);
    }
}

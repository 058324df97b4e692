//! The layout of Proof-or-Stop evidence on disk: which directories are stories, and which of
//! their files are signed records. The front door (`detect.rs`) and the floor (`floor.rs`)
//! read it from here, so that what `verify` sends to the floor is what the floor reads.
//!
//! A story directory holds `findings.json` or `verdicts/`; a directory of stories holds story
//! directories one level down. A signed record is a file naming the bundle media type (review
//! verdicts, finding events, receipts and done claims all travel as bundles): its signature
//! means something only once verified, so a story holding one is never merely summarised.
//! Symbolic links inside the path named are not followed: what lies outside it is not read.

use std::fs::FileType;
use std::path::{Path, PathBuf};

use super::envelope::{MAX_BUNDLE_BYTES, MEDIA_TYPE};

/// The review records the floor reads, relative to a story directory.
pub const VERDICTS: &str = "verdicts";

/// The story's findings, relative to a story directory.
pub const FINDINGS: &str = "findings.json";

/// A directory entry's type, without following a symbolic link.
fn kind(path: &Path) -> Option<FileType> {
    std::fs::symlink_metadata(path).ok().map(|m| m.file_type())
}

fn is_dir(path: &Path) -> bool {
    kind(path).is_some_and(|k| k.is_dir())
}

/// Whether `dir` is a story directory: it holds `findings.json` or `verdicts/`. `dir` itself
/// may be a link (the path a user named); what it holds may not.
#[must_use]
pub fn is_story(dir: &Path) -> bool {
    dir.is_dir() && (kind(&dir.join(FINDINGS)).is_some_and(|k| k.is_file()) || is_dir(&dir.join(VERDICTS)))
}

/// The entries of `dir`, sorted (none when it cannot be listed).
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect()).unwrap_or_default();
    out.sort();
    out
}

/// The story directories of `path`: itself when it is one, else its subdirectories that are
/// (sorted); none when neither.
#[must_use]
pub fn stories(path: &Path) -> Vec<PathBuf> {
    if is_story(path) {
        return vec![path.to_owned()];
    }
    if !path.is_dir() {
        return Vec::new();
    }
    entries(path).into_iter().filter(|p| is_dir(p) && is_story(p)).collect()
}

/// Whether `path` is a file naming the bundle media type, within the bundle size limit (a
/// larger file is no bundle the verifier would read).
#[must_use]
pub fn is_signed_record(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return false };
    meta.is_file()
        && meta.len() <= MAX_BUNDLE_BYTES as u64
        && std::fs::read(path).is_ok_and(|b| memchr::memmem::find(&b, MEDIA_TYPE.as_bytes()).is_some())
}

/// The signed records of a story outside `verdicts/`: its own files and those of its
/// subdirectories (receipts, done claims), relative to it, sorted.
#[must_use]
pub fn signed_outside_verdicts(story: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for p in entries(story) {
        let files = if is_dir(&p) {
            if p.file_name().is_some_and(|n| n == VERDICTS) {
                continue;
            }
            entries(&p)
        } else {
            vec![p]
        };
        out.extend(
            files
                .into_iter()
                .filter(|f| is_signed_record(f))
                .map(|f| f.strip_prefix(story).unwrap_or(&f).to_string_lossy().into_owned()),
        );
    }
    out
}

/// Whether a story holds signed evidence: review records (`verdicts/`) or any other signed record.
#[must_use]
pub fn holds_signed(story: &Path) -> bool {
    is_dir(&story.join(VERDICTS)) || !signed_outside_verdicts(story).is_empty()
}

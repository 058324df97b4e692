//! From what the journal was given to repositories on disk: each input (a directory, an
//! archive, a bundle) is read in place, unpacked or cloned into the private work directory,
//! and searched; bundles and archives found inside are taken in the same way, one level deep.

use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::error::Error;
use crate::intake::tree::{self, Found, Incomplete};
use crate::intake::{Kind, Limits, bundle, unpack};
use crate::progress::Ctx;

/// One thing received: an input as given, or an archive or bundle found inside one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    /// Its name in the report (`submission.zip`, `submission.zip/science.bundle`).
    pub shown: String,
    /// `directory`, or the archive's format.
    pub kind: String,
    /// SHA-256 of the file, for archives and bundles.
    pub sha256: Option<String>,
    /// Members unpacked (archives).
    pub entries: Option<u64>,
    /// Bytes unpacked (archives).
    pub bytes: Option<u64>,
}

/// A repository received, where it is on disk and what it is called in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoIn {
    /// Its name in the report.
    pub shown: String,
    /// Where it is.
    pub path: PathBuf,
}

/// Everything received, unpacked.
#[derive(Debug, Default)]
pub struct Intake {
    /// What was received, in order.
    pub received: Vec<Received>,
    /// The repositories, by name.
    pub repos: Vec<RepoIn>,
    /// Trees searched for records: (on disk, name in the report, what the search found).
    pub trees: Vec<(PathBuf, String, Found)>,
    /// Work-directory paths and the names they stand for in the report, longest first.
    pub names: Vec<(String, String)>,
}

impl Intake {
    /// `path`'s name in the report: the received name of the tree or repository it lies in.
    #[must_use]
    pub fn shown(&self, path: &Path) -> String {
        let p = path.display().to_string();
        for (disk, shown) in &self.names {
            if let Some(rest) = p.strip_prefix(disk.as_str()) {
                return format!("{shown}{rest}");
            }
        }
        p
    }

    /// `text` with every work-directory path in it replaced by the name it stands for, so a
    /// report says `submission.zip/audit`, never where it was unpacked.
    #[must_use]
    pub fn shown_text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (disk, shown) in &self.names {
            out = out.replace(disk.as_str(), shown);
        }
        out
    }
}

/// Receives every input into `work` (an empty private directory).
///
/// # Errors
/// An input that cannot be read, an archive member refused, a bundle git cannot read, a
/// repository that is a shallow or partial clone, or a submission that holds files but no
/// repository (a release download): each names the input and the fix.
pub fn receive(inputs: &[PathBuf], work: &Path, limits: Limits, ctx: Ctx<'_>) -> Result<Intake, Error> {
    let mut taker = Taker { limits, ctx, intake: Intake::default() };
    for (n, input) in inputs.iter().enumerate() {
        let shown = input.display().to_string();
        taker.take(input, &shown, &work.join(format!("in{n}")), 0)?;
    }
    let mut intake = taker.intake;
    // A reader may name a path in its canonical form (a temporary directory behind a symlink,
    // as macOS's `/tmp` is): both spellings are renamed.
    let canonical: Vec<(String, String)> = intake
        .names
        .iter()
        .filter_map(|(disk, shown)| {
            let c = std::fs::canonicalize(disk).ok()?.display().to_string();
            (c != *disk).then(|| (c, shown.clone()))
        })
        .collect();
    intake.names.extend(canonical);
    intake.names.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
    for (root, shown, found) in &intake.trees {
        for r in &found.repos {
            if let Some(why) = r.incomplete {
                return Err(Error::Incomplete(incomplete_message(&join(shown, &r.rel), why)));
            }
            intake.repos.push(RepoIn { shown: join(shown, &r.rel), path: root.join(&r.rel) });
        }
    }
    intake.repos.sort_by(|a, b| a.shown.cmp(&b.shown));
    intake.repos.dedup();
    if intake.repos.is_empty() {
        return Err(Error::NoHistory(release_message(&intake)));
    }
    Ok(intake)
}

fn join(shown: &str, rel: &str) -> String {
    if rel == "." { shown.to_owned() } else { format!("{shown}/{rel}") }
}

/// What is received so far, and the caps and context every input is taken with.
struct Taker<'c> {
    limits: Limits,
    ctx: Ctx<'c>,
    intake: Intake,
}

impl Taker<'_> {
    /// Takes one input or a file found in one: a directory is searched in place, an archive
    /// unpacked into `dest`, a bundle cloned into `dest`.
    fn take(&mut self, input: &Path, shown: &str, dest: &Path, depth: usize) -> Result<(), Error> {
        let meta = std::fs::metadata(input).map_err(|e| Error::Input(format!("{shown}: {e}")))?;
        if meta.is_dir() {
            let item = Received { shown: shown.to_owned(), kind: "directory".into(), ..Received::default() };
            self.intake.received.push(item);
            return self.search(input, shown, dest, depth);
        }
        let kind =
            crate::intake::kind_of(input).map_err(|e| Error::Input(format!("{shown}: {e}")))?.ok_or_else(|| {
                Error::Input(format!(
                    "{shown}: neither a directory, an archive (.zip, .tar, .tar.gz, .tgz) nor a git bundle"
                ))
            })?;
        let sha256 = Some(sha256_of(input).map_err(|e| Error::Input(format!("{shown}: {e}")))?);
        let mut item = Received { shown: shown.to_owned(), kind: kind.as_str().into(), sha256, ..Received::default() };
        std::fs::create_dir_all(dest).map_err(|e| Error::Input(format!("{}: {e}", dest.display())))?;
        if kind == Kind::Bundle {
            let stem = input.file_stem().and_then(|s| s.to_str()).unwrap_or("bundle");
            let repo = dest.join(format!("{stem}.git"));
            bundle::clone(input, shown, &repo).map_err(Error::Bundle)?;
            self.intake.received.push(item);
            self.intake.names.push((repo.display().to_string(), shown.to_owned()));
            let found = tree::search(&repo);
            self.intake.trees.push((repo, shown.to_owned(), found));
            return Ok(());
        }
        let unpacked = unpack(input, shown, kind, dest, self.limits, self.ctx)?;
        item.entries = Some(unpacked.entries);
        item.bytes = Some(unpacked.bytes);
        self.intake.received.push(item);
        self.search(dest, shown, &dest.with_extension("inner"), depth)
    }

    /// Searches a received tree, and takes the bundles and archives in it (one level deep).
    fn search(&mut self, root: &Path, shown: &str, dest: &Path, depth: usize) -> Result<(), Error> {
        let found = tree::search(root);
        self.intake.names.push((root.display().to_string(), shown.to_owned()));
        let packed = found.packed.clone();
        self.intake.trees.push((root.to_owned(), shown.to_owned(), found));
        if depth > 0 {
            return Ok(());
        }
        for (n, (file, _)) in packed.iter().enumerate() {
            let rel = file.strip_prefix(root).unwrap_or(file);
            let inner = format!("{shown}/{}", rel.display());
            self.take(file, &inner, &dest.join(format!("p{n}")), depth + 1)?;
        }
        Ok(())
    }
}

/// The SHA-256 of a file, read in pieces.
///
/// # Errors
/// The file cannot be read.
pub fn sha256_of(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let mut hasher = Sha256::new();
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(hex::encode(hasher.finalize()));
        }
        hasher.update(buf.get(..n).unwrap_or_default());
    }
}

fn incomplete_message(shown: &str, why: Incomplete) -> String {
    let fix = match why {
        Incomplete::Shallow => "run `git fetch --unshallow` in the authors' clone, then",
        Incomplete::Partial => "run `git fetch --refetch --no-filter` in the authors' clone, then",
        Incomplete::GitFile => "in the repository the `.git` file names,",
    };
    let stem = shown.rsplit('/').next().unwrap_or(shown);
    format!(
        "{shown}: {}, so its records cannot be verified from git objects; {fix} `git bundle create {stem}.bundle --all` \
         and submit the bundle",
        why.as_str()
    )
}

/// Why a submission with no repository cannot be verified, with one bundle command per work
/// tree it holds (its top-level directories, or the submission itself).
fn release_message(intake: &Intake) -> String {
    let mut trees: Vec<String> = Vec::new();
    for (root, shown, _) in &intake.trees {
        trees.extend(tree::working_trees(root).into_iter().map(|t| t.unwrap_or_else(|| stem_of(shown))));
    }
    trees.sort();
    trees.dedup();
    let received: Vec<&str> = intake.received.iter().map(|r| r.shown.as_str()).collect();
    let each: Vec<String> =
        trees.iter().map(|t| format!("in the clone of {t}: `git bundle create {t}.bundle --all`")).collect();
    format!(
        "{}: holds files but no git repository (a working-tree archive without `.git`, such as a release \
         download), so it cannot be verified from git objects; ask the authors for a bundle of each \
         repository with its whole history: {}",
        received.join(", "),
        each.join("; ")
    )
}

fn stem_of(shown: &str) -> String {
    let name = shown.rsplit('/').next().unwrap_or(shown);
    let lower = name.to_ascii_lowercase();
    for ext in [".tar.gz", ".tgz", ".tar", ".zip", ".bundle"] {
        if lower.ends_with(ext) {
            return name.get(..name.len() - ext.len()).unwrap_or(name).to_owned();
        }
    }
    name.to_owned()
}

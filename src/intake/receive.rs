//! From what the journal was given to repositories on disk: each input (a directory, an
//! archive, a bundle) is read in place, unpacked or cloned into the private work directory,
//! and searched; bundles and archives found inside are taken in the same way, to the nesting
//! limit, all within one [`Budget`]. Every repository found is confined before anything opens
//! it: no git indirection may lead outside the tree it was received in (`confine`).

use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::archive::{Budget, Kind, Limits, kind_of, unpack};
use super::bundle;
use super::refusal::{Refusal, RefusalKind};
use super::tree::{self, Found, shown_name};
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
    /// Members and files, and bytes, written while receiving it.
    pub written: (u64, u64),
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
    /// Directories beside the repositories received that hold files but no repository, by
    /// their names in the report ([`tree::trees_beside`]).
    #[must_use]
    pub fn trees_beside(&self) -> Vec<String> {
        self.trees.iter().flat_map(|(_, _, found)| tree::trees_beside(found)).map(|p| self.shown(&p)).collect()
    }

    /// `path`'s name in the report: the received name of the tree or repository it lies in.
    #[must_use]
    pub fn shown(&self, path: &Path) -> String {
        shown_in(&self.names, path)
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

/// Receives every input into `work` (an empty private directory), within `limits`.
///
/// # Errors
/// The first [`Refusal`]: an input that cannot be read, an archive member refused, a cap
/// reached, a bundle git cannot read, a git indirection leading outside the submission, a
/// repository that is a shallow or partial clone, or a submission that holds files but no
/// repository (a release download). Each names the input and the fix.
pub fn receive(inputs: &[PathBuf], work: &Path, limits: Limits, ctx: Ctx<'_>) -> Result<Intake, Refusal> {
    let mut taker = Taker { budget: Budget::new(limits), ctx, intake: Intake::default() };
    for (n, input) in inputs.iter().enumerate() {
        let shown = input.display().to_string();
        taker.take(input, &shown, &work.join(format!("in{n}")), 0, true)?;
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
            let name = join(shown, &r.rel);
            super::confine::confine(&r.path, root)
                .map_err(|(file, kind)| Refusal::file(name.clone(), shown_in(&intake.names, &file), kind))?;
            if let Some(why) = r.incomplete {
                let stem = name.rsplit('/').next().unwrap_or(&name).to_owned();
                return Err(Refusal::whole(name, RefusalKind::Incomplete { why, stem }));
            }
            intake.repos.push(RepoIn { shown: name, path: r.path.clone() });
        }
    }
    intake.repos.sort_by(|a, b| a.shown.cmp(&b.shown));
    intake.repos.dedup();
    if intake.repos.is_empty() {
        let received: Vec<&str> = intake.received.iter().map(|r| r.shown.as_str()).collect();
        return Err(Refusal::whole(received.join(", "), RefusalKind::NoHistory(work_trees(&intake))));
    }
    intake.written = (taker.budget.entries(), taker.budget.written());
    Ok(intake)
}

/// `path`'s name in the report, by the first of `names` (work path, shown name) it lies below.
fn shown_in(names: &[(String, String)], path: &Path) -> String {
    for (disk, shown) in names {
        if let Ok(rest) = path.strip_prefix(disk) {
            // Non-UTF-8 bytes below the received root are escaped, as the search shows them.
            return match tree::shown_rel(Path::new(""), rest).as_str() {
                "." => shown.clone(),
                rel => format!("{shown}/{rel}"),
            };
        }
    }
    path.display().to_string()
}

fn join(shown: &str, rel: &str) -> String {
    if rel == "." { shown.to_owned() } else { format!("{shown}/{rel}") }
}

/// What is received so far, and the budget and context every input is taken with.
struct Taker<'c> {
    budget: Budget,
    ctx: Ctx<'c>,
    intake: Intake,
}

impl Taker<'_> {
    /// Takes one input or a file found in one, at nesting `level`: a directory is searched in
    /// place, an archive unpacked into `dest`, a bundle cloned into `dest`. `authors` is true
    /// for bytes the authors sent (an input, or a file inside an input directory), false for
    /// bytes this run wrote (a file unpacked from an archive): only the first are received.
    fn take(&mut self, input: &Path, shown: &str, dest: &Path, level: u64, authors: bool) -> Result<(), Refusal> {
        self.ctx.check().map_err(|_| Refusal::whole(shown, RefusalKind::Cancelled))?;
        self.budget.nest(level).map_err(|k| Refusal::whole(shown, k))?;
        let unreadable = |e: std::io::Error| Refusal::whole(shown, RefusalKind::Unreadable(e.to_string()));
        let meta = std::fs::metadata(input).map_err(unreadable)?;
        if meta.is_dir() {
            let item = Received { shown: shown.to_owned(), kind: "directory".into(), ..Received::default() };
            self.intake.received.push(item);
            return self.search(input, shown, dest, level, authors);
        }
        if !meta.is_file() {
            // A FIFO or a device would block or never end when read.
            return Err(Refusal::whole(shown, RefusalKind::SpecialFile { what: "not a regular file".to_owned() }));
        }
        let kind =
            kind_of(input).map_err(unreadable)?.ok_or_else(|| Refusal::whole(shown, RefusalKind::UnknownKind))?;
        if authors {
            self.budget.receive(meta.len());
        }
        let sha256 = Some(sha256_of(input).map_err(unreadable)?);
        let mut item = Received { shown: shown.to_owned(), kind: kind.as_str().into(), sha256, ..Received::default() };
        std::fs::create_dir_all(dest).map_err(|e| {
            Refusal::whole(shown, RefusalKind::Write { what: "the work directory", detail: e.to_string() })
        })?;
        if kind == Kind::Bundle {
            let stem = input.file_stem().map(shown_name).unwrap_or_else(|| "bundle".to_owned());
            let repo = dest.join(&stem);
            bundle::clone(input, &repo).map_err(|k| Refusal::whole(shown, k))?;
            // The objects git wrote, and what its checkout will write, before it writes it.
            let (git_files, git_bytes) = size_of(&repo);
            let tree = bundle::tree_size(&repo).map_err(|k| Refusal::whole(shown, k))?;
            let (tree_files, tree_bytes) = tree.unwrap_or((0, 0));
            let (files, bytes) = (git_files + tree_files, git_bytes.saturating_add(tree_bytes));
            self.budget.charge(files, bytes).map_err(|k| Refusal::whole(shown, k))?;
            if tree.is_some() {
                bundle::checkout(&repo).map_err(|k| Refusal::whole(shown, k))?;
            }
            item.entries = Some(files);
            item.bytes = Some(bytes);
            self.intake.received.push(item);
            // The work tree of its HEAD is searched like any other: a transcript or evidence
            // committed in the repository is a record of the submission (issue 46).
            return self.search(&repo, shown, &dest.join("inner"), level, false);
        }
        let unpacked = unpack(input, shown, kind, dest, &mut self.budget, self.ctx)?;
        item.entries = Some(unpacked.entries);
        item.bytes = Some(unpacked.bytes);
        self.intake.received.push(item);
        self.search(dest, shown, &dest.with_extension("inner"), level, false)
    }

    /// Searches a received tree, and takes the bundles and archives in it, one level deeper;
    /// `authors` as for [`Taker::take`], for the files in it.
    fn search(&mut self, root: &Path, shown: &str, dest: &Path, level: u64, authors: bool) -> Result<(), Refusal> {
        let found = tree::search(root, self.budget.limits().max_depth);
        if let Some(deep) = &found.too_deep {
            return Err(Refusal::member(shown, tree::shown_rel(root, deep), self.budget.too_deep()));
        }
        // A link in the tree may lead anywhere on this machine: every one must resolve, through
        // every link, inside the tree it was received in (a detector that followed it would
        // read what the authors never sent).
        let real_root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        for link in &found.links {
            if !link.canonicalize().is_ok_and(|real| real.starts_with(&real_root)) {
                let raw = std::fs::read_link(link).map(|t| t.display().to_string()).unwrap_or_default();
                return Err(Refusal::file(
                    shown,
                    tree::shown_rel(root, link),
                    RefusalKind::OutsideLink { what: "a symlink", target: format!("{raw:?}") },
                ));
            }
        }
        self.intake.names.push((root.display().to_string(), shown.to_owned()));
        let packed = found.packed.clone();
        self.intake.trees.push((root.to_owned(), shown.to_owned(), found));
        for (n, (file, _)) in packed.iter().enumerate() {
            let inner = format!("{shown}/{}", tree::shown_rel(root, file));
            self.take(file, &inner, &dest.join(format!("p{n}")), level + 1, authors)?;
        }
        Ok(())
    }
}

/// Files and bytes below `dir` (symlinks not followed).
fn size_of(dir: &Path) -> (u64, u64) {
    let (mut files, mut bytes, mut stack) = (0, 0, vec![dir.to_owned()]);
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else { continue };
        for e in read.filter_map(Result::ok) {
            let Ok(m) = std::fs::symlink_metadata(e.path()) else { continue };
            if m.is_dir() {
                stack.push(e.path());
            } else {
                files += 1;
                bytes += m.len();
            }
        }
    }
    (files, bytes)
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

/// The work trees a submission with no repository is made of (its top-level directories, or
/// the submission itself), one bundle command each.
fn work_trees(intake: &Intake) -> Vec<String> {
    let mut trees: Vec<String> = Vec::new();
    for (root, shown, _) in &intake.trees {
        trees.extend(tree::working_trees(root).into_iter().map(|t| t.unwrap_or_else(|| stem_of(shown))));
    }
    trees.sort();
    trees.dedup();
    trees
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

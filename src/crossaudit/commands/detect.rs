//! `crossverify verify PATH`, CrossAudit's side: whether PATH holds CrossAudit records, what
//! they are, and the command that verifies them. Detection reads names and markers only; the
//! command it picks verifies everything, so a wrong guess can refuse but never pass.

use std::path::{Path, PathBuf};

use crate::crossaudit::deployed;
use crate::crossaudit::load::{self, Options};
use crate::crossaudit::stats::published::{ANALYSIS, CYCLES_B, CYCLES_JSONL, LIFECYCLE, SUMMARY};
use crate::git::Repo;
use crate::progress::Ctx;
use crate::report::Report;

/// What was found, and how it is verified.
#[derive(Debug, Clone)]
pub struct Detected {
    /// What PATH holds, in words.
    pub what: String,
    /// The equivalent command line (what the user can run next time).
    pub command: String,
    /// What the command needs that was not given (exit 2, naming it and the command); `None`
    /// when it can run.
    pub needs: Option<String>,
    run: Verify,
}

#[derive(Debug, Clone)]
enum Verify {
    /// `crossverify ledger --audit PATH [--science S]`.
    Ledger { audit: PathBuf, science: Option<PathBuf> },
    /// `crossverify receipt RECEIPT --audit ROOT --science S`.
    Receipt { receipt: PathBuf, audit: PathBuf, science: PathBuf },
    /// `crossverify stats PATH [--science S]`.
    Stats { path: PathBuf, science: Option<PathBuf> },
}

const RECORD_FILES: [&str; 5] = [CYCLES_JSONL, CYCLES_B, SUMMARY, LIFECYCLE, ANALYSIS];

/// Whether `path` holds CrossAudit records, and which. `science` is the science repository the
/// caller gave, passed on to the command chosen.
#[must_use]
pub fn detect(path: &Path, science: Option<&Path>) -> Option<Detected> {
    let sci = |cmd: String| match science {
        Some(s) => format!("{cmd} --science {}", s.display()),
        None => cmd,
    };
    let shown = path.display();
    if path.is_file() {
        let name = path.file_name()?.to_str()?;
        if RECORD_FILES.contains(&name) {
            return Some(Detected {
                what: format!("CrossAudit ledger records ({name})"),
                command: sci(format!("crossverify stats {shown}")),
                needs: None,
                run: Verify::Stats { path: path.to_owned(), science: science.map(Path::to_path_buf) },
            });
        }
        if name == "receipt.json" || name.ends_with(".receipt.json") {
            let root = work_tree_of(path)?;
            // A paired receipt (every v1 one, a schema-2 one naming its audit repository) audits
            // another repository than the one it lives in: verifying it against its own would
            // report its genuine commits as missing, i.e. forged.
            let paired = science.is_none().then(|| paired_receipt(path)).flatten();
            let science_shown = science.map_or_else(|| "<SCIENCE>".to_owned(), |s| s.display().to_string());
            let science = science.map_or_else(|| root.clone(), Path::to_path_buf);
            let command = match &paired {
                Some(_) => format!("crossverify receipt {shown} --audit {} --science {science_shown}", root.display()),
                None if science == root => format!("crossverify receipt {shown} --science {}", root.display()),
                None => {
                    format!("crossverify receipt {shown} --audit {} --science {}", root.display(), science.display())
                }
            };
            return Some(Detected {
                what: format!("a CrossAudit receipt in the ledger repository {}", root.display()),
                command,
                needs: paired.map(|why| {
                    format!("{why}: it audits a separate science repository; give its clone with --science PATH")
                }),
                run: Verify::Receipt { receipt: path.to_owned(), audit: root, science },
            });
        }
        return None;
    }
    if !path.is_dir() {
        return None;
    }
    // A deployed ledger's `CYCLE-NNNNNN` folder is part of the ledger around it, never a
    // ledger of its own: verified alone, its findings would lack the cycles before it.
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if name.len() == 12 && name.starts_with("CYCLE-") && name[6..].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // A ledger first: records files beside it (a published `cycles.jsonl`) must not turn a
    // ledger that fails into statistics that pass (issue 46). A link is no records file: what
    // it names may lie outside what was given.
    if let Some(what) = ledger_kind(path) {
        return Some(Detected {
            what,
            command: sci(format!("crossverify ledger --audit {shown}")),
            needs: None,
            run: Verify::Ledger { audit: path.to_owned(), science: science.map(Path::to_path_buf) },
        });
    }
    let records = |f: &str| std::fs::symlink_metadata(path.join(f)).is_ok_and(|m| m.is_file());
    if [CYCLES_JSONL, CYCLES_B].iter().any(|f| records(f)) {
        return Some(Detected {
            what: "CrossAudit ledger records (mined or analysis records)".into(),
            command: sci(format!("crossverify stats {shown}")),
            needs: None,
            run: Verify::Stats { path: path.to_owned(), science: science.map(Path::to_path_buf) },
        });
    }
    None
}

/// The science commits a ledger repository's receipts bind, for pairing it with the repository
/// that holds them without running it against every candidate; empty for anything else.
#[must_use]
pub fn bound_commits(path: &Path) -> Vec<String> {
    if !path.is_dir() || !deployed::is_repository(path).unwrap_or(false) {
        return Vec::new();
    }
    load::bound_commits(&Options::new(path))
}

/// The git work tree a file lives in: the nearest directory above it holding `.git`, found on
/// the path as given first (so it reads as the user wrote it), else on its canonical form.
fn work_tree_of(file: &Path) -> Option<PathBuf> {
    let lexical = file.ancestors().skip(1).take_while(|d| !d.as_os_str().is_empty()).find(|d| d.join(".git").exists());
    match lexical {
        Some(d) => Some(d.to_owned()),
        None => file.canonicalize().ok()?.ancestors().skip(1).find(|d| d.join(".git").exists()).map(Path::to_owned),
    }
}

/// The ledger repository a receipt file on disk lives in, when that is not `science`: the git
/// work tree around it, if it holds a CrossAudit ledger. `crossverify receipt RECEIPT --science
/// S` without `--audit` verifies a paired ledger's receipt in the ledger it came from, instead of
/// looking for it in the science repository and reporting it as forged.
#[must_use]
pub fn ledger_repository_of(receipt: &Path, science: &Path) -> Option<PathBuf> {
    if !receipt.is_file() {
        return None;
    }
    let root = work_tree_of(receipt)?;
    if std::fs::canonicalize(&root).ok()? == std::fs::canonicalize(science).ok()? {
        return None;
    }
    let layouts = load::receipt_layouts(&Options::new(&root)).ok()?;
    (!layouts.is_empty()).then_some(root)
}

/// Why the receipt file at `path` audits a repository other than the one it lives in, in words;
/// `None` for a local-mode receipt or one that does not parse (the command then says why).
fn paired_receipt(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let r = crate::crossaudit::records::receipt::Receipt::parse(&bytes).ok()?;
    match (r.family, r.audit_repo) {
        (crate::crossaudit::records::receipt::Family::V1, _) => Some("a v1 reference receipt".to_owned()),
        (_, Some(repo)) if repo != "local" => Some(format!("a paired receipt (ledger.audit_repo = {repo:?})")),
        _ => None,
    }
}

/// The ledger layouts a directory or repository holds, described; `None` when it holds none.
fn ledger_kind(path: &Path) -> Option<String> {
    if deployed::is_repository(path).unwrap_or(false) {
        let layouts = load::receipt_layouts(&Options::new(path)).unwrap_or_default();
        if !layouts.is_empty() {
            return Some(format!("a CrossAudit ledger in a git repository: {}", layouts.join(" and ")));
        }
        let repo = Repo::open(path).ok()?;
        let head = repo.resolve("HEAD").ok()?;
        let dirs = deployed::cycle_dirs_git(&repo, head).ok()?;
        return (!dirs.is_empty()).then(|| {
            format!("a deployed CrossAudit ledger in a git repository ({} CYCLE-NNNNNN directories)", dirs.len())
        });
    }
    let l = deployed::load_dir(path, Ctx::silent()).ok()?;
    Some(format!("a deployed CrossAudit ledger in a plain directory ({} CYCLE-NNNNNN directories)", l.cycles.len()))
}

/// Why the detected command could not run (exit 2).
pub type RunError = Box<dyn std::error::Error + Send + Sync>;

impl Detected {
    /// Runs the detected command.
    ///
    /// # Errors
    /// As the command chosen: inputs that cannot be used (exit 2).
    pub fn run(&self, ctx: Ctx<'_>) -> Result<Report, RunError> {
        match &self.run {
            Verify::Ledger { audit, science } => {
                let mut o = Options::new(audit);
                o.science.clone_from(science);
                Ok(super::ledger::ledger(&o, ctx)?)
            }
            Verify::Receipt { receipt, audit, science } => {
                let mut o = Options::new(audit);
                o.science = Some(science.clone());
                Ok(super::ledger::receipt(&o, Some(receipt), false, ctx)?)
            }
            Verify::Stats { path, science } => {
                let opts = crate::stats::Options {
                    path,
                    rev: None,
                    claims: None,
                    science: science.as_deref(),
                    science_rev: None,
                };
                Ok(crate::stats::command(&opts, || {
                    crate::crossaudit::stats::input::read(path, None, science.as_deref(), ctx)
                })?)
            }
        }
    }
}

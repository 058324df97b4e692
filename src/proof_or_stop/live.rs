//! The live state a record is judged against: the repository at the revision, and the live
//! policy, command set and story scope, each read from a file the user names or else from the
//! repository's metadata directory at that revision.

use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::format::{self, Command, closed, int, string, strings};
use super::identity;
use crate::git::Repo;
use crate::json::{self, Value};

/// Why the live state could not be established (the run cannot decide: exit 2, never `ok`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LiveError(pub String);

impl From<crate::git::Error> for LiveError {
    fn from(e: crate::git::Error) -> Self {
        LiveError(e.to_string())
    }
}

/// Where the live configuration comes from.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// `--policy`.
    pub policy: Option<PathBuf>,
    /// `--command-set`.
    pub command_set: Option<PathBuf>,
    /// `--scope`.
    pub scope: Option<PathBuf>,
    /// A directory searched before the repository (the floor's evidence directory).
    pub dir: Option<PathBuf>,
}

/// The live policy's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Metadata roots (the two defaults are always among them).
    pub roots: Vec<String>,
    /// Round from which a high finding is advisory.
    pub high_advisory_from: i64,
    /// Round from which a medium finding is advisory.
    pub medium_advisory_from: i64,
    /// Round from which a low finding is advisory.
    pub low_advisory_from: i64,
    /// Whether an open finding without `evidenceState: verified` blocks.
    pub unverified_blocks: bool,
    /// R.
    pub rounds: i64,
    /// K.
    pub per_round: i64,
}

/// The live story scope.
#[derive(Debug, Clone)]
pub struct StoryScope {
    /// Story id.
    pub story_id: String,
    /// Base commit.
    pub base: ObjectId,
    /// Allowed path globs.
    pub allowed: Vec<String>,
}

/// Everything a record is compared with.
#[derive(Debug, Clone)]
pub struct Live {
    /// The live commit H.
    pub head: ObjectId,
    /// `sha1` or `sha256`.
    pub object_format: &'static str,
    /// `materialHash(H)`.
    pub material_hash: String,
    /// `storyFilesHash(H)` over the live scope.
    pub story_files_hash: String,
    /// `sha256(JCS(policy))`.
    pub policy_hash: String,
    /// `sha256(JCS(commandSet))`.
    pub command_set_hash: String,
    /// `sha256(JCS(scope))`.
    pub scope_hash: String,
    /// The policy.
    pub policy: Policy,
    /// The command set.
    pub commands: Vec<Command>,
    /// The scope.
    pub scope: StoryScope,
    /// Where each document was read from.
    pub read_from: Vec<(String, String)>,
}

fn read_doc(
    repo: &Repo,
    head: ObjectId,
    flag: Option<&Path>,
    dir: Option<&Path>,
    name: &str,
    in_repo: &str,
) -> Result<(Value, String), LiveError> {
    let (bytes, from) = if let Some(p) = flag {
        (read_file(p, crate::git::MAX_RECORD_BYTES).map_err(LiveError)?, p.display().to_string())
    } else if let Some(d) = dir.map(|d| d.join(name)).filter(|p| p.is_file()) {
        (read_file(&d, crate::git::MAX_RECORD_BYTES).map_err(LiveError)?, d.display().to_string())
    } else {
        match repo.file_at(head, in_repo)? {
            Some(b) => (b, format!("{in_repo} at {head}")),
            None => {
                return Err(LiveError(format!(
                    "no live {name}: pass it as a file or commit it at {in_repo} (the live state is required; a \
                     missing one is never taken as a match)"
                )));
            }
        }
    };
    let v = json::parse(&bytes).map_err(|e| LiveError(format!("{from}: {e}")))?;
    Ok((v, from))
}

/// Reads a regular file of at most `max` bytes, refusing symlinks; the error names the file.
///
/// # Errors
/// A sentence naming the file and the reason.
pub fn read_file(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let e = |m: String| format!("{}: {m}", path.display());
    let meta = std::fs::symlink_metadata(path).map_err(|x| match x.kind() {
        std::io::ErrorKind::NotFound => e("does not exist".into()),
        _ => e(x.to_string()),
    })?;
    if meta.file_type().is_symlink() {
        return Err(e("is a symbolic link; name the file itself".into()));
    }
    if !meta.is_file() {
        return Err(e("is not a regular file".into()));
    }
    // The size is checked again while reading: the file may grow after `symlink_metadata`.
    if meta.len() > max {
        return Err(e(format!("more than {max} bytes")));
    }
    crate::files::read_capped(path, usize::try_from(max).unwrap_or(usize::MAX)).map_err(|x| e(x.to_string()))
}

/// Reads the policy document.
///
/// # Errors
/// A sentence naming the member.
pub fn policy(v: &Value) -> Result<Policy, String> {
    let m = closed(v, "", &["kind", "metadataRoots", "findingGate", "reviewFloor"], &[])?;
    if string(m, "kind", "")? != "proof-or-stop/policy/v1" {
        return Err("/kind is not proof-or-stop/policy/v1".into());
    }
    let mut roots = strings(m, "metadataRoots", "")?;
    for r in identity::DEFAULT_METADATA_ROOTS {
        if !roots.iter().any(|x| x == r) {
            return Err(format!("/metadataRoots lacks {r}, which every policy excludes"));
        }
    }
    roots.sort();
    let g = closed(&m["findingGate"], "/findingGate", &["advisoryFromRound", "unverified"], &[])?;
    let a = closed(&g["advisoryFromRound"], "/findingGate/advisoryFromRound", &["high", "low", "medium"], &[])?;
    let at = "/findingGate/advisoryFromRound";
    let unverified = string(g, "unverified", "/findingGate")?;
    let f = closed(&m["reviewFloor"], "/reviewFloor", &["independentPassesPerRound", "rounds"], &[])?;
    Ok(Policy {
        roots,
        high_advisory_from: int(a, "high", at)?,
        medium_advisory_from: int(a, "medium", at)?,
        low_advisory_from: int(a, "low", at)?,
        unverified_blocks: match unverified {
            "block" => true,
            "advisory" => false,
            other => return Err(format!("/findingGate/unverified {other:?} is not block or advisory")),
        },
        rounds: int(f, "rounds", "/reviewFloor")?,
        per_round: int(f, "independentPassesPerRound", "/reviewFloor")?,
    })
}

fn scope(repo: &Repo, v: &Value) -> Result<StoryScope, String> {
    let m = closed(v, "", &["kind", "storyId", "baseSha", "allowedPaths"], &[])?;
    if string(m, "kind", "")? != "proof-or-stop/scope/v1" {
        return Err("/kind is not proof-or-stop/scope/v1".into());
    }
    let base_text = string(m, "baseSha", "")?;
    let base =
        ObjectId::from_hex(base_text.as_bytes()).map_err(|_| format!("/baseSha {base_text} is not a commit id"))?;
    if base.kind() != repo.object_hash() {
        return Err(format!(
            "/baseSha {base_text} is a {} id, but the repository's object format is {}",
            base.kind(),
            repo.object_hash()
        ));
    }
    if !repo.has(base) {
        return Err(format!("/baseSha {base_text} is not in the repository"));
    }
    Ok(StoryScope { story_id: string(m, "storyId", "")?.to_owned(), base, allowed: strings(m, "allowedPaths", "")? })
}

/// Opens `repo_path` at `rev` and reads the live configuration of `story`.
///
/// # Errors
/// [`LiveError`] when the repository, the revision or a document is unusable.
pub fn load(repo: &Repo, rev: &str, story: &str, src: &Sources) -> Result<Live, LiveError> {
    let head = repo.resolve(rev)?;
    let dir = src.dir.as_deref();
    let meta = ".proof-or-stop";
    let (pv, pfrom) = read_doc(repo, head, src.policy.as_deref(), dir, "policy.json", &format!("{meta}/policy.json"))?;
    let (cv, cfrom) =
        read_doc(repo, head, src.command_set.as_deref(), dir, "command-set.json", &format!("{meta}/command-set.json"))?;
    let scope_path = format!("{meta}/story/actives/{story}/scope.json");
    let (sv, sfrom) = read_doc(repo, head, src.scope.as_deref(), dir, "scope.json", &scope_path)?;
    let policy = policy(&pv).map_err(|e| LiveError(format!("{pfrom}: {e}")))?;
    let commands = format::command_set(&cv, "").map_err(|e| LiveError(format!("{cfrom}: {e}")))?;
    let sc = scope(repo, &sv).map_err(|e| LiveError(format!("{sfrom}: {e}")))?;
    let hash = |v: &Value, from: &str| format::doc_hash(v).map_err(|e| LiveError(format!("{from}: {e}")));
    // Side by side, each on its own handle (one shares its tree cache, not its state): the
    // story diff reads the base's versions of the directories the story changed, trees
    // `materialHash` never reads, and on a 10,000-file tree that reading alone made a
    // bundle's verification 1.65 times the time of `materialHash`.
    let shared = repo.shared();
    let (material_hash, story_files_hash) = rayon::join(
        || identity::material_hash(&shared.local(), head, &policy.roots),
        || identity::story_files_hash(&shared.local(), sc.base, head, &sc.allowed, &policy.roots),
    );
    let (material_hash, story_files_hash) = (material_hash?, story_files_hash?);
    Ok(Live {
        head,
        object_format: if head.kind() == gix::hash::Kind::Sha1 { "sha1" } else { "sha256" },
        material_hash,
        story_files_hash,
        policy_hash: hash(&pv, &pfrom)?,
        command_set_hash: hash(&cv, &cfrom)?,
        scope_hash: hash(&sv, &sfrom)?,
        policy,
        commands,
        scope: sc,
        read_from: vec![("policy".into(), pfrom), ("commandSet".into(), cfrom), ("scope".into(), sfrom)],
    })
}

//! Loading a published ledger: dialect detection, the cycle directories and their records at
//! the audit revision, and the append-only history of every ledger file.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::config::Config;
use super::receipt::Family;
use super::{dcl, report_md};
use crate::git::{self, EntryKind, ObjectId, Repo, Scope, SharedRepo};
use crate::json;
use crate::manifest::Digest;

/// Which format family to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialectChoice {
    /// Decide from what the ledger holds.
    Auto,
    /// v1 reference.
    V1,
    /// Product receipt schema 2.
    Schema2,
    /// Deployed CYCLE-NNNNNN ledger.
    Deployed,
}

/// What to verify.
#[derive(Debug, Clone)]
pub struct Options {
    /// Repository holding the ledger (the audit repository, or the science repository in the
    /// product's local mode).
    pub audit: PathBuf,
    /// Science repository; `None` means "the ledger repository itself" for the product's local
    /// mode, and no science evidence otherwise.
    pub science: Option<PathBuf>,
    /// Dialect.
    pub dialect: DialectChoice,
    /// Audit revision (default `HEAD`).
    pub audit_rev: Option<String>,
    /// A previously seen audit head that must still be an ancestor.
    pub expect_audit_head: Option<String>,
    /// Expected audited commit (receipt gate).
    pub expect_sha: Option<String>,
    /// Expected science repository name (receipt gate).
    pub expect_repo: Option<String>,
    /// Receipt identities (lower-case hex, at least 16 digits: a prefix matches) the caller's
    /// own store has already admitted: the single-use evidence the product keeps unpublished.
    pub consumed: Option<std::collections::BTreeSet<String>>,
    /// Trusted root and identity for receipts wrapped in Sigstore bundles (`--trusted-root`).
    pub sigstore: crate::anchors::sigstore::Options,
    /// Allowed-signers file: every ledger commit must be signed by a key it allows.
    pub allowed_signers: Option<PathBuf>,
    /// The persistent blob-digest cache (`--cache`); `None` hashes every blob.
    pub cache: Option<std::sync::Arc<crate::cache::Cache>>,
    /// Sharding (`--shard K/N`, `merge`): which cycles' manifests this run hashes.
    pub shard: Option<std::sync::Arc<super::shard::Plan>>,
}

impl Options {
    /// Options for `audit` with everything else defaulted.
    #[must_use]
    pub fn new(audit: &Path) -> Self {
        Options {
            audit: audit.to_owned(),
            science: None,
            dialect: DialectChoice::Auto,
            audit_rev: None,
            expect_audit_head: None,
            expect_sha: None,
            expect_repo: None,
            consumed: None,
            sigstore: crate::anchors::sigstore::Options::default(),
            allowed_signers: None,
            cache: None,
            shard: None,
        }
    }
}

/// Could not verify at all (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Repository access failed before any evidence could be read.
    #[error(transparent)]
    Git(#[from] git::Error),
    /// The inputs do not make sense together.
    #[error("{0}")]
    Usage(String),
    /// The committed ledger holds records of more than one layout, so auto-detection picks none
    /// (a copied-in folder would otherwise choose the checks). `ledger` reports it as a failed
    /// check (CV-A005): adding files never turns a failing ledger into one that "could not run".
    #[error("{}", ambiguous(.0))]
    MixedLayouts(Vec<String>),
    /// The caller interrupted the run.
    #[error(transparent)]
    Interrupted(#[from] crate::progress::Interrupted),
}

/// A record read from the ledger, or why it could not be.
pub(crate) type Read<T> = Option<Result<T, String>>;

/// One cycle directory and what it holds.
pub(crate) struct Cycle {
    /// Directory name (`9c604cba4273-r2`).
    pub name: String,
    /// Repository-relative directory path.
    pub path: String,
    /// Files directly in it.
    pub files: BTreeMap<String, (EntryKind, ObjectId)>,
    /// Blob of `receipt.json` when it is a regular file. Receipts are parsed during
    /// verification, one per worker, and dropped after: a ledger of a thousand receipts binding
    /// ten thousand files each never sits in memory at once.
    pub receipt_blob: Option<ObjectId>,
    pub report: Option<(Digest, report_md::Report)>,
    pub dcl: Read<dcl::Output>,
    pub exchange: Read<json::Value>,
    /// Commit that added `receipt.json` and its position in the audit history.
    pub added_in: Option<(ObjectId, usize)>,
    /// Commit that added `report.md`.
    pub report_added_in: Option<ObjectId>,
    /// The bytes of the receipt a caller gave, verified instead of the committed blob.
    pub receipt_given: Option<Vec<u8>>,
    /// The receipt is not committed in the ledger (CV-A715).
    pub unrecorded: bool,
}

impl Cycle {
    pub(crate) fn file(&self, name: &str) -> String {
        format!("{}/{name}", self.path)
    }
}

impl Ledger {
    /// For a schema-2 cycle directory holding `report.md` but no `receipt.json` — the product's
    /// run and audit verbs commit the report before the receipt (the receipt binds the report's
    /// commit), so an interruption between the two commits leaves exactly this — the later
    /// attempt of the same round (`<sha12>-r<n>.<k>`) that does hold a receipt, if any.
    pub(crate) fn interrupted_attempt(&self, cycle: &Cycle) -> Option<Interrupted<'_>> {
        let file = |c: &Cycle, f: &str| c.files.get(f).is_some_and(|(k, _)| k.is_file());
        if self.family != Family::Schema2 || file(cycle, "receipt.json") || !file(cycle, "report.md") {
            return None;
        }
        let base = attempt_base(&cycle.name);
        let later = self
            .cycles
            .iter()
            .filter(|c| attempt_base(&c.name) == base && attempt_number(&c.name) > attempt_number(&cycle.name))
            .find(|c| file(c, "receipt.json"))
            .map(|c| c.path.as_str());
        Some(Interrupted { superseded_by: later })
    }
}

/// An interrupted attempt of a round (see [`Ledger::interrupted_attempt`]).
pub(crate) struct Interrupted<'a> {
    /// The later attempt of the same round that completed, if any.
    pub superseded_by: Option<&'a str>,
}

/// `<sha12>-r<n>` of `<sha12>-r<n>.<k>`.
fn attempt_base(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, k)) if k.parse::<u32>().is_ok() => base,
        _ => name,
    }
}

/// `k` of `<sha12>-r<n>.<k>`; the first attempt has no suffix and counts as 1.
fn attempt_number(name: &str) -> u32 {
    name.rsplit_once('.').and_then(|(_, k)| k.parse().ok()).unwrap_or(1)
}

/// Append-only facts about the ledger directory.
pub(crate) struct History {
    /// Path → (commit that added it, its blob then).
    pub added: BTreeMap<String, (ObjectId, ObjectId)>,
    /// Commit id → topological position (0 = oldest).
    pub position: HashMap<ObjectId, usize>,
    /// (commit, its tree) in topological order, oldest first: later walks reuse this one.
    pub commits: Vec<(ObjectId, ObjectId)>,
    /// (path, commit that added it, commit that changed it, "modified"/"deleted"/"truncated").
    pub violations: Vec<(String, ObjectId, ObjectId, &'static str)>,
}

/// A loaded ledger.
pub(crate) struct Ledger {
    /// Handles for any thread (`local()` gives one to the current thread).
    pub audit: SharedRepo,
    pub audit_head: ObjectId,
    pub family: Family,
    /// The family was detected (no `--dialect`): the ledger was found to hold one layout.
    pub detected: bool,
    pub ledger_dir: String,
    pub science: Option<SharedRepo>,
    /// The science repository is the ledger repository (product local mode).
    pub local: bool,
    pub cycles: Vec<Cycle>,
    /// Ledger-dir entries that are not cycle directories.
    pub strays: Vec<String>,
    pub history: Result<History, String>,
    /// v1 `controller/state.json` at the audit head.
    pub state: Read<json::Value>,
    /// Every version of v1 `controller/state.json` in the audit history (oldest first, each
    /// with the commit that wrote it): single use is read from all of them, so an admission
    /// recorded once cannot be undone by a later commit. Empty without the full history.
    pub state_history: Vec<(ObjectId, Result<json::Value, String>)>,
    /// `disputes.jsonl` lines at the head.
    pub disputes: Read<Vec<json::Value>>,
}

const V1_FILES: [&str; 4] = ["report.md", "checks.json", "raw_exchange.json", "receipt.json"];
const S2_FILES: [&str; 3] = ["report.md", "checks.json", "receipt.json"];
const S2_LEDGER_FILES: [&str; 3] = ["README.md", "disputes.jsonl", "routing.jsonl"];

/// Files a cycle directory of `family` holds.
pub(crate) fn artefacts(family: Family) -> &'static [&'static str] {
    match family {
        Family::V1 => &V1_FILES,
        Family::Schema2 => &S2_FILES,
    }
}

fn read_json(repo: &Repo, id: ObjectId, path: &str) -> Result<json::Value, String> {
    let bytes = repo.record(id, path).map_err(|e| e.to_string())?;
    json::parse(&bytes).map_err(|e| format!("{path}: {e}"))
}

/// Opens the repositories and reads the ledger.
pub(crate) fn load(opts: &Options) -> Result<Ledger, Error> {
    let audit = Repo::open(&opts.audit)?.with_delta_cache(DELTA_CACHE);
    let rev = opts.audit_rev.as_deref().unwrap_or("HEAD");
    let audit_head = audit.resolve(rev)?;
    let head_tree = audit.commit(audit_head)?.tree;
    let head_config = audit.file_at(audit_head, "crossaudit.yml")?.map(|bytes| {
        std::str::from_utf8(&bytes)
            .map_err(|_| "crossaudit.yml: not UTF-8".to_owned())
            .and_then(|t| Config::parse(t).map_err(|e| format!("crossaudit.yml: {e}")))
    });
    let ledger_dir = match &head_config {
        Some(Ok(c)) if c.keys.iter().any(|k| k == "ledger" || k == "science_repo") => {
            c.ledger_dir().trim_matches('/').to_owned()
        }
        _ => "cycles".to_owned(),
    };
    if opts.dialect == DialectChoice::Deployed {
        return Err(Error::Usage(
            "the deployed dialect is verified by `crossverify ledger --dialect deployed` through the deployed module"
                .into(),
        ));
    }
    let entries = audit.walk(head_tree, &Scope::new([ledger_dir.as_str()]))?;
    let mut dirs: BTreeMap<String, BTreeMap<String, (EntryKind, ObjectId)>> = BTreeMap::new();
    let mut strays = Vec::new();
    let mut loose: BTreeMap<String, ObjectId> = BTreeMap::new();
    for e in &entries {
        let path = git::display_path(e.path.as_bstr());
        let rel = path.strip_prefix(&format!("{ledger_dir}/")).unwrap_or(&path).to_owned();
        match rel.split_once('/') {
            Some((dir, file)) if !file.contains('/') => {
                dirs.entry(dir.to_owned()).or_default().insert(file.to_owned(), (e.kind, e.id));
            }
            Some(_) => strays.push(path),
            None => {
                loose.insert(rel, e.id);
            }
        }
    }
    let family = decide_family(opts, &audit, audit_head, &ledger_dir, &dirs)?;
    for name in loose.keys() {
        if family == Family::V1 || !S2_LEDGER_FILES.contains(&name.as_str()) {
            strays.push(format!("{ledger_dir}/{name}"));
        }
    }
    let history = history(&audit, audit_head, &ledger_dir, opts.cache.as_deref());
    let mut cycles = Vec::new();
    for (name, files) in dirs {
        let path = format!("{ledger_dir}/{name}");
        let read = |file: &str| -> Option<ObjectId> { files.get(file).filter(|(k, _)| k.is_file()).map(|(_, id)| *id) };
        let receipt_blob = read("receipt.json");
        let report = match read("report.md") {
            Some(id) => match audit.record(id, &format!("{path}/report.md")) {
                Ok(bytes) => Some((Digest::of(&bytes), report_md::parse(&String::from_utf8_lossy(&bytes)))),
                Err(_) => None,
            },
            None => None,
        };
        let dcl = read("checks.json").map(|id| {
            let p = format!("{path}/checks.json");
            read_json(&audit, id, &p).and_then(|v| dcl::parse(&v).map_err(|e| format!("{p}: {e}")))
        });
        let exchange = read("raw_exchange.json").map(|id| read_json(&audit, id, &format!("{path}/raw_exchange.json")));
        let (added_in, report_added_in) = match &history {
            Ok(h) => {
                let a = h
                    .added
                    .get(&format!("{path}/receipt.json"))
                    .map(|(c, _)| (*c, h.position.get(c).copied().unwrap_or(0)));
                (a, h.added.get(&format!("{path}/report.md")).map(|(c, _)| *c))
            }
            Err(_) => (None, None),
        };
        cycles.push(Cycle {
            name,
            path,
            files,
            receipt_blob,
            report,
            dcl,
            exchange,
            added_in,
            report_added_in,
            receipt_given: None,
            unrecorded: false,
        });
    }
    // Ledger order: the order receipts entered the history, then directory name.
    cycles.sort_by(|a, b| {
        (a.added_in.map_or(usize::MAX, |x| x.1), &a.name).cmp(&(b.added_in.map_or(usize::MAX, |x| x.1), &b.name))
    });
    let state = match audit.entry(head_tree, "controller/state.json".into())? {
        Some(e) if e.kind.is_file() => Some(read_json(&audit, e.id, "controller/state.json")),
        _ => None,
    };
    let state_history = if family == Family::V1 { state_history(&audit, &history) } else { Vec::new() };
    let disputes = loose.get("disputes.jsonl").map(|id| {
        let p = format!("{ledger_dir}/disputes.jsonl");
        let bytes = audit.record(*id, &p).map_err(|e| e.to_string())?;
        bytes
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| json::parse(l).map_err(|e| format!("{p} line {}: {e}", n + 1)))
            .collect()
    });
    let (science, local) = match &opts.science {
        Some(p) => {
            let same = std::fs::canonicalize(p).ok() == std::fs::canonicalize(&opts.audit).ok();
            (Some(Repo::open(p)?.shared().with_tree_cache().with_delta_cache(SCIENCE_DELTA_CACHE)), same)
        }
        None if family == Family::Schema2 => {
            // Local mode keeps the ledger inside the science repository; a paired receipt names
            // a separate one, and verifying it against the ledger repository would report every
            // audited commit as missing, i.e. as forged.
            let paired = cycles.iter().filter_map(|c| c.receipt_blob).take(16).find_map(|id| {
                let r = audit.record(id, "receipt.json").ok().and_then(|b| super::receipt::Receipt::parse(&b).ok())?;
                r.audit_repo.filter(|a| a != "local")
            });
            if let Some(repo) = paired {
                return Err(Error::Usage(format!(
                    "the receipts in {} are paired (ledger.audit_repo = {repo:?}): the science repository is a \
                     separate one; give it with --science PATH",
                    opts.audit.display()
                )));
            }
            (Some(audit.shared().with_tree_cache().with_delta_cache(SCIENCE_DELTA_CACHE)), true)
        }
        None => (None, false),
    };
    Ok(Ledger {
        audit: audit.shared().with_tree_cache().with_delta_cache(DELTA_CACHE),
        audit_head,
        family,
        detected: opts.dialect == DialectChoice::Auto,
        ledger_dir,
        science,
        local,
        cycles,
        strays,
        history,
        state,
        state_history,
        disputes,
    })
}

/// Decides the family from the receipts present (or the directory names when there are none).
/// A marker key is enough to vote; every receipt is parsed in full during verification, and
/// one of the other family fails there. Auto-detection refuses a ledger that holds more than
/// one layout: picking the majority, or the receipt-less deployed layout, would let a copied-in
/// folder choose which checks a tampered ledger meets.
fn decide_family(
    opts: &Options,
    audit: &Repo,
    head: ObjectId,
    ledger_dir: &str,
    dirs: &BTreeMap<String, BTreeMap<String, (EntryKind, ObjectId)>>,
) -> Result<Family, Error> {
    let mut votes: BTreeMap<Family, Vec<&str>> = BTreeMap::new();
    for (dir, files) in dirs.iter().take(DETECTION_READS) {
        if let Some((EntryKind::File | EntryKind::Executable, id)) = files.get("receipt.json")
            && let Some(family) = receipt_marker(audit, *id, opts.cache.as_deref())
        {
            votes.entry(family).or_default().push(dir);
        }
    }
    let forced = match opts.dialect {
        DialectChoice::V1 => Some(Family::V1),
        DialectChoice::Schema2 | DialectChoice::Deployed => Some(Family::Schema2),
        DialectChoice::Auto => None,
    };
    if let Some(family) = forced {
        // A forced dialect whose layout is absent while another's is present is the operator's
        // typo, not the author's forgery: every receipt would fail to parse as the wrong family.
        if !votes.is_empty() && !votes.contains_key(&family) {
            let (other, dirs) = votes.iter().next().expect("votes is not empty");
            return Err(Error::Usage(format!(
                "--dialect {} does not match this ledger: it holds no {} receipts but {} {} receipts (e.g. \
                 {ledger_dir}/{}/receipt.json); drop --dialect to detect the layout, or give --dialect {}",
                family.as_str(),
                family.as_str(),
                dirs.len(),
                other.as_str(),
                dirs[0],
                other.as_str()
            )));
        }
        return Ok(family);
    }
    let mut layouts: Vec<String> = votes
        .iter()
        .map(|(f, d)| format!("{} receipts ({}, e.g. {ledger_dir}/{}/receipt.json)", f.as_str(), d.len(), d[0]))
        .collect();
    if !votes.is_empty() {
        let deployed = super::deployed::cycle_dirs_git(audit, head).unwrap_or_default();
        if let Some(first) = deployed.first() {
            layouts.push(format!("deployed CYCLE-NNNNNN directories ({}, e.g. {first})", deployed.len()));
        }
    }
    if layouts.len() > 1 {
        return Err(Error::MixedLayouts(layouts));
    }
    Ok(votes.keys().next().copied().unwrap_or_else(|| {
        let v1ish = dirs.keys().any(|d| d.get(..40).is_some_and(|p| p.bytes().all(|b| b.is_ascii_hexdigit())));
        if v1ish { Family::V1 } else { Family::Schema2 }
    }))
}

/// Whether the ledger at `opts` holds receipt-bearing cycle directories (v1 or schema 2), for
/// auto-detection's refusal of mixed layouts when the deployed layout is present too.
pub(crate) fn receipt_layouts(opts: &Options) -> Result<Vec<String>, Error> {
    let audit = Repo::open(&opts.audit)?;
    let head = audit.resolve(opts.audit_rev.as_deref().unwrap_or("HEAD"))?;
    let tree = audit.commit(head)?.tree;
    let config = audit.file_at(head, "crossaudit.yml")?;
    let dir = config
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|t| Config::parse(&t).ok())
        .filter(|c| c.keys.iter().any(|k| k == "ledger" || k == "science_repo"))
        .map_or_else(|| "cycles".to_owned(), |c| c.ledger_dir().trim_matches('/').to_owned());
    let mut found = BTreeMap::new();
    let receipts = audit.walk(tree, &Scope::new([dir.as_str()]))?.into_iter().filter(|e| e.kind.is_file());
    for e in receipts.filter(|e| e.path.ends_with(b"/receipt.json")).take(DETECTION_READS) {
        let path = git::display_path(e.path.as_bstr());
        if let Some(family) = audit.record(e.id, &path).ok().and_then(|b| marker_family(&b)) {
            found.entry(family).or_insert_with(|| (0, path.clone())).0 += 1;
        }
    }
    Ok(found.iter().map(|(f, (n, p))| format!("{} receipts ({n}, e.g. {p})", f.as_str())).collect())
}

/// How many receipts auto-detection reads; a receipt of the other family further on fails its
/// own cycle's parse (CV-A002) instead of being refused here.
const DETECTION_READS: usize = 64;

/// Resolved delta bases kept per repository handle. Reading the 1,000 receipts of the bench
/// ledger (1.16 GB, stored as deltas of one another) took 6.1 s with 8 MB, 4.4 s with 16 MB,
/// 2.6 s with 32 MB and 1.6 s with 64 MB on one thread (git cat-file: 3.1 s), without the
/// cache 7.8 s; the handles are few (one per worker), so the cap is the memory it costs.
const DELTA_CACHE: usize = 64 << 20;

/// The science side reads each blob once and its trees through the tree cache: a small delta
/// cache serves the chains of tree versions.
const SCIENCE_DELTA_CACHE: usize = 16 << 20;

/// The family a receipt's bytes declare by their marker key. A marker is enough to vote: every
/// receipt is parsed in full during verification.
/// [`marker_family`] of a committed receipt: a function of its blob id, so kept in the
/// persistent cache (reading a receipt of 10,000 bound files is a megabyte to inflate, and
/// detection reads up to 64 of them every run).
fn receipt_marker(audit: &Repo, id: ObjectId, cache: Option<&crate::cache::Cache>) -> Option<Family> {
    let key = [b"receipt-family/".as_slice(), id.as_bytes()].concat();
    let decode = |p: &[u8]| match p {
        b"v1" => Some(Some(Family::V1)),
        b"schema2" => Some(Some(Family::Schema2)),
        b"none" => Some(None),
        _ => None,
    };
    let encode = |f: &Option<Family>| f.map_or("none", Family::as_str).as_bytes().to_vec();
    // An unreadable blob may be readable after a fetch: only what was read is kept.
    let read = || audit.record(id, "receipt.json").map(|b| marker_family(&b));
    // The family stands for the receipt's bytes: it is not answered once they are gone.
    crate::cache::through(cache, &key, decode, encode, |_| audit.has(id), read).ok().flatten()
}

fn marker_family(bytes: &[u8]) -> Option<Family> {
    let has = |key: &[u8]| bytes.windows(key.len()).any(|w| w == key);
    if has(b"\"receipt_schema\"") {
        Some(Family::Schema2)
    } else if has(b"\"constitution_hash\"") {
        Some(Family::V1)
    } else {
        None
    }
}

/// The refusal of a ledger holding several layouts.
pub(crate) fn ambiguous(layouts: &[String]) -> String {
    format!(
        "ambiguous ledger: it holds {}; auto-detection will not pick one, since a copied-in folder \
         would then choose the checks; name the layout with --dialect v1|schema2|deployed",
        layouts.join(" and ")
    )
}

/// Walks the audit history and records, for every file under the ledger directory, the commit
/// that added it; any later modification or deletion is a violation (append-only JSON Lines
/// files may grow but never change what they held).
pub(crate) fn history(
    repo: &Repo,
    head: ObjectId,
    ledger_dir: &str,
    cache: Option<&crate::cache::Cache>,
) -> Result<History, String> {
    repo.require_full_history().map_err(|e| e.to_string())?;
    let commits = repo.history(head).map_err(|e| e.to_string())?;
    let mut h = History {
        added: BTreeMap::new(),
        position: HashMap::new(),
        commits: commits.iter().map(|c| (c.id, c.tree)).collect(),
        violations: Vec::new(),
    };
    let mut subtree_of: HashMap<ObjectId, Option<ObjectId>> = HashMap::new();
    let sub = |repo: &Repo,
               tree: ObjectId,
               cache: &mut HashMap<ObjectId, Option<ObjectId>>|
     -> Result<Option<ObjectId>, String> {
        if let Some(s) = cache.get(&tree) {
            return Ok(*s);
        }
        let s = repo
            .entry(tree, ledger_dir.into())
            .map_err(|e| e.to_string())?
            .filter(|e| e.kind == EntryKind::Tree)
            .map(|e| e.id);
        cache.insert(tree, s);
        Ok(s)
    };
    let trees: HashMap<ObjectId, ObjectId> = commits.iter().map(|c| (c.id, c.tree)).collect();
    // Diffed newest first: git stores each version of the ledger's trees as a delta of the
    // next one, so with the delta cache every tree read costs one delta, not a whole chain.
    let mut changes = vec![Vec::new(); commits.len()];
    for (pos, c) in commits.iter().enumerate().rev() {
        let new = sub(repo, c.tree, &mut subtree_of)?;
        let old = match c.parents.first().and_then(|p| trees.get(p)) {
            Some(t) => sub(repo, *t, &mut subtree_of)?,
            None => None,
        };
        changes[pos] = diff_cached(repo, old, new, cache)?;
    }
    for ((pos, c), changed) in commits.iter().enumerate().zip(changes) {
        h.position.insert(c.id, pos);
        for ch in changed {
            let path = format!("{ledger_dir}/{}", git::display_path(ch.path.as_bstr()));
            match (&ch.new, h.added.get(&path)) {
                (Some((_, id)), None) => {
                    h.added.insert(path, (c.id, *id));
                }
                (Some((_, id)), Some((first, blob))) if id != blob => {
                    let kind =
                        if path.ends_with(".jsonl") && grows(repo, *blob, *id) { None } else { Some("modified") };
                    match kind {
                        Some(k) => h.violations.push((path.clone(), *first, c.id, k)),
                        None => {
                            let first = *first;
                            h.added.insert(path, (first, *id));
                        }
                    }
                }
                (None, Some((first, _))) => h.violations.push((path, *first, c.id, "deleted")),
                _ => {}
            }
        }
    }
    Ok(h)
}

/// `repo.diff(old, new)`, kept in the persistent cache: the changes between two trees are a
/// function of their ids, and a ledger's history is thousands of such pairs, each a tree of
/// every cycle directory to decode twice. The entry also lists the trees the diff read (the
/// two roots and every directory above a change, on either side): it is used only while the
/// repository still holds them all, since a diff computed today would fail without them.
fn diff_cached(
    repo: &Repo,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    cache: Option<&crate::cache::Cache>,
) -> Result<Vec<git::Change>, String> {
    if old == new {
        return Ok(Vec::new());
    }
    let id = |t: Option<ObjectId>| t.map(|i| i.to_string()).unwrap_or_default();
    let key = format!("tree-diff/{}..{}", id(old), id(new)).into_bytes();
    let compute = || -> Result<ReadDiff, String> {
        let changes = repo.diff(old, new).map_err(|e| e.to_string())?;
        let trees = trees_read(repo, old, new, &changes)?;
        Ok(ReadDiff { trees, changes })
    };
    let held = |d: &ReadDiff| d.trees.iter().all(|t| repo.has(*t));
    crate::cache::through(cache, &key, decode_changes, encode_changes, held, compute).map(|d| d.changes)
}

/// A tree diff with the trees it was computed from.
#[derive(Debug, PartialEq)]
struct ReadDiff {
    trees: Vec<ObjectId>,
    changes: Vec<git::Change>,
}

/// The trees [`Repo::diff`] descends into for `changes`: the roots and, on each side, every
/// directory above a changed path (the diff reads only subtrees whose ids differ, and each such
/// subtree holds a change).
fn trees_read(
    repo: &Repo,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    changes: &[git::Change],
) -> Result<Vec<ObjectId>, String> {
    let mut dirs = std::collections::BTreeSet::new();
    for c in changes {
        let mut at = c.path.len();
        while let Some(slash) = c.path[..at].iter().rposition(|b| *b == b'/') {
            if !dirs.insert(c.path[..slash].to_vec()) {
                break;
            }
            at = slash;
        }
    }
    let mut trees: std::collections::BTreeSet<ObjectId> = old.into_iter().chain(new).collect();
    for root in old.into_iter().chain(new) {
        for dir in &dirs {
            if let Some(e) = repo.entry(root, dir.as_bstr()).map_err(|e| e.to_string())?
                && e.kind == EntryKind::Tree
            {
                trees.insert(e.id);
            }
        }
    }
    Ok(trees.into_iter().collect())
}

type Side = Option<(String, String)>;

/// The stored form: the trees read, then the changes.
type Stored = (Vec<String>, Vec<(Vec<u8>, Side, Side)>);

fn encode_changes(d: &ReadDiff) -> Vec<u8> {
    let side = |s: &Option<(EntryKind, ObjectId)>| -> Side { s.map(|(k, i)| (format!("{k:?}"), i.to_string())) };
    let rows: Vec<(&[u8], Side, Side)> =
        d.changes.iter().map(|c| (c.path.as_slice(), side(&c.old), side(&c.new))).collect();
    let trees: Vec<String> = d.trees.iter().map(ToString::to_string).collect();
    serde_json::to_vec(&(trees, rows)).unwrap_or_default()
}

/// Whether `data` reads as a stored tree diff (the fuzz target's entry point).
#[cfg(feature = "fuzzing")]
pub(crate) fn read_changes_payload(data: &[u8]) -> bool {
    decode_changes(data).is_some()
}

fn decode_changes(bytes: &[u8]) -> Option<ReadDiff> {
    let (trees, rows): Stored = serde_json::from_slice(bytes).ok()?;
    let trees = trees.iter().map(|t| ObjectId::from_hex(t.as_bytes()).ok()).collect::<Option<Vec<_>>>()?;
    let side = |s: Side| -> Option<Option<(EntryKind, ObjectId)>> {
        let Some((k, i)) = s else { return Some(None) };
        let kind = match k.as_str() {
            "File" => EntryKind::File,
            "Executable" => EntryKind::Executable,
            "Symlink" => EntryKind::Symlink,
            "Submodule" => EntryKind::Submodule,
            "Tree" => EntryKind::Tree,
            _ => return None,
        };
        Some(Some((kind, ObjectId::from_hex(i.as_bytes()).ok()?)))
    };
    let changes = rows
        .into_iter()
        .map(|(p, o, n)| Some(git::Change { path: p.into(), old: side(o)?, new: side(n)? }))
        .collect::<Option<Vec<_>>>()?;
    Some(ReadDiff { trees, changes })
}

/// The versions of `controller/state.json` along the audit history, oldest first; a version is
/// listed once, at the first commit (in topological order) that holds it.
fn state_history(repo: &Repo, history: &Result<History, String>) -> Vec<(ObjectId, Result<json::Value, String>)> {
    const PATH: &str = "controller/state.json";
    let Ok(h) = history else { return Vec::new() };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for &(commit, tree) in &h.commits {
        let Ok(Some(e)) = repo.entry(tree, PATH.into()) else { continue };
        if e.kind.is_file() && seen.insert(e.id) {
            out.push((commit, read_json(repo, e.id, PATH)));
        }
    }
    out
}

/// Whether the blob `new` starts with the whole of blob `old` (an append).
fn grows(repo: &Repo, old: ObjectId, new: ObjectId) -> bool {
    match (repo.blob(old), repo.blob(new)) {
        (Ok(a), Ok(b)) => b.starts_with(&a),
        _ => false,
    }
}

/// A cycle directory that exists only on disk: what the product's `audit` leaves without
/// `--write-ledger` (`report.md`, `checks.json`, `receipt.json`, uncommitted). `path` is the
/// ledger path the receipt belongs at; `receipt` the bytes given.
pub(crate) fn disk_cycle(dir: &Path, path: String, receipt: Vec<u8>) -> Cycle {
    let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
    let read = |f: &str| std::fs::read(dir.join(f)).ok();
    let mut files = BTreeMap::new();
    // No blob exists for an uncommitted file; the null id marks it present, and nothing reads
    // a cycle's files through these ids (the records below are read now).
    let null = ObjectId::null(gix::hash::Kind::Sha1);
    for f in ["report.md", "checks.json", "raw_exchange.json", "receipt.json"] {
        if dir.join(f).is_file() {
            files.insert(f.to_owned(), (EntryKind::File, null));
        }
    }
    let report = read("report.md").map(|b| (Digest::of(&b), report_md::parse(&String::from_utf8_lossy(&b))));
    let parse_json = |f: &str| read(f).map(|b| json::parse(&b).map_err(|e| format!("{}: {e}", dir.join(f).display())));
    let dcl = parse_json("checks.json")
        .map(|r| r.and_then(|v| dcl::parse(&v).map_err(|e| format!("{}: {e}", dir.join("checks.json").display()))));
    let exchange = parse_json("raw_exchange.json");
    Cycle {
        name,
        path,
        files,
        receipt_blob: None,
        report,
        dcl,
        exchange,
        added_in: None,
        report_added_in: None,
        receipt_given: Some(receipt),
        unrecorded: true,
    }
}

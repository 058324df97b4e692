//! Reading a published ledger: dialect detection, the cycle directories and their records at
//! the audit revision.

use crate::crossaudit::records::config::Config;
use crate::crossaudit::records::dcl;
use crate::crossaudit::records::receipt::Family;
use crate::crossaudit::records::report_md;
use crate::git::{self, EntryKind, ObjectId, Repo, Scope, SharedRepo};
use crate::json;
use crate::manifest::Digest;
use gix::bstr::ByteSlice;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

use super::history::{history_from, state_history, walk};
use super::ledger::{Cycle, History, Ledger, S2_LEDGER_FILES, read_json};
use super::options::{DialectChoice, Error, Options};

/// Opens the repositories and reads the ledger.
pub(crate) fn load(opts: &Options) -> Result<Ledger, Error> {
    load_with(opts, true)
}

/// The science commits the receipts at the audit head bind (hex, in ledger order, each once),
/// read without the science repository: what a journal's intake pairs the ledger by, so that
/// it opens each candidate repository once instead of running the ledger against each
/// (`specs/intake.md`, "Pairing"). Empty when the ledger cannot be read.
pub(crate) fn bound_commits(opts: &Options) -> Vec<String> {
    let Ok(ledger) = load_with(opts, false) else { return Vec::new() };
    let audit = ledger.audit.local();
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for c in &ledger.cycles {
        let Some(blob) = c.receipt_blob else { continue };
        let Ok(bytes) = audit.record(blob, &c.file("receipt.json")) else { continue };
        let Ok(r) = crate::crossaudit::records::receipt::Receipt::parse(&bytes) else { continue };
        if let Some(sha) = r.sha
            && seen.insert(sha.clone())
        {
            out.push(sha);
        }
    }
    out
}

/// [`load`], opening the science repository only when `science` is set.
fn load_with(opts: &Options, science: bool) -> Result<Ledger, Error> {
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
    let shared = audit.shared().with_delta_cache(DELTA_CACHE);
    let (family, history) = family_and_history(opts, &shared, audit_head, &ledger_dir, &dirs);
    let family = family?;
    for name in loose.keys() {
        if family == Family::V1 || !S2_LEDGER_FILES.contains(&name.as_str()) {
            strays.push(format!("{ledger_dir}/{name}"));
        }
    }
    // Each cycle's report is read, hashed and parsed on every core (the bench ledger's 1,000:
    // 7.9-8.3 ms on one core, 5.3-5.5 ms on two).
    let mut cycles: Vec<Cycle> = dirs
        .into_par_iter()
        .map_init(|| shared.local(), |repo, (name, files)| read_cycle(repo, &history, &ledger_dir, name, files))
        .collect();
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
    let (science, local) = if science { science_repo(opts, &audit, family, &cycles)? } else { (None, false) };
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

/// One cycle directory's records at the audit head, and the commits that added its receipt and
/// report.
fn read_cycle(
    audit: &Repo,
    history: &Result<History, String>,
    ledger_dir: &str,
    name: String,
    files: BTreeMap<String, (EntryKind, ObjectId)>,
) -> Cycle {
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
        read_json(audit, id, &p).and_then(|v| dcl::parse(&v).map_err(|e| format!("{p}: {e}")))
    });
    let exchange = read("raw_exchange.json").map(|id| read_json(audit, id, &format!("{path}/raw_exchange.json")));
    let (added_in, report_added_in) = match history {
        Ok(h) => {
            let a = h
                .added
                .get(&format!("{path}/receipt.json"))
                .map(|(c, _)| (*c, h.position.get(c).copied().unwrap_or(0)));
            (a, h.added.get(&format!("{path}/report.md")).map(|(c, _)| *c))
        }
        Err(_) => (None, None),
    };
    Cycle {
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
    }
}

/// Takes the science repository's seal while the ledger is read: it hashes every pack (the
/// bench ledger's 120 MB: 21 ms on 2 cores), and neither the history nor the detection uses
/// the science repository, while each leaves a core idle part of the time. A repository that
/// does not open is left to [`science_repo`] to report.
fn seal_science_ahead(opts: &Options) {
    if let (Some(cache), Some(p)) = (opts.cache.as_deref(), &opts.science)
        && let Ok(repo) = Repo::open(p)
    {
        crate::manifest::sealed(cache, &repo);
    }
}

/// The science repository to verify against, and whether it is the ledger repository itself
/// (product local mode).
fn science_repo(
    opts: &Options,
    audit: &Repo,
    family: Family,
    cycles: &[Cycle],
) -> Result<(Option<SharedRepo>, bool), Error> {
    Ok(match &opts.science {
        Some(p) => {
            let same = std::fs::canonicalize(p).ok() == std::fs::canonicalize(&opts.audit).ok();
            // The audit repository given as the science one: every audited commit would be
            // reported missing, i.e. forged, for the caller's mix-up of two paths.
            if same && let Some(why) = paired(audit, family, cycles) {
                return Err(Error::Usage(format!(
                    "--science {} is the ledger repository itself, but {}: the science repository is a \
                     separate one; give its clone with --science PATH",
                    p.display(),
                    why.words(&opts.audit)
                )));
            }
            (Some(Repo::open(p)?.shared().with_tree_cache().with_delta_cache(SCIENCE_DELTA_CACHE)), same)
        }
        None if family == Family::Schema2 => {
            // Local mode keeps the ledger inside the science repository; a paired receipt names
            // a separate one, and verifying it against the ledger repository would report every
            // audited commit as missing, i.e. as forged.
            if let Some(why) = paired(audit, family, cycles) {
                return Err(Error::Usage(format!(
                    "{}: the science repository is a separate one; give it with --science PATH",
                    why.words(&opts.audit)
                )));
            }
            (Some(audit.shared().with_tree_cache().with_delta_cache(SCIENCE_DELTA_CACHE)), true)
        }
        None => (None, false),
    })
}

/// Why a ledger's receipts audit a science repository other than the ledger's own.
enum Paired {
    /// A v1 reference ledger: always kept apart from the science.
    V1,
    /// Schema-2 receipts naming their audit repository (`ledger.audit_repo`).
    AuditRepo(String),
}

impl Paired {
    fn words(&self, ledger: &Path) -> String {
        match self {
            Paired::V1 => {
                format!("the ledger in {} is a v1 reference ledger, kept apart from the science", ledger.display())
            }
            Paired::AuditRepo(repo) => {
                format!("the receipts in {} are paired (ledger.audit_repo = {repo:?})", ledger.display())
            }
        }
    }
}

/// Whether the ledger's receipts audit a science repository other than the ledger's own;
/// `None` for the product's local mode, where the ledger lives inside the science repository.
fn paired(audit: &Repo, family: Family, cycles: &[Cycle]) -> Option<Paired> {
    if family == Family::V1 {
        return Some(Paired::V1);
    }
    cycles.iter().filter_map(|c| c.receipt_blob).take(16).find_map(|id| {
        let r = audit
            .record(id, "receipt.json")
            .ok()
            .and_then(|b| crate::crossaudit::records::receipt::Receipt::parse_identity(&b).ok())?;
        r.audit_repo.filter(|a| a != "local").map(Paired::AuditRepo)
    })
}

/// The ledger's family (detected from its receipts) and its history, read together, with the
/// seals both consult taken once.
fn family_and_history(
    opts: &Options,
    shared: &crate::git::SharedRepo,
    audit_head: ObjectId,
    ledger_dir: &str,
    dirs: &BTreeMap<String, BTreeMap<String, (EntryKind, ObjectId)>>,
) -> (Result<Family, Error>, Result<History, String>) {
    // The seal is taken here, once, before the jobs that consult it (detection and the tree
    // diffs), so that they do not each compute it (a fact asked before it is stored is
    // computed by every asker). It waits for the cache to open; the history's commits and the
    // ledger's tree in each, which need no cache, are read meanwhile (the 1,000 x 2,000 bench
    // ledger's re-verification had its family and history 41 ms after starting, now 33.5:
    // `benches/README.md`, the twelfth pass).
    let history_repo = shared.clone().with_tree_cache();
    let (audit_sealed, walked) = rayon::join(
        || opts.cache.as_deref().is_some_and(|cache| crate::manifest::sealed(cache, &shared.local())),
        || walk(&history_repo.local(), audit_head, ledger_dir),
    );
    // Detection reads 64 receipts and the history's diffs decode every version of the ledger
    // directory: neither needs the other, and each took a quarter of a second on one core
    // before the receipts' verification could start (1,000 cycles). The diffs read each
    // version of the directory of cycles as the new side of one diff and the old side of the
    // next, and once more to list the trees the diff read: the bounded tree cache decodes it
    // once instead of four times (2,000 cycles: 0.9 s on one core).
    let ((family, history), ()) = rayon::join(
        || {
            rayon::join(
                || decide_family(opts, &shared.local(), audit_head, ledger_dir, dirs),
                || walked.and_then(|w| history_from(&history_repo.local(), w, ledger_dir, opts.cache.as_deref())),
            )
        },
        || {
            // An unsealed ledger repository answers nothing from the cache: the science
            // repository's seal would go unused (`Memo::seal` does not take it either).
            if audit_sealed {
                seal_science_ahead(opts);
            }
        },
    );
    (family, history)
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
        let deployed = crate::crossaudit::deployed::cycle_dirs_git(audit, head).unwrap_or_default();
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
/// cache 7.8 s; the handles are few (one per worker), so the cap is the memory it costs. In
/// the whole cold run on 2 cores (newest cycle first, 2026-12-05, 7 runs each), 48 MB took
/// 5.22 s against 5.07 s at 64 MB, and peaked at 341-368 MB of heap against 381-405 MB; 32 MB
/// peaked at 315-323 MB but cost 10-20% more CPU time.
const DELTA_CACHE: usize = 48 << 20;

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
    // Nor while the storage is damaged: then the cache is neither read nor written.
    let cache = cache.filter(|c| crate::manifest::sealed(c, audit));
    crate::cache::through(cache, &key, decode, encode, |_| audit.has(id), read).ok().flatten()
}

fn marker_family(bytes: &[u8]) -> Option<Family> {
    // A vector search: a schema-2 receipt's marker sorts after its megabyte of manifest, and
    // a byte-by-byte comparison at every offset was a third of a second for 64 receipts.
    let has = |key: &[u8]| memchr::memmem::find(bytes, key).is_some();
    if has(b"\"receipt_schema\"") {
        Some(Family::Schema2)
    } else if has(b"\"constitution_hash\"") {
        Some(Family::V1)
    } else {
        None
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

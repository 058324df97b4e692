//! Finding every record a submission holds and verifying each with its protocol's own command
//! (`protocols::detect_by`): every repository at any depth, and every protocol's records in
//! each (a ledger repository that also holds a CrossExam `_Msg/` gives two records). A record
//! that needs another repository is paired with one that holds the commits it binds, found
//! through an index built once (`Pairing`), so that the cost follows the number of records and
//! repositories rather than their product; a record whose protocol declares no bindings gets
//! the submission's repositories in turn, the one holding it first (`specs/intake.md`,
//! "Pairing").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::checks::{Detection, Given};
use crate::intake::Intake;
use crate::progress::Ctx;
use crate::report::Report;

/// Whose trust anchors a record's signatures were verified against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anchors {
    /// The journal's own (`--trust-store`), by name.
    Journal(String),
    /// A trust store found in the submission: the authors' own claim.
    SelfDeclared {
        /// The store, by its name in the report.
        store: String,
        /// Whether the journal said it accepts self-declared keys.
        accepted: bool,
    },
}

/// One record of the submission, and what became of it.
#[derive(Debug)]
pub struct Record {
    /// Where it is, by its name in the report.
    pub name: String,
    /// Where it is on disk.
    pub path: PathBuf,
    /// The protocol whose detector recognised it.
    pub protocol: &'static str,
    /// What it is, in its protocol's words.
    pub what: String,
    /// The command that verified it (or would have), with the submission's names.
    pub command: String,
    /// The repositories and trust store it was paired with, by name.
    pub paired: Vec<String>,
    /// Its report, when its command ran.
    pub report: Option<Report>,
    /// Why it could not be verified.
    pub unverified: Option<String>,
    /// The trust anchors its command used, when it used a trust store.
    pub anchors: Option<Anchors>,
    /// The repositories, by name, holding a commit it binds (listed on the first record of
    /// each distinct list of bound commits): each a plausible partner, so one it was not
    /// verified with is named (CV-N002) rather than passed over in silence.
    pub holders: Vec<String>,
    /// The `HEAD` commits of the repositories it ran with: a repository at one of them holds
    /// the same history, so it was verified as far as this record binds it.
    pub ran_heads: Vec<String>,
    /// Paths given to its command, for a claims file to use the same ones.
    given: Vec<(&'static str, PathBuf)>,
}

/// What the caller gave beside the submission.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extra<'a> {
    /// `--trust-store`: the journal's trust anchors, used instead of any the submission holds.
    pub trust_store: Option<&'a Path>,
    /// `--accept-self-declared-keys`: trust stores found in the submission count.
    pub accept_self_declared: bool,
}

/// A record found, not yet run.
pub struct Found {
    /// The protocol that recognised it.
    pub protocol: &'static str,
    /// Where it is.
    pub path: PathBuf,
    /// What the detector answered.
    pub detection: Detection,
}

/// Every record in `repos` (repositories, by path) and `dirs` (every other directory
/// searched): each path is offered once to every protocol's detector, repositories first, then
/// the deepest directory first, and every path a detector recognises is a record. A folder
/// recognised around another one is verified too, not skipped as "the same records": a story
/// holding a copied authentic story below it is a record of its own, and verifying what a
/// parent's command also covers twice costs time, never a verdict.
#[must_use]
pub fn discover(repos: &[PathBuf], dirs: &[PathBuf]) -> Vec<Found> {
    let mut candidates: Vec<PathBuf> = repos.to_vec();
    let mut rest: Vec<PathBuf> = dirs.iter().filter(|d| !repos.contains(d)).cloned().collect();
    rest.sort_by_key(|d| (std::cmp::Reverse(d.components().count()), d.clone()));
    candidates.extend(rest);
    let mut out = Vec::new();
    for path in candidates {
        for protocol in crate::protocols::PROTOCOLS.iter().map(|p| p.name) {
            if let Some(detection) = crate::protocols::detect_by(protocol, &path, Given::default()) {
                out.push(Found { protocol, path: path.clone(), detection });
            }
        }
    }
    out
}

/// The one record directly inside the directory `path`, when `path` is itself no record and
/// holds nothing else a command verifies (no bundle, archive, nested repository or other
/// record): `verify` runs it as if it had been named. A CrossExam session directory holds its
/// transcript in `_Msg/`, and refusing it as ambiguous sent users to `--submission` for one
/// record.
#[must_use]
pub fn sole_record_below(path: &Path) -> Option<PathBuf> {
    if !path.is_dir()
        || crate::protocols::PROTOCOLS
            .iter()
            .any(|p| crate::protocols::detect_by(p.name, path, Given::default()).is_some())
    {
        return None;
    }
    let found = crate::intake::tree::search(path, crate::intake::Limits::default().max_depth);
    // Anything the sole record's command would not read keeps the refusal: a bundle or archive,
    // a nested repository, a claims file or trust store, a symlink (it may lead to a record
    // outside), or a level too deep to have been searched.
    if !found.packed.is_empty()
        || found.repos.iter().any(|r| r.rel != ".")
        || !found.named.is_empty()
        || !found.links.is_empty()
        || found.too_deep.is_some()
    {
        return None;
    }
    let repos: Vec<PathBuf> = found.repos.iter().map(|r| r.path.clone()).collect();
    let mut records = discover(&repos, &found.dirs);
    let only = records.pop()?;
    (records.is_empty() && only.path.parent() == Some(path)).then_some(only.path)
}

/// When the directory `path` holds more than one command verifies, why `verify PATH` refuses
/// it: bundles or archives in it, repositories nested in it, or records of a protocol other
/// than the one(s) recognising `path` itself, each named, with the one command that verifies
/// all of it. Records of the protocol recognising `path` below it are its command's own (a
/// ledger's cycle folders, the stories of a directory of stories).
#[must_use]
pub fn ambiguity(path: &Path) -> Option<String> {
    if !path.is_dir() {
        return None;
    }
    let own: Vec<&str> = crate::protocols::PROTOCOLS
        .iter()
        .map(|p| p.name)
        .filter(|p| crate::protocols::detect_by(p, path, Given::default()).is_some())
        .collect();
    let found = crate::intake::tree::search(path, crate::intake::Limits::default().max_depth);
    let mut more: Vec<String> = found.packed.iter().map(|(p, k)| format!("{} ({})", p.display(), k.as_str())).collect();
    if let Some(deep) = &found.too_deep {
        more.push(format!("{} (deeper than the levels searched: what lies below it was not read)", deep.display()));
    }
    more.extend(
        found.repos.iter().filter(|r| r.rel != ".").map(|r| format!("{} (a git repository)", r.path.display())),
    );
    let repos: Vec<PathBuf> = found.repos.iter().map(|r| r.path.clone()).collect();
    for f in discover(&repos, &found.dirs) {
        if !own.contains(&f.protocol) {
            more.push(format!("`{}` ({})", f.detection.command, f.detection.what));
        }
    }
    if more.is_empty() {
        return None;
    }
    Some(format!(
        "{}: holds more than one command verifies: {}; run `crossverify verify --submission {}` to verify all of it in \
         one report, or each command",
        path.display(),
        more.join("; "),
        path.display()
    ))
}

/// Every record of the submission, verified where it can be, in the order found.
#[must_use]
pub fn verify_all(intake: &Intake, extra: Extra<'_>, ctx: Ctx<'_>) -> Vec<Record> {
    let repos: Vec<PathBuf> = intake.repos.iter().map(|r| r.path.clone()).collect();
    let dirs: Vec<PathBuf> = intake.trees.iter().flat_map(|t| t.2.dirs.iter().cloned()).collect();
    let found = discover(&repos, &dirs);
    let stores = trust_stores(intake, extra);
    let mut pairing = Pairing::new(&repos);
    let mut records: Vec<Record> = Vec::new();
    for f in found {
        let mut record = Record {
            name: intake.shown(&f.path),
            path: f.path.clone(),
            protocol: f.protocol,
            what: f.detection.what.clone(),
            command: intake.shown_text(&f.detection.command),
            paired: Vec::new(),
            report: None,
            unverified: None,
            anchors: None,
            holders: Vec::new(),
            ran_heads: Vec::new(),
            given: Vec::new(),
        };
        run_paired(&mut record, f.detection, &mut pairing, &stores, intake, ctx);
        if let Some((_, store)) = record.given.iter().find(|(k, _)| *k == "trust-store") {
            let name = intake.shown(store);
            record.anchors = Some(match extra.trust_store {
                Some(_) => Anchors::Journal(store.display().to_string()),
                None => Anchors::SelfDeclared { store: name, accepted: extra.accept_self_declared },
            });
        }
        records.push(record);
    }
    let claims: Vec<&PathBuf> = intake.trees.iter().flat_map(|t| &t.2.named).filter(|p| is_claims(p)).collect();
    for c in claims {
        let record = claims_record(c, &records, intake, ctx);
        records.push(record);
    }
    records
}

/// Which repositories hold the commits records bind, looked up as records ask: each
/// repository is opened once and each distinct bound commit looked up once in each, so pairing
/// costs (records + repositories × distinct commits), not a run per record per repository.
struct Pairing<'a> {
    repos: &'a [PathBuf],
    /// Each repository's index, by path.
    index: BTreeMap<&'a Path, usize>,
    opened: Vec<Option<Option<crate::git::Repo>>>,
    /// For each bound commit looked up, the repositories (by index) holding it.
    holders: BTreeMap<String, Vec<usize>>,
    /// For each distinct list of bound commits: its groups, the candidate pool (sorted
    /// indexes), and the repositories holding one of its commits.
    groups: BTreeMap<Vec<String>, Grouped>,
}

/// A list of bound commits' groups, candidate pool (sorted indexes) and holders.
type Grouped = (Vec<Group>, Vec<usize>, Vec<usize>);

/// Candidate repositories at one `HEAD` and one rank, sorted by path.
struct Group {
    partial: bool,
    head: String,
    members: Vec<usize>,
}

impl<'a> Pairing<'a> {
    fn new(repos: &'a [PathBuf]) -> Self {
        Pairing {
            repos,
            index: repos.iter().enumerate().map(|(i, r)| (r.as_path(), i)).collect(),
            opened: (0..repos.len()).map(|_| None).collect(),
            holders: BTreeMap::new(),
            groups: BTreeMap::new(),
        }
    }

    fn holders_of(&mut self, commit: &str) -> &[usize] {
        if !self.holders.contains_key(commit) {
            let id = crate::git::ObjectId::from_hex(commit.as_bytes()).ok();
            let mut held = Vec::new();
            for i in 0..self.repos.len() {
                let repo = self.opened[i].get_or_insert_with(|| crate::git::Repo::open(&self.repos[i]).ok());
                if let (Some(r), Some(id)) = (repo.as_ref(), id)
                    && r.has(id)
                {
                    held.push(i);
                }
            }
            self.holders.insert(commit.to_owned(), held);
        }
        self.holders.get(commit).map_or(&[], Vec::as_slice)
    }

    /// The repositories to try for the record at `path`, best rank first: those holding the
    /// record; then, when its protocol declares bindings, those holding every commit it binds
    /// before those holding some; else every repository. Every group of the best rank whose
    /// command runs is run and the worst verdict kept (`run_paired`), so neither a name's sort
    /// order, nor a path's nearness, nor a decoy placed beside the record decides it.
    /// Repositories at the same `HEAD` commit hold the same history, so one of them (the
    /// nearest by path) is run for all of them. The groups are worked out once per distinct
    /// list of bound commits and the nearest member found by a binary search, so N copies of
    /// one paper cost N runs and about N log N besides. Also, the first time a list is seen,
    /// the indexes of every repository holding one of its commits.
    fn candidates(&mut self, protocol: &'static str, path: &Path) -> (Vec<Candidate>, Vec<usize>) {
        let bound = crate::protocols::binds(protocol, path);
        let first = !self.groups.contains_key(&bound);
        if first {
            let mut held: BTreeMap<usize, usize> = BTreeMap::new();
            for c in &bound {
                for i in self.holders_of(c).to_vec() {
                    *held.entry(i).or_default() += 1;
                }
            }
            let pool: Vec<usize> =
                if bound.is_empty() { (0..self.repos.len()).collect() } else { held.keys().copied().collect() };
            let mut groups: BTreeMap<(bool, String), Vec<usize>> = BTreeMap::new();
            for i in pool.iter().copied() {
                let partial = !bound.is_empty() && held.get(&i).copied().unwrap_or(0) < bound.len();
                groups.entry((partial, self.head_key(i))).or_default().push(i);
            }
            let groups = groups
                .into_iter()
                .map(|((partial, head), mut members)| {
                    members.sort_by(|a, b| self.repos[*a].cmp(&self.repos[*b]));
                    Group { partial, head, members }
                })
                .collect();
            self.groups.insert(bound.clone(), (groups, pool, held.keys().copied().collect()));
        }
        let repos = self.repos;
        let (groups, pool, holders) = &self.groups[&bound];
        let shared = |r: &Path| path.components().zip(r.components()).take_while(|(a, b)| a == b).count();
        let mut out: Vec<Candidate> = Vec::new();
        // Rank 0: the repositories the record lies in (its ancestors), each on its own.
        for anc in path.ancestors() {
            if let Some(&i) = self.index.get(anc)
                && pool.binary_search(&i).is_ok()
            {
                let partial = groups
                    .iter()
                    .any(|g| g.partial && g.members.binary_search_by(|m| repos[*m].cmp(&repos[i])).is_ok());
                out.push(Candidate { path: repos[i].clone(), rank: (false, partial), head: String::new() });
            }
        }
        for g in groups {
            // The member sharing the most leading components with the record sits beside the
            // record's place in path order.
            let at = g.members.partition_point(|m| repos[*m].as_path() < path);
            let near = [at.checked_sub(1), (at < g.members.len()).then_some(at)]
                .into_iter()
                .flatten()
                .map(|k| g.members[k])
                .max_by_key(|m| (shared(&repos[*m]), std::cmp::Reverse(*m)));
            if let Some(m) = near {
                out.push(Candidate { path: repos[m].clone(), rank: (true, g.partial), head: g.head.clone() });
            }
        }
        out.sort_by(|a, b| a.rank.cmp(&b.rank).then(a.path.cmp(&b.path)));
        (out, if first { holders.clone() } else { Vec::new() })
    }

    /// What a repository's history is: its `HEAD` commit, or its path when that does not resolve.
    fn head_key(&mut self, i: usize) -> String {
        let repo = self.opened[i].get_or_insert_with(|| crate::git::Repo::open(&self.repos[i]).ok());
        repo.as_ref()
            .and_then(|r| r.resolve("HEAD").ok())
            .map_or_else(|| format!("path {}", self.repos[i].display()), |c| c.to_string())
    }

    fn name(&self, i: usize) -> &Path {
        &self.repos[i]
    }
}

/// A repository to run a record with, and the `HEAD` its copies share (empty for the
/// repository holding the record, which stands for itself).
struct Candidate {
    path: PathBuf,
    rank: Rank,
    head: String,
}

/// A candidate's rank, best first: not holding the record, holding only some bound commits.
type Rank = (bool, bool);

/// How bad an exit code is, for keeping the worst of several runs: failed, then inconclusive,
/// then verified.
fn severity(code: u8) -> u8 {
    match code {
        1 => 3,
        3 | 2 => 2,
        _ => 1,
    }
}

fn is_claims(p: &Path) -> bool {
    let name = p.file_name().map(crate::intake::tree::shown_name).unwrap_or_default().to_ascii_lowercase();
    name.ends_with(".toml") && name.contains("claims")
}

fn trust_stores(intake: &Intake, extra: Extra<'_>) -> Vec<PathBuf> {
    if let Some(t) = extra.trust_store {
        return vec![t.to_owned()];
    }
    intake.trees.iter().flat_map(|t| &t.2.named).filter(|p| !is_claims(p)).cloned().collect()
}

/// Runs the record's command as detected; when it cannot run as it is, with each candidate
/// repository and trust store of the submission in turn.
fn run_paired(
    record: &mut Record,
    found: Detection,
    pairing: &mut Pairing<'_>,
    stores: &[PathBuf],
    intake: &Intake,
    ctx: Ctx<'_>,
) {
    let first = match found.run {
        Ok(run) => match run(ctx) {
            Ok(report) => {
                record.report = Some(report);
                return;
            }
            Err(e) => e.to_string(),
        },
        Err(needs) => needs,
    };
    let stores: Vec<Option<&Path>> =
        if stores.is_empty() { vec![None] } else { stores.iter().map(|s| Some(s.as_path())).collect() };
    let (candidates, holders) = pairing.candidates(record.protocol, &record.path);
    record.holders = holders.into_iter().map(|i| intake.shown(pairing.name(i))).collect();
    let mut tried: Vec<String> = Vec::new();
    let mut ran: Option<Rank> = None;
    let mut ran_with: Vec<String> = Vec::new();
    for Candidate { path: repo, rank, head } in &candidates {
        // Past the first rank that ran, nothing more is tried: equal ranks are all run.
        if ran.is_some_and(|r| r != *rank) {
            break;
        }
        for store in &stores {
            let mut given: Vec<(&'static str, &Path)> = vec![("science", repo), ("repo", repo)];
            given.extend(store.map(|s| ("trust-store", s)));
            let Some(found) = crate::protocols::detect_by(record.protocol, &record.path, Given(&given)) else {
                continue;
            };
            let Ok(run) = found.run else { continue };
            if ctx.check().is_err() {
                break;
            }
            match run(ctx) {
                Ok(report) => {
                    ran = Some(*rank);
                    ran_with.push(intake.shown(repo));
                    if !head.is_empty() {
                        record.ran_heads.push(head.clone());
                    }
                    let worse =
                        record.report.as_ref().is_none_or(|r| severity(report.exit_code()) > severity(r.exit_code()));
                    if worse {
                        record.command = intake.shown_text(&found.command);
                        // What the command used: the paths its command line names.
                        let named = |p: &Path| found.command.contains(&p.display().to_string());
                        record.paired = given.iter().filter(|(_, p)| named(p)).map(|(_, p)| intake.shown(p)).collect();
                        record.paired.dedup();
                        record.given =
                            given.iter().filter(|(_, p)| named(p)).map(|(k, p)| (*k, p.to_path_buf())).collect();
                        record.report = Some(report);
                    }
                    break;
                }
                Err(e) => {
                    let why = format!("with {}: {}", intake.shown(repo), intake.shown_text(&e.to_string()));
                    if tried.len() < 3 && !tried.contains(&why) {
                        tried.push(why);
                    }
                }
            }
        }
    }
    if record.report.is_some() {
        // Every repository the record was run with (or stands as a copy of one) is paired with
        // it, beside the trust store the kept run named.
        let mut paired: Vec<String> = ran_with;
        paired.extend(record.paired.iter().filter(|p| !paired.contains(p)).cloned().collect::<Vec<_>>());
        paired.sort();
        paired.dedup();
        record.paired = paired;
        return;
    }
    let tried = if tried.is_empty() { String::new() } else { format!(" (tried {})", tried.join("; ")) };
    record.unverified = Some(format!(
        "{}; no repository{} of the submission made it verifiable{tried}",
        intake.shown_text(&first),
        if stores.iter().any(Option::is_some) { " and trust store" } else { "" }
    ));
}

/// A claims file, checked against the figures of the record nearest to it (sharing the
/// longest path with it) whose statistics can be computed.
fn claims_record(claims: &Path, records: &[Record], intake: &Intake, ctx: Ctx<'_>) -> Record {
    let shared = |r: &Record| claims.components().zip(r.path.components()).take_while(|(a, b)| a == b).count();
    let mut order: Vec<&Record> = records.iter().filter(|r| r.report.is_some()).collect();
    order.sort_by_key(|r| std::cmp::Reverse(shared(r)));
    let mut record = Record {
        name: intake.shown(claims),
        path: claims.to_owned(),
        protocol: "",
        what: "a claims file (figures stated by the paper)".into(),
        command: String::new(),
        paired: Vec::new(),
        report: None,
        unverified: None,
        anchors: None,
        holders: Vec::new(),
        ran_heads: Vec::new(),
        given: Vec::new(),
    };
    let mut why = Vec::new();
    let mut level = None;
    for target in order {
        // Records as near as the first that gave figures are all checked, the worst kept: a
        // claims file equally near two ledgers is not decided by their names' order.
        if level.is_some_and(|l| l != shared(target)) {
            break;
        }
        let science = target.given.iter().find(|(k, _)| *k == "science").map(|(_, p)| p.as_path());
        let opts =
            crate::stats::Options { path: &target.path, rev: None, claims: Some(claims), science, science_rev: None };
        let adapter = crate::protocols::stats_adapter(&target.path);
        match crate::stats::command(&opts, || (adapter.read)(&opts, ctx)) {
            Ok(report) => {
                level = Some(shared(target));
                if record.report.as_ref().is_none_or(|r| severity(report.exit_code()) > severity(r.exit_code())) {
                    let sci = science.map(|s| format!(" --science {}", intake.shown(s))).unwrap_or_default();
                    record.command = format!("crossverify stats {}{sci} --claims {}", target.name, record.name);
                    record.paired = vec![target.name.clone()];
                    record.report = Some(report);
                }
            }
            Err(e) => why.push(format!("{}: {}", target.name, intake.shown_text(&e.to_string()))),
        }
    }
    if record.report.is_some() {
        return record;
    }
    record.unverified = Some(if why.is_empty() {
        "no verified record of the submission gives the figures it states".into()
    } else {
        format!("no record of the submission gives the figures it states ({})", why.join("; "))
    });
    record
}

//! A run: every selected case given to every implementation, in parallel, each pair in its own
//! scratch directory; recorded implementations answer from their record; a journal makes an
//! interrupted run resumable (pairs already answered are read back, not run again).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::adapter::{self, Limits, Probe, Program};
use super::model::{Answer, Case, Decision, Error, Recorded, Suite};
use crate::json::{self, Value};
use crate::progress::Ctx;

/// One implementation to score.
#[derive(Debug, Clone)]
pub enum Implementation {
    /// An adapter executable.
    Adapter {
        /// The column's name.
        name: String,
        /// How to start it.
        program: Program,
        /// What the user named (the report's input; never a resolved host path).
        given: String,
    },
    /// Decisions recorded with a verifier that is not run here.
    Recorded(Recorded),
}

impl Implementation {
    /// The column's name.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Implementation::Adapter { name, .. } => name,
            Implementation::Recorded(r) => &r.name,
        }
    }
}

/// What an implementation was, once probed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// It ran: the version it named and the operations it claimed (all when it named none).
    Ran {
        /// Its version, if it said.
        version: Option<String>,
        /// Its operations, if it listed them.
        operations: Option<Vec<String>>,
    },
    /// Not available here (its probe declined); never scored as passing.
    Skipped(String),
    /// Its probe failed: every case it would have run is an error.
    Broken(String),
    /// Answered from a record.
    Recorded,
}

/// What to run.
#[derive(Debug)]
pub struct Options<'a> {
    /// The implementations, in column order.
    pub implementations: Vec<Implementation>,
    /// Only cases of this protocol.
    pub only: Option<String>,
    /// Only cases whose id contains one of these (none: every case).
    pub cases: Vec<String>,
    /// Per-run limits.
    pub limits: Limits,
    /// Where pairs are materialised (the caller's temporary directory).
    pub scratch: &'a Path,
    /// The journal that makes the run resumable.
    pub journal: Option<PathBuf>,
    /// What starts each adapter in a session of its own as a child subreaper, taking the
    /// command after `--` (`crossverify conformance contain`), so that what an adapter leaves
    /// running while it works stays its own (`contain.rs`). Without it the adapter runs in a
    /// process group of its own, and such a helper may be killed when another case ends.
    pub contain: Option<Program>,
}

/// One implementation's answers, by case id, with the time each took.
pub type Answers = BTreeMap<String, (Answer, Duration)>;

/// A run's raw results.
#[derive(Debug)]
pub struct Ran {
    /// The cases run, in suite order.
    pub cases: Vec<Case>,
    /// Per implementation (in column order): its status and its answer per case id, with the
    /// time it took.
    pub columns: Vec<(Implementation, Status, Answers)>,
    /// Pairs read back from the journal rather than run.
    pub resumed: usize,
}

/// Selects the cases and runs them.
///
/// # Errors
/// A protocol or case filter that selects nothing, an unreadable journal, a scratch directory
/// that cannot be written, or an interruption.
pub fn run(suite: &Suite, opts: &Options<'_>, ctx: Ctx<'_>) -> Result<Ran, Error> {
    let cases: Vec<Case> = suite
        .cases
        .iter()
        .filter(|c| opts.only.as_ref().is_none_or(|p| &c.protocol == p))
        .filter(|c| opts.cases.is_empty() || opts.cases.iter().any(|s| c.id.contains(s.as_str())))
        .cloned()
        .collect();
    if cases.is_empty() {
        return Err(Error::Usage("no case of the suite matches --only/--case".into()));
    }
    let journal = Journal::open(opts.journal.as_deref(), &suite.sha256)?;
    let mut statuses = Vec::new();
    for imp in &opts.implementations {
        statuses.push(match imp {
            Implementation::Adapter { program, .. } => {
                match adapter::probe(program, opts.scratch, opts.limits, opts.contain.as_ref()) {
                    Probe::Ready { version, operations } => Status::Ran { version, operations },
                    Probe::Unavailable(why) => Status::Skipped(why),
                    Probe::Broken(why) => Status::Broken(why),
                }
            }
            Implementation::Recorded(_) => Status::Recorded,
        });
    }
    let resumed = cases
        .iter()
        .flat_map(|c| opts.implementations.iter().zip(&statuses).map(move |(imp, st)| (imp, st, c)))
        .filter(|(imp, st, c)| fixed_answer(imp, st, c).is_none() && journal.done.contains_key(&key(imp, c)))
        .count();
    ctx.progress.start("conformance", (cases.len() * opts.implementations.len()) as u64);
    // One case at a time per worker: its inputs are materialised once, and each implementation
    // runs on a fresh copy of them.
    let answers: Result<Vec<Vec<Cell>>, Error> = cases
        .par_iter()
        .enumerate()
        .map(|(c, case)| run_case(suite, opts, &statuses, &journal, ctx, (c, case)))
        .collect();
    ctx.progress.finish();
    let mut columns: Vec<_> =
        opts.implementations.iter().zip(statuses).map(|(imp, st)| (imp.clone(), st, BTreeMap::new())).collect();
    for (i, id, answer, took) in answers?.into_iter().flatten() {
        columns[i].2.insert(id, (answer, took));
    }
    Ok(Ran { cases, columns, resumed })
}

/// One answer: the implementation's column, the case, the answer and its time.
type Cell = (usize, String, Answer, Duration);

fn key(imp: &Implementation, case: &Case) -> Key {
    (imp.name().to_owned(), identity(imp), case.id.clone())
}

/// Every implementation's answer on one case.
fn run_case(
    suite: &Suite,
    opts: &Options<'_>,
    statuses: &[Status],
    journal: &Journal,
    ctx: Ctx<'_>,
    (c, case): (usize, &Case),
) -> Result<Vec<Cell>, Error> {
    let mut base: Option<(PathBuf, Vec<String>)> = None;
    let mut out = Vec::new();
    let to_run = |i: usize| {
        let imp = &opts.implementations[i];
        fixed_answer(imp, &statuses[i], case).is_none() && !journal.done.contains_key(&key(imp, case))
    };
    // The last implementation to run takes the materialised inputs themselves.
    let last = (0..opts.implementations.len()).rev().find(|&i| to_run(i));
    for (i, imp) in opts.implementations.iter().enumerate() {
        let (answer, took) = match (fixed_answer(imp, &statuses[i], case), journal.done.get(&key(imp, case))) {
            (Some(a), _) => (a, Duration::ZERO),
            (None, Some(d)) => d.clone(),
            (None, None) => {
                ctx.check().map_err(|_| Error::Interrupted)?;
                if base.is_none() {
                    let dir = opts.scratch.join(format!("{c}/inputs"));
                    let args = super::materialise::materialise(suite, case, &dir)?;
                    base = Some((dir, args));
                }
                let (dir, args) = base.as_ref().expect("materialised just above");
                let own = if last == Some(i) { dir.clone() } else { opts.scratch.join(format!("{c}/{i}")) };
                let got = run_pair(imp, case, opts, (dir, args), &own)?;
                journal.append(imp, case, &got)?;
                got
            }
        };
        ctx.progress.advance(1);
        out.push((i, case.id.clone(), answer, took));
    }
    // Scratch space is the caller's; a case's directory is gone once it is answered.
    let _ = std::fs::remove_dir_all(opts.scratch.join(c.to_string()));
    Ok(out)
}

/// The answer a pair has without running anything: a recorded decision (or none), a skipped
/// or broken implementation, an operation the adapter does not claim.
fn fixed_answer(imp: &Implementation, status: &Status, case: &Case) -> Option<Answer> {
    match (imp, status) {
        (Implementation::Recorded(r), _) => Some(match r.decisions.get(&case.id) {
            Some((decision, reason)) => Answer::Decided { decision: *decision, reason: reason.clone() },
            None => Answer::NotRecorded,
        }),
        (_, Status::Skipped(why)) => Some(Answer::Skipped(why.clone())),
        // `why` says it was the probe ("the probe exited with status 1").
        (_, Status::Broken(why)) => Some(Answer::Error(why.clone())),
        (_, Status::Ran { operations: Some(ops), .. }) if !ops.contains(&case.operation) => Some(Answer::Unsupported),
        _ => None,
    }
}

/// Runs one implementation on a fresh copy of the case's materialised inputs.
fn run_pair(
    imp: &Implementation,
    case: &Case,
    opts: &Options<'_>,
    (base, args): (&Path, &[String]),
    dir: &Path,
) -> Result<(Answer, Duration), Error> {
    let Implementation::Adapter { program, .. } = imp else {
        return Ok((Answer::NotRecorded, Duration::ZERO));
    };
    if base != dir {
        copy_tree(base, dir).map_err(|e| Error::Io(format!("copying {} to {}: {e}", base.display(), dir.display())))?;
    }
    let (from, to) = (base.to_string_lossy(), dir.to_string_lossy());
    let args: Vec<String> = args
        .iter()
        .map(|a| match a.strip_prefix(from.as_ref()) {
            Some(rest) if rest.starts_with('/') || rest.is_empty() => format!("{to}{rest}"),
            _ => a.clone(),
        })
        .collect();
    let start = Instant::now();
    let answer = adapter::run(program, &case.operation, &args, dir, opts.limits, opts.contain.as_ref());
    let took = start.elapsed();
    let _ = std::fs::remove_dir_all(dir);
    Ok((scrub(answer, case, &args, &to), took))
}

/// The answer with every materialised path in its text put back as the case names it
/// (`{science}`) and the pair's directory as `{dir}`: a message quoting a temporary directory
/// would make two runs of one suite differ.
fn scrub(answer: Answer, case: &Case, args: &[String], dir: &str) -> Answer {
    let mut names: Vec<(&str, &str)> = case
        .args
        .iter()
        .zip(args)
        .filter(|(a, _)| a.starts_with('{') && a.ends_with('}'))
        .map(|(a, path)| (path.as_str(), a.as_str()))
        .collect();
    names.push((dir, "{dir}"));
    // Longest first, so a path is never replaced through a prefix of it.
    names.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    let put_back = |text: String| names.iter().fold(text, |t, (path, name)| t.replace(path, name));
    match answer {
        Answer::Decided { decision, reason } => Answer::Decided { decision, reason: reason.map(put_back) },
        Answer::Error(m) => Answer::Error(put_back(m)),
        Answer::Crash(m) => Answer::Crash(put_back(m)),
        other => other,
    }
}

/// A recursive copy: directories, files (with their permissions) and symbolic links as links.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let ty = entry.file_type()?;
        if ty.is_dir() {
            copy_tree(&src, &dst)?;
        } else if ty.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// What identifies an adapter in the journal: its name and what the user named.
fn identity(imp: &Implementation) -> String {
    match imp {
        Implementation::Adapter { given, .. } => given.clone(),
        Implementation::Recorded(r) => format!("recorded {}", r.version),
    }
}

type Key = (String, String, String);

/// The journal: one JSON line per answered pair, for this suite only.
struct Journal {
    file: Option<Mutex<std::fs::File>>,
    suite: String,
    done: BTreeMap<Key, (Answer, Duration)>,
}

/// Largest journal read back.
const MAX_JOURNAL_BYTES: usize = 64 << 20;

impl Journal {
    fn open(path: Option<&Path>, suite: &str) -> Result<Journal, Error> {
        let Some(path) = path else { return Ok(Journal { file: None, suite: suite.into(), done: BTreeMap::new() }) };
        let mut done = BTreeMap::new();
        if path.exists() {
            let bytes = crate::files::read_capped(path, MAX_JOURNAL_BYTES)
                .map_err(|e| Error::Read { path: path.display().to_string(), message: e.to_string() })?;
            for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                // A line cut short by an interruption is simply run again.
                if let Some((key, entry)) = json::parse(line).ok().and_then(|v| read_entry(&v, suite)) {
                    done.insert(key, entry);
                }
            }
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        Ok(Journal { file: Some(Mutex::new(file)), suite: suite.into(), done })
    }

    fn append(&self, imp: &Implementation, case: &Case, (answer, took): &(Answer, Duration)) -> Result<(), Error> {
        let Some(file) = &self.file else { return Ok(()) };
        let (kind, decision) = match answer {
            Answer::Decided { decision, .. } => ("decided", Some(*decision)),
            Answer::Unsupported => ("unsupported", None),
            Answer::Crash(_) => ("crash", None),
            Answer::Timeout => ("timeout", None),
            Answer::Error(_) | Answer::NotRecorded | Answer::Skipped(_) => ("error", None),
        };
        let mut o = BTreeMap::new();
        let s = |v: &str| Value::String(v.to_owned());
        o.insert("suite".to_owned(), s(&self.suite));
        o.insert("implementation".to_owned(), s(imp.name()));
        o.insert("identity".to_owned(), s(&identity(imp)));
        o.insert("case".to_owned(), s(&case.id));
        o.insert("kind".to_owned(), s(kind));
        o.insert("decision".to_owned(), decision.map_or(Value::Null, |d| s(d.as_str())));
        o.insert("detail".to_owned(), answer.detail().map_or(Value::Null, s));
        o.insert("ms".to_owned(), Value::from(i64::try_from(took.as_millis()).unwrap_or(i64::MAX)));
        let line = json::canonical(&Value::Object(o)) + "\n";
        let mut f = file.lock().map_err(|_| Error::Io("the journal's lock is poisoned".into()))?;
        f.write_all(line.as_bytes()).map_err(|e| Error::Io(format!("writing the journal: {e}")))
    }
}

fn read_entry(v: &Value, suite: &str) -> Option<(Key, (Answer, Duration))> {
    let s = |k: &str| v.get(k).and_then(Value::as_str);
    if s("suite")? != suite {
        return None;
    }
    let detail = s("detail").unwrap_or_default().to_owned();
    let answer = match s("kind")? {
        "decided" => {
            Answer::Decided { decision: Decision::parse(s("decision")?)?, reason: s("detail").map(str::to_owned) }
        }
        "unsupported" => Answer::Unsupported,
        "crash" => Answer::Crash(detail),
        "timeout" => Answer::Timeout,
        _ => Answer::Error(detail),
    };
    let ms = v.get("ms").and_then(Value::as_i64).and_then(|m| u64::try_from(m).ok()).unwrap_or(0);
    let key = (s("implementation")?.to_owned(), s("identity")?.to_owned(), s("case")?.to_owned());
    Some((key, (answer, Duration::from_millis(ms))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::model::Required;

    /// A message quoting where the inputs were materialised names them as the case does, so
    /// two runs give the same report (before, one case's detail held `/tmp/.tmpXXXX/93/…`).
    #[test]
    fn temporary_paths_are_put_back_as_the_case_names_them() {
        let case = Case {
            id: "c".into(),
            protocol: "crossaudit".into(),
            operation: "verify-ledger".into(),
            category: "forged".into(),
            class: "x".into(),
            expected: Required::Exactly(Decision::Reject),
            reason: String::new(),
            section: String::new(),
            source: String::new(),
            inputs: BTreeMap::new(),
            args: vec!["--ledger".into(), "{science}".into(), "--science".into(), "{science}".into()],
        };
        let args = ["--ledger", "/tmp/.tmpAB/93/1/science/repo", "--science", "/tmp/.tmpAB/93/1/science/repo"]
            .map(str::to_owned);
        let said = Answer::Decided {
            decision: Decision::Reject,
            reason: Some("could not read: --science /tmp/.tmpAB/93/1/science/repo is in /tmp/.tmpAB/93/1".into()),
        };
        assert_eq!(
            scrub(said, &case, &args, "/tmp/.tmpAB/93/1"),
            Answer::Decided {
                decision: Decision::Reject,
                reason: Some("could not read: --science {science} is in {dir}".into())
            }
        );
        let crash = Answer::Crash("the adapter was killed by signal 9 (SIGKILL): /tmp/.tmpAB/93/1/x".into());
        assert_eq!(
            scrub(crash, &case, &args, "/tmp/.tmpAB/93/1"),
            Answer::Crash("the adapter was killed by signal 9 (SIGKILL): {dir}/x".into())
        );
    }
}

//! The command line of issue 14 (docs/scale.md): the persistent cache's flags and what it
//! did, on standard error (never in the report, whose bytes do not depend on the cache);
//! `--shard`, `merge` and `batch`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use crossverify::cache::{self, Cache, Chosen};
use crossverify::crossaudit::{self, Shard};
use crossverify::progress::Ctx;
use crossverify::report::Report;

/// The scale flags of `ledger`: cache and shard.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct LedgerArgs {
    /// Verify only the Kth of N slices of the cycles (cycle i, from 0 in ledger order, is
    /// shard i mod N + 1); `crossverify merge` combines the N JSON reports. See docs/scale.md.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    #[command(flatten)]
    cache: CacheArgs,
}

/// The persistent cache's flags.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct CacheArgs {
    /// Keep blob digests and per-receipt results between runs in DIR. Without this flag the cache is on, in
    /// CROSSVERIFY_CACHE_DIR or else $XDG_CACHE_HOME/crossverify; `--cache` alone names that
    /// directory and prints what the cache did. Entries are authenticated with
    /// CROSSVERIFY_CACHE_KEY or a key file under $XDG_STATE_HOME/crossverify; see docs/scale.md.
    // `Option<Option<_>>`: absent, `--cache` alone, or `--cache DIR` (an empty default value
    // would be refused by the path parser, so `--cache` alone could never be given).
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    cache: Option<Option<PathBuf>>,
    /// Use no cache, whatever the environment says (CROSSVERIFY_NO_CACHE=1 does the same
    /// unless --cache is given).
    #[arg(long, conflicts_with_all = ["cache", "cache_audit"])]
    no_cache: bool,
    /// Recompute everything found in the cache and compare (implies --cache).
    #[arg(long)]
    cache_audit: bool,
}

/// The environment variable naming the cache directory.
const DIR_ENV: &str = "CROSSVERIFY_CACHE_DIR";
/// The environment variable that turns the cache off (CI steps that must not write).
const OFF_ENV: &str = "CROSSVERIFY_NO_CACHE";

/// Where the cache directory came from: it decides what a cache that cannot be used does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `--cache DIR`: the user named it on this command line, so a directory that cannot be
    /// written stops the run (exit 2) instead of being skipped with a note they might not read.
    Named,
    /// `--cache` alone, `--cache-audit`, `CROSSVERIFY_CACHE_DIR` or the platform default.
    Ambient,
}

/// The environment, read once per decision (a parameter, so the rule is testable).
#[derive(Debug, Default)]
struct Env {
    dir: Option<PathBuf>,
    off: bool,
    default: Option<PathBuf>,
}

impl Env {
    fn read() -> Env {
        let dir = std::env::var_os(DIR_ENV).filter(|v| !v.is_empty()).map(PathBuf::from);
        let off = std::env::var_os(OFF_ENV).is_some_and(|v| !v.is_empty() && v != "0");
        Env { dir, off, default: cache::default_dir() }
    }
}

impl CacheArgs {
    /// Whether the user asked for the cache (flag or `CROSSVERIFY_CACHE_DIR`): then each run
    /// says what the cache did; the default cache speaks only when something went wrong.
    fn asked(&self, env: &Env) -> bool {
        self.cache.is_some() || self.cache_audit || env.dir.is_some()
    }

    /// The directory to use and where it came from; `Ok(None)`: no cache. `Err`: why the
    /// default cache has no directory (a note, not an error).
    fn choose(&self, env: &Env) -> Result<Option<(PathBuf, Origin)>, String> {
        if self.no_cache {
            return Ok(None);
        }
        if let Some(d) = self.cache.as_ref().and_then(Option::as_ref).filter(|d| !d.as_os_str().is_empty()) {
            return Ok(Some((d.clone(), Origin::Named)));
        }
        // The command line outranks the environment: `CROSSVERIFY_NO_CACHE` turns off only the
        // cache the user did not ask for on this command line.
        if env.off && self.cache.is_none() && !self.cache_audit {
            return Ok(None);
        }
        match env.dir.clone().or_else(|| env.default.clone()) {
            Some(d) => Ok(Some((d, Origin::Ambient))),
            None => Err("no directory (set CROSSVERIFY_CACHE_DIR, XDG_CACHE_HOME or HOME)".into()),
        }
    }

    /// The cache to use, or `None`. A cache that cannot be used is skipped with one line on
    /// standard error, except a directory named with `--cache DIR` that cannot be written.
    ///
    /// # Errors
    /// `--cache DIR` names a directory that cannot be created or written.
    pub(crate) fn open(&self, quiet: bool) -> anyhow::Result<Option<Arc<Cache>>> {
        let env = Env::read();
        let (dir, origin) = match self.choose(&env) {
            Ok(Some(d)) => d,
            Ok(None) => return Ok(None),
            Err(why) => {
                note(quiet, &format!("cache not used: {why}"));
                return Ok(None);
            }
        };
        let skip = |why: String| {
            note(quiet, &format!("cache {} not used: {why}", dir.display()));
            Ok(None)
        };
        // The platform directory nobody named: a link in its place was planted, not made by the
        // user, and is not followed (`src/cache/place.rs`).
        let chosen = if origin == Origin::Ambient && env.dir.is_none() { Chosen::ByDefault } else { Chosen::ByUser };
        // The directory is tried before the key, so a cache that cannot be written never
        // leaves a key file behind.
        match (writable(&dir, chosen), origin) {
            (Ok(()), _) => {}
            (Err(why), Origin::Named) => anyhow::bail!("--cache: {why} (--no-cache runs without a cache)"),
            (Err(why), Origin::Ambient) => return skip(why),
        }
        // A directory or database others may write, or a link planted in it, is not used, but
        // never stops the run: whoever can plant it would otherwise stop CI at will.
        if let Err(why) = cache::vet_dir(&dir, chosen) {
            return skip(why);
        }
        // A missing key is never an error, even for a named directory: CI runs without the
        // secret (pull requests from forks) go on without the cache, as documented.
        let opened = cache::key::find(&dir, cache::key::default_file().as_deref())
            .and_then(|(key, _)| Cache::open_chosen(&dir, key, chosen));
        match opened {
            Ok(c) => Ok(Some(Arc::new(if self.cache_audit { c.auditing() } else { c }))),
            Err(why) => skip(why),
        }
    }

    /// Writes the run's new entries and says what the cache did: always when the cache was
    /// asked for, else only when an entry was dropped or the database had trouble.
    pub(crate) fn finish(&self, cache: Option<&Cache>, quiet: bool) {
        let Some(c) = cache else { return };
        c.flush();
        let s = c.stats();
        for n in &s.notes {
            note(quiet, &format!("cache: {n}"));
        }
        let mut line = s.line();
        let kinds: Vec<String> =
            s.by_kind.iter().map(|(k, n)| format!("{}: {} hits, {} misses", kind_name(k), n.hits, n.misses)).collect();
        if !kinds.is_empty() {
            line.push_str(&format!(" ({})", kinds.join("; ")));
        }
        if c.is_auditing() {
            line.push_str(&format!(
                "; audit: {} of {} cached entries disagreed with what this run computed",
                s.audit_mismatches, s.hits
            ));
        }
        let worth_saying = self.asked(&Env::read()) || s.dropped > 0 || s.audit_mismatches > 0;
        // A disagreement is the one cache event that matters even under --quiet: an entry that
        // passed authentication was wrong (a leaked key, or a bug).
        note((quiet || !worth_saying) && s.audit_mismatches == 0, &line);
    }
}

/// Whether files can be made in `dir` (created if missing): a read-only or misplaced cache
/// directory is found here, in one line, rather than as a database that "cannot be read".
/// Created private (mode 0700), and a default directory that is a link is refused before the
/// probe is made through it.
fn writable(dir: &Path, chosen: Chosen) -> Result<(), String> {
    cache::create_dir(dir, chosen)?;
    tempfile::Builder::new()
        .prefix(".crossverify-probe-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| format!("{}: {e}", dir.display()))
}

/// `crossverify ledger` with the cache and shard flags.
pub(crate) fn ledger(
    args: &LedgerArgs,
    mut o: crossaudit::Options,
    quiet: bool,
    ctx: Ctx<'_>,
) -> anyhow::Result<Report> {
    o.cache = args.cache.open(quiet)?;
    let report = match args.shard {
        Some(s) => crossaudit::ledger_shard(&o, s, ctx)?,
        None => crossaudit::ledger(&o, ctx)?,
    };
    args.cache.finish(o.cache.as_deref(), quiet);
    if o.cache.is_some()
        && args.cache.asked(&Env::read())
        && let (Some(n), Some(b)) = (report.work.get("blobsHashed"), report.work.get("bytesHashed"))
    {
        let cached = report.work.get("digestsFromCache").copied().unwrap_or(0);
        note(quiet, &format!("work: {n} blobs hashed ({b} bytes), {cached} digests from the cache"));
    }
    // The cache's table of every entry goes with the process, not entry by entry (see `run`).
    std::mem::forget(o);
    Ok(report)
}

/// The largest report file `merge` reads.
const MAX_REPORT_BYTES: u64 = 4 << 30;

/// `crossverify merge REPORT.json...`.
pub(crate) fn merge(paths: &[PathBuf], trusted_key: Option<&Path>, ctx: Ctx<'_>) -> anyhow::Result<Report> {
    let key = trusted_key.map(crossverify::attest::trusted_key).transpose()?;
    let mut files = Vec::new();
    for p in paths {
        let bytes = match &key {
            Some(k) => crossverify::attest::signed_report(p, k, "ledger")?,
            None => read_capped(p, MAX_REPORT_BYTES)?,
        };
        files.push((p.display().to_string(), bytes));
    }
    let shards = crossverify::report::merge::read(&files)?;
    Ok(crossaudit::merge(&shards, ctx)?)
}

fn read_capped(p: &Path, max: u64) -> anyhow::Result<Vec<u8>> {
    let len = std::fs::metadata(p).with_context(|| format!("reading {}", p.display()))?.len();
    anyhow::ensure!(len <= max, "{}: {len} bytes, more than the {max} a report may have", p.display());
    std::fs::read(p).with_context(|| format!("reading {}", p.display()))
}

/// `crossverify batch LIST --output-jsonl FILE [--resume]`: one JSON line per ledger,
/// appended as each finishes. Lines already in FILE are kept only under `--resume`, and then
/// stand for a ledger only while it resolves to the audit head they were about.
pub(crate) fn batch(
    list: &Path,
    out: &Path,
    resume: bool,
    caching: &CacheArgs,
    quiet: bool,
    ctx: Ctx<'_>,
) -> anyhow::Result<u8> {
    let text = std::fs::read_to_string(list).with_context(|| format!("reading batch list {}", list.display()))?;
    let base = list.parent().unwrap_or(Path::new("."));
    let entries = crossaudit::batch::entries(&text, base)?;
    let (lines, whole) = crossaudit::batch::done(&crate::submission::existing_output(out)?);
    // Taking a verdict from a file instead of from git is trust: asked for by name, never
    // implied by where the output happens to point.
    anyhow::ensure!(
        resume || whole == 0,
        "{}: already holds {} results; add --resume to keep those whose ledger still resolves to the audit head they \
         were about (they are taken from the file, not verified again), or give a new output file to verify every ledger",
        out.display(),
        lines.len()
    );
    // The last line of an id is its current one: a ledger verified again appends a new line.
    let latest: std::collections::BTreeMap<&str, &crossaudit::batch::Done> =
        lines.iter().map(|l| (l.id.as_str(), l)).collect();
    let (kept, todo): (Vec<_>, Vec<_>) = entries
        .into_iter()
        .partition(|e| latest.get(e.id.as_str()).is_some_and(|l| crossaudit::batch::still_stands(l, e)));
    let redone = todo.iter().filter(|e| latest.contains_key(e.id.as_str())).count();
    // Lines of ids not in this list still count: the exit code is the whole output's.
    let mut codes: Vec<u8> =
        latest.iter().filter(|(id, _)| !todo.iter().any(|e| e.id == **id)).map(|(_, l)| l.code).collect();
    // A line torn by a killed run is cut off; its ledger is verified again.
    let mut file = crate::submission::append_output(out, whole)?;
    let cache = caching.open(quiet)?;
    if resume {
        note(
            quiet,
            &format!(
                "batch: {} ledgers taken from {} (same audit head, definite verdict), {} to verify ({redone} of them again: moved, inconclusive or not run)",
                kept.len(),
                out.display(),
                todo.len()
            ),
        );
    }
    for mut e in todo {
        ctx.check()?;
        e.opts.cache.clone_from(&cache);
        let result = crossaudit::ledger(&e.opts, ctx);
        let mut line = crossaudit::batch::line(&e.id, result.as_ref());
        codes.push(result.as_ref().map_or(2, Report::exit_code));
        line.push('\n');
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_data())
            .with_context(|| format!("writing {}", out.display()))?;
    }
    caching.finish(cache.as_deref(), quiet);
    Ok(crossaudit::batch::exit_code(codes))
}

fn kind_name(kind: &str) -> &str {
    match kind {
        "cycle" => "receipts",
        "blob-sha256" => "blob digests",
        "pack-verified" => "packs read in full before",
        other => other,
    }
}

fn note(quiet: bool, line: &str) {
    if !quiet {
        let _ = writeln!(std::io::stderr().lock(), "crossverify: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(cache: Option<Option<&str>>, no_cache: bool, cache_audit: bool) -> CacheArgs {
        CacheArgs { cache: cache.map(|c| c.map(PathBuf::from)), no_cache, cache_audit }
    }

    fn env(dir: Option<&str>, off: bool, default: Option<&str>) -> Env {
        Env { dir: dir.map(PathBuf::from), off, default: default.map(PathBuf::from) }
    }

    fn chosen(a: &CacheArgs, e: &Env) -> Option<(String, Origin)> {
        a.choose(e).expect("a directory").map(|(d, o)| (d.display().to_string(), o))
    }

    #[test]
    fn the_directory_comes_from_the_flag_the_environment_then_the_platform() {
        let (none, named, alone, audit) = (
            flags(None, false, false),
            flags(Some(Some("/f")), false, false),
            flags(Some(None), false, false),
            flags(None, false, true),
        );
        let amb = |d: &str| Some((d.to_owned(), Origin::Ambient));
        assert_eq!(chosen(&none, &env(None, false, Some("/x"))), amb("/x"));
        assert_eq!(chosen(&none, &env(Some("/e"), false, Some("/x"))), amb("/e"));
        assert_eq!(chosen(&named, &env(Some("/e"), true, Some("/x"))), Some(("/f".to_owned(), Origin::Named)));
        assert_eq!(chosen(&flags(None, true, false), &env(Some("/e"), false, Some("/x"))), None);
        // CROSSVERIFY_NO_CACHE turns off what the command line did not ask for.
        assert_eq!(chosen(&none, &env(Some("/e"), true, Some("/x"))), None);
        assert_eq!(chosen(&alone, &env(None, true, Some("/x"))), amb("/x"));
        assert_eq!(chosen(&audit, &env(Some("/e"), true, Some("/x"))), amb("/e"));
        assert!(none.choose(&env(None, false, None)).is_err_and(|e| e.contains("no directory")));
    }

    #[test]
    fn only_a_cache_asked_for_reports_its_figures_every_run() {
        assert!(!flags(None, false, false).asked(&env(None, false, Some("/x"))));
        assert!(flags(None, false, false).asked(&env(Some("/e"), false, None)));
        assert!(flags(Some(None), false, false).asked(&env(None, false, None)));
        assert!(flags(None, false, true).asked(&env(None, false, None)));
    }
}

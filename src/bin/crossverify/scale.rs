//! The command line of issue 14 (docs/scale.md): the persistent cache's flags and what it
//! did, on standard error (never in the report, whose bytes do not depend on the cache);
//! `--shard`, `merge` and `batch`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use crossverify::cache::{self, Cache};
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
    /// Keep blob digests between runs in DIR (default with no DIR, or from
    /// CROSSVERIFY_CACHE_DIR: $XDG_CACHE_HOME/crossverify). Entries are authenticated with
    /// CROSSVERIFY_CACHE_KEY or a key file under $XDG_STATE_HOME/crossverify; see docs/scale.md.
    // `Option<Option<_>>`: absent, `--cache` alone, or `--cache DIR` (an empty default value
    // would be refused by the path parser, so `--cache` alone could never be given).
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    cache: Option<Option<PathBuf>>,
    /// Use no cache, even when CROSSVERIFY_CACHE_DIR is set.
    #[arg(long, conflicts_with_all = ["cache", "cache_audit"])]
    no_cache: bool,
    /// Recompute every cached digest and compare it with the cache (implies --cache).
    #[arg(long)]
    cache_audit: bool,
}

impl CacheArgs {
    /// The cache to use, or `None`; why a requested cache is not used goes to standard error.
    pub(crate) fn open(&self, quiet: bool) -> Option<Arc<Cache>> {
        if self.no_cache {
            return None;
        }
        let env = std::env::var_os("CROSSVERIFY_CACHE_DIR").filter(|v| !v.is_empty()).map(PathBuf::from);
        let requested = self.cache.is_some() || self.cache_audit;
        let dir = match self.cache.as_ref().and_then(Option::as_ref).filter(|d| !d.as_os_str().is_empty()) {
            Some(d) => d.clone(),
            None if requested => match env.or_else(cache::default_dir) {
                Some(d) => d,
                None => {
                    note(quiet, "cache not used: no directory (set CROSSVERIFY_CACHE_DIR, XDG_CACHE_HOME or HOME)");
                    return None;
                }
            },
            None => env?,
        };
        let opened =
            cache::key::find(&dir, cache::key::default_file().as_deref()).and_then(|(key, _)| Cache::open(&dir, key));
        match opened {
            Ok(c) => Some(Arc::new(if self.cache_audit { c.auditing() } else { c })),
            Err(why) => {
                note(quiet, &format!("cache {} not used: {why}", dir.display()));
                None
            }
        }
    }
}

/// `crossverify ledger` with the cache and shard flags.
pub(crate) fn ledger(
    args: &LedgerArgs,
    mut o: crossaudit::Options,
    quiet: bool,
    ctx: Ctx<'_>,
) -> anyhow::Result<Report> {
    o.cache = args.cache.open(quiet);
    let report = match args.shard {
        Some(s) => crossaudit::ledger_shard(&o, s, ctx)?,
        None => crossaudit::ledger(&o, ctx)?,
    };
    finish(o.cache.as_deref(), quiet);
    if let (Some(n), Some(b)) = (report.work.get("blobsHashed"), report.work.get("bytesHashed")) {
        note(quiet, &format!("work: {n} blobs hashed ({b} bytes)"));
    }
    Ok(report)
}

/// The largest report file `merge` reads.
const MAX_REPORT_BYTES: u64 = 4 << 30;

/// `crossverify merge REPORT.json...`.
pub(crate) fn merge(paths: &[PathBuf], ctx: Ctx<'_>) -> anyhow::Result<Report> {
    let mut files = Vec::new();
    for p in paths {
        files.push((p.display().to_string(), read_capped(p, MAX_REPORT_BYTES)?));
    }
    let shards = crossverify::report::merge::read(&files)?;
    Ok(crossaudit::merge(&shards, ctx)?)
}

fn read_capped(p: &Path, max: u64) -> anyhow::Result<Vec<u8>> {
    let len = std::fs::metadata(p).with_context(|| format!("reading {}", p.display()))?.len();
    anyhow::ensure!(len <= max, "{}: {len} bytes, more than the {max} a report may have", p.display());
    std::fs::read(p).with_context(|| format!("reading {}", p.display()))
}

/// `crossverify batch LIST --output FILE`: one JSON line per ledger, appended as each
/// finishes; ledgers whose line is already in FILE are skipped.
pub(crate) fn batch(list: &Path, out: &Path, cache: &CacheArgs, quiet: bool, ctx: Ctx<'_>) -> anyhow::Result<u8> {
    let text = std::fs::read_to_string(list).with_context(|| format!("reading batch list {}", list.display()))?;
    let base = list.parent().unwrap_or(Path::new("."));
    let entries = crossaudit::batch::entries(&text, base)?;
    let existing = match std::fs::read(out) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", out.display())),
    };
    let (done, whole) = crossaudit::batch::done(&existing);
    let mut codes: Vec<u8> = done.iter().map(|(_, c)| *c).collect();
    let done: std::collections::BTreeSet<String> = done.into_iter().map(|(id, _)| id).collect();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .with_context(|| format!("opening {}", out.display()))?;
    // A line torn by a killed run is cut off; its ledger is verified again.
    file.set_len(whole as u64).with_context(|| format!("truncating {}", out.display()))?;
    let cache = cache.open(quiet);
    let todo: Vec<_> = entries.into_iter().filter(|e| !done.contains(&e.id)).collect();
    note(quiet, &format!("batch: {} ledgers done before, {} to verify", done.len(), todo.len()));
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
    finish(cache.as_deref(), quiet);
    Ok(crossaudit::batch::exit_code(codes))
}

fn kind_name(kind: &str) -> &str {
    match kind {
        "cycle" => "receipts",
        "blob-sha256" => "blob digests",
        other => other,
    }
}

/// Writes the run's new entries and says what the cache did.
pub(crate) fn finish(cache: Option<&Cache>, quiet: bool) {
    let Some(c) = cache else { return };
    c.flush();
    let s = c.stats();
    for n in &s.notes {
        note(quiet, &format!("cache: {n}"));
    }
    let mut line = format!(
        "cache: {} hits, {} misses, {} dropped (failed authentication), {} stale (another version), {} written",
        s.hits, s.misses, s.dropped, s.stale, s.written
    );
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
    // A disagreement is the one cache event that matters even under --quiet: an entry that
    // passed authentication was wrong (a leaked key, or a bug).
    note(quiet && s.audit_mismatches == 0, &line);
}

fn note(quiet: bool, line: &str) {
    if !quiet {
        let _ = writeln!(std::io::stderr().lock(), "crossverify: {line}");
    }
}

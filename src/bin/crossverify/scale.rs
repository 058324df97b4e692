//! The command line of issue 14: the persistent cache's flags, and what it did, on standard
//! error (never in the report, whose bytes do not depend on the cache).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use crossverify::cache::{self, Cache};

/// The cache flags of `ledger`.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct CacheArgs {
    /// Keep blob digests between runs in DIR (default with no DIR, or from
    /// CROSSVERIFY_CACHE_DIR: $XDG_CACHE_HOME/crossverify). Entries are authenticated with
    /// CROSSVERIFY_CACHE_KEY or a key file under $XDG_STATE_HOME/crossverify; see docs/scale.md.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "")]
    cache: Option<PathBuf>,
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
        let dir = match self.cache.as_ref().filter(|d| !d.as_os_str().is_empty()) {
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
    if c.is_auditing() {
        line.push_str(&format!(
            "; audit: {} of {} cached digests disagreed with the blobs",
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

//! The `crossverify` command line: parses arguments, runs one library command, renders the
//! report in every requested format and exits with the code the report dictates.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::{Context as _, bail};
use clap::{Parser, Subcommand};
use crossverify::crossaudit::{self, DialectChoice};
use crossverify::progress::Ctx;
use crossverify::render::{self, Format};
use crossverify::report::Report;

mod progress_bar;
mod scale;

/// Offline, third-party verification of the supervision records AI agents leave in git.
///
/// Exit codes: 0 verified, 1 a check failed, 2 could not run, 3 inconclusive.
#[derive(Parser, Debug)]
#[command(name = "crossverify", version, about, long_about = None, max_term_width = 100)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Debug)]
struct Global {
    /// Format written to standard output: table, json, jsonl, csv, sarif, sarif-github, junit,
    /// markdown or html (see docs/guide.md, "Reading the outputs").
    #[arg(long, global = true, default_value = "table", value_parser = parse_format, help_heading = "Global options")]
    format: Format,
    /// Also write FORMAT to PATH (repeatable), e.g. `--output sarif=crossverify.sarif`. For csv,
    /// companion tables go beside PATH as `<stem>-<table>.csv`.
    #[arg(long = "output", global = true, value_name = "FORMAT=PATH", value_parser = parse_output, help_heading = "Global options")]
    outputs: Vec<(Format, PathBuf)>,
    /// Worker threads, 1 to 256 (default: all cores). Output is identical for any value.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256), help_heading = "Global options")]
    threads: Option<u16>,
    /// No progress bars or notes on standard error.
    #[arg(long, short, global = true, help_heading = "Global options")]
    quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Verify the demo ledger built into the binary (no arguments, no network, no git CLI).
    Demo,
    /// Re-derive the SHA-256 manifest of REPO at REV from git objects.
    Manifest {
        /// Repository (work tree, .git directory or bare).
        repo: PathBuf,
        /// Revision (commit id, branch, tag, `HEAD~2`…).
        rev: String,
        /// Limit to paths at or below PREFIX (repeatable; default: whole tree).
        #[arg(long = "scope", value_name = "PREFIX")]
        scopes: Vec<String>,
    },
    /// Verify a whole CrossAudit ledger: every receipt, the history, the I1–I8 conformance.
    Ledger {
        /// Repository holding the ledger (the audit repository; the science repository in the
        /// product's local mode).
        #[arg(long, value_name = "PATH")]
        audit: PathBuf,
        /// Science repository (omit in the product's local mode).
        #[arg(long, value_name = "PATH")]
        science: Option<PathBuf>,
        /// Format family.
        #[arg(long, value_enum, default_value = "auto")]
        dialect: Dialect,
        /// Audit revision to verify (default HEAD).
        #[arg(long, value_name = "REV")]
        audit_rev: Option<String>,
        /// A previously seen audit head that must still be an ancestor (detects rewritten history).
        #[arg(long, value_name = "SHA")]
        expect_audit_head: Option<String>,
        #[command(flatten)]
        scale: scale::LedgerArgs,
    },
    /// Verify one receipt and decide its admission (the CI gate).
    Receipt {
        /// The receipt: `<ledger dir>/<cycle>/receipt.json`, relative to the ledger repository or
        /// a path inside it. Omit it to verify the latest receipt binding --expect-sha.
        receipt: Option<PathBuf>,
        /// Science repository (in the product's local mode, also the ledger repository).
        #[arg(long, value_name = "PATH")]
        science: PathBuf,
        /// Audit repository holding the ledger (paired mode; default: the science repository).
        #[arg(long, value_name = "PATH")]
        audit: Option<PathBuf>,
        /// The commit the receipt must bind.
        #[arg(long, value_name = "SHA")]
        expect_sha: Option<String>,
        /// The science repository name the receipt must bind (`owner/name`).
        #[arg(long, value_name = "NAME")]
        expect_repo: Option<String>,
        /// Exit 0 only when the receipt is admissible.
        #[arg(long)]
        admit: bool,
        /// The gate's own record of receipts already admitted (one receipt identity per line, at
        /// least 16 hex digits; `#` comments): makes single use decidable for schema-2 ledgers,
        /// whose controller state is not published.
        #[arg(long, value_name = "FILE")]
        consumed: Option<PathBuf>,
        /// Audit revision (default HEAD).
        #[arg(long, value_name = "REV")]
        audit_rev: Option<String>,
        #[command(flatten)]
        cache: scale::CacheArgs,
    },
    /// Finding-lifecycle figures of a ledger or mined records; checks stated figures (--claims).
    Stats {
        /// Deployed ledger (git repository or directory), cycles.jsonl, cycles-b.json, or their directory.
        path: PathBuf,
        /// Revision to read when PATH is a git repository (default HEAD).
        #[arg(long)]
        rev: Option<String>,
        /// TOML file of stated figures keyed by JSON Pointer into `stats` (docs/claims.md).
        #[arg(long, value_name = "FILE")]
        claims: Option<PathBuf>,
        /// Science repository, for fix commits named in commit subjects.
        #[arg(long, value_name = "REPO")]
        science: Option<PathBuf>,
        /// Revision of the science repository (default HEAD; use the freeze head).
        #[arg(long, value_name = "REV", requires = "science")]
        science_rev: Option<String>,
    },
    /// Combine the JSON reports of `ledger --shard K/N` into the report of one unsharded run.
    ///
    /// All N shards, in any order; the ledger is read again at the same audit head, without
    /// hashing (docs/scale.md).
    Merge {
        /// The shard reports.
        #[arg(required = true, value_name = "REPORT.json")]
        reports: Vec<PathBuf>,
    },
    /// Verify many ledgers, one JSON line each, resuming where a previous run stopped.
    ///
    /// Exit 1 if any failed, else 3 if any was inconclusive or could not run, else 0
    /// (docs/scale.md).
    Batch {
        /// JSON lines: {"audit": PATH, "science": PATH, "id": NAME, "auditRev": REV, "dialect": D}.
        list: PathBuf,
        /// Where the lines go (appended; lines already there are not redone).
        #[arg(long, value_name = "FILE")]
        output_jsonl: PathBuf,
        #[command(flatten)]
        cache: scale::CacheArgs,
    },
    /// List every check code with its level and summary.
    Checks,
    /// Print the documentation page of a check code.
    Explain {
        /// Check code, e.g. CV-A701.
        code: String,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Dialect {
    Auto,
    V1,
    Schema2,
    Deployed,
}

impl From<Dialect> for DialectChoice {
    fn from(d: Dialect) -> Self {
        match d {
            Dialect::Auto => DialectChoice::Auto,
            Dialect::V1 => DialectChoice::V1,
            Dialect::Schema2 => DialectChoice::Schema2,
            Dialect::Deployed => DialectChoice::Deployed,
        }
    }
}

fn parse_format(s: &str) -> Result<Format, String> {
    Format::parse(s).ok_or_else(|| {
        let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{s}` (expected one of: {})", names.join(", "))
    })
}

fn parse_output(s: &str) -> Result<(Format, PathBuf), String> {
    let (f, p) = s.split_once('=').ok_or_else(|| format!("`{s}` is not FORMAT=PATH"))?;
    if p.is_empty() {
        return Err(format!("`{s}` names no path"));
    }
    Ok((parse_format(f)?, PathBuf::from(p)))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "crossverify: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<u8> {
    check_outputs(&cli.global.outputs)?;
    if let Some(n) = cli.global.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(n))
            .build_global()
            .context("configuring the thread pool")?;
    }
    let interrupt = AtomicBool::new(false);
    let bar = progress_bar::Bar::new(!cli.global.quiet && std::io::stderr().is_terminal());
    let ctx = Ctx { progress: &bar, interrupt: &interrupt };
    let mut report = match &cli.command {
        Command::Manifest { repo, rev, scopes } => crossverify::foundation::command(repo, rev, scopes, ctx)?,
        Command::Demo => crossaudit::demo(ctx).context("running the demo")?,
        Command::Ledger { audit, science, dialect, audit_rev, expect_audit_head, scale } => {
            let mut o = crossaudit::Options::new(audit);
            o.science.clone_from(science);
            o.dialect = (*dialect).into();
            o.audit_rev.clone_from(audit_rev);
            o.expect_audit_head.clone_from(expect_audit_head);
            scale::ledger(scale, o, cli.global.quiet, ctx)?
        }
        Command::Receipt { receipt, science, audit, expect_sha, expect_repo, admit, consumed, audit_rev, cache } => {
            let ledger_repo = audit.clone().unwrap_or_else(|| science.clone());
            let mut o = crossaudit::Options::new(&ledger_repo);
            o.science = Some(science.clone());
            o.audit_rev.clone_from(audit_rev);
            o.expect_sha.clone_from(expect_sha);
            o.expect_repo.clone_from(expect_repo);
            o.consumed = consumed.as_deref().map(read_consumed).transpose()?;
            o.cache = cache.open(cli.global.quiet);
            let report = crossaudit::receipt(&o, receipt.as_deref(), *admit, ctx)?;
            scale::finish(o.cache.as_deref(), cli.global.quiet);
            report
        }
        Command::Stats { path, rev, claims, science, science_rev } => {
            let opts = crossverify::stats::Options {
                path,
                rev: rev.as_deref(),
                claims: claims.as_deref(),
                science: science.as_deref(),
                science_rev: science_rev.as_deref(),
            };
            crossverify::stats::command(&opts, || crossaudit::stats_input::read(path, rev.as_deref(), ctx))?
        }
        Command::Merge { reports } => scale::merge(reports, ctx)?,
        Command::Batch { list, output_jsonl, cache } => {
            let code = scale::batch(list, output_jsonl, cache, cli.global.quiet, ctx);
            bar.clear();
            return code;
        }
        Command::Checks => crossverify::protocols::checks_command(),
        Command::Explain { code } => crossverify::protocols::explain(code)?,
    };
    if matches!(cli.command, Command::Manifest { .. }) {
        // A manifest is derived, not verified: its findings are shown, its verdict only sets
        // the exit code.
        report.hints.informational = true;
    }
    crossverify::protocols::describe(&mut report);
    bar.clear();
    emit(&report, &cli.global)?;
    Ok(report.exit_code())
}

fn emit(report: &Report, g: &Global) -> anyhow::Result<()> {
    // Everything is rendered before anything is written, so a companion table that would land
    // on another output's file is refused instead of overwriting it.
    let mut files: Vec<(PathBuf, &str, Vec<u8>)> = Vec::new();
    for (format, path) in &g.outputs {
        files.push((path.clone(), format.name(), render::render(report, *format, &render::Options::default())));
        for (suffix, bytes) in render::companions(report, *format) {
            files.push((companion_path(path, &suffix), format.name(), bytes));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (path, format, _) in &files {
        if !seen.insert(std::path::absolute(path).unwrap_or(path.clone())) {
            bail!("--output: {} would be written twice (a {format} companion table)", path.display());
        }
    }
    for (path, format, bytes) in &files {
        write_file(path, bytes).with_context(|| format!("writing {format} output to {}", path.display()))?;
    }
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let opts = render::Options {
        width: if tty { terminal_width() } else { None },
        color: use_color(tty, std::env::var_os("NO_COLOR").as_deref(), std::env::var_os("TERM").as_deref()),
    };
    let bytes = render::render(report, g.format, &opts);
    let mut out = stdout.lock();
    match out.write_all(&bytes).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure of verification.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}

/// Colour only on a terminal, never when `NO_COLOR` is set to anything non-empty
/// (no-color.org) and never on a `TERM=dumb` terminal.
fn use_color(stdout_is_tty: bool, no_color: Option<&std::ffi::OsStr>, term: Option<&std::ffi::OsStr>) -> bool {
    stdout_is_tty && no_color.is_none_or(|v| v.is_empty()) && term.is_none_or(|t| t != "dumb")
}

/// Refuses, before any work is done, outputs that would be lost: two formats written to one
/// file, standard output named as a file, or a directory that does not exist (creating one
/// would be a side effect nobody asked a verifier for).
fn check_outputs(outputs: &[(Format, PathBuf)]) -> anyhow::Result<()> {
    let mut seen = std::collections::BTreeMap::new();
    for (format, path) in outputs {
        if path.as_os_str() == "-" {
            bail!("--output {}=-: standard output is for --format; name a file", format.name());
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() {
            bail!("--output {}={}: directory {} does not exist", format.name(), path.display(), dir.display());
        }
        let key = std::path::absolute(path).unwrap_or(path.clone());
        if let Some(other) = seen.insert(key, format.name()) {
            bail!("--output: {} would be written twice ({other} and {})", path.display(), format.name());
        }
    }
    Ok(())
}

/// `out/report.csv` + `cycles` → `out/report-cycles.csv`, whatever PATH's extension.
fn companion_path(primary: &Path, suffix: &str) -> PathBuf {
    let stem = primary.file_stem().map_or_else(|| "report".into(), |s| s.to_string_lossy().into_owned());
    primary.with_file_name(format!("{stem}-{suffix}.csv"))
}

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).map_err(Into::into)
}

/// Reads `--consumed`: one receipt identity per line.
fn read_consumed(path: &Path) -> anyhow::Result<std::collections::BTreeSet<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading --consumed file {}", path.display()))?;
    let mut set = std::collections::BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let id = line.split('#').next().unwrap_or_default().trim();
        if id.is_empty() {
            continue;
        }
        if !(16..=64).contains(&id.len()) || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!(
                "{} line {}: {id:?} is not a receipt identity (16 to 64 hex digits of its SHA-256)",
                path.display(),
                n + 1
            );
        }
        set.insert(id.to_ascii_lowercase());
    }
    Ok(set)
}

fn terminal_width() -> Option<u16> {
    // comfy-table asks the terminal when it is allowed to; the renderer itself never does.
    // A pseudo-terminal without a size (under `script`, some CI runners) reports 0 columns.
    comfy_table::Table::new().width().filter(|w| *w >= 20).or(Some(100))
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn colour_needs_a_terminal_and_no_opt_out() {
        assert!(use_color(true, None, Some(OsStr::new("xterm-256color"))));
        assert!(!use_color(false, None, None));
        assert!(!use_color(true, Some(OsStr::new("1")), None));
        // no-color.org: an empty NO_COLOR does not opt out.
        assert!(use_color(true, Some(OsStr::new("")), None));
        assert!(!use_color(true, None, Some(OsStr::new("dumb"))));
    }

    #[test]
    fn companions_sit_beside_the_primary_file() {
        assert_eq!(companion_path(Path::new("out/r.csv"), "cycles"), PathBuf::from("out/r-cycles.csv"));
        assert_eq!(companion_path(Path::new("r"), "results"), PathBuf::from("r-results.csv"));
        assert_eq!(companion_path(Path::new("data.txt"), "findings"), PathBuf::from("data-findings.csv"));
    }

    #[test]
    fn outputs_that_would_be_lost_are_refused() {
        let f = |s: &str| parse_output(s).expect("parses");
        assert!(check_outputs(&[f("json=a.out"), f("html=a.out")]).is_err());
        assert!(check_outputs(&[f("json=-")]).is_err());
        assert!(check_outputs(&[f("json=/nonexistent-crossverify-dir/x.json")]).is_err());
        assert!(check_outputs(&[f("json=a.json"), f("csv=a.csv")]).is_ok());
    }
}

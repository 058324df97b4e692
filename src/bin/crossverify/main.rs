//! The `crossverify` command line: parses arguments, runs one library command, renders the
//! report in every requested format and exits with the code the report dictates.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::{Context as _, bail};
use clap::{Parser, Subcommand};
use crossverify::progress::Ctx;
use crossverify::render::{self, Format};
use crossverify::report::Report;

mod progress_bar;

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
    /// Format written to standard output.
    #[arg(long, global = true, default_value = "table", value_parser = parse_format)]
    format: Format,
    /// Also write FORMAT to PATH (repeatable), e.g. `--output json=report.json`.
    #[arg(long = "output", global = true, value_name = "FORMAT=PATH", value_parser = parse_output)]
    outputs: Vec<(Format, PathBuf)>,
    /// Worker threads (default: all cores). Output is identical for any value.
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
    /// No progress bars or notes on standard error.
    #[arg(long, short, global = true)]
    quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
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
    /// List every check code with its level and summary.
    Checks,
    /// Print the documentation page of a check code.
    Explain {
        /// Check code, e.g. CV-A701.
        code: String,
    },
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
    if let Some(n) = cli.global.threads {
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("configuring the thread pool")?;
    }
    let interrupt = AtomicBool::new(false);
    let bar = progress_bar::Bar::new(!cli.global.quiet && std::io::stderr().is_terminal());
    let ctx = Ctx { progress: &bar, interrupt: &interrupt };
    let report = match &cli.command {
        Command::Manifest { repo, rev, scopes } => crossverify::manifest::command(repo, rev, scopes, ctx)?,
        Command::Checks => crossverify::checks::command(),
        Command::Explain { code } => crossverify::checks::explain(code)?,
    };
    bar.clear();
    emit(&report, &cli.global)?;
    Ok(report.exit_code())
}

fn emit(report: &Report, g: &Global) -> anyhow::Result<()> {
    for (format, path) in &g.outputs {
        let bytes = render::render(report, *format, &render::Options::default());
        write_file(path, &bytes).with_context(|| format!("writing {} output to {}", format.name(), path.display()))?;
    }
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let opts = render::Options {
        width: if tty { terminal_width() } else { None },
        color: tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let bytes = render::render(report, g.format, &opts);
    let mut out = stdout.lock();
    match out.write_all(&bytes).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure of verification.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating directory {}", dir.display()))?;
    }
    std::fs::write(path, bytes).map_err(Into::into)
}

fn terminal_width() -> Option<u16> {
    // comfy-table asks the terminal when it is allowed to; the renderer itself never does.
    comfy_table::Table::new().width().or(Some(100))
}

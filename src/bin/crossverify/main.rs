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
mod replay;

/// mimalloc instead of the system allocator: a cold ledger run makes tens of millions of small
/// allocations (receipt documents, manifest maps, results), and glibc's malloc and free were
/// 15% of its CPU (`benches/README.md`, issue 26). The library takes no side: this is the
/// binary's choice.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The exit-code table every `--help` ends with.
macro_rules! exit_codes {
    () => {
        "Exit codes:\n  \
         0  verified: every error-level check passed or did not apply\n  \
         1  failed: an error-level check failed (the closing lines name it)\n  \
         2  could not run: usage error or unreadable input (one `crossverify: error:` line)\n  \
         3  inconclusive: nothing failed, but an error-level check could not be decided"
    };
}

/// `after_help` of a subcommand: its examples, one per line, then the exit-code table.
/// A new subcommand writes `#[command(after_help = help!("crossverify x A", "crossverify x B"))]`.
macro_rules! help {
    ($($example:literal),+ $(,)?) => {
        concat!("Examples:\n", $("  ", $example, "\n",)+ "\n", exit_codes!())
    };
}

mod conformance;
mod generate;
mod protocols;
mod submission;

/// Offline, third-party verification of the supervision records AI agents leave in git.
///
/// Exit codes: 0 verified, 1 a check failed, 2 could not run, 3 inconclusive.
#[derive(Parser, Debug)]
#[command(name = "crossverify", version, about, long_about = None, max_term_width = 100,
    after_help = help!("crossverify demo", "crossverify ledger --audit audit --science science", "crossverify receipt --science . --expect-sha \"$GITHUB_SHA\" --admit"))]
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
    /// Sign the report with this OpenSSH Ed25519 private key (as `ssh-keygen -t ed25519 -N ''`
    /// writes it) and write the DSSE envelope to --attestation (`crossverify attest` checks it).
    #[arg(long, global = true, value_name = "KEYFILE", requires = "attestation", help_heading = "Global options")]
    sign_report: Option<PathBuf>,
    /// Where --sign-report writes the signed report (an in-toto statement in a DSSE envelope).
    #[arg(long, global = true, value_name = "PATH", requires = "sign_report", help_heading = "Global options")]
    attestation: Option<PathBuf>,
    /// Table and markdown on standard output: print only the verdict, the audit outcome and
    /// the checks that decided them (for CI logs; --output files keep everything).
    #[arg(long, global = true, help_heading = "Global options")]
    summary: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    #[command(display_order = 1)]
    /// Re-derive the SHA-256 manifest of REPO at REV from git objects.
    #[command(after_help = help!(
        "crossverify manifest science HEAD",
        "crossverify manifest science v1.2 --scope experiments/run-2 --format json"
    ))]
    Manifest {
        /// Repository (work tree, .git directory or bare).
        repo: PathBuf,
        /// Revision (commit id, branch, tag, `HEAD~2`…).
        rev: String,
        /// Limit to paths at or below PREFIX (repeatable; default: whole tree).
        #[arg(long = "scope", value_name = "PREFIX")]
        scopes: Vec<String>,
    },
    #[command(display_order = 6)]
    /// Finding-lifecycle figures of a ledger or mined records; checks stated figures (--claims).
    #[command(after_help = help!(
        "crossverify stats audit --science science",
        "crossverify stats mined/cycles.jsonl --claims claims.toml"
    ))]
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
    #[command(display_order = 7)]
    /// Check a signed report (--sign-report): its signature; with --replay, its re-derivation.
    ///
    /// With --replay the recorded command runs again on the recorded inputs and the two
    /// reports are compared byte for byte.
    #[command(after_help = help!(
        "crossverify attest report.dsse.json --trusted-key auditor_ed25519.pub",
        "crossverify attest report.dsse.json --trusted-key auditor_ed25519.pub --replay"
    ))]
    Attest {
        /// The DSSE envelope written by --attestation.
        envelope: PathBuf,
        /// The signer's OpenSSH Ed25519 public key (`ssh-ed25519 AAAA…`).
        #[arg(long, value_name = "PUBKEYFILE")]
        trusted_key: PathBuf,
        /// Re-run the recorded command on the recorded inputs (paths as recorded, relative to the
        /// current directory) and compare the reports byte for byte.
        #[arg(long)]
        replay: bool,
    },
    #[command(display_order = 8)]
    /// Detect what PATH holds (ledger, receipt, records, transcript), say so and run the command for it.
    #[command(after_help = help!(
        "crossverify verify audit --science science",
        "crossverify verify evidence --repo . --trust-store trust-store.json",
        "crossverify verify submission.zip --certificate certificate.html --output json=report.json",
    ))]
    Verify {
        /// A ledger repository or directory, a receipt file, ledger records, a transcript, or
        /// Proof-or-Stop evidence (a bundle, an evidence directory, findings); or a journal's
        /// submission: archives (.zip, .tar, .tar.gz, .tgz), git bundles, a folder of repositories.
        #[arg(required = true, num_args = 1..)]
        paths: Vec<PathBuf>,
        /// Science repository (a paired ledger's, or for fix commits named in records).
        #[arg(long, value_name = "PATH")]
        science: Option<PathBuf>,
        /// Repository holding the live state (Proof-or-Stop bundles and evidence).
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Trust store (Proof-or-Stop bundles and evidence).
        #[arg(long, value_name = "FILE")]
        trust_store: Option<PathBuf>,
        #[command(flatten)]
        submission: submission::Args,
    },
    #[command(display_order = 12)]
    /// List every check code with its level and summary.
    #[command(after_help = help!("crossverify checks", "crossverify checks --format csv > checks.csv"))]
    Checks,
    #[command(display_order = 13)]
    /// Print the documentation page of a check, by code or by name.
    #[command(after_help = help!(
        "crossverify explain CV-A701",
        "crossverify explain subject-binding-broken",
        "crossverify explain cv-g002 --format html > CV-G002.html"
    ))]
    Explain {
        /// Check code or name, as reports print them: CV-A701 or subject-binding-broken.
        code: String,
    },
    #[command(flatten)]
    Protocol(protocols::Command),
    #[command(flatten)]
    Conformance(conformance::Command),
    #[command(flatten)]
    Generate(generate::Command),
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "crossverify: error: {}", plain_os_errors(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// An error line with the operating system's wording (`No such file or directory (os error
/// 2)`) said plainly: the file is named before it, the reason is what a reader needs.
fn plain_os_errors(line: &str) -> String {
    const PLAIN: [(&str, &str); 5] = [
        ("No such file or directory", "does not exist"),
        ("Permission denied", "permission denied"),
        ("Is a directory", "is a directory, not a file"),
        ("Not a directory", "a part of the path is not a directory"),
        ("Read-only file system", "the file system is read-only"),
    ];
    let mut out = line.to_owned();
    while let Some(start) = out.find(" (os error ") {
        let Some(len) = out[start..].find(')') else { break };
        out.replace_range(start..=start + len, "");
    }
    for (os, plain) in PLAIN {
        out = out.replace(os, plain);
    }
    out
}

/// Help and version go to standard output (exit 0); every usage error becomes the one-line
/// `crossverify: error:` form of the other errors, with the usage appended (exit 2).
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let mut err = std::io::stderr().lock();
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // Bare `crossverify`: the help as help, readable, then the one error line.
        let _ = write!(err, "{}", e.render());
        let _ = writeln!(
            err,
            "\ncrossverify: error: no command given (`crossverify demo` verifies the demo ledger built into the binary)"
        );
        return ExitCode::from(2);
    }
    let _ = writeln!(err, "crossverify: error: {}", one_line(&e.render().to_string(), own_usage));
    ExitCode::from(2)
}

/// The usage line of the subcommand a clap usage line is about, as its `--help` shows it:
/// clap's error usage lists the options the user gave beside the required ones (`--summary`
/// among them), which reads as if they were required too.
fn own_usage(error_usage: &str) -> Option<String> {
    use clap::CommandFactory as _;
    let name = error_usage.split_whitespace().nth(1)?;
    let mut cli = Cli::command();
    cli.build();
    let usage = cli.find_subcommand_mut(name)?.render_usage().to_string();
    usage.strip_prefix("Usage: ").map(|u| u.trim().to_owned())
}

/// clap's multi-line message as one line: `error:` dropped, the usage (the subcommand's own,
/// when `own_usage` finds it) kept after a `;`, the "try --help" hint kept once at the end.
fn one_line(rendered: &str, own_usage: fn(&str) -> Option<String>) -> String {
    let mut message: Vec<&str> = Vec::new();
    let mut usage = None;
    let mut hint = None;
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(own_usage(u).unwrap_or_else(|| u.to_owned()));
        } else if line.starts_with("For more information") {
            hint = Some(line);
        } else {
            message.push(line.strip_prefix("error: ").unwrap_or(line));
        }
    }
    let mut text = message.join(" ");
    if let Some(u) = usage {
        text = format!("{text}; usage: {u}");
    }
    if hint.is_some() {
        text.push_str(" (see --help)");
    }
    text
}

/// `stats PATH`: the figures of whichever protocol's records the path holds.
fn stats(
    path: &Path,
    rev: Option<&str>,
    claims: Option<&Path>,
    science: Option<&Path>,
    science_rev: Option<&str>,
    ctx: Ctx<'_>,
) -> anyhow::Result<Report> {
    let opts = crossverify::stats::Options { path, rev, claims, science, science_rev };
    let adapter = crossverify::protocols::stats_adapter(path);
    Ok(crossverify::stats::command(&opts, || (adapter.read)(&opts, ctx))?)
}

/// `attest ENVELOPE`: a verification summary (a submission's VSA) or a signed report.
fn attest(envelope: &Path, trusted_key: &Path, replay: bool) -> anyhow::Result<Report> {
    let replayer = |args: &[String]| replay::run(envelope, args);
    let replayer: crossverify::attest::Replayer<'_> = &replayer;
    Ok(if crossverify::submission::vsa::is_summary(envelope) {
        crossverify::submission::vsa::attest(envelope, trusted_key, replay.then_some(replayer))?
    } else {
        crossverify::attest::attest(envelope, trusted_key, replay.then_some(replayer))?
    })
}

fn run(cli: &Cli) -> anyhow::Result<u8> {
    check_outputs(&cli.global.outputs)?;
    if cli.global.sign_report.is_some() && matches!(&cli.command, Command::Protocol(c) if !c.writes_report()) {
        // Refused before any work: a batch run that went on would exit 0 with nothing signed.
        bail!(
            "--sign-report: `batch` writes one JSON line per ledger, not a report, so there is nothing to sign; \
             sign each ledger's report instead (`crossverify ledger --audit … --sign-report KEY --attestation PATH`)"
        );
    }
    if let Some(n) = cli.global.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(n))
            .build_global()
            .context("configuring the thread pool")?;
    }
    let interrupt = AtomicBool::new(false);
    let bar = progress_bar::Bar::new(!cli.global.quiet && std::io::stderr().is_terminal());
    let ctx = Ctx { progress: &bar, interrupt: &interrupt };
    let mut after = None;
    let mut report = match &cli.command {
        Command::Manifest { repo, rev, scopes } => crossverify::foundation::command(repo, rev, scopes, ctx)?,
        Command::Stats { path, rev, claims, science, science_rev } => {
            stats(path, rev.as_deref(), claims.as_deref(), science.as_deref(), science_rev.as_deref(), ctx)?
        }
        Command::Verify { paths, science, repo, trust_store, submission: sub } if submission::wanted(paths, sub) => {
            if let Some((flag, p)) = science.as_ref().map(|p| ("--science", p)).or(repo.as_ref().map(|p| ("--repo", p)))
            {
                bail!(
                    "{flag} {}: a submission's repositories are found in it and paired by the records' own bindings; \
                     add the repository to the submission instead (`crossverify verify {} {}`)",
                    p.display(),
                    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" "),
                    p.display()
                );
            }
            let (report, then) = submission::verify(paths, trust_store.as_deref(), sub, cli.global.quiet, ctx)?;
            after = Some(then);
            report
        }
        Command::Verify { paths, science, repo, trust_store, .. } => {
            let [path] = paths.as_slice() else { bail!("verify: one path, unless it is a submission") };
            let given: Vec<(&str, &Path)> = [("science", science), ("repo", repo), ("trust-store", trust_store)]
                .into_iter()
                .filter_map(|(name, p)| p.as_deref().map(|p| (name, p)))
                .collect();
            verify(path, crossverify::protocols::Given(&given), cli.global.quiet, ctx)?
        }
        Command::Attest { envelope, trusted_key, replay } => attest(envelope, trusted_key, *replay)?,
        Command::Protocol(c) => match c.run(&protocols::Env { ctx, quiet: cli.global.quiet })? {
            protocols::Ran::Report(report) => *report,
            protocols::Ran::Exit(code) => {
                bar.clear();
                return code;
            }
        },
        Command::Conformance(c) => match c.run(ctx)? {
            protocols::Ran::Report(report) => *report,
            protocols::Ran::Exit(code) => return code,
        },
        Command::Checks => crossverify::protocols::checks_command(),
        Command::Explain { code } => crossverify::protocols::explain(code)?,
        Command::Generate(g) => {
            let report_wanted = !cli.global.outputs.is_empty() || cli.global.sign_report.is_some();
            return g.run(<Cli as clap::CommandFactory>::command(), report_wanted);
        }
    };
    if matches!(cli.command, Command::Manifest { .. }) {
        // A manifest is derived, not verified: its findings are shown, its verdict only sets
        // the exit code.
        report.hints.informational = true;
    }
    report.tool.commit = crossverify::report::BUILD_COMMIT.map(str::to_owned);
    if cli.global.sign_report.is_some() {
        let mut invocation = crossverify::attest::invocation(std::env::args_os().skip(1))?;
        if let Some(a) = &after {
            invocation = a.recorded(invocation);
        }
        crossverify::attest::record(&mut report, &invocation);
    }
    crossverify::protocols::describe(&mut report);
    bar.clear();
    if let Some(a) = &after {
        a.write(&report, cli.global.sign_report.as_deref())?;
    }
    if let (Some(key), Some(path)) = (&cli.global.sign_report, &cli.global.attestation) {
        crossverify::attest::write_attestation(&report, key, path)?;
    }
    emit(&report, &cli.global)?;
    let code = report.exit_code();
    // The process ends once this returns: freeing a report of a thousand cycles entry by entry
    // would only delay the exit (a tenth of a re-verification's time, measured).
    std::mem::forget(report);
    Ok(code)
}

/// `crossverify verify PATH`: the protocol that recognises PATH runs the command for it, after
/// saying so; one that needs an input not given names it, with the command (exit 2).
fn verify(path: &Path, given: crossverify::protocols::Given<'_>, quiet: bool, ctx: Ctx<'_>) -> anyhow::Result<Report> {
    // A mistyped path is the user's, and "not something crossverify recognises" would send
    // them looking for a format problem.
    match std::fs::metadata(path) {
        Err(_) if std::fs::symlink_metadata(path).is_err() => bail!("{}: not found", path.display()),
        Err(e) => bail!("{}: cannot be read: {e}", path.display()),
        // A FIFO or a device would block or never end when a detector reads it.
        Ok(m) if !m.is_file() && !m.is_dir() => {
            bail!("{}: not a regular file or directory; crossverify reads files and directories", path.display())
        }
        Ok(_) => {}
    }
    if let Some(inner) = crossverify::submission::sole_record_below(path) {
        if !quiet {
            let _ =
                writeln!(std::io::stderr(), "crossverify: {} holds one record, in {}", path.display(), inner.display());
        }
        return verify(&inner, given, quiet, ctx);
    }
    if let Some(why) = crossverify::submission::ambiguity(path) {
        bail!(why);
    }
    let found = crossverify::protocols::detect(path, given).map_err(anyhow::Error::msg)?;
    let (what, command) = (found.what, found.command);
    let run = found.run.map_err(|needs| anyhow::anyhow!("{}: {what}: {needs}: `{command}`", path.display()))?;
    if !quiet {
        let _ = writeln!(std::io::stderr(), "crossverify: detected {what}: running `{command}`");
    }
    let mut report = run(ctx).map_err(|e| anyhow::anyhow!(e))?;
    report.input("frontDoor", serde_json::json!({ "detected": what, "ran": command }));
    Ok(report)
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
        summary: g.summary,
    };
    // Buffered: standard output flushes at every line break, and pretty JSON has one per key.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match render::write(report, g.format, &opts, &mut out).and_then(|()| out.flush()) {
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

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
    /// Verify the demo ledger built into the binary (no arguments, no network, no git CLI).
    #[command(after_help = help!("crossverify demo", "crossverify demo --format html > demo.html"))]
    Demo,
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
    /// Verify a whole CrossAudit ledger: every receipt, the history, the I1–I8 conformance.
    #[command(after_help = help!(
        "crossverify ledger --audit audit --science science",
        "crossverify ledger --audit audit --science science --summary --output html=report.html",
        "crossverify ledger --audit science   # the product's local mode"
    ))]
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
        /// Allowed-signers file (git's gpg.ssh.allowedSignersFile format): every ledger commit
        /// must carry an SSH signature by a key it allows for the committer (CV-T001–CV-T004).
        #[arg(long, value_name = "FILE")]
        allowed_signers: Option<PathBuf>,
        #[command(flatten)]
        sigstore: SigstoreArgs,
        #[command(flatten)]
        scale: scale::LedgerArgs,
    },
    /// Verify one receipt and decide its admission (the CI gate).
    #[command(after_help = help!(
        "crossverify receipt --science . --expect-sha \"$GITHUB_SHA\" --admit",
        "crossverify receipt .crossaudit/ledger/cycle-3/receipt.json --science science --audit audit",
        "crossverify receipt --science . --expect-sha HEAD-SHA --admit --consumed consumed.txt"
    ))]
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
        /// Allowed-signers file: every ledger commit must be signed by a key it allows.
        #[arg(long, value_name = "FILE")]
        allowed_signers: Option<PathBuf>,
        #[command(flatten)]
        sigstore: SigstoreArgs,
        #[command(flatten)]
        cache: scale::CacheArgs,
    },
    #[command(after_help = help!(
        "crossverify bundle bundle.json --repo . --trust-store trust-store.json",
        "crossverify bundle bundle.json --repo . --trusted-key \"$(cat signer.pub)\" --format json | jq -r .reason"
    ))]
    /// Verify a Proof-or-Stop receipt bundle offline, deciding one of the paper's reason codes.
    ///
    /// The JSON report's top-level `reason` is `ok` or one of the ten rejection codes, decided
    /// by a fixed check order (specs/proof-or-stop.md).
    Bundle {
        /// The bundle (`application/vnd.proof-or-stop.bundle.v1+json`).
        bundle: PathBuf,
        /// Repository holding the live state.
        #[arg(long, value_name = "PATH")]
        repo: PathBuf,
        /// Live revision H (default HEAD).
        #[arg(long, value_name = "REV")]
        rev: Option<String>,
        /// Trust store (`proof-or-stop/trust-store/v1`).
        #[arg(long, value_name = "FILE", required_unless_present = "trusted_key", conflicts_with = "trusted_key")]
        trust_store: Option<PathBuf>,
        /// A single trusted Ed25519 key (64 hex digits or base64 of the 32 bytes).
        #[arg(long, value_name = "PUBKEY")]
        trusted_key: Option<String>,
        /// The story the bundle must be about.
        #[arg(long, value_name = "ID")]
        story: Option<String>,
        #[command(flatten)]
        live: PosLive,
    },
    #[command(after_help = help!(
        "crossverify floor .proof-or-stop/story/actives/B-0001 --repo . --trust-store trust-store.json",
        "crossverify floor evidence --repo . --trust-store trust-store.json --rounds 2 --format json"
    ))]
    /// Proof-or-Stop review-assurance floor and done gate over an evidence directory.
    Floor {
        /// Evidence directory (`verdicts/*.json`, `findings.json`).
        evidence: PathBuf,
        /// Repository holding the live state.
        #[arg(long, value_name = "PATH")]
        repo: PathBuf,
        /// Live revision H (default HEAD).
        #[arg(long, value_name = "REV")]
        rev: Option<String>,
        /// Trust store (`proof-or-stop/trust-store/v1`).
        #[arg(long, value_name = "FILE")]
        trust_store: PathBuf,
        /// Rounds R the floor requires: raises the paper's 3 and the live policy's, never lowers them.
        #[arg(long)]
        rounds: Option<u32>,
        /// Independent passes K per round: raises the paper's 2 and the live policy's, never lowers them.
        #[arg(long)]
        per_round: Option<u32>,
        #[command(flatten)]
        live: PosLive,
    },
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
    /// Detect what PATH holds (ledger, receipt, records, transcript), say so and run the command for it.
    #[command(after_help = help!(
        "crossverify verify audit --science science",
        "crossverify verify ledger/cycles.jsonl",
        "crossverify verify _Msg --format html > transcript.html"
    ))]
    Verify {
        /// A ledger repository or directory, a receipt file, or ledger records.
        path: PathBuf,
        /// Science repository (a paired ledger's, or for fix commits named in records).
        #[arg(long, value_name = "PATH")]
        science: Option<PathBuf>,
    },
    /// Replay a CrossExam transcript (a `_Msg/` directory) and report every protocol rule.
    #[command(after_help = help!(
        "crossverify transcript _Msg",
        "crossverify transcript _Msg --prior bus-2026-11-30.jsonl --format html > transcript.html",
        "crossverify transcript old-panel/_Msg --legacy"
    ))]
    Transcript {
        /// The `_Msg/` directory.
        dir: PathBuf,
        /// Transcript from before sealed envelopes (crossexam 0.1.0–0.4.x).
        #[arg(long)]
        legacy: bool,
        /// An earlier snapshot of bus.jsonl that must be a byte prefix of it (repeatable).
        #[arg(long = "prior", value_name = "SNAPSHOT")]
        priors: Vec<PathBuf>,
    },
    /// Combine the JSON reports of `ledger --shard K/N` into the report of one unsharded run.
    #[command(after_help = help!(
        "crossverify merge shard-1.json shard-2.json shard-3.json",
        "crossverify merge reports/*.json --format json > ledger.json",
        "crossverify merge --trusted-key shards.pub shard-*.dsse.json"
    ))]
    ///
    /// All N shards, in any order; the ledger is read again at the same audit head, without
    /// hashing (docs/scale.md).
    Merge {
        /// The shard reports (with --trusted-key: the envelopes their --sign-report wrote).
        #[arg(required = true, value_name = "REPORT.json")]
        reports: Vec<PathBuf>,
        /// Take only shards signed with this OpenSSH Ed25519 public key: each REPORT is the
        /// envelope `ledger --shard K/N --sign-report KEY --attestation REPORT` wrote, and one
        /// that does not verify refuses the set (docs/scale.md, "What merge trusts").
        #[arg(long, value_name = "PUBKEY")]
        trusted_key: Option<PathBuf>,
    },
    /// Verify many ledgers, one JSON line each, resuming where a previous run stopped.
    #[command(after_help = help!(
        "crossverify batch submissions.jsonl --output-jsonl results.jsonl",
        "crossverify batch submissions.jsonl --output-jsonl results.jsonl --cache ~/.cache/crossverify"
    ))]
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
    #[command(after_help = help!("crossverify checks", "crossverify checks --format csv > checks.csv"))]
    Checks,
    /// Print the documentation page of a check code.
    #[command(after_help = help!("crossverify explain CV-A701", "crossverify explain cv-g002 --format html > CV-G002.html"))]
    Explain {
        /// Check code, e.g. CV-A701.
        code: String,
    },
}

/// Where the live Proof-or-Stop configuration comes from (default: the repository's
/// `.proof-or-stop/` at the revision).
#[derive(clap::Args, Debug)]
struct PosLive {
    /// Live policy (`proof-or-stop/policy/v1`).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Live command set (`proof-or-stop/command-set/v1`).
    #[arg(long, value_name = "FILE")]
    command_set: Option<PathBuf>,
    /// Live story scope (`proof-or-stop/scope/v1`).
    #[arg(long, value_name = "FILE")]
    scope: Option<PathBuf>,
}

impl PosLive {
    fn sources(&self, dir: Option<&Path>) -> crossverify::proof_or_stop::live::Sources {
        crossverify::proof_or_stop::live::Sources {
            policy: self.policy.clone(),
            command_set: self.command_set.clone(),
            scope: self.scope.clone(),
            dir: dir.map(Path::to_owned),
        }
    }
}

/// Receipts wrapped in Sigstore bundles (`<cycle>/receipt.json.sigstore.json`), verified offline.
#[derive(clap::Args, Debug)]
struct SigstoreArgs {
    /// Sigstore trusted root (`trusted_root.json`) the bundles must chain to; without it a bundle
    /// is inconclusive.
    #[arg(long, value_name = "FILE")]
    trusted_root: Option<PathBuf>,
    /// Identity the signing certificate must name (an e-mail address or URI).
    #[arg(long, value_name = "SAN", requires = "certificate_oidc_issuer")]
    certificate_identity: Option<String>,
    /// OIDC issuer the signing certificate must name.
    #[arg(long, value_name = "URL", requires = "certificate_identity")]
    certificate_oidc_issuer: Option<String>,
}

impl SigstoreArgs {
    fn options(&self) -> crossverify::anchors::sigstore::Options {
        crossverify::anchors::sigstore::Options {
            trusted_root: self.trusted_root.clone(),
            identity: self.certificate_identity.clone(),
            issuer: self.certificate_oidc_issuer.clone(),
        }
    }
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "crossverify: error: {e:#}");
            ExitCode::from(2)
        }
    }
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
    let _ = writeln!(err, "crossverify: error: {}", one_line(&e.render().to_string()));
    ExitCode::from(2)
}

/// clap's multi-line message as one line: `error:` dropped, the usage kept after a `;`, the
/// "try --help" hint kept once at the end.
fn one_line(rendered: &str) -> String {
    let mut message: Vec<&str> = Vec::new();
    let mut usage = None;
    let mut hint = None;
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(u);
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

fn run(cli: &Cli) -> anyhow::Result<u8> {
    check_outputs(&cli.global.outputs)?;
    if cli.global.sign_report.is_some() && matches!(cli.command, Command::Batch { .. }) {
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
    let mut report = match &cli.command {
        Command::Manifest { repo, rev, scopes } => crossverify::foundation::command(repo, rev, scopes, ctx)?,
        Command::Demo => crossaudit::demo(ctx).context("running the demo")?,
        Command::Ledger { audit, science, dialect, audit_rev, expect_audit_head, allowed_signers, sigstore, scale } => {
            let mut o = crossaudit::Options::new(audit);
            o.science.clone_from(science);
            o.dialect = (*dialect).into();
            o.audit_rev.clone_from(audit_rev);
            o.expect_audit_head.clone_from(expect_audit_head);
            o.allowed_signers.clone_from(allowed_signers);
            o.sigstore = sigstore.options();
            scale::ledger(scale, o, cli.global.quiet, ctx)?
        }
        Command::Receipt {
            receipt,
            science,
            audit,
            expect_sha,
            expect_repo,
            admit,
            consumed,
            audit_rev,
            allowed_signers,
            sigstore,
            cache,
        } => {
            let ledger_repo = audit.clone().unwrap_or_else(|| science.clone());
            let mut o = crossaudit::Options::new(&ledger_repo);
            o.science = Some(science.clone());
            o.audit_rev.clone_from(audit_rev);
            o.expect_sha.clone_from(expect_sha);
            o.expect_repo.clone_from(expect_repo);
            o.allowed_signers.clone_from(allowed_signers);
            let record = consumed.as_deref().map(read_consumed).transpose()?;
            o.consumed = record.as_ref().map(|r| r.ids.clone());
            o.sigstore = sigstore.options();
            o.cache = cache.open(cli.global.quiet)?;
            let mut report = crossaudit::receipt(&o, receipt.as_deref(), *admit, ctx)?;
            if let Some(r) = &record {
                report.input("consumed", r.describe());
                if r.absent && !cli.global.quiet {
                    let _ = writeln!(std::io::stderr(), "crossverify: note: {}", r.describe());
                }
            }
            cache.finish(o.cache.as_deref(), cli.global.quiet);
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
            if crossverify::proof_or_stop::stats::is_evidence(path) {
                crossverify::stats::command(&opts, || crossverify::proof_or_stop::stats::read(path))?
            } else if crossverify::crossexam::stats_input::is_transcript(path) {
                crossverify::stats::command(&opts, || crossverify::crossexam::stats_input::read(path, rev.as_deref()))?
            } else {
                crossverify::stats::command(&opts, || {
                    crossaudit::stats_input::read(path, rev.as_deref(), science.as_deref(), ctx)
                })?
            }
        }
        Command::Bundle { bundle, repo, rev, trust_store, trusted_key, story, live } => {
            use crossverify::proof_or_stop::{self as pos, Trust};
            let trust = match (trust_store, trusted_key) {
                (Some(p), _) => Trust::Store(p.clone()),
                (None, Some(k)) => Trust::Key(k.clone()),
                (None, None) => bail!("--trust-store or --trusted-key is required"),
            };
            let o = pos::BundleOptions {
                bundle: bundle.clone(),
                repo: repo.clone(),
                rev: rev.clone(),
                trust,
                sources: live.sources(None),
                story: story.clone(),
            };
            pos::bundle(&o)?
        }
        Command::Floor { evidence, repo, rev, trust_store, rounds, per_round, live } => {
            let o = crossverify::proof_or_stop::FloorOptions {
                evidence: evidence.clone(),
                repo: repo.clone(),
                rev: rev.clone(),
                trust_store: trust_store.clone(),
                rounds: *rounds,
                per_round: *per_round,
                sources: live.sources(Some(evidence)),
            };
            crossverify::proof_or_stop::floor(&o)?
        }
        Command::Verify { path, science } => {
            let found = crossverify::protocols::detect(path, science.as_deref()).map_err(anyhow::Error::msg)?;
            if !cli.global.quiet {
                let _ =
                    writeln!(std::io::stderr(), "crossverify: detected {}: running `{}`", found.what, found.command);
            }
            let (what, command) = (found.what.clone(), found.command.clone());
            let mut report = (found.run)(ctx).map_err(|e| anyhow::anyhow!(e))?;
            report.input("frontDoor", serde_json::json!({ "detected": what, "ran": command }));
            report
        }
        Command::Transcript { dir, legacy, priors } => {
            let mut o = crossverify::crossexam::Options::new(dir);
            o.legacy = *legacy;
            o.priors.clone_from(priors);
            crossverify::crossexam::transcript(&o)?
        }
        Command::Attest { envelope, trusted_key, replay } => {
            let replayer = |args: &[String]| replay_run(args);
            let replayer: crossverify::attest::Replayer<'_> = &replayer;
            crossverify::attest::attest(envelope, trusted_key, replay.then_some(replayer))?
        }
        Command::Merge { reports, trusted_key } => scale::merge(reports, trusted_key.as_deref(), ctx)?,
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
    report.tool.commit = crossverify::report::BUILD_COMMIT.map(str::to_owned);
    if cli.global.sign_report.is_some() {
        let invocation = crossverify::attest::invocation(std::env::args_os().skip(1))?;
        crossverify::attest::record(&mut report, &invocation);
    }
    crossverify::protocols::describe(&mut report);
    bar.clear();
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

/// The gate's record of admitted receipts, as read.
struct Consumed {
    path: PathBuf,
    ids: std::collections::BTreeSet<String>,
    /// The file does not exist yet: the first run of a gate, treated as an empty record.
    absent: bool,
}

impl Consumed {
    fn describe(&self) -> String {
        if self.absent {
            format!(
                "--consumed {} does not exist yet: treated as an empty record (nothing admitted so far)",
                self.path.display()
            )
        } else {
            format!(
                "{} ({} receipt identit{})",
                self.path.display(),
                self.ids.len(),
                if self.ids.len() == 1 { "y" } else { "ies" }
            )
        }
    }
}

/// Reads `--consumed`: one receipt identity per line. A file that does not exist is the
/// gate's first run: an empty record, said so in the report and on standard error.
fn read_consumed(path: &Path) -> anyhow::Result<Consumed> {
    let text = match std::fs::read_to_string(path) {
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && path.parent().is_none_or(|d| d.as_os_str().is_empty() || d.is_dir()) =>
        {
            return Ok(Consumed { path: path.to_owned(), ids: std::collections::BTreeSet::new(), absent: true });
        }
        other => other.with_context(|| format!("reading --consumed file {}", path.display()))?,
    };
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
    Ok(Consumed { path: path.to_owned(), ids: set, absent: false })
}

/// Runs a recorded invocation again, as a fresh `crossverify` process writing its JSON report
/// to a pipe, so the replay goes through exactly the argument parsing and command code of a
/// normal run; `Err` when it could not run (exit 2: moved or unreadable inputs).
fn replay_run(args: &[String]) -> Result<Report, String> {
    let exe = std::env::current_exe().map_err(|e| format!("locating the crossverify binary: {e}"))?;
    let out = std::process::Command::new(exe)
        .args(args)
        .args(["--format", "json", "--quiet"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("running the recorded command: {e}"))?;
    if !matches!(out.status.code(), Some(0 | 1 | 3)) {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("reading the replayed report: {e}"))
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

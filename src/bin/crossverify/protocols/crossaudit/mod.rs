//! CrossAudit's subcommands: the demo, ledgers, receipts, and the scale commands (`merge`,
//! `batch`, in `scale.rs`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Subcommand;
use crossverify::crossaudit::{self, DialectChoice};

mod scale;

use super::{Env, Ran};

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    #[command(display_order = 0)]
    /// Verify the demo ledger built into the binary (no arguments, no network, no git CLI).
    #[command(after_help = help!("crossverify demo", "crossverify demo --format html > demo.html"))]
    Demo,
    #[command(display_order = 2)]
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
    #[command(display_order = 3)]
    /// Verify one receipt and decide its admission (the CI gate).
    #[command(after_help = help!(
        "crossverify receipt --science . --expect-sha \"$GITHUB_SHA\" --admit",
        "crossverify receipt .crossaudit/ledger/cycle-3/receipt.json --science science --audit audit",
        "crossverify receipt --science . --expect-sha HEAD-SHA --admit --consumed consumed.txt"
    ))]
    Receipt(ReceiptArgs),
    #[command(display_order = 10)]
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
    #[command(display_order = 11)]
    /// Verify many ledgers, one JSON line each, resuming where a previous run stopped.
    #[command(after_help = help!(
        "crossverify batch submissions.jsonl --output-jsonl results.jsonl",
        "crossverify batch submissions.jsonl --output-jsonl results.jsonl --resume --cache ~/.cache/crossverify",
        "crossverify batch queue/ --output-jsonl results.jsonl --certificates certificates/ --resume"
    ))]
    ///
    /// Exit 1 if any failed, else 3 if any was inconclusive or could not run, else 0
    /// (docs/scale.md).
    Batch {
        /// JSON lines: {"audit": PATH, "science": PATH, "id": NAME, "auditRev": REV, "dialect": D};
        /// or a folder of submissions (archives, bundles, folders of repositories), one per entry.
        list: PathBuf,
        /// Where the lines go (appended). A file that already holds lines is refused unless
        /// --resume is given.
        #[arg(long, value_name = "FILE")]
        output_jsonl: PathBuf,
        /// Keep the lines already in the output for ledgers that still resolve to the audit head
        /// they were about (exit 0 or 1 only; taken from the file, not verified again).
        #[arg(long)]
        resume: bool,
        /// When LIST is a folder of submissions: write each one's certificate here as ID.html.
        #[arg(long, value_name = "DIR")]
        certificates: Option<PathBuf>,
        #[command(flatten)]
        journal: crate::submission::QueueArgs,
        #[command(flatten)]
        cache: scale::CacheArgs,
    },
}

#[derive(clap::Args, Debug)]
pub(crate) struct ReceiptArgs {
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
}

impl Command {
    pub(crate) fn run(&self, env: &Env<'_>) -> anyhow::Result<Ran> {
        let (ctx, quiet) = (env.ctx, env.quiet);
        Ok(Ran::Report(Box::new(match self {
            Command::Demo => crossaudit::demo(ctx).context("running the demo")?,
            Command::Ledger {
                audit,
                science,
                dialect,
                audit_rev,
                expect_audit_head,
                allowed_signers,
                sigstore,
                scale,
            } => {
                let mut o = crossaudit::Options::new(audit);
                o.science.clone_from(science);
                o.dialect = (*dialect).into();
                o.audit_rev.clone_from(audit_rev);
                o.expect_audit_head.clone_from(expect_audit_head);
                o.allowed_signers.clone_from(allowed_signers);
                o.sigstore = sigstore.options();
                scale::ledger(scale, o, quiet, ctx)?
            }
            Command::Receipt(args) => receipt(args, env)?,
            Command::Merge { reports, trusted_key } => scale::merge(reports, trusted_key.as_deref(), ctx)?,
            Command::Batch { list, output_jsonl, resume, certificates, journal, .. } if list.is_dir() => {
                let certificates = certificates.as_deref();
                let (out, resume) = (output_jsonl, *resume);
                return Ok(Ran::Exit(crate::submission::batch(list, out, certificates, resume, journal, quiet, ctx)));
            }
            Command::Batch { journal, .. }
                if journal.trust_store.is_some()
                    || journal.accept_self_declared_keys
                    || journal.limits.limits() != crossverify::intake::Limits::default() =>
            {
                anyhow::bail!(
                    "--trust-store, --accept-self-declared-keys and the --max-* limits apply to a folder of \
                     submissions; a JSON-lines list of ledgers takes neither"
                )
            }
            Command::Batch { list, output_jsonl, resume, cache, .. } => {
                return Ok(Ran::Exit(scale::batch(list, output_jsonl, *resume, cache, quiet, ctx)));
            }
        })))
    }
}

fn receipt(args: &ReceiptArgs, env: &Env<'_>) -> anyhow::Result<crossverify::report::Report> {
    let ReceiptArgs {
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
    } = args;
    let ledger_repo = match (audit, receipt) {
        (Some(a), _) => a.clone(),
        // A receipt file of a paired ledger lives in the ledger's repository, not in --science:
        // the ledger it names is the one it is verified in (said once, on standard error).
        (None, Some(r)) => match crossaudit::detect::ledger_repository_of(r, science) {
            Some(root) => {
                if !env.quiet {
                    let _ = writeln!(
                        std::io::stderr(),
                        "crossverify: note: {} lives in the ledger repository {}, not in --science {}: verifying it \
                         there (`--audit {}`)",
                        r.display(),
                        root.display(),
                        science.display(),
                        root.display()
                    );
                }
                root
            }
            None => science.clone(),
        },
        (None, None) => science.clone(),
    };
    let mut o = crossaudit::Options::new(&ledger_repo);
    o.science = Some(science.clone());
    o.audit_rev.clone_from(audit_rev);
    o.expect_sha.clone_from(expect_sha);
    o.expect_repo.clone_from(expect_repo);
    o.allowed_signers.clone_from(allowed_signers);
    let record = consumed.as_deref().map(read_consumed).transpose()?;
    o.consumed = record.as_ref().map(|r| r.ids.clone());
    o.sigstore = sigstore.options();
    o.cache = cache.open(env.quiet)?;
    let mut report = crossaudit::receipt(&o, receipt.as_deref(), *admit, env.ctx)?;
    if let Some(r) = &record {
        report.input("consumed", r.describe());
        if r.absent && !env.quiet {
            let _ = writeln!(std::io::stderr(), "crossverify: note: {}", r.describe());
        }
    }
    cache.finish(o.cache.as_deref(), env.quiet);
    Ok(report)
}

/// Receipts wrapped in Sigstore bundles (`<cycle>/receipt.json.sigstore.json`), verified offline.
#[derive(clap::Args, Debug)]
pub(crate) struct SigstoreArgs {
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
    pub(crate) fn options(&self) -> crossverify::anchors::sigstore::Options {
        crossverify::anchors::sigstore::Options {
            trusted_root: self.trusted_root.clone(),
            identity: self.certificate_identity.clone(),
            issuer: self.certificate_oidc_issuer.clone(),
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum Dialect {
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
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            bail!(
                "--consumed {}: its directory {} does not exist (a gate's first run reads an absent record as \
                 empty, but only in a directory that exists: create it, or name a file in one)",
                path.display(),
                dir.display()
            );
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

impl Command {
    /// `batch` writes one JSON line per ledger, not a report.
    pub(crate) fn writes_no_report(&self) -> bool {
        matches!(self, Command::Batch { .. })
    }
}

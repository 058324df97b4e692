//! `crossverify conformance run`: scores verifiers against the conformance suite
//! (`specs/conformance.md`), and `crossverify conformance adapter`, crossverify's own adapter
//! (hidden: the run starts it as `--implementation crossverify`), which translates the kit's
//! CLI protocol into crossverify's commands and their reports into accept or reject.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::Subcommand;
use crossverify::conformance::{self, Implementation, Limits, Program};
use crossverify::json::{self, Value};
use crossverify::progress::Ctx;

use crate::protocols::Ran;

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Score verifiers against the conformance suite: a matrix of cases × implementations.
    #[command(display_order = 11, subcommand, after_help = help!(
        "crossverify conformance run --implementation crossverify",
        "crossverify conformance run --implementation crossverify --implementation crossaudit-recorded --format html > matrix.html"
    ))]
    Conformance(Action),
}

#[derive(Subcommand, Debug)]
pub(crate) enum Action {
    /// Run every case of the suite with every implementation and score each one.
    ///
    /// Exit 0 only when every implementation decided every case as the paper requires (each
    /// column's `allAsRequired`), 1 when one decided a case wrongly or broke on it (a false
    /// accept, a false reject, an error, a crash or a timeout), 3 when nothing was wrong but a
    /// case went undecided (an implementation skipped, a case declined with exit 77 or not
    /// recorded), 2 when the suite cannot be read or its manifest does not match its files.
    #[command(after_help = help!(
        "crossverify conformance run --implementation crossverify",
        "crossverify conformance run --implementation crossverify --implementation crossaudit-recorded --format html > matrix.html",
        "crossverify conformance run --implementation mine=./my-adapter --only proof-or-stop --journal run.jsonl"
    ))]
    Run {
        /// An implementation: `crossverify` (the built-in adapter), a recorded one the suite
        /// carries (`crossaudit-recorded`), or NAME=ADAPTER, an executable speaking the
        /// protocol of specs/conformance.md (repeatable; one matrix column each).
        #[arg(long = "implementation", value_name = "NAME[=ADAPTER]", required = true)]
        implementations: Vec<String>,
        /// A suite directory, holding manifest.json (`test-vectors/conformance` in a checkout);
        /// without it, the suite built into this binary, checked against its manifest alike.
        #[arg(long, value_name = "PATH")]
        suite: Option<PathBuf>,
        /// Only the cases of this protocol: crossaudit, proof-or-stop or crossexam.
        #[arg(long, value_name = "PROTOCOL")]
        only: Option<String>,
        /// Only the cases whose id contains TEXT (repeatable).
        #[arg(long = "case", value_name = "TEXT")]
        cases: Vec<String>,
        /// Seconds each run of an adapter may take before it is killed with everything it started.
        #[arg(long, value_name = "SECONDS", default_value_t = 120)]
        timeout: u64,
        /// Address space each run of an adapter may use, in MiB (`ulimit -v`).
        #[arg(long, value_name = "MIB", default_value_t = 4096)]
        memory: u64,
        /// Append each answer to FILE, and take the answers already there instead of running
        /// them again (an interrupted run resumes).
        #[arg(long, value_name = "FILE")]
        journal: Option<PathBuf>,
        /// Put each implementation's time in the report (left out by default, so that two runs
        /// give the same bytes).
        #[arg(long)]
        times: bool,
    },
    /// Runs ARGV… in a new session as a child subreaper, in place of this process: how `run`
    /// starts each adapter, so that what an adapter leaves running stays in its own tree
    /// (`src/conformance/contain.rs`).
    #[command(hide = true)]
    Contain {
        /// The command, after `--`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        argv: Vec<std::ffi::OsString>,
    },
    /// crossverify's own adapter (`specs/conformance.md`): OPERATION ARGS… → exit 0 accept, 1 reject.
    #[command(hide = true)]
    Adapter {
        /// probe, verify-receipt, verify-ledger, verify-bundle, verify-floor or verify-transcript.
        operation: String,
        /// The operation's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

impl Command {
    pub(crate) fn run(&self, ctx: Ctx<'_>) -> anyhow::Result<Ran> {
        let Command::Conformance(action) = self;
        match action {
            Action::Run { implementations, suite, only, cases, timeout, memory, journal, times } => {
                if let Some(p) = only
                    && !conformance::PROTOCOLS.contains(&p.as_str())
                {
                    bail!("--only {p}: not a protocol of the suite ({})", conformance::PROTOCOLS.join(", "));
                }
                // The built-in suite is written here and read back; cases are materialised from
                // its files, so the directory lives as long as the run.
                let unpacked;
                let (loaded, label) = match suite {
                    Some(dir) => (
                        conformance::load(dir).map_err(|e| anyhow::anyhow!("suite {}: {e}", dir.display()))?,
                        dir.display().to_string(),
                    ),
                    None => {
                        unpacked = tempfile::tempdir().context("creating a directory for the built-in suite")?;
                        let loaded = conformance::load_embedded(unpacked.path())
                            .map_err(|e| anyhow::anyhow!("the built-in suite: {e}"))?;
                        (loaded, conformance::EMBEDDED.to_owned())
                    }
                };
                let implementations =
                    implementations.iter().map(|s| implementation(s, &loaded)).collect::<anyhow::Result<Vec<_>>>()?;
                let scratch = tempfile::tempdir().context("creating a scratch directory")?;
                let exe = std::env::current_exe().context("locating the crossverify binary")?;
                let contain = Program { path: exe, prefix: vec!["conformance".into(), "contain".into()] };
                let opts = conformance::Options {
                    implementations,
                    only: only.clone(),
                    cases: cases.clone(),
                    limits: Limits { timeout: Duration::from_secs(*timeout), memory_mib: *memory },
                    scratch: scratch.path(),
                    journal: journal.clone(),
                    contain: Some(contain),
                };
                let ran = conformance::run(&loaded, &opts, ctx).map_err(anyhow::Error::msg)?;
                let report = conformance::report(&loaded, &ran, *times, &label);
                Ok(Ran::Report(Box::new(report)))
            }
            Action::Contain { argv } => {
                let e = conformance::exec_contained(argv);
                Ok(Ran::Exit(Err(anyhow::Error::new(e).context("starting the adapter"))))
            }
            Action::Adapter { operation, args } => Ok(Ran::Exit(adapter(operation, args))),
        }
    }
}

/// `--implementation` as the run takes it.
fn implementation(spec: &str, suite: &conformance::Suite) -> anyhow::Result<Implementation> {
    if let Some((name, path)) = spec.split_once('=') {
        if name.is_empty() || path.is_empty() {
            bail!("--implementation {spec}: expected NAME=ADAPTER");
        }
        let program = Program { path: std::path::absolute(path)?, prefix: Vec::new() };
        return Ok(Implementation::Adapter { name: name.to_owned(), program, given: path.to_owned() });
    }
    if spec == "crossverify" {
        let exe = std::env::current_exe().context("locating the crossverify binary")?;
        let program = Program { path: exe, prefix: vec!["conformance".into(), "adapter".into()] };
        return Ok(Implementation::Adapter { name: spec.to_owned(), program, given: spec.to_owned() });
    }
    if let Some(r) = suite.recorded.iter().find(|r| r.name == spec) {
        return Ok(Implementation::Recorded(r.clone()));
    }
    let recorded: Vec<&str> = suite.recorded.iter().map(|r| r.name.as_str()).collect();
    bail!(
        "--implementation {spec}: not `crossverify`, not a recorded implementation of the suite ({}), and not NAME=ADAPTER",
        recorded.join(", ")
    )
}

/// The built-in adapter: prints one JSON line and exits 0 (accept) or 1 (reject); 77 for an
/// operation it does not know, 2 when the arguments are not the protocol's.
fn adapter(operation: &str, args: &[String]) -> anyhow::Result<u8> {
    if operation == "probe" {
        let ops: Vec<Value> = conformance::OPERATIONS.iter().map(|(op, _)| Value::from(*op)).collect();
        let line = Value::Object(
            [
                ("name".to_owned(), Value::from("crossverify")),
                ("version".to_owned(), Value::from(env!("CARGO_PKG_VERSION"))),
                ("operations".to_owned(), Value::Array(ops)),
            ]
            .into(),
        );
        print_line(&line)?;
        return Ok(0);
    }
    let a = Args::parse(args)?;
    let (cmd, rule) = match operation {
        "verify-receipt" => (receipt_command(&a)?, Rule::Exit),
        "verify-ledger" => {
            let mut c = vec!["ledger".into(), "--audit".into(), a.need("ledger")?];
            if let Some(s) = a.get("science").filter(|s| Some(*s) != a.get("ledger")) {
                c.extend(["--science".into(), s.to_owned()]);
            }
            (c, Rule::Exit)
        }
        "verify-bundle" => (pos_command("bundle", "bundle", &a)?, Rule::Reason),
        "verify-floor" => (pos_command("floor", "evidence", &a)?, Rule::Gate),
        "verify-transcript" => {
            let mut c = vec!["transcript".into(), a.need("transcript")?];
            if let Some(p) = a.get("prior") {
                c.extend(["--prior".into(), p.to_owned()]);
            }
            if a.flag("legacy") {
                c.push("--legacy".into());
            }
            (c, Rule::Exit)
        }
        _ => return Ok(conformance::DECLINE as u8),
    };
    decide(&cmd, rule)
}

fn receipt_command(a: &Args) -> anyhow::Result<Vec<String>> {
    let ledger = a.need("ledger")?;
    let science = a.get("science").unwrap_or(&ledger).to_owned();
    let receipt = Path::new(&ledger).join(a.need("receipt")?);
    let mut c = vec!["receipt".into(), receipt.to_string_lossy().into_owned(), "--science".into(), science.clone()];
    if ledger != science {
        c.extend(["--audit".into(), ledger.clone()]);
    }
    for k in ["expect-sha", "expect-repo"] {
        if let Some(v) = a.get(k) {
            c.extend([format!("--{k}"), v.to_owned()]);
        }
    }
    Ok(c)
}

/// `bundle BUNDLE` or `floor EVIDENCE`, with the Proof-or-Stop options the protocol passes.
fn pos_command(command: &str, positional: &str, a: &Args) -> anyhow::Result<Vec<String>> {
    let mut c = vec![command.to_owned(), a.need(positional)?];
    for k in ["repo", "trust-store", "trusted-key", "rev", "story", "policy", "command-set", "scope"] {
        if let Some(v) = a.get(k) {
            c.extend([format!("--{k}"), v.to_owned()]);
        }
    }
    Ok(c)
}

/// How crossverify's report becomes a decision (specs/conformance.md, "crossverify's adapter").
#[derive(Clone, Copy)]
enum Rule {
    /// Exit 0 or 3 accepts (nothing failed), 1 rejects.
    Exit,
    /// The report's reason `ok` accepts, any other reason rejects.
    Reason,
    /// The done gate: exit 0 accepts, 1 or 3 rejects (an undecidable floor is not met).
    Gate,
}

fn decide(cmd: &[String], rule: Rule) -> anyhow::Result<u8> {
    let exe = std::env::current_exe().context("locating the crossverify binary")?;
    let out = std::process::Command::new(exe)
        .args(cmd)
        .args(["--format", "json", "--quiet"])
        .env("CROSSVERIFY_NO_CACHE", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .context("running crossverify")?;
    let code = out.status.code().unwrap_or(-1);
    let report = json::parse(&out.stdout).ok();
    let failing = report.as_ref().map(failing_codes).unwrap_or_default();
    let reason = report.as_ref().and_then(|r| r.get("reason")).and_then(Value::as_str).map(str::to_owned);
    let accept = match (rule, code) {
        (_, 2) => {
            // A record crossverify cannot read is refused, as the differential harness counts it.
            let why = String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or_default().to_owned();
            return answer(false, &format!("could not read: {why}"));
        }
        (Rule::Reason, 0 | 1 | 3) => reason.as_deref() == Some("ok"),
        (Rule::Exit, 0 | 3) | (Rule::Gate, 0) => true,
        (Rule::Exit | Rule::Gate, 1) | (Rule::Gate, 3) => false,
        (_, other) => bail!("crossverify exited {other}: {}", String::from_utf8_lossy(&out.stderr).trim()),
    };
    answer(accept, reason.as_deref().unwrap_or(&failing))
}

fn failing_codes(report: &Value) -> String {
    let mut codes: Vec<&str> = report
        .get("results")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter(|r| {
            r.get("level").and_then(Value::as_str) == Some("error")
                && r.get("outcome").and_then(Value::as_str) == Some("failed")
        })
        .filter_map(|r| r.get("code").and_then(Value::as_str))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    codes.join(" ")
}

fn answer(accept: bool, reason: &str) -> anyhow::Result<u8> {
    let decision = if accept { "accept" } else { "reject" };
    let line = Value::Object(
        [("decision".to_owned(), Value::from(decision)), ("reason".to_owned(), Value::from(reason))].into(),
    );
    print_line(&line)?;
    Ok(u8::from(!accept))
}

/// The adapter's answer line on standard output.
fn print_line(v: &Value) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", json::canonical(v)).context("writing the answer")
}

/// `--key value` pairs and bare `--flag`s, as the protocol passes them.
struct Args(Vec<(String, Option<String>)>);

impl Args {
    fn parse(args: &[String]) -> anyhow::Result<Args> {
        let mut out = Vec::new();
        let mut it = args.iter().peekable();
        while let Some(a) = it.next() {
            let Some(key) = a.strip_prefix("--") else { bail!("unexpected argument {a:?}") };
            let value = it.next_if(|v| !v.starts_with("--")).cloned();
            out.push((key.to_owned(), value));
        }
        Ok(Args(out))
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.as_deref())
    }

    fn need(&self, key: &str) -> anyhow::Result<String> {
        self.get(key).map(str::to_owned).with_context(|| format!("--{key} is required"))
    }

    fn flag(&self, key: &str) -> bool {
        self.0.iter().any(|(k, v)| k == key && v.is_none())
    }
}

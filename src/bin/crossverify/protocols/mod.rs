//! Each protocol's subcommands, one line per protocol: the binary's side of the list of
//! protocols (`src/protocols.rs`). A protocol's file declares its subcommands (with their
//! place in `--help`) and runs them; `main.rs` runs whichever was asked for.

mod crossaudit;
mod crossexam;
mod proof_or_stop;

use clap::Subcommand;
use crossverify::progress::Ctx;
use crossverify::report::Report;

/// What a protocol's subcommand needs from the command layer.
pub(crate) struct Env<'a> {
    pub(crate) ctx: Ctx<'a>,
    pub(crate) quiet: bool,
}

/// What a subcommand produced: a report to render, or (a command writing its own output, like
/// `batch`) the exit code.
pub(crate) enum Ran {
    Report(Box<Report>),
    Exit(anyhow::Result<u8>),
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    #[command(flatten)]
    CrossAudit(crossaudit::Command),
    #[command(flatten)]
    ProofOrStop(proof_or_stop::Command),
    #[command(flatten)]
    CrossExam(crossexam::Command),
}

impl Command {
    pub(crate) fn run(&self, env: &Env<'_>) -> anyhow::Result<Ran> {
        match self {
            Command::CrossAudit(c) => c.run(env),
            Command::ProofOrStop(c) => c.run(env),
            Command::CrossExam(c) => c.run(env),
        }
    }

    /// Whether the command writes a report (`--sign-report` has something to sign).
    pub(crate) fn writes_report(&self) -> bool {
        !matches!(self, Command::CrossAudit(c) if c.writes_no_report())
    }
}

//! CrossExam's subcommand: transcripts.

use std::path::PathBuf;

use clap::Subcommand;

use super::{Env, Ran};

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    #[command(display_order = 9)]
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
}

impl Command {
    pub(crate) fn run(&self, _: &Env<'_>) -> anyhow::Result<Ran> {
        let Command::Transcript { dir, legacy, priors } = self;
        let mut o = crossverify::crossexam::Options::new(dir);
        o.legacy = *legacy;
        o.priors.clone_from(priors);
        Ok(Ran::Report(Box::new(crossverify::crossexam::transcript(&o)?)))
    }
}

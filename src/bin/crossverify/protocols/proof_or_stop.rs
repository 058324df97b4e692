//! Proof-or-Stop's subcommands: receipt bundles and the review-assurance floor.

use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Subcommand;
use crossverify::proof_or_stop::{self as pos, Trust};

use super::{Env, Ran};

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    #[command(display_order = 4)]
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
    #[command(display_order = 5)]
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
}

impl Command {
    pub(crate) fn run(&self, _: &Env<'_>) -> anyhow::Result<Ran> {
        Ok(Ran::Report(Box::new(match self {
            Command::Bundle { bundle, repo, rev, trust_store, trusted_key, story, live } => {
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
                let o = pos::FloorOptions {
                    evidence: evidence.clone(),
                    repo: repo.clone(),
                    rev: rev.clone(),
                    trust_store: trust_store.clone(),
                    rounds: *rounds,
                    per_round: *per_round,
                    sources: live.sources(Some(evidence)),
                };
                pos::floor(&o)?
            }
        })))
    }
}

/// Where the live Proof-or-Stop configuration comes from (default: the repository's
/// `.proof-or-stop/` at the revision).
#[derive(clap::Args, Debug)]
pub(crate) struct PosLive {
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
    pub(crate) fn sources(&self, dir: Option<&Path>) -> pos::live::Sources {
        pos::live::Sources {
            policy: self.policy.clone(),
            command_set: self.command_set.clone(),
            scope: self.scope.clone(),
            dir: dir.map(Path::to_owned),
        }
    }
}

//! CrossAudit's entry in the list of protocols (`src/protocols.rs`): what it recognises, its
//! check families, its front-door detector and its statistics adapter.

use std::path::Path;

use crate::checks::{Check, Detection, Detector, Given};
use crate::stats::Adapter;

/// The protocol's name.
pub const NAME: &str = "CrossAudit";

/// What its detector looks for, for the message when no protocol recognises a path.
pub const RECOGNISES: &str =
    "a CrossAudit ledger or receipt, in a git repository or a directory, CrossAudit ledger records";

pub use crate::crossaudit::checks::FAMILY;

/// Its checks: the receipt ledgers' and the deployed ledgers'.
pub static CHECKS: &[&[&Check]] = &[crate::crossaudit::CHECKS, crate::crossaudit::deployed::CHECKS];

/// `crossverify verify PATH`: ledgers, receipts and records (`detect.rs`).
pub const DETECT: Option<Detector> = Some(detect);

/// `crossverify stats PATH`: CrossAudit reads whatever no other protocol recognises, and its
/// reader says what it looked for when PATH holds none of it.
pub const STATS: Option<Adapter> = Some(Adapter {
    recognises: None,
    read: |o, ctx| crate::crossaudit::stats::input::read(o.path, o.rev, o.science, ctx),
});

/// The science commits a ledger binds, which a journal's intake pairs it by.
pub const BINDS: Option<fn(&Path) -> Vec<String>> = Some(crate::crossaudit::commands::detect::bound_commits);

fn detect(path: &Path, given: Given<'_>) -> Option<Detection> {
    crate::crossaudit::detect::detect(path, given.get("science")).map(|d| Detection {
        what: d.what.clone(),
        command: d.command.clone(),
        run: match d.needs.clone() {
            Some(needs) => Err(needs),
            None => Ok(Box::new(move |ctx| d.run(ctx))),
        },
    })
}

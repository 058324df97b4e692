//! The front door's types: what a protocol's detector answers when `crossverify verify PATH`
//! asks whether PATH holds its records. They live with the registry's types so that each
//! protocol can build them and the list of protocols (above the protocols) can ask them.

use std::path::Path;

use crate::progress::Ctx;
use crate::report::Report;

/// Why a detected command could not run (exit 2).
pub type RunError = Box<dyn std::error::Error + Send + Sync>;

/// A detected command, ready to run.
pub type Run = Box<dyn FnOnce(Ctx<'_>) -> Result<Report, RunError>>;

/// What a detector found: the records, in the protocol's words, the command that verifies
/// them and that command itself, or what it still needs (an input the caller did not give).
pub struct Detection {
    /// What PATH holds, in the protocol's words.
    pub what: String,
    /// The command the run is equivalent to (with a placeholder for each input not given).
    pub command: String,
    /// Runs the detected command; `Err` names the inputs it needs that were not given.
    pub run: Result<Run, String>,
}

/// The paths `crossverify verify` was given beside PATH, by option name (`science`, `repo`):
/// each protocol takes the ones its commands use.
#[derive(Debug, Clone, Copy, Default)]
pub struct Given<'a>(pub &'a [(&'static str, &'a Path)]);

impl<'a> Given<'a> {
    /// The path given for `option`, if any.
    #[must_use]
    pub fn get(&self, option: &str) -> Option<&'a Path> {
        self.0.iter().find(|(name, _)| *name == option).map(|(_, p)| *p)
    }
}

/// A protocol's answer to "is PATH yours?".
pub type Detector = fn(&Path, Given<'_>) -> Option<Detection>;

//! CrossExam's entry in the list of protocols (`src/protocols.rs`): what it recognises, its
//! check family, its front-door detector and its statistics adapter.

use std::path::Path;

use crate::checks::{Check, Detection, Detector, Given};
use crate::stats::Adapter;

/// The protocol's name.
pub const NAME: &str = "CrossExam";

/// What its detector looks for, for the message when no protocol recognises a path.
pub const RECOGNISES: &str = "a CrossExam `_Msg` directory";

pub use super::checks::FAMILY;

/// Its checks.
pub static CHECKS: &[&[&Check]] = &[super::CHECKS];

/// `crossverify verify PATH`: a `_Msg` directory is replayed as `crossverify transcript` does.
pub const DETECT: Option<Detector> = Some(detect);

/// `crossverify stats PATH`: claims and concessions as finding lifecycles.
pub const STATS: Option<Adapter> = Some(Adapter {
    recognises: Some(super::stats_input::is_transcript),
    read: |o, _| super::stats_input::read(o.path, o.rev),
});

fn detect(path: &Path, _: Given<'_>) -> Option<Detection> {
    super::stats_input::is_transcript(path).then(|| {
        let opts = super::Options::new(path);
        Detection {
            what: "a CrossExam transcript (a `_Msg` directory with bus.jsonl)".to_owned(),
            command: format!("crossverify transcript {}", path.display()),
            run: Ok(Box::new(move |_| super::transcript(&opts).map_err(Into::into))),
        }
    })
}

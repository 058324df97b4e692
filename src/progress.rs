//! Progress reporting and cancellation, passed into the library by the caller.
//!
//! The library never draws anything: long operations call a [`Progress`] the binary wires to
//! indicatif on stderr (only on a TTY), and poll an interrupt flag between units of work.

use std::sync::atomic::{AtomicBool, Ordering};

/// Receives progress of long operations. Implementations must be cheap and thread-safe.
pub trait Progress: Sync {
    /// A phase starts with `total` units (`0` when unknown).
    fn start(&self, phase: &'static str, total: u64);
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
    /// `n` more bytes were processed (for throughput).
    fn bytes(&self, n: u64);
    /// The current phase ended.
    fn finish(&self);
}

/// Progress that goes nowhere.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: &'static str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn bytes(&self, _: u64) {}
    fn finish(&self) {}
}

/// What a long operation needs from its caller.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// Where progress goes.
    pub progress: &'a dyn Progress,
    /// Set by the caller (e.g. on Ctrl-C) to stop at the next unit of work.
    pub interrupt: &'a AtomicBool,
}

/// The operation was interrupted through [`Ctx::interrupt`].
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

impl Ctx<'_> {
    /// A context with no progress and a flag that is never set.
    #[must_use]
    pub fn silent() -> Ctx<'static> {
        static NEVER: AtomicBool = AtomicBool::new(false);
        Ctx { progress: &Silent, interrupt: &NEVER }
    }

    /// Fails when the caller asked to stop.
    ///
    /// # Errors
    /// [`Interrupted`] once the flag is set.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.interrupt.load(Ordering::Relaxed) { Err(Interrupted) } else { Ok(()) }
    }
}

//! The memory-budget tests (issue 21 §5): peak heap of every parser of untrusted input, counted by
//! a global allocator wrapped around the system's (`peakmem-alloc`: the crate's lint
//! configuration forbids `unsafe_code` in every target, and `GlobalAlloc` is an unsafe trait).
//! They are a binary apart from `tests/it/` because that allocator counts every thread of the
//! process; inside this one, each test holds [`alone`] while it measures.
#![allow(clippy::print_stderr)]

use std::sync::{Mutex, MutexGuard, PoisonError};

use peakmem_alloc::{INSTRUMENTED_SYSTEM, PeakMemAlloc};

#[global_allocator]
static HEAP: &PeakMemAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Held by a test for as long as it measures, so that no other test of this binary allocates
/// meanwhile (a failed test poisons the lock; the next one still runs alone).
fn alone() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

mod archives;
mod crossexam;
mod parsers;

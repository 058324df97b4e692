//! The report's order: results sorted by code, subject, outcome and message, stably.

use rayon::slice::ParallelSliceMut as _;

use super::CheckResult;

/// `results` put in report order: by code, subject, outcome and message, and equal results
/// in the order they were added.
///
/// A ledger's report holds tens of thousands of results of about 180 bytes each. The standard
/// stable sort moves them through a scratch buffer of up to 8 MB, fresh memory that the kernel
/// zeroes on first touch (on this machine the largest single cost of a re-verification). Here
/// their 32-bit positions are sorted on every core, with the position as the last key (so the
/// order is the same whichever thread sorts what), and the results are then swapped into
/// place, with no second vector (`benches/README.md`, the twelfth pass: 9.7 ms of one core
/// before, 6-7 ms on two).
pub(super) fn sort(results: &mut [CheckResult]) {
    if results.len() >= u32::MAX as usize {
        // Never on a report that fits in memory; positions below count in 32 bits.
        results.sort_by(|a, b| {
            (&a.code, &a.subject, a.outcome, &a.message).cmp(&(&b.code, &b.subject, b.outcome, &b.message))
        });
        return;
    }
    let mut order: Vec<u32> = (0u32..).take(results.len()).collect();
    {
        let r = &*results;
        let key = |i: u32| {
            let x = &r[i as usize];
            (&x.code, &x.subject, x.outcome, &x.message)
        };
        order.par_sort_unstable_by(|&a, &b| key(a).cmp(&key(b)).then(a.cmp(&b)));
    }
    permute(results, |j| order[j] as usize);
}

/// Puts at each position `j` the element at `from[j]` (a permutation), by following its
/// cycles: one swap per element, no second vector.
fn permute<T>(items: &mut [T], from: impl Fn(usize) -> usize) {
    let mut done = vec![false; items.len()];
    for start in 0..items.len() {
        let mut at = start;
        while !done[at] {
            done[at] = true;
            let next = from(at);
            if next == start {
                break;
            }
            // `at` receives `next`'s element; `start`'s element moves on to `next`.
            items.swap(at, next);
            at = next;
        }
    }
}

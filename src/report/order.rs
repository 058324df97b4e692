//! The report's order: results sorted by code, subject, outcome and message, stably.

use rayon::slice::ParallelSliceMut as _;

use super::CheckResult;

/// `results` put in report order: a stable sort by code, subject, outcome and message.
///
/// A ledger's report holds tens of thousands of results of 180 bytes each. Sorted where they
/// lie, they are moved at every merge through a buffer of half of them (3.5 MB of fresh
/// memory: the kernel zeroing first-touched pages was 27% of a warm run's samples,
/// `benches/README.md`); sorted as positions, on every core, and then permuted in place, each
/// moves once. On the 1,000 x
/// 2,000 bench ledger's re-verification: 9.7 ms of one core before, 6-7 ms on two now. The
/// position breaks ties, so equal results keep the order they were added in, whichever
/// thread sorts what.
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
        order.par_sort_by(|&a, &b| key(a).cmp(&key(b)));
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

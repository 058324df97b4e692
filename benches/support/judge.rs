//! A CrossExam transcript replayed in memory and timed, shared by the benches that time
//! `crossexam::judge` (`#[path = "support/judge.rs"] mod judged;`).

use std::path::Path;
use std::time::Instant;

use crossverify::crossexam::{judge, load::Arena};

/// The arena of one debate: a bus, the task's status line, at most one sealed answer and an
/// optional synthesis.
pub(crate) fn arena(bus: Vec<u8>, status: &str, sealed: Vec<u8>, synthesis: Option<Vec<u8>>) -> Arena {
    Arena {
        dir: Path::new("/nonexistent-crossverify-bench/_Msg").to_owned(),
        bus,
        task: Some(Ok(format!("status: {status}\n").into_bytes())),
        sealed: if sealed.is_empty() { Vec::new() } else { vec![("a".to_owned(), Ok(sealed))] },
        seen: Vec::new(),
        synthesis: synthesis.map(Ok),
        lock_dirs: Vec::new(),
    }
}

/// The median of `rounds` replays, in seconds.
pub(crate) fn median_secs(arena: &Arena, rounds: usize) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(judge(arena, false));
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

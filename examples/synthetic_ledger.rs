//! Builds a synthetic schema-2 ledger for scale experiments:
//! `cargo run --release --example synthetic_ledger -- OUT CYCLES FILES [MEAN_BYTES]`.

use std::path::Path;

use crossverify_fixtures::fixture::synthetic::{Options, Sizes};
use crossverify_fixtures::mint::{Synthetic, synthetic};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, out, cycles, files, rest @ ..] = args.as_slice() else {
        return Err("usage: synthetic_ledger OUT CYCLES FILES [MEAN_BYTES]".into());
    };
    let mean: u64 = rest.first().map_or(Ok(4096), |m| m.parse())?;
    let shape = Synthetic {
        science: Options {
            commits: cycles.parse()?,
            files: files.parse()?,
            churn_permille: 5,
            sizes: Sizes::Uniform { min: mean / 2, max: mean * 3 / 2 },
            ..Options::default()
        },
        blocked_every: 4,
    };
    let t = std::time::Instant::now();
    let built = synthetic(Path::new(out), &shape)?;
    let secs = t.elapsed().as_secs_f64();
    let mut stdout = std::io::stdout().lock();
    std::io::Write::write_fmt(
        &mut stdout,
        format_args!(
            "{} cycles, {} files ({} bytes), {} bound entries, built in {secs:.1} s\n",
            built.cycles, built.science.files, built.science.bytes, built.bound_entries
        ),
    )?;
    Ok(())
}

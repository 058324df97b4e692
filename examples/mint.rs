//! Builds a fixture ledger from a scenario, for looking at it with git:
//! `cargo run --example mint -- ledger-fixtures/demo.toml /tmp/demo`.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, scenario, out] = args.as_slice() else {
        return Err("usage: mint <scenario.toml> <output dir>".into());
    };
    crossverify_fixtures::mint::build_file(Path::new(scenario), Path::new(out))?;
    Ok(())
}

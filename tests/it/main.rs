//! Every integration test in one binary (issue 23 §2). Each file here was a test binary of its
//! own that linked the whole library: forty of them cost a cold build minutes and gigabytes of
//! `target/`. The memory-budget tests stay apart (`tests/memory_budget/`): their counting
//! global allocator must see one test at a time. One file's tests: `cargo test --test it FILE::`
//! (for instance `cargo test --test it registry::`).

// These modules were crate roots, where `pub` was how a helper was shared; now it is shared
// inside one crate.
#![allow(unreachable_pub)]

mod support;

// Helpers that several test files share, declared once.
#[path = "support/cache.rs"]
mod cache_lines;
#[path = "support/mutate.rs"]
mod mutate;
#[path = "support/sample.rs"]
mod sample;
#[path = "sigstore/ledger.rs"]
mod sigstore_ledger;
#[cfg(feature = "sigstore")]
#[path = "sigstore/mint.rs"]
mod sigstore_mint;
#[path = "support/oracle.rs"]
mod support_oracle;
#[path = "support/tools.rs"]
mod tools;

mod architecture;
mod attest;
mod attest_subjects;
mod cache;
mod cache_crash;
mod cache_default;
mod certificate;
mod cli;
mod conformance;
mod conformance_cli;
mod contrast;
mod crossexam;
mod crossexam_history;
mod crossexam_tool;
mod cycle_cache;
mod demo_ledger;
mod determinism;
mod docs;
mod fixtures;
mod formats;
mod fuzz_corpus;
mod gate;
mod html_chromium;
mod install_docs;
mod intake;
mod manifest_cli;
mod newcomer;
mod oracle;
mod proof_or_stop;
mod proof_or_stop_corpus;
mod proof_or_stop_oracles;
mod quickstart;
mod real_ledgers;
mod reftable;
mod registry;
mod report_schema;
mod shallow;
mod shard;
mod sigstore;
mod sigstore_untested;
mod stats;
mod trust_commits;
mod validators;
mod vectors;

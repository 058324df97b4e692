//! Whole-ledger verification with one cycle's receipt and report replaced by arbitrary bytes.
//!
//! The panics an adversarial review found were in the checks, not the parsers: a receipt that
//! parses can still carry a `sha` of multi-byte characters, a round of `i64::MIN` or a manifest
//! of odd names into code that trusted them. This is the entry point that drives those checks
//! with fuzzed records against a fixed genuine ledger: the `receipt_verify` fuzz target calls
//! it, and `tests/it/fuzz_corpus.rs` replays the committed seeds through it on stable Rust.
//!
//! The ledger is loaded once. Each substitution stores the receipt as a loose blob in the
//! ledger repository (use a throwaway copy), points the cycle and its history at it as if it
//! had been committed so, and parses the report in place; then every per-cycle check, the
//! controller replay and the ledger checks run, one thread, in ledger order.

use gix::bstr::ByteSlice;

use crate::crossaudit::crawl::verify;
use crate::crossaudit::load::{self, Ledger, Options};
use crate::crossaudit::model;
use crate::crossaudit::records::report_md;
use crate::crossaudit::replay::controller as replay;
use crate::git::EntryKind;
use crate::manifest::{BlobHashes, Digest};
use crate::report::CheckResult;

/// A loaded ledger with one cycle whose records are substituted.
pub struct Substitute {
    ledger: Ledger,
    cycle: usize,
    expect_audit_head: Option<String>,
}

impl Substitute {
    /// Loads the ledger `opts` names and selects its cycle directory `cycle_path`
    /// (`cycles/9c604cba4273-r2`).
    ///
    /// # Errors
    /// The ledger cannot be loaded, or has no such cycle.
    pub fn open(opts: &Options, cycle_path: &str) -> Result<Substitute, load::Error> {
        let ledger = load::load(opts)?;
        let cycle = ledger
            .cycles
            .iter()
            .position(|c| c.path == cycle_path)
            .ok_or_else(|| load::Error::Usage(format!("{cycle_path} is not a cycle directory of the ledger")))?;
        Ok(Substitute { ledger, cycle, expect_audit_head: opts.expect_audit_head.clone() })
    }

    /// The selected cycle directory, e.g. `cycles/9c604cba4273-r2`.
    #[must_use]
    pub fn cycle_path(&self) -> &str {
        &self.ledger.cycles[self.cycle].path
    }

    /// Verifies the whole ledger with `receipt` as the selected cycle's `receipt.json` and
    /// `report` as its `report.md`, and returns every result.
    ///
    /// # Errors
    /// The receipt could not be stored in the ledger repository.
    pub fn verify(&mut self, receipt: &[u8], report: &[u8]) -> Result<Vec<CheckResult>, crate::git::Error> {
        let audit = self.ledger.audit.local();
        let id = audit.write_blob(receipt)?;
        let c = &mut self.ledger.cycles[self.cycle];
        c.receipt_blob = Some(id);
        c.files.insert("receipt.json".into(), (EntryKind::File, id));
        c.report = Some((Digest::of(report), report_md::parse(&report.to_str_lossy())));
        let path = c.file("receipt.json");
        if let Ok(h) = &mut self.ledger.history
            && let Some((_, blob)) = h.added.get_mut(&path)
        {
            *blob = id;
        }
        Ok(self.verify_loaded())
    }

    fn verify_loaded(&self) -> Vec<CheckResult> {
        let ledger = &self.ledger;
        let hashes = BlobHashes::new();
        let last_change = crate::git::LastChangeMemo::default();
        let ctx = model::Ctx {
            ledger,
            hashes: &hashes,
            last_change: &last_change,
            expect_sha: None,
            expect_repo: None,
            shard: None,
        };
        let audit = ledger.audit.local();
        let science = ledger.science.as_ref().map(crate::git::SharedRepo::local);
        let mut scratch = crate::crossaudit::model::Scratch::default();
        let mut results = Vec::new();
        let mut facts = Vec::new();
        for c in &ledger.cycles {
            let (r, f) = verify::check_cycle(&ctx, &audit, science.as_ref(), c, &mut scratch);
            results.extend(r);
            facts.push(f);
        }
        let (replayed, _) = replay::controller(ledger, &mut facts);
        results.extend(replayed);
        verify::ledger_checks(ledger, &facts, self.expect_audit_head.as_deref(), &mut results);
        results
    }
}

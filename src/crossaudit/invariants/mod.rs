//! The checks, one file (or folder) per invariant family. Each reads the model of one cycle
//! (`model/`), the loaded ledger and the records; none imports another family or the crawl
//! that drives them (`tests/it/architecture.rs`).

pub(crate) mod deployed;
pub(crate) mod format;
pub(crate) mod i1_vendors;
pub(crate) mod i2_history;
pub(crate) mod i3_citations;
pub(crate) mod i4_precedence;
pub(crate) mod i6_severity;
pub(crate) mod i7;
pub(crate) mod i8_admission;
pub(crate) mod signed;
pub(crate) mod sigstore;

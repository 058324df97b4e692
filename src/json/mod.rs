//! Strict JSON for untrusted ledger records.
//!
//! `serde_json` silently keeps the last of two duplicate keys, which is exactly how a
//! forged receipt can show one value to a Python reader and another to us (formats note §12).
//! This parser refuses duplicate keys, lone surrogates, trailing data and excessive nesting, keeps
//! every number as its source token (so integers of any size survive), and reports the line and
//! column of the first problem. [`canonical`] and [`python_pretty`] then reproduce, byte for byte, the
//! two serialisations the reference implementations hash.

mod float;
pub mod jcs;
mod parse;
mod value;
mod write;

pub use parse::{Error, ErrorKind, Limits, parse, parse_canonical_sha256, parse_with};
pub(crate) use parse::{Field, Fields, parse_fields};
pub use value::{Number, Value};
pub use write::{canonical, canonical_chunks, python_pretty, quote, to_serde};

#[cfg(test)]
mod tests;

//! Receiving a submission (issue 24): a journal gets an archive of repositories, git bundles or
//! a folder of them. This module turns what was received into repositories on disk, as
//! hostile input — archives unpacked within caps (`archive`), bundles cloned by git with no
//! configuration (`bundle`), the tree searched for repositories (`tree`) — and declares the
//! `CV-N` family. It knows no protocol: `submission` (above the protocols) finds the records
//! and verifies them.

pub mod archive;
pub mod bundle;
mod checks;
pub mod tree;

pub use archive::{Kind, Limits, Refused, Unpacked, clean_name, kind_of, kind_of_bytes, unpack, unpack_from};
pub use checks::{CHECKS, FAMILY, RECORD_VERIFIED, SUMMARY_WELL_FORMED};

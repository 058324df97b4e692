//! Fixture ledgers from plain-text scenarios.

use std::path::Path;

/// Builds the fixture described by the TOML file at `path` into `out`.
///
/// # Errors
/// Unreadable or malformed description, or a write failure.
pub fn build_file(path: &Path, out: &Path) -> Result<(), crate::fixture::Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| crate::fixture::Error { path: path.to_owned(), message: e.to_string() })?;
    build(&text, out)
}

/// Builds the fixture described by `text` into `out`.
///
/// # Errors
/// Malformed description or a write failure.
pub fn build(text: &str, out: &Path) -> Result<(), crate::fixture::Error> {
    crate::fixture::spec::build(text, out)
}

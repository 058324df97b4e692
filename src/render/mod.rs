//! Renderers: one file per output format, each a pure function of a [`Report`].
//!
//! A renderer never recomputes a verdict or a figure; it only lays out what the report holds,
//! so every format tells the same story and `--output json=…` can be re-rendered later.

mod json;
mod table;

use crate::report::Report;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// Human table for the terminal.
    Table,
    /// The report object.
    Json,
}

impl Format {
    /// Every format.
    pub const ALL: &'static [Format] = &[Format::Table, Format::Json];

    /// The name used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
        }
    }

    /// Parses a command-line name.
    #[must_use]
    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == s)
    }
}

/// Presentation options for human formats.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Terminal width to fit, if known.
    pub width: Option<u16>,
    /// Whether to use ANSI colour.
    pub color: bool,
}

/// Renders `report` in `format`.
#[must_use]
pub fn render(report: &Report, format: Format, opts: &Options) -> Vec<u8> {
    match format {
        Format::Table => table::render(report, opts).into_bytes(),
        Format::Json => json::render(report).into_bytes(),
    }
}

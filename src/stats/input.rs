//! What `stats` reads: the neutral [`Records`], other named sets of records beside them, and
//! the published summaries computed from those sets, each in a form its protocol declares.
//! Each protocol detects its own inputs and converts them into these, so this layer names no
//! protocol and no file.

use std::collections::BTreeMap;

use super::compare::Keys;
use super::model::Records;
use crate::json::Value;
use crate::report::CheckResult;

/// How a field of a published summary maps onto a figure.
#[derive(Debug, Clone, Copy)]
pub enum Field {
    /// The figure itself, keys compared as given.
    Figure(&'static str, Keys),
    /// The sorted keys of a map figure (`models[]`).
    KeysOf(&'static str),
    /// Not recomputable from records: CV-S005 `cantTell` with this reason.
    Never(&'static str),
}

/// What a published file holds.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// An object of figures (CV-S002), each field mapped by the function (`None`: a field
    /// crossverify cannot recompute).
    Summary(fn(&str) -> Option<Field>),
    /// A list of per-finding lifecycles (CV-S003).
    Lifecycle,
}

/// A published file's form, as the protocol declares it.
#[derive(Debug, Clone, Copy)]
pub struct Form {
    /// What the file holds.
    pub shape: Shape,
    /// The name of the set of records it was computed from ([`RecordSet::name`]).
    pub records: &'static str,
    /// Why the figures from a repository's log are not checkable without it, and the input
    /// that makes them so (CV-S005).
    pub needs_science: &'static str,
}

/// A published file beside the records.
#[derive(Debug, Clone)]
pub struct Published {
    /// File name, as reports name it.
    pub name: &'static str,
    /// Parsed content.
    pub value: Value,
    /// Its form.
    pub form: &'static Form,
}

/// A named set of records read beside the primary ones, which published summaries are checked
/// against.
#[derive(Debug, Clone)]
pub struct RecordSet {
    /// Its name in `inputs.records` and in messages (the file it was read from).
    pub name: &'static str,
    /// The records.
    pub records: Records,
}

/// Everything read from the input path.
#[derive(Debug)]
pub struct Input {
    /// The primary records (the figures in `stats`).
    pub records: Records,
    /// The named sets of records, in the order reports list them; the primary records are a
    /// copy of one of them, when there are any.
    pub sets: Vec<RecordSet>,
    /// Published summaries beside the records.
    pub published: Vec<Published>,
    /// Results about reading the input (`CV-S004`) and the protocol's own consistency checks of
    /// it, in report order.
    pub results: Vec<CheckResult>,
    /// Files read: name relative to the input → SHA-256 (plain files and directories only).
    pub read: BTreeMap<String, String>,
    /// The commit a git input was read at.
    pub commit: Option<String>,
}

impl Input {
    /// An input holding `records` and nothing else yet.
    #[must_use]
    pub fn new(records: Records) -> Self {
        Input {
            records,
            sets: Vec::new(),
            published: Vec::new(),
            results: Vec::new(),
            read: BTreeMap::new(),
            commit: None,
        }
    }
}

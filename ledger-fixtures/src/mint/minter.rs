//! What every step of the minter reads and writes: the minter's state (the scenario, the
//! repositories being written, the controller's cycles, what was minted so far), the facts of
//! one round, and the small JSON builders the records are written with.

use std::collections::BTreeMap;
use std::path::Path;

use crossverify::git::ObjectId;
use serde_json::{Number, Value};

use super::scenario::Scenario;
use crate::fixture::{Error, RepoBuilder};
use crate::rules::Family;

/// Controller record (v1 R2b / product state machine).
#[derive(Debug, Clone)]
pub(super) struct CtlCycle {
    pub(super) id: String,
    pub(super) repo: String,
    pub(super) root_sha: String,
    pub(super) active_sha: String,
    pub(super) round: i64,
    pub(super) status: &'static str,
    pub(super) parent_receipt: String,
    pub(super) consumed: Vec<String>,
}

pub(super) struct Minter {
    pub(super) s: Scenario,
    pub(super) family: Family,
    pub(super) local: bool,
    pub(super) v4: bool,
    pub(super) science: RepoBuilder,
    pub(super) audit: Option<RepoBuilder>,
    pub(super) labels: BTreeMap<String, ObjectId>,
    /// Science label → the previous science label (parent for controller matching).
    pub(super) science_parent: BTreeMap<String, Option<String>>,
    pub(super) next_science: usize,
    pub(super) ctl: Vec<CtlCycle>,
    pub(super) history: Vec<Value>,
    pub(super) dirs: Vec<String>,
    /// What each minted cycle was, for tamper placeholders.
    pub(super) minted: Vec<Minted>,
    /// SHA-256 of science blobs already hashed (a synthetic ledger binds the same files a
    /// thousand times).
    pub(super) digests: std::collections::HashMap<ObjectId, String>,
    /// The Constitution's blob and the commit that last changed it, while it stays unchanged.
    pub(super) constitution_memo: Option<(ObjectId, String)>,
    /// The science repository was generated elsewhere: no bootstrap commit there.
    pub(super) science_external: bool,
    pub(super) ledger_dir: String,
    pub(super) out: std::path::PathBuf,
}

#[derive(Debug, Clone)]
pub(super) struct Minted {
    pub(super) sha: String,
    pub(super) cycle_id: String,
    pub(super) identity: String,
    pub(super) dir: String,
    pub(super) constitution: String,
}

/// What one round records, settled before any of its records is written.
pub(super) struct RoundFacts {
    pub(super) n: usize,
    /// Index of the round's cycle in the controller.
    pub(super) ci: usize,
    pub(super) sha: String,
    pub(super) tree: String,
    pub(super) round: i64,
    pub(super) verdict: String,
    pub(super) integrity: &'static str,
    pub(super) offline: bool,
    pub(super) model: String,
    pub(super) provider: String,
    pub(super) prompt: String,
    pub(super) constitution_commit: String,
    pub(super) constitution_bytes: Vec<u8>,
    pub(super) dcl_source: String,
    pub(super) manifest: BTreeMap<String, Value>,
    pub(super) dir: String,
    pub(super) run_verb: bool,
}

/// A round's report and DCL output as written (`None`: a tamper deleted it).
pub(super) struct Records {
    pub(super) report: Option<String>,
    pub(super) dcl: Option<String>,
    /// Digest of the report the receipt binds (before any later tamper).
    pub(super) report_digest: String,
}

pub(super) fn jstr(s: &str) -> Value {
    Value::String(s.to_owned())
}

pub(super) fn jint(i: i64) -> Value {
    Value::Number(Number::from(i))
}

pub(super) fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A JSON object from a map built in key order.
pub(super) fn object(m: BTreeMap<String, Value>) -> Value {
    Value::Object(m.into_iter().collect())
}

impl Minter {
    pub(super) fn new(s: Scenario, out: &Path) -> Result<Self, Error> {
        let err = |m: String| Error { path: out.to_owned(), message: m };
        let family = match s.dialect.as_str() {
            "v1" => Family::V1,
            "schema2" => Family::Schema2,
            other => return Err(err(format!("dialect {other:?} is not v1 or schema2"))),
        };
        let local = s.mode.as_deref() == Some("local");
        if family == Family::V1 && local {
            return Err(err("the v1 reference has no local mode".into()));
        }
        let science = RepoBuilder::init(&out.join("science"))?;
        let audit = if local { None } else { Some(RepoBuilder::init(&out.join("audit"))?) };
        let v4 = s.product_version.starts_with('4');
        Ok(Minter::assemble(s, family, local, v4, science, audit, out))
    }

    pub(super) fn assemble(
        s: Scenario,
        family: Family,
        local: bool,
        v4: bool,
        science: RepoBuilder,
        audit: Option<RepoBuilder>,
        out: &Path,
    ) -> Self {
        Minter {
            s,
            family,
            local,
            v4,
            science,
            audit,
            labels: BTreeMap::new(),
            science_parent: BTreeMap::new(),
            next_science: 0,
            ctl: Vec::new(),
            history: Vec::new(),
            dirs: Vec::new(),
            minted: Vec::new(),
            digests: std::collections::HashMap::new(),
            constitution_memo: None,
            science_external: false,
            ledger_dir: "cycles".to_owned(),
            out: out.to_owned(),
        }
    }

    pub(super) fn err(&self, m: impl Into<String>) -> Error {
        Error { path: self.out.clone(), message: m.into() }
    }

    /// The builder holding the ledger.
    pub(super) fn ledger(&mut self) -> &mut RepoBuilder {
        match &mut self.audit {
            Some(a) => a,
            None => &mut self.science,
        }
    }

    /// Sets the identity of the round just minted.
    pub(super) fn identify(&mut self, identity: &str) {
        if let Some(m) = self.minted.last_mut() {
            m.identity = identity.to_owned();
        }
    }
}

//! Protocol-free checks on what every protocol rests on: git objects and the manifests derived
//! from them (family `CV-G`). `manifest` derives; this module judges and reports, above the
//! registry types and the report model, so the derivation itself stays below both.

mod checks;

use crate::git::{Repo, Scope};
use crate::manifest::{BlobHashes, derive};
use crate::progress::Ctx;

pub use checks::{BLOB_READABLE, CHECKS, FAMILY, SCOPE_MATCHES, SPECIAL_ENTRIES, manifest_results};

/// `crossverify manifest REPO REV [--scope PREFIX]...`: derives the manifest and reports the
/// foundation checks on it. The JSON report carries `"manifest": {path: digest or marker}`.
///
/// # Errors
/// The repository cannot be opened, the revision does not resolve, or trees are unreadable.
pub fn command(
    path: &std::path::Path,
    rev: &str,
    scopes: &[String],
    ctx: Ctx<'_>,
) -> Result<crate::report::Report, crate::manifest::Error> {
    let repo = Repo::open(path)?;
    let commit = repo.resolve(rev)?;
    let scope = Scope::new(scopes);
    let hashes = BlobHashes::new();
    let m = derive(&repo, commit, &scope, &hashes, ctx)?;
    let mut report = crate::report::Report::new("manifest");
    report.input("repository", path.display().to_string());
    report.input("rev", rev);
    report.input("commit", commit.to_string());
    report.input("tree", m.tree.to_string());
    report.input("scope", scope.prefixes());
    report.results = manifest_results(&m, "repository");
    let st = hashes.stats();
    report.stats.insert("entries".into(), m.entries.len().into());
    report.stats.insert("blobsHashed".into(), st.blobs_hashed.into());
    report.stats.insert("bytesHashed".into(), st.bytes_hashed.into());
    report.section("manifest", serde_json::Value::Object(m.to_json()));
    let rows =
        m.entries.iter().map(|e| vec![serde_json::Value::String(e.display.clone()), e.value.marker().into()]).collect();
    report.views.push(crate::report::View::Table(crate::report::Table {
        id: "manifest".into(),
        title: format!("Manifest of {commit}"),
        columns: vec!["path".into(), "sha256".into()],
        rows,
        note: None,
        // `--format csv` gives the manifest itself (path, digest or marker), results beside it.
        csv: true,
    }));
    report.finish();
    Ok(report)
}

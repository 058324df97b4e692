use gix::bstr::ByteSlice;

use crate::checks::{Check, Family, no_group, prefix_and_digits};
use crate::manifest::{Manifest, Value};
use crate::report::{CheckResult, Level, Outcome};

/// Git access and manifest derivation: codes `CV-G` and three digits.
pub static FAMILY: Family = Family {
    name: "git and manifests",
    prefix: "CV-G",
    grammar: "`CV-G` then three digits",
    code_ok: |c| prefix_and_digits(c, "CV-G", 3),
    group_label: None,
    group_ok: no_group,
    sources: &[(
        "formats note",
        "formats note: [specs/notes/crossaudit-formats.md](../../specs/notes/crossaudit-formats.md)",
    )],
    tones: &[],
    first_views: &[],
    location_inputs: &["path", "repo"],
};

/// Every in-scope blob could be read and hashed.
pub static BLOB_READABLE: Check = Check {
    code: "CV-G001",
    name: "blob-unreadable",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Every tracked file in scope is present in the object database and hashes",
    what: "Reads every regular-file blob under the scope prefixes at the revision from the git object database \
           and computes its SHA-256. A blob that is missing (partial or shallow clone) or corrupt makes the \
           entry `unreadable` and this check `cantTell` for it.",
    why: "A manifest with a hole in it cannot be compared with anything. Reporting the hole, instead of \
          skipping the file, keeps absent evidence from counting in favour.",
    example: "CV-G001 cantTell experiments/run-1/results.json: blob 3b18e5… is missing from the object database",
    spec: "[specs/foundation.md#cv-g001](../../specs/foundation.md#cv-g001)",
};

/// Symlinks, submodules and non-UTF-8 paths in scope.
pub static SPECIAL_ENTRIES: Check = Check {
    code: "CV-G002",
    name: "special-entry-in-scope",
    level: Level::Warning,
    family: &FAMILY,
    group: None,
    summary: "Entries in scope are regular files with UTF-8 paths (no symlinks, submodules or undecodable names)",
    what: "Flags every entry in scope that is a symbolic link (mode 120000), a submodule (mode 160000) or a \
           regular file whose path is not valid UTF-8. Such entries appear in the manifest with the marker \
           `symlink`, `submodule` or `non-utf8-path` instead of a digest.",
    why: "None of them has content a SHA-256 manifest can bind: a symlink's target can change what a reader \
          sees, a submodule's content lives elsewhere, and a non-UTF-8 name cannot be a JSON manifest key. \
          The v1 reference records them as `ABSENT` and the product refuses symlinks outright; a verifier \
          should say they are there.",
    example: "CV-G002 failed experiments/latest: symlink in scope (not hashed; recorded as `symlink`)",
    spec: "[specs/foundation.md#cv-g002](../../specs/foundation.md#cv-g002); formats note §6.1–§6.2",
};

/// A scope prefix that selects nothing.
pub static SCOPE_MATCHES: Check = Check {
    code: "CV-G003",
    name: "scope-matches-nothing",
    level: Level::Warning,
    family: &FAMILY,
    group: None,
    summary: "Each requested scope prefix selects at least one tracked entry",
    what: "For every `--scope` prefix, checks that at least one tracked entry lies at or below it.",
    why: "A mistyped prefix silently produces an empty manifest, which then \"verifies\" trivially.",
    example: "CV-G003 failed scope `experiment`: no tracked entry at or below this prefix",
    spec: "[specs/foundation.md#cv-g003](../../specs/foundation.md#cv-g003)",
};

/// Checks owned by this module.
pub static CHECKS: &[&Check] = &[&BLOB_READABLE, &SPECIAL_ENTRIES, &SCOPE_MATCHES];

/// The results of the foundation checks on a derived manifest.
#[must_use]
pub fn manifest_results(m: &Manifest, repository: &str) -> Vec<CheckResult> {
    let commit = m.commit.to_string();
    let at = |r: CheckResult, path: &str| r.at(Some(repository), Some(path), Some(&commit));
    let mut out = Vec::new();
    let mut unreadable = 0;
    let mut special = 0;
    for e in &m.entries {
        match &e.value {
            Value::Unreadable(reason) => {
                unreadable += 1;
                out.push(at(
                    CheckResult::new(
                        &BLOB_READABLE,
                        Outcome::CantTell,
                        &e.display,
                        // The git error already names the repository, the blob and the cause.
                        reason.clone(),
                    )
                    .with("blob", e.id.to_string()),
                    &e.display,
                ));
            }
            Value::Symlink | Value::Submodule | Value::NonUtf8Path => {
                special += 1;
                let what = match e.value {
                    Value::Symlink => "symlink in scope (not hashed; recorded as `symlink`)",
                    Value::Submodule => {
                        "submodule in scope (its content is not in this repository; recorded as `submodule`)"
                    }
                    _ => "path is not valid UTF-8 (recorded as `non-utf8-path`)",
                };
                out.push(at(
                    CheckResult::new(&SPECIAL_ENTRIES, Outcome::Failed, &e.display, what)
                        .with("kind", e.kind.as_str())
                        .with("object", e.id.to_string()),
                    &e.display,
                ));
            }
            Value::Digest(_) => {}
        }
    }
    let files = m.entries.iter().filter(|e| matches!(e.value, Value::Digest(_))).count();
    if unreadable == 0 {
        out.push(
            CheckResult::new(
                &BLOB_READABLE,
                Outcome::Passed,
                "manifest",
                format!("{files} file(s) read and hashed from git objects"),
            )
            .with("files", files),
        );
    }
    if special == 0 {
        out.push(CheckResult::new(
            &SPECIAL_ENTRIES,
            Outcome::Passed,
            "manifest",
            "no symlinks, submodules or non-UTF-8 paths in scope",
        ));
    }
    for prefix in m.scope.prefixes() {
        let hit = m.entries.iter().any(|e| {
            let p = e.path.as_bstr();
            p == prefix.as_bytes() || (p.starts_with(prefix.as_bytes()) && p.get(prefix.len()) == Some(&b'/'))
        });
        out.push(if hit {
            CheckResult::new(&SCOPE_MATCHES, Outcome::Passed, format!("scope `{prefix}`"), "selects tracked entries")
        } else {
            CheckResult::new(
                &SCOPE_MATCHES,
                Outcome::Failed,
                format!("scope `{prefix}`"),
                "no tracked entry at or below this prefix",
            )
        });
    }
    out
}

//! The CrossAudit check vectors (`test-vectors/checks/*.json`) that verify a ledger or a
//! receipt in its ledger, as conformance cases: the decision is the vector's reviewed exit code
//! (0 accepts, 1 rejects, 3 "either": the record lacks what the decision needs), the paper's
//! reason its description and the codes it fails, each with its section of
//! `specs/crossaudit.md`. Their fixture repositories become git bundles (minted with
//! `CROSSVERIFY_UPDATE_CONFORMANCE=1`; otherwise the committed ones are reused, each checked to
//! hold the tip `test-vectors/fixtures.json` pins).
//!
//! Left out, because a bundle of `main` cannot carry them or the protocol has no argument for
//! them: vectors on directory fixtures (the deployed layout is not a git repository), fixtures
//! whose repositories hold other refs than `main` (signed-commit, reftable, shallow and
//! multi-branch scenarios), options beyond the protocol's (`--admit`, `--consumed`, Sigstore
//! and signer trust roots, `--expect-audit-head`, `--dialect`) and receipts outside their
//! ledger.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};

use super::generate::{Gen, case, read_json, sha256, vectors};
use crate::support;
use crate::support_oracle as oracle;

const OUT_OF_PROTOCOL: &[&str] = &[
    "--admit",
    "--consumed",
    "--trusted-root",
    "--certificate-identity",
    "--certificate-oidc-issuer",
    "--allowed-signers",
    "--expect-audit-head",
    "--dialect",
];

/// `{fixture:NAME/ROLE}` → (NAME, ROLE).
fn fixture(arg: &str) -> Option<(&str, &str)> {
    arg.strip_prefix("{fixture:")?.strip_suffix('}')?.split_once('/')
}

/// The eligible vectors: (id, the vector).
fn eligible() -> Vec<(String, Value)> {
    let mut paths: Vec<_> =
        std::fs::read_dir(vectors().join("checks")).expect("checks").map(|e| e.expect("entry").path()).collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let v: Value = serde_json::from_slice(&std::fs::read(&p).expect("vector")).expect("vector JSON");
        let args: Vec<&str> = v["args"].as_array().expect("args").iter().filter_map(Value::as_str).collect();
        let command_ok = match args.first() {
            Some(&"ledger") => true,
            Some(&"receipt") => args.get(1).is_some_and(|r| r.starts_with("cycles/")),
            _ => false,
        };
        let exit_ok = matches!(v["expect"]["exit"].as_i64(), Some(0 | 1 | 3));
        let fixtures_ok = args.iter().filter(|a| a.starts_with('{')).all(|a| {
            fixture(a).is_some_and(|(name, _)| support::root().join(format!("ledger-fixtures/{name}.toml")).is_file())
        });
        if command_ok && exit_ok && fixtures_ok && !args.iter().any(|a| OUT_OF_PROTOCOL.contains(a)) {
            out.push((v["id"].as_str().expect("id").to_owned(), v));
        }
    }
    out
}

pub fn crossaudit_vectors(g: &mut Gen, update: bool) {
    let pinned = read_json("fixtures.json");
    let bundles = if update { mint_bundles() } else { committed_bundles() };
    for (id, v) in eligible() {
        let args: Vec<&str> = v["args"].as_array().expect("args").iter().filter_map(Value::as_str).collect();
        let mut inputs = serde_json::Map::new();
        let mut usable = true;
        for a in args.iter().filter(|a| a.starts_with('{')) {
            let (name, role) = fixture(a).expect("a fixture placeholder");
            let key = format!("{name}/{role}");
            let Some((bundle, head)) = bundles.get(&key) else {
                usable = false;
                continue;
            };
            assert_eq!(
                Some(head.as_str()),
                pinned["fixtures"][&key].as_str(),
                "{key}: the bundle's head is not the pinned tip"
            );
            g.files.insert(bundle.clone(), std::fs::read(vectors().join(bundle)).expect("fixture bundle"));
            inputs.insert(role.to_owned(), json!({"kind": "repository", "bundles": [bundle], "head": head}));
        }
        if !usable {
            continue;
        }
        let role_of = |flag: &str| -> Option<String> {
            let i = args.iter().position(|a| *a == flag)?;
            fixture(args.get(i + 1)?).map(|(_, r)| format!("{{{r}}}"))
        };
        let ledger = role_of("--audit").expect("--audit");
        let mut out = Vec::new();
        let operation = if args[0] == "receipt" {
            out.extend(["--receipt".to_owned(), args[1].to_owned()]);
            "verify-receipt"
        } else {
            "verify-ledger"
        };
        out.extend(["--ledger".to_owned(), ledger.clone()]);
        out.extend(["--science".to_owned(), role_of("--science").unwrap_or(ledger)]);
        for flag in ["--expect-sha", "--expect-repo"] {
            if let Some(i) = args.iter().position(|a| *a == flag) {
                out.extend([flag.to_owned(), args[i + 1].to_owned()]);
            }
        }
        push(g, &id, &v, operation, Value::Object(inputs), out);
    }
}

fn push(g: &mut Gen, id: &str, v: &Value, operation: &str, inputs: Value, args: Vec<String>) {
    let exit = v["expect"]["exit"].as_i64().expect("exit");
    let failing: Vec<&str> =
        v["expect"]["failing"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let (expected, category) = match exit {
        0 => ("accept", "genuine"),
        3 => ("either", "edge"),
        _ if failing.iter().any(|c| matches!(*c, "CV-A001" | "CV-A002")) => ("reject", "malformed"),
        _ => ("reject", "forged"),
    };
    let description = v["description"].as_str().unwrap_or_default();
    let reason = match exit {
        0 => format!("{description} Every error-level check passes or does not apply."),
        3 => format!(
            "{description} The record lacks evidence the decision needs (cantTell): the paper does not decide it from the record."
        ),
        _ => format!("{description} Fails {}.", failing.join(", ")),
    };
    let section = if failing.is_empty() {
        "specs/crossaudit.md".to_owned()
    } else {
        failing.iter().map(|c| format!("specs/crossaudit.md#{c}")).collect::<Vec<_>>().join(", ")
    };
    let class = failing.first().copied().unwrap_or(if exit == 0 { "clean" } else { "undecided" });
    g.cases.push(case(
        &format!("crossaudit/vector/{}", id.trim_start_matches("crossaudit-")),
        "crossaudit",
        operation,
        category,
        class,
        expected,
        (reason.trim(), &section),
        &format!("test-vectors/checks/{id}.json"),
        inputs,
        args,
    ));
}

/// The committed fixture bundles, by `NAME/ROLE`, each holding its head.
fn committed_bundles() -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    let Ok(bytes) = std::fs::read(vectors().join("conformance/suite.json")) else { return out };
    let index: Value = serde_json::from_slice(&bytes).expect("suite.json");
    let sources: BTreeMap<String, Value> = eligible().into_iter().collect();
    for c in index["cases"].as_array().into_iter().flatten() {
        let Some(id) = c["source"]
            .as_str()
            .and_then(|s| s.strip_prefix("test-vectors/checks/"))
            .and_then(|s| s.strip_suffix(".json"))
        else {
            continue;
        };
        let Some(v) = sources.get(id) else { continue };
        let args: Vec<&str> = v["args"].as_array().expect("args").iter().filter_map(Value::as_str).collect();
        for (name, role) in args.iter().filter_map(|a| fixture(a)) {
            let input = &c["inputs"][role];
            let (Some(bundle), Some(head)) = (input["bundles"][0].as_str(), input["head"].as_str()) else { continue };
            let heads = oracle::git(&vectors(), &["bundle", "list-heads", bundle]);
            assert!(heads.contains(head), "{bundle} does not hold {head}: regenerate the suite");
            out.insert(format!("{name}/{role}"), (bundle.to_owned(), head.to_owned()));
        }
    }
    out
}

/// Mints every fixture the eligible vectors use and bundles each repository whose only ref is
/// `main` (named by content): `NAME/ROLE` → (bundle, head).
fn mint_bundles() -> BTreeMap<String, (String, String)> {
    let mut wanted: BTreeSet<(String, String)> = BTreeSet::new();
    for (_, v) in eligible() {
        for a in v["args"].as_array().expect("args").iter().filter_map(Value::as_str) {
            if let Some((n, r)) = fixture(a) {
                wanted.insert((n.to_owned(), r.to_owned()));
            }
        }
    }
    let names: BTreeSet<&str> = wanted.iter().map(|(n, _)| n.as_str()).collect();
    let mut out = BTreeMap::new();
    for name in names {
        let tmp = tempfile::tempdir().expect("tempdir");
        let built = support::materialize(name, tmp.path());
        for (_, role) in wanted.iter().filter(|(n, _)| n == name) {
            if let Some(b) = bundle_of(&built.join(role), tmp.path()) {
                out.insert(format!("{name}/{role}"), b);
            }
        }
    }
    out
}

/// A bundle of the repository's `main`, when `main` is its only ref and HEAD names it.
fn bundle_of(repo: &Path, tmp: &Path) -> Option<(String, String)> {
    let refs = oracle::git(repo, &["for-each-ref", "--format=%(refname)"]);
    let head = oracle::git(repo, &["symbolic-ref", "-q", "HEAD"]);
    let format = oracle::git(repo, &["rev-parse", "--show-object-format"]);
    let shallow = oracle::git(repo, &["rev-parse", "--is-shallow-repository"]);
    if refs != "refs/heads/main" || head != "refs/heads/main" || format != "sha1" || shallow != "false" {
        return None;
    }
    let file = tmp.join("fixture.bundle");
    oracle::git(repo, &["bundle", "create", "-q", &file.to_string_lossy(), "refs/heads/main"]);
    let bytes = std::fs::read(&file).expect("bundle");
    let rel = format!("conformance/inputs/{}.bundle", sha256(&bytes));
    std::fs::write(vectors().join(&rel), &bytes).expect("write bundle");
    Some((rel, oracle::git(repo, &["rev-parse", "HEAD"])))
}

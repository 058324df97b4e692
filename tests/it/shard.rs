//! Sharding (issue 14, docs/scale.md): `ledger --shard K/N` reports merge into the bytes of one
//! unsharded run, for any N and any order; shards are deterministic; `merge` refuses a set
//! that is incomplete or a ledger that moved; `batch` writes one line per ledger and resumes.

use crate::sigstore_ledger;
#[cfg(feature = "sigstore")]
use crate::sigstore_mint as mint;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

fn ledger_args(dir: &Path) -> Vec<String> {
    let s = |p: PathBuf| p.to_str().expect("utf-8 temp path").to_owned();
    vec!["ledger".into(), "--audit".into(), s(dir.join("audit")), "--science".into(), s(dir.join("science"))]
}

fn run(args: &[String], extra: &[&str]) -> Output {
    support::crossverify().args(args).args(["--format", "json"]).args(extra).output().expect("run crossverify")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn shards(dir: &Path, out: &Path, n: u32) -> Vec<PathBuf> {
    shards_of(&ledger_args(dir), out, "shard", n)
}

/// The N shard reports of `ledger ARGS`, written to `out/NAME-K-of-N.json`.
fn shards_of(args: &[String], out: &Path, name: &str, n: u32) -> Vec<PathBuf> {
    (1..=n)
        .map(|k| {
            let o = run(args, &["--shard", &format!("{k}/{n}")]);
            assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "shard {k}/{n}: {}", stderr(&o));
            let path = out.join(format!("{name}-{k}-of-{n}.json"));
            std::fs::write(&path, &o.stdout).expect("write shard report");
            path
        })
        .collect()
}

fn merge(files: &[PathBuf]) -> Output {
    support::crossverify().arg("merge").args(files).args(["--format", "json"]).output().expect("run merge")
}

#[test]
fn merged_shards_are_the_bytes_of_one_run() {
    for fixture in ["v1-genuine", "s2-manifest-digest"] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = support::materialize(fixture, tmp.path());
        let whole = run(&ledger_args(&dir), &[]);
        assert!(matches!(whole.status.code(), Some(0 | 1)), "{}", stderr(&whole));
        for n in [1, 2, 3] {
            let mut files = shards(&dir, tmp.path(), n);
            files.reverse();
            let merged = merge(&files);
            assert_eq!(merged.status.code(), whole.status.code(), "{fixture} N={n}: {}", stderr(&merged));
            assert!(merged.stdout == whole.stdout, "{fixture}: merging {n} shards differs from one run");
        }
    }
}

/// The shards' `--allowed-signers` file reaches the merge: a bad signature on the audit tip
/// still fails the merged report, byte for byte as in one run.
#[test]
fn merged_shards_keep_the_signature_checks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("trust-tip-bad", tmp.path());
    let mut args = ledger_args(&dir);
    args.extend(["--allowed-signers".into(), dir.join("allowed_signers").to_str().expect("utf-8").to_owned()]);
    let whole = run(&args, &[]);
    assert_eq!(whole.status.code(), Some(1), "{}", stderr(&whole));
    let files = shards_of(&args, tmp.path(), "signed-shard", 2);
    let merged = merge(&files);
    assert_eq!(merged.status.code(), Some(1), "{}", stderr(&merged));
    assert!(merged.stdout == whole.stdout, "merging signed shards differs from one run");
}

#[cfg(feature = "sigstore")]
use mint::{IDENTITY, ISSUER};
/// Any identity will do where the bundle is never read; these are the minter's.
#[cfg(not(feature = "sigstore"))]
const IDENTITY: &str = "receipts@crossverify.invalid";
#[cfg(not(feature = "sigstore"))]
const ISSUER: &str = "https://issuer.crossverify.invalid";

/// `v1-genuine` with its round-2 receipt wrapped in a Sigstore bundle, and a trusted root
/// file: minted and valid with the `sigstore` feature; without it the real npm bundle and the
/// public-good root, which that build never reads.
#[cfg(feature = "sigstore")]
fn sigstore_ledger_and_root(tmp: &Path) -> (PathBuf, PathBuf) {
    let world = mint::World::new();
    let leaf = mint::Leaf { identity: IDENTITY, issuer: ISSUER };
    let dir = sigstore_ledger::wrapped_ledger(tmp, |receipt| {
        serde_json::to_vec_pretty(&world.bundle(receipt, &leaf)).expect("bundle JSON")
    });
    let root = tmp.join("trusted_root.json");
    std::fs::write(&root, serde_json::to_vec_pretty(&world.trusted_root()).expect("root JSON")).expect("write root");
    (dir, root)
}

#[cfg(not(feature = "sigstore"))]
fn sigstore_ledger_and_root(tmp: &Path) -> (PathBuf, PathBuf) {
    let real = support::root().join("test-vectors/sigstore/real");
    let bundle = std::fs::read(real.join("npm_slsa_bundle_v03.json")).expect("bundle");
    (sigstore_ledger::wrapped_ledger(tmp, |_| bundle), real.join("sigstore_trusted_root.json"))
}

/// The shards' Sigstore options are inputs of their reports and reach the merge: the merged
/// report is one run's, byte for byte. With the `sigstore` feature the seven CV-T2xx pass in
/// both (without the options the merge would say cantTell); without it they are untested in
/// both and what is compared is the options' round trip through the inputs.
#[test]
fn merged_shards_keep_the_sigstore_options() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (dir, root) = sigstore_ledger_and_root(tmp.path());
    let mut args = ledger_args(&dir);
    let root_arg = root.to_str().expect("utf-8").to_owned();
    args.extend(["--trusted-root".into(), root_arg.clone()]);
    args.extend(["--certificate-identity".into(), IDENTITY.into(), "--certificate-oidc-issuer".into(), ISSUER.into()]);
    let whole = run(&args, &[]);
    let want = if cfg!(feature = "sigstore") { 0 } else { 3 };
    assert_eq!(whole.status.code(), Some(want), "{}", stderr(&whole));
    let report: serde_json::Value = serde_json::from_slice(&whole.stdout).expect("report JSON");
    let inputs = &report["inputs"];
    assert_eq!(
        (&inputs["trustedRoot"], &inputs["certificateIdentity"], &inputs["certificateOidcIssuer"]),
        (&root_arg.clone().into(), &IDENTITY.into(), &ISSUER.into()),
        "{inputs}"
    );
    let t2: Vec<&serde_json::Value> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["code"].as_str().is_some_and(|c| c.starts_with("CV-T2")))
        .collect();
    let outcome = if cfg!(feature = "sigstore") { "passed" } else { "untested" };
    assert!(t2.len() == 7 && t2.iter().all(|r| r["outcome"] == outcome), "{t2:?}");
    let files = shards_of(&args, tmp.path(), "sigstore-shard", 2);
    let merged = merge(&files);
    assert_eq!(merged.status.code(), Some(want), "{}", stderr(&merged));
    assert!(merged.stdout == whole.stdout, "merging shards with Sigstore options differs from one run");
}

#[test]
fn a_shard_is_deterministic_and_leaves_other_shards_manifests_untested() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("v1-genuine", tmp.path());
    let a = run(&ledger_args(&dir), &["--shard", "2/3", "--threads", "1"]);
    let b = run(&ledger_args(&dir), &["--shard", "2/3", "--threads", "4"]);
    assert!(a.stdout == b.stdout, "a shard's bytes depend on the thread count");
    let report: serde_json::Value = serde_json::from_slice(&a.stdout).expect("json");
    assert_eq!(report["inputs"]["shard"], "2/3");
    assert_eq!(report["shard"]["index"], 2);
    let untested: Vec<&serde_json::Value> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["code"] == "CV-A702" && r["outcome"] == "untested")
        .collect();
    assert!(!untested.is_empty(), "the other shards' cycles are not passed");
    assert!(
        untested
            .iter()
            .all(|r| r["message"].as_str().is_some_and(|m| m.contains("shard 1/3") || m.contains("shard 3/3")))
    );
    // Alone, a shard that found nothing wrong is inconclusive: it did not verify everything.
    assert_eq!(a.status.code(), Some(3), "{}", stderr(&a));
}

#[test]
fn merge_refuses_an_incomplete_set_and_a_ledger_that_moved() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("v1-genuine", tmp.path());
    let files = shards(&dir, tmp.path(), 2);
    let one = merge(&files[..1]);
    assert_eq!(one.status.code(), Some(2));
    assert!(stderr(&one).contains("shard(s) 2 of 2 missing"), "{}", stderr(&one));
    let twice = merge(&[files[0].clone(), files[0].clone()]);
    assert!(stderr(&twice).contains("given twice"), "{}", stderr(&twice));
    let plain = tmp.path().join("plain.json");
    std::fs::write(&plain, run(&ledger_args(&dir), &[]).stdout).expect("write");
    assert!(stderr(&merge(&[plain])).contains("not a shard report"));
    // A new commit on the (bare) audit repository: the shards verified another head.
    let audit = dir.join("audit");
    let id = |out: Vec<u8>| String::from_utf8(out).expect("utf-8").trim().to_owned();
    let tree = id(support::git(&audit, &["rev-parse", "HEAD^{tree}"]));
    let ident = ["-c", "user.name=t", "-c", "user.email=t@t.invalid"];
    let next = id(support::git(&audit, &[&ident[..], &["commit-tree", &tree, "-p", "HEAD", "-m", "later"]].concat()));
    support::git(&audit, &["update-ref", "HEAD", &next]);
    let moved = merge(&files);
    assert_eq!(moved.status.code(), Some(2), "{}", stderr(&moved));
    assert!(stderr(&moved).contains("re-run the shards"), "{}", stderr(&moved));
}

#[test]
fn batch_writes_one_line_per_ledger_and_resumes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let good = support::materialize("v1-genuine", tmp.path());
    let bad = support::materialize("s2-manifest-digest", tmp.path());
    let list = tmp.path().join("queue.jsonl");
    let entry = |id: &str, d: &Path| {
        serde_json::json!({"id": id, "audit": d.join("audit"), "science": d.join("science")}).to_string()
    };
    std::fs::write(
        &list,
        format!(
            "# submissions\n{}\n{}\n{{\"id\":\"gone\",\"audit\":\"nowhere\"}}\n",
            entry("good", &good),
            entry("bad", &bad)
        ),
    )
    .expect("write list");
    let out = tmp.path().join("out.jsonl");
    let run = |resume: bool| {
        let mut c = support::crossverify();
        c.arg("batch").arg(&list).arg("--output-jsonl").arg(&out);
        if resume {
            c.arg("--resume");
        }
        c.output().expect("run batch")
    };
    let batch = || run(true);
    let first = batch();
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let text = std::fs::read_to_string(&out).expect("output");
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let by_id = |id: &str| lines.iter().find(|l| l["id"] == id).unwrap_or_else(|| panic!("no line for {id}"));
    assert_eq!((by_id("good")["exitCode"].as_u64(), by_id("good")["outcome"].as_str()), (Some(0), Some("verified")));
    assert_eq!(by_id("bad")["exitCode"], 1);
    assert!(by_id("bad")["failing"].as_array().is_some_and(|f| f.iter().any(|c| c == "CV-A702")));
    assert_eq!(by_id("gone")["exitCode"], 2);
    // Killed while writing its last line: that ledger is redone, the others are not.
    let torn = text.len() - 10;
    std::fs::write(&out, &text.as_bytes()[..torn]).expect("tear");
    // Issue 21: keeping lines from the file is trust, asked for by name.
    let implicit = run(false);
    assert_eq!(implicit.status.code(), Some(2), "{}", stderr(&implicit));
    assert!(stderr(&implicit).contains("add --resume"), "{}", stderr(&implicit));
    let second = batch();
    assert_eq!(second.status.code(), Some(1));
    assert!(
        stderr(&second).contains("2 ledgers taken from") && stderr(&second).contains("1 to verify (0 of them again"),
        "{}",
        stderr(&second)
    );
    let again = std::fs::read_to_string(&out).expect("output");
    assert_eq!(again.lines().count(), 3);
    assert_eq!(again, text, "the redone line is the line that was torn");
    // A line stands only for the audit head it was about: the good ledger moves on (one more
    // commit), so it is verified again, and the line that could not run is retried.
    let audit = good.join("audit");
    let moved = support::git(
        &audit,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.org",
            "commit-tree",
            "HEAD^{tree}",
            "-p",
            "HEAD",
            "-m",
            "moved",
        ],
    );
    support::git(&audit, &["update-ref", "HEAD", String::from_utf8_lossy(&moved).trim()]);
    let third = batch();
    assert!(
        stderr(&third).contains("1 ledgers taken from") && stderr(&third).contains("2 to verify (2 of them again"),
        "{}",
        stderr(&third)
    );
    let last = std::fs::read_to_string(&out).expect("output");
    let lines: Vec<serde_json::Value> = last.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 5);
    let head = String::from_utf8(support::git(&good.join("audit"), &["rev-parse", "HEAD"])).expect("utf-8");
    let newest = lines.iter().rev().find(|l| l["id"] == "good").expect("a line for good");
    assert_eq!(newest["auditHead"].as_str(), Some(head.trim()), "the new line is about the new head");
}

#[test]
fn merge_takes_the_manifest_checks_from_the_shards_without_hashing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("v1-genuine", tmp.path());
    let files = shards(&dir, tmp.path(), 3);
    let mut owned = 0;
    for f in &files {
        let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(f).expect("read")).expect("json");
        let checks = v["shard"]["manifestChecks"].as_object_mut().expect("records");
        owned += checks.len();
        for rec in checks.values_mut() {
            for r in rec["results"].as_array_mut().expect("results") {
                r["message"] = serde_json::json!("recorded by the shard");
            }
        }
        std::fs::write(f, serde_json::to_vec(&v).expect("json")).expect("write");
    }
    assert!(owned >= 3, "every shard owns a cycle of the fixture ({owned} records)");
    let merged: serde_json::Value = serde_json::from_slice(&merge(&files).stdout).expect("json");
    let a702: Vec<&serde_json::Value> =
        merged["results"].as_array().expect("results").iter().filter(|r| r["code"] == "CV-A702").collect();
    assert_eq!(a702.len(), owned);
    // The shard reports are trusted inputs of merge (docs/scale.md): their records are used as given.
    assert!(a702.iter().all(|r| r["message"] == "recorded by the shard"));
    assert!(merged.get("shard").is_none() && merged["inputs"].get("shard").is_none());
}

/// Issue 21: `merge` takes from each shard only what that shard owns. A record about a cycle
/// of another shard (copied from the shard that owns it, with its outcome changed) refuses
/// the set (exit 2) naming the shard and the cycle, instead of replacing the owner's record.
#[test]
fn merge_refuses_a_record_about_another_shards_cycle() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("s2-manifest-digest", tmp.path());
    let files = shards(&dir, tmp.path(), 2);
    let read =
        |f: &Path| -> serde_json::Value { serde_json::from_slice(&std::fs::read(f).expect("read")).expect("json") };
    let honest = merge(&files);
    assert!(matches!(honest.status.code(), Some(0 | 1 | 3)), "{}", stderr(&honest));
    let (first, mut second) = (read(&files[0]), read(&files[1]));
    let (cycle, record) = first["shard"]["manifestChecks"]
        .as_object()
        .and_then(|m| m.iter().next())
        .map(|(k, v)| (k.clone(), v.clone()))
        .expect("shard 1 owns a cycle");
    let mut forged = record.clone();
    for r in forged["results"].as_array_mut().expect("results") {
        r["outcome"] = serde_json::json!("passed");
        r["message"] = serde_json::json!("forged by shard 2");
    }
    forged["failures"] = serde_json::json!([]);
    second["shard"]["manifestChecks"][&cycle] = forged;
    std::fs::write(&files[1], serde_json::to_vec(&second).expect("json")).expect("write");
    for order in [vec![files[0].clone(), files[1].clone()], vec![files[1].clone(), files[0].clone()]] {
        let o = merge(&order);
        assert_eq!(o.status.code(), Some(2), "a foreign record was accepted: {}", String::from_utf8_lossy(&o.stdout));
        let e = stderr(&o);
        assert!(e.contains(&cycle) && e.contains("shard 2") && e.contains("shard 1"), "{e}");
    }
}

/// Issue 21: the trust `merge` places in shard reports can be made explicit: shards signed
/// with `--sign-report` are merged with `--trusted-key`, which verifies every envelope and
/// refuses (exit 2) one signed by another key or a plain report; the merged report is the
/// bytes of the unsigned merge.
#[test]
fn merge_with_a_trusted_key_takes_only_signed_shards() {
    use crossverify_fixtures::signing::TestKey;
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = support::materialize("v1-genuine", tmp.path());
    let signer = TestKey::named("shard-signer");
    let (key, public) = (tmp.path().join("signer"), tmp.path().join("signer.pub"));
    std::fs::write(&key, signer.private_openssh()).expect("write key");
    std::fs::write(&public, format!("{}\n", signer.public_openssh())).expect("write key");
    let stranger = tmp.path().join("stranger");
    std::fs::write(&stranger, TestKey::stranger().private_openssh()).expect("write key");
    let plain = shards(&dir, tmp.path(), 2);
    let signed_with = |k: &Path, name: &str| -> Vec<PathBuf> {
        (1..=2)
            .map(|i| {
                let att = tmp.path().join(format!("{name}-{i}.dsse.json"));
                let printed = tmp.path().join(format!("{name}-{i}.json"));
                let o = run(
                    &ledger_args(&dir),
                    &[
                        "--shard",
                        &format!("{i}/2"),
                        "--sign-report",
                        k.to_str().expect("utf-8"),
                        "--attestation",
                        att.to_str().expect("utf-8"),
                    ],
                );
                assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{}", stderr(&o));
                std::fs::write(&printed, &o.stdout).expect("write the printed report");
                att
            })
            .collect()
    };
    let signed = signed_with(&key, "signed");
    let merge_signed = |files: &[PathBuf]| {
        support::crossverify()
            .arg("merge")
            .arg("--trusted-key")
            .arg(&public)
            .args(files)
            .args(["--format", "json"])
            .output()
            .expect("run merge")
    };
    let unsigned = merge(&plain);
    let trusted = merge_signed(&signed);
    assert_eq!(trusted.status.code(), unsigned.status.code(), "{}", stderr(&trusted));
    assert_eq!(trusted.stdout, unsigned.stdout, "signed shards merge into the bytes of the unsigned merge");
    // The reports a signing run printed (each recording its own `--shard` invocation) are
    // still one set for a plain merge.
    let printed: Vec<PathBuf> = (1..=2).map(|i| tmp.path().join(format!("signed-{i}.json"))).collect();
    let plain_of_signed = merge(&printed);
    assert_eq!(plain_of_signed.stdout, unsigned.stdout, "{}", stderr(&plain_of_signed));
    let other = signed_with(&stranger, "stranger");
    for bad in [vec![signed[0].clone(), other[1].clone()], plain.clone()] {
        let o = merge_signed(&bad);
        assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stdout));
        assert!(stderr(&o).contains("--trusted-key"), "{}", stderr(&o));
    }
}

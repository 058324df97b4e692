//! `crossverify ledger --shard K/N` and `crossverify merge` (the plan they run under is
//! `load/shard.rs`; `docs/scale.md`).

use crate::crossaudit::load::shard::{Mode, Plan, Recorded, Shard};
use crate::crossaudit::load::{DialectChoice, Error, Options};
use crate::progress::Ctx;
use crate::report::{Report, merge};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// `crossverify ledger --shard K/N`: the report of shard K, with its `shard` section.
///
/// # Errors
/// As [`super::ledger::ledger`]; a deployed ledger is refused (it is verified whole, without hashing).
pub fn ledger_shard(opts: &Options, shard: Shard, ctx: Ctx<'_>) -> Result<Report, Error> {
    let plan = Arc::new(Plan::new(Mode::Own(shard)));
    let mut o = opts.clone();
    o.shard = Some(plan.clone());
    let mut report = super::ledger::ledger(&o, ctx)?;
    if plan.owners.get().is_none() {
        return Err(Error::Usage(
            "--shard: a deployed CYCLE-NNNNNN ledger has no manifests to hash and is verified whole; run it without --shard"
                .into(),
        ));
    }
    let recorded = std::mem::take(&mut *plan.recorded.lock().expect("never poisoned"));
    report.input(merge::INPUT, format!("{}/{}", shard.index, shard.of));
    report.section(
        merge::SECTION,
        json!({
            "index": shard.index,
            "of": shard.of,
            "manifestChecks": serde_json::to_value(recorded).expect("records serialise"),
        }),
    );
    Ok(report)
}

/// `crossverify merge` of CrossAudit `ledger` shards: the ledger re-run at the shards' audit
/// head with their CV-A702 records; the report an unsharded run would have written.
///
/// # Errors
/// Shard records that do not read, repositories that cannot be opened, or a ledger whose
/// head is no longer the one the shards verified (exit 2).
pub fn merge(shards: &merge::Shards, ctx: Ctx<'_>) -> Result<Report, Error> {
    let usage = |m: String| Error::Usage(format!("merge: {m}"));
    if shards.command != "ledger" {
        return Err(usage(format!("`{}` reports are not merged by CrossAudit", shards.command)));
    }
    let text = |k: &str| shards.inputs.get(k).and_then(Value::as_str);
    let audit = text("audit").ok_or_else(|| usage("the shards name no audit repository".into()))?;
    let mut o = Options::new(std::path::Path::new(audit));
    o.science = text("science").filter(|s| !s.starts_with('(')).map(Into::into);
    o.dialect = match text("dialect") {
        Some("v1") => DialectChoice::V1,
        Some("schema2") => DialectChoice::Schema2,
        _ => DialectChoice::Auto,
    };
    o.audit_rev = text("auditRev").map(str::to_owned);
    o.expect_audit_head = text("expectAuditHead").map(str::to_owned);
    // The signature checks are re-run, not taken from the shards: without the shards'
    // allowed-signers file they would come out inapplicable and hide a bad signature.
    o.allowed_signers = text("allowedSigners").map(Into::into);
    // Likewise the Sigstore options: without them every CV-T2xx would come out cantTell.
    o.sigstore = crate::anchors::sigstore::Options {
        trusted_root: text("trustedRoot").map(Into::into),
        identity: text("certificateIdentity").map(str::to_owned),
        issuer: text("certificateOidcIssuer").map(str::to_owned),
    };
    let mut records = Vec::new();
    for (i, part) in shards.parts.iter().enumerate() {
        let bad = |what: &str| usage(format!("shard {}: its {what} do not read", i + 1));
        let recs: BTreeMap<String, Recorded> =
            serde_json::from_value(part.get("manifestChecks").cloned().unwrap_or(Value::Null))
                .map_err(|_| bad("manifest checks"))?;
        records.push(recs);
    }
    let of = u32::try_from(records.len()).map_err(|_| usage("more shards than a shard count holds".into()))?;
    let plan = Arc::new(Plan::new(Mode::Replay { of, shards: records }));
    o.shard = Some(plan.clone());
    let report = super::ledger::ledger(&o, ctx)?;
    // A shard answers only for its own cycles: a record about another's is not a second
    // opinion to choose from but a set that was tampered with or mixed up.
    if let Some(foreign) = plan.foreign.get().filter(|f| !f.is_empty()) {
        return Err(usage(format!(
            "the set is refused: {}; a shard's records are taken only for the cycles it owns (cycle i belongs to shard i mod N + 1)",
            foreign.join("; ")
        )));
    }
    let head = |inputs: &BTreeMap<String, Value>| inputs.get("auditHead").and_then(Value::as_str).map(str::to_owned);
    if head(&report.inputs) != head(&shards.inputs) {
        return Err(usage(format!(
            "the ledger at {audit} is at {}, the shards verified {}: re-run the shards",
            head(&report.inputs).unwrap_or_default(),
            head(&shards.inputs).unwrap_or_default()
        )));
    }
    Ok(report)
}

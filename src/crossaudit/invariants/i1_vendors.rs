//! I1, vendors: the auditor never judges its own model family's output (`CV-A1xx`).

use std::collections::BTreeSet;

use crate::crossaudit::checks::*;
use crate::crossaudit::load::{Cycle, Ledger};
use crate::crossaudit::model::{CycleFacts, outcome, res};
use crate::crossaudit::records::config::Config;
use crate::crossaudit::records::receipt::{Family, Receipt};
use crate::report::{CheckResult, Outcome};

/// The product's report row is exactly `` `<provider>:<model>` (vendor <vendor>; effort
/// <effort>) `` (`render_report`, product 4.14 `auditor/run.py`); each part must equal the
/// receipt's own declaration, not merely occur somewhere in the row.
fn auditor_row_problems(r: &Receipt, row: &str) -> Vec<String> {
    let (p, m, v) = (
        r.provider.as_deref().unwrap_or_default(),
        r.auditor_model.as_deref().unwrap_or_default(),
        r.auditor_vendor.as_deref().unwrap_or_default(),
    );
    let parsed = row.strip_prefix('`').and_then(|rest| rest.split_once("` (")).and_then(|(id, tail)| {
        let inner = tail.strip_suffix(')')?;
        let (vendor, effort) = match inner.split_once("; effort ") {
            Some((vv, e)) => (vv, Some(e)),
            None => (inner, None),
        };
        Some((id, vendor.strip_prefix("vendor ")?, effort))
    });
    let Some((id, vendor, effort)) = parsed else {
        return vec![format!("the report's auditor row {row:?} is not `provider:model` (vendor …; effort …)")];
    };
    let mut out = Vec::new();
    if id != format!("{p}:{m}") {
        out.push(format!("receipt auditor {p}:{m} but the report's auditor row names {id}"));
    }
    if vendor != v {
        out.push(format!("receipt auditor vendor {v:?} but the report's auditor row says vendor {vendor:?}"));
    }
    match (effort, r.reasoning_effort.as_deref()) {
        (Some(e), Some(want)) if e != want => {
            out.push(format!("receipt reasoning effort {want:?} but the report's auditor row says effort {e:?}"))
        }
        (Some(e), None) if r.v4 => out.push(format!("the report's auditor row says effort {e:?}, the receipt none")),
        (None, Some(want)) => {
            out.push(format!("receipt reasoning effort {want:?} but the report's auditor row states none"))
        }
        _ => {}
    }
    out
}

pub(crate) fn identity_checks(
    ledger: &Ledger,
    r: &Receipt,
    cycle: &Cycle,
    report: Option<&crate::crossaudit::records::report_md::Report>,
    config: Option<&Result<Config, String>>,
    out: &mut Vec<CheckResult>,
    facts: &mut CycleFacts,
) {
    let subject = cycle.path.as_str();
    vendor_heterogeneity(ledger, r, subject, config, out, facts);
    auditor_identity(r, cycle, report, config, subject, out);
    if let Some(iso) = &r.isolation {
        isolation_claims(r, iso, config, subject, out);
    } else if r.family == Family::V1 {
        out.push(res(&ISOLATION_EVIDENCE, Outcome::Inapplicable, subject, "v1 receipts carry no isolation block"));
    }
}

/// CV-A101: the configured generator and auditor vendors differ; records the round bound
/// and the isolation shortfall the configuration sets.
fn vendor_heterogeneity(
    ledger: &Ledger,
    r: &Receipt,
    subject: &str,
    config: Option<&Result<Config, String>>,
    out: &mut Vec<CheckResult>,
    facts: &mut CycleFacts,
) {
    match config {
        Some(Ok(cfg)) => {
            facts.max_rounds = Some(cfg.max_rounds());
            facts.max_rounds_default = cfg.max_rounds.is_none();
            let (g, a) = (cfg.generator_vendor.as_deref(), cfg.auditor_vendor.as_deref());
            match (g, a) {
                (Some(g), Some(a)) => {
                    let (same, rule) = match r.family {
                        Family::V1 => (g == a, "exact string comparison (v1)"),
                        Family::Schema2 => {
                            let mut gs: BTreeSet<String> =
                                cfg.generator_fallbacks.iter().map(|v| norm_vendor(v)).collect();
                            gs.insert(norm_vendor(g));
                            let mut as_: BTreeSet<String> =
                                cfg.auditor_fallbacks.iter().map(|v| norm_vendor(v)).collect();
                            as_.insert(norm_vendor(a));
                            (!gs.is_disjoint(&as_), "trimmed, lower-cased vendor pools with fallbacks (product)")
                        }
                    };
                    // The paper's I1 is about model families; normalising is the stricter reading.
                    let strict_same = norm_vendor(g) == norm_vendor(a);
                    out.push(if same || strict_same {
                        res(
                            &VENDOR_HETEROGENEITY,
                            Outcome::Failed,
                            subject,
                            format!("generator vendor {g:?} and auditor vendor {a:?} are the same ({rule})"),
                        )
                        .with("rule", rule)
                    } else {
                        res(
                            &VENDOR_HETEROGENEITY,
                            Outcome::Passed,
                            subject,
                            format!("generator {g} ≠ auditor {a} ({rule})"),
                        )
                        .with("rule", rule)
                    });
                    if let Some(iso) = &r.isolation
                        && iso.dims.get("parametric") == Some(&true)
                        && (same || strict_same)
                    {
                        out.push(res(
                            &VENDOR_HETEROGENEITY,
                            Outcome::Failed,
                            subject,
                            "isolation.parametric claims heterogeneity the configuration does not support",
                        ));
                    }
                }
                (None, _) => out.push(res(
                    &VENDOR_HETEROGENEITY,
                    Outcome::CantTell,
                    subject,
                    "crossaudit.yml declares no generator vendor: I1 cannot be asserted",
                )),
                (_, None) => out.push(res(
                    &VENDOR_HETEROGENEITY,
                    Outcome::CantTell,
                    subject,
                    "crossaudit.yml declares no auditor vendor",
                )),
            }
            if r.family == Family::Schema2 {
                let isolation_min: Vec<String> = cfg
                    .isolation_minimum
                    .iter()
                    .filter(|(_, req)| **req)
                    .filter(|(dim, _)| r.isolation.as_ref().and_then(|i| i.dims.get(*dim)) != Some(&true))
                    .map(|(d, _)| d.clone())
                    .collect();
                facts.isolation_shortfall = isolation_min;
            }
        }
        Some(Err(e)) => {
            out.push(res(&RECORD_PARSES, Outcome::Failed, subject, e.clone()));
            out.push(res(&VENDOR_HETEROGENEITY, Outcome::CantTell, subject, "crossaudit.yml could not be read"));
        }
        None => {
            let why = if ledger.science.is_none() && r.family == Family::V1 {
                "no science repository given: crossaudit.yml lives there"
            } else {
                "no crossaudit.yml where the dialect keeps it"
            };
            out.push(res(&VENDOR_HETEROGENEITY, Outcome::CantTell, subject, why));
        }
    }
}

/// CV-A102: the declared auditor agrees across receipt, report, exchange and configuration.
fn auditor_identity(
    r: &Receipt,
    cycle: &Cycle,
    report: Option<&crate::crossaudit::records::report_md::Report>,
    config: Option<&Result<Config, String>>,
    subject: &str,
    out: &mut Vec<CheckResult>,
) {
    let mut problems = Vec::new();
    match r.family {
        Family::V1 => {
            let model = r.auditor_model.clone().unwrap_or_default();
            if let Some(row) = report.and_then(|rep| rep.auditor.clone()) {
                let ok = row == model
                    || (model == "offline-stub" && row.starts_with("offline stub"))
                    || (row == "unset" && model.is_empty());
                if !ok {
                    problems.push(format!("receipt auditor_model {model:?} but the report's Auditor row says {row:?}"));
                }
            }
            if let Some(Ok(ex)) = &cycle.exchange
                && let Some(m) = ex.get("model").and_then(crate::json::Value::as_str)
                && m != model
            {
                problems.push(format!("raw_exchange.json model {m:?} differs from the receipt's {model:?}"));
            }
        }
        Family::Schema2 => {
            let (p, m, v) = (
                r.provider.clone().unwrap_or_default(),
                r.auditor_model.clone().unwrap_or_default(),
                r.auditor_vendor.clone().unwrap_or_default(),
            );
            if let Some(iso) = &r.isolation
                && let Some(ip) = iso.evidence.get("provider")
                && *ip != format!("{p}:{m}")
            {
                problems.push(format!("isolation.provider {ip:?} is not {p}:{m}"));
            }
            if let Some(row) = report.and_then(|rep| rep.auditor.clone()) {
                problems.extend(auditor_row_problems(r, &row));
            }
            for (k, want) in [("provider", &p), ("model", &m), ("vendor", &v)] {
                if let Some(x) = r.exchange_identity.get(k)
                    && x != want
                {
                    problems.push(format!("audit.exchange.{k} {x:?} differs from audit.{k} {want:?}"));
                }
            }
            if let (Some(x), Some(want)) = (r.exchange_identity.get("reasoning_effort"), &r.reasoning_effort)
                && x != want
            {
                problems.push(format!(
                    "audit.exchange.reasoning_effort {x:?} differs from audit.reasoning_effort {want:?}"
                ));
            }
            if let Some(Ok(cfg)) = config {
                let allowed: BTreeSet<String> =
                    cfg.auditor_vendor.iter().chain(&cfg.auditor_fallbacks).map(|x| norm_vendor(x)).collect();
                if !allowed.is_empty() && !allowed.contains(&norm_vendor(&v)) {
                    problems.push(format!(
                        "receipt auditor vendor {v:?} is not the configured auditor vendor or a fallback"
                    ));
                }
            }
        }
    }
    out.push(outcome(
        &AUDITOR_IDENTITY,
        problems.is_empty(),
        subject,
        "the declared auditor agrees across receipt, report and configuration",
        problems.join("; "),
    ));
}

/// CV-A103: the isolation block claims only what the product writes and the configuration
/// supports.
fn isolation_claims(
    r: &Receipt,
    iso: &crate::crossaudit::records::receipt::Isolation,
    config: Option<&Result<Config, String>>,
    subject: &str,
    out: &mut Vec<CheckResult>,
) {
    let mut p = Vec::new();
    if iso.dims.get("contextual") != Some(&true) {
        p.push("isolation.contextual is not true".to_owned());
    }
    let exec = iso.evidence.get("execution").map(String::as_str);
    if iso.dims.get("permissive") == Some(&true) && exec == Some("local") {
        p.push("isolation.permissive is true but execution is local".into());
    }
    if let Some(Ok(cfg)) = config
        && r.family == Family::Schema2
        && let Some(claimed) = iso.dims.get("parametric")
        && *claimed != parametric_from(cfg)
    {
        p.push(format!(
            "isolation.parametric is {claimed} but the configuration's vendor pools give {} (product config.heterogeneity)",
            parametric_from(cfg)
        ));
    }
    let local_repo = r.audit_repo.as_deref() == Some("local");
    if exec.is_some() && (exec == Some("local")) != local_repo {
        p.push(format!(
            "execution {:?} but ledger.audit_repo {:?}",
            exec.unwrap_or(""),
            r.audit_repo.as_deref().unwrap_or("")
        ));
    }
    for (k, allowed) in [
        ("credential", &["auditor-only", "shared-process"][..]),
        ("provisioner", &["cli"][..]),
        ("admission", &["local-controller"][..]),
        ("execution", &["local", "github-pair"][..]),
    ] {
        if let Some(v) = iso.evidence.get(k)
            && !allowed.contains(&v.as_str())
        {
            p.push(format!("isolation.{k} {v:?} is not a value the product writes"));
        }
    }
    out.push(outcome(
        &ISOLATION_EVIDENCE,
        p.is_empty(),
        subject,
        "isolation claims agree with their evidence",
        p.join("; "),
    ));
}

fn norm_vendor(v: &str) -> String {
    v.trim().to_lowercase()
}

/// `isolation.parametric` as the product computes it (4.14 `config.heterogeneity`): a declared
/// generator vendor whose recovery pool is disjoint from the auditor's.
fn parametric_from(cfg: &Config) -> bool {
    let Some(g) = &cfg.generator_vendor else { return false };
    let gs: BTreeSet<String> = cfg.generator_fallbacks.iter().chain([g]).map(|v| norm_vendor(v)).collect();
    let as_: BTreeSet<String> =
        cfg.auditor_fallbacks.iter().chain(cfg.auditor_vendor.iter()).map(|v| norm_vendor(v)).collect();
    gs.is_disjoint(&as_)
}

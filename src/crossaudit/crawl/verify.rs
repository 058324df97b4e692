//! Per-cycle verification: runs one cycle's checks in report order and gathers the facts the
//! cross-cycle replay (`replay`, `rounds`) needs. The checks live by invariant: format
//! (`format`), binding I7 (`i7`), citations I3 (`i3_citations`), precedence I4
//! (`i4_precedence`), vendors I1 (`i1_vendors`) and severity I6 (`i6_severity`), all in
//! `invariants/`.

use crate::crossaudit::checks::*;
use crate::crossaudit::invariants::format::{artefacts_present, parse, receipt_shape};
use crate::crossaudit::invariants::i1_vendors::identity_checks;
use crate::crossaudit::invariants::i2_history;
use crate::crossaudit::invariants::i3_citations::{citations, constitution_cited, model_findings};
use crate::crossaudit::invariants::i4_precedence::dcl_checks;
use crate::crossaudit::invariants::i6_severity;
use crate::crossaudit::invariants::i6_severity::severities;
use crate::crossaudit::invariants::i7::binding::{bind, integrity_check};
use crate::crossaudit::invariants::i8_admission;
use crate::crossaudit::load::{Cycle, Ledger};
use crate::crossaudit::model::{Ctx, CycleFacts, res};
use crate::crossaudit::records::constitution::Constitution;
use crate::crossaudit::records::receipt::{Family, Receipt};
use crate::crossaudit::records::synthesis::Inputs;
use crate::git::Repo;

use crate::report::{CheckResult, Outcome};

/// Every per-cycle check, in stages: parsed, bound (I7), then the content checks. The
/// receipt's manifest is dropped on return.
pub(crate) fn check_cycle(
    ctx: &Ctx<'_>,
    audit: &Repo,
    science: Option<&Repo>,
    cycle: &Cycle,
    scratch: &mut crate::crossaudit::model::Scratch,
) -> (Vec<CheckResult>, CycleFacts) {
    let ledger = ctx.ledger;
    let mut out = Vec::new();
    let mut facts = CycleFacts::default();
    artefacts_present(ledger, cycle, &mut out);
    let Some(parsed) = parse(ctx, audit, cycle, &mut scratch.buf, &mut out) else { return (out, facts) };
    let receipt = &parsed.receipt;
    receipt_shape(ledger, receipt, cycle, &mut out);
    facts.product = receipt.family == Family::Schema2;
    facts.verdict.clone_from(&receipt.verdict);
    facts.integrity.clone_from(&receipt.integrity);
    facts.round = receipt.round;
    facts.cycle_id.clone_from(&receipt.cycle_id);
    facts.sha.clone_from(&receipt.sha);
    facts.root_sha.clone_from(&receipt.root_sha);
    facts.science_repo.clone_from(&receipt.science_repo);
    facts.parent_receipt.clone_from(&receipt.parent_receipt);
    facts.identity = receipt.identity();
    let mut bound = bind(ctx, audit, science, cycle, parsed, scratch, &mut out);
    let receipt = &mut bound.receipt;

    // I3 citations, I4, I6, and the synthesis inputs.
    let report = cycle.report.as_ref().map(|(_, r)| r);
    content_checks(receipt, cycle, report, bound.constitution.as_ref(), &mut out, &mut facts);

    // I1.
    identity_checks(ledger, receipt, cycle, report, bound.config.as_ref(), &mut out, &mut facts);

    facts.binding = bound.binding;
    facts.dcl_run = Some(crate::crossaudit::model::dcl_run(receipt, cycle));
    receipt.manifest = None;
    facts.receipt = Some(receipt.clone());
    (out, facts)
}

/// I3, I4 and I6 on the recorded verdict, findings and reply; records the synthesis inputs
/// and the findings the replay needs.
fn content_checks(
    r: &Receipt,
    cycle: &Cycle,
    report: Option<&crate::crossaudit::records::report_md::Report>,
    con: Option<&Constitution>,
    out: &mut Vec<CheckResult>,
    facts: &mut CycleFacts,
) {
    let subject = cycle.path.as_str();
    let dcl = cycle.dcl.as_ref().and_then(|d| d.as_ref().ok());
    let exchange = cycle.exchange.as_ref().and_then(|e| e.as_ref().ok());
    let blockers = dcl_checks(r, cycle, report, out);
    let raw_reply = exchange.and_then(|e| e.get("raw_reply")).filter(|v| !v.is_null());
    let (findings, applied) = model_findings(raw_reply, report);
    facts.model_findings = findings.iter().map(|(s, rule, _)| (s.clone(), rule.clone())).collect();
    let report_invalid = report.and_then(|rep| rep.invalid_reason.clone());
    let exchange_invalid =
        exchange.and_then(|e| e.get("invalid_reason")).and_then(crate::json::Value::as_str).map(str::to_owned);
    let integrity_invalid = matches!(
        r.integrity.as_deref(),
        Some("AUDITOR_INVALID_ESCALATION_REQUIRED" | "INVALID_REPLY" | "PROVIDER_FAILURE")
    );
    // Both references' reply validators refuse a severity outside BLOCKER/ADVISORY (formats
    // §5.9 rule 6), so a recorded model finding graded otherwise stands for a reply that was
    // invalid and escalates, not for a warning.
    let off_vocabulary = findings.iter().any(|f| f.0 != "BLOCKER" && f.0 != "ADVISORY");
    let recorded_invalid = integrity_invalid || report_invalid.is_some() || exchange_invalid.is_some();
    let invalid = recorded_invalid || off_vocabulary;
    integrity_check(r, report_invalid.as_deref().or(exchange_invalid.as_deref()), blockers, subject, out);
    let offline = match r.family {
        Family::V1 => {
            exchange.is_some_and(|e| e.get("endpoint").is_some_and(crate::json::Value::is_null) && !invalid)
                || r.auditor_model.as_deref() == Some("offline-stub")
        }
        Family::Schema2 => {
            (r.exchange_mode.as_deref() == Some("none") && !r.exchange_error && !invalid)
                || report.is_some_and(|rep| rep.offline)
        }
    };
    let model_blockers = findings.iter().filter(|f| f.0 == "BLOCKER").count();
    facts.blockers = blockers + model_blockers;
    facts.inputs = Inputs {
        lock: false,
        invalid,
        dcl_failures: blockers,
        bound: r.bounds_exceeded.unwrap_or(0) > 0 || r.integrity.as_deref() == Some("BOUNDS_EXCEEDED"),
        reply: raw_reply.and_then(|x| x.get("verdict")).and_then(crate::json::Value::as_str).map(str::to_owned),
        offline,
    };

    // I3: citation validity, only for a reply that was accepted as valid.
    if !offline && !recorded_invalid {
        citations(con, applied.as_ref(), &findings, subject, out);
    } else {
        let why = if offline { "no model ran" } else { "the reply was invalid and escalates" };
        for c in [&CITATIONS_VALID, &BLOCKER_CITES_BLOCKER, &FINDING_EVIDENCED] {
            out.push(res(c, Outcome::Inapplicable, subject, why));
        }
    }
    constitution_cited(r, report, subject, out);
    let verdict = r.verdict.clone().unwrap_or_default();
    severities(&verdict, blockers + model_blockers, &findings, dcl, off_vocabulary, subject, out);
}

/// Ledger-wide checks: presence of cycles, layout, append-only history, the pinned head,
/// disputes and what admission the ledger cannot show.
pub(crate) fn ledger_checks(
    ledger: &Ledger,
    facts: &[CycleFacts],
    expect_head: Option<&str>,
    out: &mut Vec<CheckResult>,
) {
    i2_history::presence(ledger, out);
    i2_history::append_only(ledger, out);
    i2_history::head_pinned(ledger, expect_head, out);
    i6_severity::disputes(ledger, out);
    i8_admission::admission_observable(ledger, facts, out);
}

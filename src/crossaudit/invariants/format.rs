//! Format-level checks of one cycle: its artefacts, and records that parse strictly
//! (`CV-A0xx`). The receipt that comes out of [`parse`] is what the receipt *says*; nothing in
//! it is verified yet.

use crate::crossaudit::checks::*;
use crate::crossaudit::load::{Cycle, Ledger, artefacts};
use crate::crossaudit::model::{Ctx, Parsed, at, res};
use crate::crossaudit::records::receipt::Receipt;
use crate::git::Repo;
use crate::report::{CheckResult, Outcome};

/// CV-A002 and CV-A004: the dialect's artefacts, and nothing else, in the cycle directory.
pub(crate) fn artefacts_present(ledger: &Ledger, cycle: &Cycle, out: &mut Vec<CheckResult>) {
    let subject = cycle.path.as_str();
    let missing: Vec<&str> = artefacts(ledger.family)
        .iter()
        .copied()
        .filter(|f| !cycle.files.get(*f).is_some_and(|(k, _)| k.is_file()))
        .collect();
    let interrupted = ledger.interrupted_attempt(cycle);
    out.push(if missing.is_empty() {
        res(&CYCLE_ARTEFACTS, Outcome::Passed, subject, "every artefact of the dialect is present")
    } else if let Some(i) = interrupted.filter(|_| missing.iter().all(|m| ["receipt.json", "checks.json"].contains(m)))
    {
        // The product's own trace of an interruption between its report and receipt commits,
        // not a removed receipt (removal is CV-A201's): it binds nothing and claims nothing.
        match i.superseded_by {
            Some(later) => res(
                &CYCLE_ARTEFACTS,
                Outcome::Passed,
                subject,
                format!("interrupted attempt (report committed, no receipt), re-attempted and completed in {later}"),
            ),
            None => res(
                &CYCLE_ARTEFACTS,
                Outcome::CantTell,
                subject,
                "interrupted round: the report is committed but no receipt binds it and no later attempt completed it",
            ),
        }
    } else {
        res(&CYCLE_ARTEFACTS, Outcome::Failed, subject, format!("{} missing", missing.join(", ")))
            .with("missing", missing.clone())
    });
    let extra: Vec<&String> = cycle.files.keys().filter(|f| !artefacts(ledger.family).contains(&f.as_str())).collect();
    if !extra.is_empty() {
        out.push(res(
            &LEDGER_LAYOUT,
            Outcome::Failed,
            subject,
            format!(
                "files the dialect does not write: {}",
                extra.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
}

/// CV-A001 for the cycle's records; the receipt when it parses (CV-A002 when it cannot be
/// read as one).
pub(crate) fn parse(
    ctx: &Ctx<'_>,
    audit: &Repo,
    cycle: &Cycle,
    buf: &mut Vec<u8>,
    out: &mut Vec<CheckResult>,
) -> Option<Parsed> {
    let subject = cycle.path.as_str();
    let bytes = match &cycle.receipt_given {
        Some(b) => Some(Ok(b.as_slice())),
        None => cycle.receipt_blob.map(|id| audit.record_into(id, &cycle.file("receipt.json"), buf)),
    };
    let parsed = bytes.map(|read| {
        let file = cycle.file("receipt.json");
        match read {
            Ok(bytes) => Receipt::parse_identity(bytes).map_err(|e| {
                (matches!(e, crate::crossaudit::records::receipt::ParseError::Json(_)), format!("{file}: {e}"))
            }),
            Err(e) => Err((false, e.to_string())),
        }
    });
    let mut parse_failures = Vec::new();
    if let Some(Err((true, e))) = &parsed {
        parse_failures.push(e.clone());
    }
    if let Some(Err(e)) = &cycle.dcl {
        parse_failures.push(e.clone());
    }
    if let Some(Err(e)) = &cycle.exchange {
        parse_failures.push(e.clone());
    }
    if parse_failures.is_empty() {
        out.push(res(&RECORD_PARSES, Outcome::Passed, subject, "records parse strictly"));
    } else {
        for f in &parse_failures {
            // Failures read "<ledger path>: <reason>"; the file is the location, the reason
            // (with line and column for JSON) the evidence.
            let mut r = res(&RECORD_PARSES, Outcome::Failed, subject, f.clone());
            if let Some((file, why)) = f.split_once(": ").filter(|(file, _)| file.starts_with(&cycle.path)) {
                r = r.with("file", file).with("error", why).at(
                    Some("audit"),
                    Some(file),
                    Some(&ctx.ledger.audit_head.to_string()),
                );
            }
            out.push(r);
        }
    }

    match parsed {
        Some(Ok(receipt)) => Some(Parsed { receipt }),
        Some(Err((json, e))) => {
            if !json {
                out.push(at(cycle, res(&RECEIPT_SHAPE, Outcome::Failed, subject, e), "receipt.json"));
            }
            None
        }
        None => None,
    }
}

/// CV-A002: the receipt's family and its required fields.
pub(crate) fn receipt_shape(ledger: &Ledger, receipt: &Receipt, cycle: &Cycle, out: &mut Vec<CheckResult>) {
    let subject = cycle.path.as_str();
    if receipt.family != ledger.family {
        out.push(at(
            cycle,
            res(
                &RECEIPT_SHAPE,
                Outcome::Failed,
                subject,
                format!("a {} receipt in a {} ledger", receipt.family.as_str(), ledger.family.as_str()),
            ),
            "receipt.json",
        ));
    }
    if receipt.problems.is_empty() {
        out.push(res(&RECEIPT_SHAPE, Outcome::Passed, subject, "every required field is present and well-formed"));
    } else {
        for p in &receipt.problems {
            out.push(at(cycle, res(&RECEIPT_SHAPE, Outcome::Failed, subject, p.clone()), "receipt.json"));
        }
    }
}

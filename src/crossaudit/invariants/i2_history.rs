//! I2, ledger history: supervision history replayable from the repositories. The ledger-wide
//! checks: cycles present, layout, append-only history, the pinned audit head (`CV-A0xx`,
//! `CV-A2xx`).

use crate::crossaudit::checks::*;
use crate::crossaudit::load::Ledger;
use crate::crossaudit::model::{res, short};
use crate::report::{CheckResult, Outcome};

/// CV-A003 and CV-A004 for the ledger as a whole.
pub(crate) fn presence(ledger: &Ledger, out: &mut Vec<CheckResult>) {
    let head = short(&ledger.audit_head.to_string());
    out.push(if ledger.cycles.is_empty() {
        res(
            &LEDGER_HAS_CYCLES,
            Outcome::CantTell,
            "ledger",
            format!("no cycle directory under `{}/` at audit commit {head}", ledger.ledger_dir),
        )
    } else {
        res(
            &LEDGER_HAS_CYCLES,
            Outcome::Passed,
            "ledger",
            format!(
                "{} cycle director{} under `{}/`",
                ledger.cycles.len(),
                if ledger.cycles.len() == 1 { "y" } else { "ies" },
                ledger.ledger_dir
            ),
        )
    });
    if ledger.detected {
        out.push(res(
            &LEDGER_LAYOUTS_MIXED,
            Outcome::Passed,
            "ledger",
            format!("the ledger holds one layout ({} receipts)", ledger.family.as_str()),
        ));
    }
    if ledger.strays.is_empty() {
        out.push(res(
            &LEDGER_LAYOUT,
            Outcome::Passed,
            "ledger",
            "everything under the ledger directory belongs to a cycle directory",
        ));
    }
    for s in &ledger.strays {
        out.push(res(
            &LEDGER_LAYOUT,
            Outcome::Failed,
            s,
            format!("not a cycle directory of the {} layout", ledger.family.as_str()),
        ));
    }
}

/// CV-A201: every ledger file added once and never changed.
pub(crate) fn append_only(ledger: &Ledger, out: &mut Vec<CheckResult>) {
    match &ledger.history {
        Ok(h) => {
            if h.violations.is_empty() {
                out.push(res(
                    &LEDGER_APPEND_ONLY,
                    Outcome::Passed,
                    "ledger",
                    format!("{} ledger file(s), each added once and never changed", h.added.len()),
                ));
            }
            for (path, first, then, what) in &h.violations {
                out.push(
                    res(
                        &LEDGER_APPEND_ONLY,
                        Outcome::Failed,
                        path,
                        format!("added in {}, {what} in {}", short(&first.to_string()), short(&then.to_string())),
                    )
                    .with("addedIn", first.to_string())
                    .with("changedIn", then.to_string())
                    .at(Some("audit"), Some(path), Some(&then.to_string())),
                );
            }
        }
        Err(e) => out.push(res(
            &LEDGER_APPEND_ONLY,
            Outcome::CantTell,
            "ledger",
            format!("the audit history cannot be walked: {e}"),
        )),
    }
}

/// CV-A202: the audit head descends from the pinned one.
pub(crate) fn head_pinned(ledger: &Ledger, expect_head: Option<&str>, out: &mut Vec<CheckResult>) {
    let audit = ledger.audit.local();
    let head = short(&ledger.audit_head.to_string());
    match expect_head {
        None => out.push(res(&AUDIT_HEAD_PINNED, Outcome::Inapplicable, "audit head", "no --expect-audit-head given")),
        Some(pin) => {
            let ev = |r: CheckResult| r.with("pinned", pin).with("auditHead", ledger.audit_head.to_string());
            out.push(ev(match audit.resolve(pin) {
                Ok(id) => match audit.is_ancestor(id, ledger.audit_head) {
                    Ok(true) => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::Passed,
                        "audit head",
                        format!("pinned {} is an ancestor of {head}", short(&id.to_string())),
                    ),
                    Ok(false) => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::Failed,
                        "audit head",
                        format!("pinned {} is not an ancestor of {head} (history rewritten)", short(&id.to_string())),
                    ),
                    Err(e) => res(&AUDIT_HEAD_PINNED, Outcome::CantTell, "audit head", e.to_string()),
                },
                Err(_) => match audit.shallow_hint() {
                    Some(hint) => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::CantTell,
                        "audit head",
                        format!("pinned head {} is not in the audit repository, but {hint}", short(pin)),
                    ),
                    None => res(
                        &AUDIT_HEAD_PINNED,
                        Outcome::Failed,
                        "audit head",
                        format!(
                            "pinned head {} is not in the audit repository (history rewritten, or the wrong repository)",
                            short(pin)
                        ),
                    ),
                },
            }));
        }
    }
}

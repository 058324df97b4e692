//! A receipt wrapped in a Sigstore bundle: the bundle is committed beside the receipt as
//! `<cycle>/receipt.json.sigstore.json` and signs the receipt's exact bytes (a message
//! signature over their SHA-256, or a DSSE statement whose subject digest is that SHA-256).
//! Any dialect's receipt can be wrapped: the bundle binds bytes, not fields. The checks are
//! the protocol-free `CV-T2xx` of [`crate::anchors::sigstore`]; a cycle without a bundle
//! gets none of them.

use sha2::{Digest as _, Sha256};

use crate::anchors::sigstore::{Anchor, BUNDLE_SUFFIX, check_bundle, unreadable};
use crate::crossaudit::load::{Cycle, Ledger};
use crate::report::CheckResult;

/// The bundle's file name in a cycle directory.
pub(crate) fn bundle_name() -> String {
    format!("receipt.json{BUNDLE_SUFFIX}")
}

/// The `CV-T2xx` results of every given cycle that holds a bundle.
pub(crate) fn results<'a>(
    ledger: &Ledger,
    cycles: impl Iterator<Item = &'a Cycle>,
    anchor: &Anchor,
) -> Vec<CheckResult> {
    let repo = ledger.audit.local();
    let name = bundle_name();
    let mut out = Vec::new();
    for cycle in cycles {
        let Some((kind, id)) = cycle.files.get(&name) else { continue };
        let subject = cycle.file(&name);
        if !kind.is_file() {
            out.extend(unreadable(&subject, "not a regular file"));
            continue;
        }
        let bundle = match repo.blob_size(*id) {
            Ok(n) if n > crate::anchors::sigstore::MAX_BUNDLE_BYTES => {
                out.extend(unreadable(&subject, &format!("{n} bytes, more than a bundle can be")));
                continue;
            }
            Ok(_) => repo.blob(*id),
            Err(e) => Err(e),
        };
        let receipt = match (&cycle.receipt_given, cycle.receipt_blob) {
            (Some(b), _) => Ok(b.clone()),
            (None, Some(r)) => repo.blob(r),
            (None, None) => {
                out.extend(unreadable(&subject, "no regular receipt.json beside it to verify the bundle over"));
                continue;
            }
        };
        match (bundle, receipt) {
            (Ok(b), Ok(r)) => out.extend(check_bundle(anchor, &subject, &b, Sha256::digest(&r).into())),
            (Err(e), _) | (_, Err(e)) => out.extend(unreadable(&subject, &e.to_string())),
        }
    }
    out
}

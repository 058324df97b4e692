//! Trust anchors beyond self-declaration (family `CV-T`): protocol-free checks on signatures.
//! `CV-T0xx` judge the SSH signatures of a ledger's commits against an allowed-signers file
//! ([`commits`]); `CV-T1xx` judge signed, replayable verification reports ([`reports`]). The
//! `CV-T2xx` judge receipts wrapped in Sigstore bundles ([`sigstore`]). The
//! cryptography lives below, in `trust`; this module turns its answers into findings, and the
//! protocols call it (CrossAudit for its audit commits).

pub mod commits;
pub mod reports;
pub mod sigstore;

use crate::checks::{Family, no_group, prefix_and_digits};
use crate::report::Tone;

/// Signatures and their anchors: codes `CV-T` and three digits.
pub static FAMILY: Family = Family {
    name: "trust anchors",
    prefix: "CV-T",
    grammar: "`CV-T` then three digits (0xx commit signatures, 1xx signed reports, 2xx Sigstore bundles)",
    code_ok: |c| prefix_and_digits(c, "CV-T", 3),
    group_label: None,
    group_ok: no_group,
    sources: &[
        (
            "PROTOCOL.sshsig",
            "PROTOCOL.sshsig: [OpenSSH's SSH signature format](https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.sshsig)",
        ),
        ("ssh-keygen(1)", "ssh-keygen(1): [ALLOWED SIGNERS](https://man.openbsd.org/ssh-keygen#ALLOWED_SIGNERS)"),
        (
            "DSSE",
            "DSSE: [the Dead Simple Signing Envelope protocol](https://github.com/secure-systems-lab/dsse/blob/master/protocol.md)",
        ),
    ],
    tones: &[
        ("allowed", Tone::Good),
        ("good", Tone::Good),
        ("unknown key", Tone::Bad),
        ("not for this identity", Tone::Bad),
        ("excluded", Tone::Bad),
        ("bad signature", Tone::Bad),
        ("bad", Tone::Bad),
        ("unsigned", Tone::Bad),
        ("not verified", Tone::Unknown),
    ],
    first_views: &["signatures"],
    location_inputs: &["audit", "envelope", "receipt"],
};

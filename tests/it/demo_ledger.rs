//! The demo ledger embedded in the binary (`src/crossaudit/demo-ledger/`) is byte for byte what
//! the fixture minter makes from `ledger-fixtures/demo-signed.toml` today (with its allowed-signers file), and `demo` unpacks it to
//! the same commits. `CROSSVERIFY_UPDATE_DEMO=1 cargo test --test it demo_ledger::` regenerates it.

use crate::support;

use crossverify::git::Repo;
use crossverify_fixtures::{demo, mint};

#[test]
fn embedded_demo_ledger_is_what_the_minter_makes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let minted = tmp.path().join("minted");
    mint::build_file(&support::root().join("ledger-fixtures/demo-signed.toml"), &minted).expect("the demo mints");
    let dir = support::root().join("src/crossaudit/demo-ledger");
    for repo in ["science", "audit"] {
        let fresh = demo::archive(&minted.join(repo)).expect("archive");
        let path = dir.join(format!("{repo}.objects"));
        if std::env::var_os("CROSSVERIFY_UPDATE_DEMO").is_some() {
            std::fs::write(&path, &fresh).expect("write archive");
        }
        let committed = std::fs::read(&path).expect("committed archive");
        assert!(
            committed == fresh,
            "{} differs from the minted demo ledger (CROSSVERIFY_UPDATE_DEMO=1)",
            path.display()
        );
    }
    let signers = dir.join("allowed_signers");
    let fresh = std::fs::read(minted.join("allowed_signers")).expect("the minter writes allowed_signers");
    if std::env::var_os("CROSSVERIFY_UPDATE_DEMO").is_some() {
        std::fs::write(&signers, &fresh).expect("write allowed_signers");
    }
    assert!(std::fs::read(&signers).expect("committed allowed_signers") == fresh, "{} is stale", signers.display());
    let unpacked = tmp.path().join("unpacked");
    crossverify::crossaudit::demo::unpack(&unpacked).expect("unpack");
    for repo in ["science", "audit"] {
        let a = Repo::open(&minted.join(repo)).expect("minted").resolve("HEAD").expect("HEAD");
        let b = Repo::open(&unpacked.join(repo)).expect("unpacked").resolve("HEAD").expect("HEAD");
        assert_eq!(a, b, "{repo}: unpacked HEAD differs from the minted one");
        assert_eq!(
            demo::archive(&unpacked.join(repo)).expect("archive"),
            demo::archive(&minted.join(repo)).expect("archive"),
            "{repo}: the unpacked repository holds other objects or references than the minted one"
        );
    }
}

//! Tree objects from untrusted repositories: decoding arbitrary bytes returns entries or an
//! error, never a panic; and what decodes, re-encoded by gix, decodes to the same entries.
#![no_main]

use crossverify::git::decode_tree;
use gix::objs::WriteTo as _;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(entries) = decode_tree(data, gix::hash::Kind::Sha1) else { return };
    let Ok(tree) = gix::objs::TreeRef::from_bytes(data, gix::hash::Kind::Sha1) else {
        panic!("decode_tree accepted what gix refuses");
    };
    let mut out = Vec::new();
    // gix refuses to write some names it reads (e.g. containing `/`); nothing to compare then.
    if tree.write_to(&mut out).is_err() {
        return;
    }
    let again = decode_tree(&out, gix::hash::Kind::Sha1).expect("a re-encoded tree decodes");
    assert_eq!(again, entries);
});

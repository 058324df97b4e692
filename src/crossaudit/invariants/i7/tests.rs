use std::collections::BTreeSet;

use proptest::prelude::*;

use super::science::compare;
use crate::crossaudit::records::receipt::Manifest;
use crate::crossaudit::records::scope::{Expect, Selection};
use crate::git::ObjectId;

fn id(n: u8) -> ObjectId {
    ObjectId::from_bytes_or_panic(&[n; 20])
}

proptest! {
    /// The one merge answers what each check asked of the two maps before, key by key.
    #[test]
    fn one_merge_answers_each_checks_question(
        manifest in proptest::collection::btree_set("[a-d]{1,3}", 0..24),
        selected in proptest::collection::btree_map("[a-d]{1,3}", 0u8..4, 0..24),
        bad in proptest::collection::btree_set("[a-d]{1,3}", 0..4),
    ) {
        let m: Manifest = manifest.iter().map(|k| (k.clone(), "x".to_owned())).collect();
        let sel = Selection {
            keys: selected
                .iter()
                .map(|(k, n)| {
                    let e = if *n == 0 { Expect::Absent { why: "deleted", hidden: None } } else { Expect::File(id(*n)) };
                    (k.clone(), e)
                })
                .collect(),
            ..Selection::default()
        };
        let bad: BTreeSet<String> = bad;
        let c = compare(&m, &bad, &sel);
        let files: Vec<Option<ObjectId>> = manifest
            .iter()
            .map(|k| match sel.keys.get(k) {
                Some(Expect::File(i)) if !bad.contains(k) => Some(*i),
                _ => None,
            })
            .collect();
        prop_assert_eq!(c.files, files);
        let considered: Vec<&String> = manifest.iter().filter(|k| !bad.contains(*k)).collect();
        prop_assert_eq!(c.considered, considered.len());
        let outside: Vec<String> = considered.into_iter().filter(|k| !sel.keys.contains_key(*k)).cloned().collect();
        prop_assert_eq!(c.outside, outside);
        let unheld: Vec<usize> =
            sel.keys.keys().enumerate().filter(|(_, k)| !manifest.contains(*k)).map(|(j, _)| j).collect();
        prop_assert_eq!(c.unheld, unheld);
    }
}

//! Helpers of the cache tests (`tests/it/cache.rs`, `tests/it/cache_default.rs`): the database's rows
//! and the figures of the cache's line on standard error.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;

const TABLE: redb::TableDefinition<'_, &[u8], &[u8]> = redb::TableDefinition::new("entries");

/// Replaces every row of the cache database `db` by `f(table key, stored bytes)`: `Some` the
/// new bytes, `None` removes the row. Returns how many rows there were.
pub fn edit_rows(db: &Path, f: impl Fn(&[u8], &[u8]) -> Option<Vec<u8>>) -> usize {
    let db = redb::Database::create(db).expect("open cache db");
    let rows: Vec<(Vec<u8>, Vec<u8>)> = {
        let tx = redb::ReadableDatabase::begin_read(&db).expect("read tx");
        let t = tx.open_table(TABLE).expect("table");
        redb::ReadableTable::iter(&t)
            .expect("iter")
            .map(|r| {
                let (k, v) = r.expect("row");
                (k.value().to_vec(), v.value().to_vec())
            })
            .collect()
    };
    let tx = db.begin_write().expect("write tx");
    {
        let mut t = tx.open_table(TABLE).expect("table");
        for (k, v) in &rows {
            match f(k, v) {
                Some(new) => t.insert(k.as_slice(), new.as_slice()).map(drop),
                None => t.remove(k.as_slice()).map(drop),
            }
            .expect("write row");
        }
    }
    tx.commit().expect("commit");
    rows.len()
}

/// The figure before `word` in the cache's line of `stderr`.
pub fn figure(stderr: &str, word: &str) -> u64 {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("crossverify: cache: ") && l.contains(" hits"))
        .unwrap_or_else(|| panic!("no cache line in {stderr}"));
    let words: Vec<&str> = line.split([' ', ',', ';']).filter(|w| !w.is_empty()).collect();
    let at = words.iter().position(|w| *w == word).unwrap_or_else(|| panic!("no {word} in {line}"));
    words[at - 1].parse().unwrap_or_else(|_| panic!("no figure before {word} in {line}"))
}

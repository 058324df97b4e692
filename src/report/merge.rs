//! Reading the shard reports `crossverify merge` combines (issue 14, `docs/scale.md`). This
//! part knows nothing of any protocol: it checks that the files are one complete set of
//! shards of one run — the same command, tool and inputs, shard indexes 1 to N once each —
//! and hands each shard's `shard` section, in index order, to the protocol that made them.

use std::collections::BTreeMap;

use serde_json::Value;

/// The section a shard report carries: `index`, `of`, and the protocol's own records.
pub const SECTION: &str = "shard";

/// The input naming a report's shard (`K/N`); the merged report has none.
pub const INPUT: &str = "shard";

/// A complete set of shard reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Shards {
    /// The command the shards ran (`ledger`).
    pub command: String,
    /// The inputs they share (without [`INPUT`]).
    pub inputs: BTreeMap<String, Value>,
    /// Each shard's [`SECTION`], shard 1 first.
    pub parts: Vec<Value>,
}

/// Why a set of files is not one complete set of shards.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct Error {
    /// The file at fault (or the first file, for a problem of the set).
    pub file: String,
    /// What is wrong.
    pub reason: String,
}

/// Reads `(name, bytes)` shard reports, in any order.
///
/// # Errors
/// The first file that does not parse, is not a shard report, or does not belong with the
/// others; or a set with a shard missing or repeated.
pub fn read(files: &[(String, Vec<u8>)]) -> Result<Shards, Error> {
    let err = |file: &str, reason: String| Error { file: file.to_owned(), reason };
    let first = files.first().map(|(n, _)| n.as_str()).ok_or_else(|| err("merge", "no shard reports given".into()))?;
    let mut by_index: BTreeMap<u64, (String, Value)> = BTreeMap::new();
    let mut common: Option<(String, Value, BTreeMap<String, Value>, u64)> = None;
    for (name, bytes) in files {
        let doc = crate::json::parse(bytes).map_err(|e| err(name, format!("not a JSON report: {e}")))?;
        let Value::Object(mut doc) = crate::json::to_serde(&doc) else {
            return Err(err(name, "not a JSON report object".into()));
        };
        let part = doc.remove(SECTION).ok_or_else(|| {
            err(name, format!("not a shard report (no `{SECTION}` section: run `ledger --shard K/N --format json`)"))
        })?;
        let number = |k: &str| part.get(k).and_then(Value::as_u64).filter(|n| *n >= 1);
        let (Some(index), Some(of)) = (number("index"), number("of")) else {
            return Err(err(name, format!("its `{SECTION}` section has no index and count")));
        };
        let command = doc.get("command").and_then(Value::as_str).unwrap_or_default().to_owned();
        let tool = doc.get("tool").cloned().unwrap_or(Value::Null);
        let mut inputs: BTreeMap<String, Value> = match doc.remove("inputs") {
            Some(Value::Object(m)) => m.into_iter().collect(),
            _ => return Err(err(name, "a report without inputs".into())),
        };
        inputs.remove(INPUT);
        // `--sign-report` records each shard's own command line, which names its `--shard`.
        inputs.remove("invocation");
        let this = (command, tool, inputs, of);
        match &common {
            None => common = Some(this),
            Some(c) if *c == this => {}
            Some(c) => {
                let what = if c.0 != this.0 {
                    "another command"
                } else if c.1 != this.1 {
                    "another tool version"
                } else if c.3 != this.3 {
                    "another shard count"
                } else {
                    "other inputs (repositories, revision or options)"
                };
                return Err(err(name, format!("belongs to another run than {first}: {what}")));
            }
        }
        if index > of {
            return Err(err(name, format!("shard {index} of {of} does not exist")));
        }
        if let Some((other, _)) = by_index.insert(index, (name.clone(), part)) {
            return Err(err(name, format!("shard {index} is given twice (also {other})")));
        }
    }
    let (command, _, inputs, of) = common.expect("at least one file was read");
    let missing: Vec<String> = (1..=of).filter(|i| !by_index.contains_key(i)).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        return Err(err(first, format!("shard(s) {} of {of} missing", missing.join(", "))));
    }
    Ok(Shards { command, inputs, parts: by_index.into_values().map(|(_, p)| p).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(k: u64, n: u64, audit: &str) -> (String, Vec<u8>) {
        let doc = serde_json::json!({
            "command": "ledger", "tool": {"name": "crossverify"},
            "inputs": {"audit": audit, "shard": format!("{k}/{n}")},
            "shard": {"index": k, "of": n, "records": k},
        });
        (format!("s{k}.json"), serde_json::to_vec(&doc).expect("json"))
    }

    #[test]
    fn a_complete_set_in_any_order_is_read_in_index_order() {
        let s = read(&[shard(2, 2, "a"), shard(1, 2, "a")]).expect("a complete set");
        assert_eq!(s.command, "ledger");
        assert_eq!(s.parts.iter().map(|p| p["records"].as_u64()).collect::<Vec<_>>(), [Some(1), Some(2)]);
        assert!(!s.inputs.contains_key(INPUT));
    }

    #[test]
    fn incomplete_repeated_or_foreign_sets_are_refused() {
        let msg = |files: &[(String, Vec<u8>)]| read(files).expect_err("refused").to_string();
        assert!(msg(&[shard(1, 3, "a"), shard(3, 3, "a")]).contains("shard(s) 2 of 3 missing"));
        assert!(msg(&[shard(1, 2, "a"), shard(1, 2, "a")]).contains("given twice"));
        assert!(msg(&[shard(1, 2, "a"), shard(2, 2, "b")]).contains("other inputs"));
        assert!(msg(&[shard(1, 2, "a"), shard(2, 3, "a")]).contains("another shard count"));
        assert!(msg(&[shard(3, 2, "a")]).contains("does not exist"));
        assert!(msg(&[("x".into(), b"{\"command\":\"ledger\"}".to_vec())]).contains("not a shard report"));
        assert!(msg(&[("x".into(), b"{\"a\":1,\"a\":2}".to_vec())]).contains("not a JSON report"));
        assert!(msg(&[]).contains("no shard reports"));
    }
}

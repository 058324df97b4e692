//! A receipt's manifest: repository path → SHA-256 digest or `ABSENT`, sorted by path.

use std::collections::BTreeMap;

use crate::json::Value;

/// A receipt's manifest, sorted by path (code-point order, the order of the parsed object).
///
/// It keeps the parsed JSON object it came from, every value a string: moving a receipt's ten
/// thousand entries into a map of plain strings cost 6% of a cold ledger run, as much as
/// parsing them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest(BTreeMap<String, Value>);

/// The text of a value held in a [`Manifest`], which holds strings only.
fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

impl Manifest {
    /// The manifest of a parsed object; each entry whose value is not a string is left out and
    /// named in `problems`, in key order.
    pub(crate) fn from_object(mut m: BTreeMap<String, Value>, problems: &mut Vec<String>) -> Self {
        m.retain(|k, v| {
            let keep = matches!(v, Value::String(_));
            if !keep {
                problems.push(format!("manifest entry {k:?} is a {}, not a digest string", v.type_name()));
            }
            keep
        });
        Manifest(m)
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it binds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The digest (or `ABSENT`) recorded for `path`.
    #[must_use]
    pub fn get(&self, path: &str) -> Option<&str> {
        self.0.get(path).map(text)
    }

    /// Whether `path` is a key.
    #[must_use]
    pub fn contains_key(&self, path: &str) -> bool {
        self.0.contains_key(path)
    }

    /// The paths, ascending.
    pub fn keys(&self) -> std::collections::btree_map::Keys<'_, String, Value> {
        self.0.keys()
    }

    /// (path, digest or `ABSENT`), ascending by path.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &str)> + Clone {
        self.0.iter().map(|(k, v)| (k, text(v)))
    }
}

impl FromIterator<(String, String)> for Manifest {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Manifest(iter.into_iter().map(|(k, v)| (k, Value::String(v))).collect())
    }
}

impl serde::Serialize for Manifest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Manifest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(BTreeMap::<String, String>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_strings_are_left_out_and_named_in_key_order() {
        let object: BTreeMap<String, Value> =
            [("b", Value::from(1)), ("a", Value::from("ABSENT")), ("c", Value::Null), ("d", Value::from("00"))]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
        let mut problems = Vec::new();
        let m = Manifest::from_object(object, &mut problems);
        assert_eq!(
            problems,
            [
                "manifest entry \"b\" is a number, not a digest string",
                "manifest entry \"c\" is a null, not a digest string"
            ]
        );
        assert_eq!(m.iter().collect::<Vec<_>>(), [(&"a".to_owned(), "ABSENT"), (&"d".to_owned(), "00")]);
        assert_eq!((m.len(), m.get("a"), m.get("b"), m.contains_key("d")), (2, Some("ABSENT"), None, true));
        let json = serde_json::to_string(&m).expect("serialises");
        assert_eq!(json, r#"{"a":"ABSENT","d":"00"}"#);
        assert_eq!(serde_json::from_str::<Manifest>(&json).expect("reads back"), m);
    }
}

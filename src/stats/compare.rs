//! Comparing a stated figure (from a claims file or a published summary) with the
//! recomputed one.
//!
//! Numbers agree when they are within the stated precision: a figure written with `d`
//! decimals agrees with every recomputed value within `0.5·10^-d` of it (so "a median of 6
//! minutes" agrees with 5.67, and `2.10` with 2.1), unless an explicit tolerance is given.
//! Counts are integers on both sides, so for them this is exact equality. Everything else
//! (strings, booleans, lists, maps) must be equal, with the same rule for the numbers inside.

use std::collections::BTreeMap;

use serde_json::Value;

/// A stated value, keeping the precision a number was written with.
#[derive(Debug, Clone, PartialEq)]
pub enum Stated {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number and the number of decimals it was written with.
    Number {
        /// The value.
        value: f64,
        /// Decimals written (`2.10` → 2, `70` → 0).
        decimals: i32,
        /// The text as written, for messages.
        text: String,
    },
    /// A string.
    String(String),
    /// A list.
    Array(Vec<Stated>),
    /// A map.
    Object(BTreeMap<String, Stated>),
}

/// Decimals a numeric token was written with (`1.50` → 2, `7` → 0, `2.5e-1` → 2, `1e3` → 0).
fn decimals_of(token: &str) -> i32 {
    let (mantissa, exp) = match token.find(['e', 'E']) {
        Some(i) => (&token[..i], token[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (token, 0),
    };
    let frac = mantissa.split_once('.').map_or(0, |(_, f)| i32::try_from(f.len()).unwrap_or(i32::MAX));
    (frac - exp).max(0)
}

impl Stated {
    /// A number written as text (`"2.10"`), keeping its precision; `None` when it is not one.
    #[must_use]
    pub fn number(text: &str) -> Option<Stated> {
        let t = text.trim();
        let value: f64 = t.parse().ok()?;
        value.is_finite().then(|| Stated::Number { value, decimals: decimals_of(t), text: t.to_owned() })
    }

    /// From a strictly parsed JSON value (published summaries): numbers keep their token.
    #[must_use]
    pub fn from_json(v: &crate::json::Value) -> Stated {
        use crate::json::Value as J;
        match v {
            J::Null => Stated::Null,
            J::Bool(b) => Stated::Bool(*b),
            J::Number(n) => Stated::number(n.as_str()).unwrap_or_else(|| Stated::String(n.as_str().to_owned())),
            J::String(s) => Stated::String(s.clone()),
            J::Array(a) => Stated::Array(a.iter().map(Stated::from_json).collect()),
            J::Object(m) => Stated::Object(m.iter().map(|(k, v)| (k.clone(), Stated::from_json(v))).collect()),
        }
    }

    /// From a TOML value (claims files). A float's precision is that of its shortest
    /// round-trip form (`2.10` reads as `2.1`); write the number as a string (`"2.10"`) to
    /// state trailing zeros.
    ///
    /// # Errors
    /// Dates and non-finite floats, which no figure can equal.
    pub fn from_toml(v: &toml::Value) -> Result<Stated, String> {
        Ok(match v {
            toml::Value::String(s) => Stated::String(s.clone()),
            toml::Value::Integer(i) => Stated::Number { value: *i as f64, decimals: 0, text: i.to_string() },
            toml::Value::Float(f) => {
                if !f.is_finite() {
                    return Err(format!("{f} is not a finite number"));
                }
                let text = format!("{f}");
                Stated::Number { value: *f, decimals: decimals_of(&text), text }
            }
            toml::Value::Boolean(b) => Stated::Bool(*b),
            toml::Value::Datetime(d) => {
                return Err(format!("{d} is a date; state figures as numbers, strings, booleans, lists or tables"));
            }
            toml::Value::Array(a) => Stated::Array(a.iter().map(Stated::from_toml).collect::<Result<_, _>>()?),
            toml::Value::Table(t) => Stated::Object(
                t.iter().map(|(k, v)| Ok((k.clone(), Stated::from_toml(v)?))).collect::<Result<_, String>>()?,
            ),
        })
    }

    /// As JSON, for evidence and messages.
    #[must_use]
    pub fn to_json(&self) -> Value {
        match self {
            Stated::Null => Value::Null,
            Stated::Bool(b) => Value::Bool(*b),
            Stated::Number { value, .. } => super::num::value(*value),
            Stated::String(s) => Value::String(s.clone()),
            Stated::Array(a) => Value::Array(a.iter().map(Stated::to_json).collect()),
            Stated::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
        }
    }

    /// Short text for messages.
    #[must_use]
    pub fn show(&self) -> String {
        match self {
            Stated::Number { text, .. } => text.clone(),
            Stated::String(s) => format!("{s:?}"),
            other => other.to_json().to_string(),
        }
    }
}

/// Short text of a recomputed value.
#[must_use]
pub fn show(v: &Value) -> String {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => {
                let s = format!("{f:.4}");
                s.trim_end_matches('0').trim_end_matches('.').to_owned()
            }
            _ => n.to_string(),
        },
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// How object keys are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// The same key set.
    Exact,
    /// Only the stated keys are compared (a summary may publish part of a figure).
    Subset,
    /// A map of counts: an absent key counts 0.
    Counts,
}

/// The allowance for a stated number: the explicit tolerance, else half a unit of its last
/// written decimal.
#[must_use]
pub fn allowance(decimals: i32, tolerance: Option<f64>) -> f64 {
    tolerance.unwrap_or_else(|| 0.5 * 10f64.powi(-decimals))
}

/// Differences between `stated` and `got`, each a sentence naming where (empty: they agree).
/// `keys` applies to the top-level object; nested objects compare exactly.
#[must_use]
pub fn differences(stated: &Stated, got: &Value, tolerance: Option<f64>, keys: Keys) -> Vec<String> {
    let mut out = Vec::new();
    diff(stated, got, tolerance, keys, "", &mut out);
    out
}

fn diff(stated: &Stated, got: &Value, tol: Option<f64>, keys: Keys, at: &str, out: &mut Vec<String>) {
    let here = if at.is_empty() { String::new() } else { format!("{at}: ") };
    match (stated, got) {
        (Stated::Number { value, decimals, text }, Value::Number(n)) => {
            let g = n.as_f64().unwrap_or(f64::NAN);
            // A relative epsilon absorbs binary rounding of the decimal allowance.
            let slack = allowance(*decimals, tol) + 1e-9 * value.abs().max(1.0);
            if (g - value).abs() > slack {
                out.push(format!("{here}stated {text}, recomputed {}", show(got)));
            }
        }
        (Stated::String(s), Value::Number(_)) if Stated::number(s).is_some() => {
            diff(&Stated::number(s).expect("the guard just parsed it"), got, tol, keys, at, out);
        }
        (Stated::Null, Value::Null) => {}
        (Stated::Bool(a), Value::Bool(b)) if a == b => {}
        (Stated::String(a), Value::String(b)) if a == b => {}
        (Stated::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{here}stated {} item(s), recomputed {} ({})", a.len(), b.len(), show(got)));
                return;
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(x, y, tol, Keys::Exact, &format!("{at}/{i}"), out);
            }
        }
        (Stated::Object(a), Value::Object(b)) => {
            for (k, x) in a {
                let path = format!("{at}/{k}");
                match b.get(k) {
                    Some(y) => diff(x, y, tol, Keys::Exact, &path, out),
                    None if keys == Keys::Counts => diff(x, &Value::from(0), tol, Keys::Exact, &path, out),
                    None => out.push(format!("{path}: stated {}, not in the recomputation", x.show())),
                }
            }
            if keys != Keys::Subset {
                for (k, y) in b {
                    if !(a.contains_key(k) || keys == Keys::Counts && y.as_f64() == Some(0.0)) {
                        out.push(format!("{at}/{k}: recomputed {}, not stated", show(y)));
                    }
                }
            }
        }
        _ => out.push(format!("{here}stated {}, recomputed {}", stated.show(), show(got))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn n(text: &str) -> Stated {
        Stated::number(text).expect("number")
    }

    #[test]
    fn precision_rule() {
        assert_eq!(decimals_of("2.10"), 2);
        assert_eq!(decimals_of("70"), 0);
        assert_eq!(decimals_of("2.5e-1"), 2);
        assert_eq!(decimals_of("1e3"), 0);
        assert!(differences(&n("6"), &json!(5.666), None, Keys::Exact).is_empty());
        assert!(!differences(&n("6"), &json!(5.4), None, Keys::Exact).is_empty());
        assert!(differences(&n("2.10"), &json!(2.1), None, Keys::Exact).is_empty());
        assert!(!differences(&n("2.10"), &json!(2.106), None, Keys::Exact).is_empty());
        assert!(differences(&n("7"), &json!(7), None, Keys::Exact).is_empty());
        assert!(!differences(&n("7"), &json!(8), None, Keys::Exact).is_empty());
        assert!(differences(&n("34"), &json!(36), Some(2.0), Keys::Exact).is_empty());
        assert!(differences(&Stated::String("2.10".into()), &json!(2.1), None, Keys::Exact).is_empty());
    }

    #[test]
    fn maps_and_lists() {
        let stated = Stated::Object([("stop".to_owned(), n("5")), ("accept".to_owned(), n("0"))].into());
        assert!(differences(&stated, &json!({"stop": 5}), None, Keys::Counts).is_empty());
        assert_eq!(differences(&stated, &json!({"stop": 5, "accept": 1}), None, Keys::Counts).len(), 1);
        assert_eq!(differences(&stated, &json!({"stop": 5, "X": 1}), None, Keys::Counts).len(), 1);
        assert_eq!(differences(&stated, &json!({"stop": 5}), None, Keys::Exact).len(), 1);
        let part = Stated::Object([("median".to_owned(), n("1"))].into());
        assert!(differences(&part, &json!({"median": 1, "mean": 1.25}), None, Keys::Subset).is_empty());
        let list = Stated::Array(vec![n("7"), n("4")]);
        assert!(differences(&list, &json!([7, 4]), None, Keys::Exact).is_empty());
        assert_eq!(differences(&list, &json!([7, 4, 3]), None, Keys::Exact).len(), 1);
        assert_eq!(differences(&list, &json!([7, 5]), None, Keys::Exact), ["/1: stated 4, recomputed 5"]);
    }
}

//! The parsed value: what the parser builds, the writers serialise and every reader of a
//! record takes apart.

use std::collections::BTreeMap;

use super::float::python_float_repr;

/// A parsed JSON value. Objects are sorted by key (code-point order, which is also UTF-8 byte
/// order), the order Python's `sort_keys=True` produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, kept as its validated source token.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object with unique keys.
    Object(BTreeMap<String, Value>),
}

/// A JSON number exactly as written in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Number(pub(super) String);

impl Number {
    /// The source token.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the token is an integer (no fraction, no exponent), as Python's `json` reads it.
    #[must_use]
    pub fn is_integer(&self) -> bool {
        !self.0.contains(['.', 'e', 'E'])
    }

    /// The value as `i64` when it is an integer token that fits.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_integer() { self.0.parse().ok() } else { None }
    }

    /// The value as `f64`.
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        self.0.parse().ok()
    }

    /// Builds a number from an integer.
    #[must_use]
    pub fn from_i64(v: i64) -> Self {
        Number(v.to_string())
    }

    /// Builds a number from a finite float, written as Python's `repr` would.
    #[must_use]
    pub fn from_f64(v: f64) -> Option<Self> {
        v.is_finite().then(|| Number(python_float_repr(v)))
    }
}

impl Value {
    /// The JSON type name, for messages.
    #[must_use]
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// The string content, if this is a string.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The map, if this is an object.
    #[must_use]
    pub fn as_object(&self) -> Option<&BTreeMap<String, Value>> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    #[must_use]
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The boolean, if this is `true` or `false`.
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The integer, if this is an integer number that fits `i64`.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    /// Member `key` of an object.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|m| m.get(key))
    }

    /// Follows a path of object keys.
    #[must_use]
    pub fn pointer(&self, path: &[&str]) -> Option<&Value> {
        path.iter().try_fold(self, |v, k| v.get(k))
    }

    /// Whether this is `null`.
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Number(Number::from_i64(v))
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

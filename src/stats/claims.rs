//! Claims files: stated figures keyed by JSON Pointer into the `stats` object (`docs/claims.md`).

use serde_json::Value;

use super::checks::CLAIM;
use super::compare::{Keys, Stated, allowance, differences, show};
use super::figures::{COUNT_MAPS, FIGURES, Figures};
use crate::report::{CheckResult, Outcome};

/// The largest claims file read (1 MiB). A claims file states a handful of figures; the TOML
/// parser's time per byte grows with the document beyond this size (exponent 1.2 to 1.3 between
/// 1 and 8 MiB in `benches/parsers.rs`), and its memory with it, so a larger file is refused
/// before it is parsed.
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// One stated figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// RFC 6901 pointer into `stats`, as written.
    pub pointer: String,
    /// Its decoded reference tokens.
    pub tokens: Vec<String>,
    /// The stated value.
    pub value: Stated,
    /// Explicit tolerance for numbers.
    pub tolerance: Option<f64>,
    /// Where the figure is stated (free text, e.g. `§4.2`).
    pub source: Option<String>,
}

/// A claims file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("claims file: {0}")]
pub struct ClaimsError(pub String);

/// Decodes an RFC 6901 pointer (`/rules/Gate 11`, `/a~1b` → `a/b`).
///
/// # Errors
/// A pointer that does not start with `/` or has a bad `~` escape.
pub fn parse_pointer(p: &str) -> Result<Vec<String>, String> {
    let Some(rest) = p.strip_prefix('/') else {
        return Err(format!("{} is not a JSON Pointer (it must start with `/`)", shown(p)));
    };
    rest.split('/')
        .map(|t| {
            let mut out = String::new();
            let mut chars = t.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => out.push('~'),
                        Some('1') => out.push('/'),
                        _ => return Err(format!("{}: `~` must be followed by 0 or 1", shown(p))),
                    }
                } else {
                    out.push(c);
                }
            }
            Ok(out)
        })
        .collect()
}

/// A pointer as an error message quotes it: at most 80 characters, so that a hostile key does
/// not make the message as long as the file.
fn shown(p: &str) -> String {
    match p.char_indices().nth(80) {
        Some((end, _)) => format!("{:?}…", p.get(..end).unwrap_or(p)),
        None => format!("{p:?}"),
    }
}

/// Parses a claims file.
///
/// ```toml
/// "/cycles" = 7
/// "/closure_lag/mean" = { value = "2.10", source = "§4.2" }
/// "/gap_minutes/q3" = { value = 70, tolerance = 1 }
/// ```
///
/// # Errors
/// A text over [`MAX_FILE_BYTES`], invalid TOML, a key that is not a pointer, a pointer naming
/// no figure, a bad tolerance.
pub fn parse(text: &str) -> Result<Vec<Claim>, ClaimsError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(ClaimsError(format!(
            "{} bytes; a claims file is at most {} bytes (1 MiB)",
            text.len(),
            MAX_FILE_BYTES
        )));
    }
    let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| ClaimsError(format!("invalid TOML: {e}")))?;
    let mut claims = Vec::new();
    for (key, v) in &doc {
        let tokens = parse_pointer(key).map_err(ClaimsError)?;
        let figure = tokens.first().map(String::as_str).unwrap_or_default();
        if !FIGURES.contains(&figure) {
            return Err(ClaimsError(format!(
                "{key:?} names no figure (`{figure}`); the figures are: {}",
                FIGURES.join(", ")
            )));
        }
        let bad = |m: String| ClaimsError(format!("{key:?}: {m}"));
        let (value, tolerance, source) = match v {
            toml::Value::Table(t) if t.contains_key("value") => {
                for k in t.keys() {
                    if !["value", "tolerance", "source"].contains(&k.as_str()) {
                        return Err(bad(format!("unknown field `{k}` (expected value, tolerance, source)")));
                    }
                }
                let tolerance = match t.get("tolerance") {
                    None => None,
                    Some(toml::Value::Integer(i)) if *i >= 0 => Some(*i as f64),
                    Some(toml::Value::Float(f)) if f.is_finite() && *f >= 0.0 => Some(*f),
                    Some(other) => return Err(bad(format!("tolerance {other} is not a non-negative number"))),
                };
                let source = match t.get("source") {
                    None => None,
                    Some(toml::Value::String(s)) => Some(s.clone()),
                    Some(other) => return Err(bad(format!("source {other} is not a string"))),
                };
                (Stated::from_toml(&t["value"]).map_err(bad)?, tolerance, source)
            }
            other => (Stated::from_toml(other).map_err(bad)?, None, None),
        };
        // A number written as a string keeps the precision it was written with ("2.10").
        let value = match value {
            Stated::String(text) => Stated::number(&text).unwrap_or(Stated::String(text)),
            other => other,
        };
        claims.push(Claim { pointer: key.clone(), tokens, value, tolerance, source });
    }
    Ok(claims)
}

/// What a pointer reaches in the figures.
enum Reached<'a> {
    Value(std::borrow::Cow<'a, Value>),
    NotMeasured(String),
    Absent(String),
}

fn reach<'a>(figs: &'a Figures, tokens: &[String]) -> Reached<'a> {
    let figure = tokens[0].as_str();
    let mut cur: &Value = figs.get(figure);
    for (depth, t) in tokens.iter().enumerate() {
        if depth > 0 {
            cur = match cur {
                Value::Object(m) => match m.get(t) {
                    Some(v) => v,
                    None if depth == 1 && COUNT_MAPS.contains(&figure) => {
                        return Reached::Value(std::borrow::Cow::Owned(Value::from(0)));
                    }
                    None => return Reached::Absent(format!("`{figure}` has no member `{t}`")),
                },
                Value::Array(a) => match t.parse::<usize>().ok().filter(|_| t == "0" || !t.starts_with('0')) {
                    Some(i) if i < a.len() => &a[i],
                    _ => return Reached::Absent(format!("`{t}` is not an index of a {}-item list", a.len())),
                },
                Value::Null => break,
                other => return Reached::Absent(format!("`{figure}` is {}, which has no member `{t}`", show(other))),
            };
        }
        if cur.is_null() {
            let reason = figs.not_measured.get(figure).cloned().unwrap_or_else(|| "the figure is null".into());
            return Reached::NotMeasured(reason);
        }
    }
    Reached::Value(std::borrow::Cow::Borrowed(cur))
}

/// One `CV-S001` result per claim.
#[must_use]
pub fn check(claims: &[Claim], figs: &Figures) -> Vec<CheckResult> {
    claims
        .iter()
        .map(|c| {
            // The allowance is worth showing only where it did something: an explicit tolerance,
            // a stated fraction, or a recomputed value that is not whole.
            let allowance_text = |got: &Value| match &c.value {
                Stated::Number { decimals, .. }
                    if c.tolerance.is_some() || *decimals > 0 || got.as_f64().is_some_and(|g| g.fract() != 0.0) =>
                {
                    format!(" (allowance ±{})", allowance(*decimals, c.tolerance))
                }
                _ => String::new(),
            };
            let r = match reach(figs, &c.tokens) {
                Reached::NotMeasured(reason) => CheckResult::new(
                    &CLAIM,
                    Outcome::CantTell,
                    &c.pointer,
                    format!("stated {}, but the input cannot support this figure: {reason}", c.value.show()),
                )
                .with("recomputed", Value::Null),
                Reached::Absent(why) => CheckResult::new(
                    &CLAIM,
                    Outcome::Failed,
                    &c.pointer,
                    format!("stated {}, but the recomputed figures have no such value ({why})", c.value.show()),
                )
                .with("recomputed", Value::Null),
                Reached::Value(got) => {
                    let allowance_text = allowance_text(&got);
                    let diffs = differences(&c.value, &got, c.tolerance, Keys::Exact);
                    if diffs.is_empty() {
                        CheckResult::new(
                            &CLAIM,
                            Outcome::Passed,
                            &c.pointer,
                            format!("stated {}, recomputed {}{allowance_text}", c.value.show(), show(&got)),
                        )
                    } else {
                        let detail = if diffs.len() == 1 && !diffs[0].starts_with('/') {
                            String::new()
                        } else {
                            format!(": {}", diffs.join("; "))
                        };
                        CheckResult::new(
                            &CLAIM,
                            Outcome::Failed,
                            &c.pointer,
                            format!("stated {}, recomputed {}{allowance_text}{detail}", c.value.show(), show(&got)),
                        )
                        .with("differences", diffs)
                    }
                    .with("recomputed", got.into_owned())
                }
            };
            let r = r.with("stated", c.value.to_json());
            let r = match c.tolerance {
                Some(t) => r.with("tolerance", super::num::value(t)),
                None => r,
            };
            match &c.source {
                Some(s) => r.with("source", s.clone()),
                None => r,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers() {
        assert_eq!(parse_pointer("/rules/Gate 11"), Ok(vec!["rules".to_owned(), "Gate 11".to_owned()]));
        assert_eq!(parse_pointer("/a~1b/c~0d"), Ok(vec!["a/b".to_owned(), "c~d".to_owned()]));
        assert!(parse_pointer("rules").is_err());
        assert!(parse_pointer("/a~2").is_err());
    }

    #[test]
    fn an_error_quotes_at_most_80_characters_of_a_pointer() {
        let long = "é".repeat(10_000);
        let e = parse_pointer(&long).expect_err("no leading slash");
        assert!(e.starts_with(&format!("{:?}…", "é".repeat(80))), "{e}");
        assert!(e.chars().count() < 200, "{e}");
        let e = parse_pointer(&format!("/{long}~2")).expect_err("bad escape");
        assert!(e.chars().count() < 200, "{e}");
    }

    #[test]
    fn claims_files() {
        let c = parse("\"/cycles\" = 7\n\"/closure_lag/mean\" = { value = \"2.10\", source = \"§4.2\" }\n")
            .expect("parses");
        assert_eq!(c.len(), 2);
        // Claims come back in pointer order (TOML tables are sorted maps).
        assert_eq!(c[0].pointer, "/closure_lag/mean");
        assert_eq!(c[0].source.as_deref(), Some("§4.2"));
        assert!(matches!(c[0].value, Stated::Number { decimals: 2, .. }), "{:?}", c[0].value);
        assert!(parse("\"/cycels\" = 7").unwrap_err().0.contains("names no figure"));
        assert!(parse("cycles = 7").is_err());
        assert!(parse("\"/cycles\" = { value = 7, tolerance = -1 }").is_err());
        assert!(parse("\"/cycles\" = { value = 7, tol = 1 }").is_err());
        // A table without `value` is a map-valued claim.
        let m = parse("\"/decisions\" = { stop = 5, accept = 1 }").expect("map claim");
        assert!(matches!(m[0].value, Stated::Object(_)));
    }
}

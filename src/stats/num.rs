//! The summary statistics the published figures use, computed as the published scripts
//! compute them (Python's `statistics`, index quartiles; `specs/stats.md`).

use serde_json::Value;

/// Python's `statistics.median`: the middle element of the sorted values, or the mean of the
/// two middle elements when there is an even number. `None` for no values.
#[must_use]
pub fn median(values: &[f64]) -> Option<f64> {
    let s = sorted(values);
    let n = s.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(s[n / 2]),
        _ => Some((s[n / 2 - 1] + s[n / 2]) / 2.0),
    }
}

/// Arithmetic mean. `None` for no values.
#[must_use]
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    // Summing in sorted order makes the result independent of input order.
    Some(sorted(values).iter().sum::<f64>() / values.len() as f64)
}

/// Index quartiles, as the published scripts take them: the sorted element at index `floor(n/4)`
/// (lower) and `floor(3n/4)` (upper). No interpolation. `None` for no values.
#[must_use]
pub fn quartiles(values: &[f64]) -> Option<(f64, f64)> {
    let s = sorted(values);
    let n = s.len();
    if n == 0 {
        return None;
    }
    Some((s[n / 4], s[(3 * n) / 4]))
}

/// Smallest and largest value.
#[must_use]
pub fn min_max(values: &[f64]) -> Option<(f64, f64)> {
    let s = sorted(values);
    Some((*s.first()?, *s.last()?))
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// A figure as JSON: integral values as integers (so counts read `1`, not `1.0`), other values
/// as the shortest float that round-trips.
#[must_use]
pub fn value(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        let i = v as i64;
        Value::from(i)
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_of_the_note() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0]), Some(2.5));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        // n = 6: indices 1 and 4.
        assert_eq!(quartiles(&[60.0, 10.0, 20.0, 50.0, 30.0, 40.0]), Some((20.0, 50.0)));
        // n = 4: indices 1 and 3 (not interpolated).
        assert_eq!(quartiles(&[1.0, 2.0, 3.0, 4.0]), Some((2.0, 4.0)));
        assert_eq!(quartiles(&[7.0]), Some((7.0, 7.0)));
        assert_eq!(mean(&[1.0, 1.0, 1.0, 1.0, 3.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0]), Some(1.25));
        assert_eq!(value(2.0), Value::from(2));
        assert_eq!(value(2.5).to_string(), "2.5");
    }
}

//! ISO-8601 timestamps as run metadata writes them (start and end of an audit), for the
//! duration figures.

use std::fmt;

/// A point in time, microseconds since the Unix epoch (UTC), the resolution Python's
/// `datetime` keeps, so differences reproduce the analysis scripts' arithmetic exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// Microseconds since the epoch.
    #[must_use]
    pub fn micros(self) -> i64 {
        self.0
    }

    /// `later − self` in minutes (negative when `later` is earlier).
    #[must_use]
    pub fn minutes_until(self, later: Timestamp) -> f64 {
        // Integer microseconds first: the subtraction is exact, only the division rounds.
        (later.0 - self.0) as f64 / 60_000_000.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}µs", self.0)
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.ffffff](Z|±HH:MM)` (a space may replace the `T`).
///
/// A timestamp without a zone designator is refused: the deployed format writes UTC with `Z`,
/// and a naive time cannot be placed on the same axis as the others.
#[must_use]
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' {
        return None;
    }
    if b[16] != b':' {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    let mut i = 19;
    let mut micros = 0i64;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        let mut end = start;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if end == start {
            return None;
        }
        // Python keeps six digits; more are truncated, fewer padded.
        let frac = &s[start..end];
        let six: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
        micros = six.parse().ok()?;
        i = end;
    }
    let offset_seconds = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (h, m) = (digits(i + 1..i + 3)?, digits(i + 4..i + 6)?);
            if h > 23 || m > 59 {
                return None;
            }
            let v = h * 3600 + m * 60;
            if *sign == b'+' { v } else { -v }
        }
        _ => return None,
    };
    if !(1..=12).contains(&month) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    if day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_seconds;
    Some(Timestamp(secs * 1_000_000 + micros))
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_deployed_form_and_offsets() {
        let t = parse_timestamp("2026-07-30T08:43:34Z").expect("parses");
        // date -u -d 2026-07-30T08:43:34Z +%s
        assert_eq!(t.micros(), 1_785_401_014_000_000);
        assert_eq!(parse_timestamp("2026-07-30T10:43:34+02:00"), Some(t));
        assert_eq!(parse_timestamp("2026-07-30 08:43:34.5Z").map(Timestamp::micros), Some(1_785_401_014_500_000));
        let a = parse_timestamp("2026-07-30T08:43:34Z").expect("a");
        let b = parse_timestamp("2026-07-30T08:49:14Z").expect("b");
        assert!((a.minutes_until(b) - 340.0 / 60.0).abs() < 1e-12);
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z").map(Timestamp::micros), Some(0));
        assert!(parse_timestamp("2024-02-29T00:00:00Z").is_some());
    }

    #[test]
    fn refuses_naive_and_malformed() {
        for s in [
            "2026-07-30T08:43:34",
            "2026-07-30",
            "2026-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-07-30T24:00:00Z",
            "2026-07-30T08:43:34.Z",
            "2026-07-30T08:43:34+0200",
            "not a time",
            "",
        ] {
            assert_eq!(parse_timestamp(s), None, "{s}");
        }
    }
}

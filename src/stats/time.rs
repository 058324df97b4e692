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
        // At most four digits: no overflow. A fold, not `str::parse`: a replay reads a
        // timestamp per bus line.
        Some(part.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
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
        let digits = b[start..end].iter().map(|d| i64::from(d - b'0')).chain(std::iter::repeat(0));
        micros = digits.take(6).fold(0, |n, d| n * 10 + d);
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

    /// The arithmetic the digits replaced: `str::parse` of each part, the fraction as a
    /// `String` padded to six digits.
    fn by_str_parse(s: &str) -> Option<(i64, i64, i64, i64, i64, i64, i64)> {
        let part = |r: std::ops::Range<usize>| -> Option<i64> {
            let p = s.get(r)?;
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        // A fraction only after a `.`: the zone's digits (`-01:00`) are not one.
        let frac = s
            .get(20..)
            .filter(|_| s.as_bytes().get(19) == Some(&b'.'))
            .map(|f| f.bytes().take_while(u8::is_ascii_digit).map(char::from).collect::<String>());
        let six: String = frac.unwrap_or_default().chars().chain(std::iter::repeat('0')).take(6).collect();
        Some((part(0..4)?, part(5..7)?, part(8..10)?, part(11..13)?, part(14..16)?, part(17..19)?, six.parse().ok()?))
    }

    proptest::proptest! {
        /// Parts read by folding digits are the parts `str::parse` reads.
        #[test]
        fn digits_are_read_as_str_parse_reads_them(
            s in "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})",
        ) {
            let Some((y, mo, d, h, mi, sec, micros)) = by_str_parse(&s) else { return Ok(()) };
            let zone = s.get(19..).map(|z| z.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit())).unwrap_or("");
            let offset = match zone.as_bytes() {
                [b'Z'] => Some(0),
                [sign, h1, h2, b':', m1, m2] => {
                    let (oh, om) = (i64::from((h1 - b'0') * 10 + (h2 - b'0')), i64::from((m1 - b'0') * 10 + (m2 - b'0')));
                    (oh <= 23 && om <= 59).then_some(if *sign == b'+' { oh * 3600 + om * 60 } else { -(oh * 3600 + om * 60) })
                }
                _ => None,
            };
            let valid = (1..=12).contains(&mo) && h <= 23 && mi <= 59 && sec <= 59 && d >= 1 && d <= days_in_month(y, mo);
            let expected = offset.filter(|_| valid).map(|off| {
                (days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - off) * 1_000_000 + micros
            });
            proptest::prop_assert_eq!(parse_timestamp(&s).map(Timestamp::micros), expected, "{}", s);
        }
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

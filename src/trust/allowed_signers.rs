//! Allowed-signers files (`ssh-keygen(1)`, ALLOWED SIGNERS; git's
//! `gpg.ssh.allowedSignersFile`): which key may sign for which principal, in which namespace
//! and when.
//!
//! A line is `principals [options] keytype base64-key [comment]`. Principals are a
//! comma-separated pattern list (`*` and `?` wildcards, `!` negation, as OpenSSH's
//! `match_pattern_list`), possibly quoted. Options: `namespaces="…"` (a pattern list),
//! `valid-after="…"`, `valid-before="…"` (`YYYYMMDD[HHMM[SS]]`), `cert-authority`. Two
//! choices differ from `ssh-keygen` and are stated in `specs/trust.md`: a malformed line
//! anywhere refuses the whole file (ssh-keygen only notices it on lines whose principals
//! match), and a time without the `Z` suffix, which ssh-keygen reads in the host's time zone,
//! is kept as unsupported instead of depending on the verifying machine.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::ed25519::PublicKey;

/// Largest allowed-signers file read.
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// One usable line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line number.
    pub line: usize,
    /// The principals pattern list, unquoted.
    pub principals: String,
    /// The `namespaces` pattern list, if restricted.
    pub namespaces: Option<String>,
    /// `valid-after`, seconds since the epoch (UTC).
    pub valid_after: Option<i64>,
    /// `valid-before`, seconds since the epoch (UTC).
    pub valid_before: Option<i64>,
    /// The key type written on the line.
    pub key_type: String,
    /// The Ed25519 key, when the line holds one crossverify can use.
    pub key: Option<PublicKey>,
    /// Why the line cannot be applied (`cert-authority`, another key type, a local time).
    pub unsupported: Option<String>,
}

/// A parsed allowed-signers file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedSigners {
    /// Its lines with a key, in file order.
    pub entries: Vec<Entry>,
}

/// A line that is not an allowed-signers entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    /// 1-based line number (0 for the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// What the file says about a key signing for a principal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Allowed by the entry on this line.
    Allowed {
        /// Its line.
        line: usize,
    },
    /// The key is listed, but not for this principal (it is allowed for others: what
    /// `git verify-commit` accepts, as it looks the principal up by key).
    OtherPrincipal {
        /// Lines listing the key.
        lines: Vec<usize>,
    },
    /// The key is listed for this principal, but the namespace or time window excludes it.
    Excluded {
        /// Its line.
        line: usize,
        /// Why.
        reason: String,
    },
    /// The key is not listed at all.
    Unknown,
}

/// Parses an allowed-signers file.
///
/// # Errors
/// [`ParseError`] for the first line that is not an entry (or a file too large).
pub fn parse(text: &str) -> Result<AllowedSigners, ParseError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(ParseError { line: 0, reason: format!("larger than {MAX_FILE_BYTES} bytes") });
    }
    let mut entries = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        entries.push(parse_line(line).map_err(|reason| ParseError { line: i + 1, reason })?.numbered(i + 1));
    }
    Ok(AllowedSigners { entries })
}

impl Entry {
    fn numbered(mut self, line: usize) -> Self {
        self.line = line;
        self
    }
}

fn parse_line(line: &str) -> Result<Entry, String> {
    let (principals, rest) = token(line).ok_or("no principals")?;
    let (second, after) = token(rest).ok_or("no key")?;
    let (options, key_type, rest) = if is_key_type(&second) {
        (None, second, after)
    } else {
        let (key_type, rest) = token(after).ok_or("no key after the options")?;
        (Some(second), key_type, rest)
    };
    let key_b64 = rest.split_whitespace().next().ok_or("no base64 key")?;
    let blob = STANDARD.decode(key_b64).map_err(|_| "the key is not base64")?;
    let mut e = Entry {
        line: 0,
        principals,
        namespaces: None,
        valid_after: None,
        valid_before: None,
        key_type: key_type.clone(),
        key: None,
        unsupported: None,
    };
    if let Some(opts) = options {
        apply_options(&mut e, &opts)?;
    }
    if !is_key_type(&key_type) {
        return Err(format!("{key_type:?} is not an SSH key type"));
    }
    if key_type == "ssh-ed25519" {
        e.key = Some(PublicKey::from_ssh_blob(&blob).map_err(|err| err.to_string())?);
    } else if e.unsupported.is_none() {
        e.unsupported = Some(format!("{key_type} keys are not verified by crossverify (only ssh-ed25519)"));
    }
    Ok(e)
}

fn apply_options(e: &mut Entry, opts: &str) -> Result<(), String> {
    for opt in split_options(opts)? {
        let (name, value) = match opt.split_once('=') {
            Some((n, v)) => (n, Some(unquote(v).ok_or_else(|| format!("option {n}: value is not quoted"))?)),
            None => (opt.as_str(), None),
        };
        match (name.to_ascii_lowercase().as_str(), value) {
            ("cert-authority", None) => {
                e.unsupported = Some("cert-authority (OpenSSH certificates) is not supported by crossverify".into());
            }
            ("namespaces", Some(v)) => e.namespaces = Some(v),
            ("valid-after", Some(v)) => e.valid_after = time_option(e, &v)?,
            ("valid-before", Some(v)) => e.valid_before = time_option(e, &v)?,
            (other, _) => return Err(format!("unknown or malformed option {other:?}")),
        }
    }
    Ok(())
}

fn time_option(e: &mut Entry, v: &str) -> Result<Option<i64>, String> {
    match parse_time(v)? {
        Some(t) => Ok(Some(t)),
        None => {
            e.unsupported = Some(format!("time {v:?} has no Z suffix: ssh-keygen reads it in the host's time zone"));
            Ok(None)
        }
    }
}

/// `YYYYMMDD[HHMM[SS]][Z]` → seconds since the epoch; `None` without the UTC `Z`.
fn parse_time(v: &str) -> Result<Option<i64>, String> {
    let (digits, utc) = v.strip_suffix(['Z', 'z']).map_or((v, false), |d| (d, true));
    let bad = || format!("time {v:?} is not YYYYMMDD[HHMM[SS]][Z]");
    if !matches!(digits.len(), 8 | 12 | 14) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n = |r: std::ops::Range<usize>| digits.get(r).and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
    let (y, mo, d) = (n(0..4), n(4..6), n(6..8));
    let (h, mi, s) = (n(8..10), n(10..12), n(12..14));
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return Err(bad());
    }
    if !utc {
        return Ok(None);
    }
    Ok(Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_key_type(s: &str) -> bool {
    s.starts_with("ssh-") || s.starts_with("ecdsa-") || s.starts_with("sk-")
}

/// The next whitespace-delimited token (a `"…"` quoted one may hold spaces; quotes kept
/// inside option tokens, removed around a whole token) and the rest.
fn token(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    let mut quoted = false;
    let mut end = s.len();
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let tok = s.get(..end)?;
    let rest = s.get(end..)?;
    let tok = if tok.len() >= 2 && tok.starts_with('"') && tok.ends_with('"') && !tok[1..tok.len() - 1].contains('"') {
        tok[1..tok.len() - 1].to_owned()
    } else {
        tok.to_owned()
    };
    Some((tok, rest))
}

fn split_options(s: &str) -> Result<Vec<String>, String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                out.last_mut().expect("never empty because it starts with one").push(c);
            }
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().expect("never empty because it starts with one").push(c),
        }
    }
    if quoted || out.iter().any(String::is_empty) {
        return Err(format!("malformed options {s:?}"));
    }
    Ok(out)
}

fn unquote(v: &str) -> Option<String> {
    v.strip_prefix('"')?.strip_suffix('"').filter(|i| !i.contains('"')).map(str::to_owned)
}

/// OpenSSH's `match_pattern`: `*` any run, `?` any one character, case-sensitive.
#[must_use]
pub fn match_pattern(s: &str, pattern: &str) -> bool {
    let (s, p): (Vec<char>, Vec<char>) = (s.chars().collect(), pattern.chars().collect());
    let (mut si, mut pi, mut star, mut mark) = (0, 0, None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
            si += 1;
            pi += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// OpenSSH's `match_pattern_list`: true when a pattern matches and no `!`-negated one does.
#[must_use]
pub fn match_pattern_list(s: &str, list: &str) -> bool {
    let mut hit = false;
    for pat in list.split(',') {
        if let Some(neg) = pat.strip_prefix('!') {
            if match_pattern(s, neg) {
                return false;
            }
        } else if match_pattern(s, pat) {
            hit = true;
        }
    }
    hit
}

impl AllowedSigners {
    /// Whether `key` may sign for `principal` in `namespace` at `time` (seconds since the
    /// epoch; git passes the committer time).
    #[must_use]
    pub fn decide(&self, key: &PublicKey, principal: &str, namespace: &str, time: i64) -> Decision {
        let listing: Vec<&Entry> =
            self.entries.iter().filter(|e| e.unsupported.is_none() && e.key.as_ref() == Some(key)).collect();
        let mut excluded = None;
        for e in listing.iter().filter(|e| match_pattern_list(principal, &e.principals)) {
            let reason = if e.namespaces.as_deref().is_some_and(|n| !match_pattern_list(namespace, n)) {
                Some(format!(
                    "namespace {namespace:?} is not in namespaces=\"{}\"",
                    e.namespaces.as_deref().unwrap_or("")
                ))
            } else if e.valid_after.is_some_and(|t| time < t) {
                Some("signed before the key's valid-after time".to_owned())
            } else if e.valid_before.is_some_and(|t| time > t) {
                Some("signed after the key's valid-before time".to_owned())
            } else {
                None
            };
            match reason {
                None => return Decision::Allowed { line: e.line },
                Some(r) => excluded = excluded.or(Some(Decision::Excluded { line: e.line, reason: r })),
            }
        }
        excluded.unwrap_or_else(|| {
            if listing.is_empty() {
                Decision::Unknown
            } else {
                Decision::OtherPrincipal { lines: listing.iter().map(|e| e.line).collect() }
            }
        })
    }

    /// The lines crossverify cannot apply, with why.
    pub fn unsupported(&self) -> impl Iterator<Item = (usize, &str)> {
        self.entries.iter().filter_map(|e| e.unsupported.as_deref().map(|u| (e.line, u)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::ed25519::SigningKey;

    fn key(n: u8) -> PublicKey {
        SigningKey::from_seed([n; 32]).public()
    }

    fn line(k: &PublicKey) -> String {
        k.to_openssh("c")
    }

    #[test]
    fn a_key_is_allowed_for_its_principals_namespace_and_window() {
        let (a, b) = (key(1), key(2));
        let text = format!(
            "# comment\n\nlab@example.invalid namespaces=\"git\",valid-after=\"20260101Z\" {}\n\"*@ops.invalid,!eve@ops.invalid\" {}\n",
            line(&a),
            line(&b)
        );
        let s = parse(&text).expect("parses");
        assert_eq!(s.entries.len(), 2);
        let t2026 = 1_786_525_200;
        assert_eq!(s.decide(&a, "lab@example.invalid", "git", t2026), Decision::Allowed { line: 3 });
        assert!(matches!(s.decide(&a, "lab@example.invalid", "file", t2026), Decision::Excluded { line: 3, .. }));
        assert!(matches!(s.decide(&a, "lab@example.invalid", "git", 0), Decision::Excluded { .. }));
        assert_eq!(s.decide(&a, "other@example.invalid", "git", t2026), Decision::OtherPrincipal { lines: vec![3] });
        assert_eq!(s.decide(&b, "bob@ops.invalid", "git", t2026), Decision::Allowed { line: 4 });
        assert_eq!(s.decide(&b, "eve@ops.invalid", "git", t2026), Decision::OtherPrincipal { lines: vec![4] });
        assert_eq!(s.decide(&key(3), "lab@example.invalid", "git", t2026), Decision::Unknown);
    }

    #[test]
    fn unsupported_lines_are_kept_and_never_allow() {
        let a = key(1);
        let text =
            format!("lab@example.invalid cert-authority {}\nx@y valid-before=\"20300101\" {}\n", line(&a), line(&a));
        let s = parse(&text).expect("parses");
        assert_eq!(s.unsupported().count(), 2);
        assert_eq!(s.decide(&a, "lab@example.invalid", "git", 0), Decision::Unknown);
    }

    #[test]
    fn malformed_lines_are_refused_with_their_number() {
        assert_eq!(parse("\nlab@x\n").map_err(|e| e.line), Err(2));
        assert!(parse("lab@x ssh-ed25519 !!!\n").is_err());
        assert!(parse("lab@x bogus=\"1\" ssh-ed25519 AAAA\n").is_err());
        assert!(parse("lab@x valid-after=\"2026\" ssh-ed25519 AAAA\n").is_err());
    }

    #[test]
    fn patterns_follow_openssh() {
        assert!(match_pattern("lab@example.invalid", "*@example.invalid"));
        assert!(match_pattern("ab", "a?"));
        assert!(!match_pattern("Lab", "lab"));
        assert!(!match_pattern_list("eve@x", "*@x,!eve@x"));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(parse_time("20260812090000Z"), Ok(Some(1_786_525_200)));
    }
}

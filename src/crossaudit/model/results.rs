//! Result helpers every check uses.

use crate::checks::Check;
use crate::crossaudit::load::Cycle;
use crate::report::{CheckResult, Outcome};

pub(crate) fn res(c: &Check, o: Outcome, subject: &str, msg: impl Into<String>) -> CheckResult {
    CheckResult::new(c, o, subject, msg)
}

/// The shape of most checks: passed with `pass` when `ok`, else failed with `fail`.
pub(crate) fn outcome(
    c: &Check,
    ok: bool,
    subject: &str,
    pass: impl Into<String>,
    fail: impl Into<String>,
) -> CheckResult {
    if ok { res(c, Outcome::Passed, subject, pass) } else { res(c, Outcome::Failed, subject, fail) }
}

pub(crate) fn at(cycle: &Cycle, r: CheckResult, file: &str) -> CheckResult {
    r.at(Some("audit"), Some(&cycle.file(file)), cycle.added_in.map(|a| a.0.to_string()).as_deref())
}

pub(crate) fn short(s: &str) -> String {
    if s.len() > 12 && s.bytes().all(|b| b.is_ascii_hexdigit()) { format!("{}…", &s[..12]) } else { s.to_owned() }
}

//! `crossverify batch LIST`: many ledgers, one JSON line each, resumable (issue 14,
//! `docs/scale.md`). A journal feeds its submission queue to any scheduler as lists; a run
//! that is killed is started again with the same output and skips what is already there.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::crossaudit::load::{DialectChoice, Error, Options};
use crate::report::{Level, Outcome, Report};

/// One ledger of a list.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The name its output line carries (default: the audit path as written).
    pub id: String,
    /// What to verify.
    pub opts: Options,
}

/// Reads a list: one JSON object per line, `{"audit": PATH}` with optional `id`, `science`,
/// `auditRev` and `dialect` (`auto`, `v1`, `schema2`, `deployed`); blank lines and lines
/// starting with `#` are skipped. Relative paths are relative to `base` (the list's folder).
///
/// # Errors
/// The first line that is not such an object, or an id used twice (exit 2).
pub fn entries(text: &str, base: &Path) -> Result<Vec<Entry>, Error> {
    let mut out = Vec::new();
    let mut ids = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: String| Error::Usage(format!("batch list line {}: {m}", n + 1));
        let v = crate::json::parse(line.as_bytes()).map_err(|e| at(e.to_string()))?;
        let v = crate::json::to_serde(&v);
        let Value::Object(m) = &v else { return Err(at("not a JSON object".into())) };
        if let Some(k) = m.keys().find(|k| !matches!(k.as_str(), "id" | "audit" | "science" | "auditRev" | "dialect")) {
            return Err(at(format!("unknown key `{k}` (expected id, audit, science, auditRev, dialect)")));
        }
        let text = |k: &str| match m.get(k) {
            None => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(_) => Err(at(format!("`{k}` must be a non-empty string"))),
        };
        let audit = text("audit")?.ok_or_else(|| at("no `audit` path".into()))?;
        let mut opts = Options::new(&base.join(&audit));
        opts.science = text("science")?.map(|s| base.join(s));
        opts.audit_rev = text("auditRev")?;
        opts.dialect = match text("dialect")?.as_deref() {
            None | Some("auto") => DialectChoice::Auto,
            Some("v1") => DialectChoice::V1,
            Some("schema2") => DialectChoice::Schema2,
            Some("deployed") => DialectChoice::Deployed,
            Some(d) => return Err(at(format!("unknown dialect `{d}`"))),
        };
        let id = text("id")?.unwrap_or(audit);
        if !ids.insert(id.clone()) {
            return Err(at(format!("id `{id}` is listed twice")));
        }
        out.push(Entry { id, opts });
    }
    Ok(out)
}

/// The output line of one ledger (no newline): its verdict, exit code, counts and failing
/// codes, or why it could not be verified.
#[must_use]
pub fn line(id: &str, result: Result<&Report, &Error>) -> String {
    let v = match result {
        Ok(r) => {
            let failing: BTreeSet<&str> = r
                .results
                .iter()
                .filter(|x| x.outcome == Outcome::Failed && x.level == Level::Error)
                .map(|x| x.code.as_str())
                .collect();
            json!({
                "id": id,
                "exitCode": r.exit_code(),
                "outcome": r.outcome.as_str(),
                "auditHead": r.inputs.get("auditHead"),
                "summary": serde_json::to_value(&r.summary).expect("a summary serialises"),
                "failing": failing,
            })
        }
        Err(e) => json!({"id": id, "exitCode": 2, "error": e.to_string()}),
    };
    serde_json::to_string(&v).expect("a line serialises")
}

/// A line already in the output: the ledger's id, its exit code and the audit head its
/// verdict was about (absent on a could-not-run line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    /// The entry's id.
    pub id: String,
    /// Its exit code.
    pub code: u8,
    /// `auditHead` of the verdict, when there was one.
    pub audit_head: Option<String>,
}

/// What an existing output holds, in file order: each line's id, exit code and audit head, and
/// the length of its whole lines (a line torn by a killed run is cut off and redone).
#[must_use]
pub fn done(existing: &[u8]) -> (Vec<Done>, usize) {
    let whole = existing.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut lines = Vec::new();
    for l in existing[..whole].split(|b| *b == b'\n') {
        let Ok(v) = crate::json::parse(l) else { continue };
        let v = crate::json::to_serde(&v);
        let id = v.get("id").and_then(Value::as_str);
        let code = v.get("exitCode").and_then(Value::as_u64).and_then(|c| u8::try_from(c).ok());
        let audit_head = v.get("auditHead").and_then(Value::as_str).map(str::to_owned);
        if let (Some(id), Some(code)) = (id, code) {
            lines.push(Done { id: id.to_owned(), code, audit_head });
        }
    }
    (lines, whole)
}

/// Whether a line of the output may stand for `entry` on `--resume` without verifying it
/// again: a definite verdict (exit 0 or 1) about the very audit head the ledger resolves to
/// now. A ledger that moved (a cycle appended, a branch reset) is verified again, and so is
/// one that could not be run or was inconclusive, since the evidence it lacked may have come.
#[must_use]
pub fn still_stands(line: &Done, entry: &Entry) -> bool {
    matches!(line.code, 0 | 1) && line.audit_head.is_some() && line.audit_head == current_head(&entry.opts)
}

/// The commit the ledger's audit revision resolves to now, as `ledger` would resolve it.
fn current_head(opts: &Options) -> Option<String> {
    let repo = crate::git::Repo::open(&opts.audit).ok()?;
    repo.resolve(opts.audit_rev.as_deref().unwrap_or("HEAD")).ok().map(|id| id.to_string())
}

/// The batch's exit code from each ledger's: 1 when any failed, else 3 when any was
/// inconclusive or could not be verified, else 0.
#[must_use]
pub fn exit_code(codes: impl IntoIterator<Item = u8>) -> u8 {
    codes.into_iter().fold(0, |acc, c| match (acc, c) {
        (1, _) | (_, 1) => 1,
        (_, 0) => acc,
        _ => 3,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_read_strictly() {
        let base = Path::new("/q");
        let e = entries(
            "# queue\n{\"audit\":\"a\",\"science\":\"s\"}\n\n{\"id\":\"x\",\"audit\":\"/b\",\"dialect\":\"v1\"}\n",
            base,
        )
        .expect("reads");
        assert_eq!(e.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["a", "x"]);
        assert_eq!(e[0].opts.audit, Path::new("/q/a"));
        assert_eq!(e[0].opts.science.as_deref(), Some(Path::new("/q/s")));
        assert_eq!(e[1].opts.audit, Path::new("/b"));
        for bad in [
            "{\"audit\":\"a\"}\n{\"audit\":\"a\"}",
            "{\"science\":\"s\"}",
            "{\"audit\":\"a\",\"x\":1}",
            "[1]",
            "{\"audit\":1}",
        ] {
            assert!(entries(bad, base).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_torn_last_line_is_redone_and_codes_combine() {
        let (lines, whole) = done(
            b"{\"id\":\"a\",\"exitCode\":0}\n{\"id\":\"b\",\"exitCode\":1,\"auditHead\":\"ab\"}\n{\"id\":\"c\",\"exi",
        );
        let got: Vec<(&str, u8, Option<&str>)> =
            lines.iter().map(|l| (l.id.as_str(), l.code, l.audit_head.as_deref())).collect();
        assert_eq!(got, [("a", 0, None), ("b", 1, Some("ab"))]);
        assert_eq!(whole, 65);
        assert_eq!(exit_code([0, 0]), 0);
        assert_eq!(exit_code([0, 3, 2]), 3);
        assert_eq!(exit_code([2, 1, 0]), 1);
        assert_eq!(exit_code([]), 0);
    }
}

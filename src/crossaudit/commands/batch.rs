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

/// What an existing output holds: the ids already done with their exit codes, and the length
/// of its whole lines (a line torn by a killed run is cut off and redone).
#[must_use]
pub fn done(existing: &[u8]) -> (Vec<(String, u8)>, usize) {
    let whole = existing.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut ids = Vec::new();
    for l in existing[..whole].split(|b| *b == b'\n') {
        let Ok(v) = crate::json::parse(l) else { continue };
        let v = crate::json::to_serde(&v);
        let id = v.get("id").and_then(Value::as_str);
        let code = v.get("exitCode").and_then(Value::as_u64).and_then(|c| u8::try_from(c).ok());
        if let (Some(id), Some(code)) = (id, code) {
            ids.push((id.to_owned(), code));
        }
    }
    (ids, whole)
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
        let (ids, whole) = done(b"{\"id\":\"a\",\"exitCode\":0}\n{\"id\":\"b\",\"exitCode\":1}\n{\"id\":\"c\",\"exi");
        assert_eq!(ids, [("a".to_owned(), 0), ("b".to_owned(), 1)]);
        assert_eq!(whole, 48);
        assert_eq!(exit_code([0, 0]), 0);
        assert_eq!(exit_code([0, 3, 2]), 3);
        assert_eq!(exit_code([2, 1, 0]), 1);
        assert_eq!(exit_code([]), 0);
    }
}

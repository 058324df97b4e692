//! The Constitution (`AUDIT_RULES.md`): rule IDs and their severities.
//!
//! Two extraction rules exist (formats note §3.1–§3.2): the v1 reference reads headings that
//! start with exactly `### CA-`, the product tolerates any whitespace after `###`. Severities
//! are read from the v1 bullet (`- **Severity:** BLOCKER`) or the product's first line
//! (`**BLOCKER.**`), whichever the rule carries.

use std::collections::BTreeMap;

/// Which heading rule to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `^### CA-…` (exactly one space).
    V1,
    /// `^###\s+CA-…`.
    Product,
}

/// Severity a rule declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Severity {
    /// Gates the increment.
    Blocker,
    /// Recorded, never gates.
    Advisory,
    /// Anything else, e.g. `— (procedural)`.
    Other(String),
    /// No severity line found.
    Missing,
}

/// A parsed Constitution.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Constitution {
    /// Rule ID → declared severity, in ID order.
    pub rules: BTreeMap<String, Severity>,
}

impl Constitution {
    /// Extracts rules from the Markdown text.
    #[must_use]
    pub fn parse(text: &str, syntax: Syntax) -> Constitution {
        let mut rules = BTreeMap::new();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(id) = heading_id(line, syntax) else { continue };
            let mut severity = Severity::Missing;
            for next in lines.iter().skip(i + 1) {
                if next.starts_with("### ") || next.starts_with("###\t") || next.starts_with("## ") {
                    break;
                }
                if let Some(s) = severity_line(next) {
                    severity = s;
                    break;
                }
            }
            rules.entry(id).or_insert(severity);
        }
        Constitution { rules }
    }

    /// Whether `id` is a rule of this Constitution.
    #[must_use]
    pub fn has(&self, id: &str) -> bool {
        self.rules.contains_key(id)
    }

    /// The declared severity of `id`.
    #[must_use]
    pub fn severity(&self, id: &str) -> Option<&Severity> {
        self.rules.get(id)
    }
}

fn heading_id(line: &str, syntax: Syntax) -> Option<String> {
    let rest = line.strip_prefix("###")?;
    let rest = match syntax {
        Syntax::V1 => rest.strip_prefix(' ')?,
        Syntax::Product => {
            let trimmed = rest.trim_start_matches([' ', '\t', '\u{b}', '\u{c}']);
            if trimmed.len() == rest.len() {
                return None;
            }
            trimmed
        }
    };
    rule_id_prefix(rest)
}

/// The `CA-<LETTERS>-<DIGITS>` rule ID at the start of `s`, if any (the digits run as far as
/// they go; what follows is free text).
#[must_use]
pub fn rule_id_prefix(s: &str) -> Option<String> {
    let rest = s.strip_prefix("CA-")?;
    let letters = rest.bytes().take_while(u8::is_ascii_uppercase).count();
    if letters == 0 || rest.as_bytes().get(letters) != Some(&b'-') {
        return None;
    }
    let digits = rest[letters + 1..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    Some(s[..3 + letters + 1 + digits].to_owned())
}

/// Whether `s` is exactly a rule ID.
#[must_use]
pub fn is_rule_id(s: &str) -> bool {
    rule_id_prefix(s).is_some_and(|id| id.len() == s.len())
}

fn severity_line(line: &str) -> Option<Severity> {
    let t = line.trim_start();
    let value = if let Some(v) = t.strip_prefix("- **Severity:**") {
        v.trim()
    } else if t.starts_with("**BLOCKER.**") {
        return Some(Severity::Blocker);
    } else if t.starts_with("**ADVISORY.**") {
        return Some(Severity::Advisory);
    } else {
        return None;
    };
    Some(if value.starts_with("BLOCKER") {
        Severity::Blocker
    } else if value.starts_with("ADVISORY") {
        Severity::Advisory
    } else {
        Severity::Other(value.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../../../test-vectors/real/crossaudit/examples/minimal/audit-repo/AUDIT_RULES.md");

    #[test]
    fn demo_constitution() {
        let c = Constitution::parse(DEMO, Syntax::V1);
        let ids: Vec<_> = c.rules.keys().cloned().collect();
        assert_eq!(
            ids,
            [
                "CA-DATA-001",
                "CA-DATA-002",
                "CA-META-001",
                "CA-META-002",
                "CA-META-003",
                "CA-META-004",
                "CA-METH-002",
                "CA-REPRO-001"
            ]
        );
        assert_eq!(c.severity("CA-DATA-001"), Some(&Severity::Blocker));
        // "BLOCKER (for the Auditor's conduct)" still declares BLOCKER.
        assert_eq!(c.severity("CA-META-003"), Some(&Severity::Blocker));
        assert_eq!(c.severity("CA-META-004"), Some(&Severity::Other("— (procedural)".into())));
        assert_eq!(Constitution::parse(DEMO, Syntax::Product), c);
    }

    #[test]
    fn heading_rules_differ_between_dialects() {
        let text = "###  CA-DATA-001 two spaces\n#### CA-DATA-002 level four\n### CA-DOM2-001 digit\n###\tCA-X-9 tab\n### CA-DATA-0001x tail\n**ADVISORY.** Title\n";
        let v1 = Constitution::parse(text, Syntax::V1);
        assert_eq!(v1.rules.keys().collect::<Vec<_>>(), ["CA-DATA-0001"]);
        assert_eq!(v1.severity("CA-DATA-0001"), Some(&Severity::Advisory));
        let p = Constitution::parse(text, Syntax::Product);
        assert_eq!(p.rules.keys().collect::<Vec<_>>(), ["CA-DATA-0001", "CA-DATA-001", "CA-X-9"]);
    }

    #[test]
    fn rule_ids() {
        assert!(is_rule_id("CA-META-002"));
        assert!(is_rule_id("CA-DATA-1"));
        assert!(!is_rule_id("CA-DATA-001 "));
        assert!(!is_rule_id("DCL:schema"));
        assert!(!is_rule_id("CA-data-001"));
        assert!(!is_rule_id("CV-A701"));
    }
}

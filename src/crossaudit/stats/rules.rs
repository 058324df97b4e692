//! Rule citations extracted from evidence text, with the deployment scripts' patterns, and the
//! mining script's reading of fix commits in the science log (its step 5).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// `R-[A-Z]+-\d+`: the deployment's policy rule IDs.
static POLICY_RULE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"R-[A-Z]+-\d+").expect("the pattern is a valid literal regex"));
/// `Gate\s*\d+`: gate citations; `Gate 11` and `Gate11` are different keys, as in the scripts.
static GATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Gate\s*\d+").expect("the pattern is a valid literal regex"));
/// `CA-[A-Z]+-\d+`: Constitution rule IDs (the analysis script adds this pattern).
static CONSTITUTION_RULE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"CA-[A-Z]+-\d+").expect("the pattern is a valid literal regex"));

/// `F-<digits>` anywhere in a commit subject: the findings a fix commit names.
static FINDING_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"F-\d+").expect("the pattern is a valid literal regex"));

/// Whether a commit subject is a fix commit: it contains `audit CYCLE` (any case) or
/// `F-<digit>`.
#[must_use]
pub fn is_fix_subject(subject: &str) -> bool {
    subject.to_lowercase().contains("audit cycle") || FINDING_ID.is_match(subject)
}

/// The finding IDs (`F-<digits>`) a fix commit's subject names, in order.
#[must_use]
pub fn fixed_findings(subject: &str) -> Vec<String> {
    FINDING_ID.find_iter(subject).map(|m| m.as_str().to_owned()).collect()
}

/// Which patterns to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patterns {
    /// `R-…` and `Gate…`: what `mine_ledger.py` extracts into `rules_cited`.
    Mined,
    /// `R-…`, `Gate…` and `CA-…`: what `analyse_ledger.py` extracts.
    Analysis,
}

/// Sorted, unique rule citations in `text`. Each pattern is matched on its own over the whole
/// text (Python `re.findall` per pattern), with Unicode `\d` and `\s` as in Python 3 `str`
/// patterns.
#[must_use]
pub fn extract(text: &str, patterns: Patterns) -> Vec<String> {
    let mut set: BTreeSet<String> = BTreeSet::new();
    let mut with = |re: &Regex| set.extend(re.find_iter(text).map(|m| m.as_str().to_owned()));
    with(&POLICY_RULE);
    with(&GATE);
    if patterns == Patterns::Analysis {
        with(&CONSTITUTION_RULE);
    }
    set.into_iter().collect()
}

/// The text the patterns run over: evidence lines joined with `" | "` (the analysis script's
/// form; the mining script's `str(list)` gives the same matches for these patterns, since none
/// can span a line boundary in either form).
#[must_use]
pub fn evidence_text(lines: &[String]) -> String {
    lines.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fix_subjects() {
        assert!(is_fix_subject("fix F-001 and F-004 (audit CYCLE-000001)"));
        assert!(is_fix_subject("Revise after Audit cycle 2"));
        assert!(is_fix_subject("F-9"));
        assert!(!is_fix_subject("refactor: F-x naming"));
        assert!(!is_fix_subject("add results"));
        assert_eq!(fixed_findings("fix F-001 and F-004 (audit CYCLE-000001)"), ["F-001", "F-004"]);
    }

    #[test]
    fn patterns_match_the_scripts() {
        let ev = [
            "cite: Gate 11 / R-EVD-002".to_owned(),
            "cite: §⟨#⟩ / R-PRO-004, Gate11, CA-DATA-001".to_owned(),
            "R-lower-1 Gate x R-EVD-".to_owned(),
        ];
        let text = evidence_text(&ev);
        assert_eq!(extract(&text, Patterns::Mined), ["Gate 11", "Gate11", "R-EVD-002", "R-PRO-004"]);
        assert_eq!(extract(&text, Patterns::Analysis), ["CA-DATA-001", "Gate 11", "Gate11", "R-EVD-002", "R-PRO-004"]);
        // Python's \d is Unicode-aware in str patterns: an Arabic-Indic digit matches.
        assert_eq!(extract("Gate \u{0663}", Patterns::Mined), ["Gate \u{0663}"]);
    }
}

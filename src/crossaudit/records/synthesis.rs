//! Verdict synthesis replay (formats note §8): what verdict the recorded inputs give under the
//! paper's precedence and under each reference dialect.

/// A synthesis rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Paper §3.2 I3 / v1 revision R2c: lock → invalid → DCL failure → bound → reply → DCL_ONLY.
    Paper,
    /// v1 R1–R2b and the product (v2/v4): lock → DCL failure → invalid → bound → reply → DCL_ONLY.
    DclFirst,
}

impl Rule {
    /// Dialect name used in evidence.
    #[must_use]
    pub fn name(self, product: bool) -> &'static str {
        match (self, product) {
            (Rule::Paper, _) => "paper (v1-r2c)",
            (Rule::DclFirst, false) => "v1-r2b",
            (Rule::DclFirst, true) => "product (v2/v4)",
        }
    }
}

/// What the records say went into synthesis.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Inputs {
    /// An earlier round of the cycle escalated (the R2b/product escalation lock).
    pub lock: bool,
    /// The reply was invalid or the call failed.
    pub invalid: bool,
    /// Deterministic hard failures.
    pub dcl_failures: usize,
    /// The model did not see everything (input bound exceeded).
    pub bound: bool,
    /// The reply's own verdict, when the records keep it (v1 `raw_exchange.json`).
    pub reply: Option<String>,
    /// No model ran.
    pub offline: bool,
}

/// The verdict a rule gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// A definite verdict.
    Verdict(&'static str),
    /// The (valid) reply decides, and the records do not keep its verdict: any reply verdict
    /// consistent with the findings is acceptable.
    Reply,
}

impl Expected {
    /// Whether `recorded` is what this expectation allows.
    #[must_use]
    pub fn allows(&self, recorded: &str) -> bool {
        match self {
            Expected::Verdict(v) => *v == recorded,
            Expected::Reply => ["PASS", "BLOCKED", "ESCALATE"].contains(&recorded),
        }
    }

    /// For messages.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Expected::Verdict(v) => (*v).to_owned(),
            Expected::Reply => "the reply's verdict".to_owned(),
        }
    }
}

/// Applies `rule` to `inputs`.
#[must_use]
pub fn synthesize(rule: Rule, i: &Inputs) -> Expected {
    if i.lock {
        return Expected::Verdict("ESCALATE");
    }
    match rule {
        Rule::Paper => {
            if i.invalid {
                return Expected::Verdict("ESCALATE");
            }
            if i.dcl_failures > 0 {
                return Expected::Verdict("BLOCKED");
            }
        }
        Rule::DclFirst => {
            if i.dcl_failures > 0 {
                return Expected::Verdict("BLOCKED");
            }
            if i.invalid {
                return Expected::Verdict("ESCALATE");
            }
        }
    }
    if i.bound {
        return Expected::Verdict("ESCALATE");
    }
    if i.offline {
        return Expected::Verdict("DCL_ONLY");
    }
    match i.reply.as_deref() {
        Some("PASS") => Expected::Verdict("PASS"),
        Some("BLOCKED") => Expected::Verdict("BLOCKED"),
        Some("ESCALATE") => Expected::Verdict("ESCALATE"),
        _ => Expected::Reply,
    }
}

/// Why the paper's rule gave its verdict, for messages.
#[must_use]
pub fn explain(i: &Inputs) -> String {
    let mut parts = Vec::new();
    if i.lock {
        parts.push("the cycle is escalated (lock)".to_owned());
    }
    if i.invalid {
        parts.push("the auditor reply was invalid".to_owned());
    }
    if i.dcl_failures > 0 {
        parts.push(format!("{} deterministic hard failure(s)", i.dcl_failures));
    }
    if i.bound {
        parts.push("the input bound was exceeded".to_owned());
    }
    if i.offline {
        parts.push("no model ran".to_owned());
    }
    if let Some(r) = &i.reply {
        parts.push(format!("the reply said {r}"));
    }
    if parts.is_empty() { "a valid reply decided".to_owned() } else { parts.join("; ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(rule: Rule, f: impl FnOnce(&mut Inputs)) -> Expected {
        let mut i = Inputs::default();
        f(&mut i);
        synthesize(rule, &i)
    }

    /// The R2c regression suite (`test_verdict_precedence.py`, formats note §13).
    #[test]
    fn paper_rule_matches_r2c_tests() {
        use Expected::Verdict as V;
        assert_eq!(
            v(Rule::Paper, |i| {
                i.invalid = true;
                i.dcl_failures = 3
            }),
            V("ESCALATE")
        );
        assert_eq!(v(Rule::Paper, |i| i.invalid = true), V("ESCALATE"));
        assert_eq!(
            v(Rule::Paper, |i| {
                i.dcl_failures = 1;
                i.reply = Some("PASS".into())
            }),
            V("BLOCKED")
        );
        assert_eq!(
            v(Rule::Paper, |i| {
                i.lock = true;
                i.invalid = true;
                i.dcl_failures = 9
            }),
            V("ESCALATE")
        );
        assert_eq!(
            v(Rule::Paper, |i| {
                i.bound = true;
                i.reply = Some("PASS".into())
            }),
            V("ESCALATE")
        );
        assert_eq!(v(Rule::Paper, |i| i.offline = true), V("DCL_ONLY"));
        assert_eq!(v(Rule::Paper, |i| i.reply = Some("PASS".into())), V("PASS"));
        assert_eq!(v(Rule::Paper, |i| i.reply = Some("BLOCKED".into())), V("BLOCKED"));
    }

    /// The dialects disagree exactly on "DCL failure + invalid reply" (formats note §8).
    #[test]
    fn dialects_disagree_on_invalid_atop_dcl() {
        let both = |i: &mut Inputs| {
            i.invalid = true;
            i.dcl_failures = 2;
        };
        assert_eq!(v(Rule::DclFirst, both), Expected::Verdict("BLOCKED"));
        assert_eq!(v(Rule::Paper, both), Expected::Verdict("ESCALATE"));
        assert_eq!(v(Rule::DclFirst, |i| i.reply = None), Expected::Reply);
        assert!(Expected::Reply.allows("PASS") && !Expected::Reply.allows("DCL_ONLY"));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn inputs() -> impl Strategy<Value = Inputs> {
        (
            any::<bool>(),
            any::<bool>(),
            0usize..4,
            any::<bool>(),
            prop::option::of(prop::sample::select(vec!["PASS", "BLOCKED", "ESCALATE"])),
            any::<bool>(),
        )
            .prop_map(|(lock, invalid, dcl_failures, bound, reply, offline)| Inputs {
                lock,
                invalid,
                dcl_failures,
                bound,
                reply: reply.map(str::to_owned),
                offline,
            })
    }

    proptest! {
        /// I4: no rule lets a model PASS (or a DCL-only result) stand over a deterministic failure.
        #[test]
        fn dcl_failure_never_passes(i in inputs()) {
            for rule in [Rule::Paper, Rule::DclFirst] {
                if i.dcl_failures > 0 {
                    let v = synthesize(rule, &i);
                    prop_assert!(!v.allows("PASS") && !v.allows("DCL_ONLY"), "{rule:?} {i:?} gave {v:?}");
                }
            }
        }

        /// I3 (paper): an invalid reply escalates whatever else happened.
        #[test]
        fn invalid_reply_escalates_under_the_paper(i in inputs()) {
            if i.invalid {
                prop_assert_eq!(synthesize(Rule::Paper, &i), Expected::Verdict("ESCALATE"));
            }
        }

        /// The two rules differ only when an invalid reply meets a deterministic failure.
        #[test]
        fn rules_differ_only_on_invalid_atop_dcl(i in inputs()) {
            if synthesize(Rule::Paper, &i) != synthesize(Rule::DclFirst, &i) {
                prop_assert!(i.invalid && i.dcl_failures > 0 && !i.lock);
            }
        }
    }
}

//! What the auditor and the deterministic layer write: `checks.json`, the raw exchange and
//! `report.md` in each dialect's layout.

use std::collections::BTreeMap;

use serde_json::Value;

use super::minter::*;
use super::scenario::*;
use crate::pyjson;
use crate::rules::{Family, sha256_hex};

impl Minter {
    pub(super) fn dcl_output(&self, c: &CycleSpec, sha: &str) -> Value {
        let failures = c.dcl.iter().filter(|f| f.severity == "BLOCKER").count();
        let verdict = if failures > 0 { "BLOCKED" } else { "PASS" };
        let n = i64::try_from(failures).unwrap_or(i64::MAX);
        match self.family {
            Family::V1 => {
                let mut by_exp: BTreeMap<String, Vec<&DclFinding>> = BTreeMap::new();
                for f in &c.dcl {
                    by_exp.entry(format!("science/{}", f.artifact)).or_default().push(f);
                }
                if by_exp.is_empty() {
                    by_exp.insert(format!("science/experiments/{}", &sha[..7]), Vec::new());
                }
                let results = by_exp
                    .into_iter()
                    .map(|(exp, fs)| {
                        let hard = i64::try_from(fs.iter().filter(|f| f.severity == "BLOCKER").count()).unwrap_or(0);
                        obj([
                            ("experiment", jstr(&exp)),
                            (
                                "findings",
                                Value::Array(
                                    fs.iter()
                                        .map(|f| {
                                            obj([
                                                ("check", jstr(&f.check)),
                                                ("message", jstr(&f.message)),
                                                ("rule", jstr(&f.rule)),
                                                ("severity", jstr(&f.severity)),
                                            ])
                                        })
                                        .collect(),
                                ),
                            ),
                            ("hard_failures", jint(hard)),
                        ])
                    })
                    .collect();
                obj([
                    ("crossaudit_dcl_version", jint(1)),
                    ("results", Value::Array(results)),
                    ("total_hard_failures", jint(n)),
                    ("verdict", jstr(verdict)),
                ])
            }
            Family::Schema2 => {
                let findings = c
                    .dcl
                    .iter()
                    .map(|f| {
                        let mut m = BTreeMap::from([
                            ("artifact".to_owned(), jstr(&f.artifact)),
                            ("observation".to_owned(), jstr(&f.message)),
                            ("severity".to_owned(), jstr(&f.severity)),
                            ("rule".to_owned(), jstr(if self.v4 { "" } else { &f.rule })),
                        ]);
                        if self.v4 {
                            m.insert("rule".into(), jstr(&format!("DCL:{}", f.check)));
                            m.insert("check".into(), jstr(&f.check));
                            m.insert("implementation_code".into(), jstr(&f.rule));
                        }
                        object(m)
                    })
                    .collect();
                let mut m = BTreeMap::from([
                    ("crossaudit_dcl_version".to_owned(), jint(if self.v4 { 3 } else { 2 })),
                    ("findings".to_owned(), Value::Array(findings)),
                    ("notes".to_owned(), Value::Array(Vec::new())),
                    ("total_hard_failures".to_owned(), jint(n)),
                    ("verdict".to_owned(), jstr(verdict)),
                ]);
                if self.v4 {
                    m.insert(
                        "contracts".into(),
                        obj([
                            ("convergence", jstr("When results.json has convergence, it is a mapping whose converged field is true; numeric achieved must not exceed numeric threshold.")),
                            ("document-export-integrity", jstr("Every PDF/DOCX increment must be a valid, non-encrypted document with at least one page/paragraph and extractable text. Macro-enabled OOXML is refused.")),
                            ("provenance", jstr("Each quantity source exactly equals one 'path@revision' string in metadata.yml inputs; a matching source revision different from code_version is additionally recorded as advisory.")),
                            ("schema", jstr("Every audited increment contains parseable metadata.yml with code_version and an inputs list of 'path@revision' strings, plus parseable results.json with a quantities list.")),
                            ("units", jstr("Every entry in results.json quantities is a mapping with non-empty unit and source fields.")),
                        ]),
                    );
                }
                object(m)
            }
        }
    }

    pub(super) fn raw_exchange(&self, c: &CycleSpec, model: &str) -> Value {
        let offline = c.reply.is_none() && c.invalid.is_none();
        let reply = match (&c.reply, &c.invalid) {
            (Some(r), None) => reply_json(r),
            _ => Value::Null,
        };
        obj([
            ("endpoint", if offline { Value::Null } else { jstr("https://api.example.invalid/v1") }),
            ("invalid_reason", c.invalid.as_deref().map_or(Value::Null, jstr)),
            ("model", jstr(model)),
            ("raw_reply", reply),
            ("started_at", jint(self.science.clock())),
            ("system_prompt_sha256", jstr(&sha256_hex(b"crossverify fixture system prompt"))),
            ("temperature", jint(0)),
        ])
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn report(
        &self,
        c: &CycleSpec,
        sha: &str,
        round: i64,
        verdict: &str,
        constitution: &str,
        dcl: &Value,
        model: &str,
        provider: &str,
    ) -> String {
        let mut l: Vec<String> = Vec::new();
        match self.family {
            Family::V1 => self.report_v1(&mut l, c, (sha, round, verdict, constitution), dcl, model),
            Family::Schema2 => self.report_schema2(&mut l, c, (sha, round, verdict, constitution), model, provider),
        }
        let mut text = l.join("\n");
        text.push('\n');
        if self.family == Family::V1 {
            while text.ends_with("\n\n") {
                text.pop();
            }
        }
        text
    }

    /// The v1 runner's `report.md` lines: (sha, round, verdict, constitution) head the table.
    pub(super) fn report_v1(
        &self,
        l: &mut Vec<String>,
        c: &CycleSpec,
        (sha, round, verdict, constitution): (&str, i64, &str, &str),
        dcl: &Value,
        model: &str,
    ) {
        let failures = c.dcl.iter().filter(|f| f.severity == "BLOCKER").count();
        let offline = c.reply.is_none() && c.invalid.is_none();
        let valid = c.reply.as_ref().filter(|_| c.invalid.is_none());
        l.push(format!("# Audit Report — {}@{}", self.s.science_repo, &sha[..7]));
        l.push(String::new());
        l.push("| | |".into());
        l.push("|---|---|".into());
        l.push(format!("| **Increment** | `{}` commit `{sha}` |", self.s.science_repo));
        l.push(format!("| **Round** | {round} |"));
        l.push(format!("| **Constitution** | `AUDIT_RULES.md` @ `{constitution}` |"));
        l.push(format!(
            "| **Deterministic checks** | {} — {failures} hard failure(s) |",
            if failures > 0 { "BLOCKED" } else { "PASS" }
        ));
        l.push(format!("| **Verdict** | **{verdict}** |"));
        let auditor = if offline { "offline stub (DCL only)".to_owned() } else { model.to_owned() };
        l.push(format!("| **Auditor** | {auditor} |"));
        l.push(String::new());
        l.push("## Findings".into());
        l.push(String::new());
        let mut any = false;
        for f in &c.dcl {
            any = true;
            l.push(format!("### [{}] {} — deterministic check `{}`", f.severity, f.rule, f.check));
            l.push(format!("- **Artifact:** `science/{}`", f.artifact));
            l.push(format!("- **Observation:** {}", f.message));
            l.push("- **Layer:** deterministic (non-overridable, I4)".into());
            l.push(String::new());
        }
        if let Some(reason) = &c.invalid {
            any = true;
            l.push("### [BLOCKER] CA-META-002 — invalid Auditor reply".into());
            l.push(format!("- **Observation:** {reason}; escalated per I3."));
            l.push(String::new());
        }
        if let Some(r) = valid {
            for f in &r.findings {
                any = true;
                l.push(format!("### [{}] {} — LLM audit", f.severity, f.rule));
                l.push(format!("- **Artifact:** `{}`", f.artifact));
                l.push(format!("- **Observation:** {}", f.observation));
                l.push(format!("- **Required to clear:** {}", f.required));
                l.push(String::new());
            }
        }
        if !any {
            l.push("No findings.".into());
            l.push(String::new());
        }
        l.push("## Deterministic check output".into());
        l.push(String::new());
        l.push("```json".into());
        l.push(pyjson::pretty(dcl, true));
        l.push("```".into());
        l.push(String::new());
        if let Some(notes) = valid.and_then(|r| r.notes.clone()) {
            l.push("## Notes for the human (asynchronous)".into());
            l.push(String::new());
            l.push(notes);
        }
    }

    /// The product's `report.md` lines (schema 2, and the v4 layout).
    pub(super) fn report_schema2(
        &self,
        l: &mut Vec<String>,
        c: &CycleSpec,
        (sha, round, verdict, constitution): (&str, i64, &str, &str),
        model: &str,
        provider: &str,
    ) {
        let failures = c.dcl.iter().filter(|f| f.severity == "BLOCKER").count();
        let offline = c.reply.is_none() && c.invalid.is_none();
        let valid = c.reply.as_ref().filter(|_| c.invalid.is_none());
        l.push(format!("# Audit Report — {}@{}", self.s.science_repo, &sha[..12]));
        l.push(String::new());
        l.push("| | |".into());
        l.push("|---|---|".into());
        l.push(format!("| verdict | **{verdict}** |"));
        l.push(format!("| round | {round} |"));
        l.push(format!("| constitution | `{}` |", &constitution[..constitution.len().min(12)]));
        if self.v4 {
            l.push(format!(
                "| auditor | `{provider}:{model}` (vendor {}; effort provider-default) |",
                self.s.auditor_vendor
            ));
        } else {
            l.push(format!("| auditor | `{provider}:{model}` (vendor {}) |", self.s.auditor_vendor));
        }
        l.push(format!("| deterministic layer | {failures} hard failure(s) |"));
        l.push(String::new());
        l.push("## Deterministic findings".into());
        l.push(String::new());
        if c.dcl.is_empty() {
            l.push("None.".into());
            l.push(String::new());
        }
        for f in &c.dcl {
            let rule = if self.v4 { format!("DCL:{}", f.check) } else { f.rule.clone() };
            l.push(format!("### [{}] {rule} — {}", f.severity, f.artifact));
            if self.v4 {
                l.push(format!(
                    "Machine check: `{}` (configured in `crossaudit.yml`; not a Constitution amendment)",
                    f.check
                ));
            }
            l.push(f.message.clone());
            l.push(String::new());
        }
        l.push("## Model findings".into());
        l.push(String::new());
        if let Some(reason) = &c.invalid {
            l.push("### [BLOCKER] CA-META-002 — invalid Auditor reply".into());
            l.push(format!("The model audit was rejected: {reason}. Under I3 an invalid audit escalates; it can never pass an increment."));
        } else if offline {
            l.push("No model audit ran; this is a deterministic-tier result only.".into());
        } else if let Some(r) = valid {
            if r.findings.is_empty() {
                l.push("None.".into());
                l.push(String::new());
            }
            for f in &r.findings {
                l.push(format!("### [{}] {} — {}", f.severity, f.rule, f.artifact));
                l.push(f.observation.clone());
                l.push(String::new());
            }
            l.push(format!("Rules applied: {}", r.sections_applied.join(", ")));
        }
    }
}

pub(super) fn reply_json(r: &Reply) -> Value {
    let mut m = BTreeMap::from([
        ("verdict".to_owned(), jstr(&r.verdict)),
        ("sections_applied".to_owned(), Value::Array(r.sections_applied.iter().map(|s| jstr(s)).collect())),
        (
            "findings".to_owned(),
            Value::Array(
                r.findings
                    .iter()
                    .map(|f| {
                        obj([
                            ("artifact", jstr(&f.artifact)),
                            ("observation", jstr(&f.observation)),
                            ("required", jstr(&f.required)),
                            ("rule", jstr(&f.rule)),
                            ("severity", jstr(&f.severity)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ]);
    if let Some(n) = &r.notes {
        m.insert("notes_for_human".into(), jstr(n));
    }
    object(m)
}

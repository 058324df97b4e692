//! The human-readable `report.md`, as the v1 runner (formats note §5.1) and the product
//! (§5.6) render it. Nothing in the references parses it except the product's verdict row; we
//! read it because it is the only trace of some facts (an invalid reply the product absorbed
//! into BLOCKED, the rules a product report says it applied).

/// A finding block of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// `BLOCKER`, `ADVISORY`, …
    pub severity: String,
    /// Rule ID as written.
    pub rule: String,
    /// Artifact (empty when the block names none).
    pub artifact: String,
    /// Observation text.
    pub observation: String,
}

/// What a report says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// `product` when the rows are the product's lower-case ones, else `v1`.
    pub product_layout: bool,
    /// Science repository from the title.
    pub title_repo: Option<String>,
    /// Short SHA from the title.
    pub title_sha: Option<String>,
    /// Full SHA from the v1 "Increment" row.
    pub increment_sha: Option<String>,
    /// Verdict row.
    pub verdict: Option<String>,
    /// Round row.
    pub round: Option<i64>,
    /// Constitution version cited (v1: commit after `@`; product: 12-hex commit prefix).
    pub constitution: Option<String>,
    /// Constitution file named (v1 row).
    pub constitution_path: Option<String>,
    /// Auditor row, raw.
    pub auditor: Option<String>,
    /// Hard-failure count in the deterministic row.
    pub dcl_failures: Option<i64>,
    /// DCL verdict in the v1 deterministic row.
    pub dcl_verdict: Option<String>,
    /// Deterministic finding blocks.
    pub dcl_blocks: Vec<Block>,
    /// Reason of an invalid Auditor reply, when the report records one.
    pub invalid_reason: Option<String>,
    /// Model finding blocks.
    pub model_findings: Vec<Block>,
    /// Product "Rules applied:" list.
    pub rules_applied: Option<Vec<String>>,
    /// The report says no model audit ran.
    pub offline: bool,
    /// The v1 embedded DCL JSON.
    pub embedded_dcl: Option<String>,
    /// Lines anywhere in the report that read as a verdict row (the product's verifier
    /// searches the whole text, so a row inside a finding body is a second reading).
    pub verdict_rows: usize,
    /// Lines anywhere in the report starting `Rules applied:`.
    pub rules_applied_lines: usize,
}

impl Report {
    /// Every rule a model finding cites.
    pub fn cited_rules(&self) -> impl Iterator<Item = &str> {
        self.model_findings.iter().map(|b| b.rule.as_str())
    }
}

fn cell(line: &str) -> Option<(String, String)> {
    let t = line.trim();
    let inner = t.strip_prefix('|')?.strip_suffix('|')?;
    let (k, v) = inner.split_once('|')?;
    Some((k.trim().trim_matches('*').trim().to_owned(), v.trim().to_owned()))
}

fn strip_ticks(s: &str) -> &str {
    s.trim().trim_matches('`')
}

fn bold(s: &str) -> &str {
    s.trim().trim_start_matches("**").trim_end_matches("**").trim()
}

/// Parses a report. Never fails: what cannot be read stays `None`/empty.
#[must_use]
pub fn parse(text: &str) -> Report {
    let mut r = Report::default();
    let lines: Vec<&str> = text.lines().collect();
    if let Some(title) = lines.first().and_then(|l| l.strip_prefix("# Audit Report — "))
        && let Some((repo, sha)) = title.rsplit_once('@')
    {
        r.title_repo = Some(repo.trim().to_owned());
        r.title_sha = Some(sha.trim().to_owned());
    }
    let mut section = "";
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(h) = line.strip_prefix("## ") {
            section = match h.trim() {
                "Findings" => "findings",
                "Deterministic findings" => "dcl",
                "Model findings" => "model",
                "Deterministic check output" => "dcl-json",
                _ => "other",
            };
            i += 1;
            continue;
        }
        if section.is_empty() {
            if let Some((k, v)) = cell(line) {
                read_row(&mut r, &k, &v);
            }
            i += 1;
            continue;
        }
        if section == "dcl-json" && line.trim_start().starts_with("```") {
            let body: Vec<&str> =
                lines[i + 1..].iter().take_while(|l| !l.trim_start().starts_with("```")).copied().collect();
            r.embedded_dcl = Some(body.join("\n"));
            i += body.len() + 2;
            continue;
        }
        if let Some(h) = line.strip_prefix("### [") {
            let Some((sev, rest)) = h.split_once("] ") else {
                i += 1;
                continue;
            };
            let (rule, tail) = rest.split_once(" — ").map_or((rest, ""), |(a, b)| (a, b));
            let body: Vec<&str> = lines[i + 1..]
                .iter()
                .take_while(|l| !l.starts_with("### ") && !l.starts_with("## "))
                .copied()
                .collect();
            i += 1 + body.len();
            let mut b = Block {
                severity: sev.to_owned(),
                rule: rule.trim().to_owned(),
                artifact: String::new(),
                observation: String::new(),
            };
            if tail == "invalid Auditor reply" {
                r.invalid_reason = Some(invalid_reason(&body));
                continue;
            }
            let bullets = body.iter().any(|l| l.starts_with("- **"));
            if bullets {
                for l in &body {
                    if let Some(v) = l.strip_prefix("- **Artifact:**") {
                        b.artifact = strip_ticks(v).to_owned();
                    } else if let Some(v) = l.strip_prefix("- **Observation:**") {
                        b.observation = v.trim().to_owned();
                    }
                }
            } else {
                b.artifact = tail.trim().to_owned();
                b.observation = body
                    .iter()
                    .filter(|l| {
                        !l.starts_with("Machine check:") && !l.starts_with("Rules applied:") && !l.trim().is_empty()
                    })
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            let deterministic = section == "dcl" || tail.starts_with("deterministic check");
            if deterministic {
                r.dcl_blocks.push(b);
            } else {
                r.model_findings.push(b);
            }
            continue;
        }
        i += 1;
    }
    r.verdict_rows = lines.iter().filter(|l| is_verdict_row(l)).count();
    r.rules_applied_lines = lines.iter().filter(|l| l.starts_with("Rules applied:")).count();
    // These lines may sit inside a finding block's body, so they are read in their own pass.
    let model = lines.iter().skip_while(|l| l.trim() != "## Model findings");
    for line in model {
        if let Some(list) = line.strip_prefix("Rules applied:") {
            r.rules_applied = Some(list.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect());
        } else if line.starts_with("No model audit ran") {
            r.offline = true;
        }
    }
    r
}

fn is_verdict_row(line: &str) -> bool {
    cell(line).is_some_and(|(k, _)| k == "verdict" || k == "Verdict")
}

fn invalid_reason(body: &[&str]) -> String {
    for l in body {
        if let Some(v) = l.strip_prefix("- **Observation:**") {
            return v.trim().trim_end_matches("; escalated per I3.").trim().to_owned();
        }
        if let Some(v) = l.strip_prefix("The model audit was rejected: ") {
            return v.split(". Under I3").next().unwrap_or(v).trim().to_owned();
        }
    }
    body.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

fn read_row(r: &mut Report, key: &str, value: &str) {
    match key {
        "verdict" | "Verdict" => {
            r.product_layout |= key == "verdict";
            r.verdict = Some(bold(value).to_owned());
        }
        "round" | "Round" => r.round = value.trim().parse().ok(),
        "constitution" => r.constitution = Some(strip_ticks(value).to_owned()),
        "Constitution" => {
            // `AUDIT_RULES.md` @ `<hash>`
            if let Some((path, hash)) = value.split_once('@') {
                r.constitution_path = Some(strip_ticks(path).to_owned());
                r.constitution = Some(strip_ticks(hash).to_owned());
            }
        }
        "auditor" | "Auditor" => r.auditor = Some(value.to_owned()),
        "deterministic layer" => r.dcl_failures = leading_int(value),
        "Deterministic checks" => {
            // PASS — 0 hard failure(s)
            if let Some((v, n)) = value.split_once('—') {
                r.dcl_verdict = Some(v.trim().to_owned());
                r.dcl_failures = leading_int(n);
            }
        }
        "Increment" => {
            r.increment_sha = value.split("commit").nth(1).map(|s| strip_ticks(s).to_owned());
        }
        _ => {}
    }
}

fn leading_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let n: String = t.chars().take_while(char::is_ascii_digit).collect();
    n.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_report() {
        let text = "# Audit Report — lab/water-dimer@962938378a22\n\n| | |\n|---|---|\n| verdict | **BLOCKED** |\n| round | 1 |\n| constitution | `ac47026fb020` |\n| auditor | `replay:replay-transcript` (vendor openai; effort provider-default) |\n| deterministic layer | 3 hard failure(s) |\n\n## Deterministic findings\n\n### [BLOCKER] DCL:schema — experiments/d/metadata.yml\nMachine check: `schema` (configured)\nmetadata inputs must be a list\n\n## Model findings\n\n### [BLOCKER] CA-REPRO-001 — experiments/d/metadata.yml\ninputs names geometries without a revision.\n\nRules applied: CA-REPRO-001, CA-DATA-001, CA-META-001\n";
        let r = parse(text);
        assert!(r.product_layout);
        assert_eq!(r.verdict.as_deref(), Some("BLOCKED"));
        assert_eq!(r.round, Some(1));
        assert_eq!(r.constitution.as_deref(), Some("ac47026fb020"));
        assert_eq!(r.dcl_failures, Some(3));
        assert_eq!(r.dcl_blocks.len(), 1);
        assert_eq!(r.dcl_blocks[0].observation, "metadata inputs must be a list");
        assert_eq!(r.model_findings[0].rule, "CA-REPRO-001");
        assert_eq!(r.model_findings[0].artifact, "experiments/d/metadata.yml");
        assert_eq!(r.rules_applied.as_deref().map(<[String]>::len), Some(3));
        assert_eq!(r.title_sha.as_deref(), Some("962938378a22"));
    }

    #[test]
    fn product_invalid_and_offline() {
        let text = "# Audit Report — a/b@60b988d8b026\n\n| verdict | **ESCALATE** |\n\n## Deterministic findings\n\nNone.\n\n## Model findings\n\n### [BLOCKER] CA-META-002 — invalid Auditor reply\nThe model audit was rejected: verdict PASS while carrying a BLOCKER finding. Under I3 an invalid audit escalates; it can never pass an increment.\n";
        let r = parse(text);
        assert_eq!(r.invalid_reason.as_deref(), Some("verdict PASS while carrying a BLOCKER finding"));
        assert!(r.model_findings.is_empty());
        let off = parse(
            "# Audit Report — a/b@1\n\n| verdict | **DCL_ONLY** |\n\n## Model findings\n\nNo model audit ran; this is a deterministic-tier result only.\n",
        );
        assert!(off.offline);
    }

    #[test]
    fn every_verdict_row_and_rules_line_is_counted() {
        let one = parse("| verdict | **PASS** |\n\n## Model findings\n\nNone.\n\nRules applied: CA-META-001\n");
        assert_eq!((one.verdict_rows, one.rules_applied_lines), (1, 1));
        let two = parse(
            "| verdict | **BLOCKED** |\n\n## Model findings\n\n| verdict | **PASS** |\n### [BLOCKER] CA-X-001 — a\nRules applied: CA-X-001\nobs\nRules applied: CA-X-001\n",
        );
        assert_eq!((two.verdict_rows, two.rules_applied_lines), (2, 2));
        assert_eq!(two.verdict.as_deref(), Some("BLOCKED"));
        let v1 = parse("| **Verdict** | **PASS** |\n| **Verdict** | **BLOCKED** |\n");
        assert_eq!(v1.verdict_rows, 2);
    }

    #[test]
    fn v1_report() {
        let text = "# Audit Report — o/s@abcdef0\n\n| | |\n|---|---|\n| **Increment** | `o/s` commit `abcdef0123456789abcdef0123456789abcdef01` |\n| **Round** | 2 |\n| **Constitution** | `AUDIT_RULES.md` @ `1111111111111111111111111111111111111111` |\n| **Deterministic checks** | BLOCKED — 1 hard failure(s) |\n| **Verdict** | **BLOCKED** |\n| **Auditor** | gpt-5 |\n\n## Findings\n\n### [BLOCKER] CA-DATA-001 — deterministic check `units`\n- **Artifact:** `science/experiments/x`\n- **Observation:** no unit\n- **Layer:** deterministic (non-overridable, I4)\n\n### [BLOCKER] CA-META-002 — invalid Auditor reply\n- **Observation:** no sections_applied: report cites no rule coverage (CA-META-002); escalated per I3.\n\n## Deterministic check output\n\n```json\n{\n  \"verdict\": \"BLOCKED\"\n}\n```\n";
        let r = parse(text);
        assert!(!r.product_layout);
        assert_eq!(r.increment_sha.as_deref(), Some("abcdef0123456789abcdef0123456789abcdef01"));
        assert_eq!(r.constitution.as_deref(), Some("1111111111111111111111111111111111111111"));
        assert_eq!(r.constitution_path.as_deref(), Some("AUDIT_RULES.md"));
        assert_eq!((r.dcl_verdict.as_deref(), r.dcl_failures), (Some("BLOCKED"), Some(1)));
        assert_eq!(r.dcl_blocks[0].artifact, "science/experiments/x");
        assert_eq!(
            r.invalid_reason.as_deref(),
            Some("no sections_applied: report cites no rule coverage (CA-META-002)")
        );
        assert_eq!(r.embedded_dcl.as_deref(), Some("{\n  \"verdict\": \"BLOCKED\"\n}"));
        assert_eq!(r.round, Some(2));
    }
}

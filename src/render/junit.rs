//! JUnit XML for CI test panes: one `<testsuite>` for the command, one `<testcase>` per check
//! × subject.
//!
//! JUnit XML is not a formal standard; the output validates against the widely used Ant/Surefire
//! schema that Jenkins' xUnit plugin ships (`test-vectors/junit/junit-10.xsd`).
//! - failed → `<failure type="CODE" message="…">` with the evidence as text, except at level
//!   info: context, never drawn as a failure, so `<skipped type="info">`;
//! - cantTell, untested and inapplicable → `<skipped message="outcome: reason">`: a CI pane
//!   must not show them as passes, and they are not failures of the input either;
//! - passed → an empty testcase.
//!
//! Times are always `0`: crossverify measures no durations, so reruns give identical files.

use std::fmt::Write as _;

use crate::report::{Outcome, Report};

pub(super) fn render(report: &Report) -> String {
    let s = &report.summary;
    let skipped = s.cant_tell + s.inapplicable + s.untested + s.infos();
    let failures = s.errors + s.warnings;
    let suite = format!("crossverify.{}", report.command);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"0\">",
        attr(&format!("crossverify {}", report.command)),
        s.total,
        failures
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{skipped}\" time=\"0\">",
        attr(&suite),
        s.total,
        failures
    );
    out.push_str("    <properties>\n");
    let mut prop = |name: &str, value: &str| {
        let _ = writeln!(out, "      <property name=\"{}\" value=\"{}\"/>", attr(name), attr(value));
    };
    prop("tool", &format!("{} {}", report.tool.name, report.tool.version));
    prop("outcome", report.outcome.as_str());
    prop("exitCode", &report.exit_code().to_string());
    if let Some(a) = &report.audit_outcome {
        let reading = report.reading();
        prop("integrity", reading.integrity.unwrap_or_default());
        if let Some(d) = &reading.decision {
            prop("decision", d);
        }
        prop("auditOutcome", &format!("{}: {}", a.basis, a.line()));
    }
    for (k, v) in &report.inputs {
        let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
        prop(&format!("input.{k}"), &text);
    }
    out.push_str("    </properties>\n");
    for r in &report.results {
        let check = report.checks.get(&r.code).map_or(String::new(), |c| format!(" {}", c.name));
        let name = if r.subject.is_empty() { r.code.clone() } else { r.subject.clone() };
        let open = format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
            attr(&format!("{suite}.{}{check}", r.code)),
            attr(&name)
        );
        match r.outcome {
            Outcome::Passed => {
                let _ = writeln!(out, "{open}/>");
            }
            Outcome::Failed if r.level == crate::report::Level::Info => {
                let _ = writeln!(out, "{open}>");
                let _ = writeln!(
                    out,
                    "      <skipped type=\"info\" message=\"{}\">{}</skipped>",
                    attr(&format!("info, not a failure: {}", r.message)),
                    text(&details(r, report))
                );
                out.push_str("    </testcase>\n");
            }
            Outcome::Failed => {
                let _ = writeln!(out, "{open}>");
                let _ = writeln!(
                    out,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    attr(&r.code),
                    attr(&format!("{} ({} level)", r.message, r.level.as_str())),
                    text(&details(r, report))
                );
                out.push_str("    </testcase>\n");
            }
            Outcome::CantTell | Outcome::Untested | Outcome::Inapplicable => {
                let _ = writeln!(out, "{open}>");
                let _ = writeln!(
                    out,
                    "      <skipped type=\"{}\" message=\"{}\">{}</skipped>",
                    attr(r.outcome.as_str()),
                    attr(&format!("{}: {}", r.outcome.as_str(), r.message)),
                    text(&details(r, report))
                );
                out.push_str("    </testcase>\n");
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Location and evidence, one `key: value` per line.
fn details(r: &crate::report::CheckResult, report: &Report) -> String {
    let mut s = String::new();
    if let Some(loc) = &r.location {
        for (k, v) in [("repository", &loc.repository), ("path", &loc.path), ("commit", &loc.commit)] {
            if let Some(v) = v {
                let _ = writeln!(s, "{k}: {v}");
            }
        }
    }
    for (k, v) in &r.evidence {
        let _ = writeln!(s, "{k}: {}", v.as_str().map_or_else(|| v.to_string(), str::to_owned));
    }
    let _ = write!(s, "docs: {}", super::help_uri(report, &r.code));
    s
}

/// Escapes element text.
fn text(s: &str) -> String {
    super::xml::escape(s, super::xml::Context::XmlText)
}

/// Escapes an attribute value.
fn attr(s: &str) -> String {
    super::xml::escape(s, super::xml::Context::XmlAttr)
}

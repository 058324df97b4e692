//! Rules E1–E4: evidence refs, resolved as the format note §2.6 recommends (split at the first
//! `#`, the path against `_Msg/` then the project root, anchors against GitHub heading slugs
//! and `id`/`name` attributes of Markdown targets).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::checks::{E1_REF_MISSING, E2_REF_PATH, E3_REF_ANCHOR, E4_REF_ESCAPES};
use super::judge::{Findings, Transcript, on_line, verdict};
use crate::report::{CheckResult, Outcome};

/// `path` joined to `base` without touching the file system; `None` when `..` leaves the root
/// (base components count as inside it).
fn lexical(base: &[String], path: &str) -> Option<Vec<String>> {
    let mut out = base.to_vec();
    for c in Path::new(path).components() {
        match c {
            Component::Normal(s) => out.push(s.to_str()?.to_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

fn absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/') || path.starts_with('\\') || (b.len() > 1 && b[1] == b':' && b[0].is_ascii_alphabetic())
}

/// A GitHub heading slug: lowercase, punctuation other than `-`/`_` dropped, spaces to `-`.
#[must_use]
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor a Markdown text defines: heading slugs (repeats suffixed `-1`, `-2`…, fenced
/// code skipped) and `id="…"`/`name="…"` attribute values, lowercased.
#[must_use]
pub fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let hashes = t.bytes().take_while(|b| *b == b'#').count();
        if (1..=6).contains(&hashes) && t.get(hashes..).is_some_and(|r| r.is_empty() || r.starts_with(' ')) {
            let title = t.get(hashes..).unwrap_or("").trim().trim_end_matches('#').trim();
            let s = slug(title);
            let n = seen.entry(s.clone()).or_insert(0);
            out.push(if *n == 0 { s.clone() } else { format!("{s}-{n}") });
            *n += 1;
        }
        for attr in ["id=\"", "name=\""] {
            for (i, _) in line.match_indices(attr) {
                let rest = line.get(i + attr.len()..).unwrap_or("");
                if let Some(v) = rest.split('"').next().filter(|_| rest.contains('"')) {
                    out.push(v.to_lowercase());
                }
            }
        }
    }
    out
}

enum Target {
    Escapes,
    Missing,
    Found(PathBuf, String),
    NotRegular(String),
}

fn resolve(dir: &Path, path: &str) -> Target {
    if absolute(path) {
        return Target::Escapes;
    }
    let root = dir.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let msg = dir.file_name().map_or_else(|| "_Msg".to_owned(), |n| n.to_string_lossy().into_owned());
    let Some(under_msg) = lexical(std::slice::from_ref(&msg), path) else { return Target::Escapes };
    let under_root = lexical(&[], path);
    for rel in std::iter::once(under_msg).chain(under_root) {
        let shown = rel.join("/");
        let full = rel.iter().fold(root.clone(), |p, c| p.join(c));
        match std::fs::symlink_metadata(&full) {
            Ok(m) if m.is_file() => return Target::Found(full, shown),
            Ok(m) if m.file_type().is_symlink() => {
                return Target::NotRegular(format!("{shown} is a symbolic link (not followed)"));
            }
            Ok(_) => return Target::NotRegular(format!("{shown} is not a regular file")),
            Err(_) => {}
        }
    }
    Target::Missing
}

/// Splits `path:LINE` into the path and whether it had a line suffix.
fn line_form(path: &str) -> (&str, bool) {
    match path.rsplit_once(':') {
        Some((p, n)) if !p.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => (p, true),
        _ => (path, false),
    }
}

/// Every E rule.
pub(crate) fn check(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut e1, mut e2, mut e3, mut e4) =
        (Findings::default(), Findings::default(), Findings::default(), Findings::default());
    let (mut evidence, mut refs, mut anchored) = (0, 0, 0);
    // Each target's anchors are read once, however many lines cite it (else a bus of refs to
    // one large file costs lines × file size).
    let mut targets: BTreeMap<PathBuf, Result<BTreeSet<String>, String>> = BTreeMap::new();
    for line in &t.bus.lines {
        let Some(m) = line.message() else { continue };
        if matches!(m.kind(), "verify" | "challenge") {
            evidence += 1;
            if m.field("ref").is_none_or(str::is_empty) {
                e1.push(on_line(
                    &E1_REF_MISSING,
                    line,
                    format!("{} by {:?} has no ref: evidence or it didn't happen", m.kind(), m.from()),
                ));
            }
        }
        let Some(r) = m.field("ref").filter(|r| !r.is_empty()) else { continue };
        refs += 1;
        let (path, anchor) = r.split_once('#').map_or((r, None), |(p, a)| (p, Some(a)));
        let (path, lined) = line_form(path);
        let anchor = anchor.filter(|a| !a.is_empty());
        anchored += usize::from(anchor.is_some() || lined);
        match resolve(&t.arena.dir, path) {
            Target::Escapes => e4.push(on_line(
                &E4_REF_ESCAPES,
                line,
                format!("ref {r:?} is absolute or leaves the project root; not resolved"),
            )),
            Target::Missing => {
                e2.push(on_line(
                    &E2_REF_PATH,
                    line,
                    format!("ref {r:?} names no file under _Msg/ or the project root"),
                ));
                if anchor.is_some() || lined {
                    e3.push(CheckResult::new(
                        &E3_REF_ANCHOR,
                        Outcome::CantTell,
                        line.label(),
                        format!("ref {r:?}: its file is missing, so the anchor cannot be resolved"),
                    ));
                }
            }
            Target::NotRegular(why) => {
                e2.push(CheckResult::new(&E2_REF_PATH, Outcome::CantTell, line.label(), format!("ref {r:?}: {why}")))
            }
            Target::Found(full, shown) => {
                if let Some(res) = anchor_result(line, r, (&full, &shown), anchor, lined, &mut targets) {
                    e3.push(res);
                }
            }
        }
    }
    let mut out = verdict(&E1_REF_MISSING, e1, evidence, "verifies and challenges");
    out.extend(verdict(&E2_REF_PATH, e2, refs, "refs"));
    out.extend(verdict(&E3_REF_ANCHOR, e3, anchored, "ref anchors"));
    out.extend(verdict(&E4_REF_ESCAPES, e4, refs, "refs"));
    out
}

fn anchor_result(
    line: &super::bus::Line,
    r: &str,
    (full, shown): (&Path, &str),
    anchor: Option<&str>,
    lined: bool,
    targets: &mut BTreeMap<PathBuf, Result<BTreeSet<String>, String>>,
) -> Option<CheckResult> {
    let markdown = full.extension().is_some_and(|e| e == "md" || e == "markdown");
    if lined || (anchor.is_some() && !markdown) {
        return Some(CheckResult::new(
            &E3_REF_ANCHOR,
            Outcome::CantTell,
            line.label(),
            format!("ref {r:?}: unresolvable form (a line number or an anchor on a non-Markdown file)"),
        ));
    }
    let anchor = anchor?;
    let known = targets.entry(full.to_owned()).or_insert_with(|| {
        super::load::read_regular(full).map(|b| anchors(&String::from_utf8_lossy(&b)).into_iter().collect())
    });
    let known = match known {
        Ok(k) => k,
        Err(e) => {
            return Some(CheckResult::new(&E3_REF_ANCHOR, Outcome::CantTell, line.label(), format!("{shown} {e}")));
        }
    };
    let want = anchor.to_lowercase();
    (!known.contains(&want))
        .then(|| on_line(&E3_REF_ANCHOR, line, format!("anchor {anchor:?} names no heading or id of {shown}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_github_slugs() {
        let a = anchors(
            "# Count\n## verify-beta\n```\n# not a heading\n```\n## Count\n<a id=\"X\"></a>\n## Why? (really)\n",
        );
        assert_eq!(a, ["count", "verify-beta", "count-1", "x", "why-really"]);
        assert_eq!(lexical(&["_Msg".into()], "../x/../../y"), None);
        assert_eq!(lexical(&["_Msg".into()], "../x"), Some(vec!["x".to_owned()]));
        assert_eq!(line_form("crossexam.py:708"), ("crossexam.py", true));
    }
}

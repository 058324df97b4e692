//! Rules C1–C3 (concessions), S1–S6 (the synthesis) and I1, I2, I4, I5 (integrity from one
//! snapshot; I3, which needs history, is in `history`).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::bus::{Phase, valid_seat};
use super::checks::{
    C1_CONCEDE_UNVERIFIED, C2_CONCEDE_UNCLAIMED, C3_CLAIM_AFTER_CONCEDE, I1_CURSOR, I2_CURSOR_NAME, I4_TS_REGRESSION,
    I5_LOCK_DIRS, S1_SYNTHESIS_MISSING, S2_SYNTHESIS_HEADINGS, S3_DISAGREEMENT_TABLE, S4_UNCONCEDED_NAMED,
    S5_CITATIONS, S6_SYNTHESIS_EARLY,
};
use super::judge::{Findings, Transcript, on_file, on_line, verdict};
use super::replay::Stage;
use crate::report::{CheckResult, Outcome};
use crate::stats::time::parse_timestamp;

/// Every C, S rule and I1, I2, I4, I5.
pub(crate) fn check(t: &Transcript<'_>) -> Vec<CheckResult> {
    let mut out = concessions(t);
    out.extend(synthesis(t));
    out.extend(cursors(t));
    out.extend(regressions(t));
    let locks = t
        .arena
        .lock_dirs
        .iter()
        .map(|d| {
            on_file(&I5_LOCK_DIRS, d, format!("{d} is a leftover lock directory: a 0.5.0 writer crashed holding it"))
        })
        .collect();
    out.extend(verdict(&I5_LOCK_DIRS, locks, 1, "lock listing"));
    out
}

fn concessions(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut c1, mut c2, mut c3) = (Findings::default(), Findings::default(), Findings::default());
    let (mut verified, mut claimed, mut conceded) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let (mut concedes, mut claims) = (0, 0);
    for line in &t.bus.lines {
        let Some(m) = line.message() else { continue };
        let seat = m.from().to_owned();
        match m.kind() {
            "verify" => {
                verified.insert(seat);
            }
            "claim" => {
                claims += 1;
                if conceded.contains(&seat) {
                    c3.push(on_line(&C3_CLAIM_AFTER_CONCEDE, line, format!("claim by {seat:?} after its concede")));
                }
                claimed.insert(seat);
            }
            "concede" => {
                concedes += 1;
                if !verified.contains(&seat) {
                    c1.push(on_line(
                        &C1_CONCEDE_UNVERIFIED,
                        line,
                        format!("concede by {seat:?} with no earlier verify by {seat}"),
                    ));
                }
                if !claimed.contains(&seat) {
                    c2.push(on_line(&C2_CONCEDE_UNCLAIMED, line, format!("concede by {seat:?}, which never claimed")));
                }
                conceded.insert(seat);
            }
            _ => {}
        }
    }
    let mut out = verdict(&C1_CONCEDE_UNVERIFIED, c1, concedes, "concessions");
    out.extend(verdict(&C2_CONCEDE_UNCLAIMED, c2, concedes, "concessions"));
    out.extend(verdict(&C3_CLAIM_AFTER_CONCEDE, c3, claims, "claims"));
    out
}

/// Seats that claimed on the bus and never conceded.
pub(crate) fn standing_claimants(t: &Transcript<'_>) -> BTreeSet<String> {
    let msgs = || t.bus.lines.iter().filter_map(|l| l.message());
    // Inserted one by one, not collected: a collect sorts every message of a huge bus, and
    // copies each claimant's name once per claim.
    let mut conceded: BTreeSet<&str> = BTreeSet::new();
    for m in msgs().filter(|m| m.kind() == "concede") {
        conceded.insert(m.from());
    }
    let mut out = BTreeSet::new();
    for m in msgs().filter(|m| m.kind() == "claim" && !conceded.contains(m.from())) {
        if !out.contains(m.from()) {
            out.insert(m.from().to_owned());
        }
    }
    out
}

/// Whether `name` occurs in `text` as a whole word (case-insensitive).
#[cfg(test)]
pub(crate) fn names(text: &str, name: &str) -> bool {
    let lower = text.to_lowercase();
    Words::new(&lower, [name]).names(name)
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A lowercased text, its maximal word runs, and which of the names it was built for occur in
/// it as whole words. Built once per synthesis, so that asking whether each of many seats is
/// named costs a lookup per seat, not a pass over the text per seat: a name of word characters
/// is one run, and all names with other characters (`gpt-4o`, `o3.mini`) are found together in
/// one pass ([`find_whole_words`]). Time is linear in the text plus the names.
pub(crate) struct Words<'a> {
    lower: &'a str,
    runs: BTreeSet<&'a str>,
    /// Lowercased names with a non-word character, and whether each occurs as a whole word.
    punctuated: BTreeMap<String, bool>,
}

impl<'a> Words<'a> {
    /// `lower` must already be lowercased (`str::to_lowercase`); `names` are the names that will
    /// be asked about (others are still answered, by a scan of the text each).
    pub(crate) fn new<'n>(lower: &'a str, names: impl IntoIterator<Item = &'n str>) -> Self {
        let runs = lower.split(|c: char| !word_char(c)).filter(|w| !w.is_empty()).collect();
        let asked: BTreeSet<String> =
            names.into_iter().map(str::to_lowercase).filter(|n| !n.is_empty() && !n.chars().all(word_char)).collect();
        let asked: Vec<String> = asked.into_iter().collect();
        let found = find_whole_words(lower, &asked);
        Words { lower, runs, punctuated: asked.into_iter().zip(found).collect() }
    }

    /// The [`Words`] of a transcript's synthesis, for every seat its bus names.
    pub(crate) fn of_seats(lower: &'a str, t: &Transcript<'_>) -> Self {
        Words::new(lower, t.bus.lines.iter().filter_map(|l| l.message()).map(|m| m.from()))
    }

    /// Whether `name` occurs as a whole word (letters, digits and `_` are word characters).
    pub(crate) fn names(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        if name.is_empty() {
            return false;
        }
        if name.chars().all(word_char) {
            return self.runs.contains(name.as_str());
        }
        match self.punctuated.get(&name) {
            Some(found) => *found,
            None => scan(self.lower, &name),
        }
    }
}

/// Whether `name` occurs in `lower` as a whole word, by one scan of the text.
///
/// Every occurrence is tried, overlapping ones included: `str::match_indices` skips an
/// occurrence that overlaps a rejected one, so `..` in `a... ` (rejected after the `a`, whole
/// at the next dot) would be missed.
fn scan(lower: &str, name: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(word_char);
    let step = name.chars().next().map_or(1, char::len_utf8);
    let mut from = 0;
    while let Some(at) = lower.get(from..).and_then(|rest| rest.find(name)) {
        let i = from + at;
        if !word(lower.get(..i).and_then(|s| s.chars().next_back()))
            && !word(lower.get(i + name.len()..).and_then(|s| s.chars().next()))
        {
            return true;
        }
        from = i + step;
    }
    false
}

/// Marks where a whole word may start ([`LEFT`]: at the start or after a non-word character) and
/// end ([`RIGHT`]: at the end or before a non-word character) around every character of `s`.
/// Both bytes never occur in UTF-8, so `marked(name)` occurs in `marked(text)` exactly when
/// `name` occurs in `text` with no word character on either side: the name's first marker pins
/// the left edge, its last the right, and its inner markers agree with the text's because they
/// depend only on the characters matched.
fn marked(s: &str, mut emit: impl FnMut(u8)) {
    let mut prev_word = false;
    let mut at_start = true;
    let mut buf = [0u8; 4];
    for c in s.chars() {
        let word = word_char(c);
        if at_start || !prev_word {
            emit(LEFT);
        }
        if !word {
            emit(RIGHT);
        }
        c.encode_utf8(&mut buf).bytes().for_each(&mut emit);
        prev_word = word;
        at_start = false;
    }
    if at_start || !prev_word {
        emit(LEFT);
    }
    emit(RIGHT);
}

const LEFT: u8 = 0xFE;
const RIGHT: u8 = 0xFF;

/// For each of `names` (lowercased, non-empty), whether it occurs in `lower` as a whole word.
///
/// One Aho-Corasick automaton over the marked names, run once over the marked text. A state's
/// match list holds every name ending there (the automaton copies them along failure links),
/// so each state's list is read the first time the state is reached and never again: the work
/// is the text's length plus the automaton's size, whatever the names have in common.
fn find_whole_words(lower: &str, names: &[String]) -> Vec<bool> {
    use aho_corasick::Anchored;
    use aho_corasick::automaton::Automaton;
    use aho_corasick::nfa::contiguous::NFA;

    let mut found = vec![false; names.len()];
    if names.is_empty() {
        return found;
    }
    let patterns: Vec<Vec<u8>> = names
        .iter()
        .map(|n| {
            let mut p = Vec::with_capacity(n.len() * 2 + 2);
            marked(n, |b| p.push(b));
            p
        })
        .collect();
    // The automaton refuses only more states than a state id counts, beyond what a bus within
    // its size limit can name; were it to, each name is looked for on its own (slower, same answer).
    let Ok(nfa) = NFA::new(&patterns) else {
        return names.iter().map(|n| scan(lower, n)).collect();
    };
    let Ok(mut sid) = nfa.start_state(Anchored::No) else {
        return names.iter().map(|n| scan(lower, n)).collect();
    };
    let mut read: HashSet<usize> = HashSet::new();
    marked(lower, |b| {
        sid = nfa.next_state(Anchored::No, sid, b);
        if nfa.is_match(sid) && read.insert(sid.as_usize()) {
            for i in 0..nfa.match_len(sid) {
                found[nfa.match_pattern(sid, i).as_usize()] = true;
            }
        }
    });
    found
}

/// Headings of a Markdown text: (line index, level, lowercased title), fenced code skipped.
fn headings(lines: &[&str]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut fence = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        let hashes = t.bytes().take_while(|b| *b == b'#').count();
        if !fence && (1..=6).contains(&hashes) && t.get(hashes..).is_some_and(|r| r.starts_with(' ')) {
            out.push((i, hashes, t.get(hashes..).unwrap_or("").trim().trim_end_matches('#').trim().to_lowercase()));
        }
    }
    out
}

fn table_columns(row: &str) -> usize {
    let r = row.trim();
    let r = r.strip_prefix('|').unwrap_or(r);
    let r = r.strip_suffix('|').unwrap_or(r);
    r.split('|').count()
}

/// The widest pipe table (header followed by a `---` separator row) in `lines`.
fn widest_table(lines: &[&str]) -> usize {
    lines
        .windows(2)
        .filter(|w| {
            w[0].contains('|')
                && w[1].contains("---")
                && w[1].trim().chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
        })
        .map(|w| table_columns(w[0]))
        .max()
        .unwrap_or(0)
}

fn synthesis_structure(text: &str) -> (Vec<CheckResult>, Vec<CheckResult>) {
    let lines: Vec<&str> = text.lines().collect();
    let hs = headings(&lines);
    // "## Consensus" and "## Consensus (2 seats)" both name the section.
    let find = |name: &str| {
        hs.iter().position(|(_, _, t)| {
            t.strip_prefix(name).is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
        })
    };
    let mut s2 = Vec::new();
    for name in ["consensus", "disagreements"] {
        if find(name).is_none() {
            s2.push(on_file(&S2_SYNTHESIS_HEADINGS, "synthesis.md", format!("no {name} heading (any level)")));
        }
    }
    let s3 = match find("disagreements") {
        None => vec![CheckResult::new(
            &S3_DISAGREEMENT_TABLE,
            Outcome::CantTell,
            "synthesis.md",
            "no Disagreements section to look in",
        )],
        Some(k) => {
            let start = hs[k].0 + 1;
            let end = hs.iter().skip(k + 1).find(|h| h.1 <= hs[k].1).map_or(lines.len(), |h| h.0);
            let section = &lines[start..end];
            let cols = widest_table(section);
            let body = section.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
            if cols >= 4 {
                verdict(&S3_DISAGREEMENT_TABLE, Findings::default(), 1, "disagreement tables")
            } else if body.trim_end_matches('.').eq_ignore_ascii_case("none") {
                vec![on_file(&S3_DISAGREEMENT_TABLE, "synthesis.md", "the Disagreements section says only \"none\"")]
            } else {
                vec![on_file(
                    &S3_DISAGREEMENT_TABLE,
                    "synthesis.md",
                    format!("the Disagreements section has no pipe table of 4 or more columns (widest: {cols})"),
                )]
            }
        }
    };
    (s2, s3)
}

/// `#N`, `bus #N`, `log #N` citations.
fn citations(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices('#') {
        let before = text.get(..i).and_then(|s| s.chars().last());
        if before.is_some_and(|c| c.is_alphanumeric() || c == '#' || c == '&') {
            continue;
        }
        let digits: String = text.get(i + 1..).unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
        let after = text.get(i + 1 + digits.len()..).and_then(|s| s.chars().next());
        if !digits.is_empty() && !after.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
            out.push(digits.parse().unwrap_or(u64::MAX));
        }
    }
    out
}

fn synthesis(t: &Transcript<'_>) -> Vec<CheckResult> {
    let closed = t.task_phase == Phase::Closed;
    let mut out = Vec::new();
    let present = t.arena.synthesis.is_some();
    out.extend(match (closed, present) {
        (true, false) => {
            vec![on_file(&S1_SYNTHESIS_MISSING, "synthesis.md", "the phase is closed and there is no synthesis.md")]
        }
        (true, true) => verdict(&S1_SYNTHESIS_MISSING, Findings::default(), 1, "closed transcripts"),
        (false, _) => verdict(&S1_SYNTHESIS_MISSING, Findings::default(), 0, "closed transcript"),
    });
    out.extend(match (present, closed) {
        (true, false) => vec![on_file(
            &S6_SYNTHESIS_EARLY,
            "synthesis.md",
            format!("synthesis.md is present while the phase is {}", t.task_phase.as_str()),
        )],
        (true, true) => verdict(&S6_SYNTHESIS_EARLY, Findings::default(), 1, "syntheses"),
        (false, _) => verdict(&S6_SYNTHESIS_EARLY, Findings::default(), 0, "synthesis"),
    });
    let text = match &t.arena.synthesis {
        None => {
            for c in [&S2_SYNTHESIS_HEADINGS, &S3_DISAGREEMENT_TABLE, &S4_UNCONCEDED_NAMED, &S5_CITATIONS] {
                out.extend(verdict(c, Findings::default(), 0, "synthesis"));
            }
            return out;
        }
        Some(Err(e)) => {
            for c in [&S2_SYNTHESIS_HEADINGS, &S3_DISAGREEMENT_TABLE, &S4_UNCONCEDED_NAMED, &S5_CITATIONS] {
                out.push(CheckResult::new(c, Outcome::CantTell, "synthesis.md", format!("synthesis.md {e}")));
            }
            return out;
        }
        Some(Ok(b)) => String::from_utf8_lossy(b).into_owned(),
    };
    let (s2, s3) = synthesis_structure(&text);
    out.extend(verdict(&S2_SYNTHESIS_HEADINGS, s2.into_iter().collect(), 1, "syntheses"));
    out.extend(s3);
    let standing = standing_claimants(t);
    let lower = text.to_lowercase();
    let words = Words::of_seats(&lower, t);
    let s4 = standing
        .iter()
        .filter(|s| !words.names(s))
        .map(|s| {
            on_file(
                &S4_UNCONCEDED_NAMED,
                "synthesis.md",
                format!("seat {s:?} claimed, never conceded, and is not named"),
            )
            .with("seat", s.as_str())
        })
        .collect();
    out.extend(verdict(&S4_UNCONCEDED_NAMED, s4, standing.len(), "standing claimants"));
    let cites = citations(&text);
    let count = t.bus.tool_count as u64;
    let s5 = cites
        .iter()
        .filter(|n| **n == 0 || **n > count)
        .map(|n| on_file(&S5_CITATIONS, "synthesis.md", format!("cites bus #{n}, the tool counts {count} lines")))
        .collect();
    out.extend(verdict(&S5_CITATIONS, s5, cites.len(), "bus citations"));
    out
}

fn cursors(t: &Transcript<'_>) -> Vec<CheckResult> {
    let (mut i1, mut i2) = (Findings::default(), Findings::default());
    for (name, side) in &t.arena.seen {
        let file = format!(".seen/{name}");
        if side.is_ok() && !valid_seat(name) {
            i2.push(on_file(&I2_CURSOR_NAME, &file, format!("{name:?} is not a valid seat name")));
        }
        let bytes = match side {
            Ok(b) => b,
            Err(e) => {
                i1.push(CheckResult::new(&I1_CURSOR, Outcome::CantTell, file.clone(), format!("{file} {e}")));
                continue;
            }
        };
        let digits: String = String::from_utf8_lossy(bytes).chars().filter(char::is_ascii_digit).collect();
        let trimmed = digits.trim_start_matches('0');
        let count = t.bus.tool_count.to_string();
        let larger = trimmed.len() > count.len() || (trimmed.len() == count.len() && trimmed > count.as_str());
        if larger {
            i1.push(on_file(&I1_CURSOR, &file, format!("cursor {digits} is past the end of the bus ({count} lines the tool counts): truncated or rewritten")).with("cursor", digits.clone()));
        }
    }
    let n = t.arena.seen.len();
    let mut out = if i1.iter().all(|r| r.outcome == Outcome::CantTell) && !i1.is_empty() {
        i1.into_results(&I1_CURSOR)
    } else {
        verdict(&I1_CURSOR, i1, n, "cursors")
    };
    out.extend(verdict(&I2_CURSOR_NAME, i2, n, "cursor names"));
    out
}

fn regressions(t: &Transcript<'_>) -> Vec<CheckResult> {
    let mut failures = Findings::default();
    let mut prev: Option<(usize, i64)> = None;
    let mut pairs = 0;
    for (i, line) in t.bus.lines.iter().enumerate() {
        if t.replay.stages[i] == Stage::Revealed {
            continue;
        }
        let Some(at) = line.message().and_then(|m| m.ts()).and_then(parse_timestamp).map(|x| x.micros()) else {
            continue;
        };
        if let Some((p, before)) = prev {
            pairs += 1;
            if at < before {
                failures.push(on_line(
                    &I4_TS_REGRESSION,
                    line,
                    format!("ts is earlier than {}'s: backdating, clock skew or an edit", t.bus.lines[p].label()),
                ));
            }
        }
        prev = Some((i, at));
    }
    verdict(&I4_TS_REGRESSION, failures, pairs, "consecutive timestamps")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_tables_and_citations() {
        assert!(names("gpt's frame wins", "gpt") && !names("chatgpt", "gpt") && names("Alpha and beta", "alpha"));
        assert_eq!(table_columns("| claim | seats for | seats against | evidence |"), 4);
        assert_eq!(widest_table(&["claim | for | against | evidence", "---|---|---|---", "x | a | b | c"]), 4);
        let (s2, s3) = synthesis_structure("## Consensus (2 seats)\nok\n## Disagreements\nnone\n");
        assert!(s2.is_empty() && s3[0].outcome == Outcome::Failed);
        assert_eq!(citations("see bus #3, log #14 and #ghosts; &#39; C#2"), [3, 14]);
        assert!(names("gpt-4o, then o3.mini", "GPT-4o") && names("gpt-4o, then o3.mini", "o3.mini"));
        assert!(!names("gpt-4oo and xgpt-4o", "gpt-4o") && names("-x", "-x") && !names("a-x", "-x"));
        // An occurrence overlapping a rejected one still counts (a proptest case found in CI).
        assert!(scan("a... ", "..") && names("a... ", "..") && !scan("a..", ".."));
    }

    proptest::proptest! {
        /// The one-pass search answers as a scan of the text per name would, for every name at
        /// once, on texts and names over an alphabet that makes boundaries and overlaps common.
        #[test]
        fn one_pass_agrees_with_a_scan_per_name(
            text in "[ab_é .-]{0,40}",
            names in proptest::collection::vec("[ab_é.-]{1,5}", 0..8),
        ) {
            let names: Vec<String> = names.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
            let found = find_whole_words(&text, &names);
            for (n, f) in names.iter().zip(found) {
                proptest::prop_assert_eq!(f, scan(&text, n), "name {:?} in {:?}", n, text);
            }
        }
    }
}

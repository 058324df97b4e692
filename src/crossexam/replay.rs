//! Replaying the bus (format note §9): the phase each line was appended under, the reveal
//! blocks, the blind windows, and the phase `task.md` records.

use super::bus::{Bus, Content, Phase, PhaseNote, phase_note};

/// The phase in force when a line was appended, with revealed envelopes apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Appended during blind (outside a reveal block).
    Blind,
    /// A sealed claim written by the reveal, right before its note.
    Revealed,
    /// Appended during debate.
    Debate,
    /// Appended while closed.
    Closed,
}

impl Stage {
    /// The word the views write.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Stage::Blind => "blind",
            Stage::Revealed => "revealed",
            Stage::Debate => "debate",
            Stage::Closed => "closed",
        }
    }

    fn of(p: Phase) -> Stage {
        match p {
            Phase::Blind => Stage::Blind,
            Phase::Debate => Stage::Debate,
            Phase::Closed => Stage::Closed,
        }
    }
}

/// A reveal block: the lines before a `phase -> debate (N …)` note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    /// Index (into `Bus::lines`, the messages) of the note.
    pub note: usize,
    /// The count it announces.
    pub announced: u64,
    /// Indexes of the nearest parsed lines before it, at most `announced`, in bus order, back to
    /// the previous phase note at most (included).
    pub members: Vec<usize>,
}

/// A phase change the notes replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Transition {
    /// Index of the note.
    pub line: usize,
    /// Phase before it.
    pub from: Phase,
    /// Phase after it.
    pub to: Phase,
}

/// A blind window: from the start (or a `phase -> blind` note) to the next debate note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    /// Index of the opening note, `None` for the start of the bus.
    pub opened_by: Option<usize>,
    /// Index of the debate note that ends it, `None` while still open.
    pub closed_by: Option<usize>,
}

/// The replayed bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replay {
    /// The stage of each line (same indexes as `Bus::lines`).
    pub stages: Vec<Stage>,
    /// Reveal blocks in bus order.
    pub blocks: Vec<Block>,
    /// Phase changes (and repeats), in bus order.
    pub transitions: Vec<Transition>,
    /// Blind windows in order.
    pub windows: Vec<Window>,
    /// The window (index into `windows`) each line belongs to, for blind-stage lines.
    pub window_of: Vec<Option<usize>>,
    /// The phase reached after the last note.
    pub final_phase: Phase,
}

/// The well-formed phase note a line holds.
#[must_use]
pub(crate) fn note_of(content: &Content) -> Option<PhaseNote> {
    let Content::Message(m) = content else { return None };
    if m.kind() != "info" {
        return None;
    }
    phase_note(m.field("msg")?)?.ok()
}

/// Replays `bus` from blind (`cxam init` writes no note).
#[must_use]
pub(crate) fn replay(bus: &Bus) -> Replay {
    let mut blocks = Vec::new();
    // A block is the parsed lines just before its note, reaching back to the latest phase note
    // at most (the note itself, an info, then fails R1): found by walking back from the note,
    // so blocks do not overlap, a note announcing a huge count costs no more than the lines
    // since the last note, and no list of every parsed line is kept.
    let mut since = 0;
    for (i, line) in bus.lines.iter().enumerate() {
        let note = note_of(&line.content);
        if let Some(PhaseNote { phase: Phase::Debate, revealed: Some(n) }) = note {
            let want = usize::try_from(n).unwrap_or(usize::MAX);
            let mut members: Vec<usize> =
                (since..i).rev().filter(|&j| matches!(bus.lines[j].content, Content::Message(_))).take(want).collect();
            members.reverse();
            blocks.push(Block { note: i, announced: n, members });
        }
        if note.is_some() {
            since = i;
        }
    }
    let revealed: std::collections::BTreeSet<usize> = blocks
        .iter()
        .flat_map(|b| b.members.iter().copied())
        .filter(|j| bus.lines[*j].message().is_some_and(|m| m.kind() == "claim"))
        .collect();
    let mut phase = Phase::Blind;
    let mut stages = Vec::with_capacity(bus.lines.len());
    let mut transitions = Vec::new();
    let mut windows = vec![Window { opened_by: None, closed_by: None }];
    let mut window_of = Vec::with_capacity(bus.lines.len());
    for (i, line) in bus.lines.iter().enumerate() {
        let stage = if revealed.contains(&i) { Stage::Revealed } else { Stage::of(phase) };
        stages.push(stage);
        let open = windows.len() - 1;
        window_of.push((phase == Phase::Blind || stage == Stage::Revealed).then_some(open));
        if let Some(note) = note_of(&line.content) {
            transitions.push(Transition { line: i, from: phase, to: note.phase });
            if phase == Phase::Blind && note.phase != Phase::Blind {
                windows[open].closed_by = Some(i);
            }
            if note.phase == Phase::Blind && phase != Phase::Blind {
                windows.push(Window { opened_by: Some(i), closed_by: None });
            } else if note.phase == Phase::Blind && windows[open].opened_by.is_none() && i == 0 {
                windows[open].opened_by = Some(i);
            }
            phase = note.phase;
        }
    }
    Replay { stages, blocks, transitions, windows, window_of, final_phase: phase }
}

/// How the tool reads `task.md`'s phase (§3): the first line-start `status:`, any whitespace
/// (newlines included), then a run of non-whitespace; `None` when that word is no phase or
/// there is no match.
#[must_use]
pub(crate) fn task_marker(text: &str) -> Option<(Phase, String)> {
    // Universal newlines first, as the tool's text-mode read does.
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let space = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
    let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1));
    for start in starts {
        let Some(rest) = text.get(start..).and_then(|r| r.strip_prefix("status:")) else { continue };
        let rest = rest.trim_start_matches(space);
        let word: String = rest.chars().take_while(|c| !space(*c)).collect();
        if word.is_empty() {
            continue;
        }
        return Some((Phase::parse(&word)?, word));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_is_read_as_the_tool_reads_it() {
        assert_eq!(task_marker("# Task\nstatus: closed  # note\n").map(|m| m.0), Some(Phase::Closed));
        assert_eq!(task_marker("status:\n\ndebate\n").map(|m| m.0), Some(Phase::Debate));
        assert_eq!(task_marker("Status: debate\n"), None);
        assert_eq!(task_marker(" status: debate\n"), None);
        assert_eq!(task_marker("status: debate.\nstatus: closed\n"), None);
        assert_eq!(task_marker("x\nstatus: blind\nstatus: closed"), Some((Phase::Blind, "blind".into())));
    }

    #[test]
    fn a_reveal_block_precedes_its_note() {
        let bus = super::super::bus::parse(
            br#"{"ts": "1", "from": "a", "type": "claim", "msg": "x"}
{"ts": "1", "from": "b", "type": "claim", "msg": "y"}
{"ts": "2", "from": "moderator", "type": "info", "msg": "phase -> debate (1 sealed claim(s) revealed)"}
{"ts": "3", "from": "a", "type": "verify", "msg": "z"}
"#,
        );
        let r = replay(&bus);
        assert_eq!(r.stages, [Stage::Blind, Stage::Revealed, Stage::Blind, Stage::Debate]);
        assert_eq!(r.blocks[0].members, [1]);
        assert_eq!(r.final_phase, Phase::Debate);
        assert_eq!(r.windows[0].closed_by, Some(2));
    }

    #[test]
    fn a_reveal_block_reaches_back_to_the_latest_note_at_most() {
        let bus = super::super::bus::parse(
            br#"{"ts": "1", "from": "a", "type": "claim", "msg": "x"}
{"ts": "2", "from": "moderator", "type": "info", "msg": "phase -> debate (1 sealed claim(s) revealed)"}
not json
{"ts": "3", "from": "b", "type": "claim", "msg": "y"}

{"ts": "4", "from": "moderator", "type": "info", "msg": "phase -> debate (9 sealed claim(s) revealed)"}
"#,
        );
        let r = replay(&bus);
        assert_eq!(r.blocks[0].members, [0]);
        // Nine announced, two parsed lines since the first note (the note itself counts); the
        // indexes are into the messages (physical lines 6, 2 and 4).
        assert_eq!((r.blocks[1].note, r.blocks[1].announced, r.blocks[1].members.as_slice()), (3, 9, &[1, 2][..]));
    }
}

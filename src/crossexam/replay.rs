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

    pub(crate) fn of(p: Phase) -> Stage {
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
    /// The nearest parsed lines before it, at most `announced`, in bus order, back to the
    /// previous phase note at most (included).
    pub members: Vec<Member>,
}

impl Block {
    /// How many parsed lines the block holds.
    #[must_use]
    pub(crate) fn len(&self) -> usize {
        self.members.iter().map(|m| if let Member::Bare { count, .. } = m { *count } else { 1 }).sum()
    }
}

/// Parsed lines of a reveal block: a message, or bare objects of a run, which hold no kind,
/// seat or timestamp (so they are never revealed claims) and are counted, not listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Member {
    /// The message of this index in `Bus::lines`.
    Message(usize),
    /// The bare objects of `Bus::runs[run]` from its `first` (counted from 0) on, `count` of them
    /// (always the run's last ones).
    Bare {
        /// Index in `Bus::runs`.
        run: usize,
        /// The first one's number among the run's bare objects.
        first: usize,
        /// How many.
        count: usize,
    },
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

impl Replay {
    /// The phase in force over a run of `Bus::runs` whose `before` is `before` (a line that is
    /// no message, or a bare object, is never a revealed claim).
    #[must_use]
    pub(crate) fn phase_before(&self, before: usize) -> Phase {
        let notes = self.transitions.partition_point(|x| x.line < before);
        notes.checked_sub(1).map_or(Phase::Blind, |k| self.transitions[k].to)
    }
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
    // Bare objects are parsed lines too, kept in runs: a run lies before the message its
    // `before` names, so those with `before` in `since + 1..=i` lie between the two notes (and
    // before the first note, every run up to it).
    let mut since = None;
    for (i, line) in bus.lines.iter().enumerate() {
        let note = note_of(&line.content);
        if let Some(PhaseNote { phase: Phase::Debate, revealed: Some(n) }) = note {
            let mut want = usize::try_from(n).unwrap_or(usize::MAX);
            let mut members = Vec::new();
            let (mut j, mut r) = (i, bus.runs.partition_point(|run| run.before <= i));
            while want > 0 {
                if let Some(run) = r.checked_sub(1).map(|k| &bus.runs[k]).filter(|run| run.before == j)
                    && since.is_none_or(|s| j > s)
                {
                    r -= 1;
                    let count = run.bare.min(want);
                    if count > 0 {
                        members.push(Member::Bare { run: r, first: run.bare - count, count });
                        want -= count;
                    }
                } else if j > since.unwrap_or(0) {
                    j -= 1;
                    members.push(Member::Message(j));
                    want -= 1;
                } else {
                    break;
                }
            }
            members.reverse();
            blocks.push(Block { note: i, announced: n, members });
        }
        if note.is_some() {
            since = Some(i);
        }
    }
    let revealed: std::collections::BTreeSet<usize> = blocks
        .iter()
        .flat_map(|b| b.members.iter())
        .filter_map(|m| if let Member::Message(j) = m { Some(*j) } else { None })
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
        assert_eq!(r.blocks[0].members, [Member::Message(1)]);
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
        assert_eq!(r.blocks[0].members, [Member::Message(0)]);
        // Nine announced, two parsed lines since the first note (the note itself counts); the
        // indexes are into the messages (physical lines 6, 2 and 4).
        let members = [Member::Message(1), Member::Message(2)];
        assert_eq!((r.blocks[1].note, r.blocks[1].announced, r.blocks[1].members.as_slice()), (3, 9, &members[..]));
    }

    /// Bare objects are parsed lines of a reveal block, counted from their runs, back to the
    /// previous note at most (not before it) and, before the first note, from the bus's start.
    #[test]
    fn bare_objects_are_block_members() {
        let bus = super::super::bus::parse(
            br#"{}
{"x": 1}
{"ts": "1", "from": "a", "type": "claim", "msg": "x"}
{}

{"ts": 2}
{"ts": "2", "from": "moderator", "type": "info", "msg": "phase -> debate (3 sealed claim(s) revealed)"}
{}
{"ts": "3", "from": "moderator", "type": "info", "msg": "phase -> debate (5 sealed claim(s) revealed)"}
{}
{}
{"ts": "4", "from": "moderator", "type": "info", "msg": "phase -> debate (9 sealed claim(s) revealed)"}
"#,
        );
        assert_eq!((bus.lines.len(), bus.runs.len()), (4, 4));
        let r = replay(&bus);
        let bare = |run, first, count| Member::Bare { run, first, count };
        assert_eq!(r.blocks[0].members, [Member::Message(0), bare(1, 0, 2)]);
        assert_eq!(r.blocks[1].members, [Member::Message(1), bare(2, 0, 1)]);
        assert_eq!(r.blocks[2].members, [Member::Message(2), bare(3, 0, 2)]);
        assert_eq!(r.blocks.iter().map(Block::len).collect::<Vec<_>>(), [3, 2, 3]);
        let all = replay(&super::super::bus::parse(b"{}\n{}\n{\"ts\": \"2\", \"from\": \"m\", \"type\": \"info\", \"msg\": \"phase -> debate (9 sealed claim(s) revealed)\"}\n"));
        assert_eq!(all.blocks[0].members, [bare(0, 0, 2)]);
        assert_eq!(r.phase_before(0), Phase::Blind);
        assert_eq!(r.phase_before(2), Phase::Debate);
    }
}

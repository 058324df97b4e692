//! `bus.jsonl` as the tool reads it: physical `\n` lines, and in parallel the numbers the tool
//! gives them (Python's universal newlines, then `str.splitlines()`, format note §2.2).
//!
//! Pure functions of the bytes, so the fuzz target `crossexam_bus` runs exactly this.

use crate::json::{self, Value};

/// Characters `str.splitlines()` ends a line on besides LF (CR comes from universal newlines
/// when it is not followed by LF).
pub(crate) const SPLITLINES_EXTRA: [char; 9] =
    ['\r', '\u{0b}', '\u{0c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}', '\u{2029}'];

/// What a physical line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Empty or whitespace only: the tool skips it, but it uses up a number.
    Blank,
    /// Not UTF-8: the byte offset (in the file) of the first invalid byte.
    NotUtf8(usize),
    /// Not a JSON object ([`malformed_reason`] says why: the reason is not kept per line, so a
    /// bus of a million bad lines holds no million sentences).
    Malformed,
    /// A JSON object (boxed: most lines of a hostile bus are not messages, and a line's size is
    /// what the memory budget multiplies).
    Message(Box<Message>),
}

/// A JSON value's type, in one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true`/`false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    fn of(v: &Value) -> JsonType {
        match v {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Number(_) => JsonType::Number,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    /// The name [`Value::type_name`] gives it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// The keys whose values the rules read, in the order of [`Message::types`].
pub(crate) const FIELDS: [&str; 6] = ["ts", "from", "type", "msg", "ref", "via"];

/// One message object: its fields, each `Some` only when present as a string, and the JSON type
/// of each field present. The parsed tree itself is not kept: a line of deep nesting or of
/// thousands of keys would otherwise stay in memory at several times its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// How many keys the object has.
    pub keys: usize,
    /// For each of [`FIELDS`], the JSON type of its value when the key is present.
    pub types: [Option<JsonType>; 6],
    /// `ts`.
    pub ts: Option<Box<str>>,
    /// `from`.
    pub from: Option<Box<str>>,
    /// `type`.
    pub kind: Option<Box<str>>,
    /// `msg`.
    pub msg: Option<Box<str>>,
    /// `ref`.
    pub reference: Option<Box<str>>,
    /// `via`.
    pub via: Option<Box<str>>,
}

impl Message {
    /// Reads the fields of a parsed object.
    #[must_use]
    pub fn new(value: Value) -> Self {
        let field = |k: &str| value.get(k).and_then(Value::as_str).map(Box::from);
        Message {
            keys: value.as_object().map_or(0, |o| o.len()),
            types: FIELDS.map(|k| value.get(k).map(JsonType::of)),
            ts: field("ts"),
            from: field("from"),
            kind: field("type"),
            msg: field("msg"),
            reference: field("ref"),
            via: field("via"),
        }
    }

    /// The JSON type name of `key`'s value when present (`key` one of [`FIELDS`]).
    #[must_use]
    pub fn type_of(&self, key: &str) -> Option<&'static str> {
        FIELDS.iter().position(|k| *k == key).and_then(|i| self.types[i]).map(JsonType::name)
    }

    /// `type`, or `""` when absent.
    #[must_use]
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    /// `from`, or `""` when absent.
    #[must_use]
    pub fn from(&self) -> &str {
        self.from.as_deref().unwrap_or("")
    }
}

/// A set of [`SPLITLINES_EXTRA`] characters, one bit each: a line of a million control
/// characters keeps two bytes, not a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drift(u16);

impl Drift {
    /// Whether the line holds none.
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The characters, in the order of [`SPLITLINES_EXTRA`].
    pub fn iter(self) -> impl Iterator<Item = char> {
        SPLITLINES_EXTRA.into_iter().enumerate().filter(move |(k, _)| self.0 & (1 << k) != 0).map(|(_, c)| c)
    }
}

/// One physical line of the bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based physical (`\n`) line number.
    pub physical: usize,
    /// The tool's number of the line's first piece (what `cxam` prints as `#N`).
    pub tool: usize,
    /// How many pieces the tool splits this line into (1 unless it holds a splitlines
    /// character; 0 only for a last line ending in one without a final newline).
    pub pieces: usize,
    /// The line's text without its line end, when it is UTF-8.
    pub text: Option<Box<str>>,
    /// Whether the line ended in CRLF.
    pub crlf: bool,
    /// The distinct splitlines characters it holds besides its line end (`pieces` counts every
    /// occurrence).
    pub drift: Drift,
    /// What it holds.
    pub content: Content,
}

impl Line {
    /// The message, when the line is one.
    #[must_use]
    pub fn message(&self) -> Option<&Message> {
        match &self.content {
            Content::Message(m) => Some(m),
            _ => None,
        }
    }

    /// How results name the line: the tool's number, and the physical one when they differ.
    #[must_use]
    pub fn label(&self) -> String {
        if self.tool == self.physical {
            format!("bus #{}", self.tool)
        } else {
            format!("bus #{} (physical {})", self.tool, self.physical)
        }
    }
}

/// The bus as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bus {
    /// Physical lines, in order.
    pub lines: Vec<Line>,
    /// Lines the tool counts (its last `#N`, and the bound for cursors).
    pub tool_count: usize,
    /// Whether the file is empty or ends with `\n`.
    pub ends_with_newline: bool,
    /// Whether the file starts with a UTF-8 byte-order mark.
    pub bom: bool,
}

impl Bus {
    /// Whether the file mixes LF and CRLF line ends.
    #[must_use]
    pub fn mixed_line_ends(&self) -> bool {
        let crlf = self.lines.iter().filter(|l| l.crlf).count();
        let terminated = self.lines.len() - usize::from(!self.ends_with_newline);
        crlf > 0 && crlf < terminated
    }
}

/// Python's `str.isspace` for the blank-line test (`line.strip()` is empty).
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Splits and numbers `bytes` as the tool does, parsing each physical line strictly.
#[must_use]
pub(crate) fn parse(bytes: &[u8]) -> Bus {
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    let ends_with_newline = bytes.is_empty() || bytes.ends_with(b"\n");
    // Counted first and split lazily: a list of the pieces would cost a pointer pair per line.
    let count = bytes.iter().filter(|b| **b == b'\n').count() + usize::from(!ends_with_newline);
    let raw = bytes.split(|b| *b == b'\n').take(count);
    let mut lines = Vec::with_capacity(count);
    let mut tool = 1;
    let mut offset = 0;
    for (i, seg) in raw.into_iter().enumerate() {
        let start = offset;
        offset += seg.len() + 1;
        let last_unterminated = i + 1 == count && !ends_with_newline;
        // Only a CR before LF is a line end; a lone CR at the very end is a separator of its
        // own for the tool (universal newlines make it LF), so it stays in the text.
        let crlf = seg.ends_with(b"\r") && !last_unterminated;
        let body = if crlf { &seg[..seg.len() - 1] } else { seg };
        let line = match std::str::from_utf8(body) {
            Ok(text) => {
                let mut drift = Drift::default();
                let mut separators = 0;
                for c in text.chars() {
                    if let Some(k) = SPLITLINES_EXTRA.iter().position(|x| *x == c) {
                        separators += 1;
                        drift.0 |= 1 << k;
                    }
                }
                let trailing_sep = text.chars().last().is_some_and(|c| SPLITLINES_EXTRA.contains(&c));
                let pieces = separators + usize::from(!(last_unterminated && trailing_sep));
                let content = if text.chars().all(python_space) {
                    Content::Blank
                } else {
                    match json::parse(body) {
                        Ok(v @ Value::Object(_)) => Content::Message(Box::new(Message::new(v))),
                        Ok(_) | Err(_) => Content::Malformed,
                    }
                };
                Line { physical: i + 1, tool, pieces, text: Some(text.into()), crlf, drift, content }
            }
            Err(e) => Line {
                physical: i + 1,
                tool,
                pieces: 1,
                text: None,
                crlf,
                drift: Drift::default(),
                content: Content::NotUtf8(start + e.valid_up_to()),
            },
        };
        tool += line.pieces;
        lines.push(line);
    }
    Bus { tool_count: tool - 1, lines, ends_with_newline, bom }
}

/// Why a line that is not blank is no message: the strict parser's error, or the JSON type it
/// holds instead of an object. Computed when a finding is written, not kept per line.
#[must_use]
pub(crate) fn malformed_reason(text: &str) -> String {
    match json::parse(text.as_bytes()) {
        Ok(v) => format!("a JSON {}, not an object", v.type_name()),
        Err(e) => e.to_string(),
    }
}

/// Whether `text` is byte for byte what one of the tool's writers makes of `m` (format note
/// §2.1): `ts, from, type, msg[, ref]` or `ts, from, type, msg, via[, ref]`, `", "` and `": "`
/// separators, non-ASCII raw.
#[must_use]
pub(crate) fn tool_serialised(m: &Message, text: &str) -> bool {
    let (Some(ts), Some(from), Some(kind), Some(msg)) = (&m.ts, &m.from, &m.kind, &m.msg) else { return false };
    let mut keys = 4;
    let mut out = format!(
        "{{\"ts\": {}, \"from\": {}, \"type\": {}, \"msg\": {}",
        crate::json::quote(ts),
        crate::json::quote(from),
        crate::json::quote(kind),
        crate::json::quote(msg)
    );
    if m.type_of("via").is_some() {
        let Some(via) = &m.via else { return false };
        out.push_str(&format!(", \"via\": {}", crate::json::quote(via)));
        keys += 1;
    }
    if m.type_of("ref").is_some() {
        let Some(r) = &m.reference else { return false };
        // The tool leaves an empty ref out rather than writing it.
        if r.is_empty() {
            return false;
        }
        out.push_str(&format!(", \"ref\": {}", crate::json::quote(r)));
        keys += 1;
    }
    out.push('}');
    m.keys == keys && out == text
}

/// The seat-name rule the CLI enforces since 0.5.1: `^[A-Za-z0-9._-]{1,64}$`, not `.`/`..`.
#[must_use]
pub(crate) fn valid_seat(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && name != "."
        && name != ".."
}

/// A phase note as the tool writes it (§2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PhaseNote {
    /// The phase it moves to.
    pub phase: Phase,
    /// The reveal count of `phase -> debate (N sealed claim(s) revealed)`.
    pub revealed: Option<u64>,
}

/// The three phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Phase {
    /// Blind answers.
    Blind,
    /// Cross-examination.
    Debate,
    /// Over.
    Closed,
}

impl Phase {
    /// The word the tool writes.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Blind => "blind",
            Phase::Debate => "debate",
            Phase::Closed => "closed",
        }
    }

    /// Reads the word the tool writes.
    #[must_use]
    pub(crate) fn parse(word: &str) -> Option<Phase> {
        match word {
            "blind" => Some(Phase::Blind),
            "debate" => Some(Phase::Debate),
            "closed" => Some(Phase::Closed),
            _ => None,
        }
    }
}

/// The reading of an info `msg` that starts with `phase -> `: `Ok` for a note the tool
/// writes, `Err` for one it cannot write, `None` when `msg` is no phase note at all.
#[must_use]
pub(crate) fn phase_note(msg: &str) -> Option<Result<PhaseNote, String>> {
    let rest = msg.strip_prefix("phase -> ")?;
    if let Some(p) = Phase::parse(rest) {
        return Some(Ok(PhaseNote { phase: p, revealed: None }));
    }
    let Some((word, suffix)) = rest.split_once(' ') else {
        return Some(Err(format!("{rest:?} is not a phase")));
    };
    let Some(phase) = Phase::parse(word) else { return Some(Err(format!("{word:?} is not a phase"))) };
    let count = suffix.strip_prefix('(').and_then(|s| s.strip_suffix(" sealed claim(s) revealed)"));
    let n = count
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && (d.len() == 1 || !d.starts_with('0')))
        .and_then(|d| d.parse::<u64>().ok());
    match (phase, n) {
        (Phase::Debate, Some(n)) if n >= 1 => Some(Ok(PhaseNote { phase, revealed: Some(n) })),
        (Phase::Debate, Some(_)) => Some(Err("a reveal count of 0 (the tool writes no suffix then)".into())),
        (_, Some(_)) => {
            Some(Err(format!("a reveal suffix on a {word} note (only 0.5.0 wrote one; 0.5.1+ only on debate)")))
        }
        (_, None) => Some(Err(format!("unknown suffix {suffix:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_follows_splitlines() {
        let bus = parse(b"{\"a\": 1}\n{\"m\": \"x\xE2\x80\xA8y\"}\n\n{\"b\": 2}\r\n");
        let nums: Vec<(usize, usize)> = bus.lines.iter().map(|l| (l.physical, l.tool)).collect();
        assert_eq!(nums, [(1, 1), (2, 2), (3, 4), (4, 5)]);
        assert_eq!(bus.tool_count, 5);
        assert_eq!(bus.lines[1].drift.iter().collect::<Vec<_>>(), ['\u{2028}']);
        assert!(matches!(bus.lines[2].content, Content::Blank));
        assert!(bus.lines[3].crlf && bus.mixed_line_ends());
        // A trailing separator on an unterminated last line makes no empty piece.
        assert_eq!(parse("{}\u{2028}".as_bytes()).tool_count, 1);
        // A lone CR at the end is such a separator too (found by the property test).
        assert_eq!(parse("\u{2028}\r".as_bytes()).tool_count, 2);
        assert_eq!(parse(b"").tool_count, 0);
    }

    #[test]
    fn invalid_utf8_is_reported_not_replaced() {
        let bus = parse(b"{}\n{\"m\": \"\xff\"}\n");
        assert_eq!(bus.lines[1].content, Content::NotUtf8(10));
        assert!(bus.lines[1].text.is_none());
    }

    #[test]
    fn the_tools_serialisation_is_recognised() {
        let line = r#"{"ts": "2026-11-30T12:32:11+00:00", "from": "gpt", "type": "claim", "msg": "63 on site; é \"q\"\n", "ref": "analysis/gpt.md#ghosts"}"#;
        let bus = parse(line.as_bytes());
        let m = bus.lines[0].message().expect("message");
        assert!(tool_serialised(m, line));
        let hand = r#"{"ts":"2026-11-30T12:35:01+00:00","from":"rogue","type":"claim","ref":"a","msg":"9"}"#;
        let bus = parse(hand.as_bytes());
        assert!(!tool_serialised(bus.lines[0].message().expect("message"), hand));
    }

    #[test]
    fn phase_notes_have_one_shape() {
        assert_eq!(phase_note("phase -> closed"), Some(Ok(PhaseNote { phase: Phase::Closed, revealed: None })));
        assert_eq!(
            phase_note("phase -> debate (3 sealed claim(s) revealed)"),
            Some(Ok(PhaseNote { phase: Phase::Debate, revealed: Some(3) }))
        );
        assert!(matches!(phase_note("phase -> debate (0 sealed claim(s) revealed)"), Some(Err(_))));
        assert!(matches!(phase_note("phase -> closed (2 sealed claim(s) revealed)"), Some(Err(_))));
        assert!(matches!(phase_note("phase -> debating"), Some(Err(_))));
        assert_eq!(phase_note("phases are fun"), None);
        assert!(valid_seat("a-b.c_d") && !valid_seat("..") && !valid_seat("../x") && !valid_seat(""));
    }
}

//! `bus.jsonl` as the tool reads it: physical `\n` lines, and in parallel the numbers the tool
//! gives them (Python's universal newlines, then `str.splitlines()`, format note §2.2).
//!
//! Pure functions of the bytes, so the fuzz target `crossexam_bus` runs exactly this.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::json::{self, Value};

pub(crate) use super::phase::{Phase, PhaseNote, phase_note, valid_seat};
use super::serial::take_field;

/// Characters `str.splitlines()` ends a line on besides LF (CR comes from universal newlines
/// when it is not followed by LF).
pub(crate) const SPLITLINES_EXTRA: [char; 9] =
    ['\r', '\u{0b}', '\u{0c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}', '\u{2029}'];

/// What a physical line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content<'a> {
    /// Empty or whitespace only: the tool skips it, but it uses up a number.
    Blank,
    /// Not UTF-8: the byte offset (in the file) of the first invalid byte.
    NotUtf8(usize),
    /// Not a JSON object ([`malformed_reason`] says why: the reason is not kept per line, so a
    /// bus of a million bad lines holds no million sentences).
    Malformed,
    /// A JSON object (boxed: most lines of a hostile bus are not messages, and a line's size is
    /// what the memory budget multiplies).
    Message(Box<Message<'a>>),
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

/// One message object: the string values of [`FIELDS`] and the JSON type of each field
/// present. The parsed tree itself is not kept: a line of deep nesting or of thousands of keys
/// would otherwise stay in memory at several times its size. A string without escapes is a
/// span of the line's text, and the strings with escapes are decoded into one buffer: a bus
/// holds a message per line, and every byte of a message record is a fresh byte the kernel
/// zeroes (96 bytes a message, where six borrowed-or-owned strings took 160).
#[derive(Debug, Clone)]
pub struct Message<'a> {
    /// The line's text, which spans without [`Self::decoded_mask`]'s bit point into.
    text: &'a str,
    /// The strings that had escapes, decoded, one after the other (no allocation when none).
    decoded: Box<str>,
    /// Where the string value of each of [`FIELDS`] lies (meaningful when its type is string).
    spans: [Span; 6],
    /// How many keys the object has.
    pub keys: usize,
    /// For each of [`FIELDS`], the JSON type of its value when the key is present.
    pub types: [Option<JsonType>; 6],
    /// Bit `i`: the string of `FIELDS[i]` lies in [`Self::decoded`], not in the text.
    decoded_mask: u8,
}

/// A byte range with 32-bit ends: a bus is at most 64 MiB (`git::MAX_RECORD_BYTES`); a line
/// over 4 GiB, were one read, is refused as [`Content::Malformed`] ([`MAX_LINE`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u32,
}

/// The longest line whose message spans can name.
pub(crate) const MAX_LINE: usize = u32::MAX as usize;

impl Span {
    fn of(start: usize, len: usize) -> Option<Span> {
        Some(Span { start: u32::try_from(start).ok()?, len: u32::try_from(len).ok()? })
    }
}

/// Two messages are equal when they hold the same keys, types and strings, wherever the
/// strings lie (the fuzz target compares a line's message with the whole parse's).
impl PartialEq for Message<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys
            && self.types == other.types
            && (0..FIELDS.len()).all(|i| self.string(i) == other.string(i))
    }
}

impl Eq for Message<'_> {}

const TS: usize = 0;
const FROM: usize = 1;
const KIND: usize = 2;

impl<'a> Message<'a> {
    /// Reads the fields of a parsed object (`None` only when its strings hold over 4 GiB).
    #[must_use]
    pub fn new(value: Value) -> Option<Self> {
        let keys = value.as_object().map_or(0, |o| o.len());
        let types = FIELDS.map(|k| value.get(k).map(JsonType::of));
        let strings = FIELDS.map(|k| value.get(k).and_then(Value::as_str).map(|s| Cow::Owned(s.to_owned())));
        Self::build("", keys, types, strings)
    }

    /// What [`json::parse_fields`] kept of `text`'s object for [`FIELDS`]: [`Message::new`] of
    /// the same object, without the object's map (`None` only for a line over [`MAX_LINE`]:
    /// decoding never lengthens a string, so every span of a shorter line fits).
    pub(crate) fn from_fields(text: &'a str, fields: json::Fields<'a, 6>) -> Option<Self> {
        let types = std::array::from_fn(|i| {
            fields.values[i].as_ref().map(|f| match f {
                json::Field::Str(_) => JsonType::String,
                json::Field::Other(v) => JsonType::of(v),
            })
        });
        let strings = fields.values.map(|v| match v {
            Some(json::Field::Str(s)) => Some(s),
            _ => None,
        });
        Self::build(text, fields.keys, types, strings)
    }

    fn build(
        text: &'a str,
        keys: usize,
        types: [Option<JsonType>; 6],
        strings: [Option<Cow<'a, str>>; 6],
    ) -> Option<Self> {
        let mut spans = [Span::default(); 6];
        let mut decoded = String::new();
        let mut decoded_mask = 0;
        for (i, s) in strings.iter().enumerate() {
            let Some(s) = s else { continue };
            // A borrowed string is a slice of `text` (the parser's input): its offset is
            // where it lies, and the pointer comparison keeps that a checked fact.
            let offset = (s.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
            let borrowed = match s {
                Cow::Borrowed(b)
                    if text.get(offset..offset.wrapping_add(b.len())).is_some_and(|t| std::ptr::eq(t, *b)) =>
                {
                    Span::of(offset, b.len())
                }
                _ => None,
            };
            spans[i] = match borrowed {
                Some(span) => span,
                None => {
                    decoded_mask |= 1 << i;
                    let span = Span::of(decoded.len(), s.len())?;
                    decoded.push_str(s);
                    span
                }
            };
        }
        Some(Message { text, decoded: decoded.into_boxed_str(), spans, keys, types, decoded_mask })
    }

    /// The value of `FIELDS[i]` when it is a string.
    #[inline]
    fn string(&self, i: usize) -> Option<&str> {
        if self.types[i] != Some(JsonType::String) {
            return None;
        }
        let Span { start, len } = self.spans[i];
        let from = if self.decoded_mask & (1 << i) != 0 { &*self.decoded } else { self.text };
        from.get(start as usize..start as usize + len as usize)
    }

    /// The value of `key` (one of [`FIELDS`]) when it is a string.
    #[must_use]
    #[inline]
    pub fn field(&self, key: &str) -> Option<&str> {
        FIELDS.iter().position(|k| *k == key).and_then(|i| self.string(i))
    }

    /// `ts` when it is a string.
    #[must_use]
    pub fn ts(&self) -> Option<&str> {
        self.string(TS)
    }

    /// `from` when it is a string.
    #[must_use]
    pub fn sender(&self) -> Option<&str> {
        self.string(FROM)
    }

    /// The JSON type name of `key`'s value when present (`key` one of [`FIELDS`]).
    #[must_use]
    #[inline]
    pub fn type_of(&self, key: &str) -> Option<&'static str> {
        FIELDS.iter().position(|k| *k == key).and_then(|i| self.types[i]).map(JsonType::name)
    }

    /// Whether no field the rules read holds a string (`{}`, `{"x": 1}`, `{"ts": 1}`): then
    /// `kind` and `from` are `""`, `ts`, `msg`, `ref` and `via` absent, and the line is a
    /// message to the rules only as a CX-F5 and CX-F11 failure, a blind or closed line, and a
    /// reveal block's parsed line. Such lines cost a run's counter, not a record each
    /// (specs/crossexam.md, "Blank and malformed lines").
    #[must_use]
    pub fn is_bare(&self) -> bool {
        self.types.iter().all(|t| *t != Some(JsonType::String))
    }

    /// `type`, or `""` when absent.
    #[must_use]
    pub fn kind(&self) -> &str {
        self.string(KIND).unwrap_or("")
    }

    /// `from`, or `""` when absent.
    #[must_use]
    pub fn from(&self) -> &str {
        self.string(FROM).unwrap_or("")
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
pub struct Line<'a> {
    /// 1-based physical (`\n`) line number.
    pub physical: usize,
    /// The tool's number of the line's first piece (what `cxam` prints as `#N`).
    pub tool: usize,
    /// How many pieces the tool splits this line into (1 unless it holds a splitlines
    /// character; 0 only for a last line ending in one without a final newline).
    pub pieces: usize,
    /// The line's text without its line end, when it is UTF-8 (borrowed from the bus bytes).
    pub text: Option<&'a str>,
    /// Whether the line is a message written byte for byte as the tool writes it
    /// ([`tool_serialised`], rule F11).
    pub tool_form: bool,
    /// Whether the line ended in CRLF.
    pub crlf: bool,
    /// The distinct splitlines characters it holds besides its line end (`pieces` counts every
    /// occurrence).
    pub drift: Drift,
    /// What it holds.
    pub content: Content<'a>,
}

impl<'a> Line<'a> {
    /// The message, when the line is one.
    #[must_use]
    pub fn message(&self) -> Option<&Message<'a>> {
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

/// Consecutive lines that are no message: blank, malformed, not UTF-8 or a bare object
/// ([`Message::is_bare`]), in any mix. Most lines
/// of a hostile bus are such lines, one or two bytes each, and a record per line (64 bytes, and
/// its replay's 17) was 85 bytes per input byte; a run is a fixed size, with the counts the
/// rules need, and a line of it is read again from the run's bytes only when a finding or a
/// view names it ([`Run::lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run<'a> {
    /// The lines, each with its line end (the last one without, at an unterminated end).
    bytes: &'a [u8],
    /// Where `bytes` starts in the bus.
    offset: usize,
    /// Physical number of the first line.
    pub physical: usize,
    /// Tool number of the first line.
    pub tool: usize,
    /// How many lines.
    pub count: usize,
    /// The tool's numbers they use up (their [`Line::pieces`]).
    pub pieces: usize,
    /// Index in [`Bus::lines`] of the message after the run (the number of messages if none).
    pub before: usize,
    /// Lines that are blank.
    pub blank: usize,
    /// Lines that are malformed.
    pub malformed: usize,
    /// Lines that are bare objects ([`Message::is_bare`]).
    pub bare: usize,
    /// Lines that end in CRLF.
    pub crlf: usize,
    /// Lines holding splitlines characters.
    pub drifting: usize,
}

impl<'a> Run<'a> {
    /// Lines that are not UTF-8.
    #[must_use]
    pub fn not_utf8(&self) -> usize {
        self.count - self.blank - self.malformed - self.bare
    }

    /// The lines, each as [`parse`] read it.
    pub fn lines(self) -> impl Iterator<Item = Line<'a>> {
        let (mut at, mut physical, mut tool) = (0, self.physical, self.tool);
        let unterminated = !self.bytes.ends_with(b"\n");
        (0..self.count).map(move |k| {
            let rest = self.bytes.get(at..).unwrap_or_default();
            let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            let last_unterminated = unterminated && k + 1 == self.count;
            let mut line = read_line(&rest[..len], self.offset + at, last_unterminated, physical, tool);
            // A line of a run that is neither blank nor undecodable is malformed or a bare
            // object: only a run that holds bare objects needs the parse that tells them apart.
            if let (true, Some(text), Content::Malformed) = (self.bare > 0, line.text, &line.content) {
                line.content = object(text);
            }
            at += len + 1;
            physical += 1;
            tool += line.pieces;
            line
        })
    }

    /// Adds `line`, which follows the run, to it: a bare object when `bare` (its content left
    /// `Malformed`, unbuilt).
    fn add(&mut self, line: &Line<'_>, bare: bool, through: &'a [u8]) {
        self.bytes = through;
        self.count += 1;
        self.pieces += line.pieces;
        self.blank += usize::from(matches!(line.content, Content::Blank));
        self.malformed += usize::from(matches!(line.content, Content::Malformed) && !bare);
        self.bare += usize::from(bare);
        self.crlf += usize::from(line.crlf);
        self.drifting += usize::from(!line.drift.is_empty());
    }
}

/// The messages of a bus, as the lists its parts were read into: joining them into one list
/// would hold both at the copy's peak (64 bytes a message, 21 per byte of a bus of `{}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lines<'a> {
    parts: Vec<Vec<Line<'a>>>,
    /// Index of each part's first line.
    starts: Vec<usize>,
    len: usize,
}

impl<'a> Lines<'a> {
    /// How many.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// In bus order.
    pub fn iter(&self) -> std::iter::Flatten<std::slice::Iter<'_, Vec<Line<'a>>>> {
        self.parts.iter().flatten()
    }

    /// Line `i`.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&Line<'a>> {
        let part = self.starts.partition_point(|s| *s <= i).checked_sub(1)?;
        self.parts.get(part)?.get(i - self.starts[part])
    }

    fn push_part(&mut self, part: Vec<Line<'a>>) {
        if !part.is_empty() {
            self.starts.push(self.len);
            self.len += part.len();
            self.parts.push(part);
        }
    }
}

impl<'a> std::ops::Index<usize> for Lines<'a> {
    type Output = Line<'a>;

    fn index(&self, i: usize) -> &Line<'a> {
        match self.get(i) {
            Some(line) => line,
            None => panic!("message {i} of {}", self.len),
        }
    }
}

impl<'b, 'a> IntoIterator for &'b Lines<'a> {
    type Item = &'b Line<'a>;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'b, Vec<Line<'a>>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A message or a run, in bus order ([`Bus::entries`]).
#[derive(Debug, Clone, Copy)]
pub enum Entry<'b, 'a> {
    /// A message, and its index in [`Bus::lines`].
    Line(usize, &'b Line<'a>),
    /// Lines that are no message.
    Run(&'b Run<'a>),
}

/// The bus as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bus<'a> {
    /// The messages, in order (the rules' indexes are into this list).
    pub lines: Lines<'a>,
    /// Every other line, in order, in runs.
    pub runs: Vec<Run<'a>>,
    /// Physical lines.
    pub physical: usize,
    /// Lines the tool counts (its last `#N`, and the bound for cursors).
    pub tool_count: usize,
    /// Whether the file is empty or ends with `\n`.
    pub ends_with_newline: bool,
    /// Whether the file starts with a UTF-8 byte-order mark.
    pub bom: bool,
}

impl<'a> Bus<'a> {
    /// Whether the file mixes LF and CRLF line ends.
    #[must_use]
    pub fn mixed_line_ends(&self) -> bool {
        let crlf = self.lines.iter().filter(|l| l.crlf).count() + self.runs.iter().map(|r| r.crlf).sum::<usize>();
        let terminated = self.physical - usize::from(!self.ends_with_newline);
        crlf > 0 && crlf < terminated
    }

    /// The messages and the runs, in bus order.
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_, 'a>> {
        let mut lines = self.lines.iter().enumerate().peekable();
        let mut runs = self.runs.iter().peekable();
        std::iter::from_fn(move || match (lines.peek(), runs.peek()) {
            (Some((i, _)), Some(r)) if r.before <= *i => runs.next().map(Entry::Run),
            (Some(_), _) => lines.next().map(|(i, l)| Entry::Line(i, l)),
            (None, _) => runs.next().map(Entry::Run),
        })
    }

    /// Every physical line, in order (the lines of runs rebuilt, so for the few a finding names,
    /// the fuzz target and tests).
    pub fn every_line(&self) -> impl Iterator<Item = Cow<'_, Line<'a>>> {
        self.entries().flat_map(|e| {
            let (line, run) = match e {
                Entry::Line(_, l) => (Some(Cow::Borrowed(l)), None),
                Entry::Run(r) => (None, Some(r.lines().map(Cow::Owned))),
            };
            line.into_iter().chain(run.into_iter().flatten())
        })
    }
}

/// Python's `str.isspace` for the blank-line test (`line.strip()` is empty).
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Bytes of bus a thread reads at a time, up to the next line end: a few hundred microseconds
/// of work, so that small buses are split too and the split costs nothing measurable.
const PART_BYTES: usize = 32 << 10;

/// Splits and numbers `bytes` as the tool does, parsing each physical line strictly.
#[must_use]
pub(crate) fn parse(bytes: &[u8]) -> Bus<'_> {
    parse_in_parts(bytes, PART_BYTES)
}

/// [`parse`], reading parts of `part_bytes` and up to the next line end (tests use tiny parts).
fn parse_in_parts(bytes: &[u8], part_bytes: usize) -> Bus<'_> {
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    let ends_with_newline = bytes.is_empty() || bytes.ends_with(b"\n");
    // Each part ends at a line end and is read on its own, on every core (the objects and their
    // allocations were half of a replay); where parts end depends on the bytes alone, and runs
    // cut by a part's end are joined again, so the bus is the same for any number of threads.
    let mut cuts = vec![0];
    let mut at = 0;
    while at < bytes.len() {
        at = match bytes.get(at + part_bytes..).and_then(|r| memchr::memchr(b'\n', r)) {
            Some(i) => at + part_bytes + i + 1,
            None => bytes.len(),
        };
        cuts.push(at);
    }
    let parts: Vec<Part<'_>> = cuts.par_windows(2).map(|w| read_part(bytes, w[0], w[1])).collect();
    let mut bus = Bus { ends_with_newline, bom, ..Bus::default() };
    for mut part in parts {
        for line in &mut part.lines {
            line.physical += bus.physical;
            line.tool += bus.tool_count;
        }
        for mut run in part.runs {
            run.physical += bus.physical;
            run.tool += bus.tool_count;
            run.before += bus.lines.len();
            match bus.runs.last_mut() {
                Some(prev) if prev.before == run.before => {
                    prev.bytes = &bytes[prev.offset..run.offset + run.bytes.len()];
                    prev.count += run.count;
                    prev.pieces += run.pieces;
                    prev.blank += run.blank;
                    prev.malformed += run.malformed;
                    prev.bare += run.bare;
                    prev.crlf += run.crlf;
                    prev.drifting += run.drifting;
                }
                _ => bus.runs.push(run),
            }
        }
        bus.physical += part.physical;
        bus.tool_count += part.tools;
        bus.lines.push_part(part.lines);
    }
    bus.runs.shrink_to_fit();
    bus
}

/// A part of the bus as read, numbered from 1.
struct Part<'a> {
    lines: Vec<Line<'a>>,
    runs: Vec<Run<'a>>,
    physical: usize,
    tools: usize,
}

impl<'a> Part<'a> {
    /// The run the line after the last one read, at byte `cut`, goes into: the last run when no
    /// message came since, else a new one.
    fn run_at(&mut self, cut: usize) -> &mut Run<'a> {
        if self.runs.last().is_none_or(|r| r.before != self.lines.len()) {
            self.runs.push(Run {
                bytes: &[],
                offset: cut,
                physical: self.physical + 1,
                tool: self.tools + 1,
                count: 0,
                pieces: 0,
                before: self.lines.len(),
                blank: 0,
                malformed: 0,
                bare: 0,
                crlf: 0,
                drifting: 0,
            });
        }
        let last = self.runs.len() - 1;
        &mut self.runs[last]
    }
}

/// Reads `bytes[start..end]`, whole lines: a message is a record, every other line goes into
/// the run it continues, or starts one.
fn read_part(bytes: &[u8], start: usize, end: usize) -> Part<'_> {
    let mut part = Part { lines: Vec::new(), runs: Vec::new(), physical: 0, tools: 0 };
    // Parts end after a line end, but for the last one of a bus without a final newline.
    let unterminated = !bytes[..end].ends_with(b"\n");
    let mut cut = start;
    while cut < end {
        // Empty lines, the cheapest a hostile bus can hold, are counted a stretch at a time.
        let empty = bytes[cut..end].iter().take_while(|b| **b == b'\n').count();
        if empty > 0 {
            let run = part.run_at(cut);
            run.bytes = &bytes[run.offset..cut + empty];
            run.count += empty;
            run.pieces += empty;
            run.blank += empty;
            part.physical += empty;
            part.tools += empty;
            cut += empty;
            continue;
        }
        let line_end = memchr::memchr(b'\n', &bytes[cut..end]).map_or(end, |i| cut + i);
        let last_unterminated = unterminated && line_end == end;
        let mut line = read_line(&bytes[cut..line_end], cut, last_unterminated, part.physical + 1, part.tools + 1);
        let mut bare = false;
        // An empty object (`{}`, JSON whitespace inside) is bare without a parse: the cheapest
        // object a hostile bus can repeat, three bytes a line.
        let empty_object = |t: &str| {
            let inner = t.trim_matches([' ', '\t', '\r']);
            inner.len() >= 2
                && inner.starts_with('{')
                && inner.ends_with('}')
                && inner[1..inner.len() - 1].bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
        };
        if let (Some(text), Content::Malformed) = (line.text, &line.content)
            && empty_object(text)
        {
            bare = true;
        } else if let (Some(text), Content::Malformed) = (line.text, &line.content)
            && let Some(m) = message_of(text)
        {
            // A bare object is never in the tool's form (its fields are strings).
            bare = m.is_bare();
            if !bare {
                line.tool_form = tool_serialised(&m, text);
                line.content = Content::Message(Box::new(m));
            }
        }
        if line.message().is_some() {
            part.physical += 1;
            part.tools += line.pieces;
            part.lines.push(line);
        } else {
            let run = part.run_at(cut);
            run.add(&line, bare, &bytes[run.offset..(line_end + 1).min(end)]);
            part.physical += 1;
            part.tools += line.pieces;
        }
        cut = line_end + 1;
    }
    part.lines.shrink_to_fit();
    part.runs.shrink_to_fit();
    part
}

/// The physical line `seg` (without its `\n`), which starts at byte `start` of the bus, read
/// on its own: `Blank`, `NotUtf8`, or `Malformed` for any other (before [`object`] reads it).
fn read_line(seg: &[u8], start: usize, last_unterminated: bool, physical: usize, tool: usize) -> Line<'_> {
    // Only a CR before LF is a line end; a lone CR at the very end is a separator of its own
    // for the tool (universal newlines make it LF), so it stays in the text.
    let crlf = seg.ends_with(b"\r") && !last_unterminated;
    let body = if crlf { &seg[..seg.len() - 1] } else { seg };
    match std::str::from_utf8(body) {
        Ok(text) => {
            let (drift, separators) = drift_of(body, text);
            let trailing_sep = text.chars().last().is_some_and(|c| SPLITLINES_EXTRA.contains(&c));
            let pieces = separators + usize::from(!(last_unterminated && trailing_sep));
            let content = if text.chars().all(python_space) { Content::Blank } else { Content::Malformed };
            Line { physical, tool, pieces, text: Some(text), tool_form: false, crlf, drift, content }
        }
        Err(e) => Line {
            physical,
            tool,
            pieces: 1,
            text: None,
            tool_form: false,
            crlf,
            drift: Drift::default(),
            content: Content::NotUtf8(start + e.valid_up_to()),
        },
    }
}

/// The splitlines characters of a line (`body` is `text`'s bytes), and how many it holds.
fn drift_of(body: &[u8], text: &str) -> (Drift, usize) {
    let mut drift = Drift::default();
    let mut separators = 0;
    // Every separator is a C0 control or starts with byte C2 (U+0085) or E2 (U+2028/9): a line
    // with none of these bytes, nearly every line, holds none. Without a short cut, so that the
    // scan runs on whole vector registers.
    if body.iter().fold(false, |any, &b| any | (b < 0x20) | (b == 0xC2) | (b == 0xE2)) {
        for c in text.chars() {
            if let Some(k) = SPLITLINES_EXTRA.iter().position(|x| *x == c) {
                separators += 1;
                drift.0 |= 1 << k;
            }
        }
    }
    (drift, separators)
}

/// A line's content when it is UTF-8 and not blank: a message, or malformed.
fn object(text: &str) -> Content<'_> {
    message_of(text).map_or(Content::Malformed, |m| Content::Message(Box::new(m)))
}

/// [`object`], unboxed: a bare object then costs no allocation (it is a run's counter).
fn message_of(text: &str) -> Option<Message<'_>> {
    // An object's text starts with `{` and ends with `}`, JSON whitespace aside: a line that does
    // not is malformed without a parse (its reason is the parser's, recomputed when listed).
    let inner = text.trim_matches([' ', '\t', '\n', '\r']);
    if text.len() > MAX_LINE || !inner.starts_with('{') || !inner.ends_with('}') {
        return None;
    }
    json::parse_fields(text, &FIELDS).ok().flatten().and_then(|f| Message::from_fields(text, f))
}

/// Why a line that is not blank is no message: the strict parser's error, or the JSON type it
/// holds instead of an object. Computed when a finding is written, not kept per line.
#[must_use]
pub(crate) fn malformed_reason(text: &str) -> String {
    if text.len() > MAX_LINE {
        return "a line over 4 GiB".to_owned();
    }
    match json::parse(text.as_bytes()) {
        Ok(v) => format!("a JSON {}, not an object", v.type_name()),
        Err(e) => e.to_string(),
    }
}

/// Whether `text` is byte for byte what one of the tool's writers makes of `m` (format note
/// §2.1): `ts, from, type, msg[, ref]` or `ts, from, type, msg, via[, ref]`, `", "` and `": "`
/// separators, non-ASCII raw.
#[must_use]
pub(crate) fn tool_serialised(m: &Message<'_>, text: &str) -> bool {
    let (Some(ts), Some(from), Some(kind), Some(msg)) = (m.ts(), m.sender(), m.field("type"), m.field("msg")) else {
        return false;
    };
    // Compared piece by piece where the line lies: a line per message, so no copy of it.
    let mut rest = text;
    let mut keys = 4;
    let head = [("{\"ts\": ", ts), (", \"from\": ", from), (", \"type\": ", kind), (", \"msg\": ", msg)];
    if !head.iter().all(|(key, value)| take_field(&mut rest, key, value)) {
        return false;
    }
    if m.type_of("via").is_some() {
        let Some(via) = m.field("via") else { return false };
        if !take_field(&mut rest, ", \"via\": ", via) {
            return false;
        }
        keys += 1;
    }
    if m.type_of("ref").is_some() {
        let Some(r) = m.field("ref") else { return false };
        // The tool leaves an empty ref out rather than writing it.
        if r.is_empty() || !take_field(&mut rest, ", \"ref\": ", r) {
            return false;
        }
        keys += 1;
    }
    m.keys == keys && rest == "}"
}

#[cfg(test)]
mod tests;

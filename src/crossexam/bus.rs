//! `bus.jsonl` as the tool reads it: physical `\n` lines, and in parallel the numbers the tool
//! gives them (Python's universal newlines, then `str.splitlines()`, format note §2.2).
//!
//! Pure functions of the bytes, so the fuzz target `crossexam_bus` runs exactly this.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::json::{self, Value};

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

/// Strips `key` and then `value` as [`crate::json::quote`] writes it from the front of `rest`.
fn take_field(rest: &mut &str, key: &str, value: &str) -> bool {
    let Some(after_key) = rest.strip_prefix(key) else { return false };
    if let Some(open) = after_key.strip_prefix('"')
        && std::ptr::eq(open.as_ptr(), value.as_ptr())
    {
        // The value was borrowed from this very place of the line, so it is a run without
        // quote, backslash or control character that a quote ends: its quoted form is there.
        return match open.get(value.len()..).and_then(|r| r.strip_prefix('"')) {
            Some(r) => {
                *rest = r;
                true
            }
            None => false,
        };
    }
    // Most values need no escape: then the quoted form is the value between quotes. A fold
    // without a short cut, so that the test runs on whole vector registers.
    let plain = value.bytes().fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
    let after = if plain {
        after_key.strip_prefix('"').and_then(|r| r.strip_prefix(value)).and_then(|r| r.strip_prefix('"'))
    } else {
        after_key.strip_prefix(crate::json::quote(value).as_str())
    };
    match after {
        Some(r) => {
            *rest = r;
            true
        }
        None => false,
    }
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

    /// Every physical line, rebuilt, in order.
    fn all<'a>(bus: &Bus<'a>) -> Vec<Line<'a>> {
        bus.every_line().map(Cow::into_owned).collect()
    }

    #[test]
    fn numbering_follows_splitlines() {
        let bus = parse(b"{\"ts\": \"1\"}\n{\"msg\": \"x\xE2\x80\xA8y\"}\n\n{\"ts\": \"2\"}\r\n");
        let nums: Vec<(usize, usize)> = all(&bus).iter().map(|l| (l.physical, l.tool)).collect();
        assert_eq!(nums, [(1, 1), (2, 2), (3, 4), (4, 5)]);
        assert_eq!((bus.tool_count, bus.physical, bus.lines.len(), bus.runs.len()), (5, 4, 3, 1));
        assert_eq!(bus.lines[1].drift.iter().collect::<Vec<_>>(), ['\u{2028}']);
        assert!(matches!(bus.every_line().nth(2).map(|l| l.content.clone()), Some(Content::Blank)));
        assert!(bus.lines[2].crlf && bus.mixed_line_ends());
        // A trailing separator on an unterminated last line makes no empty piece.
        assert_eq!(parse("{}\u{2028}".as_bytes()).tool_count, 1);
        // A lone CR at the end is such a separator too (found by the property test).
        assert_eq!(parse("\u{2028}\r".as_bytes()).tool_count, 2);
        assert_eq!(parse(b"").tool_count, 0);
    }

    /// A bus holds a line record and a message per message, and a run between two messages:
    /// their sizes are what a replay's fresh memory, and so much of its time, grows with.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn records_stay_small() {
        assert_eq!(std::mem::size_of::<Message<'_>>(), 96);
        assert_eq!(std::mem::size_of::<Line<'_>>(), 64);
        assert_eq!(std::mem::size_of::<Run<'_>>(), 104);
    }

    #[test]
    fn strings_are_spans_of_the_line_or_decoded() {
        let text = r#"{"ts": "t", "from": "a\u0062", "msg": "x\"y", "via": 1}"#;
        let bus = parse(text.as_bytes());
        let m = bus.lines[0].message().expect("message");
        assert_eq!((m.ts(), m.sender(), m.field("msg"), m.field("via")), (Some("t"), Some("ab"), Some("x\"y"), None));
        assert_eq!(m.decoded_mask, 0b1010, "from and msg decoded, ts a span");
        assert_eq!(Some(m), Message::new(json::parse(text.as_bytes()).expect("parses")).as_ref());
    }

    /// Lines are read on every core: the bus is the same for one thread and for four, on a bus
    /// long enough to be split (every kind of line, mixed); `judge`'s tests and
    /// `tests/it/determinism.rs` compare the reports.
    #[test]
    fn the_bus_is_the_same_for_any_number_of_threads() {
        let kinds: [&[u8]; 8] = [
            br#"{"ts": "2026-11-30T12:00:00+00:00", "from": "a", "type": "claim", "msg": "x"}"#,
            br#"{"ts": "2026-11-30T12:00:01+00:00", "from": "b\u0062", "type": "verify", "msg": "q \"y\"", "ref": "r"}"#,
            b"",
            b"not json",
            b"{\"m\": \"\xff\"}",
            "{\"msg\": \"a\u{2028}b\"}\r".as_bytes(),
            br#"{"ts": "1", "ts": "2"}"#,
            br#"{"from": "moderator", "type": "info", "msg": "phase -> debate (3 sealed claim(s) revealed)"}"#,
        ];
        let mut bytes = Vec::new();
        let mut i = 0;
        while bytes.len() < 5 * PART_BYTES {
            // Not periodic in the split: lengths and kinds drift with `i`.
            bytes.extend_from_slice(kinds[(i * 7 + i / 13) % kinds.len()]);
            bytes.push(b'\n');
            i += 1;
        }
        let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("pool");
        let one = pool(1).install(|| parse(&bytes));
        let four = pool(4).install(|| parse(&bytes));
        assert_eq!(one, four);
        assert_eq!(all(&one), reference(&bytes));
        assert!(one.lines.len() > 1000 && one.lines.parts.len() > 4);
    }

    /// The bus as one record per line, the way `parse` read it before runs: what
    /// [`Bus::every_line`] must rebuild.
    fn reference(bytes: &[u8]) -> Vec<Line<'_>> {
        let ends_with_newline = bytes.is_empty() || bytes.ends_with(b"\n");
        let count = memchr::memchr_iter(b'\n', bytes).count() + usize::from(!ends_with_newline);
        let (mut cut, mut tool, mut out) = (0, 1, Vec::new());
        for (i, end) in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())).take(count).enumerate() {
            let (start, seg) = (cut, &bytes[cut..end]);
            cut = end + 1;
            let last_unterminated = i + 1 == count && !ends_with_newline;
            let crlf = seg.ends_with(b"\r") && !last_unterminated;
            let body = if crlf { &seg[..seg.len() - 1] } else { seg };
            let line = match std::str::from_utf8(body) {
                Ok(text) => {
                    let (drift, separators) = drift_of(body, text);
                    let trailing_sep = text.chars().last().is_some_and(|c| SPLITLINES_EXTRA.contains(&c));
                    let pieces = separators + usize::from(!(last_unterminated && trailing_sep));
                    let content = if text.chars().all(python_space) { Content::Blank } else { object(text) };
                    let tool_form = matches!(&content, Content::Message(m) if tool_serialised(m, text));
                    Line { physical: i + 1, tool, pieces, text: Some(text), tool_form, crlf, drift, content }
                }
                Err(e) => Line {
                    physical: i + 1,
                    tool,
                    pieces: 1,
                    text: None,
                    tool_form: false,
                    crlf,
                    drift: Drift::default(),
                    content: Content::NotUtf8(start + e.valid_up_to()),
                },
            };
            tool += line.pieces;
            out.push(line);
        }
        out
    }

    proptest::proptest! {
        /// Runs and parts change how lines are kept, not what they are: for buses of every kind
        /// of line (blank, whitespace, CRLF, control and splitlines characters, malformed, not
        /// UTF-8, messages, an unterminated end), read in parts of any size, every line rebuilt
        /// is the line read on its own, runs are maximal and the numbers run on.
        #[test]
        fn runs_rebuild_every_line(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                &b"\n"[..], b" \n", b"\r\n", b" \t\r\n", b"\x1c\n", b"\x0b\x0b\n", "\u{2028}\n".as_bytes(),
                b"x\n", b"y\r\n", b"{\n", b"[1]\n", b"\xff\n", b"a\xfe\r\n", b"{}\n", b"{\"ts\": \"t\"}\r\n",
                b"{\"x\": 1}\r\n", b"{\"ts\": 1, \"y\": \"\xe2\x80\xa8\"}\n", b"{\"from\": null}", b" {} \n", b"{\r}\n", b"{ \t}\r\n",
                b"\r", b"\x0b", b"x", b"\xff",
            ]), 0..40),
            part in 0usize..12,
        ) {
            let bytes = pieces.concat();
            let expected = reference(&bytes);
            let bus = parse_in_parts(&bytes, part);
            proptest::prop_assert_eq!(all(&bus), expected.clone());
            proptest::prop_assert_eq!(bus.physical, expected.len());
            proptest::prop_assert_eq!(bus.tool_count, expected.iter().map(|l| l.pieces).sum::<usize>());
            let whole = parse_in_parts(&bytes, usize::MAX / 2);
            proptest::prop_assert_eq!(&bus.runs, &whole.runs);
            proptest::prop_assert!(bus.lines.iter().eq(whole.lines.iter()));
            proptest::prop_assert!(bus.runs.windows(2).all(|w| w[0].before < w[1].before), "runs are maximal");
            for run in &bus.runs {
                let lines: Vec<Line<'_>> = run.lines().collect();
                let blank = lines.iter().filter(|l| l.content == Content::Blank).count();
                let malformed = lines.iter().filter(|l| l.content == Content::Malformed).count();
                let bare = lines.iter().filter(|l| l.message().is_some_and(Message::is_bare)).count();
                proptest::prop_assert_eq!((run.blank, run.malformed, run.bare), (blank, malformed, bare));
                proptest::prop_assert_eq!(run.not_utf8(), lines.iter().filter(|l| matches!(l.content, Content::NotUtf8(_))).count());
                proptest::prop_assert_eq!(run.crlf, lines.iter().filter(|l| l.crlf).count());
                proptest::prop_assert_eq!(run.drifting, lines.iter().filter(|l| !l.drift.is_empty()).count());
                proptest::prop_assert_eq!(run.pieces, lines.iter().map(|l| l.pieces).sum::<usize>());
            }
        }
    }

    /// Blank and malformed lines cost a run, not a record: a million of them, of every kind,
    /// in blocks and then in turn, are one run, split only by a message.
    #[test]
    fn lines_that_are_no_message_are_runs() {
        let mut bytes = Vec::new();
        for unit in [&b"\n"[..], b" \r\n", b"\x1c\n", b"x\n", b"\xff\n"] {
            for _ in 0..100_000 {
                bytes.extend_from_slice(unit);
            }
        }
        for _ in 0..100_000 {
            bytes.extend_from_slice(b"\n \r\n\x1c\nx\n\xff\n");
        }
        bytes.extend_from_slice(b"{\"ts\": \"t\"}\n\n");
        let bus = parse(&bytes);
        assert_eq!((bus.physical, bus.lines.len(), bus.runs.len()), (1_000_002, 1, 2));
        let run = bus.runs[0];
        assert_eq!((run.count, run.blank, run.malformed, run.not_utf8()), (1_000_000, 600_000, 200_000, 200_000));
        assert_eq!((run.crlf, run.drifting, run.pieces), (200_000, 200_000, 1_200_000));
        assert_eq!(bus.tool_count, 1_200_002, "each \\x1c line is two pieces");
        assert!(bus.mixed_line_ends(), "one fifth CRLF is mixed");
        let line = run.lines().nth(400_007).expect("a line");
        assert_eq!((line.physical, line.tool, line.content), (400_008, 500_008, Content::NotUtf8(800_014)));
        assert_eq!((bus.runs[1].physical, bus.runs[1].tool, bus.runs[1].before), (1_000_002, 1_200_002, 1));
    }

    /// JSON objects none of whose fields the rules read is a string are bare objects: counted
    /// in runs like blank and malformed lines (issue 46), rebuilt as the messages they are.
    #[test]
    fn bare_objects_are_runs() {
        let bytes = b"{}\n{\"x\": 1}\n{\"ts\": 1}\r\n{\"ts\": null, \"from\": [], \"type\": {}, \"msg\": 1}\n\nx\n{\"ts\": \"t\"}\n{}";
        let bus = parse(bytes);
        assert_eq!((bus.physical, bus.lines.len(), bus.runs.len()), (8, 1, 2));
        let run = bus.runs[0];
        assert_eq!((run.count, run.bare, run.blank, run.malformed, run.not_utf8(), run.crlf), (6, 4, 1, 1, 0, 1));
        assert_eq!((bus.runs[1].bare, bus.runs[1].before), (1, 1));
        let lines = all(&bus);
        assert_eq!(lines, reference(bytes));
        let rebuilt: Vec<&Message<'_>> = lines.iter().filter_map(Line::message).collect();
        assert_eq!(rebuilt.len(), 6);
        assert!(rebuilt.iter().enumerate().all(|(i, m)| m.is_bare() == (i != 4)));
        assert_eq!(rebuilt[3].type_of("type"), Some("object"));
    }

    #[test]
    fn invalid_utf8_is_reported_not_replaced() {
        let bus = parse(b"{}\n{\"m\": \"\xff\"}\n");
        let lines = all(&bus);
        assert_eq!(lines[1].content, Content::NotUtf8(10));
        assert!(lines[1].text.is_none());
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

    proptest::proptest! {
        /// A line written as the tool writes it (`json.dumps` of the fields in the writer's
        /// order, with `quote`'s escapes) is recognised whatever its values hold; the same line
        /// with one separator written compactly, a key more, a trailing space or a character
        /// escaped that the tool writes raw, is not.
        #[test]
        fn every_line_the_tool_writes_is_recognised(
            values in proptest::collection::vec("[a\"\\\\\u{1}\n é\u{2028}:,{}]{0,6}", 4),
            via in proptest::option::of("[a\"\\\\\u{1} é]{0,4}"),
            reference in proptest::option::of("[a\"\\\\\u{1} é]{1,4}"),
        ) {
            use crate::json::quote;
            let mut line = format!(
                "{{\"ts\": {}, \"from\": {}, \"type\": {}, \"msg\": {}",
                quote(&values[0]), quote(&values[1]), quote(&values[2]), quote(&values[3])
            );
            if let Some(v) = &via {
                line.push_str(&format!(", \"via\": {}", quote(v)));
            }
            if let Some(r) = &reference {
                line.push_str(&format!(", \"ref\": {}", quote(r)));
            }
            let extra = line.clone() + ", \"zz\": 1}";
            line.push('}');
            let compact = line.replacen(", \"from\": ", ",\"from\": ", 1);
            let trailing = line.clone() + " ";
            // `\u0061` is an `a` the tool writes raw.
            let escaped = line.replacen("\"msg\": \"", "\"msg\": \"\\u0061", 1);
            let cases = [(&line, true), (&compact, false), (&extra, false), (&trailing, false), (&escaped, false)];
            for (text, written) in cases {
                let m = Message::new(json::parse(text.as_bytes()).expect("the line parses")).expect("small");
                proptest::prop_assert_eq!(tool_serialised(&m, text), written, "{:?}", text);
            }
        }
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

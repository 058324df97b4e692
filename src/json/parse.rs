use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use super::value::{Number, Value};

/// Why a document was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes are not UTF-8.
    #[error("not valid UTF-8")]
    InvalidUtf8,
    /// A UTF-8 byte-order mark precedes the document.
    #[error("starts with a byte-order mark")]
    ByteOrderMark,
    /// The document ended early.
    #[error("unexpected end of input")]
    UnexpectedEnd,
    /// A character that cannot start or continue a value here.
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
    /// Non-standard literal such as `NaN` or `Infinity`.
    #[error("non-standard literal {0} (not JSON)")]
    NonStandardLiteral(String),
    /// A number that does not follow the JSON grammar.
    #[error("malformed number {0:?}")]
    BadNumber(String),
    /// A malformed escape sequence.
    #[error("malformed escape sequence")]
    BadEscape,
    /// A `\uD800`-style surrogate without its pair.
    #[error("lone UTF-16 surrogate \\u{0:04x}")]
    LoneSurrogate(u32),
    /// An unescaped control character inside a string.
    #[error("unescaped control character U+{0:04X} in string")]
    ControlCharacter(u32),
    /// The same key twice in one object.
    #[error("duplicate key {0:?} (a reader that keeps the last one would see a different record)")]
    DuplicateKey(String),
    /// Nesting deeper than the limit.
    #[error("nesting deeper than {0} levels")]
    TooDeep(usize),
    /// Content after the top-level value.
    #[error("trailing data after the JSON value")]
    TrailingData,
}

/// A refused document, with the position of the problem (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Parser limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Maximum nesting of arrays and objects.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: 128 }
    }
}

/// Parses one strict JSON document.
///
/// # Errors
/// Any deviation from RFC 8259, a duplicate key, a lone surrogate or nesting beyond
/// [`Limits::max_depth`].
pub fn parse(bytes: &[u8]) -> Result<Value, Error> {
    parse_with(bytes, Limits::default())
}

/// [`parse`] with explicit limits.
///
/// # Errors
/// As [`parse`].
pub fn parse_with(bytes: &[u8], limits: Limits) -> Result<Value, Error> {
    parse_mode(bytes, limits, true)
}

/// The parser with its fast paths on or off: off is the reference reading the differential
/// test holds the fast paths to (`json::tests`).
pub(super) fn parse_mode(bytes: &[u8], limits: Limits, fast: bool) -> Result<Value, Error> {
    run(bytes, limits, fast, None).map(|(v, _)| v)
}

/// [`parse`], and the SHA-256 of the value's canonical form ([`super::canonical`]): the
/// identity of a schema-2 receipt.
///
/// The canonical form is written while parsing: while every object's keys arrive sorted (as
/// every receipt writer sorts them), it is the document with its whitespace removed, its
/// strings and numbers in their canonical spelling. The first object whose keys do not arrive
/// sorted stops that, and the value is serialised once parsed, as before. A receipt is then
/// read once, not parsed and walked again.
///
/// # Errors
/// As [`parse`].
pub fn parse_canonical_sha256(bytes: &[u8]) -> Result<(Value, [u8; 32]), Error> {
    parse_canonical_mode(bytes, true)
}

/// [`parse_canonical_sha256`] with the fast paths on or off.
pub(super) fn parse_canonical_mode(bytes: &[u8], fast: bool) -> Result<(Value, [u8; 32]), Error> {
    use sha2::Digest as _;
    let canon = Canon { out: String::with_capacity(super::write::CHUNK + 1024), sha: sha2::Sha256::new() };
    let (value, canon) = run(bytes, Limits::default(), fast, Some(canon))?;
    let digest = match canon {
        Some(mut c) => {
            c.sha.update(c.out.as_bytes());
            c.sha.finalize()
        }
        None => {
            let mut sha = sha2::Sha256::new();
            super::write::canonical_chunks(&value, &mut |chunk| sha.update(chunk.as_bytes()));
            sha.finalize()
        }
    };
    Ok((value, digest.into()))
}

/// The canonical form written so far: the text not yet hashed, and the hash of the rest.
struct Canon {
    out: String,
    sha: sha2::Sha256,
}

fn run(bytes: &[u8], limits: Limits, fast: bool, canon: Option<Canon>) -> Result<(Value, Option<Canon>), Error> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            let text = String::from_utf8_lossy(valid);
            let (line, column) = position(&text, text.len());
            return Err(Error { kind: ErrorKind::InvalidUtf8, line, column });
        }
    };
    let mut p = Parser { text, pos: 0, limits, fast, canon };
    if text.starts_with('\u{feff}') {
        return Err(p.error(ErrorKind::ByteOrderMark));
    }
    p.skip_ws();
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos != text.len() {
        return Err(p.error(ErrorKind::TrailingData));
    }
    Ok((value, p.canon))
}

/// What [`parse_fields`] keeps of a top-level object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fields<'a, const N: usize> {
    /// How many keys the object has.
    pub(crate) keys: usize,
    /// The value of each of the names asked for, in their order, when the key is present.
    pub(crate) values: [Option<Field<'a>>; N],
}

/// The value of a key [`parse_fields`] was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Field<'a> {
    /// A string: borrowed from the text when it holds no escape.
    Str(Cow<'a, str>),
    /// Any other value.
    Other(Value),
}

#[cfg(test)]
impl Field<'_> {
    /// The value [`parse`] reads.
    #[must_use]
    pub(crate) fn into_value(self) -> Value {
        match self {
            Field::Str(s) => Value::String(s.into_owned()),
            Field::Other(v) => v,
        }
    }
}

/// [`parse`] of a document of which only a few keys of the top-level object are read (a
/// CrossExam bus line): accepts and refuses exactly what [`parse`] does, with the same error
/// at the same place, but builds no map for the top level and copies no key without escapes.
/// `Ok(None)` is a valid document that is not an object.
///
/// # Errors
/// As [`parse`].
pub(crate) fn parse_fields<'a, const N: usize>(
    text: &'a str,
    names: &[&str; N],
) -> Result<Option<Fields<'a, N>>, Error> {
    let mut p = Parser { text, pos: 0, limits: Limits::default(), fast: true, canon: None };
    if text.starts_with('\u{feff}') {
        return Err(p.error(ErrorKind::ByteOrderMark));
    }
    p.skip_ws();
    let fields = if p.peek() == Some(b'{') {
        Some(p.fields(names)?)
    } else {
        p.value(0)?;
        None
    };
    p.skip_ws();
    if p.pos != text.len() {
        return Err(p.error(ErrorKind::TrailingData));
    }
    Ok(fields)
}

fn position(text: &str, byte: usize) -> (usize, usize) {
    let before = &text[..byte];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    limits: Limits,
    fast: bool,
    /// The canonical form being written, when asked for and still possible.
    canon: Option<Canon>,
}

impl<'a> Parser<'a> {
    fn error(&self, kind: ErrorKind) -> Error {
        let (line, column) = position(self.text, self.pos.min(self.text.len()));
        Error { kind, line, column }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Appends `s` to the canonical form.
    fn emit(&mut self, s: &str) {
        if let Some(c) = &mut self.canon {
            c.out.push_str(s);
        }
    }

    /// Appends a string's canonical spelling. One read `plain` (borrowed by [`Self::plain_str`]:
    /// no escape, no control character) has no character the canonical form escapes: it is
    /// written as read.
    fn emit_string(&mut self, s: &str, plain: bool) {
        if let Some(c) = &mut self.canon {
            if plain {
                c.out.push('"');
                c.out.push_str(s);
                c.out.push('"');
            } else {
                super::write::write_string(s, false, &mut c.out);
            }
        }
    }

    /// Hashes the canonical text written so far once there is a chunk of it.
    fn emit_flush(&mut self) {
        use sha2::Digest as _;
        if let Some(c) = &mut self.canon
            && c.out.len() >= super::write::CHUNK
        {
            c.sha.update(c.out.as_bytes());
            c.out.clear();
        }
    }

    fn unexpected(&self) -> Error {
        match self.text[self.pos..].chars().next() {
            Some(c) => self.error(ErrorKind::UnexpectedChar(c)),
            None => self.error(ErrorKind::UnexpectedEnd),
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), Error> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        match self.peek() {
            None => Err(self.error(ErrorKind::UnexpectedEnd)),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => {
                let s = self.string_cow()?;
                self.emit_string(&s, matches!(s, Cow::Borrowed(_)));
                Ok(Value::String(s.into_owned()))
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'N' | b'I') => {
                let word: String = self.text[self.pos..].chars().take_while(char::is_ascii_alphabetic).collect();
                Err(self.error(ErrorKind::NonStandardLiteral(word)))
            }
            Some(_) => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, Error> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            self.emit(word);
            Ok(value)
        } else {
            Err(self.unexpected())
        }
    }

    fn enter(&self, depth: usize) -> Result<(), Error> {
        if depth > self.limits.max_depth { Err(self.error(ErrorKind::TooDeep(self.limits.max_depth))) } else { Ok(()) }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Error> {
        self.enter(depth)?;
        self.pos += 1;
        // Keys usually arrive sorted (every receipt writer sorts them): while they do, a
        // comparison with the previous key proves there is no duplicate and the map is built in
        // bulk at the end. The first out-of-order key switches to a map with per-key checks.
        let mut sorted: Vec<(String, Value)> = Vec::new();
        let mut map: Option<BTreeMap<String, Value>> = None;
        self.emit("{");
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.emit("}");
            return Ok(Value::Object(BTreeMap::new()));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected());
            }
            let key_pos = self.pos;
            let key = self.string_cow()?;
            if !sorted.is_empty() || map.is_some() {
                self.emit(",");
            }
            self.emit_string(&key, matches!(key, Cow::Borrowed(_)));
            self.emit(":");
            let key = key.into_owned();
            self.skip_ws();
            self.expect(b':')?;
            self.skip_ws();
            let value = self.value(depth)?;
            self.emit_flush();
            if map.is_none() && sorted.last().is_none_or(|(last, _)| *last < key) {
                sorted.push((key, value));
            } else {
                // Not the canonical order: the value is serialised once parsed instead.
                self.canon = None;
                let m = map.get_or_insert_with(|| std::mem::take(&mut sorted).into_iter().collect());
                match m.entry(key) {
                    Entry::Occupied(e) => {
                        self.pos = key_pos;
                        return Err(self.error(ErrorKind::DuplicateKey(e.key().clone())));
                    }
                    Entry::Vacant(e) => {
                        e.insert(value);
                    }
                }
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.emit("}");
                    return Ok(Value::Object(map.unwrap_or_else(|| sorted.into_iter().collect())));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, Error> {
        self.enter(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.emit("[");
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.emit("]");
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            if !items.is_empty() {
                self.emit(",");
            }
            items.push(self.value(depth)?);
            self.emit_flush();
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.emit("]");
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut i = self.pos;
        let digits = |i: &mut usize| {
            let s = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - s
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        let n = digits(&mut i);
        let mut ok = n > 0 && !(n > 1 && bytes[int_start] == b'0');
        if ok && bytes.get(i) == Some(&b'.') {
            i += 1;
            ok = digits(&mut i) > 0;
        }
        if ok && matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            ok = digits(&mut i) > 0;
        }
        // A number glued to letters (`1x`, `-Infinity`) is malformed as a whole.
        while bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.') {
            i += 1;
            ok = false;
        }
        let token = &self.text[start..i];
        if !ok {
            if token == "-Infinity" {
                return Err(self.error(ErrorKind::NonStandardLiteral(token.to_owned())));
            }
            return Err(self.error(ErrorKind::BadNumber(token.to_owned())));
        }
        self.pos = i;
        let n = Number(token.to_owned());
        if self.canon.is_some() {
            self.emit(&super::write::python_number(&n));
        }
        Ok(Value::Number(n))
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let Some(h) = self.text.get(self.pos..self.pos + 4) else {
            return Err(self.error(ErrorKind::BadEscape));
        };
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error(ErrorKind::BadEscape));
        }
        self.pos += 4;
        Ok(u32::from_str_radix(h, 16).expect("four validated hex digits always parse"))
    }

    /// A string, borrowed from the text when it has no escape ([`Self::plain_str`]).
    fn string_cow(&mut self) -> Result<Cow<'a, str>, Error> {
        self.pos += 1;
        if self.fast
            && let Some(s) = self.plain_str()
        {
            return Ok(Cow::Borrowed(s));
        }
        self.decoded_string().map(Cow::Owned)
    }

    /// A string without escapes or control characters (every digest, path and key of a
    /// receipt) is its bytes: found with a byte scan, never decoded. The delimiters are ASCII,
    /// and UTF-8 never uses ASCII bytes inside a multi-byte character, so the scan cannot stop
    /// mid-character. Anything else is left to [`Self::decoded_string`], from the start.
    fn plain_str(&mut self) -> Option<&'a str> {
        let text: &'a str = self.text;
        let start = self.pos;
        let rest = text.as_bytes().get(start..)?;
        // The first quote or backslash by `memchr`, then the control characters before it by a
        // fold without a short cut (both run on whole vector registers).
        let len = memchr::memchr2(b'"', b'\\', rest)?;
        if rest[len] != b'"' || rest[..len].iter().fold(false, |any, &b| any | (b < 0x20)) {
            return None;
        }
        let s = text.get(start..start + len)?;
        self.pos = start + len + 1;
        Some(s)
    }

    fn decoded_string(&mut self) -> Result<String, Error> {
        let mut out = String::new();
        loop {
            let rest = &self.text[self.pos..];
            let run = rest.find(|c: char| c == '"' || c == '\\' || (c as u32) < 0x20);
            let Some(run) = run else {
                self.pos = self.text.len();
                return Err(self.error(ErrorKind::UnexpectedEnd));
            };
            out.push_str(&rest[..run]);
            self.pos += run;
            let c = self.text.as_bytes()[self.pos];
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.error(ErrorKind::UnexpectedEnd));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let esc_start = self.pos - 2;
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.text[self.pos..].starts_with("\\u") {
                                    self.pos += 2;
                                    let lo = self.hex4()?;
                                    if (0xDC00..0xE000).contains(&lo) {
                                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                    } else {
                                        self.pos = esc_start;
                                        return Err(self.error(ErrorKind::LoneSurrogate(hi)));
                                    }
                                } else {
                                    self.pos = esc_start;
                                    return Err(self.error(ErrorKind::LoneSurrogate(hi)));
                                }
                            } else if (0xDC00..0xE000).contains(&hi) {
                                self.pos = esc_start;
                                return Err(self.error(ErrorKind::LoneSurrogate(hi)));
                            } else {
                                hi
                            };
                            out.push(char::from_u32(code).expect("surrogates were excluded above"));
                        }
                        _ => {
                            self.pos -= 2;
                            return Err(self.error(ErrorKind::BadEscape));
                        }
                    }
                }
                other => return Err(self.error(ErrorKind::ControlCharacter(u32::from(other)))),
            }
        }
    }
}

/// How many keys [`Parser::fields`] checks for duplicates by comparing them one by one.
const FIRST_KEYS: usize = 8;

impl<'a> Parser<'a> {
    /// [`Self::object`] at the top level for [`parse_fields`]: the same grammar, the same
    /// duplicate-key rule (past the first [`FIRST_KEYS`], a comparison with the previous key
    /// while keys arrive sorted, a set after), and the same errors at the same places; values of other keys are parsed (their
    /// errors and depth count) and dropped at once.
    fn fields<const N: usize>(&mut self, names: &[&str; N]) -> Result<Fields<'a, N>, Error> {
        self.enter(1)?;
        self.pos += 1;
        let mut fields = Fields { keys: 0, values: std::array::from_fn(|_| None) };
        // The first keys are compared one by one on the stack: a bus line has four to six, out
        // of order, and a set per line was a tenth of the replay. Past them, `object`'s rule.
        let mut first: [Option<Cow<'a, str>>; FIRST_KEYS] = Default::default();
        let mut sorted: Vec<Cow<'a, str>> = Vec::new();
        let mut set: Option<BTreeSet<Cow<'a, str>>> = None;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(fields);
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected());
            }
            let key_pos = self.pos;
            let key = self.string_cow()?;
            self.skip_ws();
            self.expect(b':')?;
            self.skip_ws();
            let slot = names.iter().position(|n| *n == key);
            let value = match (slot, self.peek()) {
                (Some(_), Some(b'"')) => Field::Str(self.string_cow()?),
                _ => Field::Other(self.value(1)?),
            };
            if fields.keys < FIRST_KEYS {
                if first[..fields.keys].iter().flatten().any(|k| *k == key) {
                    self.pos = key_pos;
                    return Err(self.error(ErrorKind::DuplicateKey(key.into_owned())));
                }
                first[fields.keys] = Some(key);
            } else {
                if fields.keys == FIRST_KEYS {
                    let known: Vec<Cow<'a, str>> = first.iter_mut().filter_map(Option::take).collect();
                    if known.is_sorted_by(|a, b| a < b) {
                        sorted = known;
                    } else {
                        set = Some(known.into_iter().collect());
                    }
                }
                if set.is_none() && sorted.last().is_none_or(|last| *last < key) {
                    sorted.push(key);
                } else {
                    let s = set.get_or_insert_with(|| std::mem::take(&mut sorted).into_iter().collect());
                    if s.contains(&key) {
                        self.pos = key_pos;
                        return Err(self.error(ErrorKind::DuplicateKey(key.into_owned())));
                    }
                    s.insert(key);
                }
            }
            fields.keys += 1;
            if let Some(i) = slot {
                fields.values[i] = Some(value);
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(fields);
                }
                _ => return Err(self.unexpected()),
            }
        }
    }
}

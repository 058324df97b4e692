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

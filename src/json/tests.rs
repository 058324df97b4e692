use super::*;
use proptest::prelude::*;

fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(b))
}

/// Vectors produced by CPython's `json` module (`test-vectors/json/python-json.json`).
#[test]
fn matches_cpython_serialisations() {
    let raw = include_bytes!("../../test-vectors/json/python-json.json");
    let doc = parse(raw).expect("vector file parses");
    let cases = doc.get("cases").and_then(Value::as_array).expect("cases");
    assert!(cases.len() >= 19);
    for case in cases {
        let id = case.get("id").and_then(Value::as_str).expect("id");
        let input = case.get("input").and_then(Value::as_str).expect("input");
        let v = parse(input.as_bytes()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let canon = canonical(&v);
        assert_eq!(canon, case.get("canonical").and_then(Value::as_str).expect("canonical"), "{id}");
        assert_eq!(
            sha256_hex(canon.as_bytes()),
            case.get("canonical_sha256").and_then(Value::as_str).expect("digest"),
            "{id}"
        );
        assert_eq!(python_pretty(&v, true), case.get("pretty_ascii").and_then(Value::as_str).expect("ascii"), "{id}");
        assert_eq!(python_pretty(&v, false), case.get("pretty_raw").and_then(Value::as_str).expect("raw"), "{id}");
    }
}

#[test]
fn refuses_duplicate_keys_with_position() {
    let e = parse(b"{\n  \"verdict\": \"BLOCKED\",\n  \"verdict\": \"PASS\"\n}").unwrap_err();
    assert_eq!(e.kind, ErrorKind::DuplicateKey("verdict".into()));
    assert_eq!((e.line, e.column), (3, 3));
    // Nested objects are checked too.
    assert!(matches!(parse(br#"{"a":{"b":1,"b":1}}"#).unwrap_err().kind, ErrorKind::DuplicateKey(_)));
    // Equal keys written with different escapes are the same key.
    assert!(matches!(parse(br#"{"a":1,"\u0061":2}"#).unwrap_err().kind, ErrorKind::DuplicateKey(_)));
}

#[test]
fn refuses_malformed_documents() {
    type Case<'a> = (&'a [u8], fn(&ErrorKind) -> bool);
    let bad: &[Case<'_>] = &[
        (b"", |k| *k == ErrorKind::UnexpectedEnd),
        (b"{\"a\":1,}", |k| matches!(k, ErrorKind::UnexpectedChar('}'))),
        (b"[1,2", |k| *k == ErrorKind::UnexpectedEnd),
        (b"01", |k| matches!(k, ErrorKind::BadNumber(_))),
        (b"1.", |k| matches!(k, ErrorKind::BadNumber(_))),
        (b"-", |k| matches!(k, ErrorKind::BadNumber(_))),
        (b"NaN", |k| matches!(k, ErrorKind::NonStandardLiteral(_))),
        (b"-Infinity", |k| matches!(k, ErrorKind::NonStandardLiteral(_))),
        (b"\"\\ud800\"", |k| *k == ErrorKind::LoneSurrogate(0xd800)),
        (b"\"\\udc00x\"", |k| *k == ErrorKind::LoneSurrogate(0xdc00)),
        (b"\"a\nb\"", |k| *k == ErrorKind::ControlCharacter(10)),
        (b"\"\\x\"", |k| *k == ErrorKind::BadEscape),
        (b"{} {}", |k| *k == ErrorKind::TrailingData),
        (b"\xef\xbb\xbf{}", |k| *k == ErrorKind::ByteOrderMark),
        (b"{\"a\":\"\xff\"}", |k| *k == ErrorKind::InvalidUtf8),
        (b"tru", |k| matches!(k, ErrorKind::UnexpectedChar('t'))),
    ];
    for (input, check) in bad {
        let e = parse(input).expect_err(&String::from_utf8_lossy(input));
        assert!(check(&e.kind), "{:?} gave {:?}", String::from_utf8_lossy(input), e.kind);
    }
}

#[test]
fn depth_limit_holds() {
    let deep = "[".repeat(200) + &"]".repeat(200);
    assert!(matches!(parse(deep.as_bytes()).unwrap_err().kind, ErrorKind::TooDeep(128)));
    let ok = "[".repeat(128) + &"]".repeat(128);
    assert!(parse(ok.as_bytes()).is_ok());
    // The field reader counts the top-level object as a level, as the whole parse does.
    for n in [126, 127, 128] {
        let doc = format!("{{\"a\": {}{}}}", "[".repeat(n), "]".repeat(n));
        let whole = parse(doc.as_bytes()).map(|v| v.as_object().map(std::collections::BTreeMap::len));
        assert_eq!(parse_fields(&doc, &["a"]).map(|f| f.map(|f| f.keys)), whole, "{n} arrays in an object");
        assert_eq!(whole.is_ok(), n < 128);
    }
}

/// Compact JSON with every object's keys in reverse order.
fn reversed(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let members: Vec<String> = m.iter().rev().map(|(k, v)| format!("{}:{}", quote(k), reversed(v))).collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(reversed).collect::<Vec<_>>().join(",")),
        scalar => canonical(scalar),
    }
}

/// Spellings the canonical form changes: numbers Python reprints, escapes it drops or
/// shortens, whitespace, a big document crossing the chunk size, and unsorted keys nested in
/// sorted ones.
#[test]
fn canonical_hash_while_parsing_respells_numbers_and_strings() {
    let big = format!("[{}]", vec!["\"\\u00e9\\/x\\u0001\""; 40_000].join(" , "));
    let docs = [
        r#"[-0, -0.0, 1E5, 1.50, 0.1e1, 1e400, 123456789012345678901234567890, true, null, false]"#,
        r#"{ "a" : "\u00e9\/\t\u001f\"" , "b" : { "d" : 1 , "c" : [ ] } , "e" : { } }"#,
        r#"{"a": {"z": 1, "y": 2}, "b": [{"k": "v"}]}"#,
        big.as_str(),
    ];
    for doc in docs {
        let (v, digest) = parse_canonical_sha256(doc.as_bytes()).unwrap();
        assert_eq!(v, parse(doc.as_bytes()).unwrap());
        assert_eq!(hex::encode(digest), sha256_hex(canonical(&v).as_bytes()), "{doc}");
    }
    assert_eq!(parse_canonical_sha256(b"{\"a\":1,\"a\":2}").unwrap_err().kind, ErrorKind::DuplicateKey("a".into()));
}

#[test]
fn big_integers_survive() {
    let v = parse(b"[123456789012345678901234567890, -0]").unwrap();
    assert_eq!(canonical(&v), "[123456789012345678901234567890,0]");
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Value::Number(Number(float::python_float_repr(f)))),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,6}", inner, 0..6).prop_map(Value::Object),
        ]
    })
}

/// Keys for `fields_agree_with_the_whole_parse`: `ts` twice over (once escaped), a key that
/// sorts before and one after it, a non-ASCII one, and one with an escaped quote.
// More keys than `parse_fields` compares one by one, so that objects cross to its set.
const KEYS: [&str; 16] = ["ts", "t\\u0073", "a", "zz", "é", "\\\"q", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"];

proptest! {
    #[test]
    fn canonical_and_pretty_round_trip(v in arb_value()) {
        let c = canonical(&v);
        prop_assert_eq!(parse(c.as_bytes()).unwrap(), v.clone());
        prop_assert_eq!(canonical(&parse(python_pretty(&v, true).as_bytes()).unwrap()), c.clone());
        prop_assert_eq!(canonical(&parse(python_pretty(&v, false).as_bytes()).unwrap()), c);
    }

    #[test]
    fn chunked_canonical_is_canonical(v in arb_value()) {
        let mut joined = String::new();
        canonical_chunks(&v, &mut |c| joined.push_str(c));
        prop_assert_eq!(joined, canonical(&v));
    }

    /// The canonical hash written while parsing is the hash of the parsed value's canonical
    /// form, whatever the layout: compact, pretty with and without escapes, keys in reverse
    /// order (which stops the writing while parsing), with the fast paths on or off.
    #[test]
    fn canonical_hash_while_parsing_is_the_canonical_hash(v in arb_value()) {
        let want = sha256_hex(canonical(&v).as_bytes());
        for text in [canonical(&v), python_pretty(&v, true), python_pretty(&v, false), reversed(&v)] {
            for fast in [true, false] {
                let (got, digest) = parse::parse_canonical_mode(text.as_bytes(), fast).unwrap();
                prop_assert_eq!(&got, &v);
                prop_assert_eq!(hex::encode(digest), want.clone(), "{}", text);
            }
        }
    }

    #[test]
    fn parser_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse(&bytes);
    }

    /// The fast paths decide exactly as the reference reading: same value, or the same error
    /// at the same line and column, on strings rich in escapes, surrogates, control
    /// characters, multi-byte characters and truncations.
    #[test]
    fn fast_paths_agree_with_the_reference(
        parts in prop::collection::vec(prop_oneof![
            Just("\\".to_owned()), Just("\\u".to_owned()), Just("\\ud800".to_owned()), Just("\\udc00".to_owned()),
            Just("\\n".to_owned()), Just("\"".to_owned()), Just("\u{1}".to_owned()), Just("é".to_owned()),
            Just("𝄞".to_owned()), Just(",".to_owned()), Just(":".to_owned()), Just("{".to_owned()), Just("}".to_owned()),
            "[0-9a-f]{0,64}", "\\PC{0,4}",
        ], 0..24),
        cut in any::<prop::sample::Index>(),
    ) {
        let doc = format!("{{\"k\":\"{}\",\"d\":[\"{}\"]}}", parts.join(""), parts.concat());
        for bytes in [doc.as_bytes(), &doc.as_bytes()[..cut.index(doc.len() + 1)]] {
            prop_assert_eq!(
                parse::parse_mode(bytes, Limits::default(), true),
                parse::parse_mode(bytes, Limits::default(), false)
            );
        }
    }

    /// `parse_fields` accepts and refuses as `parse` does, with the same error at the same
    /// place, and keeps what `parse`'s object holds for the names: on objects whose keys repeat
    /// (also under an escape: `t\u0073` is `ts`), arrive out of order and hold any values,
    /// cut anywhere, and on soups of JSON fragments.
    #[test]
    fn fields_agree_with_the_whole_parse(
        pairs in prop::collection::vec((0..KEYS.len(), arb_value(), 0..3usize), 0..20),
        soup in prop::collection::vec(prop_oneof![
            Just("{"), Just("}"), Just("["), Just("]"), Just(":"), Just(","), Just(" "), Just("\"\""),
            Just("\"ts\""), Just("\"t\\u0073\""), Just("\"a\""), Just("1"), Just("null"), Just("\u{feff}"),
        ], 0..24),
        cut in any::<prop::sample::Index>(),
    ) {
        let space = ["", " ", "\n\t"];
        let body: Vec<String> = pairs
            .iter()
            .map(|(k, v, w)| format!("{0}\"{1}\"{0}:{0}{2}{0}", space[*w], KEYS[*k], canonical(v)))
            .collect();
        let w = pairs.first().map_or(0, |p| p.2);
        let doc = format!("{0}{{{0}{1}}}{0}", space[w], body.join(","));
        // Keys in order, each once, then the first again: the sorted path past the first keys.
        let mut ordered: Vec<&String> = body.iter().collect();
        let key = |b: &str| b.trim_start().split(':').next().map(str::trim_end).map(str::to_owned);
        ordered.sort_by_key(|b| key(b));
        ordered.dedup_by(|a, b| key(a) == key(b));
        let sorted = format!("{{{}}}", ordered.iter().map(|b| b.as_str()).collect::<Vec<_>>().join(","));
        let repeated = format!("{{{}}}", ordered.iter().chain(ordered.first()).map(|b| b.as_str()).collect::<Vec<_>>().join(","));
        let soup = soup.concat();
        let cut = &doc[..doc.floor_char_boundary(cut.index(doc.len() + 1))];
        for text in [doc.as_str(), cut, &sorted, &repeated, soup.as_str()] {
            let names = ["ts", "a", "é", "\"q"];
            let whole = parse(text.as_bytes()).map(|v| v.as_object().map(|o| (o.len(), names.map(|n| o.get(n).cloned()))));
            let fields = parse_fields(text, &names).map(|f| f.map(|f| (f.keys, f.values.map(|v| v.map(Field::into_value)))));
            prop_assert_eq!(fields, whole, "{:?}", text);
        }
    }

    /// The block test of strings written unescaped decides as a test of each byte, with the
    /// escaped byte anywhere in a block, in the last partial block, or absent.
    #[test]
    fn unescaped_strings_are_found_byte_for_byte(
        s in prop::collection::vec(prop_oneof![Just(0u8), Just(0x1f), Just(b'"'), Just(b'\\'), Just(0x7e), Just(0x7f), Just(0xc3), 0x20u8..0x7e], 0..100),
        ascii in any::<bool>(),
    ) {
        let reference = s.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\' && !(ascii && b > 0x7e));
        prop_assert_eq!(write::needs_no_escape(&s, ascii), reference);
    }

    #[test]
    fn float_repr_round_trips(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let s = float::python_float_repr(f);
        prop_assert_eq!(s.parse::<f64>().unwrap().to_bits(), f.to_bits());
    }
}

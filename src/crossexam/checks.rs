//! The CrossExam checks: one per numbered rule of the format note §12, whose rule ID is the
//! check code (`CX-G1`) and whose level is the rule's (ERROR → error, WARN → warning, INFO →
//! info). Each doc text is the user documentation.

use crate::checks::{Check, Family};
use crate::report::{Level, Tone};

/// The CrossExam family: codes `CX-`, the rule group letter (F, P, G, R, E, C, S, I), then the
/// rule number, exactly as the format note numbers them.
pub static FAMILY: Family = Family {
    name: "CrossExam",
    prefix: "CX-",
    grammar: "`CX-`, the rule group letter (F P G R E C S I), then the rule number (format note §12)",
    code_ok,
    group_label: Some("rule group"),
    group_ok,
    sources: &[(
        "format note",
        "format note: [specs/notes/crossexam-format.md](../../specs/notes/crossexam-format.md), read from crossexam 0.6.1 (`c571711`)",
    )],
    // Phase words carry no judgement: without a tone, each gets its own timeline colour.
    tones: &[("named", Tone::Good), ("not named", Tone::Bad), ("conceded", Tone::Good), ("standing", Tone::Unknown)],
    first_views: &["seats", "phases", "bus"],
    location_inputs: &["bus", "transcript"],
};

fn code_ok(code: &str) -> bool {
    let Some(rest) = code.strip_prefix("CX-") else { return false };
    let mut chars = rest.chars();
    let group_letter = chars.next().is_some_and(|c| "FPGRECSI".contains(c));
    let digits = chars.as_str();
    group_letter
        && !digits.is_empty()
        && !digits.starts_with('0')
        && digits.len() <= 2
        && digits.bytes().all(|b| b.is_ascii_digit())
}

fn group_ok(code: &str, group: Option<&str>) -> bool {
    group.is_some() && group == code.get(3..4)
}

macro_rules! check {
    ($id:ident, $code:literal, $anchor:literal, $name:literal, $level:ident, $group:literal, $summary:literal, what: $what:literal, why: $why:literal, example: $ex:literal) => {
        #[doc = $summary]
        pub static $id: Check = Check {
            code: $code,
            name: $name,
            level: Level::$level,
            family: &FAMILY,
            group: Some($group),
            summary: $summary,
            what: $what,
            why: $why,
            example: $ex,
            spec: concat!(
                "[specs/crossexam.md#",
                $anchor,
                "](../../specs/crossexam.md#",
                $anchor,
                "), rule ",
                $code,
                " (format note §12)"
            ),
        };
    };
}

check!(F1_UTF8, "CX-F1", "cx-f1", "transcript-not-utf8", Error, "F",
    "`bus.jsonl`, `task.md` and the sealed envelopes decode as UTF-8 without a byte-order mark",
    what: "Decodes each file strictly. A failure names the file, the physical line and the byte offset of the first \
           invalid byte; nothing is replaced (the line is then judged as unparsable, never as a message).",
    why: "The tool reads these files strictly as UTF-8 and crashes on invalid bytes; a BOM makes line 1 unparseable. \
          Such bytes come only from a direct writer or a hand edit.",
    example: "CX-F1 failed bus.jsonl line 3: invalid UTF-8 at byte 211");
check!(F2_LINE_END, "CX-F2", "cx-f2", "bus-final-newline-missing", Warning, "F",
    "A non-empty `bus.jsonl` ends with a line end (a mix of LF and CRLF is reported as info)",
    what: "Looks at the last byte of the bus. LF and CRLF are both the tool's (CRLF on Windows); a file that mixes them \
           gets an info-level result.",
    why: "The tool writes every line with its line end in one append; a missing final newline means a torn write or a \
          hand edit, and the next append would merge two messages.",
    example: "CX-F2 failed bus.jsonl: the last line has no line end");
check!(F3_PARSE, "CX-F3", "cx-f3", "bus-line-not-json-object", Error, "F",
    "Every non-blank bus line is a JSON object (blank lines: warning)",
    what: "Parses each physical line strictly (duplicate keys, lone surrogates and `NaN` are refused and named). A blank \
           or whitespace-only line is a warning: the tool skips it but it still uses up a number.",
    why: "The tool silently skips malformed lines, so a torn write or an edit drops a message without a trace except \
          its number.",
    example: "CX-F3 failed bus #4: line 4 is not a JSON object (line 1, column 12: unexpected end of input)");
check!(F4_DRIFT, "CX-F4", "cx-f4", "bus-number-drift", Warning, "F",
    "No line holds a character Python's `splitlines` splits on (U+0085, U+2028, U+2029, U+000B, U+000C, U+001C–U+001E, CR)",
    what: "Scans each physical line for the characters `str.splitlines()` treats as line ends besides LF. From the first \
           such line on, the tool's numbers differ from the physical ones; results give both (`bus #M (physical N)`).",
    why: "`json.dumps` writes U+0085/U+2028/U+2029 raw, so the tool splits one message into two malformed pieces, drops \
          it, and shifts every later number; syntheses cite the tool's numbers.",
    example: "CX-F4 failed bus #3 (physical 2): raw U+2028 splits this line for the tool; later numbers shift by 1");
check!(F5_FIELDS, "CX-F5", "cx-f5", "message-fields-invalid", Error, "F",
    "`ts`, `from`, `type`, `msg` are present strings; `ref` and `via`, when present, are strings",
    what: "Checks the four required fields and the two optional ones of every message object.",
    why: "Every tool path writes them as strings; a missing field or a number `ts` (which crashes `cxam log`) shows a \
          direct writer.",
    example: "CX-F5 failed bus #14: `ts` is a number, not a string");
check!(F6_TYPE, "CX-F6", "cx-f6", "message-type-unknown", Error, "F",
    "`type` is one of claim, verify, challenge, concede, info",
    what: "Compares the `type` string with the five message types (case-sensitive, as the CLI's argparse choices).",
    why: "The CLI refuses any other type; an unknown type can only come from a direct writer and is not part of the \
          protocol.",
    example: "CX-F6 failed bus #5: type \"vote\" is not one of claim, verify, challenge, concede, info");
check!(F7_SEAT, "CX-F7", "cx-f7", "seat-name-invalid", Error, "F",
    "`from` matches `^[A-Za-z0-9._-]{1,64}$` and is not `.` or `..` (warning in --legacy)",
    what: "Checks every `from` value against the seat-name rule the CLI enforces since 0.5.1; with `--legacy` (before \
           0.5.0, when names were unchecked) a failure is a warning.",
    why: "Seat names become file names (`.sealed/<seat>.jsonl`, `analysis/<seat>.md`); `../../x` escapes the arena.",
    example: "CX-F7 failed bus #9: seat name \"../evil\" is not a valid seat name");
check!(F8_LENGTH, "CX-F8", "cx-f8", "message-too-long", Error, "F",
    "`msg` is at most 1200 code points",
    what: "Counts Unicode code points (not bytes) of every `msg`.",
    why: "`cxam post` refuses longer messages and the advisory paths cut them to 1200; a longer one was written by hand.",
    example: "CX-F8 failed bus #13: msg has 1500 code points (limit 1200)");
check!(F9_VIA, "CX-F9", "cx-f9", "via-unknown", Warning, "F",
    "`via`, when present, is `api` or `clipboard`",
    what: "Compares the optional `via` field with the two values the advisory paths write.",
    why: "Only `cxam seat`/`cxam run` (`api`) and `cxam ingest` (`clipboard`) write `via`; another value is hand-made.",
    example: "CX-F9 failed bus #2: via \"email\" is not api or clipboard");
check!(F10_TS, "CX-F10", "cx-f10", "timestamp-unparsable", Warning, "F",
    "`ts` is an RFC 3339 timestamp with a UTC offset",
    what: "Parses `ts` as `YYYY-MM-DDTHH:MM:SS[.f](Z|±HH:MM)`. The tool writes `isoformat(timespec=\"seconds\")` with \
           an offset.",
    why: "Timing rules (R3, R4, I4) need instants; the tool's own tests write `\"t\"`, which no timing rule can place.",
    example: "CX-F10 failed bus #1: ts \"t0-10\" is not an RFC 3339 timestamp with an offset");
check!(F11_FINGERPRINT, "CX-F11", "cx-f11", "hand-written-line", Info, "F",
    "The line is byte-identical to the tool's serialisation in one of its key orders",
    what: "Re-serialises each message as Python's `json.dumps(ensure_ascii=False)` in the key orders the tool writes \
           (`ts, from, type, msg[, ref]` and `ts, from, type, msg, via[, ref]`) and compares bytes.",
    why: "A line no tool path could have written flags a direct writer (allowed by the generic adapter, and the main \
          source of real violations).",
    example: "CX-F11 failed bus #7: not the tool's serialisation (hand-written line)");
check!(P1_MARKER, "CX-P1", "cx-p1", "phase-marker-invalid", Warning, "P",
    "`task.md` exists and its first `status:` marker names blind, debate or closed",
    what: "Reads `task.md` with the tool's exact rule: the first line-start `status:`, any whitespace (newlines \
           included), then a run of non-whitespace, which must be exactly `blind`, `debate` or `closed`.",
    why: "Without a valid marker the tool (0.6.0+) treats the arena as blind, and before 0.6.0 as debate: the phase \
          depends on the tool version.",
    example: "CX-P1 failed task.md: no valid phase marker (the tool reads the phase as blind)");
check!(P2_NOTE_SHAPE, "CX-P2", "cx-p2", "phase-note-malformed", Error, "P",
    "An info line starting `phase -> ` is exactly a phase note the tool writes",
    what: "Accepts `phase -> blind|debate|closed` and `phase -> debate (N sealed claim(s) revealed)` with N ≥ 1 in \
           decimal. A malformed note does not change the replayed phase.",
    why: "Only the tool writes phase notes; a suffix on a non-debate note (0.5.1+) or N = 0 was typed by someone.",
    example: "CX-P2 failed bus #6: \"phase -> closed (2 sealed claim(s) revealed)\" is not a phase note the tool writes");
check!(P3_FINAL_PHASE, "CX-P3", "cx-p3", "phase-record-mismatch", Error, "P",
    "The phase reached by replaying the notes equals `task.md`'s marker",
    what: "Replays the bus from blind, applying each well-formed phase note, and compares the last phase with the one \
           the tool reads from `task.md` (blind when the marker is invalid; debate with --legacy).",
    why: "Phase notes cannot be authenticated: a forged note (`cxam post info \"phase -> debate\"`) or a hand edit of \
          `task.md` shows only as this mismatch.",
    example: "CX-P3 failed task.md: replaying the notes gives debate, task.md says blind");
check!(P4_FLIPPER, "CX-P4", "cx-p4", "phase-flipped-by-seat", Warning, "P",
    "Phase notes come from `moderator`, not from a seat that argued; `moderator` posts only info",
    what: "Flags a phase note whose `from` is a seat that posted claim, verify, challenge or concede, and a non-info \
           message signed `moderator`.",
    why: "The protocol reserves phase flips to the moderator; the tool does not enforce it, so a seat flipping its own \
          debate (or posing as the moderator) is visible only here.",
    example: "CX-P4 failed bus #16: phase note by seat \"gpt\", which also argued");
check!(P5_TRANSITION, "CX-P5", "cx-p5", "phase-transition-irregular", Warning, "P",
    "No blind→closed or backward phase moves (a repeated phase is info)",
    what: "Looks at each phase change the notes replay: blind→closed strands sealed envelopes, backward moves reopen a \
           settled phase; repeating the current phase is reported at info level.",
    why: "The tool allows every transition; the protocol runs blind → debate → closed once.",
    example: "CX-P5 failed bus #8: phase moves backward, closed → debate");
check!(G1_BLIND_ARGUMENT, "CX-G1", "cx-g1", "argument-during-blind", Error, "G",
    "No verify, challenge or concede while the replayed phase is blind",
    what: "Replays the phase and flags every verify, challenge or concede appended while it was blind.",
    why: "Blind answers must be independent; the CLI refuses these types in blind, so one on the bus came from a direct \
          writer or a forged phase.",
    example: "CX-G1 failed bus #3: verify by \"gpt\" while the phase is blind");
check!(G2_SEAL_BYPASS, "CX-G2", "cx-g2", "claim-unsealed-in-blind", Error, "G",
    "No claim on the bus while blind unless it is inside a reveal block (info in --legacy)",
    what: "Flags claims appended to the bus during blind that are not part of the run revealed right before a \
           `phase -> debate (N sealed claim(s) revealed)` note. Before 0.5.0 (`--legacy`) blind claims went to the \
           bus by design: info.",
    why: "Since 0.5.0 a blind claim is sealed until debate; a claim on the bus in blind is visible to the other seats \
          and bypasses the seal.",
    example: "CX-G2 failed bus #1: claim by \"rogue\" on the bus during blind, outside any reveal block");
check!(G3_CLOSED, "CX-G3", "cx-g3", "argument-after-close", Error, "G",
    "Only info while closed",
    what: "Flags every non-info message appended while the replayed phase is closed.",
    why: "The CLI accepts only info once closed; the synthesis is written from a bus that must stop changing.",
    example: "CX-G3 failed bus #12: claim by \"late\" after the phase is closed");
check!(G4_ONE_CLAIM, "CX-G4", "cx-g4", "claims-per-blind-window", Warning, "G",
    "At most one claim per seat per blind window (sealed plus bus)",
    what: "Counts each seat's claims in each blind window: bus claims appended during it (revealed or not) and, while \
           the arena is still blind, its pending envelopes.",
    why: "The protocol says \"post ONE claim\"; a second blind claim lets a seat hedge.",
    example: "CX-G4 failed seat \"alpha\": 2 claims in the blind window ending at bus #4");
check!(G5_LATE_CLAIM, "CX-G5", "cx-g5", "claim-during-debate", Info, "G",
    "A claim posted during debate (late, not blind)",
    what: "Flags claims appended while the phase is debate (not revealed envelopes).",
    why: "Legal, but such a claim was written after seeing the others' answers; a reader weighs it differently.",
    example: "CX-G5 failed bus #9: claim by \"gemini\" during debate (late, not blind)");
check!(R1_BLOCK_SHAPE, "CX-R1", "cx-r1", "reveal-block-not-claims", Error, "R",
    "The N parsed lines before a `phase -> debate (N …)` note are all claims",
    what: "For each debate note with a reveal count N, takes the N nearest non-blank parsed lines before it and checks \
           that there are N and that each is a claim.",
    why: "The reveal appends exactly the N envelopes right before its note; anything else there was inserted or the \
          note was forged.",
    example: "CX-R1 failed bus #4: the note announces 3 revealed claims, bus #2 is a verify");
check!(R2_BLOCK_ORDER, "CX-R2", "cx-r2", "reveal-block-unsorted", Error, "R",
    "Inside a reveal block, `ts` strings do not decrease; on equal `ts`, `<from>.jsonl` does not decrease",
    what: "Compares consecutive revealed claims as the reveal sorts them: by the `ts` string (code points), ties by the \
           envelope file name.",
    why: "The reveal's stable sort always yields this order; another order means the block was not made by the reveal \
          or was edited.",
    example: "CX-R2 failed bus #3: revealed out of order (ts \"…:12\" after \"…:13\")");
check!(R3_BLOCK_TIMING, "CX-R3", "cx-r3", "reveal-block-timing", Warning, "R",
    "Each revealed `ts` lies between the start of its blind window and its note",
    what: "As instants: each revealed claim is not later than the note announcing it and not earlier than the latest \
           earlier `phase -> blind` note (or the first bus line).",
    why: "A stale envelope from an abandoned run, or a skewed clock, shows as a claim outside its window.",
    example: "CX-R3 failed bus #2: revealed ts 2026-11-29T10:00:00+00:00 is before its blind window opened");
check!(R4_CHRONOLOGY, "CX-R4", "cx-r4", "reveal-order-not-chronological", Info, "R",
    "The reveal order equals the order of the claims' instants",
    what: "Compares the block's string order with instant order (mixed UTC offsets make them differ).",
    why: "The reveal sorts by string, so with mixed offsets the first poster may be revealed last; a reader should not \
          take block order as posting order.",
    example: "CX-R4 failed bus #4: reveal order differs from time order (mixed UTC offsets)");
check!(R5_NO_SUFFIX, "CX-R5", "cx-r5", "debate-without-reveal", Info, "R",
    "A debate note without a reveal count follows a blind window with no bus claims",
    what: "A `phase -> debate` note with no suffix means nothing was sealed; if the blind window before it has claims \
           on the bus, they were all bypasses (reported under CX-G2) and this note confirms no envelope existed.",
    why: "It tells a reader why every blind claim of that window counts as a seal bypass.",
    example: "CX-R5 failed bus #4: debate opened with no reveal although 2 claims were on the bus during blind");
check!(R6_STRANDED, "CX-R6", "cx-r6", "envelopes-stranded", Error, "R",
    "No non-empty `.sealed/*.jsonl` once the phase is debate or closed (pending in blind: info)",
    what: "Lists `.sealed/*.jsonl` (lock sidecars ignored) and compares with `task.md`'s phase.",
    why: "The reveal deletes every envelope when debate opens; one left afterwards is a claim nobody saw (blind → \
          closed, or an envelope written by hand).",
    example: "CX-R6 failed .sealed/gpt.jsonl: 1 sealed claim stranded while task.md says closed");
check!(R7_ENVELOPE, "CX-R7", "cx-r7", "envelope-content-invalid", Error, "R",
    "Each envelope line is a JSON claim whose `from` equals the file's stem",
    what: "Parses every line of every `.sealed/<seat>.jsonl` and checks it is a claim signed by `<seat>`.",
    why: "The reveal silently drops unparsable lines and trusts `from`; a foreign or malformed envelope line is lost or \
          misattributed at reveal.",
    example: "CX-R7 failed .sealed/alpha.jsonl line 1: from \"beta\" in alpha's envelope");
check!(E1_REF_MISSING, "CX-E1", "cx-e1", "evidence-ref-missing", Warning, "E",
    "Every verify and challenge carries a non-empty `ref`",
    what: "The same condition as the CLI's warning \"<type> without --ref. Evidence or it didn't happen.\"",
    why: "A verify or challenge is a claim about evidence; without a pointer nobody can re-run it.",
    example: "CX-E1 failed bus #6: challenge by \"dave\" has no ref");
check!(E2_REF_PATH, "CX-E2", "cx-e2", "ref-path-unresolved", Warning, "E",
    "A ref's path names an existing file (relative to `_Msg/`, then to the project root)",
    what: "Splits the ref at the first `#` (and a trailing `:LINE`), resolves the path against `_Msg/` and then its \
           parent, and checks a regular file is there.",
    why: "The tool never checks refs; its own demo points at analysis files it never writes.",
    example: "CX-E2 failed bus #1: ref \"analysis/sonnet.md\" names no file");
check!(E3_REF_ANCHOR, "CX-E3", "cx-e3", "ref-anchor-unresolved", Warning, "E",
    "A ref's anchor names a heading (GitHub slug) or an `id`/`name` attribute of its Markdown target",
    what: "Compares the anchor case-insensitively with the GitHub-style slugs of the target's headings (repeats get \
           `-1`, `-2`…) and its HTML `id=`/`name=` values. An anchor on a non-Markdown file or a `path:line` form \
           cannot be decided (cantTell).",
    why: "An anchor that names nothing points the reader at the whole file, not at the evidence.",
    example: "CX-E3 failed bus #7: anchor \"recheck\" names no heading of analysis/sonnet.md");
check!(E4_REF_ESCAPES, "CX-E4", "cx-e4", "ref-outside-project", Warning, "E",
    "A ref is relative and stays inside the project root",
    what: "Flags absolute refs and refs whose `..` components leave the parent of `_Msg/`; they are not resolved.",
    why: "Evidence outside the project cannot be reviewed with it, and resolving it would read arbitrary files.",
    example: "CX-E4 failed bus #3: ref \"../../etc/passwd\" leaves the project root");
check!(C1_CONCEDE_UNVERIFIED, "CX-C1", "cx-c1", "concede-without-verify", Warning, "C",
    "A concede by a seat follows a verify by the same seat",
    what: "Mirrors the 0.6.1 CLI check exactly: any earlier verify by the conceding seat, about anything.",
    why: "\"Concession should cost execution\": a seat should reproduce the winning counter-example before yielding.",
    example: "CX-C1 failed bus #9: concede by \"erin\" with no earlier verify by erin");
check!(C2_CONCEDE_UNCLAIMED, "CX-C2", "cx-c2", "concede-without-claim", Warning, "C",
    "A conceding seat made a claim before",
    what: "Flags a concede by a seat with no earlier claim on the bus.",
    why: "Conceding nothing inflates the concession count and misreads the panel.",
    example: "CX-C2 failed bus #8: concede by \"meek\", which never claimed");
check!(C3_CLAIM_AFTER_CONCEDE, "CX-C3", "cx-c3", "claim-after-concede", Info, "C",
    "A seat claims again after conceding",
    what: "Flags a claim by a seat that conceded earlier.",
    why: "It reopens a question the seat had given up; a reader should see it.",
    example: "CX-C3 failed bus #11: claim by \"carol\" after her concede at bus #8");
check!(S1_SYNTHESIS_MISSING, "CX-S1", "cx-s1", "synthesis-missing", Warning, "S",
    "A closed transcript has a `synthesis.md`",
    what: "Checks that `synthesis.md` exists when `task.md` says closed.",
    why: "The synthesis is the panel's product; the tool never creates or requires it.",
    example: "CX-S1 failed synthesis.md: the phase is closed and there is no synthesis");
check!(S2_SYNTHESIS_HEADINGS, "CX-S2", "cx-s2", "synthesis-headings-missing", Warning, "S",
    "`synthesis.md` has Consensus and Disagreements headings",
    what: "Looks for Markdown headings (any level, case-insensitive) named Consensus and Disagreements, as both \
           synthesizer prompts request.",
    why: "Without the two sections a reader cannot tell what survived cross-examination from what did not.",
    example: "CX-S2 failed synthesis.md: no Disagreements heading");
check!(S3_DISAGREEMENT_TABLE, "CX-S3", "cx-s3", "disagreements-table-missing", Warning, "S",
    "The Disagreements section holds a pipe table of at least 4 columns",
    what: "Finds a Markdown pipe table with ≥ 4 columns (claim | seats for | seats against | evidence) under the \
           Disagreements heading; a section saying only \"none\" fails at this level.",
    why: "The prompts ask for the table so disagreements are not papered over.",
    example: "CX-S3 failed synthesis.md: the Disagreements section has no table of 4 or more columns");
check!(S4_UNCONCEDED_NAMED, "CX-S4", "cx-s4", "unconceded-seat-unnamed", Warning, "S",
    "Every seat that claimed and never conceded is named in `synthesis.md`",
    what: "For each seat with a claim and no concede, looks for its name as a whole word in the synthesis.",
    why: "A synthesis that leaves out a standing claimant hides a live disagreement.",
    example: "CX-S4 failed synthesis.md: seat \"gpt\" claimed, never conceded, and is not named");
check!(S5_CITATIONS, "CX-S5", "cx-s5", "synthesis-citation-dangling", Warning, "S",
    "Bus citations in the synthesis (`#N`, `bus #N`, `log #N`) name existing lines",
    what: "Finds `#N` citations and checks 1 ≤ N ≤ the number of lines the tool counts.",
    why: "Citations are the only link from a conclusion to its evidence; a dangling one was miscounted or the bus \
          shrank.",
    example: "CX-S5 failed synthesis.md: cites bus #14, the bus has 11 lines");
check!(S6_SYNTHESIS_EARLY, "CX-S6", "cx-s6", "synthesis-before-close", Warning, "S",
    "No `synthesis.md` while the phase is not closed",
    what: "Checks that a synthesis exists only when `task.md` says closed.",
    why: "A synthesis written before the close may miss the last arguments.",
    example: "CX-S6 failed synthesis.md: present while the phase is debate");
check!(I1_CURSOR, "CX-I1", "cx-i1", "cursor-beyond-bus", Error, "I",
    "Each `.seen/<seat>` cursor is at most the tool's line count",
    what: "Reads each cursor as the tool does (non-digits stripped) and compares it with the number of lines the tool \
           counts.",
    why: "A cursor records how far a seat read; one past the end means the bus was truncated or rewritten after it \
          was read.",
    example: "CX-I1 failed .seen/alpha: cursor 12, the bus has 9 lines");
check!(I2_CURSOR_NAME, "CX-I2", "cx-i2", "cursor-name-invalid", Warning, "I",
    "`.seen/*` file names are valid seat names",
    what: "Checks each cursor file name against the seat-name rule.",
    why: "The tool only writes cursors under valid seat names; another name was made by hand.",
    example: "CX-I2 failed .seen/bad name: not a valid seat name");
check!(I3_PREFIX, "CX-I3", "cx-i3", "bus-rewritten", Error, "I",
    "Every earlier version of `bus.jsonl` (each git commit, each `--prior`) is a byte prefix of the next",
    what: "Compares the bytes of each committed version of the bus in git history (parents before children) with the \
           next and with the current file, and each `--prior` snapshot with the current file. The bus is followed \
           through deletions (a version re-created later is compared with the one before the deletion) and moves of \
           `_Msg/`; a link at its path, a shallow clone or an unreadable object is cantTell with the fix \
           (`git fetch --unshallow`, or `--prior`). Without either, append-only cannot be decided from one snapshot \
           (cantTell).",
    why: "The bus is append-only by convention only; this is the one real proof that no earlier line was edited or \
          deleted.",
    example: "CX-I3 failed --prior prior/bus.jsonl: not a prefix of bus.jsonl (first difference at line 1)");
check!(I4_TS_REGRESSION, "CX-I4", "cx-i4", "timestamp-regression", Warning, "I",
    "Outside reveal blocks, no `ts` is earlier than the previous line's",
    what: "Compares instants of consecutive non-revealed lines.",
    why: "Appends happen in time order; a step back is backdating, clock skew or an edit.",
    example: "CX-I4 failed bus #7: ts 12:30:00 is earlier than bus #6's 12:31:00");
check!(I5_LOCK_DIRS, "CX-I5", "cx-i5", "lock-directory-leftover", Info, "I",
    "No leftover `*.lock` directories",
    what: "Lists `*.lock` entries that are directories (0.5.0's mkdir locks).",
    why: "A leftover lock directory means a writer crashed while holding it; its write may be torn.",
    example: "CX-I5 failed bus.jsonl.lock: a leftover lock directory (crashed 0.5.0 writer)");

/// Every CrossExam check, in rule order.
pub static CHECKS: &[&Check] = &[
    &F1_UTF8,
    &F2_LINE_END,
    &F3_PARSE,
    &F4_DRIFT,
    &F5_FIELDS,
    &F6_TYPE,
    &F7_SEAT,
    &F8_LENGTH,
    &F9_VIA,
    &F10_TS,
    &F11_FINGERPRINT,
    &P1_MARKER,
    &P2_NOTE_SHAPE,
    &P3_FINAL_PHASE,
    &P4_FLIPPER,
    &P5_TRANSITION,
    &G1_BLIND_ARGUMENT,
    &G2_SEAL_BYPASS,
    &G3_CLOSED,
    &G4_ONE_CLAIM,
    &G5_LATE_CLAIM,
    &R1_BLOCK_SHAPE,
    &R2_BLOCK_ORDER,
    &R3_BLOCK_TIMING,
    &R4_CHRONOLOGY,
    &R5_NO_SUFFIX,
    &R6_STRANDED,
    &R7_ENVELOPE,
    &E1_REF_MISSING,
    &E2_REF_PATH,
    &E3_REF_ANCHOR,
    &E4_REF_ESCAPES,
    &C1_CONCEDE_UNVERIFIED,
    &C2_CONCEDE_UNCLAIMED,
    &C3_CLAIM_AFTER_CONCEDE,
    &S1_SYNTHESIS_MISSING,
    &S2_SYNTHESIS_HEADINGS,
    &S3_DISAGREEMENT_TABLE,
    &S4_UNCONCEDED_NAMED,
    &S5_CITATIONS,
    &S6_SYNTHESIS_EARLY,
    &I1_CURSOR,
    &I2_CURSOR_NAME,
    &I3_PREFIX,
    &I4_TS_REGRESSION,
    &I5_LOCK_DIRS,
];

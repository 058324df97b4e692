//! The CrossAudit checks (family `A`). The first digit of a code is the invariant it enforces
//! (paper §3.2); `0` marks format-level checks. Each doc text is the user documentation.

use crate::checks::{Check, Family};
use crate::report::{Level, Tone};

/// The CrossAudit family: codes `CV-A` and three digits, grouped by the invariant (I1–I8) the
/// first digit names.
pub static FAMILY: Family = Family {
    name: "CrossAudit",
    prefix: "CV-A",
    grammar: "`CV-A` then three digits, the first naming the invariant (0 for format-level checks)",
    code_ok,
    group_label: Some("invariant"),
    group_ok,
    sources: &[
        ("formats note", "formats note: [specs/notes/crossaudit-formats.md](../../specs/notes/crossaudit-formats.md)"),
        (
            "real-ledger note",
            "real-ledger note: [specs/notes/crossaudit-real-ledgers.md](../../specs/notes/crossaudit-real-ledgers.md)",
        ),
        ("paper", "paper: *CrossAudit: A Git-Native, Cross-Vendor Audit Loop for Agentic Science*"),
    ],
    tones: &[
        ("enforced", Tone::Good),
        ("PASS", Tone::Good),
        ("yes", Tone::Good),
        ("ready", Tone::Good),
        ("admissible", Tone::Good),
        ("violated", Tone::Bad),
        ("BLOCK", Tone::Bad),
        ("BLOCKED", Tone::Bad),
        ("ESCALATE", Tone::Bad),
        ("no", Tone::Bad),
        ("not admissible", Tone::Bad),
        ("PASS_WITH_CAVEATS", Tone::Unknown),
        ("DCL_ONLY", Tone::Unknown),
        ("partial", Tone::Unknown),
    ],
    // A journal editor's reading order: the I1–I8 matrix, the per-cycle timeline, findings
    // per cycle, closure lag, the per-finding lifecycle, then the cycles.
    first_views: &["conformance", "timeline", "findings-per-cycle", "closure-lag", "findings", "cycles"],
    location_inputs: &["receipt", "audit", "path", "repo", "science"],
};

fn code_ok(code: &str) -> bool {
    crate::checks::prefix_and_digits(code, "CV-A", 3)
}

fn group_ok(code: &str, group: Option<&str>) -> bool {
    match code.as_bytes().get(4) {
        Some(b'0') => true,
        Some(d) => group == Some(format!("I{}", char::from(*d)).as_str()),
        None => false,
    }
}

macro_rules! check {
    ($id:ident, $code:literal, $name:literal, $level:ident, $inv:expr, $summary:literal, what: $what:literal, why: $why:literal, example: $ex:literal, spec: $spec:literal) => {
        #[doc = $summary]
        pub static $id: Check = Check {
            code: $code,
            name: $name,
            level: Level::$level,
            family: &FAMILY,
            group: $inv,
            summary: $summary,
            what: $what,
            why: $why,
            example: $ex,
            spec: $spec,
        };
    };
}

check!(RECORD_PARSES, "CV-A001", "record-unparsable", Error, None,
    "Every ledger record parses strictly (JSON without duplicate keys, YAML, JSON Lines)",
    what: "Parses each record the ledger holds — `receipt.json`, `checks.json`, `raw_exchange.json`, `controller/state.json`, \
           `disputes.jsonl`, `crossaudit.yml` — with a strict parser: malformed JSON, duplicate keys, lone surrogates, \
           trailing data, nesting deeper than 128 levels and records larger than 64 MiB are refused by file name and reason. \
           A `crossaudit.yml` larger than 1 MiB, or whose aliases would expand beyond 100 000 nodes (an alias bomb), is \
           refused before anything is expanded; a schema-2 one with a key the product's loader refuses (unknown top-level keys, unknown keys of \
           `auditor`, `generator`, their `fallbacks`, `isolation.minimum`, `resilience`, `budgets`) is refused as the \
           product refuses it.",
    why: "Python's `json` keeps the last of two duplicate keys. A receipt with `\"verdict\": \"BLOCKED\"` and a later \
          `\"verdict\": \"PASS\"` reads as PASS to the reference verifier and as BLOCKED to a human skimming it; a \
          verifier must refuse the ambiguity instead of picking a side (formats note §12).",
    example: "CV-A001 failed cycles/9c604cba4273-r2/receipt.json: line 41, column 5: duplicate key \"verdict\"",
    spec: "[specs/crossaudit.md#cv-a001](../../specs/crossaudit.md#cv-a001); formats note §7.1 check 1, §7.3 checks 1–2");

check!(RECEIPT_SHAPE, "CV-A002", "receipt-malformed", Error, None,
    "Each receipt has every required field with a well-formed value",
    what: "v1: the 13 required keys of the reference verifier (§7.1 check 2). Schema 2: every required key of every \
           block (§7.3 check 5), `receipt_schema` exactly the integer 2, verdict, retention and integrity from their \
           vocabularies, isolation booleans and evidence strings. Both: `sha`/`tree` 40-hex, digests 64-hex, round a \
           positive integer, a declared auditor model, manifest values a digest or `ABSENT`, and manifest keys that are \
           repository paths (no absolute paths, no `..`, no empty or `.` components, no NUL) spelled as the dialect \
           spells tree names, so that each file has exactly one key and each key one file. Schema 2 writes the raw \
           UTF-8 name: backslashes, tabs, newlines and quotes are legal, as git accepts them. v1 writes git's C-quoted \
           form of every name git quotes (non-ASCII, control characters, `\"`, `\\`) and the raw name otherwise: a raw \
           key git would have quoted, a quoted key for a name git leaves unquoted, a quoted key with an escape git does \
           not write (`\\q`, `\\xff`), or malformed quoting is refused. Keys are matched to tree entries by their exact \
           bytes, never by a lossy decoding.",
    why: "I7 requires the verdict to bind commit, manifest, versions, prompt and auditor identity: \"a verdict that binds \
          less is not a receipt\". The references only test presence, so a 39-character SHA or a `../../etc/passwd` \
          manifest key would pass there. A second spelling of a name (raw and quoted, or two names that decode lossily \
          to one string) would let one key stand for two files and a lookup keep whichever came last.",
    example: "CV-A002 failed cycles/aa3b…/receipt.json: receipt missing fields: [\"auditor_model\"]",
    spec: "[specs/crossaudit.md#cv-a002](../../specs/crossaudit.md#cv-a002); paper §3.2 I7; formats note §5.4, §5.6, §7");

check!(LEDGER_HAS_CYCLES, "CV-A003", "ledger-empty", Error, None,
    "The ledger holds at least one audit cycle",
    what: "Counts the cycle directories found at the audit revision (`cycles/<sha>[-r<n>]/` in v1, \
           `<ledger.dir>/<sha12>-r<n>[.k]/` in schema 2, `CYCLE-NNNNNN/` in the deployed format). None is `cantTell`.",
    why: "An empty or mis-located ledger verifies vacuously; saying \"nothing found\" keeps absent evidence from reading as a pass.",
    example: "CV-A003 cantTell ledger: no cycle directory under `cycles/` at audit commit 1b8ab94c32da",
    spec: "[specs/crossaudit.md#cv-a003](../../specs/crossaudit.md#cv-a003)");

check!(LEDGER_LAYOUT, "CV-A004", "ledger-layout-unexpected", Warning, None,
    "Everything under the ledger directory belongs to a complete cycle directory",
    what: "Lists entries under the ledger directory that are not cycle directories of the dialect (and are not the \
           product's `README.md`, `disputes.jsonl`, `routing.jsonl`), and cycle directories holding files the dialect \
           does not write.",
    why: "Stray artefacts in the ledger are not bound by any receipt; a reader could mistake them for audit records.",
    example: "CV-A004 failed cycles/notes.txt: not a cycle directory of the schema2 layout",
    spec: "[specs/crossaudit.md#cv-a004](../../specs/crossaudit.md#cv-a004); formats note §4.2–§4.3");

check!(LEDGER_LAYOUTS_MIXED, "CV-A005", "ledger-layouts-mixed", Error, None,
    "The ledger holds the records of one layout, or each layout is verified by name",
    what: "Auto-detection reads the receipts' marker keys and the directory names at the audit revision. A ledger that \
           holds more than one layout (v1 receipts, schema-2 receipts, deployed `CYCLE-NNNNNN` directories) fails, and \
           the message gives the `--dialect` command that verifies each layout present.",
    why: "Files copied beside a ledger must never weaken its verdict. Picking one layout lets a copied-in folder choose \
          the checks a tampered ledger meets, and refusing to run (exit 2) reads weaker than the failure the ledger \
          earned: the mixture is committed by the ledger's authors, so it is a finding about the record, not a wrong \
          argument.",
    example: "CV-A005 failed ledger: the ledger holds schema2 receipts (3, e.g. cycles/1a2b3c4d5e6f-r1/receipt.json) and \
              deployed CYCLE-NNNNNN directories (2); … crossverify ledger --audit A --dialect schema2",
    spec: "[specs/crossaudit.md#cv-a005](../../specs/crossaudit.md#cv-a005); paper §3.2 I8 (fail closed)");

check!(VENDOR_HETEROGENEITY, "CV-A101", "vendor-heterogeneity-violated", Error, Some("I1"),
    "The auditor's vendor differs from the generator's, as crossaudit.yml declares it",
    what: "Reads `crossaudit.yml` at the audited commit (v1, and the product's local mode) or at the audit commit \
           (paired mode). v1 compares `generator.vendor` and `auditor.vendor` as exact strings (the reference rule); \
           schema 2 trims and lower-cases them and, in v4, compares the whole pools including fallbacks. A missing \
           generator vendor is `cantTell`. A schema-2 receipt whose `isolation.parametric` claims heterogeneity the \
           configuration does not support fails.",
    why: "I1: the auditor must never judge its own model family's output. Exact comparison lets `OpenAI` and `openai` \
          count as different vendors; the product's normalisation closes that, and the verifier reports which rule it \
          applied.",
    example: "CV-A101 failed cycle cycles/2f72…-r1: generator vendor \"openai\" equals auditor vendor \"OpenAI \" after trimming and lower-casing",
    spec: "[specs/crossaudit.md#cv-a101](../../specs/crossaudit.md#cv-a101); paper §3.2 I1; formats note §2");

check!(AUDITOR_IDENTITY, "CV-A102", "auditor-identity-mismatch", Error, Some("I1"),
    "The auditor a receipt declares agrees with its report, its exchange record and the configuration",
    what: "v1: `auditor_model` equals the report's Auditor row (or its offline form) and `raw_exchange.json`'s model. \
           Schema 2: `audit.vendor` is the configured auditor vendor or one of its fallbacks, `isolation.provider` is \
           `<provider>:<model>`, the report's auditor row — exactly `` `<provider>:<model>` (vendor <vendor>; effort \
           <effort>) `` as the product renders it — names the receipt's provider, model, vendor and (v4) \
           `audit.reasoning_effort`, each compared whole, and an online exchange record's provider, model, vendor and \
           reasoning effort equal the receipt's.",
    why: "I7 binds the verdict to the auditor's declared identity; a receipt that names one auditor while its report \
          names another binds nothing.",
    example: "CV-A102 failed cycles/9c60…-r2: receipt auditor openai_compat:gpt-5 but report row says `replay:replay-transcript`",
    spec: "[specs/crossaudit.md#cv-a102](../../specs/crossaudit.md#cv-a102); paper §3.2 I1, I7");

check!(ISOLATION_EVIDENCE, "CV-A103", "isolation-evidence-inconsistent", Error, Some("I1"),
    "A schema-2 receipt's isolation claims agree with its own evidence",
    what: "`contextual` must be true; `permissive` true requires a non-local execution; `execution` is `local` exactly \
           when `ledger.audit_repo` is `local`; `credential`, `provisioner`, `admission` carry the product's values; \
           `parametric` is what the product computes from `crossaudit.yml` (`config.heterogeneity`: a declared generator \
           vendor whose pool, with fallbacks, is disjoint from the auditor's), in either direction.",
    why: "The isolation booleans are what admission reads; evidence that contradicts them means the booleans were edited.",
    example: "CV-A103 failed cycles/53895ccfd946-r2: isolation.permissive is true but execution is local",
    spec: "[specs/crossaudit.md#cv-a103](../../specs/crossaudit.md#cv-a103); formats note §5.6");

check!(LEDGER_APPEND_ONLY, "CV-A201", "ledger-record-rewritten", Error, Some("I2"),
    "Ledger records were added once and never modified or deleted afterwards",
    what: "Walks the audit branch's full history (a shallow clone is `cantTell`) and records, for every file under the \
           ledger directory, the commit that added it; any later commit that modifies or deletes it fails, naming \
           both commits. The report states which commit each receipt was first committed in.",
    why: "I2 makes the supervision history replayable from the repositories; a rewritten report or receipt silently \
          changes what was decided. The references enforce append-only only by refusing to overwrite at write time.",
    example: "CV-A201 failed cycles/2f72bfe49289-r1/receipt.json: added in 08998ddf22d4, modified in 5d1c0e3a9b21",
    spec: "[specs/crossaudit.md#cv-a201](../../specs/crossaudit.md#cv-a201); paper §3.2 I2, §4.2");

check!(AUDIT_HEAD_PINNED, "CV-A202", "audit-history-rewritten", Error, Some("I2"),
    "A previously pinned audit head is an ancestor of the current one",
    what: "With `--expect-audit-head SHA`, checks that SHA is the current audit head or one of its ancestors; \
           inapplicable without the option.",
    why: "Pinning the head seen at the last verification detects a force-pushed, rewritten ledger — the deployment's \
          own controller validates audit commits the same way.",
    example: "CV-A202 failed audit head: pinned 88b92429ee3c is not an ancestor of 039632047431 (history rewritten)",
    spec: "[specs/crossaudit.md#cv-a202](../../specs/crossaudit.md#cv-a202); paper §4.2");

check!(CYCLE_ARTEFACTS, "CV-A204", "cycle-artefact-missing", Error, Some("I2"),
    "Each cycle directory holds every artefact its dialect writes",
    what: "v1: `report.md`, `checks.json`, `raw_exchange.json`, `receipt.json`. Schema 2: `report.md`, `checks.json`, \
           `receipt.json`. A missing receipt makes the cycle's verdict unbound. Schema 2 only: a directory holding \
           `report.md` (and perhaps `checks.json`) but no `receipt.json` is what the product leaves when a round is \
           interrupted between its report commit and its receipt commit; it passes when a later attempt of the same \
           round (`<sha12>-r<n>.<k>`) holds a receipt, and is `cantTell` otherwise (nothing binds it, nothing is claimed).",
    why: "I2's first tier is parsed-record inspectability: reports, deterministic output and receipts as committed.",
    example: "CV-A204 failed cycles/7f1113ff7382-r1: checks.json missing",
    spec: "[specs/crossaudit.md#cv-a204](../../specs/crossaudit.md#cv-a204); formats note §4.2–§4.3");

check!(CITATIONS_VALID, "CV-A301", "citation-unknown-rule", Error, Some("I3"),
    "The audit cites rules, and every rule it cites exists in the Constitution version in force",
    what: "Reads the Constitution at the version the receipt binds (v1: the bound commit; schema 2: the audit commit \
           that added the receipt, after CV-A706 checks its content hash) with the dialect's heading rule, then checks \
           that the reply's `sections_applied` (v1 `raw_exchange.json`, product report \"Rules applied\") is non-empty and \
           that every applied and every cited rule ID of the model's findings is a rule of that version.",
    why: "I3: a report that cites nothing, or cites rules that do not exist, is invalid and must escalate; it can never pass.",
    example: "CV-A301 failed cycles/60b9…-r1: finding cites CA-DATA-009, not in AUDIT_RULES.md at 1b8ab94c32da",
    spec: "[specs/crossaudit.md#cv-a301](../../specs/crossaudit.md#cv-a301); paper §3.2 I3; formats note §5.9");

check!(BLOCKER_CITES_BLOCKER, "CV-A302", "blocker-cites-non-blocker-rule", Error, Some("I3"),
    "Every BLOCKER model finding cites a rule whose declared severity is BLOCKER (CA-META-003)",
    what: "Looks up the declared severity of the rule each BLOCKER model finding cites in the Constitution version in force.",
    why: "CA-META-003: the auditor may not issue a BLOCKER without citing a BLOCKER-severity rule, so it does not \
          legislate taste. The references enforce this by prompt only; no code checks it.",
    example: "CV-A302 failed cycles/…-r1: BLOCKER finding cites CA-REPRO-002, declared ADVISORY",
    spec: "[specs/crossaudit.md#cv-a302](../../specs/crossaudit.md#cv-a302); paper §3.3");

check!(PASS_WITH_BLOCKER, "CV-A303", "pass-with-blocker", Error, Some("I3"),
    "No PASS verdict carries a BLOCKER finding",
    what: "A recorded PASS with any BLOCKER finding in the report (model or deterministic) fails.",
    why: "The reply validator refuses \"verdict PASS while carrying a BLOCKER finding\"; a PASS that carries one was \
          either forged after the fact or produced by a runner that skipped validation.",
    example: "CV-A303 failed cycles/…-r2: verdict PASS while the report lists [BLOCKER] CA-DATA-001",
    spec: "[specs/crossaudit.md#cv-a303](../../specs/crossaudit.md#cv-a303); formats note §5.9 rule 10");

check!(VERDICT_PRECEDENCE, "CV-A304", "verdict-precedence-violated", Error, Some("I3"),
    "The recorded verdict is what the paper's synthesis gives for the recorded inputs",
    what: "Replays verdict synthesis from the records: escalation lock (an earlier ESCALATED round of the cycle), \
           invalid reply (integrity value, `raw_exchange.json`, the report's invalid-reply block, or a recorded model \
           finding graded outside BLOCKER/ADVISORY, which the reply validators refuse), deterministic hard \
           failures (`checks.json`), input bound, the reply's verdict and an offline run. The paper's order is lock → \
           invalid → DCL failure → bound → reply → DCL_ONLY (I3 above I4 above the model). The decisions of the named \
           dialects are reproduced too: `v1-r2b` and `product` (v2/v4) place the DCL failure above the invalid reply \
           and record BLOCKED. A verdict that only a dialect rule explains fails with both decisions in the evidence.",
    why: "I3: \"an invalid report escalates even where the deterministic layer has independently blocked, because an \
          integrity failure must never be absorbed into an ordinary scientific verdict\".",
    example: "CV-A304 failed cycles/…-r1: recorded BLOCKED (product rule); the paper's precedence gives ESCALATE: invalid reply atop 3 deterministic failures",
    spec: "[specs/crossaudit.md#cv-a304](../../specs/crossaudit.md#cv-a304); paper §3.2 I3, §4.1; formats note §8");

check!(CONSTITUTION_CITED, "CV-A305", "constitution-version-uncited", Error, Some("I3"),
    "The report cites the Constitution version the receipt binds",
    what: "v1: the report's Constitution row names `AUDIT_RULES.md @ <commit>` equal to `constitution_hash`. Schema 2: \
           the report's `constitution` row equals the first 12 hex of `constitution_commit`. `unversioned` fails.",
    why: "I3: a report must cite the commit of the Constitution version in force; one that cites an unverifiable \
          version is invalid.",
    example: "CV-A305 failed cycles/…-r1: report cites constitution `1b8ab94c32da`, receipt binds ac47026fb020",
    spec: "[specs/crossaudit.md#cv-a305](../../specs/crossaudit.md#cv-a305); paper §3.2 I3");

check!(FINDING_EVIDENCED, "CV-A306", "finding-without-observation", Error, Some("I3"),
    "Every model finding carries an observation",
    what: "A model finding whose observation is empty fails.",
    why: "The product refuses \"a citation without evidence\" (reply rule 8); CA-META-001 makes missing evidence a \
          finding, never a pass.",
    example: "CV-A306 failed cycles/…-r1: [BLOCKER] CA-DATA-001 — experiments/x/results.json has no observation",
    spec: "[specs/crossaudit.md#cv-a306](../../specs/crossaudit.md#cv-a306); formats note §5.9 rule 8");

check!(REPORT_FORM, "CV-A307", "report-malformed", Error, Some("I3"),
    "A report has exactly one reading: one verdict row, and one \"Rules applied\" line where a valid reply is recorded",
    what: "Counts, over the whole `report.md`, the lines that read as a verdict row (`| verdict | **…** |`, v1 \
           `| **Verdict** | **…** |`) and the lines starting `Rules applied:`. Exactly one verdict row is required; at \
           most one `Rules applied:` line, and exactly one in a product report that records a valid model reply \
           (neither the invalid-reply block nor the offline note).",
    why: "Readers disagree on a report with two verdict rows: the product's verifier takes the first match anywhere in \
          the text, a table reader the last row of the header. A report that reads two ways binds no single verdict \
          (I7) and cites no single rule coverage (I3); the renderers of both references write each line once.",
    example: "CV-A307 failed cycles/53895ccfd946-r1: report.md has 2 verdict rows (BLOCKED, PASS): one report, one reading",
    spec: "[specs/crossaudit.md#cv-a307](../../specs/crossaudit.md#cv-a307); paper §3.2 I3, I7; formats note §5.1, §5.6, §7.3 check 18");

check!(STANDARDS_FROZEN, "CV-A308", "constitution-changed-within-cycle", Error, Some("I3"),
    "Every round of a cycle binds the Constitution version its first round bound",
    what: "Groups receipts by `cycle_id` in ledger order and compares each later round's bound Constitution with the \
           first round's: the content digest `constitution_sha256` and `constitution_commit` (schema 2), \
           `constitution_hash` (v1). A round that binds another version fails, naming both rounds and both versions. \
           A cycle of one round is inapplicable.",
    why: "Paper §6: \"Standards freeze within a cycle and move only between cycles, because an auditor that could \
          raise the bar mid-round would face the generator with a moving target and dissolve the termination \
          guarantee of I5.\" Both references read the Constitution afresh at every round, so an amendment committed \
          between rounds governs the next round of the same cycle, although the product's own amendment lane says \
          it applies \"from the next cycle onward\".",
    example: "CV-A308 failed cycles/962938378a22-r2: round 2 binds Constitution 5be2c81a91d0 (sha256 0b7f…), round 1 (cycles/53895ccfd946-r1) bound ac47026fb020 (sha256 88d1…)",
    spec: "[specs/crossaudit.md#cv-a308](../../specs/crossaudit.md#cv-a308); paper §6, §3.2 I3, I5");

check!(DCL_DOMINATES, "CV-A401", "dcl-failure-outranked", Error, Some("I4"),
    "A deterministic hard failure is never outranked by a model PASS",
    what: "When `checks.json` or the report lists a deterministic BLOCKER, the recorded verdict must not be PASS (nor \
           DCL_ONLY, which claims a clean deterministic layer).",
    why: "I4: no model may waive a DCL verdict. A forged PASS whose report still shows the deterministic failure is \
          accepted by the reference verifiers; this check refuses it.",
    example: "CV-A401 failed cycles/2f72bfe49289-r1: verdict PASS over 3 deterministic hard failure(s)",
    spec: "[specs/crossaudit.md#cv-a401](../../specs/crossaudit.md#cv-a401); paper §3.2 I4");

check!(DCL_CONSISTENT, "CV-A402", "dcl-record-inconsistent", Error, Some("I4"),
    "checks.json is internally consistent and agrees with the report",
    what: "Within `checks.json`: verdict BLOCKED exactly when `total_hard_failures` > 0, and that count equals the BLOCKER \
           findings listed. Against the report: the deterministic row's count, the deterministic finding blocks, and \
           (v1) the embedded DCL JSON.",
    why: "The report binds the deterministic output only through its own hash; a `checks.json` edited to hide a failure \
          would otherwise go unnoticed.",
    example: "CV-A402 failed cycles/…-r1: report shows 3 hard failure(s), checks.json 0",
    spec: "[specs/crossaudit.md#cv-a402](../../specs/crossaudit.md#cv-a402); formats note §5.2");

check!(DCL_DETERMINISTIC, "CV-A403", "dcl-nondeterministic", Error, Some("I4"),
    "Rounds over the same tree, files, check list and check-layer digest record the same hard failures",
    what: "Keys every receipt by what determines the deterministic layer's output: the audited tree, the set of \
           bound paths, the configured check list (schema 2 `inputs.checks`) and the check-layer digest \
           (`dcl_source_sha256`). Receipts of any cycles sharing a key must record the same multiset of hard \
           failures (BLOCKER findings of `checks.json`, identified by rule, check and artifact). A later receipt that \
           differs from the first with its key fails, naming both receipts and the failures one has and the other \
           lacks. A receipt whose key no other receipt shares is inapplicable.",
    why: "I4: the deterministic layer is deterministic, so its verdict cannot be waived by re-running it. A later \
          round that claims fewer hard failures over the same inputs was not produced by the layer it binds — it \
          is a forgery, and it is caught offline from the ledger alone.",
    example: "CV-A403 failed cycles/962938378a22-r2: records 0 hard failure(s) where cycles/962938378a22-r1 recorded 2 over the same tree, files, checks and DCL digest; missing here: DCL:schema@experiments/d/metadata.yml",
    spec: "[specs/crossaudit.md#cv-a403](../../specs/crossaudit.md#cv-a403); paper §3.2 I4");

check!(ROUND_BOUND, "CV-A501", "round-bound-exceeded", Error, Some("I5"),
    "No round exceeds max_rounds",
    what: "Compares each receipt's round with `max_rounds` from `crossaudit.yml` (default 3 when absent, stated in the evidence).",
    why: "I5 is the oscillation guard: at most max_rounds generator–auditor exchanges per increment.",
    example: "CV-A501 failed cycles/…-r4: round 4 exceeds max_rounds 3",
    spec: "[specs/crossaudit.md#cv-a501](../../specs/crossaudit.md#cv-a501); paper §3.2 I5, §3.4");

check!(EXHAUSTION_ESCALATES, "CV-A502", "exhaustion-not-escalated", Error, Some("I5"),
    "A cycle ends at an escalation: nothing follows exhaustion, ESCALATE or DCL_ONLY",
    what: "Replays the controller over each cycle's receipts in order. BLOCKED at round ≥ max_rounds, ESCALATE and \
           DCL_ONLY put the cycle in ESCALATED; a later receipt in that cycle fails (a PASS after exhaustion is the \
           worst case), unless it is itself ESCALATE (the forced verdict of the escalation lock). Product v4 lets a \
           human reopen an escalated cycle; that resolution is not in the published ledger, so a later non-escalated \
           round is `cantTell` there.",
    why: "I5: exhaustion escalates to a human; a verdict after that point routes around the escalation.",
    example: "CV-A502 failed cycles/…-r4: PASS after the cycle escalated at round 3 (exhaustion)",
    spec: "[specs/crossaudit.md#cv-a502](../../specs/crossaudit.md#cv-a502); paper §3.4; formats note §9");

check!(ROUND_SEQUENCE, "CV-A503", "round-sequence-broken", Error, Some("I5"),
    "Rounds of a cycle run 1, 2, 3 … and agree with the directory name and the cycle id",
    what: "Groups receipts by cycle id; rounds must start at 1 and grow by one per audit (a product re-attempt \
           `-r<n>.2` repeats its round). The cycle id must equal the first 16 hex of SHA-256 of \
           `<science_repo>\\n<root_sha>`; schema 2 `root_sha` is the first round's commit and `active_sha` the audited \
           one, so a round-1 receipt audits its own root (the controller opens a cycle at the commit it audits); a \
           directory suffix `-r<n>` must equal the round.",
    why: "Rounds are ledger-derived so the generator cannot reset the counter (the R2a defect re-opened a same-SHA \
          cycle at round 1); the I5 bound means nothing if rounds can be renumbered.",
    example: "CV-A503 failed cycles/…-r2: round 1 repeats in cycle d132b11dea26f8d8 after round 2",
    spec: "[specs/crossaudit.md#cv-a503](../../specs/crossaudit.md#cv-a503); formats note §9.1");

check!(SEVERITY_LEVELS, "CV-A601", "severity-outside-two-levels", Warning, Some("I6"),
    "Findings use exactly the two severities BLOCKER and ADVISORY",
    what: "Flags any finding (model or deterministic) whose severity is not BLOCKER or ADVISORY — e.g. the deployed \
           variant's CRITICAL/HIGH/MEDIUM/LOW ladder. In the v1 and schema-2 dialects a model finding graded so also \
           means the reply was invalid (the reply validators refuse it), which CV-A304 replays as an error.",
    why: "I6: two severities only, because every further level invites severity-inflation negotiation. The deployed \
          variant's four-level ladder is a named divergence; reported at warning level.",
    example: "CV-A601 failed CYCLE-000001 F-002: severity CRITICAL is outside the protocol's two levels",
    spec: "[specs/crossaudit.md#cv-a601](../../specs/crossaudit.md#cv-a601); paper §3.2 I6, §4.2");

check!(ADVISORY_NEVER_GATES, "CV-A602", "advisory-gated", Error, Some("I6"),
    "A BLOCKED verdict rests on at least one BLOCKER finding",
    what: "A recorded BLOCKED with neither a deterministic hard failure nor a model BLOCKER finding fails: only \
           ADVISORY findings gated the increment.",
    why: "I6: ADVISORY findings are recorded for asynchronous reading and never gate (reply rule 9: \"verdict BLOCKED \
          without any BLOCKER finding\").",
    example: "CV-A602 failed cycles/…-r1: verdict BLOCKED with only ADVISORY findings",
    spec: "[specs/crossaudit.md#cv-a602](../../specs/crossaudit.md#cv-a602); paper §3.2 I6");

check!(DISPUTES_VALID, "CV-A603", "dispute-ruling-invalid", Error, Some("I6"),
    "Disputes get at most one ruling per finding, about a finding that exists, and never about a deterministic finding",
    what: "Reads `disputes.jsonl`: each ruling is UPHELD or WITHDRAWN, has grounds, names an existing cycle directory, \
           and no `(cycle, finding_key)` pair is ruled twice. Every field naming the finding must name the same one: \
           `finding_key` equals `rule@artifact`; neither it nor `rule` is a `DCL:` rule; the finding is not one of the \
           report's deterministic blocks; and it is a model finding the cycle's report raised exactly once (the \
           invalid-reply record is not a finding). Who lodged a dispute is not recorded, so \"never from the \
           generator\" is stated as not measured in the evidence.",
    why: "§3.4: a disputed finding returns to the auditor once; the one-shot rule stops the dispute channel from \
          becoming the oscillation it exists to control. A ruling whose fields name different findings could withdraw \
          a deterministic finding or one the report never raised while a reader sees another; I4 lets no dispute \
          waive a deterministic failure.",
    example: "CV-A603 failed disputes.jsonl line 1: finding_key \"DCL:schema@experiments/d/metadata.yml\" is not rule@artifact \"CA-REPRO-001@experiments/d/metadata.yml\": the fields name different findings",
    spec: "[specs/crossaudit.md#cv-a603](../../specs/crossaudit.md#cv-a603); paper §3.4; formats note §9.2");

check!(SUBJECT_BINDING, "CV-A701", "subject-binding-broken", Error, Some("I7"),
    "The audited commit exists in the science repository and its tree is the one bound",
    what: "Resolves the receipt's `sha` in the science repository (from git objects), compares its tree with the bound \
           `tree`, and compares `sha`/`science_repo` with `--expect-sha`/`--expect-repo` when given (and the \
           configured `science_repo` in schema 2). Without a science repository the check is `cantTell`.",
    why: "I7 binds the verdict to the audited commit; a receipt for a commit the science repository does not hold \
          admits nothing.",
    example: "CV-A701 failed cycles/…-r1: audited commit cccc…cccc is not in the science repository",
    spec: "[specs/crossaudit.md#cv-a701](../../specs/crossaudit.md#cv-a701); formats note §7.1 checks 3–6, §7.3 checks 11–14");

check!(MANIFEST_MATCHES, "CV-A702", "manifest-digest-mismatch", Error, Some("I7"),
    "Every manifest entry matches the file re-derived from the audited commit's git objects",
    what: "For each bound path: an `ABSENT` entry must not be a regular file at the commit; any other entry must be a \
           regular file whose SHA-256 (over the whole blob, read from git objects, never a working tree) equals the \
           digest. A symlink bound by digest fails. Blobs shared across receipts are hashed once per run.",
    why: "I7: the manifest is derived by the audit side from the SHA itself. The product hashes only the first 512 KiB \
          of a blob; crossverify hashes all of it and says when a digest matches only the truncated prefix.",
    example: "CV-A702 failed cycles/…-r1 experiments/x/results.json: digest 0000…0000, the commit has c04d08cc33fa…",
    spec: "[specs/crossaudit.md#cv-a702](../../specs/crossaudit.md#cv-a702); formats note §6, §7.1 check 7, §7.3 check 15");

check!(MANIFEST_COMPLETE, "CV-A703", "manifest-incomplete", Error, Some("I7"),
    "The manifest binds every path its dialect's own derivation rule selects at the audited commit",
    what: "Re-derives the path set from the commit: v1 — paths changed under `experiments/` against the first parent \
           (the commit's listing for a root commit), deleted or non-file paths as `ABSENT`, non-ASCII paths C-quoted \
           as git prints them; schema 2 — every blob under `subject.scope` (the `audit` verb) or the changed paths \
           widened to their directories minus the loop's own files (`changed-paths`, the `run` verb), with v4's \
           `TASK.md` and `TEMPLATE` rules. Every selected path must be bound. A v1 C-quoted key recorded `ABSENT` \
           while the file exists is reported as unbound, and so is a schema-2 file in scope whose name is not UTF-8: \
           the product reads names as UTF-8 text and no schema-2 key can spell it, so no receipt over that scope binds it.",
    why: "The references never report files that are present but unbound (§7.3: \"files in the tree but not in the \
          manifest are not reported\"); a manifest that leaves out a file binds less than it claims.",
    example: "CV-A703 failed cycles/…-r1: experiments/x/results.json is selected by the run verb's rule but not bound",
    spec: "[specs/crossaudit.md#cv-a703](../../specs/crossaudit.md#cv-a703); formats note §6.1–§6.2");

check!(UNBOUND_FILES, "CV-A704", "increment-files-unbound", Info, Some("I7"),
    "Files of the audited increment that the receipt does not bind are listed",
    what: "Lists regular files in the directories the manifest touches that no entry binds — by design in v1 (only \
           changed paths are bound) and in the product's run verb (only the touched directories).",
    why: "A reader should know which files of an increment the verdict says nothing about.",
    example: "CV-A704 failed cycles/…-r2: 1 file in the increment's directories is not bound: experiments/x/geometries/w.xyz",
    spec: "[specs/crossaudit.md#cv-a704](../../specs/crossaudit.md#cv-a704); formats note §6.1");

check!(REPORT_BINDING, "CV-A705", "report-hash-mismatch", Error, Some("I7"),
    "The report beside the receipt hashes to report_sha256",
    what: "SHA-256 of `report.md` in the receipt's cycle directory (schema 2: at `ledger.cycle_path`) equals the bound digest.",
    why: "The receipt binds the report's content hash; an edited report no longer is the one that was judged.",
    example: "CV-A705 failed cycles/…-r1: report.md hashes to 2ccad70e28bc…, receipt binds 8691d279dc61…",
    spec: "[specs/crossaudit.md#cv-a705](../../specs/crossaudit.md#cv-a705); formats note §7.1 check 12, §7.3 check 17");

check!(CONSTITUTION_BINDING, "CV-A706", "constitution-binding-broken", Error, Some("I7"),
    "The bound Constitution version is the one in force, resolved with full history",
    what: "v1: `constitution_hash` equals `git log -1 --format=%H -- AUDIT_RULES.md` evaluated at the audit commit that \
           added the receipt, with full history (never a shallow clone, where that command returns the grafted tip). \
           Schema 2: the Constitution's bytes at that audit commit hash to `constitution_sha256`, and \
           `constitution_commit` is the commit that last changed the file there (the reference only checks it is not \
           empty). `unversioned` fails.",
    why: "I3 and I7 bind the verdict to the rulebook version in force. The v1 reference's check could never fire in \
          its first form and is meaningless in depth-1 clones; the product reads the working tree, so a later \
          amendment breaks every old receipt.",
    example: "CV-A706 failed cycles/…-r1: constitution commit ac47026fb020 is not the last change of AUDIT_RULES.md at 5c20775680c8 (that is 9d1e…)",
    spec: "[specs/crossaudit.md#cv-a706](../../specs/crossaudit.md#cv-a706); formats note §3.4, §7.1 check 9, §7.3 check 16");

check!(DCL_SOURCE_BINDING, "CV-A707", "dcl-source-mismatch", Error, Some("I7"),
    "The bound check-layer digest is re-derived from the audit repository (v1)",
    what: "v1: SHA-256 of the concatenated bytes of `checks/*.py` (non-recursive, sorted by path) at the audit commit \
           that added the receipt equals `dcl_source_sha256`. Schema 2 binds a digest of the installed package, which \
           the ledger does not hold: inapplicable here, and listed by CV-A708.",
    why: "I7 binds the check-layer version; an edited check script means the recorded DCL verdict came from other code.",
    example: "CV-A707 failed cycles/…: DCL source hash mismatch — checks/*.py hash to 5be2…, receipt binds 0f3a…",
    spec: "[specs/crossaudit.md#cv-a707](../../specs/crossaudit.md#cv-a707); formats note §5.4, §7.1 check 10");

check!(NOT_REVERIFIABLE, "CV-A708", "binding-not-reverifiable", Info, Some("I7"),
    "Bound values no third party can re-derive from the ledger are listed, not counted as verified",
    what: "Lists, per receipt, bound digests that are present and well-formed but cannot be recomputed offline: the \
           prompt digest (the prompt is not published), the product's DCL package digest, exchange digests.",
    why: "Absent evidence never counts in favour: these bindings are shown as not measured.",
    example: "CV-A708 cantTell cycles/…-r2: prompt_sha256 and dcl_source_sha256 are bound but not re-derivable from the ledger",
    spec: "[specs/crossaudit.md#cv-a708](../../specs/crossaudit.md#cv-a708); paper §3.2 I2 (raw exchanges not captured)");

check!(CYCLE_DIR_BINDING, "CV-A709", "receipt-outside-its-cycle", Error, Some("I7"),
    "The receipt lives in the cycle directory of the commit and round it binds",
    what: "v1: the directory name starts with the full SHA (R2b rule) and a `-r<n>` suffix equals the round. Schema 2: \
           the name starts with the first 12 hex of the SHA, `ledger.cycle_path` equals the directory the receipt was \
           read from, and `-r<n>` equals the round.",
    why: "A receipt copied into another cycle directory would vouch for a report it was not minted with.",
    example: "CV-A709 failed cycles/9c604cba4273-r2/receipt.json: ledger.cycle_path says cycles/7f1113ff7382-r1",
    spec: "[specs/crossaudit.md#cv-a709](../../specs/crossaudit.md#cv-a709); formats note §7.1 check 11, §7.3 check 19");

check!(REPORT_COMMIT_BINDING, "CV-A710", "report-commit-unbound", Error, Some("I7"),
    "The ledger commit of the report is bound and is the commit that added it",
    what: "Schema 2: `ledger.report_commit` is non-empty, exists in the audit repository, is an ancestor of the audit \
           head, added the cycle's `report.md`, and holds it with the bound hash. v1 receipts do not bind the commit; \
           the commit that added the report is established from history and named in the evidence.",
    why: "I7 binds the verdict to the ledger commit of the report; the reference accepts an empty value and checks only ancestry.",
    example: "CV-A710 failed cycles/…-r1: ledger.report_commit is empty: the report's ledger commit is not bound",
    spec: "[specs/crossaudit.md#cv-a710](../../specs/crossaudit.md#cv-a710); paper §3.2 I7; formats note §7.3 check 20");

check!(REPORT_AGREES, "CV-A711", "report-receipt-disagree", Error, Some("I7"),
    "The report's verdict, round and commit rows agree with the receipt",
    what: "The report's verdict row equals the receipt's verdict, its round row the round, and its title/increment row the audited commit.",
    why: "Product v4 checks the verdict row (\"receipt verdict differs from bound report verdict\"); v1 and v2 do not, \
          so a receipt rewritten from BLOCKED to PASS next to its original report passes them.",
    example: "CV-A711 failed cycles/…-r1: receipt verdict PASS differs from bound report verdict BLOCKED",
    spec: "[specs/crossaudit.md#cv-a711](../../specs/crossaudit.md#cv-a711); formats note §7.3 check 18");

check!(PARENT_CHAIN, "CV-A712", "parent-receipt-chain-broken", Error, Some("I7"),
    "Each round names the previous round's receipt",
    what: "Schema 2: round 1 has an empty `parent_receipt`; every later receipt of the cycle names the canonical digest \
           of the receipt immediately before it. v1 has no such field; its published `controller/state.json` must name \
           the cycle's latest receipt (file-byte digest) as `parent_receipt`.",
    why: "The chain lets a verifier see that no round was dropped or replaced; the reference never checks it.",
    example: "CV-A712 failed cycles/53895ccfd946-r2: parent_receipt 784a78b9… is not the digest of the previous round's receipt (088899d7…)",
    spec: "[specs/crossaudit.md#cv-a712](../../specs/crossaudit.md#cv-a712); formats note §5.6, §12 item 9");

check!(INCREMENT_BOUND, "CV-A713", "increment-unbound", Error, Some("I7"),
    "Every file the audited increment changed is bound by the receipt",
    what: "Schema 2: lists the regular files the audited commit added or modified against its first parent (every file \
           of a root commit; the product advances a cycle only on a child of its active commit, so a later round's \
           parent is the previous round's commit). Each must be a manifest key bound by digest, except the product's \
           own files (Constitution, `crossaudit.yml`, `.gitignore`, ledger, state and `.github/` directories), v4 \
           `TEMPLATE` paths, and files outside `scope.dirs` — read from a configuration the increment did not write \
           (paired mode: the audit repository's; local mode: the one at the first parent, with the ledger directory \
           the verifier found). A manifest that binds no file at all (empty, or only `TASK.md`) fails. The message \
           names every unbound changed file. v1 binds the changes under `experiments/` by rule, which CV-A703 checks; an \
           empty v1 manifest fails here.",
    why: "I7: \"a verdict that binds less is not a receipt\". The receipt's own `subject.scope` and a configuration the \
          generator can write are not a definition of what was audited: a PASS whose manifest binds only a task file, \
          or a scope that leaves the changed files out, would admit an increment nobody audited.",
    example: "CV-A713 failed lab/cycles/53895ccfd946-r1: 2 changed file(s) of the increment are not bound: src/fit.py, experiments/x/results.json",
    spec: "[specs/crossaudit.md#cv-a713](../../specs/crossaudit.md#cv-a713); paper §3.2 I7; formats note §6.2");

check!(RECEIPT_GIVEN_IS_COMMITTED, "CV-A714", "receipt-differs-from-ledger", Error, Some("I7"),
    "The receipt file given to `crossverify receipt` is the ledger's committed copy",
    what: "`crossverify receipt FILE` reads FILE's bytes and verifies them — never the ledger's copy in its place. When \
           the cycle directory the receipt belongs to holds a committed `receipt.json` whose bytes differ, the check \
           fails naming the SHA-256 of both files. A FILE that does not exist on disk names the committed copy itself.",
    why: "A gate that is handed one receipt and silently verifies another vouches for bytes nobody gave it; the \
          receipt a caller acts on must be the one verified.",
    example: "CV-A714 failed cycles/9c604cba4273-r2: the receipt given (sha256 5be2…) is not the ledger's committed receipt.json (sha256 0f3a…)",
    spec: "[specs/crossaudit.md#cv-a714](../../specs/crossaudit.md#cv-a714); paper §3.2 I7");

check!(RECEIPT_RECORDED, "CV-A715", "receipt-unrecorded", Warning, Some("I7"),
    "The receipt given is recorded in the ledger (a receipt outside it is verified but never admissible)",
    what: "When the receipt given to `crossverify receipt` is not committed in the ledger (the product's `audit` without \
           `--write-ledger` leaves `report.md`, `checks.json` and `receipt.json` uncommitted in \
           `<ledger.dir>/<sha12>-r<n>/`), its bindings are still verified, with the cycle's files read from beside it \
           on disk, and this check reports it unrecorded; admission gains the shortfall `receipt is not recorded in \
           the ledger`. `ledger.report_commit` is then empty by construction, which CV-A710 does not count against it.",
    why: "I7 binds the verdict to the ledger commit of its report, and I2 makes the ledger the supervision record: a verdict outside it is not part of the history anyone can re-read, \
          so it may be inspected but not admitted. Refusing it outright (exit 2) would hide what it binds.",
    example: "CV-A715 failed cycles/9c604cba4273-r1: the receipt is not recorded in the ledger at 1b8ab94c32da (uncommitted): verified for its bindings, not admissible",
    spec: "[specs/crossaudit.md#cv-a715](../../specs/crossaudit.md#cv-a715); paper §3.2 I2, I7, I8");

check!(INTEGRITY_STATED, "CV-A716", "integrity-misstated", Error, Some("I7"),
    "A receipt whose records show an invalid or failed auditor reply does not state integrity OK",
    what: "Fails a receipt whose `audit_integrity` is `OK` while its own records show the reply was invalid or the \
           call failed: the report's invalid-reply block (`CA-META-002 — invalid Auditor reply`), \
           `raw_exchange.json`'s `invalid_reason` (v1), or an `audit.exchange.error` (schema 2). The evidence names the \
           dialect when the product wrote it so (it keeps `OK` when a deterministic failure or the escalation lock \
           decided the verdict first, formats §8).",
    why: "I7 binds the audit's integrity with its verdict, and paper §4.1 says \"the receipt carries the auditor failure in audit_integrity, and admission refuses any receipt \
          where it is not OK\". An OK over a recorded invalid reply hides an integrity failure from every gate that \
          reads the receipt alone.",
    example: "CV-A716 failed cycles/9c604cba4273-r1: audit_integrity is OK but the report records an invalid auditor reply",
    spec: "[specs/crossaudit.md#cv-a716](../../specs/crossaudit.md#cv-a716); paper §3.2 I3, I7, §4.1; formats note §8");

check!(MANIFEST_WITHIN_RULE, "CV-A717", "manifest-beyond-rule", Error, Some("I7"),
    "The manifest binds nothing beyond what its declared scope derives at the audited commit",
    what: "Schema 2: every manifest key must be a path the dialect's rule selects at the audited commit under the \
           receipt's declared `subject.scope` (the `audit` verb: a blob under a scope prefix, v4 `TASK.md`; \
           `changed-paths`: a file of a touched directory). An entry outside, even correctly hashed, fails, and so does a \
           declared scope in which none of the manifest's paths lie. v1 is inapplicable: its runner may diff from the \
           push's `before` commit, which the ledger does not record.",
    why: "I7 requires the manifest to be derived by the audit side from the SHA; a manifest padded with files the \
          declared scope does not hold, or a scope the paths do not lie in, misstates what was audited.",
    example: "CV-A717 failed cycles/53895ccfd946-r1: 1 manifest entry outside the rule's selection (product audit verb: every blob under scope \"experiments\"): docs/notes.md",
    spec: "[specs/crossaudit.md#cv-a717](../../specs/crossaudit.md#cv-a717); paper §3.2 I7; formats note §6.2");

check!(RECEIPT_DERIVED, "CV-A718", "receipt-not-product-derived", Error, Some("I7"),
    "Every field the product's receipt builder writes is present and agrees with what it is derived from",
    what: "Schema 2, against the product's builder (4.14 `receipt/build.py` `build`, `auditor/run.py` `run_audit`, \
           `providers/base.py` `Reply.commitments`): the fields it always writes are present (`inputs.constitution_path`, \
           `isolation.provider`; for 4.x also `audit.reasoning_effort`, `audit.fallback`, `verifier.lock_digest_sha256`); \
           an online exchange (`mode` not `none`) records its route and commitments (`provider`, `model`, \
           `request_sha256`, `response_sha256`, `provider_request_id`; 4.x also `vendor`, `fallback`, \
           `reasoning_effort`), its `mode` is `audit.retention`, `raw_retained` is `false` and only under sealed \
           retention, `exchange.fallback` equals `audit.fallback`, a replay request id is `replay:` plus the request \
           digest's first 12 characters; `verifier.project` is `crossaudit` and `install_mode` one the product reports. \
           Against `crossaudit.yml` at the round: `inputs.checks` is exactly the configured `checks:` list (or the \
           product's default pack when none is configured); `audit.fallback` false means the configured primary \
           auditor's provider and model answered, and true needs a configured auditor fallback. No readable \
           configuration and nothing else wrong is `cantTell`; v1 is inapplicable.",
    why: "I7: \"a verdict that binds less is not a receipt\". A receipt missing what the builder always writes, or \
          whose derived fields contradict their sources, is not one the product wrote; the product's own verifier only \
          tests the required keys of its schema, so such edits verify there.",
    example: "CV-A718 failed cycles/bbd6564c7711-r1: inputs.checks [\"schema\", \"units\"] is not crossaudit.yml checks [\"schema\", \"units\", \"convergence\", \"provenance\"]",
    spec: "[specs/crossaudit.md#cv-a718](../../specs/crossaudit.md#cv-a718); paper §3.2 I7; formats note §7.3");

check!(ADMISSION, "CV-A801", "receipt-not-admissible", Error, Some("I8"),
    "With --admit: the receipt is valid, current and matching, so the protected action may proceed",
    what: "Replays admission: a receipt binds the commit at all (absent denies); every binding check passed; verdict \
           PASS (DCL_ONLY never admits); integrity OK (NON_EVIDENTIAL_PROVIDER never admits); the configured isolation \
           minimum is met; the receipt is the latest of its cycle, no later receipt in the ledger audits the same \
           commit (whatever cycle it claims), and the cycle has not moved to another commit (freshness); it has not been consumed (single use: from the v1 controller state, or from the gate's own \
           record given with `--consumed FILE`; the product keeps its state outside the ledger, so without that record \
           a schema-2 receipt is `cantTell`); and a product receipt was minted by an admissible install mode. Only \
           evaluated by `crossverify receipt --admit`.",
    why: "I8: no audit, no admission — absent, stale, conflicting, unbound or model-audit-less receipts deny by default.",
    example: "CV-A801 failed cycles/53895ccfd946-r2/receipt.json: not admissible: audit integrity is NON_EVIDENTIAL_PROVIDER",
    spec: "[specs/crossaudit.md#cv-a801](../../specs/crossaudit.md#cv-a801); paper §3.2 I8; formats note §10");

check!(ADMISSION_RECORDS, "CV-A802", "admission-record-invalid", Error, Some("I8"),
    "Admissions the ledger records were of admissible receipts, once each",
    what: "v1 publishes `controller/state.json`: every consumed receipt hash is a receipt of that cycle with verdict \
           PASS and integrity OK that was the cycle's latest, no hash is consumed twice, a CONSUMED cycle has a consumed \
           receipt, and its `active_sha` is the consumed receipt's commit. Single use is read from history: every \
           version of `controller/state.json` along the audit branch is replayed, and a version that no longer records \
           a receipt an earlier version consumed undoes an admission and fails (the receipt stays consumed for \
           CV-A801). The product keeps controller state outside the ledger: inapplicable there (CV-A803 says what \
           cannot be shown).",
    why: "I8 single use and freshness are only as durable as the state store; where it is published it can be checked.",
    example: "CV-A802 failed controller/state.json: cycle 5f0c… consumed receipt 9a1e… whose verdict is BLOCKED",
    spec: "[specs/crossaudit.md#cv-a802](../../specs/crossaudit.md#cv-a802); formats note §9.1, §10");

check!(ADMISSION_UNOBSERVABLE, "CV-A803", "admission-not-observable", Info, Some("I8"),
    "What the ledger cannot show about admission is stated, with the admission tier the evidence supports",
    what: "Reports the admission tier the receipts' evidence supports (`local`, `paired`; `enforced` needs platform \
           evidence no ledger holds) and, where controller state is not published, that single use cannot be verified.",
    why: "Admission is a tier, not a switch (§4.3); announcing a verdict while implying refusal manufactures \
          confidence the ledger cannot support.",
    example: "CV-A803 cantTell ledger: single use is not observable: the product keeps controller state in .crossaudit/ (not published); evidence supports tier `paired`",
    spec: "[specs/crossaudit.md#cv-a803](../../specs/crossaudit.md#cv-a803); paper §4.3; formats note §10");

/// Checks defined here (the deployed-format checks live in `deployed`).
pub static CHECKS: &[&Check] = &[
    &RECORD_PARSES,
    &RECEIPT_SHAPE,
    &LEDGER_HAS_CYCLES,
    &LEDGER_LAYOUT,
    &LEDGER_LAYOUTS_MIXED,
    &VENDOR_HETEROGENEITY,
    &AUDITOR_IDENTITY,
    &ISOLATION_EVIDENCE,
    &LEDGER_APPEND_ONLY,
    &AUDIT_HEAD_PINNED,
    &CYCLE_ARTEFACTS,
    &CITATIONS_VALID,
    &BLOCKER_CITES_BLOCKER,
    &PASS_WITH_BLOCKER,
    &VERDICT_PRECEDENCE,
    &CONSTITUTION_CITED,
    &FINDING_EVIDENCED,
    &REPORT_FORM,
    &STANDARDS_FROZEN,
    &DCL_DOMINATES,
    &DCL_CONSISTENT,
    &DCL_DETERMINISTIC,
    &ROUND_BOUND,
    &EXHAUSTION_ESCALATES,
    &ROUND_SEQUENCE,
    &SEVERITY_LEVELS,
    &ADVISORY_NEVER_GATES,
    &DISPUTES_VALID,
    &SUBJECT_BINDING,
    &MANIFEST_MATCHES,
    &MANIFEST_COMPLETE,
    &UNBOUND_FILES,
    &REPORT_BINDING,
    &CONSTITUTION_BINDING,
    &DCL_SOURCE_BINDING,
    &NOT_REVERIFIABLE,
    &CYCLE_DIR_BINDING,
    &REPORT_COMMIT_BINDING,
    &REPORT_AGREES,
    &PARENT_CHAIN,
    &INCREMENT_BOUND,
    &RECEIPT_GIVEN_IS_COMMITTED,
    &RECEIPT_RECORDED,
    &INTEGRITY_STATED,
    &MANIFEST_WITHIN_RULE,
    &RECEIPT_DERIVED,
    &ADMISSION,
    &ADMISSION_RECORDS,
    &ADMISSION_UNOBSERVABLE,
];

/// The invariants, with the guarantee each makes (paper Table 2).
pub const INVARIANTS: [(&str, &str); 8] = [
    ("I1", "the auditor never judges its own model family's output"),
    ("I2", "supervision history replayable from the repositories"),
    ("I3", "a report citing no rules, or an unverifiable Constitution, never passes"),
    ("I4", "no model may waive a scripted hard failure"),
    ("I5", "generator–auditor oscillation terminates"),
    ("I6", "only BLOCKER findings gate; humans are interrupted only by escalation"),
    ("I7", "a verdict binds commit, manifest and versions, or it is not a receipt"),
    ("I8", "no audit, no admission"),
];

//! The statistics family's checks (`CV-S001`…`CV-S006`).

use crate::checks::{Check, Family, no_group, prefix_and_digits};
use crate::report::Level;

/// Statistics and stated-figure claims: codes `CV-S` and three digits.
pub static FAMILY: Family = Family {
    name: "statistics",
    prefix: "CV-S",
    grammar: "`CV-S` then three digits",
    code_ok: |c| prefix_and_digits(c, "CV-S", 3),
    group_label: None,
    group_ok: no_group,
    sources: &[],
    tones: &[],
    first_views: &[],
    location_inputs: &["path", "repo", "science"],
};

/// A stated figure from a claims file.
pub static CLAIM: Check = Check {
    code: "CV-S001",
    name: "stated-figure-disagrees",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Each figure stated in a --claims file agrees with the figure recomputed from the records",
    what: "Every entry of the claims file names a figure by JSON Pointer (RFC 6901) into the `stats` object \
           (`/closure_lag/median`, `/rules/Gate 11`) and gives the stated value, optionally with a tolerance. \
           The figure is recomputed from the input records and compared: a number agrees when it is within the \
           precision it was stated with (half a unit of its last written decimal; `6` agrees with 5.67, `2.10` \
           with 2.1) or within the explicit tolerance; anything else must be equal. A figure the input cannot \
           support (a `null` in `stats`, with its reason in `notMeasured`) makes the claim `cantTell`, never \
           `passed`. See `docs/claims.md`.",
    why: "A paper that publishes its supervision records invites its figures to be recomputed rather than \
          trusted. This is statcheck for supervision records: each stated number is either reproduced from the \
          records, contradicted with the recomputed value beside it, or shown to be beyond what the records can \
          support.",
    example: "CV-S001 failed /closure_lag/mean: stated 2.5, recomputed 1.25 (allowance ±0.05)",
    spec: "[specs/stats.md#cv-s001](../../specs/stats.md#cv-s001) (how the figures are computed); [docs/claims.md](../claims.md)",
};

/// A published summary file vs its own records.
pub static PUBLISHED: Check = Check {
    code: "CV-S002",
    name: "published-summary-disagrees",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Each field of a published summary beside the records agrees with the recomputation from those records",
    what: "When a published summary is present beside the records it was computed from (the protocol's \
           statistics adapter declares which files those are and which figure each field states), every field \
           is compared with the same figure recomputed from those records, with the precision rule of CV-S001; a \
           count of first-seen severities is also accepted when it matches the per-occurrence reading. Fields \
           that do not follow from the records at all (repository states at publication time; fix-commit counts \
           without `--science`) are reported by CV-S005 (info) with the input that would make them checkable. \
           The files each protocol declares are listed in the spec.",
    why: "A published summary that disagrees with the records it was computed from is a finding in itself: one of \
          the two is wrong, and the paper's figures came from the summary.",
    example: "CV-S002 failed totals.json n_distinct_findings: totals.json says 15; the records give 14",
    spec: "[specs/stats.md#cv-s002](../../specs/stats.md#cv-s002)",
};

/// A lifecycle entry vs the records.
pub static LIFECYCLE: Check = Check {
    code: "CV-S003",
    name: "published-lifecycle-disagrees",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "Each entry of a published finding lifecycle agrees with the lifecycle recomputed from its records",
    what: "For every entry of a published finding lifecycle (a file the protocol's statistics adapter declares): \
           `severity` (first seen), `first_raised`, `raised_in`, \
           `closed_confirmed_in` and `rules_cited` (first occurrence) are recomputed from the cycle records and \
           compared; an ID in the file but never raised, or raised but absent from the file, fails. \
           `fix_commits` needs the science repository: with `--science` it is recomputed from the log (as sets of \
           12-hex prefixes), without it one `cantTell` result names the entries that carry it.",
    why: "The lifecycle file is where closure lag, recurrence and first-seen severity are read from; an entry \
          that does not follow from the cycle records makes every figure built on it unreliable.",
    example: "CV-S003 failed lifecycle.json F-006: closed_confirmed_in: stated \"C-000004\", recomputed \"C-000005\"",
    spec: "[specs/stats.md#cv-s003](../../specs/stats.md#cv-s003)",
};

/// Reading the input records.
pub static RECORDS_READABLE: Check = Check {
    code: "CV-S004",
    name: "records-unreadable",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The input's records are read strictly and converted into the statistics record model",
    what: "Parses every record file of the input strictly (duplicate keys, lone surrogates and trailing data are \
           refused) and checks the fields the figures use (each cycle's ID and decision, its findings with their \
           IDs, lists where lists are expected, a stated finding count equal to the number of findings listed). \
           A malformed cycle record fails and every figure that needs it becomes not measured. Records that \
           live in git objects are read and verified there, as the protocol's own command verifies them (with \
           `--science` when it needs one); found in a plain directory they are `untested`: give the repository. \
           What each protocol's adapter reads is listed in the spec.",
    why: "Figures computed around an unreadable record would be wrong without saying so; a duplicate key can \
          show one value to a Python reader and another to us. Refusing, and saying which figures that costs, is \
          the only honest output.",
    example: "CV-S004 failed records.jsonl line 3: not strict JSON: line 1, column 120: duplicate key \"decision\"",
    spec: "[specs/stats.md#cv-s004](../../specs/stats.md#cv-s004); `src/stats/model.rs` (the record model a converter fills)",
};

/// A published figure that no reading of the inputs given can check.
pub static NOT_CHECKABLE: Check = Check {
    code: "CV-S005",
    name: "published-figure-not-checkable",
    level: Level::Info,
    family: &FAMILY,
    group: None,
    summary: "A published field that cannot be recomputed from the inputs given is named, with the input that would make it checkable",
    what: "Some fields of a published summary or finding lifecycle do not follow from the cycle records: \
           repository states at publication time (the protocol's statistics adapter declares which fields), and \
           fix-commit counts and lists, which come from the science repository's log. Without that input the \
           field is `cantTell` here, at info level, with the input that would make it checkable (`--science \
           REPO`, at the revision the summary was computed at with `--science-rev`); with it, the field is \
           `passed` here and compared by CV-S002 or CV-S003. Fields the \
           records should support but do not (an unreadable record) stay `cantTell` under CV-S002 and CV-S003.",
    why: "A figure no input given can check is not evidence against the records, and does not decide a run \
          (whether records are evidence at all is CV-S006's); saying what would make it checkable keeps it from \
          passing silently.",
    example: "CV-S005 cantTell totals.json n_science_fix_commits: not checkable from these inputs: they come from the science repository's log; give it with --science REPO",
    spec: "[specs/stats.md#cv-s005](../../specs/stats.md#cv-s005)",
};

/// Records that carry nothing a verifier can check.
pub static RECORDS_UNAUTHENTICATED: Check = Check {
    code: "CV-S006",
    name: "records-unauthenticated",
    level: Level::Error,
    family: &FAMILY,
    group: None,
    summary: "The records the figures come from carry evidence that this report checks",
    what: "Says whether anything binds the records the figures are computed from to what they describe. Each \
           protocol's statistics adapter says so for every input it reads (the spec lists them): records read \
           from the protocol's own verifiable form and verified in the same run are `passed` (or `failed` or \
           `cantTell`, as that verification decided); records that are extracts, lines of JSON with no \
           signature, digest or history behind them, are `cantTell`: a line naming an invented commit with a \
           favourable decision reads as well as a genuine one. The figures are still computed, and claims and \
           published summaries still compared with them, but the run is inconclusive rather than verified.",
    why: "`crossverify verify` on a file of extracted records said VERIFIED, exit 0, for a record anyone could \
          type. A verifier's verdict says what was verified; figures recomputed from unauthenticated records are \
          arithmetic, and what the records were extracted from is what can be verified.",
    example: "CV-S006 cantTell records.jsonl: the records carry no signature, digest or history: nothing binds their decisions to the commits they name, so nothing in them was verified",
    spec: "[specs/stats.md#cv-s006](../../specs/stats.md#cv-s006)",
};

/// Checks owned by this module.
pub static CHECKS: &[&Check] =
    &[&CLAIM, &PUBLISHED, &LIFECYCLE, &RECORDS_READABLE, &NOT_CHECKABLE, &RECORDS_UNAUTHENTICATED];

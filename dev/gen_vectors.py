#!/usr/bin/env python3
"""Writes the CrossAudit tamper scenarios (ledger-fixtures/*.toml) and their check vectors
(test-vectors/checks/crossaudit-*.json). Each scenario derives from a genuine ledger
(`base`) and changes one thing. Re-run after editing; the outputs are committed."""
import json, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
fx = root / "ledger-fixtures"
tv = root / "test-vectors" / "checks"

DEMO_CYCLES = (fx / "demo.toml").read_text().split("[[cycle]]", 1)[1]
DEMO_CYCLES = "[[cycle]]" + DEMO_CYCLES
V1_CYCLES = "[[cycle]]" + (fx / "v1-genuine.toml").read_text().split("[[cycle]]", 1)[1]

def scenario(name, doc, body):
    (fx / f"{name}.toml").write_text(f"# {doc}\n{body.strip()}\n")

def vector(name, desc, args, exit_code, results, absent=None):
    v = {"id": name, "description": desc, "args": args, "expect": {"exit": exit_code, "results": [
        dict(zip(("code", "outcome", "subject"), r)) if len(r) == 3 else dict(zip(("code", "outcome"), r)) for r in results]}}
    if absent:
        v["expect"]["absent"] = [dict(zip(("code", "outcome"), a)) for a in absent]
    (tv / f"crossaudit-{name}.json").write_text(json.dumps(v, indent=2, ensure_ascii=False) + "\n")

def s2(name):
    return ["ledger", "--audit", f"{{fixture:{name}/audit}}", "--science", f"{{fixture:{name}/science}}"]

# ---- genuine ledgers: the pass vectors -------------------------------------------------
PASSED_ALL = ["CV-A001", "CV-A002", "CV-A003", "CV-A004", "CV-A101", "CV-A102", "CV-A103", "CV-A201", "CV-A204",
              "CV-A301", "CV-A302", "CV-A303", "CV-A304", "CV-A305", "CV-A306", "CV-A401", "CV-A402", "CV-A501",
              "CV-A502", "CV-A503", "CV-A601", "CV-A602", "CV-A701", "CV-A702", "CV-A703", "CV-A704", "CV-A705",
              "CV-A706", "CV-A709", "CV-A710", "CV-A711", "CV-A712"]
vector("schema2-genuine", "The demo ledger (schema 2, paired, product 4.x) verifies: every applicable check passes.",
       s2("demo"), 0, [(c, "passed") for c in PASSED_ALL] + [("CV-A707", "inapplicable"), ("CV-A708", "cantTell"), ("CV-A803", "cantTell")],
       absent=[(c, "failed") for c in PASSED_ALL])
vector("v1-genuine", "A genuine v1 ledger with a published controller state and one admission verifies.",
       ["ledger", "--audit", "{fixture:v1-genuine/audit}", "--science", "{fixture:v1-genuine/science}", "--expect-audit-head", "edfebbe36e2be12e60f5f0c5185eac2ab8d52197"], 0,
       [(c, "passed") for c in PASSED_ALL if c not in ("CV-A103", "CV-A704")] + [("CV-A707", "passed"), ("CV-A802", "passed"), ("CV-A803", "passed"), ("CV-A202", "passed"), ("CV-A103", "inapplicable")],
       absent=[(c, "failed") for c in PASSED_ALL if c != "CV-A704"])

def s2t(name, doc, body, results, exit_code=1):
    scenario(f"s2-{name}", doc, f'base = "demo"\n{body}')
    vector(f"s2-{name}", doc, s2(f"s2-{name}"), exit_code, results)

def v1t(name, doc, body, results, exit_code=1, extra_args=()):
    scenario(f"v1-{name}", doc, f'base = "v1-genuine"\n{body}')
    vector(f"v1-{name}", doc, ["ledger", "--audit", f"{{fixture:v1-{name}/audit}}", "--science", f"{{fixture:v1-{name}/science}}", *extra_args], exit_code, results)

def tamper(cycle, file, op, mode="rewrite", **kw):
    lines = ["[[tamper]]"]
    if cycle is not None:
        lines.append(f"cycle = {cycle}")
    lines += [f'file = "{file}"', f'op = "{op}"', f'mode = "{mode}"']
    for k, v in kw.items():
        lines.append(f"{k} = {json.dumps(v)}")
    return "\n".join(lines) + "\n"

ZERO = "0" * 64
META = "experiments/2026-07-30-demo/metadata.yml"

s2t("duplicate-key", "A receipt with two `verdict` keys: Python keeps the last (PASS); crossverify refuses the record.",
    tamper(1, "receipt.json", "replace", **{"from": '"verdict": "BLOCKED"', "to": '"verdict": "BLOCKED",\n    "verdict": "PASS"'}),
    [("CV-A001", "failed", "cycles/*")[:2]])
s2t("missing-field", "A receipt without `audit.model`: the auditor's identity is not bound.",
    tamper(2, "receipt.json", "remove-key", pointer="/audit/model"), [("CV-A002", "failed")])
scenario("s2-empty", "A ledger with no cycle yet: nothing to verify is not a pass.", 'base = "demo"\ncycle = []')
vector("s2-empty", "A ledger with no cycle yet: CV-A003 cantTell, the run is inconclusive.", s2("s2-empty"), 3, [("CV-A003", "cantTell")])
s2t("stray-file", "A later commit drops notes.txt into the ledger directory (warning level).",
    tamper(None, "cycles/notes.txt", "write", mode="commit", text="scratch\n"), [("CV-A004", "failed", "cycles/notes.txt"), ("CV-A201", "passed")], exit_code=0)
s2t("same-vendor", "Generator and auditor vendors differ only in case: the same family audits itself.",
    'generator_vendor = "OpenAI"', [("CV-A101", "failed")])
s2t("auditor-vendor", "The receipt names an auditor vendor the configuration and the report do not.",
    tamper(2, "receipt.json", "set", pointer="/audit/vendor", value="google"), [("CV-A102", "failed")])
s2t("isolation", "A paired receipt whose isolation evidence claims local execution.",
    tamper(2, "receipt.json", "set", pointer="/isolation/execution", value="local"), [("CV-A103", "failed")])
s2t("report-rewritten", "A later commit edits an already committed report (append-only violated).",
    tamper(1, "report.md", "replace", mode="commit", **{"from": "without a revision", "to": "with a revision"}), [("CV-A201", "failed")])
s2t("artefact-missing", "A cycle committed without its checks.json.", tamper(3, "checks.json", "delete"), [("CV-A204", "failed")])

def cycles_with(replacement_cycle3):
    head = DEMO_CYCLES.rsplit("[[cycle]]", 1)[0]
    return head + replacement_cycle3

s2t("unknown-rule", "The auditor cites CA-DATA-009, which is not in the Constitution.", cycles_with('''[[cycle]]
science = "scan"
[cycle.reply]
verdict = "PASS"
sections_applied = ["CA-DATA-001"]
[[cycle.reply.findings]]
severity = "ADVISORY"
rule = "CA-DATA-009"
artifact = "experiments/2026-08-02-scan/results.json"
observation = "scan step not stated"
'''), [("CV-A301", "failed")])
s2t("blocker-procedural-rule", "A BLOCKER finding cites CA-META-004, whose declared severity is procedural (CA-META-003).", cycles_with('''[[cycle]]
science = "scan"
[cycle.reply]
verdict = "BLOCKED"
sections_applied = ["CA-META-004"]
[[cycle.reply.findings]]
severity = "BLOCKER"
rule = "CA-META-004"
artifact = "experiments/2026-08-02-scan/results.json"
observation = "the scan range needs the principal's decision"
'''), [("CV-A302", "failed")])
s2t("pass-with-blocker", "A runner that skipped validation recorded PASS over a model BLOCKER.", cycles_with('''[[cycle]]
science = "scan"
[cycle.reply]
verdict = "PASS"
sections_applied = ["CA-DATA-001"]
[[cycle.reply.findings]]
severity = "BLOCKER"
rule = "CA-DATA-001"
artifact = "experiments/2026-08-02-scan/results.json"
observation = "scan_points has no source"
'''), [("CV-A303", "failed")])
s2t("advisory-gated", "BLOCKED with only an ADVISORY finding and a clean deterministic layer.", cycles_with('''[[cycle]]
science = "scan"
[cycle.reply]
verdict = "BLOCKED"
sections_applied = ["CA-REPRO-001"]
[[cycle.reply.findings]]
severity = "ADVISORY"
rule = "CA-REPRO-001"
artifact = "experiments/2026-08-02-scan/metadata.yml"
observation = "rerun command lacks the seed"
'''), [("CV-A602", "failed")])
s2t("empty-observation", "A model finding with no observation: a citation without evidence.", cycles_with('''[[cycle]]
science = "scan"
[cycle.reply]
verdict = "PASS"
sections_applied = ["CA-REPRO-001"]
[[cycle.reply.findings]]
severity = "ADVISORY"
rule = "CA-REPRO-001"
artifact = "experiments/2026-08-02-scan/metadata.yml"
observation = ""
'''), [("CV-A306", "failed")])
s2t("four-level-severity", "A schema-2 PASS whose report grades a model finding CRITICAL: the reply validator refuses that severity, so the reply was invalid and the verdict must be ESCALATE (CV-A304); CV-A601 also warns.", cycles_with('''[[cycle]]
science = "scan"
[cycle.reply]
verdict = "PASS"
sections_applied = ["CA-REPRO-001"]
[[cycle.reply.findings]]
severity = "CRITICAL"
rule = "CA-REPRO-001"
artifact = "experiments/2026-08-02-scan/metadata.yml"
observation = "rerun command lacks the seed"
'''), [("CV-A601", "failed"), ("CV-A304", "failed", "cycles/8413b5ae42a5-r1")])
s2t("invalid-atop-dcl", "An invalid reply atop deterministic failures: the product records BLOCKED (integrity OK); the paper's I3 requires ESCALATE.",
    DEMO_CYCLES.replace('''science = "dimer"
''', '''science = "dimer"
invalid = "no sections_applied: report cites no rule coverage (CA-META-002)"
''', 1), [("CV-A304", "failed")])
s2t("uncited-constitution", "The report cites a Constitution version other than the one the receipt binds.",
    tamper(1, "report.md", "replace", **{"from": "| constitution | `", "to": "| constitution | `000000000000` | `"}), [("CV-A305", "failed")])
s2t("forged-pass", "Round 1's receipt rewritten to PASS while checks.json and the report still show the deterministic failures.",
    tamper(1, "receipt.json", "set", pointer="/audit/verdict", value="PASS"), [("CV-A401", "failed"), ("CV-A711", "failed")])
s2t("dcl-count-edited", "checks.json edited to report no hard failure while it lists two.",
    tamper(1, "checks.json", "set", pointer="/total_hard_failures", value=0), [("CV-A402", "failed")])
s2t("round-exceeded", "A receipt claiming round 4 where max_rounds is 3.",
    tamper(2, "receipt.json", "set", pointer="/cycle/round", value=4), [("CV-A501", "failed"), ("CV-A503", "failed")])
s2t("round-renumbered", "The second increment's first round renumbered to 2.",
    tamper(3, "receipt.json", "set", pointer="/cycle/round", value=2), [("CV-A503", "failed"), ("CV-A709", "failed")])
s2t("wrong-sha", "The receipt names a commit the science repository does not hold.",
    tamper(2, "receipt.json", "set", pointer="/subject/sha", value="c" * 40), [("CV-A701", "failed")])
s2t("manifest-digest", "One manifest digest replaced by 64 zeros.",
    tamper(2, "receipt.json", "set", pointer="/inputs/manifest/" + META.replace("/", "~1"), value=ZERO), [("CV-A702", "failed")])
s2t("manifest-incomplete", "results.json dropped from the manifest: a selected file left unbound.",
    tamper(2, "receipt.json", "remove-key", pointer="/inputs/manifest/experiments~12026-07-30-demo~1results.json"), [("CV-A703", "failed")])
s2t("report-edited", "The report's observation edited before commit: it no longer hashes to report_sha256.",
    tamper(1, "report.md", "replace", **{"from": "without a revision", "to": "with a revision"}), [("CV-A705", "failed")])
s2t("constitution-hash", "constitution_sha256 does not hash the Constitution in force.",
    tamper(2, "receipt.json", "set", pointer="/inputs/constitution_sha256", value=ZERO), [("CV-A706", "failed")])
s2t("cycle-path", "ledger.cycle_path names another directory than the one the receipt lives in.",
    tamper(2, "receipt.json", "set", pointer="/ledger/cycle_path", value="cycles/000000000000-r2"), [("CV-A709", "failed")])
s2t("report-commit-empty", "An empty ledger.report_commit: the report's ledger commit is not bound (accepted by the reference).",
    tamper(2, "receipt.json", "set", pointer="/ledger/report_commit", value=""), [("CV-A710", "failed")])
s2t("parent-receipt", "Round 2 names a parent receipt that is not round 1's.",
    tamper(2, "receipt.json", "set", pointer="/cycle/parent_receipt", value=ZERO), [("CV-A712", "failed")])
scenario("s2-dispute-once", "One dispute of a model finding, ruled once.", 'base = "demo"\n[[dispute]]\ncycle = 1\nrule = "CA-REPRO-001"\nartifact = "experiments/2026-07-30-demo/metadata.yml"\nruling = "UPHELD"')
vector("s2-dispute-once", "One ruling on an existing model finding verifies.", s2("s2-dispute-once"), 0, [("CV-A603", "passed"), ("CV-A201", "passed")])
scenario("s2-dispute-twice", "The same finding ruled twice, and a deterministic finding disputed.", 'base = "demo"\n[[dispute]]\ncycle = 1\nrule = "CA-REPRO-001"\nartifact = "experiments/2026-07-30-demo/metadata.yml"\nruling = "UPHELD"\n[[dispute]]\ncycle = 1\nrule = "CA-REPRO-001"\nartifact = "experiments/2026-07-30-demo/metadata.yml"\nruling = "WITHDRAWN"\n[[dispute]]\ncycle = 1\nrule = "DCL:schema"\nartifact = "experiments/2026-07-30-demo/metadata.yml"\nruling = "WITHDRAWN"')
vector("s2-dispute-twice", "A second ruling on one finding, and a DCL finding disputed, are refused.", s2("s2-dispute-twice"), 1, [("CV-A603", "failed")])

# A local-mode ledger minted with the run verb: its receipts bind only the touched directories.
scenario("s2-local-run", "Product local mode (ledger inside the science repository), run verb: manifests bind the changed paths widened to their directories.",
         'base = "demo"\nmode = "local"\nverb = "run"\nscope_dirs = ["experiments"]')
vector("s2-local-run", "A genuine local-mode run-verb ledger verifies; the geometry file its round-2 receipt does not bind is listed (info).",
       ["ledger", "--audit", "{fixture:s2-local-run/science}"], 0,
       [("CV-A703", "passed"), ("CV-A702", "passed"), ("CV-A704", "failed"), ("CV-A704", "passed"), ("CV-A710", "passed"), ("CV-A712", "passed")])

# ---- v1 --------------------------------------------------------------------------------
v1t("missing-field", "A v1 receipt without auditor_model (reference: \"receipt missing fields\").",
    tamper(1, "receipt.json", "remove-key", pointer="/auditor_model"), [("CV-A002", "failed")])
v1t("exact-vendor", "v1 compares vendors as exact strings, so `OpenAI` vs `openai` passes the reference; crossverify normalises and refuses.",
    'generator_vendor = "OpenAI"', [("CV-A101", "failed")])
v1t("dcl-edited", "checks/run_checks.py edited in the same commit as round 2: the DCL source hash no longer matches.",
    tamper(2, "checks/run_checks.py", "append", text="# edited\n"), [("CV-A707", "failed")])
v1t("constitution-amended-with-cycle", "AUDIT_RULES.md changed in the commit that adds round 2: the bound commit is no longer the last change.",
    tamper(2, "AUDIT_RULES.md", "append", text="\n### CA-DATA-003 — added rule\n- **Severity:** BLOCKER\n"), [("CV-A706", "failed")])
v1t("constitution-unversioned", "constitution_hash `unversioned` (reference: \"unversioned\").",
    tamper(1, "receipt.json", "set", pointer="/constitution_hash", value="unversioned"), [("CV-A706", "failed"), ("CV-A305", "failed")])
v1t("state-forged", "The published controller state records the BLOCKED round-1 receipt as consumed.",
    tamper(None, "controller/state.json", "set", mode="commit", pointer="/cycles/{cycle_id:1}/consumed", value=["{receipt:1}"]), [("CV-A802", "failed")])
v1t("no-state", "No controller state published: admissions and single use cannot be checked.", "publish_state = false",
    [("CV-A802", "cantTell"), ("CV-A803", "cantTell")], exit_code=3)
scenario("v1-offline", "An offline v1 run (no model): DCL_ONLY, the prompt digest is the constant for `offline`.", '''base = "v1-genuine"
cycle = [{ science = "scan" }]''')
vector("v1-offline", "An offline v1 cycle: DCL_ONLY escalates; its prompt digest is re-derived.",
       ["ledger", "--audit", "{fixture:v1-offline/audit}", "--science", "{fixture:v1-offline/science}"], 0, [("CV-A708", "passed"), ("CV-A304", "passed")])
v1t("offline-prompt", "An offline v1 receipt whose prompt digest is not the constant.", 'cycle = [{ science = "scan" }]\n' + tamper(1, "receipt.json", "set", pointer="/prompt_sha256", value=ZERO), [("CV-A708", "failed"), ("CV-A712", "failed")])
EXHAUST = '''max_rounds = 1
[[cycle]]
science = "dimer"
[[cycle.dcl]]
rule = "CA-META-001"
check = "schema"
artifact = "experiments/2026-07-30-demo"
message = "metadata inputs must be a list of non-empty 'path@revision' strings"
[cycle.reply]
verdict = "BLOCKED"
sections_applied = ["CA-META-001"]
[[cycle.reply.findings]]
severity = "BLOCKER"
rule = "CA-REPRO-001"
artifact = "experiments/2026-07-30-demo/metadata.yml"
observation = "inputs carry no revisions"
[[cycle]]
science = "dimer-fix"
[cycle.reply]
verdict = "PASS"
sections_applied = ["CA-REPRO-001"]
'''
scenario("v1-exhausted", "max_rounds 1: round 1 BLOCKED escalates; the revision is forced to ESCALATE by the lock.", 'base = "v1-genuine"\n' + EXHAUST)
vector("v1-exhausted", "Exhaustion escalates and the lock forces ESCALATE on the revision: I5 holds.",
       ["ledger", "--audit", "{fixture:v1-exhausted/audit}", "--science", "{fixture:v1-exhausted/science}"], 0, [("CV-A502", "passed"), ("CV-A501", "passed"), ("CV-A304", "passed")])
v1t("pass-after-exhaustion", "The forced ESCALATE after exhaustion rewritten to PASS.", EXHAUST + tamper(2, "receipt.json", "set", pointer="/verdict", value="PASS") + tamper(2, "report.md", "replace", **{"from": "**ESCALATE**", "to": "**PASS**"}),
    [("CV-A502", "failed"), ("CV-A304", "failed")])
vector("v1-head-abbreviated", "--expect-audit-head must be a full commit id: a branch name or abbreviation would pin nothing (exit 2).",
       ["ledger", "--audit", "{fixture:v1-genuine/audit}", "--science", "{fixture:v1-genuine/science}", "--expect-audit-head", "edfebbe"], 2, [])
vector("v1-head-rewritten", "A pinned audit head that is not in the repository: history was rewritten (or it is the wrong repository).",
       ["ledger", "--audit", "{fixture:v1-genuine/audit}", "--science", "{fixture:v1-genuine/science}", "--expect-audit-head", "1" * 40], 1, [("CV-A202", "failed")])

# ---- the receipt gate (commit ids of the deterministic fixtures are pinned here) ---------
V1_BLOCKED = "d44a1a4f77e2fb365fe2217c09af55b25b4241e8"
V1_PASS = "1b03559f8f25d574c75eab8dbf6e1c9adc8af559"
V1_CONSUMED = "f6ac10e31a4d3ae9eacbc52ea53c4fe739990c02"
def v1r(sha, *extra):
    return ["receipt", f"cycles/{sha}/receipt.json", "--science", "{fixture:v1-genuine/science}", "--audit", "{fixture:v1-genuine/audit}", *extra]
vector("receipt-v1-admissible", "The v1 round-2 PASS receipt is verified, current, unconsumed: admissible (exit 0 with --admit).",
       v1r(V1_PASS, "--admit", "--expect-sha", V1_PASS, "--expect-repo", "lab/water-dimer"), 0, [("CV-A801", "passed"), ("CV-A701", "passed"), ("CV-A707", "passed")])
vector("receipt-v1-blocked", "A BLOCKED receipt never admits.", v1r(V1_BLOCKED, "--admit"), 1, [("CV-A801", "failed")])
vector("receipt-v1-consumed", "A receipt the published controller state already consumed cannot admit again (replay).", v1r(V1_CONSUMED, "--admit"), 1, [("CV-A801", "failed")])
vector("receipt-v1-expect-sha", "--expect-sha names another commit: the subject binding fails.", v1r(V1_PASS, "--expect-sha", V1_BLOCKED), 1, [("CV-A701", "failed")])
vector("receipt-v1-expect-repo", "--expect-repo names another repository.", v1r(V1_PASS, "--expect-repo", "lab/other"), 1, [("CV-A701", "failed")])
vector("receipt-schema2-unobservable", "A genuine product PASS receipt: verified, but single use cannot be established from the published ledger, so --admit is inconclusive.",
       ["receipt", "cycles/946b514c0d72-r2/receipt.json", "--science", "{fixture:demo/science}", "--audit", "{fixture:demo/audit}", "--admit"], 3, [("CV-A801", "cantTell"), ("CV-A702", "passed")])
S2_PASS = ["receipt", "cycles/946b514c0d72-r2/receipt.json", "--science", "{fixture:demo/science}", "--audit", "{fixture:demo/audit}", "--admit"]
vector("receipt-schema2-consumed-none", "The gate's own record (--consumed) lists nothing: single use is decided, and the genuine PASS receipt admits.",
       S2_PASS + ["--consumed", "{vectors:consumed/none.txt}"], 0, [("CV-A801", "passed")])
vector("receipt-schema2-consumed-replay", "The gate's record already lists this receipt's identity (a 16-digit prefix): a replay never admits.",
       S2_PASS + ["--consumed", "{vectors:consumed/demo-r2.txt}"], 1, [("CV-A801", "failed")])
vector("receipt-consumed-malformed", "A --consumed line that is not a receipt identity: could not run (exit 2), never a guess.",
       S2_PASS + ["--consumed", "{vectors:consumed/malformed.txt}"], 2, [])
vector("receipt-absent-admit", "No receipt binds the commit (the audit has not run): --admit denies (exit 1) with a report, so CI keeps its outputs.",
       ["receipt", "--science", "{fixture:demo/science}", "--audit", "{fixture:demo/audit}", "--expect-sha", "0" * 40, "--admit"], 1,
       [("CV-A801", "failed", "0" * 40)])
vector("receipt-expect-sha-abbreviated", "--expect-sha must be a full commit id: an abbreviation is a usage error (exit 2).",
       ["receipt", "--science", "{fixture:demo/science}", "--audit", "{fixture:demo/audit}", "--expect-sha", "946b514c0d72", "--admit"], 2, [])
vector("ledger-paired-without-science", "Paired receipts without --science: could not run (exit 2), instead of reporting every audited commit as missing.",
       ["ledger", "--audit", "{fixture:demo/audit}"], 2, [])
vector("receipt-not-in-ledger", "A receipt path that is not a cycle's receipt.json: could not run (exit 2).",
       ["receipt", "cycles/nope/receipt.json", "--science", "{fixture:demo/science}", "--audit", "{fixture:demo/audit}"], 2, [])

scenario("v1-shallow", "The audit repository is a shallow clone: history-dependent facts cannot be established.", 'base = "v1-genuine"\nshallow_ledger = 2')
vector("v1-shallow", "A shallow audit clone: I2, the Constitution commit and the controller replay are cantTell (exit 3), never passed or failed on guesswork.",
       ["ledger", "--audit", "{fixture:v1-shallow/audit}", "--science", "{fixture:v1-shallow/science}"], 3,
       [("CV-A201", "cantTell"), ("CV-A706", "cantTell"), ("CV-A503", "cantTell"), ("CV-A702", "passed")],
       absent=[("CV-A503", "failed"), ("CV-A502", "failed"), ("CV-A712", "failed")])
scenario("s2-shallow", "The schema-2 audit repository is a shallow clone: the report commits it lacks are unknown, not forged.", 'base = "demo"\nshallow_ledger = 1')
vector("s2-shallow", "A shallow schema-2 audit clone: the append-only history and the controller replay are cantTell (exit 3), never failed (tests/it/shallow.rs covers objects missing from a real `git clone --depth 1`).",
       s2("s2-shallow"), 3, [("CV-A201", "cantTell"), ("CV-A702", "passed")],
       absent=[("CV-A710", "failed"), ("CV-A503", "failed"), ("CV-A712", "failed")])
s2t("round-one-unreadable", "Round 1's receipt is not JSON: it fails CV-A001, and round 2's sequence and parent chain cannot be judged (the gap may be round 1), so they are cantTell, not failed.",
    tamper(1, "receipt.json", "replace", **{"from": '"verdict": "BLOCKED"', "to": '"verdict": BLOCKED'}),
    [("CV-A001", "failed"), ("CV-A712", "cantTell"), ("CV-A503", "cantTell")])
vector("receipt-latest-for-sha", "Without a path, the latest receipt binding --expect-sha is verified (here round 2 of the first increment).",
       ["receipt", "--science", "{fixture:v1-genuine/science}", "--audit", "{fixture:v1-genuine/audit}", "--expect-sha", V1_PASS, "--admit"], 0,
       [("CV-A801", "passed", f"cycles/{V1_PASS}")])

# ---- the deployed format through `ledger` ------------------------------------------------
vector("deployed-mirror", "The real, redacted CYCLE-000001 through `ledger`: its manifest digests are not hash-verifiable (cantTell, never tampered); nothing binds a deployed decision to files, so the run is inconclusive.",
       ["ledger", "--audit", "{vectors:real/crossaudit/ledger-mirror}"], 3,
       [("CV-A015", "cantTell"), ("CV-A601", "failed"), ("CV-A401", "passed"), ("CV-A701", "cantTell"), ("CV-A012", "passed")],
       absent=[("CV-A015", "failed")])

# ---- statistics of v1 and schema-2 ledgers ---------------------------------------------------
vector("stats-v1-ledger", "`stats` on a v1 ledger repository: the ledger is crawled and its findings converted (IDs rule@artifact, closures inferred from the next round).",
       ["stats", "{fixture:v1-genuine/audit}"], 0, [("CV-S004", "passed", "ledger")])
vector("stats-schema2-ledger", "`stats` on a product local-mode ledger (the science repository holds the ledger).",
       ["stats", "{fixture:s2-local-run/science}"], 0, [("CV-S004", "passed", "ledger")])

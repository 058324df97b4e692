#!/usr/bin/env python3
"""Writes test-vectors/checks/crossexam-*.json from a run of crossverify on each case (run from
the repository root after `cargo build`). The expectations pin every code's passed and failed
outcomes, with the subject (bus line or file) of every failure; review the diff before
committing: a vector states what the rules must decide, not what the code happens to do.
"""
import json
import subprocess

V = "{vectors:crossexam/%s}"
CASES = [
    ("real-clean-two-seat", "A clean two-seat panel made by crossexam 0.6.1 (format note §13.2), with a committed snapshot of its blind part: every rule passes or does not apply.",
     ["real/clean-two-seat/_Msg", "--prior", "prior/clean-two-seat-3-lines.jsonl"]),
    ("real-claim-and-concede", "crossexam 0.6.1 panel (§13.3): erin concedes without a verify (CX-C1 at bus #9), nothing else.",
     ["real/claim-and-concede/_Msg", "--prior", "prior/claim-and-concede-4-lines.jsonl"]),
    ("real-simulated-debate", "The tool's own demo (§13.1): five dangling refs (CX-E2) and a closed arena without synthesis (CX-S1).",
     ["real/simulated-debate/_Msg", "--prior", "prior/simulated-debate-4-lines.jsonl"]),
    ("prior-rewritten", "A snapshot of the clean panel whose line 1 differs from the current bus: the bus was rewritten (CX-I3).",
     ["real/clean-two-seat/_Msg", "--prior", "prior/clean-two-seat-rewritten.jsonl"]),
    ("vx-format", "Framing and schema violations, one per line: raw U+2028, a blank line, non-JSON, a number ts, an unknown type, a path seat name, a 1300-code-point msg, an unknown via, ts \"t\", a compact line, invalid UTF-8, no final newline; task.md with a BOM.",
     ["vx-format/_Msg"]),
    ("vx-phases", "Phase-record, gate, concession, synthesis and integrity violations: blind claims and a blind verify on the bus, forged and malformed notes, a seat flipping, the moderator claiming while closed, backward and repeated phases, a backdated line, a cursor past the end, a bad cursor name, a lock directory.",
     ["vx-phases/_Msg"]),
    ("vx-reveal", "Reveal-block and envelope violations: an unsorted block with a claim older than its window, a block whose note counts an info line, a stranded envelope with a foreign and a torn line, a synthesis without its sections while debating.",
     ["vx-reveal/_Msg"]),
    ("vx-pending", "A still-blind arena: two pending sealed claims by one seat (CX-G4, CX-R6 at info), an advisory info line with via api, a debate note without reveal and a backward flip.",
     ["vx-pending/_Msg", "--prior", "prior/vx-pending-1-line.jsonl"]),
    ("vx-legacy", "A 0.1.0-style arena judged as 0.5.0+: blind claims on the bus are seal bypasses, an unchecked seat name fails, and without task.md the phase reads as blind.",
     ["vx-legacy/_Msg", "--prior", "prior/vx-legacy-2-lines.jsonl"]),
    ("vx-legacy-dialect", "The same arena with --legacy: blind claims on the bus are info, the seat name a warning, a missing marker reads as debate (format note §10).",
     ["vx-legacy/_Msg", "--legacy", "--prior", "prior/vx-legacy-2-lines.jsonl"]),
]


def expand(a):
    return a if a.startswith("--") else "test-vectors/crossexam/" + a


def placeholder(a):
    return a if a.startswith("--") else V % a


for name, desc, args in CASES:
    out = subprocess.run(["target/debug/crossverify", "transcript", *map(expand, args), "--format", "json"], capture_output=True)
    report = json.loads(out.stdout)
    results, seen = [], set()
    for r in report["results"]:
        if r["outcome"] not in ("passed", "failed"):
            continue
        key = (r["code"], r["outcome"], r["subject"] if r["outcome"] == "failed" else None)
        if key in seen:
            continue
        seen.add(key)
        e = {"code": r["code"], "outcome": r["outcome"]}
        if r["outcome"] == "failed":
            e["subject"] = r["subject"]
        results.append(e)
    failing = sorted({r["code"] for r in report["results"] if r["level"] == "error" and r["outcome"] == "failed"})
    doc = {
        "id": f"crossexam-{name}",
        "description": desc,
        "args": ["transcript", *map(placeholder, args)],
        "expect": {"exit": out.returncode, "failing": failing, "results": results},
    }
    with open(f"test-vectors/checks/crossexam-{name}.json", "w") as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")

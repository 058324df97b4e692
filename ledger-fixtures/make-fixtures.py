#!/usr/bin/env python3
"""Writes the synthetic statistics fixtures under ledger-fixtures/.

The deployed format's report_manifest.json holds the SHA-256 of the cycle's other files, so the
fixtures are generated rather than hand-edited: change this script and rerun it
(`python3 ledger-fixtures/make-fixtures.py` from the repository root). Output is deterministic.

Plain-directory fixtures (copied as is by the tests):
  deployed-clean/         three consistent cycles: every consistency check passes
  deployed-lifecycle/     every figure: numbering gaps, recurrences, a never-closed finding, a
                          finding raised again after closure, a double closure, an unknown
                          closure, a missing timestamp, a missing model, case-sensitive models
  deployed-bad-decision/  decisions that contradict the findings' scopes; closed while listed open
  deployed-bad-manifest/  a manifest digest that does not match, a redacted one, an unlisted file
  deployed-bad-identity/  cycle_id / audited_commit disagreements, completed before started
  deployed-malformed/     a duplicate JSON key, a missing run metadata file, a cycle directory
                          without audit_result.json
  mined-wrong-summary/    cycles.jsonl with a summary.json and findings_lifecycle.json that disagree with it
  mined-malformed/        cycles.jsonl with a duplicate key and an n_findings that does not match
  analysis-small/         cycles-b.json with a consistent analysis.json (minutes rounded as printed)
  v1-receipts/            a reference v1 receipt ledger (detected, not converted)
  schema2-receipts/       a receipt-schema-2 ledger (detected, not converted)
Git fixture (built by crossverify_fixtures::mint from TOML):
  deployed-git.toml       an audit repository growing over three commits, and a science
                          repository whose commit subjects name the findings they fix
"""

import hashlib
import json
import os
import shutil

ROOT = os.path.dirname(os.path.abspath(__file__))
S, P = "submit_production_job", "publish_claim"


def dumps(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def sha(b):
    return hashlib.sha256(b).hexdigest()


def commit_of(n):
    return hashlib.sha1(f"science-{n}".encode()).hexdigest()


def finding(fid, sev, scopes, title, cite=None, source=None, fclass=None):
    ev = []
    if cite:
        ev.append(f"cite: {cite}")
    if source:
        ev.append(f"source: {source}")
    if fclass:
        ev.append(f"finding_class: {fclass}")
    ev.append(f"Synthetic evidence for {fid}.")
    ev.append(f"reproduce: git show HEAD:{fid.lower()}.txt")
    return {"finding_id": fid, "title": title, "severity": sev, "status": "OPEN",
            "blocked_scopes": scopes, "evidence": ev}


def report_md(cid, decision, commit, findings):
    lines = [f"## Audit decision: {decision}", "", f"Decision: {decision}", "",
             f"Audited commit: `{commit}`", "", "### Blocking findings", ""]
    blocking = [f for f in findings if f["blocked_scopes"]]
    caveats = [f for f in findings if not f["blocked_scopes"]]
    for i, f in enumerate(blocking, 1):
        lines.append(f"{i}. **{f['finding_id']} — [{f['severity']}] {f['title']}.** "
                     f"Blocked scopes: {', '.join('`%s`' % s for s in f['blocked_scopes'])}.")
    if not blocking:
        lines.append("None.")
    lines += ["", "### Non-blocking caveats", ""]
    for f in caveats:
        lines.append(f"- **{f['finding_id']} — [{f['severity']}]** {f['title']}.")
    if not caveats:
        lines.append("None.")
    lines += ["", "### Execution declaration", "", f"Synthetic fixture cycle {cid}.", ""]
    return "\n".join(lines)


def cycle(cid, decision, findings, closed=(), model=None, started=None, completed=None,
          commit=None, meta_overrides=None, result_overrides=None, manifest=True,
          manifest_overrides=None, drop=(), raw_result=None):
    """Returns {file name: bytes} for one cycle directory."""
    n = int(cid.split("-")[1])
    commit = commit or commit_of(n)
    result = {"cycle_id": cid, "audited_commit": commit, "decision": decision,
              "findings": findings, "verified_closed_findings": list(closed),
              "summary": f"{decision}: synthetic fixture cycle."}
    result.update(result_overrides or {})
    meta = {"cycle_id": cid, "audited_commit": commit, "runner": "codex-cli",
            "runner_version": "unknown"}
    if model is not None:
        meta["model"] = model
    if started is not None:
        meta["started_at"] = started
    if completed is not None:
        meta["completed_at"] = completed
    meta.update(meta_overrides or {})
    files = {
        "audit_report.md": report_md(cid, decision, commit, findings).encode(),
        "audit_result.json": (raw_result or dumps(result)).encode(),
        "codex_run_metadata.json": dumps(meta).encode(),
    }
    for d in drop:
        files.pop(d, None)
    if manifest:
        m = {"cycle_id": cid, "files": {k: {"sha256": sha(v)} for k, v in sorted(files.items())}}
        for k, v in (manifest_overrides or {}).items():
            if v is None:
                m["files"].pop(k, None)
            else:
                m["files"][k] = {"sha256": v}
        files["report_manifest.json"] = dumps(m).encode()
    return files


def write_dir(name, cycles, project="demo"):
    base = os.path.join(ROOT, name)
    shutil.rmtree(base, ignore_errors=True)
    for cid, files in cycles:
        d = os.path.join(base, "projects", project, "cycles", cid)
        os.makedirs(d, exist_ok=True)
        for fname, data in files.items():
            with open(os.path.join(d, fname), "wb") as fh:
                fh.write(data)


def t(hm, day="2026-08-01"):
    return f"{day}T{hm}Z"


# --- deployed-clean ----------------------------------------------------------------------------
clean = [
    ("CYCLE-000001", cycle("CYCLE-000001", "BLOCK", [
        finding("F-001", "HIGH", [S, P], "Manifest digests disagree", "Gate 2 / R-EVD-001", "DETERMINISTIC", "HARD"),
        finding("F-002", "LOW", None, "Links unresolved", "Gate 11 / R-EVD-002", "DETERMINISTIC", "SOFT"),
    ], model="gpt-5", started=t("09:00:00"), completed=t("09:05:00"))),
    ("CYCLE-000002", cycle("CYCLE-000002", "PASS_WITH_CAVEATS", [
        finding("F-002", "LOW", [], "Links unresolved", "Gate 11 / R-EVD-002", "DETERMINISTIC", "SOFT"),
    ], closed=["F-001"], model="gpt-5", started=t("09:40:00"), completed=t("09:46:00"))),
    ("CYCLE-000003", cycle("CYCLE-000003", "PASS", [], closed=["F-002"], model="gpt-5",
                           started=t("10:30:00"), completed=t("10:34:30"))),
]
write_dir("deployed-clean", clean)

# --- deployed-lifecycle (figures worked out by hand in tests/it/stats.rs) -------------------------
life = [
    ("CYCLE-000001", cycle("CYCLE-000001", "BLOCK", [
        finding("F-001", "CRITICAL", [S, P], "Evidence manifest mismatch", "Gate 11 / R-EVD-002", "DETERMINISTIC", "HARD"),
        finding("F-002", "HIGH", [P], "Claim lacks raw inputs", "Gate 11", "JUDGMENT"),
        finding("F-003", "MEDIUM", None, "Counts disagree", "CA-DATA-001 / R-NAV-003", "JUDGMENT", "SOFT"),
    ], started=t("09:00:00"), completed=t("09:06:00"))),
    ("CYCLE-000002", cycle("CYCLE-000002", "BLOCK", [
        finding("F-002", "HIGH", [P], "Claim lacks raw inputs", "Gate 11", "JUDGMENT"),
        finding("F-004", "LOW", [S], "Staging record stale", "Gate11", "DETERMINISTIC"),
    ], closed=["F-001", "F-003"], model="gpt-5", started=t("10:00:00"), completed=t("10:04:30"))),
    ("CYCLE-000004", cycle("CYCLE-000004", "BLOCK", [
        finding("F-002", "HIGH", [P], "Claim lacks raw inputs", "Gate 11", "JUDGMENT"),
        finding("F-005", "HIGH", [S, P], "Launch state contradicts gate", "R-COR-001", "JUDGMENT"),
    ], closed=["F-004", "F-099"], model="GPT-5", started=t("11:00:00"), completed=t("11:10:00"))),
    ("CYCLE-000005", cycle("CYCLE-000005", "PASS_WITH_CAVEATS", [
        finding("F-006", "MEDIUM", None, "Regression count stale", "R-NAV-003"),
    ], closed=["F-002", "F-005", "F-004"], model="gpt-5", completed=t("12:00:00"))),
    ("CYCLE-000007", cycle("CYCLE-000007", "PASS_WITH_CAVEATS", [
        finding("F-001", "MEDIUM", None, "Evidence manifest mismatch", "Gate 11 / R-EVD-002", "DETERMINISTIC", "HARD"),
        finding("F-006", "MEDIUM", None, "Regression count stale", "R-NAV-003", "JUDGMENT"),
        finding("F-007", "LOW", None, "Wording of a caveat", None, "JUDGMENT"),
    ], model="gpt-5.6", started=t("13:00:00"), completed=t("13:03:00"))),
    ("CYCLE-000008", cycle("CYCLE-000008", "PASS", [], closed=["F-006"], model="gpt-5",
                           started=t("14:00:00"), completed=t("14:05:00"))),
]
write_dir("deployed-lifecycle", life)

# --- deployed-bad-decision ---------------------------------------------------------------------
write_dir("deployed-bad-decision", [
    ("CYCLE-000001", cycle("CYCLE-000001", "BLOCK", [
        finding("F-001", "HIGH", None, "Nothing gated", "R-EVD-001", "JUDGMENT"),
    ], model="gpt-5", started=t("09:00:00"), completed=t("09:05:00"))),
    ("CYCLE-000002", cycle("CYCLE-000002", "PASS", [
        finding("F-001", "HIGH", [P], "Nothing gated", "R-EVD-001", "JUDGMENT"),
    ], closed=["F-001"], model="gpt-5", started=t("10:00:00"), completed=t("10:05:00"))),
])

# --- deployed-bad-manifest ---------------------------------------------------------------------
write_dir("deployed-bad-manifest", [
    ("CYCLE-000001", cycle("CYCLE-000001", "PASS", [], model="gpt-5", started=t("09:00:00"),
                           completed=t("09:05:00"),
                           manifest_overrides={"audit_report.md": "0" * 64,
                                               "codex_run_metadata.json": "abcdef123456\u2026"})),
    ("CYCLE-000002", cycle("CYCLE-000002", "PASS", [], model="gpt-5", started=t("10:00:00"),
                           completed=t("10:05:00"), manifest_overrides={"audit_report.md": None})),
])

# --- deployed-bad-identity ---------------------------------------------------------------------
write_dir("deployed-bad-identity", [
    ("CYCLE-000001", cycle("CYCLE-000001", "PASS", [], model="gpt-5", started=t("09:10:00"),
                           completed=t("09:00:00"),
                           meta_overrides={"cycle_id": "CYCLE-000009", "audited_commit": commit_of(7)})),
    ("CYCLE-000002", cycle("CYCLE-000002", "PASS", [], model="gpt-5", started="2026-08-01 10:00",
                           completed=t("10:05:00"))),
])

# --- deployed-malformed ------------------------------------------------------------------------
dup = ('{\n  "cycle_id": "CYCLE-000001",\n  "audited_commit": "%s",\n  "decision": "PASS",\n'
       '  "findings": [],\n  "decision": "BLOCK",\n  "verified_closed_findings": []\n}\n') % commit_of(1)
write_dir("deployed-malformed", [
    ("CYCLE-000001", cycle("CYCLE-000001", "PASS", [], model="gpt-5", started=t("09:00:00"),
                           completed=t("09:05:00"), raw_result=dup)),
    ("CYCLE-000002", cycle("CYCLE-000002", "PASS", [], drop=["codex_run_metadata.json"])),
    ("CYCLE-000003", {"audit_report.md": b"## Audit decision: PASS\n\nDecision: PASS\n"}),
])

# --- deployed-git.toml -------------------------------------------------------------------------
git_cycles = [
    ("CYCLE-000001", cycle("CYCLE-000001", "BLOCK", [
        finding("F-001", "HIGH", [S], "Staging manifest stale", "Gate 2 / R-EVD-001", "DETERMINISTIC"),
    ], model="gpt-5", started=t("09:00:00", "2026-08-02"), completed=t("09:04:00", "2026-08-02"))),
    ("CYCLE-000002", cycle("CYCLE-000002", "PASS", [], closed=["F-001"], model="gpt-5",
                           started=t("10:00:00", "2026-08-02"), completed=t("10:06:00", "2026-08-02"))),
    ("CYCLE-000003", cycle("CYCLE-000003", "BLOCK", [
        finding("F-002", "CRITICAL", [S, P], "Result without provenance", "Gate 11 / R-EVD-006", "JUDGMENT"),
    ], model="gpt-5.6", started=t("11:00:00", "2026-08-02"), completed=t("11:08:00", "2026-08-02"))),
]
out = ["# Generated by make-fixtures.py: an audit repository whose ledger grows over three commits,",
       "# and the science repository whose subjects name the findings they fix.", ""]
out += ["[[repo]]", 'name = "audit"', ""]
for i, (cid, files) in enumerate(git_cycles):
    out += ["[[repo.commit]]", f'message = "cycle {cid}"', f"time = {1786611600 + i * 3600}"]
    for fname, data in sorted(files.items()):
        out += ["[[repo.commit.file]]", f'path = "projects/demo/cycles/{cid}/{fname}"',
                "text = '''", data.decode().rstrip("\n"), "'''"]
    out.append("")
out += ["[[repo]]", 'name = "science"', ""]
for i, msg in enumerate(["add staging manifest", "fix F-001: regenerate staging manifest (audit CYCLE-000001)",
                         "add results", "revise after audit cycle 3: provenance for F-002"]):
    out += ["[[repo.commit]]", f'message = "{msg}"', f"time = {1786608000 + i * 3600}",
            "[[repo.commit.file]]", f'path = "log/{i}.txt"', f'text = "{msg}\\n"', ""]
with open(os.path.join(ROOT, "deployed-git.toml"), "w") as fh:
    fh.write("\n".join(out))


# --- mined records (cycles.jsonl + published summaries) ----------------------------------------
def mined_line(cid, decision, findings, closed, model, started, completed):
    rec = {"cycle_id": cid, "audited_commit": commit_of(int(cid[-6:])), "decision": decision,
           "model": model, "runner": "codex-cli", "started_at": started, "completed_at": completed,
           "n_findings": len(findings), "verified_closed": closed, "findings": findings}
    return json.dumps(rec)  # Python's default separators, as the mining script writes


def mined_finding(fid, sev, scopes, rules):
    return {"finding_id": fid, "severity": sev, "status": "OPEN", "blocked_scopes": scopes,
            "title_sha16": sha(fid.encode())[:16], "rules_cited": rules}


def write_files(name, files):
    base = os.path.join(ROOT, name)
    shutil.rmtree(base, ignore_errors=True)
    for rel, text in files.items():
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)


def pretty1(obj):
    return json.dumps(obj, indent=1)


mined = [
    mined_line("CYCLE-000001", "BLOCK", [mined_finding("F-001", "HIGH", [S, P], ["Gate 2", "R-EVD-001"]),
                                          mined_finding("F-002", "LOW", [P], ["Gate 11"])],
               [], None, t("09:00:00"), t("09:05:00")),
    mined_line("CYCLE-000002", "BLOCK", [mined_finding("F-002", "LOW", [P], ["Gate 11"])],
               ["F-001"], "gpt-5", t("09:50:00"), t("09:56:00")),
    mined_line("CYCLE-000004", "PASS", [], ["F-002"], "gpt-5", t("10:40:00"), t("10:44:00")),
]
summary = {"freeze": {"science_head": commit_of(99), "audit_head": commit_of(98)}, "n_cycles": 3,
           "decisions": ["BLOCK", "BLOCK", "PASS"], "findings_per_cycle": [2, 1, 0],
           "n_distinct_findings": 3,  # wrong on purpose: the records give 2
           "n_confirmed_real": 2, "n_unresolved": 0, "models": ["gpt-5"], "n_science_fix_commits": 1}
lifecycle = [
    {"finding_id": "F-001", "severity": "HIGH", "first_raised": "CYCLE-000001", "raised_in": ["CYCLE-000001"],
     "closed_confirmed_in": "CYCLE-000002", "rules_cited": ["Gate 2", "R-EVD-001"], "fix_commits": ["0123456789ab"]},
    # closed_confirmed_in wrong on purpose: CYCLE-000004 closes it
    {"finding_id": "F-002", "severity": "LOW", "first_raised": "CYCLE-000001",
     "raised_in": ["CYCLE-000001", "CYCLE-000002"], "closed_confirmed_in": "CYCLE-000002", "rules_cited": ["Gate 11"]},
    # never raised by any cycle
    {"finding_id": "F-003", "severity": "MEDIUM", "first_raised": "CYCLE-000002", "raised_in": ["CYCLE-000002"],
     "closed_confirmed_in": None, "rules_cited": []},
]
write_files("mined-wrong-summary", {"cycles.jsonl": "\n".join(mined) + "\n", "summary.json": pretty1(summary),
                                    "findings_lifecycle.json": pretty1(lifecycle)})

bad = list(mined)
bad[1] = bad[1].replace('"decision": "BLOCK"', '"decision": "BLOCK", "decision": "PASS"')
bad[2] = bad[2].replace('"n_findings": 0', '"n_findings": 2')
write_files("mined-malformed", {"cycles.jsonl": "\n".join(bad) + "\n"})

# --- analysis records (cycles-b.json + analysis.json), consistent -------------------------------
from collections import Counter
from datetime import datetime
import statistics

cb = [
    {"cid": "CYCLE-000001", "decision": "BLOCK", "started": t("09:00:00"), "completed": t("09:05:20"),
     "model": "gpt-5", "closed": [], "findings": [
         {"fid": "F-001", "sev": "CRITICAL", "scopes": [S, P], "source": "DETERMINISTIC", "fclass": "HARD",
          "rules": ["CA-DATA-001", "Gate 2"]},
         {"fid": "F-002", "sev": "MEDIUM", "scopes": [], "source": "JUDGMENT", "fclass": None, "rules": ["R-NAV-003"]}]},
    {"cid": "CYCLE-000002", "decision": "PASS_WITH_CAVEATS", "started": t("10:00:00"), "completed": t("10:07:40"),
     "model": "gpt-5.6", "closed": ["F-001"], "findings": [
         {"fid": "F-002", "sev": "MEDIUM", "scopes": [], "source": "JUDGMENT", "fclass": None, "rules": ["R-NAV-003"]}]},
    {"cid": "CYCLE-000003", "decision": "PASS", "started": t("11:30:00"), "completed": t("11:34:00"),
     "model": "gpt-5", "closed": ["F-002"], "findings": []},
]
ts = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
occ = [(i, f) for i, c in enumerate(cb) for f in c["findings"]]
first, closed_at = {}, {}
for i, f in occ:
    first.setdefault(f["fid"], (i, f))
for i, c in enumerate(cb):
    for x in c["closed"]:
        closed_at.setdefault(x, i)
lag = {k: closed_at[k] - first[k][0] for k in first if k in closed_at}
mins = [(ts(c["completed"]) - ts(c["started"])).total_seconds() / 60 for c in cb]
gaps = sorted((ts(cb[i]["started"]) - ts(cb[i - 1]["completed"])).total_seconds() / 60 for i in range(1, len(cb)))
listed = Counter(f["fid"] for c in cb for f in {x["fid"]: x for x in c["findings"]}.values())
blocking = lambda c: any(f["scopes"] for f in c["findings"])
analysis = {
    "freeze": {"science": commit_of(99)[:8], "audit": commit_of(98)[:8]},
    "n_cycles": len(cb), "n_findings": len(occ), "n_distinct": len(first), "n_closed": len(lag),
    "n_open": len(first) - len(lag),
    "decisions": dict(Counter(c["decision"] for c in cb)),
    "findings_per_cycle": [len(c["findings"]) for c in cb],
    "severity": dict(Counter(f["sev"] for _, f in first.values())),
    "source": dict(Counter(f["source"] for _, f in occ)),
    "fclass": {("null" if k is None else k): v for k, v in Counter(f["fclass"] for _, f in occ).items()},
    "source_x_severity": dict(Counter(f"{f['source']}|{f['sev']}" for _, f in occ)),
    "scopes": dict(Counter(s for _, f in occ for s in f["scopes"])),
    "rules": dict(Counter(r for _, f in occ for r in sorted(set(f["rules"])))),
    "rule_cycle_spread": {r: len({i for i, f in occ if r in f["rules"]}) for r in sorted({r for _, f in occ for r in f["rules"]})},
    "decision_vs_blocking": dict(Counter(f"{c['decision']}|any_blocking={blocking(c)}" for c in cb)),
    "decision_is_definitional": all((c["decision"] == "BLOCK") == blocking(c) for c in cb if c["decision"] != "PASS"),
    "closure_lag": {"median": statistics.median(lag.values()), "mean": round(statistics.mean(lag.values()), 2),
                    "max": max(lag.values()), "per_finding": lag},
    "survived_multiple_audits": {k: v for k, v in listed.items() if v > 1},
    # Rounded as a paper would print them: the precision rule must accept these.
    "audit_minutes": {"median": round(statistics.median(mins), 1), "min": round(min(mins), 1), "max": round(max(mins), 1)},
    "gap_minutes": {"median": round(statistics.median(gaps), 1), "q1": round(gaps[len(gaps) // 4], 1),
                    "q3": round(gaps[3 * len(gaps) // 4], 1), "max": round(max(gaps), 1)},
    "models": sorted({c["model"] for c in cb if c["model"]}),
}
write_files("analysis-small", {"cycles-b.json": pretty1(cb), "analysis.json": pretty1(analysis)})

# --- a reference v1 ledger: detected, not converted ---------------------------------------------
sha40 = commit_of(5)
write_files("v1-receipts", {
    f"cycles/{sha40}/receipt.json": json.dumps({"constitution_hash": "0" * 64, "sha": sha40, "verdict": "PASS"},
                                               indent=2, sort_keys=True),
    f"cycles/{sha40}/report.md": "# Audit Report\n",
    "AUDIT_RULES.md": "# Constitution\n",
})

# --- a receipt-schema-2 ledger (local mode: the ledger inside the science tree) -----------------
write_files("schema2-receipts", {
    f"cycles/{sha40[:12]}-r1/receipt.json": json.dumps({"receipt_schema": 2, "verdict": "BLOCKED"}, indent=2, sort_keys=True),
    f"cycles/{sha40[:12]}-r1/checks.json": "[]\n",
    "crossaudit.yml": "ledger:\n  dir: cycles\n",
})

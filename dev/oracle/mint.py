#!/usr/bin/env python3
"""Mint genuine CrossAudit ledgers with the product itself (the differential oracle's inputs).

The product is not a registry package and nothing in this repository installs it. Whoever has
it runs this with the product's own interpreter, naming the directory of its offline driver
(cadriver.py) in CROSSAUDIT_TOOLS, from the repository root:

    CROSSAUDIT_TOOLS=/path/to/crossaudit-4.14.0 /path/to/product-venv/bin/python dev/oracle/mint.py [OUT_DIR]

The tests never need it: they read the committed bundles and the product's recorded decisions.

OUT_DIR defaults to test-vectors/oracle. Each case becomes OUT_DIR/<case>/ holding git bundles
(science.bundle, and audit.bundle in paired mode) and OUT_DIR/ledgers.json lists every receipt
with its tip commits, so a re-mint can be compared with the committed one by SHA.

Determinism: every commit has a pinned identity and date, git reads no system or user
configuration (temporary HOME, GIT_CONFIG_NOSYSTEM), the controller clock is fixed through the
driver's `epoch`, and the auditor's replies are scripted (the replay provider, or a loopback
OpenAI-compatible fixture). The product is driven through $CROSSAUDIT_TOOLS/cadriver.py and is
not modified.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = Path(os.environ["CROSSAUDIT_TOOLS"]) if os.environ.get("CROSSAUDIT_TOOLS") else None
DRIVER = TOOLS / "cadriver.py" if TOOLS else None
SEED = Path(__file__).resolve().parent / "seed"
EPOCH = 1786525200
EXPECT_REPO = "lab/water-dimer"
DEMO = "experiments/2026-07-30-demo"
LOOPBACK_PORT = int(os.environ.get("CROSSAUDIT_MINT_PORT", "38517"))

CONFIG = """# crossaudit.yml - minted by crossverify dev/oracle/mint.py
version: 1

science_repo: lab/water-dimer
{audit_line}
constitution: AUDIT_RULES.md
max_rounds: 3

auditor:
{auditor}
generator:
  vendor: anthropic

isolation:
  minimum:
    parametric: true
    contextual: true
    permissive: {permissive}

state:
  dir: .crossaudit

ledger:
  dir: cycles

scope:
  dirs: [experiments]

checks: [schema, units, convergence, provenance]
"""

REPLAY_AUDITOR = """  vendor: openai
  provider: replay
  model: replay-transcript
  key_env: CROSSAUDIT_AUDITOR_KEY
"""

OPENAI_AUDITOR = f"""  vendor: openai
  provider: openai_compat
  model: fixture-auditor
  key_env: CROSSAUDIT_AUDITOR_KEY
  base_url: http://127.0.0.1:{LOOPBACK_PORT}/v1
"""

METADATA = """# Demo increment - illustrative data for the oracle fixtures.
objective: >
  Counterpoise-corrected binding energy of the water dimer at PBE0/def2-SVP.
  Illustrative data, not a scientific claim.
inputs:
{inputs}
method:
  functional: PBE0
  basis_set: def2-SVP
code_version: d3m0c0d3
environment: "container:demo/psi4:1.9"
rerun: "python run_demo.py --geometry geometries/water_dimer.xyz"
"""
GOOD_INPUTS = "  - run_demo.py@d3m0c0d3\n  - geometries/water_dimer.xyz@d3m0c0d3\n"
BAD_INPUTS = "  - geometries/water_dimer.xyz\n"

RESULTS = json.dumps({
    "quantities": [
        {"name": "binding_energy", "value": -4.72, "unit": "kcal/mol",
         "source": "run_demo.py@d3m0c0d3"},
        {"name": "oo_distance", "value": 2.91, "unit": "angstrom",
         "source": "run_demo.py@d3m0c0d3"},
    ],
    "convergence": {"converged": True, "threshold": 1.0e-6, "achieved": 3.2e-7,
                    "unit": "hartree"},
}, indent=2) + "\n"

GEOMETRY = """6
water dimer (illustrative)
O  -1.551007  -0.114520   0.000000
H  -1.934259   0.762503   0.000000
H  -0.599677   0.040712   0.000000
O   1.350625   0.111469   0.000000
H   1.680398  -0.373741  -0.758561
H   1.680398  -0.373741   0.758561
"""

NOTES = "# Lab notes — résumé\n\nO–O separation 2.91 Å; binding energy −4.72 kcal/mol.\n"
TASK = ("Add the water-dimer counterpoise binding-energy increment under "
        f"{DEMO}: metadata.yml, results.json, the geometry and a notes file.\n")
RULES = ["CA-DATA-001", "CA-DATA-002", "CA-METH-002", "CA-REPRO-001", "CA-META-001"]


def reply(verdict: str, findings: list[dict] | None = None) -> str:
    return json.dumps({"verdict": verdict, "sections_applied": RULES,
                       "findings": findings or []})


ADVISORY = {"severity": "ADVISORY", "rule": "CA-REPRO-001", "artifact": f"{DEMO}/metadata.yml",
            "observation": "The rerun command names no container tag; pinning it would help."}
BLOCKER = {"severity": "BLOCKER", "rule": "CA-DATA-002", "artifact": f"{DEMO}/results.json",
           "observation": "The notes give 2.91 Å while results.json gives no geometry source."}
PASS = reply("PASS", [ADVISORY])
BLOCKED = reply("BLOCKED", [BLOCKER])
INVALID = "I looked at the increment and it seems fine to me."


def increment(inputs: str, extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    files = {
        f"{DEMO}/metadata.yml": METADATA.format(inputs=inputs).encode(),
        f"{DEMO}/results.json": RESULTS.encode(),
        f"{DEMO}/geometries/water_dimer.xyz": GEOMETRY.encode(),
        f"{DEMO}/notes-résumé.md": NOTES.encode(),
    }
    files.update(extra or {})
    return files


def large_blob() -> bytes:
    # 600 KiB of deterministic text: past the product's 512 KiB read limit (gitio.MAX_BLOB_BYTES).
    line = b"step energy_hartree gradient_norm\n"
    rows = [b"%06d -152.%012d 0.%09d\n" % (i, (i * 7919) % 10**12, (i * 104729) % 10**9)
            for i in range(600 * 1024 // 36 + 1)]
    return line + b"".join(rows)


class Repo:
    """A git repository written with a pinned clock: every commit one minute after the last."""

    def __init__(self, path: Path, env: dict[str, str]):
        self.path, self.env = path, env
        path.mkdir(parents=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        out = subprocess.run(["git", *args], cwd=self.path, env=self.env, check=True,
                             capture_output=True)
        return out.stdout.decode().strip()

    def write(self, files: dict[str, bytes]) -> None:
        for rel, data in files.items():
            p = self.path / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)

    def commit(self, message: str, files: dict[str, bytes] | None = None,
               remove: tuple[str, ...] = ()) -> str:
        self.write(files or {})
        for rel in remove:
            self.git("rm", "-q", "--", rel)
        self.git("add", "-A")
        self.env.update(tick(self.env))
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")


def tick(env: dict[str, str]) -> dict[str, str]:
    n = int(env["GIT_AUTHOR_DATE"].split()[0]) + 60
    stamp = f"{n} +0000"
    return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


def base_env(home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    stamp = f"{EPOCH} +0000"
    return {**keep, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "Lab Scientist",
            "GIT_AUTHOR_EMAIL": "lab@example.invalid", "GIT_COMMITTER_NAME": "Lab Scientist",
            "GIT_COMMITTER_EMAIL": "lab@example.invalid", "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp, "PYTHONHASHSEED": "0", "TZ": "UTC",
            "CROSSAUDIT_AUDITOR_KEY": "fixture-key"}


class Case:
    """One ledger: a science repository, and an audit repository in paired mode."""

    def __init__(self, name: str, work: Path, *, paired: bool = False, auditor: str = REPLAY_AUDITOR):
        self.name, self.work, self.paired = name, work / name, paired
        self.env = base_env(work / "home")
        self.science = Repo(self.work / "science", self.env)
        self.audit = Repo(self.work / "audit", self.env) if paired else self.science
        self.receipts: list[dict] = []
        self.step = 0
        config = CONFIG.format(
            audit_line="audit_repo: lab/water-dimer-audit" if paired else "# audit_repo: (local ledger)",
            auditor=auditor, permissive="true" if paired else "false")
        ledger = {"AUDIT_RULES.md": (SEED / "AUDIT_RULES.md").read_bytes(),
                  "crossaudit.yml": config.encode(), ".gitignore": b".crossaudit/\n"}
        if paired:
            self.science.commit("bootstrap science repository", {"README.md": b"# water dimer\n"})
            self.audit.commit("seed: constitution and ledger", ledger)
        else:
            self.science.commit("bootstrap: constitution and configuration", ledger)

    def drive(self, spec: dict, expect: int | tuple[int, ...]) -> dict:
        """Runs one product command through cadriver.py inside the ledger repository."""
        self.step += 1
        spec = {"epoch": EPOCH + 3600 * self.step, **spec}
        if "openai_replies" in spec:
            spec["port"] = LOOPBACK_PORT
        spec_path = self.work / f"spec-{self.step}.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        env = dict(self.env, CROSSAUDIT_REPLAY_DIR=str(self.work / "replay"))
        env.update(tick(self.env))
        self.env.update(tick(self.env))
        env["CROSSAUDIT_ALLOW_CUSTOM_ENDPOINT"] = "1" if "openai_replies" in spec else ""
        if self.paired:
            env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(self.science.path / ".git/objects")
        out = subprocess.run([sys.executable, str(DRIVER), str(spec_path)], cwd=self.audit.path,
                             env=env, capture_output=True, check=False)
        codes = expect if isinstance(expect, tuple) else (expect,)
        if out.returncode not in codes:
            sys.exit(f"{self.name}: {spec.get('argv') or 'dispute'} exited {out.returncode}, "
                     f"expected {codes}\n{out.stdout.decode()}\n{out.stderr.decode()}")
        text = out.stdout.decode()
        try:
            return json.loads(text[text.index("{"):])
        except ValueError:
            return {"text": text}

    def audit_sha(self, sha: str, replies: list[str], *, verb: str = "audit", expect=(0, 10, 20),
                  continue_cycle: str | None = None, key: str = "replies") -> dict:
        argv = ["--json", "audit", "--write-ledger", "--sha", sha]
        if verb == "run":
            argv = ["run", "--sha", sha]
        if self.paired:
            argv += ["--mode", "github-pair"]
        spec = {"argv": argv, key: replies}
        if continue_cycle:
            spec["continue_cycle"] = continue_cycle
        result = self.drive(spec, expect)
        self.note_receipt(sha)
        return result

    def note_receipt(self, sha: str) -> None:
        # The newest receipt commit names its cycle folder; read it back from git, not stdout.
        path = self.audit.git("log", "-1", "--format=", "--name-only", "--diff-filter=A", "--",
                              "cycles/*/receipt.json")
        self.receipts.append({"receipt": path.splitlines()[0], "expect_sha": sha})

    def cycle_id(self) -> str:
        state = json.loads((self.audit.path / ".crossaudit/state.json").read_text(encoding="utf-8"))
        return sorted(state["cycles"].items(), key=lambda kv: kv[1]["round"])[-1][0]

    def product_verify(self, entry: dict) -> dict:
        """The product's own verdict on a receipt, while its controller state still exists."""
        env = dict(self.env)
        if self.paired:
            env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(self.science.path / ".git/objects")
        cli = Path(sys.executable).parent / "crossaudit"
        out = subprocess.run([str(cli), "--json", "verify", entry["receipt"], "--science-root",
                              str(self.science.path), "--audit-root", str(self.audit.path),
                              "--expect-sha", entry["expect_sha"], "--expect-repo", EXPECT_REPO],
                             cwd=self.audit.path, env=env, capture_output=True, check=False)
        got = json.loads(out.stdout.decode())
        keep = ("verified", "admission_ready", "admission_shortfalls", "recorded",
                "latest_recorded_receipt", "receipt_digest", "denied", "reason")
        return {"exit": out.returncode, **{k: got[k] for k in keep if k in got}}

    def finish(self, out: Path, description: str) -> dict:
        dest = out / self.name
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        repos = {"science": self.science} | ({"audit": self.audit} if self.paired else {})
        for entry in self.receipts:
            entry["product_at_mint"] = self.product_verify(entry)
        tips = {}
        for role, repo in repos.items():
            repo.git("bundle", "create", "-q", str(dest / f"{role}.bundle"), "main")
            tips[role] = repo.head()
        return {"case": self.name, "description": description,
                "mode": "paired" if self.paired else "local", "tips": tips,
                "ledger_repo": "audit" if self.paired else "science",
                "expect_repo": EXPECT_REPO, "receipts": self.receipts}


def science_commit(case: Case, message: str, files: dict[str, bytes], remove=()) -> str:
    return case.science.commit(message, files, remove)


def local_audit_multiround(work: Path) -> tuple[Case, str]:
    c = Case("local-audit-multiround", work)
    science_commit(c, "task: water-dimer increment", {"TASK.md": TASK.encode()})
    r1 = science_commit(c, "add water dimer increment (round 1)",
                        increment(BAD_INPUTS, {f"{DEMO}/data/scf-trace.log": large_blob()}))
    c.audit_sha(r1, [PASS], expect=10)
    cycle = c.cycle_id()
    r2 = science_commit(c, "declare run_demo.py, pin the geometry, drop the trace (round 2)",
                        increment(GOOD_INPUTS), remove=(f"{DEMO}/data/scf-trace.log",))
    c.audit_sha(r2, [PASS], continue_cycle=cycle, expect=0)
    return c, ("local mode, audit verb: round 1 BLOCKED by the check layer (the model said PASS), "
               "round 2 continues the cycle; round 1 holds a 600 KiB file (the product reads 512 KiB and "
               "its check layer blocks the truncated input) and a non-ASCII name")


def local_run_deletion(work: Path) -> tuple[Case, str]:
    c = Case("local-run-deletion", work)
    draft = {f"{DEMO}/brouillon-ébauche.txt": "ébauche à supprimer\n".encode()}
    r1 = science_commit(c, "add water dimer increment", increment(GOOD_INPUTS, draft))
    c.audit_sha(r1, [BLOCKED], verb="run", expect=10)
    cycle = c.cycle_id()
    # An ASCII path must change too: the run verb filters git's C-quoted names against the
    # scope directories, so a commit touching only non-ASCII names "changed no science files".
    r2 = science_commit(c, "drop the draft (non-ASCII name) and restate the notes",
                        {f"{DEMO}/notes-résumé.md": NOTES.encode() + b"\nSource: run_demo.py.\n",
                         f"{DEMO}/metadata.yml": METADATA.format(inputs=GOOD_INPUTS).encode()
                         + b"exclusions: []\n"},
                        remove=(f"{DEMO}/brouillon-ébauche.txt",))
    c.audit_sha(r2, [PASS], verb="run", continue_cycle=cycle, expect=0)
    return c, ("local mode, run verb (scope changed-paths): model BLOCKED with a BLOCKER finding, "
               "then a revision deleting a non-ASCII file PASSes")


def local_escalate(work: Path) -> tuple[Case, str]:
    c = Case("local-escalate-reaudit", work)
    r1 = science_commit(c, "add water dimer increment", increment(GOOD_INPUTS))
    c.audit_sha(r1, [INVALID], expect=11)
    c.audit_sha(r1, [PASS], expect=11)
    return c, ("local mode: an invalid reply ESCALATEs (INVALID_REPLY); re-auditing the same commit "
               "meets the escalation lock and writes an attempt folder <sha>-r1.2")


def local_interrupted(work: Path) -> tuple[Case, str]:
    c = Case("local-interrupted-reattempt", work)
    r1 = science_commit(c, "add water dimer increment", increment(GOOD_INPUTS))
    state = c.audit.path / ".crossaudit/state.json"
    before = state.read_bytes() if state.exists() else None
    c.audit_sha(r1, [PASS], expect=0)
    # The round dies after its report commit and before its receipt commit: the ledger keeps
    # the report, the controller never recorded a verdict. The product's own re-run then takes
    # the attempt folder <sha>-r1.2 (cmd_audit: "while ledger.exists()").
    c.audit.git("reset", "-q", "--hard", "HEAD~1")
    c.receipts.pop()
    if before is None:
        state.unlink()
    else:
        state.write_bytes(before)
    c.audit_sha(r1, [PASS], expect=0)
    return c, ("local mode: a round interrupted between its report and receipt commits, then "
               "re-run: cycles/<sha>-r1 holds only report.md, cycles/<sha>-r1.2 the whole round")


def local_dispute(work: Path) -> tuple[Case, str]:
    c = Case("local-dispute", work)
    r1 = science_commit(c, "add water dimer increment", increment(GOOD_INPUTS))
    c.audit_sha(r1, [BLOCKED], expect=10)
    ruling = json.dumps({"ruling": "WITHDRAWN", "reasoning": "the notes cite run_demo.py",
                         "note_for_the_record": "finding rested on a misreading"})
    c.drive({"dispute": {"grounds": "the notes do state the geometry source",
                         "hint": "CA-DATA-002"}, "replies": [ruling]}, 0)
    return c, "local mode: a model BLOCKER finding disputed once and WITHDRAWN (disputes.jsonl)"


def paired_multiround(work: Path) -> tuple[Case, str]:
    c = Case("paired-multiround", work, paired=True)
    r1 = science_commit(c, "experiment: water dimer", increment(BAD_INPUTS, {"TASK.md": TASK.encode()}))
    c.audit_sha(r1, [BLOCKED], expect=10)
    r2 = science_commit(c, "fix: declare run_demo.py", increment(GOOD_INPUTS))
    c.audit_sha(r2, [PASS], expect=0)
    return c, "paired mode: round 1 BLOCKED (check layer and model), a child commit PASSes round 2"


def paired_escalation_lock(work: Path) -> tuple[Case, str]:
    c = Case("paired-escalation-lock", work, paired=True)
    r1 = science_commit(c, "experiment: water dimer", increment(GOOD_INPUTS))
    c.audit_sha(r1, [INVALID], expect=11)
    r2 = science_commit(c, "child commit after the escalation", increment(GOOD_INPUTS, {
        f"{DEMO}/notes-résumé.md": NOTES.encode() + b"\nRevised.\n"}))
    c.audit_sha(r2, [PASS], expect=11)
    return c, ("paired mode: ESCALATE on an invalid reply, then a child commit audited under the "
               "escalation lock (its receipt keeps cycle.active_sha on the escalated parent)")


def local_openai_ok(work: Path) -> tuple[Case, str]:
    c = Case("local-openai-ok", work, auditor=OPENAI_AUDITOR)
    r1 = science_commit(c, "add water dimer increment", increment(GOOD_INPUTS))
    c.audit_sha(r1, [PASS], key="openai_replies", expect=0)
    return c, ("local mode, openai_compat auditor on a loopback fixture: PASS with integrity OK "
               "(admission-ready while the controller state exists)")


CASES = [local_audit_multiround, local_run_deletion, local_escalate, local_interrupted, local_dispute,
         paired_multiround, paired_escalation_lock, local_openai_ok]


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "test-vectors/oracle"
    if DRIVER is None:
        sys.exit("mint.py: set CROSSAUDIT_TOOLS to the directory holding the product's cadriver.py")
    if not DRIVER.is_file():
        sys.exit(f"mint.py: {DRIVER} not found (CROSSAUDIT_TOOLS names the directory holding cadriver.py)")
    only = set(os.environ.get("CROSSAUDIT_MINT_ONLY", "").split(",")) - {""}
    cases = []
    keep = os.environ.get("CROSSAUDIT_MINT_KEEP")
    with tempfile.TemporaryDirectory(prefix="crossaudit-mint-") as scratch:
        tmp = keep or scratch
        for make in CASES:
            work = Path(tmp) / make.__name__
            work.mkdir()
            (work / "home").mkdir()
            case, description = make(work)
            if only and case.name not in only:
                continue
            cases.append(case.finish(out, description))
    (out / "ledgers.json").write_text(json.dumps({"product": "crossaudit 4.14.0", "cases": cases},
                                                 indent=1, ensure_ascii=False) + "\n",
                                      encoding="utf-8")
    for case in cases:
        print(f"{case['case']}: {len(case['receipts'])} receipt(s), tips {case['tips']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

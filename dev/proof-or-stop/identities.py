#!/usr/bin/env python3
"""Independent materialHash / storyFilesHash (specs/proof-or-stop.md §2) from git's own output.

usage: identities.py REPO REV [BASE GLOB...]
Prints materialHash, then storyFilesHash when BASE and at least one GLOB are given. Written
from the spec alone, with the git CLI, to check crossverify's gix-based implementation.
"""
import hashlib
import re
import subprocess
import sys

ROOTS = (".lattice", ".proof-or-stop")


def git(repo, *args):
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, env=env).stdout


def is_meta(path):
    return any(path == r.encode() or path.startswith(r.encode() + b"/") for r in ROOTS)


def ls_tree(repo, rev):
    records = {}
    for rec in git(repo, "ls-tree", "-r", "-z", "--full-tree", rev).split(b"\0"):
        if rec:
            records[rec.split(b"\t", 1)[1]] = rec
    return records


def digest(domain, records):
    h = hashlib.sha256(domain + b"\0")
    for r in records:
        h.update(r + b"\0")
    return "sha256:" + h.hexdigest()


def glob_re(pattern):
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out.encode() + b"\\Z", re.S)


def main():
    repo, rev = sys.argv[1], sys.argv[2]
    head = ls_tree(repo, rev)
    print(digest(b"proof-or-stop/material/v1", [head[p] for p in sorted(head) if not is_meta(p)]))
    if len(sys.argv) > 4:
        base, globs = sys.argv[3], [glob_re(g) for g in sys.argv[4:]]
        changed = [p for p in git(repo, "diff", "--no-renames", "--name-only", "-z", base, rev).split(b"\0") if p]
        # The deletion marker's id has the repository's length: 40 digits (SHA-1) or 64 (SHA-256).
        zero = b"0" * len(git(repo, "rev-parse", rev).strip())
        keep = sorted(p for p in changed if not is_meta(p) and any(g.match(p) for g in globs))
        print(digest(b"proof-or-stop/story-files/v1", [head.get(p, b"000000 blob " + zero + b"\t" + p) for p in keep]))


main()

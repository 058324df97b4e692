#!/usr/bin/env python3
"""Writes the CrossExam transcripts under test-vectors/crossexam/ (run from the repository root).

real/<name>/      verbatim copies of ../shared/data/crossexam/<name>/ (made by crossexam 0.6.1),
                  plus the `.seen/<seat>` cursor files their capture.json lists with their content
vx-*/_Msg/        hand-made transcripts, each breaking a set of §12 rules on purpose (see README.md)
prior/            bus snapshots for --prior

Deterministic: same bytes on every run. The vectors that use them are
test-vectors/checks/crossexam-*.json.
"""
import json
import shutil
from pathlib import Path

ROOT = Path("test-vectors/crossexam")
SHARED = Path("../shared/data/crossexam")


def dumps(**m):
    """The tool's serialisation: json.dumps defaults, ensure_ascii=False, key order as given."""
    return json.dumps(m, ensure_ascii=False)


def line(ts, frm, typ, msg, **extra):
    return dumps(ts=ts, **{"from": frm}, type=typ, msg=msg, **extra)


def ts(s):
    return f"2026-11-30T10:{s}+00:00"


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def task(phase):
    return f"# Task\nstatus: {phase}\nmoderator: human\n\n---\n\nCount the sheep.\n"


def real():
    for src in sorted(SHARED.iterdir()):
        dst = ROOT / "real" / src.name
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst, copy_function=shutil.copyfile)
        # The shared originals are read-only; the copies must stay writable for reruns.
        for p in [dst, *dst.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        cap = json.loads((src / "capture.json").read_text())
        for name, f in cap["omitted_non_data_files"].items():
            if name.startswith(".seen/"):
                write(dst / "_Msg" / name, f["content"])


def vx_format():
    d = ROOT / "vx-format/_Msg"
    lines = [
        line(ts("00:00"), "alpha", "info", "x\u2028y").encode(),
        b"   ",
        b"not json",
        b'{"ts": 5, "from": "alpha", "type": "info", "msg": "n"}',
        line(ts("00:05"), "alpha", "vote", "aye").encode(),
        line(ts("00:06"), "../evil", "info", "hi").encode(),
        line(ts("00:07"), "alpha", "info", "w" * 1300).encode(),
        line(ts("00:08"), "alpha", "info", "mail", via="email").encode(),
        line("t", "alpha", "info", "when").encode(),
        b'{"ts":"2026-11-30T10:00:10+00:00","from":"alpha","type":"info","msg":"compact"}',
        b'{"ts": "2026-11-30T10:00:11+00:00", "from": "alpha", "type": "info", "msg": "\xff"}',
    ]
    write(d / "bus.jsonl", b"\n".join(lines))  # no final newline
    write(d / "task.md", b"\xef\xbb\xbf" + task("blind").encode())


def vx_phases():
    d = ROOT / "vx-phases/_Msg"
    bus = [
        line(ts("00:00"), "alpha", "claim", "3 sheep", ref="../../etc/passwd"),
        line(ts("00:01"), "alpha", "claim", "4 sheep", ref="analysis/alpha.md#nope"),
        line(ts("00:02"), "beta", "verify", "alpha holds"),
        line(ts("00:03"), "moderator", "info", "phase -> debate"),
        line(ts("00:04"), "gamma", "concede", "adopting alpha"),
        line(ts("00:05"), "gamma", "claim", "5 sheep after all", ref="analysis/alpha.md#count"),
        line(ts("00:06"), "moderator", "info", "phase -> debate (0 sealed claim(s) revealed)"),
        line(ts("00:07"), "alpha", "info", "phase -> closed"),
        line(ts("00:08"), "moderator", "claim", "the moderator's own count: 6"),
        line(ts("00:09"), "moderator", "info", "phase -> debate"),
        line(ts("00:10"), "moderator", "info", "phase -> debate"),
        line(ts("00:01"), "beta", "info", "backdated note"),
    ]
    write(d / "bus.jsonl", "\n".join(bus) + "\n")
    write(d / "task.md", task("closed"))
    write(d / "analysis/alpha.md", "# alpha\n\n## count\n\n3 sheep\n")
    write(d / "synthesis.md", "## Consensus\nok, see bus #99\n## Disagreements\nnone\n")
    write(d / ".seen/alpha", "99\n")
    write(d / ".seen/bad name", "1\n")
    write(d / "bus.jsonl.lock/.keep", "a 0.5.0 mkdir lock left behind (git keeps no empty directory)\n")


def vx_reveal():
    d = ROOT / "vx-reveal/_Msg"
    bus = [
        line(ts("00:00"), "moderator", "info", "phase -> blind"),
        line(ts("00:09"), "a", "claim", "1", ref="analysis/a.md"),
        line(ts("00:05"), "b", "claim", "2", ref="analysis/a.md"),
        line("2026-11-30T09:00:00+00:00", "c", "claim", "3", ref="analysis/a.md"),
        line(ts("01:00"), "moderator", "info", "phase -> debate (3 sealed claim(s) revealed)"),
        line(ts("02:00"), "moderator", "info", "phase -> blind"),
        line(ts("02:30"), "d", "claim", "4", ref="analysis/a.md"),
        line(ts("03:00"), "moderator", "info", "phase -> debate (2 sealed claim(s) revealed)"),
    ]
    write(d / "bus.jsonl", "\n".join(bus) + "\n")
    write(d / "task.md", task("debate"))
    write(d / "analysis/a.md", "# a\n")
    write(d / ".sealed/e.jsonl", line(ts("02:40"), "f", "claim", "5") + "\n" + "{torn\n")
    write(d / "synthesis.md", "# Notes\n\nnothing yet\n")


def vx_pending():
    d = ROOT / "vx-pending/_Msg"
    bus = [
        line(ts("00:00"), "qwen", "info", "hello", via="api"),
        line(ts("00:01"), "moderator", "info", "phase -> debate"),
        line(ts("00:02"), "moderator", "info", "phase -> blind"),
    ]
    write(d / "bus.jsonl", "\n".join(bus) + "\n")
    write(d / "task.md", task("blind"))
    env = [line(ts("00:03"), "alpha", "claim", "7 sheep"), line(ts("00:04"), "alpha", "claim", "8 sheep")]
    write(d / ".sealed/alpha.jsonl", "\n".join(env) + "\n")


def vx_legacy():
    d = ROOT / "vx-legacy/_Msg"
    bus = [
        line(ts("00:00"), "sonnet", "claim", "56 on site"),
        line(ts("00:01"), "bad/name", "claim", "61 on site"),
        line(ts("00:02"), "moderator", "info", "phase -> debate"),
        line(ts("00:03"), "sonnet", "verify", "bad/name's 61 reproduces", ref="PROTOCOL.md"),
    ]
    write(d / "bus.jsonl", "\n".join(bus) + "\n")
    write(d / "PROTOCOL.md", "# protocol (0.1.0 arena, no task.md)\n")


def priors():
    bus = (SHARED / "clean-two-seat/_Msg/bus.jsonl").read_bytes()
    head = b"".join(bus.splitlines(keepends=True)[:3])
    write(ROOT / "prior/clean-two-seat-3-lines.jsonl", head)
    write(ROOT / "prior/clean-two-seat-rewritten.jsonl", head.replace(b"12 distinct sheep (14 rows", b"13 distinct sheep (14 rows", 1))
    # Snapshots as a seat would commit them between phases (the blind part of each bus).
    for name, bus, n in [
        ("claim-and-concede-4-lines", SHARED / "claim-and-concede/_Msg/bus.jsonl", 4),
        ("simulated-debate-4-lines", SHARED / "simulated-debate/_Msg/bus.jsonl", 4),
        ("vx-pending-1-line", ROOT / "vx-pending/_Msg/bus.jsonl", 1),
        ("vx-legacy-2-lines", ROOT / "vx-legacy/_Msg/bus.jsonl", 2),
    ]:
        write(ROOT / f"prior/{name}.jsonl", b"".join(bus.read_bytes().splitlines(keepends=True)[:n]))


if __name__ == "__main__":
    real()
    vx_format()
    vx_phases()
    vx_reveal()
    vx_pending()
    vx_legacy()
    priors()

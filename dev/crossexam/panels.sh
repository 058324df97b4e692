#!/usr/bin/env bash
# Builds CrossExam panels with the real `cxam` CLI (crossexam 0.6.1), one git repository per
# panel under OUT, committing between phases as the tool's SECURITY.md suggests:
#   clean            two seats, sealed claims, verify/challenge with resolvable refs, closed, synthesis
#   direct-append    a seat appends a claim straight to bus.jsonl during blind (seal bypass)
#   forged-phase     a seat posts `info "phase -> debate"` during blind; task.md stays blind
#   verify-in-blind  a verify appended by hand during blind (the CLI refuses it)
#   rewritten-line   the clean panel, then line 1 of the bus rewritten and committed
# Each violation is made by hand exactly as described; tests/it/crossexam_tool.rs runs crossverify
# on every panel and asserts the exact set of failing rule codes.
# Usage: dev/crossexam/panels.sh CXAM OUT   (CXAM: path to the cxam executable)
set -euo pipefail
cxam=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 TZ=UTC
unset CX_SEAT MQ_SEAT QUAN_SEAT

commit() { git add -A . && git -c user.name=panel -c user.email=panel@crossverify.invalid commit -q -m "$1"; }
now() { date -u +%Y-%m-%dT%H:%M:%S+00:00; }

# A fresh arena in $out/$1 with analysis files whose headings the refs name.
arena() {
  local dir="$out/$1"
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
  git init -q .
  "$cxam" init --task "Count the sheep in exhibits/pen.md" >/dev/null
  printf '# pen\n\n| tag |\n|---|\n| S01 |\n| S02 |\n| S02 |\n' > _Msg/exhibits/pen.md
  printf '# alpha\n\n## count\n\n2 distinct tags (sort -u)\n\n## verify-beta\n\nbeta count reproduces\n' > _Msg/analysis/alpha.md
  printf '# beta\n\n## count\n\n2 distinct tags\n\n## challenge-alpha\n\nalpha ignores the duplicate row\n' > _Msg/analysis/beta.md
}

claims() {
  CX_SEAT=alpha "$cxam" post claim "2 distinct sheep (S01 S02)" --ref analysis/alpha.md#count >/dev/null
  CX_SEAT=beta "$cxam" post claim "2 distinct sheep, 3 rows" --ref analysis/beta.md#count >/dev/null
}

debate_and_close() {
  "$cxam" phase debate >/dev/null
  CX_SEAT=alpha "$cxam" post verify "beta count of 2 reproduces with sort -u" --ref analysis/alpha.md#verify-beta >/dev/null
  CX_SEAT=beta "$cxam" post challenge "alpha ignores the duplicate S02 row" --ref analysis/beta.md#challenge-alpha 2>/dev/null >/dev/null
  CX_SEAT=alpha "$cxam" read >/dev/null
  commit debate
  "$cxam" phase closed >/dev/null
  printf '# Synthesis\n\n## Consensus\n\n2 distinct sheep (alpha, beta; verified at bus #4).\n\n## Disagreements\n\n| claim | seats for | seats against | evidence status |\n|---|---|---|---|\n| duplicate row matters | beta | alpha | open |\n%s\n' "${1:-}" > _Msg/synthesis.md
  commit closed
}

clean() {
  arena "$1"
  claims
  commit blind
  debate_and_close
}

clean clean

clean rewritten-line
cp _Msg/bus.jsonl "$out/rewritten-line.prior.jsonl"
python3 - <<'PY'
p = "_Msg/bus.jsonl"
lines = open(p, encoding="utf-8").read().split("\n")
lines[0] = lines[0].replace("2 distinct sheep", "3 distinct sheep")
open(p, "w", encoding="utf-8").write("\n".join(lines))
PY
commit "rewrite line 1"

arena direct-append
printf '{"ts":"%s","from":"rogue","type":"claim","ref":"analysis/alpha.md#count","msg":"1 sheep"}\n' "$(now)" >> _Msg/bus.jsonl
sleep 1
claims
commit blind
debate_and_close 'rogue stands alone.'

arena forged-phase
claims
CX_SEAT=beta "$cxam" post info "phase -> debate" >/dev/null
commit blind

arena verify-in-blind
claims
printf '{"ts":"%s","from":"alpha","type":"verify","ref":"analysis/alpha.md#verify-beta","msg":"beta reproduces"}\n' "$(now)" >> _Msg/bus.jsonl
commit blind
debate_and_close

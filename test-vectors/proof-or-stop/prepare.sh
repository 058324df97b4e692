#!/bin/sh
# Rebuilds the repositories the Proof-or-Stop vectors use, test-vectors/proof-or-stop/repos/*.git
# (committed, bare, loose objects: the vectors need no preparation), with the git CLI isolated
# from every user and system configuration and pinned identities and dates, so the commit ids
# are the design note's §4.9 ones. Run from the repository root; idempotent. The test
# `prepare_rebuilds_the_committed_repositories` checks the rebuilt refs equal the committed ones.
set -eu
out=${1:-test-vectors/proof-or-stop/repos}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=/nonexistent LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=dev GIT_AUTHOR_EMAIL=dev@example.invalid GIT_COMMITTER_NAME=dev GIT_COMMITTER_EMAIL=dev@example.invalid
commit() { # message date
  GIT_AUTHOR_DATE="$2 +0000" GIT_COMMITTER_DATE="$2 +0000" git -c commit.gpgsign=false commit -q -m "$1"
}
golden="$work/golden"
git init -q -b main "$golden"
(
  cd "$golden"
  printf 'hello\n' > README.md
  mkdir src
  printf 'fn main() {}\n' > src/main.rs
  printf 'fn old() {}\n' > src/old.rs
  git add -A && commit base 2026-01-01T00:00:00
  printf 'fn main() { lib::run(); }\n' > src/main.rs
  printf 'pub fn run() {}\n' > src/lib.rs
  git rm -q src/old.rs
  mkdir -p .proof-or-stop/story/actives/B-0001
  printf '{}\n' > .proof-or-stop/story/actives/B-0001/findings.json
  git add -A && commit work 2026-01-02T00:00:00
)
# One more commit on top of H in a copy: a code-byte flip outside the story (drift), a fix in a
# story file (fixed), and evidence recorded under the metadata root only (meta).
for v in drift fixed meta; do
  git clone -q "$golden" "$work/$v"
  (
    cd "$work/$v"
    case $v in
      drift) printf 'hellp\n' > README.md ;;
      fixed) printf 'pub fn run() { fixed(); }\n' > src/lib.rs ;;
      meta) printf '{"recorded":true}\n' > .proof-or-stop/story/actives/B-0001/evidence.json ;;
    esac
    git add -A && commit "$v" 2026-01-03T00:00:00
  )
done
# The golden story again in git's SHA-256 object format (objectFormat: sha256, 64-digit ids).
git init -q --object-format=sha256 -b main "$work/sha256"
(
  cd "$work/sha256"
  printf 'hello\n' > README.md
  mkdir src
  printf 'fn main() {}\n' > src/main.rs
  printf 'fn old() {}\n' > src/old.rs
  git add -A && commit base 2026-01-01T00:00:00
  printf 'fn main() { lib::run(); }\n' > src/main.rs
  printf 'pub fn run() {}\n' > src/lib.rs
  git rm -q src/old.rs
  mkdir -p .proof-or-stop/story/actives/B-0001
  printf '{}\n' > .proof-or-stop/story/actives/B-0001/findings.json
  git add -A && commit work 2026-01-02T00:00:00
)
# Bare copies with loose objects and one loose ref: plain files a checkout carries as they are.
for v in golden drift fixed meta sha256; do
  format=sha1
  [ "$v" = sha256 ] && format=sha256
  git init -q --bare --object-format=$format -b main "$out/$v.git"
  git -C "$work/$v" push -q "$out/$v.git" main:main
  rm -rf "$out/$v.git/hooks" "$out/$v.git/info" "$out/$v.git/description" "$out/$v.git/objects/info" "$out/$v.git/objects/pack"
done

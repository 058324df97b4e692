# Sourced by .ci/wheel and .ci/integrations: tools from PyPI, each pinned in its own virtual
# environment under target/tools/, installed once. A tool that cannot be installed fails the
# run on CI (CI set); on a contributor's machine the step says SKIPPED with the reason instead.

tools_dir="$PWD/target/tools"

# skipped REASON: stops the calling script, as a failure on CI and as SKIPPED elsewhere.
skipped() {
  if [[ -n "${CI:-}" ]]; then
    printf 'cannot run on CI, where it is required: %s\n' "$1" >&2
    exit 1
  fi
  printf 'SKIPPED: %s\n' "$1" >&2
  exit 0
}

# pip_tool DIR PIP-ARGS...: installs PIP-ARGS into target/tools/DIR unless already there, and
# sets tool_bin to the environment's bin directory; `skipped` when python3 or PyPI is not to be
# had. (A variable, not output: `skipped` must end the calling script, not a subshell.)
pip_tool() {
  local dir="$tools_dir/$1"
  shift
  local stamp="$dir/.installed" want="$*"
  tool_bin="$dir/bin"
  [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && return 0
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 ||
    skipped "$want: python3 with venv and ensurepip is needed (Debian: python3-venv)"
  echo "installing $want (pip, into ${dir#"$PWD"/})"
  rm -rf "$dir"
  python3 -m venv "$dir"
  if ! "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"; then
    rm -rf "$dir"
    skipped "$want: pip could not install it (is PyPI reachable?)"
  fi
  printf '%s\n' "$want" >"$stamp"
}

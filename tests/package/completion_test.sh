#!/bin/sh
# The generated shell completions (scripts/gen-cli-docs.py) offer what the CLI has: subcommands,
# options of a subcommand, --format values, nested subcommands; the man page names every
# subcommand and the exit codes.
# Usage: completion_test.sh CLI_DOCS_DIR FAULTLINE_BINARY
set -eu
docs=$1
bin=$2
fail() { echo "completion_test: FAIL: $*" >&2; exit 1; }

# bash: what the completion function offers for the words COMP_WORDS (the last one is the cursor)
complete_bash() {
  bash -c '
    . "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _faultline
    printf "%s\n" "${COMPREPLY[@]}"' sh "$docs/bash/faultline" "$@"
}
has() { # has WORD WORDS...: WORD is one of the lines of the completion
  w=$1; shift
  complete_bash "$@" | grep -qxF -- "$w" || fail "bash: '$*' does not offer $w (offers: $(complete_bash "$@" | tr '\n' ' '))"
}
hasnt() {
  w=$1; shift
  ! complete_bash "$@" | grep -qxF -- "$w" || fail "bash: '$*' offers $w"
}

has analyze faultline ""
has analyze faultline an
has serve faultline ""
hasnt --listen faultline analyze --
has --format faultline analyze --f
has --fail-on faultline analyze node.tar.zst --fa
has json faultline analyze --format ""
has html faultline analyze --format h
has md faultline report --db x.db --format ""
has json faultline analyze --format = ""          # --format=<TAB>: bash splits at '='
has --listen faultline serve --
has coverage faultline rules ""
has --samples faultline rules coverage --
# a word after an option's value is not taken for a subcommand
has --top faultline rules suggest --db x.db --t
# the value of --format is offered from the help of this very binary: every value (issue 36:
# jsonl and csv were missing), for every command that has --format
formats=$("$bin" analyze --help | tr '\n' ' ' | sed -n 's/.*--format TEXT *Output format: *\([^.]*\)\..*/\1/p' | sed 's/(default)//g' | tr ',' ' ')
[ "$(echo $formats)" = "md json html jsonl csv" ] || fail "the --format values in analyze --help: '$formats'"
for cmd in analyze fleet report; do
  for f in $formats; do
    if [ "$cmd" = report ]; then has "$f" faultline report --db x.db --format ""; else has "$f" faultline "$cmd" --format ""; fi
  done
done
# every option of every subcommand, as its --help lists it
for cmd in analyze fleet report serve; do
  for o in $("$bin" "$cmd" --help | grep -E '^ +-' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    [ "$o" = --help ] && continue
    has "$o" faultline "$cmd" --
  done
done
# the collector's
bash -c '. "$1"; COMP_WORDS=(faultline-collect --s); COMP_CWORD=1; _faultline_collect; printf "%s\n" "${COMPREPLY[@]}"' \
  sh "$docs/bash/faultline-collect" | grep -qx -- --since-date || fail "bash: faultline-collect --s"

# zsh (when installed): the same answers through compadd
if command -v zsh >/dev/null 2>&1; then
  zsh -n "$docs/zsh/_faultline" || fail "zsh: syntax of _faultline"
  out=$(zsh -f -c '
    compadd() { [ "$1" = -- ] && shift; print -l -- "$@"; }
    _files() { print FILES; }
    compset() { :; }
    fpath=("$1" $fpath); autoload -Uz _faultline
    words=(faultline analyze --format ""); CURRENT=4; _faultline
    words=(faultline ru); CURRENT=2; _faultline
    words=(faultline rules ""); CURRENT=3; _faultline
    words=(faultline analyze ""); CURRENT=3; _faultline' sh "$docs/zsh")
  for w in json html rules lint FILES; do
    printf '%s\n' "$out" | grep -qx -- "$w" || fail "zsh: no $w in: $(printf '%s' "$out" | tr '\n' ' ')"
  done
else
  echo "completion_test: zsh not installed: zsh completion checked for syntax only by its generator"
fi

# the man page: every subcommand, every exit code of `faultline --help`
man=$docs/faultline.1
for c in analyze fleet report rules serve "rules coverage" "rules import\\\\-faultdiag"; do
  grep -q "^\.SS \"faultline $c\"" "$man" || fail "faultline.1 has no section for $c"
done
grep -q '^\.SH EXIT STATUS' "$man" || fail "faultline.1 has no EXIT STATUS"
for code in 0 1 2 3; do
  grep -A1 '^\.TP' "$man" | grep -qx ".B $code" || fail "faultline.1: exit code $code missing"
done
grep -q -- '\\-\\-analysis\\-timeout' "$man" || fail "faultline.1 lacks serve --analysis-timeout"
echo "completion_test: ok"

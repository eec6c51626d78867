#!/usr/bin/env bash
# Tests of scripts/stage.sh, the time budgets of `make test` and CI: a stage
# within its budget passes, one that needs more finishes in time the stages
# before it left and is named as over its own budget, one past both is
# stopped with exit 124 (and its processes with it), strict mode carries
# nothing, a failing stage keeps its exit status, and the summary says all
# of it.
#
#   tests/scripts/stage_test.sh SOURCE_DIR
set -uo pipefail

stage=${1:?usage: stage_test.sh SOURCE_DIR}/scripts/stage.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PGRIG_STAGE_LOG=$work/stages.log
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect_rc WANT COMMAND...: runs COMMAND with output in $work/out.
expect_rc() {
  local want=$1
  shift
  "$@" >"$work/out" 2>&1
  local rc=$?
  ((rc == want)) || { fail "'$*' exited $rc, want $want"; cat "$work/out" >&2; }
}

expect_in() {
  grep -qF -- "$1" "$2" || { fail "'$1' not in $2:"; cat "$2" >&2; }
}

# Within its budget.
expect_rc 0 env PGRIG_STAGE_BUDGETS=on "$stage" first 8 sleep 1
expect_in "== stage first: ok after" "$work/out"

# Over its own budget of 1 s, within the 6 s or so the first stage left.
expect_rc 0 "$stage" second 1 sleep 2
expect_in "more left by the stages before it" "$work/out"
expect_in "over its budget, in time earlier stages left" "$work/out"
expect_in "took longer than its own budget" "$work/out"

# Past its budget and what is left (about 5 s): stopped, and so is the
# process it started.
expect_rc 124 "$stage" third 1 sh -c "sleep 60 & echo \$! > '$work/child'; wait"
expect_in "ran past its budget of 0 min 01 s and the" "$work/out"
child=$(cat "$work/child")
state=$(ps -o stat= -p "$child" 2>/dev/null)
if [[ -n $state && $state != Z* ]]; then # a zombie has ended; its reaper may be slow
  fail "the stopped stage's process $child still runs ($state)"
  kill "$child"
fi

expect_rc 0 "$stage" --summary
expect_in "first " "$work/out"
expect_in "over its budget, in time earlier stages left" "$work/out"
expect_in "over budget" "$work/out"
[[ -e $PGRIG_STAGE_LOG ]] && fail "--summary left the stage log"

# Strict: nothing carried, the stage's own budget only.
"$stage" roomy 30 true >/dev/null 2>&1
expect_rc 124 env PGRIG_STAGE_BUDGETS=strict "$stage" tight 1 sleep 5
expect_in "ran past its budget of 0 min 01 s (docs" "$work/out"

# A failing stage keeps its exit status; off enforces nothing.
expect_rc 3 "$stage" failing 5 sh -c 'exit 3'
expect_in "failed (exit 3)" "$work/out"
expect_rc 0 env PGRIG_STAGE_BUDGETS=off "$stage" unbounded 1 sleep 2
expect_in "== stage unbounded: ok" "$work/out"

# Refusals: a budget that is not a number, an unknown mode.
expect_rc 2 "$stage" bad 1m true
expect_in "is not a number of seconds" "$work/out"
expect_rc 2 env PGRIG_STAGE_BUDGETS=maybe "$stage" bad 5 true
expect_in "it must be on, strict or off" "$work/out"

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "stage.sh: all checks passed"

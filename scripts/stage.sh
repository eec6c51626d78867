#!/usr/bin/env bash
# One stage of `make test` (and so of CI) with a time budget.
#
#   scripts/stage.sh NAME BUDGET_SECONDS COMMAND [ARGS...]
#   scripts/stage.sh --summary
#
# Runs COMMAND, prints how long it took against its budget, and appends a
# line to the stage log ($PGRIG_STAGE_LOG, default build/stages.log).  A stage
# still running when its budget is spent is stopped (its whole process group:
# SIGTERM, then SIGKILL 20 s later) and fails with a message that names the
# stage and the budget, so that CI fails early and says why instead of
# running into its 90-minute limit.  The budgets are in the Makefile and
# documented, with measured times, in docs/testing.md.  PGRIG_STAGE_BUDGETS=off
# times the stages without enforcing the budgets (for a deliberately slow
# machine).  Ctrl-C and SIGTERM reach the stage's processes as usual.
#
# --summary prints the stage log as a table and removes it.
set -uo pipefail

log=${PGRIG_STAGE_LOG:-build/stages.log}

minsec() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

if [[ ${1:-} == --summary ]]; then
  [[ -f $log ]] || exit 0
  echo "stage times (budgets in docs/testing.md):"
  total=0
  while read -r name secs budget status; do
    printf '  %-16s %12s  budget %12s  %s\n' "$name" "$(minsec "$secs")" "$(minsec "$budget")" "$status"
    total=$((total + secs))
  done <"$log"
  printf '  %-16s %12s\n' total "$(minsec "$total")"
  rm -f "$log"
  exit 0
fi

if (($# < 3)); then
  echo "usage: scripts/stage.sh NAME BUDGET_SECONDS COMMAND [ARGS...] | --summary" >&2
  exit 2
fi
name=$1 budget=$2
shift 2
[[ $budget =~ ^[0-9]+$ ]] || { echo "stage.sh: budget '$budget' is not a number of seconds" >&2; exit 2; }
mkdir -p "$(dirname "$log")"

start=$(date +%s)
echo "== stage $name: started $(date -u +%H:%M:%S) UTC (budget $(minsec "$budget"))"

# The stage in a process group of its own, so that a spent budget stops all
# of it (ninja's compilers, ctest's tests) and nothing else.
set -m
"$@" &
pid=$!
set +m
forward() { kill -"$1" -- -"$pid" 2>/dev/null; }
trap 'forward INT' INT
trap 'forward TERM' TERM
trap 'forward HUP' HUP

if [[ ${PGRIG_STAGE_BUDGETS:-on} != off ]]; then
  (
    sleep "$budget" </dev/null >/dev/null 2>&1 &
    sleeper=$!
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    wait "$sleeper"
    if kill -0 "$pid" 2>/dev/null; then
      echo "" >&2
      echo "== stage $name ran past its budget of $(minsec "$budget") (docs/testing.md, 'Stage budgets'): stopping it" >&2
      kill -TERM -- -"$pid" 2>/dev/null
      sleep 20 </dev/null >/dev/null 2>&1 &
      sleeper=$!
      wait "$sleeper"
      kill -KILL -- -"$pid" 2>/dev/null
    fi
  ) &
  watchdog=$!
fi

# wait returns early when a trapped signal arrives; wait again until the
# stage itself has ended.
rc=0
while :; do
  wait "$pid"
  rc=$?
  kill -0 "$pid" 2>/dev/null || break
done
if [[ -n ${watchdog:-} ]]; then
  kill -TERM "$watchdog" 2>/dev/null
  wait "$watchdog" 2>/dev/null
fi

secs=$(($(date +%s) - start))
over_budget=0
if [[ ${PGRIG_STAGE_BUDGETS:-on} != off ]] && ((secs >= budget)); then
  over_budget=1
fi
status=ok
((rc != 0)) && status="failed (exit $rc)"
((over_budget)) && status="over budget"
echo "$name $secs $budget $status" >>"$log"
echo "== stage $name: $status after $(minsec "$secs") (budget $(minsec "$budget"))"
if ((over_budget)); then
  echo "== stage $name took longer than its budget of $(minsec "$budget"): the stage grew, or this machine is slower than the one the budgets were set on (docs/testing.md)" >&2
  exit 124
fi
exit "$rc"

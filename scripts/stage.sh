#!/usr/bin/env bash
# One stage of `make test` (and so of CI) with a time budget.
#
#   scripts/stage.sh NAME BUDGET_SECONDS COMMAND [ARGS...]
#   scripts/stage.sh --summary
#
# Runs COMMAND, prints how long it took against its budget, and appends a
# line to the stage log ($PGRIG_STAGE_LOG, default build/stages.log).
#
# A stage may use its own budget plus what the stages before it in the same
# log left unused (their budgets minus their times), so the whole run never
# takes longer than the sum of the budgets, while one stage that a machine
# happens to make slower (the tests on a guest whose compiler is fast) does
# not fail a run that is well inside its time.  A stage that needs that
# carried time is named as over its own budget, in its line and in the
# summary.  A stage still running when its budget and the carried time are
# spent is stopped (its whole process group: SIGTERM, then SIGKILL 20 s
# later) and fails with a message that names the stage and the budget, so
# that CI fails early and says why instead of running into its 90-minute
# limit.  The budgets are in the Makefile and documented, with measured
# times, in docs/testing.md.  PGRIG_STAGE_BUDGETS=strict enforces each
# stage's own budget with nothing carried; PGRIG_STAGE_BUDGETS=off times the
# stages without enforcing anything (for a deliberately slow machine).
# Ctrl-C and SIGTERM reach the stage's processes as usual.
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

mode=${PGRIG_STAGE_BUDGETS:-on}
case $mode in
  on | strict | off) ;;
  *) echo "stage.sh: PGRIG_STAGE_BUDGETS is '$mode'; it must be on, strict or off" >&2; exit 2 ;;
esac

# The time the earlier stages of this run left unused.
carried=0 also=""
if [[ $mode == on && -f $log ]]; then
  while read -r _ s b _; do
    [[ $s =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] && carried=$((carried + b - s))
  done <"$log"
  ((carried < 0)) && carried=0
fi
limit=$((budget + carried))
((carried > 0)) && also=" and the $(minsec "$carried") the stages before it left"

start=$(date +%s)
if ((carried > 0)); then
  echo "== stage $name: started $(date -u +%H:%M:%S) UTC (budget $(minsec "$budget"), $(minsec "$carried") more left by the stages before it)"
else
  echo "== stage $name: started $(date -u +%H:%M:%S) UTC (budget $(minsec "$budget"))"
fi

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

if [[ $mode != off ]]; then
  (
    sleep "$limit" </dev/null >/dev/null 2>&1 &
    sleeper=$!
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    wait "$sleeper"
    if kill -0 "$pid" 2>/dev/null; then
      echo "" >&2
      echo "== stage $name ran past its budget of $(minsec "$budget")$also (docs/testing.md, 'Stage budgets'): stopping it" >&2
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
# stopped: the stage used up all it had and was ended; over: it took more than
# its own budget and finished in time carried from the stages before it.
stopped=0 over=0
if [[ $mode != off ]] && ((secs >= limit)); then
  stopped=1
elif [[ $mode != off ]] && ((secs >= budget)); then
  over=1
fi
status=ok
((over)) && status="ok, $(minsec $((secs - budget))) over its budget, in time earlier stages left"
((rc != 0)) && status="failed (exit $rc)"
((stopped)) && status="over budget"
echo "$name $secs $budget $status" >>"$log"
echo "== stage $name: $status after $(minsec "$secs") (budget $(minsec "$budget"))"
if ((over)); then
  echo "== stage $name took longer than its own budget of $(minsec "$budget") and finished in time the stages before it left: the stage grew, or this machine is slower at it than the one the budgets were set on (docs/testing.md)" >&2
fi
if ((stopped)); then
  echo "== stage $name took longer than its budget of $(minsec "$budget")$also: the stage grew, or this machine is slower than the one the budgets were set on (docs/testing.md)" >&2
  exit 124
fi
exit "$rc"

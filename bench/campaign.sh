#!/usr/bin/env bash
# campaign.sh: `pgrig compare` and `pgrig report` on campaign-sized suites
# (issue 28, point 6): two suites of CELLS cells x ITERATIONS iterations whose
# every run carries a latency histogram of SAMPLES transactions, written by
# bench/campaign_suite.cc from a suite that `pgrig run` measured.
#
# Side by side, interleaved, PAIRS times: this pgrig on the suites as it
# writes them now (pgrig.suite/2, packed histograms) and the peer on the same
# suites as pgrig wrote them before (pgrig.suite/1, bucket arrays): PEER_PGRIG
# (an older pgrig build) when set, else this pgrig reading /1.  Prints the
# file sizes, then per command the median wall time and peak resident memory
# with their ranges, and the ratios.  docs/performance.md has the figures.
#
# Usage: bench/campaign.sh [PAIRS]            (default 10)
# Environment: PGRIG (build/pgrig), GEN (build/bench/campaign_suite),
#   PEER_PGRIG (unset), TEMPLATE (a suite.json; default: one `pgrig run
#   --quick` on the embedded cluster under PGRIG_HOME, ~1 min), WORK
#   (/tmp/pgrig-campaign), CELLS (200), ITERATIONS (10), SAMPLES (200000).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PAIRS=${1:-10}
PGRIG=${PGRIG:-$here/build/pgrig}
GEN=${GEN:-$here/build/bench/campaign_suite}
PEER_PGRIG=${PEER_PGRIG:-}
WORK=${WORK:-/tmp/pgrig-campaign}
CELLS=${CELLS:-200}
ITERATIONS=${ITERATIONS:-10}
SAMPLES=${SAMPLES:-200000}
export PGRIG_HOME=${PGRIG_HOME:-/tmp/pgrig-bench-vs}
for tool in "$PGRIG" "$GEN" /usr/bin/time; do
  [[ -x $tool ]] || { echo "campaign.sh: $tool is missing (make native-build; apt-get install time)" >&2; exit 1; }
done
if ! [[ $PAIRS =~ ^[0-9]+$ ]] || ((PAIRS < 1)); then
  echo "campaign.sh: PAIRS must be a positive whole number" >&2
  exit 1
fi
mkdir -p "$WORK"
if [[ -z ${TEMPLATE:-} ]]; then
  TEMPLATE=$WORK/template/suite.json
  if [[ ! -f $TEMPLATE ]]; then
    rm -rf "$WORK/template"
    "$PGRIG" run --quick --out "$WORK/template" >/dev/null
  fi
fi

# The same seeds and ratio for both forms: the same suites, two encodings.
gen() {  # form dir seed ratio
  if [[ ! -f $WORK/$2/suite.json ]]; then
    mkdir -p "$WORK/$2"
    "$GEN" "$TEMPLATE" "$WORK/$2/suite.json" "$CELLS" "$ITERATIONS" "$SAMPLES" "$4" "$3" "$1"
  fi
}
gen packed a2 1 1.0 & gen packed b2 2 1.05 & wait
gen arrays a1 1 1.0 & gen arrays b1 2 1.05 & wait

peer=${PEER_PGRIG:-$PGRIG}
results=$WORK/times.txt
: >"$results"
measure() {  # label command...
  local rc=0
  /usr/bin/time -o "$WORK/time.out" -f "%e %M" "${@:2}" >/dev/null 2>"$WORK/stderr.out" || rc=$?
  if ((rc != 0)); then
    echo "campaign.sh: ${*:2} exited $rc:" >&2
    cat "$WORK/stderr.out" >&2
    exit 1
  fi
  echo "$1 $(tail -1 "$WORK/time.out")" >>"$results"
}
for ((k = 1; k <= PAIRS; k++)); do
  measure compare_new "$PGRIG" compare "$WORK/a2" "$WORK/b2"
  measure compare_peer "$peer" compare "$WORK/a1" "$WORK/b1"
  measure report_new "$PGRIG" report "$WORK/a2"
  measure report_peer "$peer" report "$WORK/a1"
done

echo "campaign: $CELLS cells x $ITERATIONS iterations, $SAMPLES transactions a run; $PAIRS pairs"
echo "  suite.json: packed (pgrig.suite/2) $(du -m "$WORK/a2/suite.json" | cut -f1) MB," \
  "arrays (pgrig.suite/1) $(du -m "$WORK/a1/suite.json" | cut -f1) MB"
echo "  new: $PGRIG on /2; peer: $peer on /1"
python3 - "$results" <<'EOF'
import statistics
import sys

rows = {}
for line in open(sys.argv[1]):
    label, secs, kb = line.split()
    rows.setdefault(label, []).append((float(secs), int(kb) / 1024))

def show(label):
    s = [r[0] for r in rows[label]]
    m = [r[1] for r in rows[label]]
    print(f"  {label:13s} {statistics.median(s):7.2f} s [{min(s):.2f} - {max(s):.2f}]"
          f"  {statistics.median(m):7.0f} MB [{min(m):.0f} - {max(m):.0f}]")
    return statistics.median(s), statistics.median(m)

for cmd in ("compare", "report"):
    ns, nm = show(cmd + "_new")
    ps, pm = show(cmd + "_peer")
    print(f"  {cmd}: peer/new time {ps / ns:.1f}x, memory {pm / nm:.1f}x")
EOF

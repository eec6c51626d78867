#!/usr/bin/env bash
# CTest "arm64_facts_match_native": `pgrig facts --sysroot TREE --no-server`
# as an arm64 program under qemu-user gives the same text and JSON as the
# native build, on every fixture tree under tests/data/hosts (the Arm ones
# are the point: Graviton2/3/4, Ampere Altra; the x86 ones and the broken
# tree come along).
# Usage: facts_match.sh NATIVE_PGRIG ARM64_PGRIG HOSTS_DIR EMULATOR [ARGS...]
set -euo pipefail
native=$1 arm=$2 hosts=$3
shift 3
emu=("$@")
[[ -x $native ]] || { echo "FAIL: no native pgrig at $native (build the native tree first)" >&2; exit 1; }

scratch=$(mktemp -d /tmp/pgrig-arm64-facts.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
trees=0 failed=0
for tree in "$hosts"/*/; do
  tree=${tree%/}
  name=$(basename "$tree")
  for form in text json; do
    args=(facts --sysroot "$tree" --no-server)
    [[ $form == json ]] && args+=(--json)
    set +e
    "$native" "${args[@]}" >"$scratch/$name.native.$form" 2>&1
    rc_native=$?
    "${emu[@]}" "$arm" "${args[@]}" >"$scratch/$name.arm64.$form" 2>&1
    rc_arm=$?
    set -e
    if [[ $rc_native != "$rc_arm" ]]; then
      echo "FAIL: $name ($form): exit $rc_native natively, $rc_arm as arm64" >&2
      failed=$((failed + 1))
    elif ! diff -u "$scratch/$name.native.$form" "$scratch/$name.arm64.$form" >&2; then
      echo "FAIL: $name ($form): arm64 output differs from native (above)" >&2
      failed=$((failed + 1))
    fi
  done
  trees=$((trees + 1))
  arch=$(grep -m1 -o '"architecture": "[^"]*"' "$scratch/$name.native.json" || echo "no architecture reported")
  echo "$name: same text and JSON ($arch)"
done
for required in graviton2 graviton3 graviton4 ampere-altra ampereone; do
  [[ -d $hosts/$required ]] || { echo "FAIL: fixture tree $required is missing" >&2; failed=$((failed + 1)); }
done
((trees > 0)) || { echo "FAIL: no fixture trees under $hosts" >&2; exit 1; }
echo "$trees trees compared, $failed differences"
((failed == 0))

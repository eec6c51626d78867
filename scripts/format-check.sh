#!/usr/bin/env bash
# Checks that every tracked C++ file (*.cc, *.h) is formatted as .clang-format
# says, without changing anything (`clang-format --dry-run -Werror`).
# Prints the files that differ and how many they are; exits 1 when there is
# at least one, 0 when all are clean.  `make format-check` runs it; to fix a
# file, run `clang-format -i FILE`.
#
# Usage: scripts/format-check.sh [FILE...]   (default: all tracked files)
set -euo pipefail
cd "$(dirname "$0")/.."

format=${CLANG_FORMAT:-clang-format}
if ! command -v "$format" >/dev/null; then
  echo "format-check: $format not found; install the clang-format package (scripts/setup.sh)" >&2
  exit 1
fi

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.cc' '*.h')
fi

# Many files per clang-format process, as many processes as CPUs: one
# process per file took 50 s on a 2-vCPU guest where an exec costs ~4 ms
# (docs/testing.md).  clang-format names each file that differs in its
# "FILE:LINE:COL: error: code should be clang-formatted" lines.
status=0
errors=$(printf '%s\0' "${files[@]}" |
  xargs -0 -n 40 -P "$(nproc)" "$format" --dry-run -Werror 2>&1 >/dev/null) || status=$?
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$errors" | cut -d: -f1 | sort -u)
for f in "${bad[@]}"; do echo "needs formatting: $f"; done
failed=${#bad[@]}
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  # It failed without naming a file it would change: say what it said.
  echo "format-check: $format failed: $errors" >&2
  exit 1
fi
echo "format-check: $failed of ${#files[@]} files need formatting ($format $("$format" --version | grep -o '[0-9][0-9.]*' | head -1))"
[ "$failed" -eq 0 ]

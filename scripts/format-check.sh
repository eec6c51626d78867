#!/usr/bin/env bash
# Checks that every tracked C++ file (*.cc, *.h) is formatted as .clang-format
# says, without changing anything: `clang-format --dry-run -Werror` per file.
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

failed=0
for f in "${files[@]}"; do
  if ! "$format" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "needs formatting: $f"
    failed=$((failed + 1))
  fi
done
echo "format-check: $failed of ${#files[@]} files need formatting ($format $("$format" --version | grep -o '[0-9][0-9.]*' | head -1))"
[ "$failed" -eq 0 ]

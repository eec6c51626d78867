#!/bin/sh
# Issue 14, item 10: pgrig prices from the catalog compiled into it when no
# data/ directory is beside the binary (any build directory or prefix).
# Usage: catalog_builtin_cli_test.sh PATH_TO_PGRIG [EMULATOR [ARG...]]
# The optional emulator (CMake's CMAKE_CROSSCOMPILING_EMULATOR: qemu-aarch64
# -L SYSROOT in the arm64 build) runs the copied binary.
set -eu
pgrig="$1"
shift
dir=$(mktemp -d /tmp/pgrig-catalog-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin"
cp "$pgrig" "$dir/bin/pgrig"
unset PGRIG_DATA_DIR || true
cd "$dir"
out=$("$@" "$dir/bin/pgrig" cost --instance r8g.large --years 1 2>&1) || {
  echo "pgrig cost failed without data/ beside it:"; echo "$out"; exit 1; }
echo "$out" | grep -q "built into pgrig" || { echo "not the built-in catalog:"; echo "$out"; exit 1; }
echo "$out" | grep -q "r8g.large" || { echo "no r8g.large:"; echo "$out"; exit 1; }
# --catalog still overrides: an overlay with its own price replaces it.
cat > "$dir/mine.toml" <<'TOML'
schema = "pgrig.prices/1"
[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r8g.large"
usd_per_hour = 0.5
date = 2026-12-01
source = "test overlay"
TOML
out=$("$@" "$dir/bin/pgrig" cost --instance r8g.large --years 1 --catalog "$dir/mine.toml" 2>&1) || {
  echo "overlay refused:"; echo "$out"; exit 1; }
echo "$out" | grep -q "4,380.00" || { echo "overlay price not used (0.5 x 8,760 h):"; echo "$out"; exit 1; }
# PGRIG_DATA_DIR still wins, and a wrong one is an error.
mkdir -p "$dir/env"
if PGRIG_DATA_DIR="$dir/nowhere" "$dir/bin/pgrig" cost --instance r8g.large >/dev/null 2>&1; then
  echo "a PGRIG_DATA_DIR without prices.toml was accepted"; exit 1
fi
echo ok

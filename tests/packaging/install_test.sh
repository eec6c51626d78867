#!/usr/bin/env bash
# CTest "package_install_layout": `cmake --install` into a scratch prefix puts
# pgrig, the price catalog, the plans and the docs where pgrig and
# cmake/pgrig_package.cmake say, leaves the pgbench link to its component, and
# the installed pgrig answers `cost` from there (its catalog, not the source
# tree's).  Usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR [EMULATOR ARGS...]
set -euo pipefail
cmake=$1 build=$2 src=$3
shift 3
emu=("$@")   # empty natively; qemu-aarch64-static -L SYSROOT for a cross build

fail() { echo "FAIL: $*" >&2; exit 1; }
scratch=$(mktemp -d /tmp/pgrig-install-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

"$cmake" --install "$build" --prefix "$prefix" >"$scratch/install.log"
for f in bin/pgrig share/pgrig/prices.toml share/doc/pgrig/README.md share/doc/pgrig/architecture.md; do
  [[ -f $prefix/$f ]] || fail "cmake --install did not install $f (see $scratch/install.log)"
done
[[ -x $prefix/bin/pgrig ]] || fail "bin/pgrig is not executable"
cmp -s "$src/data/prices.toml" "$prefix/share/pgrig/prices.toml" || fail "installed prices.toml differs from data/"
for d in "$src"/docs/*.md; do
  cmp -s "$d" "$prefix/share/doc/pgrig/$(basename "$d")" || fail "docs/$(basename "$d") not installed as is"
done
if [[ -d $src/plans ]]; then
  diff -r "$src/plans" "$prefix/share/pgrig/plans" >/dev/null || fail "share/pgrig/plans differs from plans/"
fi
[[ ! -e $prefix/lib/pgrig/bin/pgbench && ! -e $prefix/bin/pgbench ]] ||
  fail "the pgbench link was installed without asking for component pgbench"

"$cmake" --install "$build" --prefix "$prefix" --component pgbench >>"$scratch/install.log"
link=$(find "$prefix" -name pgbench -type l)
[[ -n $link ]] || fail "component pgbench installed no link"
[[ $link -ef $prefix/bin/pgrig ]] || fail "$link does not lead to bin/pgrig ($(readlink "$link"))"

# Run from an unrelated directory, with no environment pointing at the tree.
cd "$scratch"
out=$(env -u PGRIG_DATA_DIR "${emu[@]}" "$prefix/bin/pgrig" cost --instance r8g.large 2>&1) ||
  fail "installed pgrig cost --instance r8g.large failed: $out"
grep -q '^r8g.large: aws' <<<"$out" || fail "unexpected cost output: $out"
if grep -q 'prices.toml' <<<"$out"; then
  catalog=$(grep -o '/[^ ]*prices\.toml' <<<"$out" | head -1)
  [[ $catalog == "$prefix"/* ]] || fail "installed pgrig read $catalog, not its own catalog"
fi
out=$("${emu[@]}" "$link" --version 2>&1) || fail "pgrig run through the pgbench link failed: $out"
echo "install layout ok: $(cd "$prefix" && find . -type f -o -type l | wc -l) files under the prefix"

#!/usr/bin/env bash
# CTest "package_deb": builds the .deb packages with CPack, checks their
# control fields (architecture, declared dependencies covering every library
# the executable needs), unpacks each with dpkg-deb -x into a scratch
# directory and runs pgrig from there: --version, facts --no-server and
# cost --instance r8g.large (the arm64 package under qemu-user).
# Usage: deb_test.sh CPACK BUILD_DIR SOURCE_DIR DEB_ARCH [EMULATOR ARGS...]
set -euo pipefail
cpack=$1 build=$2 src=$3 arch=$4
shift 4
emu=("$@")

fail() { echo "FAIL: $*" >&2; exit 1; }
scratch=$(mktemp -d /tmp/pgrig-deb-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

(cd "$build" && "$cpack" -G DEB -B "$scratch/out" >"$scratch/cpack.log" 2>&1) ||
  { cat "$scratch/cpack.log" >&2; fail "cpack -G DEB"; }
shopt -s nullglob
main=("$scratch"/out/pgrig_*_"$arch".deb)
link=("$scratch"/out/pgrig-pgbench_*_"$arch".deb)
((${#main[@]} == 1)) || fail "expected one pgrig_*_$arch.deb, got: $(ls "$scratch/out")"
((${#link[@]} == 1)) || fail "expected one pgrig-pgbench_*_$arch.deb, got: $(ls "$scratch/out")"
dbg=("$scratch"/out/pgrig-dbg_*_"$arch".deb)
((${#dbg[@]} == 1)) || fail "expected one pgrig-dbg_*_$arch.deb, got: $(ls "$scratch/out")"

field() { dpkg-deb -f "$1" "$2"; }
[[ $(field "$main" Architecture) == "$arch" ]] || fail "Architecture is $(field "$main" Architecture)"
[[ $(field "$main" Package) == pgrig ]] || fail "Package is $(field "$main" Package)"
depends=$(field "$main" Depends)
link_depends=$(field "$link" Depends)
[[ $link_depends == *pgrig* ]] || fail "pgrig-pgbench does not depend on pgrig: $link_depends"

# The package's files.
root=$scratch/root
dpkg-deb -x "$main" "$root"
for f in usr/bin/pgrig usr/share/pgrig/prices.toml usr/share/doc/pgrig/README.md; do
  [[ -f $root/$f ]] || fail "$(basename "$main") lacks /$f"
done
cmp -s "$src/data/prices.toml" "$root/usr/share/pgrig/prices.toml" || fail "packaged prices.toml differs from data/"
if [[ -d $src/plans ]]; then
  diff -r "$src/plans" "$root/usr/share/pgrig/plans" >/dev/null || fail "packaged plans differ from plans/"
fi
[[ ! -e $root/usr/lib/pgrig/bin/pgbench ]] || fail "the pgbench link is in the main package"
dpkg-deb -x "$link" "$root"
[[ -L $root/usr/lib/pgrig/bin/pgbench && $root/usr/lib/pgrig/bin/pgbench -ef $root/usr/bin/pgrig ]] ||
  fail "pgrig-pgbench's /usr/lib/pgrig/bin/pgbench does not lead to /usr/bin/pgrig"

# The executable is stripped and small (fleet copies it to every host); its
# debug information is in pgrig-dbg, where its .gnu_debuglink leads.
size=$(stat -c %s "$root/usr/bin/pgrig")
((size <= 25 * 1024 * 1024)) || fail "/usr/bin/pgrig is $size bytes, over 25 MB"
if readelf -S "$root/usr/bin/pgrig" | grep -q '\.debug_info'; then
  fail "/usr/bin/pgrig has debug information (.debug_info)"
fi
[[ $(readelf --string-dump=.gnu_debuglink "$root/usr/bin/pgrig" 2>/dev/null) == *pgrig.debug* ]] ||
  fail "/usr/bin/pgrig has no .gnu_debuglink to pgrig.debug"
[[ $(field "$dbg" Depends) == *pgrig* ]] || fail "pgrig-dbg does not depend on pgrig: $(field "$dbg" Depends)"
dpkg-deb -x "$dbg" "$root"
debug_file=$root/usr/lib/debug/usr/bin/pgrig.debug
[[ -f $debug_file ]] || fail "$(basename "$dbg") lacks /usr/lib/debug/usr/bin/pgrig.debug"
readelf -S "$debug_file" | grep -q '\.debug_line' || fail "pgrig.debug has no line table (.debug_line)"
# The link's CRC-32 (the section's last four bytes) is that of this file; it
# is gzip's CRC-32, which gzip stores in its trailer (both little-endian here).
objcopy=objcopy
[[ $arch == arm64 ]] && objcopy=aarch64-linux-gnu-objcopy
"$objcopy" --dump-section .gnu_debuglink="$scratch/debuglink" "$root/usr/bin/pgrig" "$scratch/ignored" ||
  fail "cannot read /usr/bin/pgrig's .gnu_debuglink"
[[ $(tail -c 4 "$scratch/debuglink" | od -An -tx1) == $(gzip -c "$debug_file" | tail -c 8 | head -c 4 | od -An -tx1) ]] ||
  fail "/usr/bin/pgrig's .gnu_debuglink CRC does not match pgrig.debug"

# Every library the executable needs comes from a package it declares.  The
# sonames are mapped to packages through this machine's dpkg database and its
# multiarch directory (library packages have the same names on every
# architecture).
machine=$(readelf -h "$root/usr/bin/pgrig" | sed -n 's/^ *Machine: *//p')
case $arch in
  amd64) [[ $machine == *X86-64* ]] || fail "amd64 package holds a $machine executable" ;;
  arm64) [[ $machine == *AArch64* ]] || fail "arm64 package holds a $machine executable" ;;
esac
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
while read -r soname; do
  pkg=$(dpkg -S "*/$multiarch/$soname" 2>/dev/null | head -1 | cut -d: -f1) || true
  [[ -n $pkg ]] || fail "no installed package provides $soname (needed by pgrig)"
  sed 's/([^)]*)//g; s/|/,/g' <<<"$depends" | tr ',' '\n' | tr -d ' ' | grep -Fxq "$pkg" || fail "pgrig needs $soname from $pkg, which Depends does not name: $depends"
done < <(readelf -d "$root/usr/bin/pgrig" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')

# Run it from the unpacked tree, from an unrelated directory.
cd "$scratch"
run() { env -u PGRIG_DATA_DIR "${emu[@]}" "$root/usr/bin/pgrig" "$@"; }
out=$(run --version 2>&1) || fail "pgrig --version: $out"
grep -q '^pgrig [0-9]' <<<"$out" || fail "pgrig --version printed: $out"
version=$out
out=$(run facts --no-server 2>&1) || fail "pgrig facts --no-server: $out"
grep -q 'architecture' <<<"$out" || fail "pgrig facts --no-server printed: $out"
out=$(run cost --instance r8g.large 2>&1) || fail "pgrig cost --instance r8g.large: $out"
grep -q '^r8g.large: aws' <<<"$out" || fail "pgrig cost --instance r8g.large printed: $out"
if grep -q 'prices.toml' <<<"$out"; then
  catalog=$(grep -o '/[^ ]*prices\.toml' <<<"$out" | head -1)
  [[ $catalog == "$root"/* ]] || fail "the packaged pgrig read $catalog, not its own catalog"
fi
echo "ok: $(basename "$main") ($(du -k "$main" | cut -f1) kB, Depends: $depends) runs: $version"
echo "ok: $(basename "$link")"
echo "ok: $(basename "$dbg") ($(du -k "$dbg" | cut -f1) kB); /usr/bin/pgrig $((size / 1024)) kB, stripped"

#!/usr/bin/env bash
# Prepares an arm64 sysroot for the aarch64 cross build (cmake/toolchain-aarch64.cmake)
# and for running its programs under qemu-user: Debian's arm64 packages of the
# libraries pgrig uses, with everything they depend on, unpacked with
# `dpkg-deb -x` into one directory.  Nothing is installed on the machine and
# the machine's own apt state is not touched: apt runs with private state,
# cache and source lists under the cache directory and APT::Architecture=arm64,
# so `dpkg --print-foreign-architectures` stays as it was.  Only Debian's
# archive is contacted (deb.debian.org, or $PGRIG_DEBIAN_MIRROR).
#
# Also unpacks the arm64 postgresql-15 and postgresql-client-15 packages alone
# (not their dependencies): the LSE detection test scans their `postgres`
# binary, and the arm64 cross-check compares pgrig with their `pgbench`.
#
# Usage: scripts/arm64-sysroot.sh [SYSROOT]   (default: build-arm64-sysroot)
# Idempotent and cached: when SYSROOT was made from the same package list it
# does nothing (delete SYSROOT to take newer package versions); downloaded
# .debs are kept in SYSROOT.cache/ and reused.
# Needs: apt-get, dpkg-deb, and the debian-archive-keyring (as on any Debian).
set -euo pipefail

cd "$(dirname "$0")/.."
sysroot=$(realpath -m "${1:-build-arm64-sysroot}")
cache="$sysroot.cache"

# The development packages the build needs; apt adds what they depend on.
packages=(
  libc6-dev libstdc++-12-dev
  libpq-dev liburing-dev libfmt-dev
  libgtest-dev libgmock-dev
  nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
)
# Taken alone, without their dependencies.
alone=(postgresql-15 postgresql-client-15)

. /etc/os-release
suite=${VERSION_CODENAME:?"/etc/os-release names no VERSION_CODENAME"}
mirror=${PGRIG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${PGRIG_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

stamp_text="suite=$suite packages=${packages[*]} alone=${alone[*]} v=1"
if [[ -f "$sysroot/.pgrig-sysroot" && "$(cat "$sysroot/.pgrig-sysroot")" == "$stamp_text" ]]; then
  exit 0
fi

[[ -r $keyring ]] || { echo "arm64-sysroot: $keyring is missing (apt-get install debian-archive-keyring)" >&2; exit 1; }
mkdir -p "$cache"/{state/lists/partial,archives/partial,sourceparts,prefs}
: >"$cache/status"
cat >"$cache/sources.list" <<EOF
deb [arch=arm64 signed-by=$keyring] $mirror $suite main
deb [arch=arm64 signed-by=$keyring] $mirror $suite-updates main
deb [arch=arm64 signed-by=$keyring] $security $suite-security main
EOF

apt_opts=(
  -o APT::Architecture=arm64 -o APT::Architectures::=arm64
  -o Dir::State="$cache/state" -o Dir::State::status="$cache/status"
  -o Dir::Cache="$cache" -o Dir::Cache::archives="$cache/archives"
  -o Dir::Etc::SourceList="$cache/sources.list" -o Dir::Etc::SourceParts="$cache/sourceparts"
  -o Dir::Etc::Preferences="$cache/prefs/none" -o Dir::Etc::PreferencesParts="$cache/prefs"
  -o APT::Install-Recommends=false -o APT::Install-Suggests=false
  -o Debug::NoLocking=true -o APT::Sandbox::User=root
)

# Index files: refreshed at most once a day (the script stays fast when
# rerun after a package list change).
lists_age=$(( $(date +%s) - $(stat -c %Y "$cache/state/lists" 2>/dev/null || echo 0) ))
if ! compgen -G "$cache/state/lists/*Packages*" >/dev/null || ((lists_age > 86400)); then
  echo "arm64-sysroot: fetching Debian's arm64 package indexes ($suite)" >&2
  apt-get "${apt_opts[@]}" -qq update
  touch "$cache/state/lists"
fi

echo "arm64-sysroot: downloading ${packages[*]} and their dependencies (arm64)" >&2
# With an empty status file apt resolves the whole closure down to libc6.
apt-get "${apt_opts[@]}" -qq -y --download-only install "${packages[@]}" </dev/null
( cd "$cache/archives" && apt-get "${apt_opts[@]}" -qq download "${alone[@]}" )

# Drop package versions an earlier run left in the cache that the archive no
# longer offers, so that only one version of each is unpacked.
apt-get "${apt_opts[@]}" -qq autoclean </dev/null

rm -rf "$sysroot.tmp"
mkdir -p "$sysroot.tmp"
for deb in "$cache"/archives/*.deb; do
  dpkg-deb -x "$deb" "$sysroot.tmp"
done

# Absolute symlinks (e.g. libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.1)
# would point into the build machine; make them relative to the sysroot.
while IFS= read -r link; do
  target=$(readlink "$link")
  [[ $target == /* ]] || continue
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot.tmp$target")" "$link"
done < <(find "$sysroot.tmp" -type l)

echo "$stamp_text" >"$sysroot.tmp/.pgrig-sysroot"
rm -rf "$sysroot"
mv "$sysroot.tmp" "$sysroot"
echo "arm64-sysroot: ready in $sysroot ($(du -sh "$sysroot" | cut -f1))" >&2

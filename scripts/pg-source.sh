#!/usr/bin/env bash
# Fetches PostgreSQL's release tarball for the installed server: the
# .orig.tar.bz2 of Debian's source package postgresql-MAJOR at exactly the
# installed version (a newer one may not be in the archive this machine
# uses), into DIR (default /var/cache/pgrig/pg-source).  `pgrig pg build`
# builds from it, and so does the real-build test (docs/pg-build.md).
# Adds deb-src lines mirroring apt's deb ones when apt has none.  Prints the
# tarball's path.  Idempotent: nothing is fetched when the tarball is there.
# Run as root (or with sudo) the first time.
set -euo pipefail
dir=${1:-/var/cache/pgrig/pg-source}
sudo=()
[[ $(id -u) -ne 0 ]] && sudo=(sudo)

major=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
if [[ -z $major ]]; then
  echo "pg-source: no PostgreSQL server installed (/usr/lib/postgresql is empty)" >&2
  exit 1
fi
pkg=postgresql-$major
version=$(dpkg-query -W -f='${Version}' "$pkg")  # 15.18-0+deb12u1
upstream=${version%%-*}                           # 15.18
tarball=$dir/${pkg}_${upstream}.orig.tar.bz2
if [[ -s $tarball ]]; then
  echo "$tarball"
  exit 0
fi

if ! grep -Eqs '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/*; then
  if [[ -e /etc/apt/sources.list.d/debian.sources ]]; then
    sed -E 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
      "${sudo[@]}" tee /etc/apt/sources.list.d/pgrig-deb-src.sources >/dev/null
  else
    grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
      "${sudo[@]}" tee /etc/apt/sources.list.d/pgrig-deb-src.list >/dev/null
  fi
  echo "pg-source: added Debian's deb-src lines; apt-get update" >&2
  "${sudo[@]}" apt-get update -qq
fi

"${sudo[@]}" mkdir -p "$dir"
cd "$dir"
# The tarball only: apt-get would unpack it with dpkg-source otherwise.
"${sudo[@]}" apt-get source -qq --download-only "$pkg=$version" >&2
if [[ ! -s $tarball ]]; then
  echo "pg-source: apt-get source $pkg=$version gave no $tarball" >&2
  exit 1
fi
echo "$tarball"

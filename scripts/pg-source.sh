#!/usr/bin/env bash
# Fetches PostgreSQL's release tarball for the installed server: the
# .orig.tar.bz2 of Debian's source package postgresql-MAJOR, at the installed
# version when the archive still has its source, else at the newest version
# of the same major whose source it has (a mirror may carry a binary whose
# source is gone: here the security archive's 15.20 source answers 404),
# into DIR (default /var/cache/pgrig/pg-source).  `pgrig pg build` builds
# from it, and so does the real-build test (docs/pg-build.md).  Adds deb-src
# lines mirroring apt's deb ones when apt has none.  Prints the tarball's
# path.  Idempotent: nothing is fetched when a tarball of that major is
# there.  Run as root (or with sudo) the first time.
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
installed=$(dpkg-query -W -f='${Version}' "$pkg") # 15.18-0+deb12u1
tarball_of() { echo "$dir/${pkg}_${1%%-*}.orig.tar.bz2"; }

if [[ -s $(tarball_of "$installed") ]]; then
  tarball_of "$installed"
  exit 0
fi
for t in "$dir/${pkg}"_*.orig.tar.bz2; do
  if [[ -s $t ]]; then
    echo "$t"
    exit 0
  fi
done

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
# The installed version first, then the others apt knows, newest first.
versions=("$installed")
while read -r v; do
  [[ $v != "$installed" ]] && versions+=("$v")
done < <(apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -rV)
for v in "${versions[@]}"; do
  # The tarball only: apt-get would unpack it with dpkg-source otherwise.
  if "${sudo[@]}" apt-get source -qq --download-only "$pkg=$v" >/dev/null 2>&1 &&
    [[ -s $(tarball_of "$v") ]]; then
    [[ $v != "$installed" ]] &&
      echo "pg-source: the source of $pkg $installed is not in the archive; fetched $v" >&2
    tarball_of "$v"
    exit 0
  fi
  echo "pg-source: apt-get source $pkg=$v failed" >&2
done
echo "pg-source: no source of $pkg could be fetched (tried ${versions[*]})" >&2
exit 1

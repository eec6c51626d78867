#!/usr/bin/env bash
# Installs the Debian packages that pgrig's build, tests and benchmarks need,
# when they are missing.  Idempotent: when everything is there it only checks
# (well under a second).  Run as root, or as a user with sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libpq-dev postgresql-15 postgresql-client-15 postgresql-contrib
  libcli11-dev nlohmann-json3-dev libfmt-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  sysbench clang liburing-dev
  chromium
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "setup: these packages are missing and you are not root: ${missing[*]}" >&2
    echo "setup: install them as root (apt-get install ${missing[*]}) and run again" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# Debian's postgresql-common would create and start a 'main' cluster on port
# 5432; pgrig has its own, so ask it not to.
if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
  "${sudo[@]}" mkdir -p /etc/postgresql-common
  echo "create_main_cluster = false" | "${sudo[@]}" tee /etc/postgresql-common/createcluster.conf >/dev/null
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null

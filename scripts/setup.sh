#!/usr/bin/env bash
# Installs the Debian packages that pgrig's build, tests and benchmarks need,
# when they are missing: `scripts/setup.sh run` only those of `make run`
# (building pgrig and running it), `scripts/setup.sh` (or `all`) everything
# `make test` uses too.  Idempotent: when everything is there it only checks
# (well under a second).  Run as root, or as a user with sudo.
set -euo pipefail

# What `make run` needs (build pgrig, run the embedded cluster), then what
# `make test` adds.
run_packages=(
  build-essential cmake ninja-build pkg-config git ccache
  libpq-dev postgresql-15 postgresql-client-15 postgresql-contrib
  libcli11-dev nlohmann-json3-dev libfmt-dev libtomlplusplus-dev liburing-dev
  # CMake configures the test and benchmark programs too (only `make test`
  # builds them)
  libgtest-dev libgmock-dev libbenchmark-dev
  # server profiles (pgrig bench|run --profile)
  linux-perf
)
test_packages=(
  sysbench clang clang-format
  # PostgreSQL built from source (pgrig pg build; the real-build test):
  # what configure's defaults need beyond the compiler
  libreadline-dev zlib1g-dev
  chromium
  # arm64: cross compiler, qemu-user (run explicitly as qemu-aarch64-static,
  # no binfmt registration needed), .deb tooling, the archive key that
  # scripts/arm64-sysroot.sh checks Debian's arm64 indexes with
  g++-aarch64-linux-gnu qemu-user-static dpkg-dev debian-archive-keyring
  openssh-server openssh-client iproute2
)

case ${1:-all} in
  run) packages=("${run_packages[@]}") ;;
  all) packages=("${run_packages[@]}" "${test_packages[@]}") ;;
  *)
    echo "usage: scripts/setup.sh [run|all]" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

# `all`: the upstream source of the installed server, for the real-build
# test (scripts/pg-source.sh; nothing is fetched when it is there).
fetch_source() {
  if [[ ${1:-all} == all ]]; then
    "$(dirname "$0")/pg-source.sh" >/dev/null
  fi
}

if ((${#missing[@]} == 0)); then
  fetch_source "${1:-all}"
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
# openssh-server is only for the fleet tests, which start their own sshd inside
# network namespaces they make.  Debian's package would start ssh.service,
# listening on 0.0.0.0:22: when we are the ones installing it, keep it from
# starting (a temporary policy-rc.d) and disable it where systemd runs.
installing_sshd=0
for p in "${missing[@]}"; do [[ "$p" == openssh-server ]] && installing_sshd=1; done
policy_added=0
if ((installing_sshd)) && [[ ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${sudo[@]}" chmod 755 /usr/sbin/policy-rc.d
  policy_added=1
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
if ((policy_added)); then
  "${sudo[@]}" rm -f /usr/sbin/policy-rc.d
fi
if ((installing_sshd)) && command -v systemctl >/dev/null; then
  now=()
  [[ -d /run/systemd/system ]] && now=(--now)
  "${sudo[@]}" systemctl disable "${now[@]}" ssh.service ssh.socket >/dev/null 2>&1 || true
fi
fetch_source "${1:-all}"

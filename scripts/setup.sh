#!/usr/bin/env bash
# Installs what ttlplan needs from Debian 12 packages (run as root). Skips the install when every
# package is already there, so repeated runs are quick.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  coinor-libcbc-dev libglpk-dev libtbb-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-dev pybind11-dev      # the Python extension (import ttlplan)
  mlir-16-tools llvm-16-tools   # test tools only: mlir-opt-16 checks the generic form
  slurm-wlm munge               # test tools only: tests/slurm runs scripts/slurm on a private cluster
  python3 python3-jsonschema    # test tools only: tests/schema validates JSON output (docs/schema)
  python3-numpy                 # test tools only: tests/run/padding_numpy.py checks the emulator
  python3-pytest                # test tools only: tests/python/test_bindings.py
  chromium libxml2-utils fonts-dejavu-core  # test tools only: tests/report opens the HTML reports
  clang libclang-rt-14-dev      # test tools only: scripts/fuzz.sh builds the libFuzzer harnesses
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

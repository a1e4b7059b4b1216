#!/usr/bin/env bash
# The main job on a shipped example: set up, build (release), then plan the kernel, compile it to
# TT-Metalium C++ and run that on the CPU emulator against the independent reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j2 --target ttlplan ttlplan_emu
example=${1:-examples/matmul_multicore.ttl}
device=${TTLPLAN_DEVICE:-wormhole_b0}
./build/tools/ttlplan plan --device "$device" "$example"
./build/tools/ttlplan compile --device "$device" "$example" -o build/demo
./build/tools/ttlplan run --device "$device" "$example"

#!/usr/bin/env bash
# The main job on a shipped example: set up, build (release), verify and print a kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j2 --target ttlplan
example=${1:-examples/matmul_multicore.ttl}
./build/tools/ttlplan verify --device "${TTLPLAN_DEVICE:-wormhole_b0}" "$example"
echo "verified: $example"
./build/tools/ttlplan print "$example"

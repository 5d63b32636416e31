#!/usr/bin/env bash
# `pnpm pack:all`: builds the three published packages and packs each into packs/, as `pnpm publish`
# would upload them (the workspace link to the SDK becomes its version). Until they are on the npm
# registry, install from these files (docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/.."
pnpm build
rm -rf packs
mkdir -p packs
for name in sdk cli server; do
  (cd "packages/$name" && pnpm pack --pack-destination ../../packs >/dev/null)
done
ls -1 packs

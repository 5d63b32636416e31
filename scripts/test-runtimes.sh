#!/usr/bin/env bash
# `pnpm test:runtimes`: the SDK on Bun, Deno and Cloudflare's workerd (through miniflare). The three
# are no dependency of the workspace, so `pnpm install` stays what `pnpm start` and `pnpm test`
# need: they are installed here with npm, at the versions pnpm-workspace.yaml's catalog pins, into
# .runtimes/ (or $FOXBELL_RUNTIMES), once per set of versions.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${FOXBELL_RUNTIMES:-$PWD/.runtimes}"
versions=$(for name in bun deno miniflare; do
  # In the catalog: from its `catalog:` line to the first blank one.
  version=$(sed -n '/^catalog:/,/^$/p' pnpm-workspace.yaml | sed -n "s/^  $name: \(.*\)$/\1/p")
  [ -n "$version" ] || { echo "pnpm-workspace.yaml's catalog pins no $name" >&2; exit 1; }
  printf '%s@%s ' "$name" "$version"
done)
if [ "$(cat "$dir/versions" 2>/dev/null)" != "$versions" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  # npm runs no install scripts of these: each finds its platform's binary without one.
  # shellcheck disable=SC2086
  npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error --prefix "$dir" $versions
  echo "$versions" >"$dir/versions"
fi
[ -d packages/server/dist ] && [ -d packages/sdk/dist ] || pnpm build
FOXBELL_RUNTIMES="$dir" node node_modules/vitest/vitest.mjs run --project sdk-runtimes

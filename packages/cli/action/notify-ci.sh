#!/usr/bin/env bash
# The GitHub Action's step (action.yml at the repository root): `notify ci` with the action's
# inputs, given as INPUT_* variables. NOTIFY_COMMAND replaces the npx call (the tests run the
# CLI built from this repository with it).
set -euo pipefail

args=(ci)
for flag in status title subtitle scene scene-version bell-color url url-title image level group tag sound ttl \
  target idempotency-key; do
  variable="INPUT_$(printf '%s' "$flag" | tr 'a-z-' 'A-Z_')"
  value="${!variable:-}"
  if [ -n "$value" ]; then args+=("--$flag" "$value"); fi
done
while IFS= read -r param; do
  if [ -n "$param" ]; then args+=(--param "$param"); fi
done <<<"${INPUT_PARAMS:-}"
if [ -n "${INPUT_WAIT:-}" ]; then args+=("--wait=${INPUT_WAIT}"); fi
if [ "${INPUT_DRY_RUN:-false}" = true ]; then args+=(--dry-run); fi
if [ "${INPUT_FAIL_OPEN:-true}" = true ]; then args+=(--fail-open); fi

if [ -n "${NOTIFY_COMMAND:-}" ]; then
  read -r -a notify <<<"$NOTIFY_COMMAND"
else
  notify=(npx --yes --package "@foxbell/cli@${INPUT_VERSION:-latest}" -- notify)
fi
exec "${notify[@]}" "${args[@]}"

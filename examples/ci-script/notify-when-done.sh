#!/usr/bin/env bash
# Runs a CI job's command and tells your devices how it ended, keeping the command's exit code:
#   NOTIFY_TOKEN=fox_send_… NOTIFY_BASE_URL=https://foxbell.example.com ./notify-when-done.sh make test
# Works on any CI: `notify ci` reads the provider's variables (GitHub Actions, GitLab, CircleCI,
# Buildkite, Jenkins, Azure Pipelines, Bitbucket, Travis, Woodpecker…) for the repository, branch,
# commit and a link to the run.
set -uo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS…]" >&2
  exit 2
fi
notify="$(dirname "$0")/node_modules/.bin/notify" # after `npm i -D @foxbell/cli`: npx notify

"$@"
status=$?
outcome=success
[ "$status" -eq 0 ] || outcome=failure

# --fail-open: a notifier that is down or misconfigured warns, and never turns the build red.
"$notify" ci --status "$outcome" --fail-open
exit "$status"

#!/bin/sh
# Delete the preview branches that no teardown deleted, from any shell or CI job: the gate's sweep
# lists them (`neon-gate sweep --output json`), and Neon's CLI deletes each one that nothing
# blocks, by id, one at a time. docs/sweep.md explains the rules.
#
#   sh examples/command/sweep.sh ['preview/*' [7d]]
#
# Needs neon-gate (this package) and Neon's CLI (`neon` on npm, installed beside it), and in the
# environment NEON_API_KEY and NEON_PROJECT_ID (NEON_API_HOST for another API). Both commands read
# the key from NEON_API_KEY: it is never on a command line, where ps would show it.
set -eu

pattern="${1:-preview/*}"
older_than="${2:-7d}"
list="$(mktemp)"
ids="$(mktemp)"
trap 'rm -f "$list" "$ids"' EXIT

# Any exit but 0 (bad input 2, an API that refused 3, a timeout 124) stops here: nothing is deleted.
neon-gate sweep --match "$pattern" --older-than "$older_than" --output json \
  --api-host "${NEON_API_HOST:-https://console.neon.tech/api/v2}" > "$list"

# The ids of the stale branches without blockers (children, a restricted delete).
node -e '
  const { stale = [] } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"))
  for (const branch of stale) if (branch.blockers.length === 0) console.log(branch.id)
' "$list" > "$ids"

while IFS= read -r id; do
  echo "Deleting stale branch $id"
  npx --no-install neon branches delete "$id" --project-id "$NEON_PROJECT_ID" --no-analytics
done < "$ids"
echo "Deleted $(wc -l < "$ids" | tr -d ' ') stale branches."

# `cut`: the branch list stopped at its page cap (50 pages of 100). What was found is deleted all
# the same; more may wait beyond the cut, so say so, last, and still exit 0.
cut="$(node -p 'JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).cut === true' "$list")"
if [ "$cut" = true ]; then
  echo 'warning: The sweep read the branch list only to its page cap: more stale branches may' \
    'exist beyond it, not listed and not deleted.' >&2
fi

#!/bin/sh
# Delete the preview branches that no teardown deleted, from any shell or CI job: the gate's sweep
# lists them (`neon-gate sweep --output json`), and Neon's CLI deletes each one that nothing
# blocks, by id, one at a time. Each delete is tried; any that fails is named at the end, with
# exit 1. docs/sweep.md explains the rules.
#
#   sh examples/command/sweep.sh ['preview/*' [7d]]
#
# An argument left out takes its default; one given empty (an unset variable) is no default:
# neon-gate refuses it with exit 2, and nothing is deleted.
# Needs neon-gate (this package) and Neon's CLI (`neon` on npm, installed beside it), and in the
# environment NEON_API_KEY and NEON_PROJECT_ID (NEON_API_HOST for another API). Both commands read
# the key from NEON_API_KEY: it is never on a command line, where ps would show it.
set -eu

pattern="${1-preview/*}"
older_than="${2-7d}"
list="$(mktemp)"
ids="$(mktemp)"
names="$(mktemp)"
failed="$(mktemp)"
trap 'rm -f "$list" "$ids" "$names" "$failed"' EXIT

# Any exit but 0 (bad input 2, an API that refused 3, a timeout 124) stops here: nothing is deleted.
neon-gate sweep --match "$pattern" --older-than "$older_than" --output json \
  --api-host "${NEON_API_HOST:-https://console.neon.tech/api/v2}" > "$list"

# The stale branches without blockers (children, a restricted delete), by id. Neon's CLI reads
# `br-` and three parts of a-z and 0-9 as an id, anything else as a branch name, which could be
# another branch's: such an id goes to "$names", never to the CLI. Neon's own ids are all of the
# first kind.
node -e '
  const fs = require("node:fs")
  const { stale = [] } = JSON.parse(fs.readFileSync(process.argv[1], "utf8"))
  const free = stale.filter((branch) => branch.blockers.length === 0).map((branch) => branch.id)
  const read = (id) => /^br-[a-z0-9]+-[a-z0-9]+-[a-z0-9]+$/.test(id)
  fs.writeFileSync(process.argv[2], free.filter(read).map((id) => id + "\n").join(""))
  fs.writeFileSync(process.argv[3], free.filter((id) => !read(id)).map((id) => id + "\n").join(""))
' "$list" "$ids" "$names"

# Every delete is tried: one refused (a child made since the sweep, 423 past the CLI's retries)
# is named at the end, and the loop exits 1 then.
deleted=0
while IFS= read -r id; do
  echo "Deleting stale branch $id"
  if npx --no-install neon branches delete "$id" --project-id "$NEON_PROJECT_ID" --no-analytics \
    < /dev/null; then
    deleted=$((deleted + 1))
  else
    echo "$id" >> "$failed"
  fi
done < "$ids"
echo "Deleted $deleted stale branches."

# `cut`: the branch list stopped at its page cap (50 pages of 100). What was found is deleted all
# the same; more may wait beyond the cut, so say so.
cut="$(node -p 'JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).cut === true' "$list")"
if [ "$cut" = true ]; then
  echo 'warning: The sweep read the branch list only to its page cap: more stale branches may' \
    'exist beyond it, not listed and not deleted.' >&2
fi

# Last, each stale branch not deleted, and exit 1 if there is one.
while IFS= read -r id; do
  echo "error: stale branch $id not deleted: Neon’s CLI failed (its error is above)" >&2
done < "$failed"
while IFS= read -r id; do
  echo "error: stale branch $id not deleted: Neon’s CLI would read its id as a branch name" >&2
done < "$names"
if [ -s "$failed" ] || [ -s "$names" ]; then exit 1; fi

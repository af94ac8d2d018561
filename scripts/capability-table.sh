#!/usr/bin/env bash
# Writes the output of `cellwise-poisson --capabilities` into doc/capabilities.md,
# between <!-- capabilities: begin --> and <!-- capabilities: end -->.
#   capability-table.sh [PROGRAM]   (default build/examples/poisson/cellwise-poisson)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
program=${1:-$root/build/examples/poisson/cellwise-poisson}
doc=$root/doc/capabilities.md
[[ -x "$program" ]] || { echo "$0: no program at $program (build first, or name it)" >&2; exit 1; }
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$program" --capabilities > "$table"
awk -v table="$table" '
  /^<!-- capabilities: begin -->$/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- capabilities: end -->$/ { skip = 0 }
  !skip { print }
' "$doc" > "$doc.new"
mv "$doc.new" "$doc"
echo "wrote the table into $doc"

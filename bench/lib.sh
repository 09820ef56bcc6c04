# What the bench scripts share; they source it first:
#   source "$(dirname "$0")/../lib.sh"   (from bench/NAME/run.sh)
# It stops the script at the first failing command, moves to the
# repository's root, puts Go first on PATH and builds the nsvm command into
# "$tools/nsvm", $tools being a temporary directory removed when the script
# exits (so the script runs its last command without exec, which would skip
# the removal).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/usr/local/go/bin:$PATH"
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
go build -o "$tools/nsvm" ./cmd/nsvm

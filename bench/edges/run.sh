#!/usr/bin/env bash
# Hostile and careless inputs against nsvm before and after their fixes:
#   bench/edges/run.sh [--old REV] [--new REV] [--only REGEXP] [--keep]
# Builds cmd/nsvm at both revisions (git archive into a temporary directory),
# runs every case of edges.py against both in a scratch directory, prints the
# table and writes it into bench/edges/README.md. Defaults: --old cc0bd12,
# --new HEAD. About 10 minutes on 2 cores. Linux, as root (the cases make
# device nodes with mknod); needs /usr/bin/time, gcc (the Python cases'
# library is built with cgo) and /usr/bin/python3 with NumPy and SciPy.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
old=cc0bd12 new=HEAD only="" keep=""
while [ $# -gt 0 ]; do
	case "$1" in
	--old) old="$2"; shift 2 ;;
	--new) new="$2"; shift 2 ;;
	--only) only="$2"; shift 2 ;;
	--keep) keep=1; shift ;;
	*) echo "usage: $0 [--old REV] [--new REV] [--only REGEXP] [--keep]" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d)
if [ -z "$keep" ]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "scratch directory kept: $work" >&2
fi
for side in old new; do
	rev=${!side}
	sha=$(git rev-parse --short=12 "$rev^{commit}")
	mkdir -p "$work/$side/src"
	git archive "$sha" | tar -x -C "$work/$side/src"
	(cd "$work/$side/src" && go build -o "$work/$side/nsvm" ./cmd/nsvm)
	# The Python package and its library, for the Python cases.
	mkdir -p "$work/$side/py"
	cp -r "$work/$side/src/python/nsvm" "$work/$side/py/nsvm"
	(cd "$work/$side/src" && go build -buildmode=c-shared -o "$work/$side/py/nsvm/libnsvm.so" ./capi)
	rm -rf "$work/$side/src"
	if [ "${sha#"$rev"}" != "$sha" ]; then label='`'$sha'`'; else label="$rev "'(`'$sha'`)'; fi
	printf -v "${side}_label" '%s' "$label"
done
mkdir "$work/scratch"
args=(--old "$work/old/nsvm" --new "$work/new/nsvm" --old-rev "$old_label" --new-rev "$new_label"
	--scratch "$work/scratch")
if [ -n "$only" ]; then
	args+=(--only "$only")
else
	args+=(--readme bench/edges/README.md)
fi
/usr/bin/python3 bench/edges/edges.py "${args[@]}"
ls -l /dev/null /dev/full >&2

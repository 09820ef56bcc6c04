#!/usr/bin/env bash
# Hostile requests against nsvm serve at full size, with its peak resident
# memory against --max-memory (see bench/serve/abuse/main.go):
#   bench/serve/abuse.sh [-max-memory 1GiB] [-scale 1]
# Builds nsvm into a temporary directory; about 30 s on 2 cores. Linux only.
source "$(dirname "$0")/../lib.sh"
go run ./bench/serve/abuse -nsvm "$tools/nsvm" "$@"

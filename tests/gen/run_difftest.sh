#!/bin/sh
# Runs generated expressions (crates/testkit, `gen-exprs`) through the
# oracle: three files of expressions without function calls, one with
# calls, one with the `--text` forms (values as text, subscripted ads,
# selection chains), one with the `--library` forms (the wider library,
# arguments that are references, MY./TARGET. in lists) and, with ODD_SEEDS,
# files of the `--odd` forms (every builtin with arguments at the edges of
# every type), each compared by ../shared/oracle/difftest.py with
# `classad eval --batch` (`--strict` too with MODE=strict). The generated
# files and JSON reports go to $OUT (not to git).
#
#   tests/gen/run_difftest.sh            # 3 x 10000 without calls, 10000 with
#   COUNT=1000 tests/gen/run_difftest.sh # smaller
#
# Environment: CARGO_TARGET_DIR (default target/), OUT (default
# /tmp/classad-gen), COUNT (default 10000), DEPTH (default 4), ORACLE
# (default ../shared/oracle next to the repository), SEEDS (default
# "101 102 103"), CALL_SEEDS (default "201"), TEXT_SEEDS (default "301"),
# LIBRARY_SEEDS (default "401"), ODD_SEEDS (default none), WILD_SEEDS
# (default none), MUTATE_SEEDS (default none: mutants of every corpus line,
# `gen-exprs --mutate`, of tests/corpus and the shared conformance
# corpora; expect a few mismatches from the clock and `random`), OUTSIDE_SEEDS
# (default none: the `--outside` texts), MODE (htcondor
# or strict, default
# htcondor). From a git worktree set ORACLE to the shared oracle's path.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=${OUT:-/tmp/classad-gen}
COUNT=${COUNT:-10000}
DEPTH=${DEPTH:-4}
ORACLE=${ORACLE:-$ROOT/../shared/oracle}
SEEDS=${SEEDS:-101 102 103}
CALL_SEEDS=${CALL_SEEDS:-201}
TEXT_SEEDS=${TEXT_SEEDS:-301}
LIBRARY_SEEDS=${LIBRARY_SEEDS:-401}
ODD_SEEDS=${ODD_SEEDS:-}
WILD_SEEDS=${WILD_SEEDS:-}
MUTATE_SEEDS=${MUTATE_SEEDS:-}
OUTSIDE_SEEDS=${OUTSIDE_SEEDS:-}
MODE=${MODE:-htcondor}

(cd "$ROOT" && cargo build --release -p classad-cli -p classad-testkit)
mkdir -p "$OUT"
GEN="$TARGET/release/gen-exprs"
CLI="$TARGET/release/classad eval --batch"
if [ "$MODE" = strict ]; then CLI="$CLI --strict"; fi

status=0
run() {
    file=$1
    echo "== $file"
    python3 "$ORACLE/difftest.py" --mode "$MODE" --cmd "$CLI" --max-show 50 \
        --json-report "$file.json" "$file" > "$file.out" 2>&1 || status=1
    tail -n 1 "$file.out"
}
# Generates a file of expressions for each seed in $3 with the
# generator's flag $2 (empty: none) and runs it; $1 names the files.
generate_and_run() {
    kind=$1
    flag=$2
    for seed in $3; do
        # $flag unquoted on purpose: empty means no flag at all.
        # shellcheck disable=SC2086
        "$GEN" --seed "$seed" --count "$COUNT" --max-depth "$DEPTH" $flag > "$OUT/$kind-$seed.txt"
        run "$OUT/$kind-$seed.txt"
    done
}
generate_and_run nocalls "" "$SEEDS"
generate_and_run calls --calls "$CALL_SEEDS"
generate_and_run text --text "$TEXT_SEEDS"
generate_and_run library --library "$LIBRARY_SEEDS"
generate_and_run odd --odd "$ODD_SEEDS"
generate_and_run wild --wild "$WILD_SEEDS"
generate_and_run outside --outside "$OUTSIDE_SEEDS"
for seed in $MUTATE_SEEDS; do
    set --
    for f in "$ROOT"/tests/corpus/*.txt "$ORACLE"/../conformance/*.txt \
        "$ORACLE"/../conformance/htcondor/functional_tests.txt; do
        if [ -f "$f" ]; then set -- "$@" --mutate "$f"; fi
    done
    "$GEN" "$@" --seed "$seed" --count "$COUNT" > "$OUT/mutate-$seed.txt"
    run "$OUT/mutate-$seed.txt"
done
exit $status

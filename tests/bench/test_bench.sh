#!/bin/sh
# lwt-bench's command line: the options and the table layout that docs/PERFORMANCE.md, the README
# and scripts/*.sh quote, the experiments files, usage errors. Never its times (tests do not
# assert on speed). Usage: test_bench.sh LWT_BENCH SOURCE_DIR. In a CUDA build on a machine
# without a GPU only the parts that need no device run, then exit 77 (skipped).
set -u
bench=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$bench" --help > "$tmp/help" 2>&1 || bad "--help exits non-zero"
for opt in -w -m --sizes -l --reps --f64 --ndim --algo --lbb-threads --lbb-cols --lifting --fuse-levels \
    --filter --stream --resident --stream-reps --stream-size --big --slow --zero-copy --peer --seed-experiments \
    --experiments; do
    grep -q -- "$opt" "$tmp/help" || bad "--help does not mention $opt"
done

# usage errors: exit 2
for args in "--frobnicate" "--reps 5" "--ndim 4" "--algo nope" "-w" "--experiments $tmp/missing --seed-experiments --experiments"; do
    "$bench" $args > /dev/null 2>&1
    rc=$?
    [ $rc -eq 2 ] || bad "lwt-bench $args: exit $rc, want 2"
done
"$bench" --experiments "$tmp/missing" > /dev/null 2>&1
[ $? -eq 1 ] || bad "a missing experiments file must exit 1"

# the seed experiments are data: every run line of the file parses (--help after its options
# makes each a parse-only run)
n=0
while IFS= read -r line; do
    case "$line" in ''|'#'*|'=='*) continue ;; esac
    n=$((n + 1))
    "$bench" $line --help > /dev/null 2>&1 || bad "seed000.txt line '$line' does not parse"
done < "$src/bench/experiments/seed000.txt"
[ $n -ge 8 ] || bad "seed000.txt has $n runs, want at least 8"

# one small table, and the same through an experiments file (headings printed, runs in order)
"$bench" -w haar,cdf97 -m periodization --sizes 64 -l 2 > "$tmp/table" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "no CUDA device" "$tmp/err"; then
    [ $fail -eq 0 ] || exit 1
    echo "no CUDA device: the timed parts skipped"
    exit 77
fi
[ $rc -eq 0 ] || bad "the table run: exit $rc: $(cat "$tmp/err")"
head -1 "$tmp/table" | grep -q "^lwt bench on .*median of 20 runs" || bad "title line: $(head -1 "$tmp/table")"
sed -n 2p "$tmp/table" | grep -q "^wavelet  *mode  *size  *L dir  *thr  *cols lift  *ms  *copy_ms  *Gpix/s  *ratio$" ||
    bad "header line: $(sed -n 2p "$tmp/table")"
rows=$(grep -c -E "^(haar|cdf97) +periodization +64 +2 (forward|inverse) " "$tmp/table")
[ "$rows" -eq 4 ] || bad "want 4 rows (2 wavelets x forward/inverse), got $rows"

printf '# a comment\n== first\n-w haar -m periodization --sizes 32 -l 1\n\n== second\n-w db2 -m symmetric --sizes 32 -l 1 --reps 21\n' > "$tmp/exp.txt"
"$bench" --experiments "$tmp/exp.txt" > "$tmp/exp.out" 2>&1 || bad "--experiments: exit $?: $(cat "$tmp/exp.out")"
[ "$(grep -c '^== ' "$tmp/exp.out")" -eq 2 ] || bad "--experiments: headings not printed"
grep -q "median of 21 runs" "$tmp/exp.out" || bad "--experiments: the second run's options were not used"
[ "$(grep -c -E '^(haar|db2) ' "$tmp/exp.out")" -eq 4 ] || bad "--experiments: want 4 rows"
printf -- '--experiments %s\n' "$tmp/exp.txt" > "$tmp/loop.txt"
"$bench" --experiments "$tmp/loop.txt" > /dev/null 2>&1
[ $? -eq 2 ] || bad "an experiments file that runs another must be a usage error"
[ $fail -eq 0 ] && echo "lwt-bench command line: all checks passed"
exit $fail

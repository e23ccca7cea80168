#!/usr/bin/env bash
# 'ck-eval report' against what it printed and summarised for recorded runs:
# each tests/data/eval/NAME.csv (the raw records of a small real run of
# 'ck-eval NAME') must give NAME.report.txt on stdout and NAME.summary.csv.
# Usage: test_eval_report.sh CK-EVAL DATA-DIR
set -uo pipefail

ck_eval=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0 failed=0
for csv in "$data"/*.csv; do
   case $csv in *.summary.csv) continue ;; esac
   name=$(basename "$csv" .csv)
   rc=0
   "$ck_eval" report "$csv" --summary "$tmp/$name.summary.csv" >"$tmp/$name.report.txt" || rc=$?
   if [ $rc -ne 0 ]; then
      failed=$((failed + 1)); echo "FAIL: $name: ck-eval report exited $rc"; continue
   fi
   ok=1
   for out in report.txt summary.csv; do
      if ! diff -u "$data/$name.$out" "$tmp/$name.$out"; then
         ok=0; echo "FAIL: $name: $name.$out differs (above: expected, then got)"
      fi
   done
   if [ $ok = 1 ]; then passed=$((passed + 1)); echo "PASS: $name"; else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]

#!/usr/bin/env bash
# The record of 'tools/ck check-series' (patches/series.checked): which
# patches count as changed, and what a passing prefix writes.
set -uo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CK_ROOT=$tmp CK_BUILD=$tmp/_build CK_PATCHES=$tmp/patches CK_LINE=$tmp/_build/mesa
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/common.sh"
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/cmd_series.sh"

mkdir -p "$tmp/patches"
printf '%s\n' a.patch b.patch c.patch >"$tmp/patches/series"
for p in a b c; do echo "$p" >"$tmp/patches/$p.patch"; done

passed=0 failed=0
expect() {
   if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "PASS: $1"
   else failed=$((failed + 1)); echo "FAIL: $1: got '$2', expected '$3'"; fi
}
changed() { series_changed_patches | tr '\n' ' '; }

expect "with no record, every patch is changed" "$(changed)" "a.patch b.patch c.patch "
series_record a.patch
series_record c.patch
expect "recorded patches are not changed" "$(changed)" "b.patch "
expect "the record is in series order" "$(cut -d' ' -f3 "$CK_SERIES_RECORD" | tr '\n' ' ')" \
   "a.patch c.patch "
echo "a, edited" >"$tmp/patches/a.patch"
expect "an edited patch is changed again" "$(changed)" "a.patch b.patch "
series_record b.patch
expect "recording one patch keeps the others' entries" "$(changed)" "a.patch "
printf '%s\n' b.patch c.patch >"$tmp/patches/series"
series_record b.patch
expect "a patch dropped from the series leaves the record" \
   "$(cut -d' ' -f3 "$CK_SERIES_RECORD" | tr '\n' ' ')" "b.patch c.patch "

series_record without-plugin
expect "the series without the plugin is recorded with the series' sum" \
   "$(series_without_plugin_checked && echo checked)" "checked"
series_record c.patch
expect "recording a prefix keeps the without-plugin line" \
   "$(tail -n 1 "$CK_SERIES_RECORD" | cut -d' ' -f3)" "without-plugin"
echo "c, edited" >"$tmp/patches/c.patch"
expect "an edited patch makes the series unchecked without the plugin" \
   "$(series_without_plugin_checked && echo checked)" ""

echo "series record: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# The patch pipeline of 'tools/ck': a good series applies and only the files
# it touches change; a bad hunk or a missing patch stops with a message that
# names it; a failed build leaves nothing that 'ck run' would use.
# Works on a shared clone of the real Mesa tree, so it never touches it.
set -uo pipefail

real_root=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -n 's/^MESA_VERSION=//p' "$real_root/tools/lib/mesa.sh")
real_line=${CK_BUILD_DIR:-$real_root/_build}/mesa-$version
[ -f "$real_line/mesa-src/.git/ck-base-ok" ] || { echo "needs a Mesa tree: run tools/ck build"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root build=$tmp/build line=$tmp/build/mesa-$version
mkdir -p "$root" "$line"
cp -r "$real_root/tools" "$root/tools"
ln -s "$real_line/downloads" "$line/downloads"
git clone -q --shared --no-checkout "$real_line/mesa-src" "$line/mesa-src"
git -C "$line/mesa-src" checkout -q --detach ck-base
touch "$line/mesa-src/.git/ck-base-ok"

passed=0 failed=0
check() {
   if eval "$2"; then passed=$((passed + 1)); echo "PASS: $1"
   else failed=$((failed + 1)); echo "FAIL: $1"; sed 's/^/    /' "$tmp/log"; fi
}

ck() { CK_BUILD_DIR=$build "$root/tools/ck" "$@"; }

use_series() {
   rm -rf "$root/patches" && mkdir -p "$root/patches"
   local p
   for p in "$@"; do cp "$p" "$root/patches/"; basename "$p" >>"$root/patches/series"; done
}

real_patches=("$real_root"/patches/0*.patch)
first=${real_patches[0]}
# a one-line change to one file (rusticl's work-group size check)
change=$(ls "$real_root"/patches/*reject-work-groups-larger*.patch)
screen=$line/mesa-src/src/gallium/drivers/llvmpipe/lp_screen.c
kernel_rs=$line/mesa-src/src/gallium/frontends/rusticl/api/kernel.rs
: >"$tmp/log"

use_series "$first"
check "the first patch applies" 'ck patch >"$tmp/log" 2>&1'
touch -d '2001-01-01' "$screen" "$kernel_rs"
use_series "$first" "$change"
check "a longer series applies" 'ck patch >"$tmp/log" 2>&1'
check "the applied tree has the change" 'grep -q "let mut threads = 1;" "$kernel_rs"'
check "a file the change did not touch keeps its timestamp" \
   '[ "$(stat -c %Y "$screen")" = "$(date -d 2001-01-01 +%s)" ]'
check "a file the change touched is rewritten" \
   '[ "$(stat -c %Y "$kernel_rs")" != "$(date -d 2001-01-01 +%s)" ]'

broken=$tmp/$(basename "$change")
sed 's/^ \(    let device_bits = q.device.address_bits();\)$/ \1 \/\/ changed context/' "$change" >"$broken"
check "the broken patch really differs" '! cmp -s "$change" "$broken"'
use_series "$first" "$broken"
check "a patch whose hunk does not apply fails" '! ck patch >"$tmp/log" 2>&1'
check "the error names the patch" 'grep -q "patch patches/$(basename "$change") does not apply" "$tmp/log"'
check "the error names the file and line of the hunk" \
   'grep -q "patch failed: src/gallium/frontends/rusticl/api/kernel.rs:[0-9]" "$tmp/log"'

use_series "$first"
echo "missing.patch" >>"$root/patches/series"
check "a series naming a missing patch fails" '! ck patch >"$tmp/log" 2>&1'
check "the error names the missing patch" "grep -q \"names 'missing.patch'\" \"\$tmp/log\""

echo stale >"$line/build-ok"
check "a failed build removes the finished-build stamp" \
   '! ck build >"$tmp/log" 2>&1 && [ ! -f "$line/build-ok" ]'
check "'ck run' refuses to use a failed build" \
   '! ck run -- true >"$tmp/log" 2>&1 && grep -q "no finished build" "$tmp/log"'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

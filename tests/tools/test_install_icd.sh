#!/usr/bin/env bash
# The ICD files 'tools/ck install --prefix DIR' leaves (write_icd_files), on
# a prefix laid out as Meson's install of the patched Mesa leaves it: one
# ICD file for rusticl, naming the installed library, and the ICD files of
# other vendors kept.
set -uo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/common.sh"
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/cmd_install.sh"

passed=0 failed=0
expect() {
   if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "PASS: $1"
   else failed=$((failed + 1)); echo "FAIL: $1: got '$2', expected '$3'"; fi
}

prefix=$tmp/prefix
libdir=$prefix/lib/x86_64-linux-gnu
vendors=$prefix/etc/OpenCL/vendors
mkdir -p "$libdir" "$vendors"
touch "$libdir/libRusticlOpenCL.so.1"
# What Meson installs, and another vendor installed into the same prefix.
echo libRusticlOpenCL.so.1 >"$vendors/rusticl.icd"
echo /opt/pocl/lib/libpocl.so.2 >"$vendors/pocl.icd"

check_prefix() {
   expect "$1: one ICD file names rusticl's library" \
      "$(icd_files_naming "$vendors" libRusticlOpenCL.so.1)" "$vendors/ck-rusticl.icd"
   expect "$1: ck-rusticl.icd names the installed rusticl" \
      "$(cat "$vendors/ck-rusticl.icd")" "$libdir/libRusticlOpenCL.so.1"
   expect "$1: the prefix's ICD files" "$(cd "$vendors" && echo *.icd)" \
      "ck-rusticl.icd pocl.icd"
}
write_icd_files "$prefix"
check_prefix "after an install"
# A second install over the first (Meson writes its own file again).
echo libRusticlOpenCL.so.1 >"$vendors/rusticl.icd"
write_icd_files "$prefix"
check_prefix "after a second install"

rm "$libdir/libRusticlOpenCL.so.1"
expect "a missing library is an error" \
   "$( (write_icd_files "$prefix") 2>&1 || echo failed)" \
   "ck: error: install did not produce libRusticlOpenCL.so.1 under $prefix
failed"

echo "install ICD files: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# nir_check.sh FILECHECK BUILD_CHECK FILE.cl: builds FILE.cl with
# BUILD_CHECK (tests/host/build_check.cpp) while rusticl prints the NIR of
# its kernels (RUSTICL_DEBUG=nir, with the shader cache off: a cached
# build prints nothing), and checks that NIR with LLVM's FileCheck against
# FILE.cl's NIR directives: what the frontend makes of a program before
# the driver compiles it.
set -u
filecheck=$1 build_check=$2 file=$3
nir=$(mktemp) || exit 1
trap 'rm -f "$nir"' EXIT
MESA_SHADER_CACHE_DISABLE=true RUSTICL_DEBUG=nir "$build_check" "$file" 2>"$nir"
rc=$?
if [ "$rc" -ne 0 ]; then
   echo "nir_check.sh: $build_check $file exited with $rc" >&2
   exit 1
fi
if ! grep -q '^=== Printing nir' "$nir"; then
   echo "nir_check.sh: rusticl printed no NIR (RUSTICL_DEBUG=nir)" >&2
   exit 1
fi
"$filecheck" --dump-input=fail --check-prefix=NIR "$file" <"$nir"

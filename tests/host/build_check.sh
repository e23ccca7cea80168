#!/bin/sh
# build_check.sh FILECHECK BUILD_CHECK FILE.cl: builds FILE.cl with
# BUILD_CHECK (tests/host/build_check.cpp), shows its report and checks the
# report with LLVM's FileCheck against FILE.cl's directives:
#   - prefix CHECK: the build status, the log (CHECK-DAG between
#     'CHECK: build log:' and 'CHECK: end of build log': in any order) and
#     the kernels;
#   - prefix LOG, where the file has it: what the whole log must not say
#     (LOG-NOT between 'LOG: build log:' and 'LOG: end of build log'). A
#     second run, because a CHECK-NOT among CHECK-DAGs covers only the text
#     between their matches.
set -u
filecheck=$1 build_check=$2 file=$3
report=$("$build_check" "$file")
rc=$?
printf '%s\n' "$report"
if [ "$rc" -ne 0 ]; then
   echo "build_check.sh: $build_check $file exited with $rc" >&2
   exit 1
fi
printf '%s\n' "$report" | "$filecheck" --dump-input=fail "$file" || exit 1
if grep -q '^// LOG' "$file"; then
   printf '%s\n' "$report" | "$filecheck" --dump-input=fail --check-prefix=LOG "$file" || exit 1
fi

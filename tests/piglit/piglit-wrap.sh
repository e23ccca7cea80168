#!/bin/sh
# piglit-wrap.sh LIMIT COMMAND [ARG...]: runs a host test program for
# piglit, stopping it after LIMIT seconds, and reports its exit status as
# piglit's result line: 0 pass, 77 skip (meson's convention), a time-out
# 'timeout', a signal 'crash', anything else 'fail'.
limit=$1
shift
timeout -k 10 "$limit" "$@" 2>&1
rc=$?
case $rc in
   0) result=pass ;;
   77) result=skip ;;
   124|137) result=timeout; echo "piglit-wrap: stopped after ${limit}s" ;;
   *) if [ "$rc" -gt 128 ]; then result=crash; else result=fail; fi ;;
esac
printf 'PIGLIT: {"result": "%s"}\n' "$result"
# piglit reads the result line; a non-zero exit would turn a skip into a crash.
exit 0

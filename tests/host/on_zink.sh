#!/bin/sh
# on_zink.sh COMMAND [ARG...]: runs COMMAND on rusticl and zink over the
# build's lavapipe, in the environment `tools/ck env --driver zink` gives
# (the one definition of it), whatever driver the caller's environment
# picked.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
zink_env=$("$root/tools/ck" env --driver zink) || {
   echo "on_zink.sh: '$root/tools/ck env --driver zink' failed" >&2
   exit 1
}
eval "$zink_env"
exec "$@"

#!/bin/sh
# gpu_check_lavapipe.sh: the GPU machine's script run here, as it would run
# there: tools/gpu/bundle.sh packs the build into an archive under the
# device tool's 64 MiB, and tools/gpu/check.sh runs every step of it from
# that archive alone, on the bundle's lavapipe instead of a GPU.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/tools/gpu/bundle.sh" "$work/ck-gpu.tar.xz"
# nothing of this build's environment: the bundle must bring what it uses
env -u OCL_ICD_VENDORS -u VK_DRIVER_FILES -u RUSTICL_ENABLE -u GALLIUM_DRIVER \
   -u LD_LIBRARY_PATH "$root/tools/gpu/check.sh" "$work/ck-gpu.tar.xz" "$work/out" --lavapipe

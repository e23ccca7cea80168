#!/bin/sh
# on_zink.sh COMMAND [ARG...]: runs COMMAND on rusticl and zink over the
# build's lavapipe (the Vulkan ICD file that CK_LAVAPIPE_ICD names, which
# `tools/ck env` and `tools/ck test` export), whatever driver the caller's
# environment picked. Devices there do not run cooperative kernels.
set -u
if [ -z "${CK_LAVAPIPE_ICD:-}" ] || [ ! -f "$CK_LAVAPIPE_ICD" ]; then
   echo "on_zink.sh: CK_LAVAPIPE_ICD names no lavapipe ICD file ('${CK_LAVAPIPE_ICD:-}'):" \
        "run under 'tools/ck env' or 'tools/ck test'" >&2
   exit 1
fi
RUSTICL_ENABLE=swrast GALLIUM_DRIVER=zink LIBGL_ALWAYS_SOFTWARE=1 \
VK_DRIVER_FILES=$CK_LAVAPIPE_ICD exec "$@"

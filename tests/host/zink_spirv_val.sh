#!/bin/sh
# zink_spirv_val.sh MODULE: spirv-val as a module zink gives the Vulkan
# driver must pass it: Vulkan 1.3, with the scalar block layout zink uses.
exec spirv-val --target-env vulkan1.3 --scalar-block-layout "$1"

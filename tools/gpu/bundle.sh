#!/bin/bash
# tools/gpu/bundle.sh OUT.tar.xz: packs what tools/gpu/check.sh needs on a
# machine that has a Vulkan driver and none of this build (a lent GPU
# machine): rusticl of the patched Mesa (zink and the plugin inside),
# lavapipe (the same checks on the machine's CPU), the OpenCL ICD loader,
# the Vulkan loader, every library these load that is not glibc's or GCC's
# runtime, the project's test programs, piglit's program tester, clinfo,
# the kernels and the program tests. The archive and the project's tracked
# files must stay under 64 MiB together, what a call of the device tool
# carries; the script fails above that.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tools/gpu/system-libraries.sh"
[ $# -eq 1 ] || { echo "usage: tools/gpu/bundle.sh OUT.tar.xz" >&2; exit 2; }
out=$(realpath -m "$1")
line=${CK_LINE:-$root/_build/mesa-25.0.7}
limit=$((64 * 1024 * 1024))

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
bundle=$stage/ck-gpu
mkdir -p "$bundle/lib" "$bundle/bin" "$bundle/share/tests"

programs=(
   "$(command -v clinfo)"
   /usr/lib/x86_64-linux-gnu/piglit/bin/cl-program-tester
   "$line/ck/tests/apps"
   "$line/ck/tests/discovery"
   "$line/ck/tests/beside_cooperative"
   "$line/ck/tests/launch_reuse"
   "$line/ck/bench/ck-eval"
)
zink_program_tests=$line/ck/tests/zink_program_tests.txt
libraries=(
   "$line/mesa/src/gallium/targets/rusticl/libRusticlOpenCL.so.1"
   "$line/mesa/src/gallium/targets/lavapipe/libvulkan_lvp.so"
   /usr/lib/x86_64-linux-gnu/libvulkan.so.1
)
for file in "${programs[@]}" "${libraries[@]}" "$zink_program_tests"; do
   [ -f "$file" ] || { echo "bundle: $file is missing: build first (tools/ck build)" >&2; exit 1; }
done
cp "${programs[@]}" "$bundle/bin/"
for library in "${libraries[@]}"; do
   cp -L "$library" "$bundle/lib/$(basename "$library")"
done

# What the dynamic linker loads for them, but glibc and GCC's runtime: the
# GPU machine's own (newer) ones serve binaries built on Debian 12.
ldd "${programs[@]}" "${libraries[@]}" 2>/dev/null |
   awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
   grep -Ev "$system_libraries" |
   while read -r dependency; do
      cp -L "$dependency" "$bundle/lib/$(basename "$dependency")"
   done

# rusticl's OpenCL C headers, where clang looks beside libclang-cpp: its
# resource directory, lib/clang/VERSION/include
for resource in /usr/lib/llvm-15/lib/clang/*/include; do
   version=$(basename "$(dirname "$resource")")
   mkdir -p "$bundle/lib/clang/$version/include"
   cp -L "$resource"/opencl-c.h "$resource"/opencl-c-base.h "$bundle/lib/clang/$version/include/"
done

# symbols are for debugging here, not for the run there
strip --strip-unneeded "$bundle"/bin/* "$bundle"/lib/*.so*

cat > "$bundle/lib/lvp_icd.json" <<'EOF'
{
    "ICD": {
        "api_version": "1.4.305",
        "library_path": "./libvulkan_lvp.so"
    },
    "file_format_version": "1.0.0"
}
EOF
cp -r "$root/kernels" "$root/include" "$bundle/share/"
cp -r "$root/tests/cl" "$bundle/share/tests/"
# the program tests that run on zink, as the test suite lists them
cp "$zink_program_tests" "$bundle/share/tests/"
cp "$root/tools/gpu/check.sh" "$root/tools/gpu/system-libraries.sh" "$bundle/"
git -C "$root" rev-parse HEAD > "$bundle/commit" 2>/dev/null || echo unknown > "$bundle/commit"

mkdir -p "$(dirname "$out")"
# Most of the bundle is x86 code, which xz's branch filter makes smaller:
# with it preset 6 packs 3% smaller than preset 9 without, in 20% less CPU
# time; two blocks of half the archive each keep both CPUs busy.
tar -C "$stage" -cf "$stage/ck-gpu.tar" ck-gpu
half=$((($(stat -c %s "$stage/ck-gpu.tar") + 1) / 2))
xz -T2 --block-size="$half" --x86 --lzma2=preset=6 -c "$stage/ck-gpu.tar" > "$out"
size=$(stat -c %s "$out")
tree=$(git -C "$root" ls-files -z | (cd "$root" && xargs -0 stat -c %s) | awk '{ s += $1 } END { print s + 0 }')
echo "bundle: $out, $((size / 1024 / 1024)) MiB ($(du -sm "$bundle" | cut -f1) MiB unpacked);" \
     "with the project's files $(((size + tree) / 1024 / 1024)) MiB of the 64 a device call carries"
if [ $((size + tree)) -ge "$limit" ]; then
   echo "bundle: too large to travel with the project" >&2
   exit 1
fi

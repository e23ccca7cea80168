# The pinned Mesa and where its pieces live. Sourced, never run.

MESA_VERSION=22.3.6
MESA_DEB_VERSION=22.3.6-1+deb12u2
# Checksums of Debian's source package files for MESA_DEB_VERSION.
declare -A MESA_SHA256=(
   [mesa_22.3.6-1+deb12u2.dsc]=bd1034d3d29ef9e1e638bb5645a0ca31426bc2bcbb60842cbad2adcccffb4a00
   [mesa_22.3.6.orig.tar.gz]=737cb8e5d380ce1a0ad01fb8b74db7f27303435c353e753d2302e8cf3927bad2
   [mesa_22.3.6-1+deb12u2.diff.gz]=a6045acd53bc400eafcf8b2aba94df5728378df27b6e61154784b00eaec2ec1e
)

# Only what OpenCL on llvmpipe needs (DESIGN-BRIEF.md).
MESA_OPTIONS=(
   --buildtype=release
   -Dgallium-drivers=swrast -Dgallium-opencl=icd -Dopencl-spirv=true
   -Dllvm=enabled -Dshared-llvm=enabled -Dplatforms= -Dglx=disabled
   -Degl=disabled -Dgbm=disabled -Dgles1=disabled -Dgles2=disabled
   -Dopengl=false -Dvulkan-drivers= -Dgallium-vdpau=disabled
   -Dgallium-va=disabled -Dgallium-xa=disabled -Dgallium-nine=false
   -Dvalgrind=disabled -Dlibunwind=disabled -Dlmsensors=disabled
)

CK_DOWNLOADS=$CK_BUILD/downloads
CK_MESA_SRC=$CK_BUILD/mesa-src          # Debian's Mesa as a git repo, series applied
CK_MESA_BUILD=$CK_BUILD/mesa            # meson build of the patched Mesa
CK_PLUGIN_BUILD=$CK_BUILD/ck            # meson build of this project
CK_ICD_DIR=$CK_BUILD/icd
CK_NATIVE_FILE=$CK_BUILD/llvm14.ini
CK_BUILD_OK=$CK_BUILD/build-ok          # written only by a build that finished

# The environment that makes the OpenCL ICD loader use the Mesa in BUILD.
mesa_env_exports() {
   local build=${1:-$CK_MESA_BUILD} icd_dir=${2:-$CK_ICD_DIR}
   printf 'export OCL_ICD_VENDORS=%q\n' "$icd_dir"
   printf 'export LP_CL=1\n'
   printf 'export GALLIUM_PIPE_SEARCH_DIR=%q\n' "$build/src/gallium/targets/pipe-loader"
}

# Write an ICD directory that names the libMesaOpenCL.so.1 of BUILD.
write_icd() {
   local build=$1 icd_dir=$2
   mkdir -p "$icd_dir"
   printf '%s\n' "$build/src/gallium/targets/opencl/libMesaOpenCL.so.1" >"$icd_dir/ck-mesa.icd"
}

write_native_file() {
   mkdir -p "$CK_BUILD"
   cat >"$CK_NATIVE_FILE.tmp" <<EOF
[binaries]
llvm-config = '/usr/bin/llvm-config-14'
EOF
   mv "$CK_NATIVE_FILE.tmp" "$CK_NATIVE_FILE"
}

# Meson must run with Debian's python3 (it has mako), whatever else is on
# PATH; Mesa's meson also finds this project's uninstalled pkg-config files.
with_debian_python() {
   PATH=/usr/bin:/bin:$PATH CCACHE_BASEDIR=$CK_BUILD \
   PKG_CONFIG_PATH="$CK_PLUGIN_BUILD/meson-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
      "$@"
}

require_build() {
   [ -f "$CK_BUILD_OK" ] ||
      die "no finished build in $CK_BUILD: run 'tools/ck build' (the last build failed or never ran)"
}

# Build unless a finished build exists and nothing it depends on changed;
# `ck build` itself is cheap when everything is current, so just call it.
build_if_needed() {
   "$CK_ROOT/tools/ck" build
}

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
   -Dgallium-rusticl=true
   -Dllvm=enabled -Dshared-llvm=enabled -Dplatforms= -Dglx=disabled
   -Degl=disabled -Dgbm=disabled -Dgles1=disabled -Dgles2=disabled
   -Dopengl=false -Dvulkan-drivers= -Dgallium-vdpau=disabled
   -Dgallium-va=disabled -Dgallium-xa=disabled -Dgallium-nine=false
   -Dvalgrind=disabled -Dlibunwind=disabled -Dlmsensors=disabled
)

CK_DOWNLOADS=$CK_BUILD/downloads
CK_MESA_SRC=$CK_BUILD/mesa-src          # Debian's Mesa as a git repo, series applied
CK_MESA_BUILD=$CK_BUILD/mesa            # meson build of the patched Mesa
CK_PATCHES=$CK_ROOT/patches             # the series (patches/series) for this Mesa
CK_PLUGIN_BUILD=$CK_BUILD/ck            # meson build of this project
CK_ICD_DIR=$CK_BUILD/icd
CK_NATIVE_FILE=$CK_BUILD/llvm14.ini
CK_BUILD_OK=$CK_BUILD/build-ok          # written only by a build that finished

# Mesa builds two OpenCL frontends from one tree: Clover (libMesaOpenCL,
# the default: every measurement and the piglit baseline started there) and
# rusticl (libRusticlOpenCL). CK_FRONTEND, or --frontend, picks one.
CK_FRONTENDS=(clover rusticl)
CK_FRONTEND=${CK_FRONTEND:-clover}

check_frontend() {
   case "$1" in
      clover|rusticl) ;;
      *) die "unknown frontend '$1' (clover or rusticl)" ;;
   esac
}

# The ICD directory of the frontend CK_FRONTEND, given Clover's.
frontend_icd_dir() {
   case "$CK_FRONTEND" in
      clover) printf '%s\n' "$1" ;;
      rusticl) printf '%s\n' "$1-rusticl" ;;
   esac
}

# The environment that makes the OpenCL ICD loader use the frontend
# CK_FRONTEND of the Mesa in BUILD (ICD_DIR: Clover's ICD directory).
mesa_env_exports() {
   local build=${1:-$CK_MESA_BUILD} icd_dir=${2:-$CK_ICD_DIR}
   check_frontend "$CK_FRONTEND"
   printf 'export CK_FRONTEND=%q\n' "$CK_FRONTEND"
   printf 'export OCL_ICD_VENDORS=%q\n' "$(frontend_icd_dir "$icd_dir")"
   case "$CK_FRONTEND" in
      clover)
         printf 'export LP_CL=1\n'
         printf 'export GALLIUM_PIPE_SEARCH_DIR=%q\n' "$build/src/gallium/targets/pipe-loader" ;;
      rusticl)
         printf 'export RUSTICL_ENABLE=llvmpipe\n' ;;
   esac
}

# Write the ICD directories (ICD_DIR for Clover, ICD_DIR-rusticl) that name
# the OpenCL libraries of BUILD.
write_icd() {
   local build=$1 icd_dir=$2
   mkdir -p "$icd_dir" "$icd_dir-rusticl"
   printf '%s\n' "$build/src/gallium/targets/opencl/libMesaOpenCL.so.1" >"$icd_dir/ck-mesa.icd"
   printf '%s\n' "$build/src/gallium/targets/rusticl/libRusticlOpenCL.so.1" \
      >"$icd_dir-rusticl/ck-rusticl.icd"
}

write_native_file() {
   mkdir -p "$CK_BUILD"
   cat >"$CK_NATIVE_FILE.tmp" <<EOF
[binaries]
llvm-config = '/usr/bin/llvm-config-14'
rust = ['/usr/bin/rustc']
bindgen = '/usr/bin/bindgen'
EOF
   mv "$CK_NATIVE_FILE.tmp" "$CK_NATIVE_FILE"
}

# Meson must run with Debian's python3 (it has mako), whatever else is on
# PATH; Mesa's meson also finds this project's uninstalled pkg-config files.
# Debian's bindgen must load LLVM 14's libclang (clang 14's headers), not
# the newest one installed.
with_debian_python() {
   PATH=/usr/bin:/bin:$PATH CCACHE_BASEDIR=$CK_BUILD LIBCLANG_PATH=/usr/lib/llvm-14/lib \
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

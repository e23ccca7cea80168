# The pinned Mesa, 25.0.7, and where its pieces live. Sourced, never run.
#
# Debian 12's stable suite lacks three of its build tools (meson >= 1.4,
# rustc >= 1.78, bindgen >= 0.65) and cannot hold LLVM 15's libclc and
# SPIR-V translator headers beside LLVM 14's (the packages conflict, and
# Debian 12's PoCL brings LLVM 14). The packages of
# tools/toolchain/debian-25.0.7.lock come from Debian's archive through an
# apt configuration of the build's own (its own sources and lists, nothing
# in /etc changes), checked against the lock's checksums and unpacked under
# CK_TOOLS, never installed; bindgen is built from Debian's crate sources
# (librust-*-dev) by cargo, offline. What coexists with LLVM 14 is
# installed as usual (CK_PACKAGES, CK_LINE_PACKAGES).

MESA_VERSION=25.0.7
# Debian 13's source package (its backport to Debian 12, 25.0.7-2~bpo12+1,
# has the same upstream tarball; the archive mirror here serves only the
# upstream tarball of the backport, not its .dsc)
MESA_DEB_VERSION=25.0.7-2+deb13u1
declare -A MESA_SHA256=(
   [mesa_25.0.7-2+deb13u1.dsc]=c3605bc68cd140db19523c1b80ecd4aa1d77d5b528f15902995ef9ddbbc8f07e
   [mesa_25.0.7.orig.tar.xz]=592272df3cf01e85e7db300c449df5061092574d099da275d19e97ef0510f8a6
   [mesa_25.0.7-2+deb13u1.debian.tar.xz]=7ea51db6f4c6a39d28269975b7f652e37333a283819557c5901cbd3eccee446a
)

CK_LINE_PACKAGES=(
   llvm-15-dev libclang-15-dev libclang-cpp15-dev clang-15 libllvmspirvlib15
   llvm-spirv-15  # the lit tests of the plugin built against LLVM 15
   # zink, lavapipe, and what Mesa 25's build runs
   libvulkan-dev vulkan-tools glslang-tools python3-yaml python3-ply
   # what the lock's rustc-web and cargo-web link (unpacked, not installed,
   # so apt does not pull them in): LLVM 22's library and cargo's libraries
   libllvm22 libgit2-1.5 libcurl4 libsqlite3-0 libssh2-1 libssl3
)

# rusticl on llvmpipe and on zink, and lavapipe so that zink has a Vulkan
# device on every machine. No Clover: Mesa 25's drives only drivers with
# native IR, so it finds no llvmpipe device (docs/mesa-25.md).
MESA_OPTIONS=(
   --buildtype=release
   -Dgallium-drivers=llvmpipe,zink -Dvulkan-drivers=swrast
   -Dgallium-rusticl=true -Dgallium-rusticl-enable-drivers=llvmpipe
   -Dgallium-opencl=disabled -Dstatic-libclc=all
   -Dllvm=enabled -Dshared-llvm=enabled -Dplatforms= -Dglx=disabled
   -Degl=disabled -Dgbm=disabled -Dgles1=disabled -Dgles2=disabled
   -Dopengl=false -Dgallium-vdpau=disabled -Dgallium-va=disabled
   -Dgallium-xa=disabled -Dgallium-nine=false -Dvideo-codecs=
   -Dvalgrind=disabled -Dlibunwind=disabled -Dlmsensors=disabled
)

# Everything of this Mesa line: its toolchain, sources, builds and ICDs.
CK_LINE=$CK_BUILD/mesa-$MESA_VERSION
CK_LOCK=$CK_ROOT/tools/toolchain/debian-$MESA_VERSION.lock
CK_APT=$CK_LINE/apt               # the private apt configuration
CK_DEBS=$CK_LINE/debs             # the lock's packages, checked
CK_TOOLS=$CK_LINE/toolchain       # ... unpacked, and the wrappers in bin/
CK_DOWNLOADS=$CK_LINE/downloads   # Mesa's source package
CK_MESA_SRC=$CK_LINE/mesa-src
CK_MESA_BUILD=$CK_LINE/mesa
CK_PLUGIN_BUILD=$CK_LINE/ck      # this project, against the line's LLVM 15
CK_NATIVE_FILE=$CK_LINE/native.ini
CK_PATCHES=$CK_ROOT/patches             # the series (patches/series)
CK_BUILD_OK=$CK_LINE/build-ok
CK_ICD_DIR=$CK_LINE/icd-rusticl
CK_TOOLCHAIN_LAYOUT=3  # what ck_toolchain makes of the lock's packages

ck_apt() {
   apt-get -q -o Dir::Etc::SourceList="$CK_APT/sources.list" \
      -o Dir::Etc::SourceParts="$CK_APT/parts" -o Dir::State::Lists="$CK_APT/lists" \
      -o Dir::Cache="$CK_APT/cache" -o Dir::Cache::Archives="$CK_APT/archives" \
      -o APT::Sandbox::User=root -o Debug::NoLocking=1 "$@"
}

# Reads the indexes once; lists from an earlier build are read again only
# when a package is not found in them (ck_fetch_lock).
ck_apt_update() {
   [ -f "$CK_APT/updated" ] && return 0
   step "reading Debian's bookworm-backports, bookworm-security and trixie indexes (private apt lists)"
   mkdir -p "$CK_APT"/{parts,lists/partial,cache,archives/partial}
   local key=/usr/share/keyrings/debian-archive-keyring.gpg
   cat >"$CK_APT/sources.list" <<EOF
deb [signed-by=$key] http://deb.debian.org/debian bookworm-backports main
deb [signed-by=$key] http://deb.debian.org/debian-security bookworm-security main
deb [signed-by=$key] http://deb.debian.org/debian bookworm main
deb [signed-by=$key] http://deb.debian.org/debian trixie main
deb-src [signed-by=$key] http://deb.debian.org/debian trixie main
EOF
   ck_apt update >"$CK_APT/update.log" 2>&1 ||
      { tail -n 5 "$CK_APT/update.log" >&2; die "apt-get update (private lists) failed"; }
   touch "$CK_APT/updated"
}

# Fetch each package of the lock (apt-get download PACKAGE=VERSION) whose
# checked copy is missing, and check it.
ck_fetch_lock() {
   local suite pkg version sum file
   mkdir -p "$CK_DEBS"
   while read -r suite pkg version sum; do
      case "$suite" in ''|'#'*) continue ;; esac
      file=$CK_DEBS/$pkg.deb
      [ -f "$file" ] && [ "$(sha256_of "$file")" = "$sum" ] && continue
      ck_apt_update
      rm -rf "$CK_DEBS.tmp" && mkdir -p "$CK_DEBS.tmp"
      if ! (cd "$CK_DEBS.tmp" && ck_apt download "$pkg=$version" >download.log 2>&1); then
         # the lists may be older than the lock: read them again, once
         rm -f "$CK_APT/updated"
         ck_apt_update
         (cd "$CK_DEBS.tmp" && ck_apt download "$pkg=$version" >download.log 2>&1) ||
            die "$pkg $version is not in Debian's $suite any more (or the archive is out of reach):" \
               "$(tail -n 2 "$CK_DEBS.tmp/download.log")"
      fi
      local got
      got=$(sha256_of "$CK_DEBS.tmp/${pkg}_"*.deb)
      [ "$got" = "$sum" ] || die "checksum mismatch for $pkg $version: got $got, expected $sum"
      mv "$CK_DEBS.tmp/${pkg}_"*.deb "$file"
   done <"$CK_LOCK"
   rm -rf "$CK_DEBS.tmp"
}

# Unpack the lock's packages into CK_TOOLS and write the wrappers that
# run them from there: rustc and cargo (rustc-web finds its own libraries),
# meson (Debian's python3, which has mako), bindgen (built here).
ck_toolchain() {
   ck_fetch_lock
   # unpacked again (and Mesa reconfigured) when the lock or the layout
   # below changes: bump CK_TOOLCHAIN_LAYOUT with the unpacking
   local stamp=$CK_TOOLS/.stamp want
   want=$( { cat "$CK_LOCK"; echo "layout $CK_TOOLCHAIN_LAYOUT"; } | sha256sum | cut -d' ' -f1)
   if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
      step "unpacking the packages of $(basename "$CK_LOCK") into $CK_TOOLS"
      rm -rf "$CK_TOOLS"
      mkdir -p "$CK_TOOLS/bin"
      local deb
      for deb in "$CK_DEBS"/*.deb; do
         dpkg-deb -x "$deb" "$CK_TOOLS"
      done
      # the -dev packages' pkg-config files moved with them (libclc.pc
      # names /usr/lib/clc outright, which exists only where libclc-15 is
      # installed), and the translator's link name to LLVM 15's library
      # (the system's libLLVMSPIRVLib.so is LLVM 14's: linked to it,
      # rusticl crashed in its first build, libLLVM-14 and -15 in one
      # process)
      local lib=$CK_TOOLS/usr/lib/x86_64-linux-gnu
      sed -i "s|=/usr/|=$CK_TOOLS/usr/|" "$CK_TOOLS/usr/lib/pkgconfig/libclc.pc"
      sed -i "s|^libdir=.*|libdir=$lib|; s|^includedir=.*|includedir=$CK_TOOLS/usr/include|" \
         "$lib/pkgconfig/LLVMSPIRVLib.pc"
      ln -sfn /usr/lib/x86_64-linux-gnu/libLLVMSPIRVLib.so.15 "$lib/libLLVMSPIRVLib.so"
      ck_wrapper rustc "LD_LIBRARY_PATH=$CK_TOOLS/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \
         "$CK_TOOLS/usr/bin/rustc"
      ck_wrapper cargo "LD_LIBRARY_PATH=$CK_TOOLS/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} RUSTC=$CK_TOOLS/bin/rustc" \
         "$CK_TOOLS/usr/bin/cargo"
      ck_wrapper meson "PYTHONPATH=$CK_TOOLS/usr/lib/python3/dist-packages" \
         /usr/bin/python3 "$CK_TOOLS/usr/bin/meson"
      printf '%s\n' "$want" >"$stamp"
   fi
   ck_bindgen
}

# ck_wrapper NAME ENV COMMAND...: CK_TOOLS/bin/NAME runs COMMAND with ENV.
ck_wrapper() {
   local name=$1 env=$2
   shift 2
   printf '#!/bin/sh\n%s exec %s "$@"\n' "$env" "$*" >"$CK_TOOLS/bin/$name"
   chmod +x "$CK_TOOLS/bin/$name"
}

# bindgen's command line (tools/toolchain/bindgen: the library's own
# front end) against the crates of the lock, offline, with LLVM 15's
# libclang at run time and clang 15's headers (clang-sys asks the clang it
# finds for its include paths: the first on PATH is 14's, whose
# emmintrin.h libclang 15 rejects).
ck_bindgen() {
   local target=$CK_LINE/bindgen-target home=$CK_LINE/cargo-home
   if [ ! -x "$target/release/bindgen" ]; then
      step "building bindgen 0.71.1 from Debian's crate sources (cargo, offline)"
      mkdir -p "$home"
      cat >"$home/config.toml" <<EOF
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$CK_TOOLS/usr/share/cargo/registry"
[net]
offline = true
EOF
      CARGO_HOME=$home "$CK_TOOLS/bin/cargo" build --release --locked --offline \
         --manifest-path "$CK_ROOT/tools/toolchain/bindgen/Cargo.toml" --target-dir "$target" \
         ${CK_JOBS:+-j "$CK_JOBS"} >"$CK_LINE/bindgen.build.log" 2>&1 ||
         { tail -n 30 "$CK_LINE/bindgen.build.log" >&2; die "building bindgen failed"; }
   fi
   ck_wrapper bindgen "LIBCLANG_PATH=/usr/lib/llvm-15/lib CLANG_PATH=/usr/bin/clang-15" \
      "$target/release/bindgen"
}

fetch_mesa() {
   fetch_source_package "$CK_DOWNLOADS" "$MESA_DEB_VERSION" MESA_SHA256 ck_apt_update ck_apt
}

# This project's compiler plugin and scheduler, built against LLVM 15 for
# the series' Mesa to link (pkg-config, with_toolchain): Mesa 25 runs LLVM 15
# with typed pointers, as the plugin's bitcode is built (src/protocol).
build_plugin() {
   step "building the cooperative-kernels plugin against LLVM 15 (log: $CK_PLUGIN_BUILD.build.log)"
   if [ ! -f "$CK_PLUGIN_BUILD/build.ninja" ]; then
      with_toolchain "$CK_TOOLS/bin/meson" setup "$CK_PLUGIN_BUILD" "$CK_ROOT" \
         --native-file "$CK_NATIVE_FILE" --buildtype=debugoptimized >"$CK_PLUGIN_BUILD.setup.log" 2>&1 ||
         { tail -n 30 "$CK_PLUGIN_BUILD.setup.log" >&2; rm -rf "$CK_PLUGIN_BUILD"; die "configuring the plugin failed"; }
   fi
   with_toolchain ninja -C "$CK_PLUGIN_BUILD" ${CK_JOBS:+-j "$CK_JOBS"} >"$CK_PLUGIN_BUILD.build.log" 2>&1 ||
      { grep -E -B2 -A12 'error|FAILED' "$CK_PLUGIN_BUILD.build.log" | head -n 60 >&2; die "building the plugin failed"; }
}

# Runs a command with the line's toolchain first on PATH (meson 1.7 with
# Debian's python3, which has mako; rustc, cargo, bindgen), ccache's paths
# relative to the build directory, and this project's uninstalled pkg-config
# files, which Mesa's meson finds the plugin through.
with_toolchain() {
   PATH=$CK_TOOLS/bin:/usr/bin:/bin CCACHE_BASEDIR=$CK_BUILD \
   PYTHONPATH=$CK_TOOLS/usr/lib/python3/dist-packages \
   PKG_CONFIG_PATH=$CK_PLUGIN_BUILD/meson-uninstalled:$CK_TOOLS/usr/lib/pkgconfig:$CK_TOOLS/usr/lib/x86_64-linux-gnu/pkgconfig \
      "$@"
}

write_native_file() {
   cat >"$CK_NATIVE_FILE" <<EOF
[binaries]
llvm-config = '/usr/bin/llvm-config-15'
rust = ['$CK_TOOLS/bin/rustc']
bindgen = '$CK_TOOLS/bin/bindgen'
EOF
}

# build_mesa_tree SRC BUILD WHAT [MESON OPTION...]: configures (from
# scratch, when its options changed: meson keeps pkg-config's results across
# --reconfigure; ccache makes it cheap) and builds the Mesa tree SRC in
# BUILD. A tree whose meson_options.txt has the cooperative-kernels option
# gets -Dcooperative-kernels=enabled unless the caller chose, so that a
# plugin Mesa cannot find fails the configure instead of building Mesa
# without the extension. Mesa's configure records where the plugin is: a
# moved checkout reconfigures.
build_mesa_tree() {
   local src=$1 build=$2 what=$3
   shift 3
   local options=("${MESA_OPTIONS[@]}")
   [[ " $* " == *" -Dcooperative-kernels="* ]] ||
      mapfile -t -O "${#options[@]}" options < <(cooperative_kernels_enabled "$src")
   options+=("$@")
   local want
   # (a new series needs no new configure: patch_mesa rewrites only the
   # files that change, and ninja rebuilds what they touch)
   want=$(printf '%s\n' "${options[@]}" "$(cat "$CK_TOOLS/.stamp")" \
      "plugin=$CK_PLUGIN_BUILD:$CK_ROOT")
   if [ "$(cat "$build/.ck-options" 2>/dev/null)" != "$want" ]; then
      step "configuring $what (log: $build.setup.log)"
      rm -rf "$build"
      with_toolchain "$CK_TOOLS/bin/meson" setup "$build" "$src" \
         --native-file "$CK_NATIVE_FILE" "${options[@]}" >"$build.setup.log" 2>&1 ||
         { tail -n 30 "$build.setup.log" >&2; rm -rf "$build"; return 1; }
      printf '%s\n' "$want" >"$build/.ck-options"
   fi
   step "building $what (log: $build.build.log)"
   with_toolchain ninja -C "$build" ${CK_JOBS:+-j "$CK_JOBS"} >"$build.build.log" 2>&1 ||
      { grep -E -A12 '^FAILED|error:' "$build.build.log" | head -n 60 >&2; return 1; }
}

build_mesa() {
   build_mesa_tree "$CK_MESA_SRC" "$CK_MESA_BUILD" "Mesa $MESA_VERSION" ||
      die "building Mesa $MESA_VERSION failed"
}

# What a build needs before Mesa: the packages, the toolchain, Mesa's source
# package unpacked with the series, the plugin.
prepare_build() {
   local CK_PACKAGES=("${CK_PACKAGES[@]}" "${CK_LINE_PACKAGES[@]}")
   ensure_packages
   # the series first: one that does not apply fails before the toolchain
   fetch_mesa
   unpack_mesa
   patch_mesa
   ck_toolchain
   write_native_file
   build_plugin
}

# write_icds [BUILD ICD_DIR VK_ICD]: the OpenCL ICD directory (rusticl)
# and the Vulkan ICD file (lavapipe) of a Mesa build (the patched one's by
# default).
write_icds() {
   local build=${1:-$CK_MESA_BUILD} icd_dir=${2:-$CK_ICD_DIR} vk_icd=${3:-$CK_LINE/lvp_icd.json}
   mkdir -p "$icd_dir"
   rm -f "$icd_dir"/*.icd
   printf '%s\n' "$build/src/gallium/targets/rusticl/libRusticlOpenCL.so.1" >"$icd_dir/ck-rusticl.icd"
   sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$build/src/gallium/targets/lavapipe/libvulkan_lvp.so\"|" \
      "$build/src/gallium/targets/lavapipe/lvp_devenv_icd.x86_64.json" >"$vk_icd"
}

# The drivers rusticl runs OpenCL on: llvmpipe (cooperative kernels and
# every other kernel) and zink over Vulkan (the build's lavapipe here;
# ordinary kernels only so far, issue 56). CK_DRIVER, or --driver, picks one.
CK_DRIVERS=(llvmpipe zink)
CK_DRIVER=${CK_DRIVER:-llvmpipe}

check_driver() {
   case "$1" in
      llvmpipe|zink) ;;
      *) die "unknown driver '$1' (llvmpipe or zink)" ;;
   esac
}

# mesa_env_exports [DRIVER [ICD_DIR [VK_ICD]]]: the environment that runs
# OpenCL programs on rusticl of the Mesa that ICD_DIR names (the patched
# build's by default), on DRIVER (CK_DRIVER by default): llvmpipe, or zink
# over the lavapipe that the Vulkan ICD file VK_ICD names (the build's),
# with the compute queue on which zink runs cooperative launches.
# Without a DRM device zink comes through the software pipe loader's device
# (rusticl's RUSTICL_ENABLE name for it is swrast, or llvmpipe), which makes
# the screen GALLIUM_DRIVER names; zink takes a CPU Vulkan device only with
# LIBGL_ALWAYS_SOFTWARE set (zink_screen.c).
mesa_env_exports() {
   local driver=${1:-$CK_DRIVER} icd_dir=${2:-$CK_ICD_DIR} vk_icd=${3:-$CK_LINE/lvp_icd.json}
   check_driver "$driver"
   printf 'export CK_DRIVER=%q OCL_ICD_VENDORS=%q\n' "$driver" "$icd_dir"
   case "$driver" in
      llvmpipe) printf 'export RUSTICL_ENABLE=llvmpipe\n' ;;
      zink)
         printf 'export RUSTICL_ENABLE=swrast GALLIUM_DRIVER=zink LIBGL_ALWAYS_SOFTWARE=1\n'
         # lavapipe's compute queue (0052), where zink runs cooperative
         # launches beside the rest (0055)
         printf 'export VK_DRIVER_FILES=%q LVP_COMPUTE_QUEUES=%q\n' "$vk_icd" \
            "${LVP_COMPUTE_QUEUES:-1}" ;;
   esac
}

require_build() {
   [ -f "$CK_BUILD_OK" ] ||
      die "no finished build in $CK_LINE: run 'tools/ck build' (the last build failed or never ran)"
}

# Build unless a finished build exists and nothing it depends on changed;
# `ck build` itself is cheap when everything is current, so just call it.
build_if_needed() {
   "$CK_ROOT/tools/ck" build
}

# Mesa 25.0.7, the next pinned Mesa (issue 55), built beside 22.3.6 until
# the switch: 'tools/ck build --mesa 25.0.7'. Sourced, never run.
#
# Debian 12's stable suite lacks three of its build tools (meson >= 1.4,
# rustc >= 1.78, bindgen >= 0.65) and cannot hold LLVM 15's libclc and
# SPIR-V translator headers beside LLVM 14's (the packages conflict). The
# packages of tools/toolchain/debian-25.0.7.lock come from Debian's archive
# through an apt configuration of the build's own (its own sources and
# lists, nothing in /etc changes), checked against the lock's checksums and
# unpacked under CK25_TOOLS, never installed; bindgen is built from Debian's
# crate sources (librust-*-dev) by cargo, offline. What coexists with
# LLVM 14 is installed as usual (CK25_PACKAGES).

MESA25_VERSION=25.0.7
# Debian 13's source package (its backport to Debian 12, 25.0.7-2~bpo12+1,
# has the same upstream tarball; the archive mirror here serves only the
# upstream tarball of the backport, not its .dsc)
MESA25_DEB_VERSION=25.0.7-2+deb13u1
declare -A MESA25_SHA256=(
   [mesa_25.0.7-2+deb13u1.dsc]=c3605bc68cd140db19523c1b80ecd4aa1d77d5b528f15902995ef9ddbbc8f07e
   [mesa_25.0.7.orig.tar.xz]=592272df3cf01e85e7db300c449df5061092574d099da275d19e97ef0510f8a6
   [mesa_25.0.7-2+deb13u1.debian.tar.xz]=7ea51db6f4c6a39d28269975b7f652e37333a283819557c5901cbd3eccee446a
)

CK25_PACKAGES=(
   llvm-15-dev libclang-15-dev libclang-cpp15-dev clang-15 libllvmspirvlib15
   llvm-spirv-15  # the lit tests of the plugin built against LLVM 15
   # zink, lavapipe, and what Mesa 25's build runs
   libvulkan-dev vulkan-tools glslang-tools python3-yaml python3-ply
   # what the lock's rustc-web and cargo-web link (unpacked, not installed,
   # so apt does not pull them in): LLVM 22's library and cargo's libraries
   libllvm22 libgit2-1.5 libcurl4 libsqlite3-0 libssh2-1 libssl3
)

# rusticl on llvmpipe and on zink, and lavapipe so that zink has a Vulkan
# device on every machine. Clover is retired: Mesa 25's drives only drivers
# with native IR (DESIGN-BRIEF.md; issue 55).
MESA25_OPTIONS=(
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

CK25_BUILD=$CK_BUILD/mesa-$MESA25_VERSION
CK25_LOCK=$CK_ROOT/tools/toolchain/debian-$MESA25_VERSION.lock
CK25_APT=$CK25_BUILD/apt               # the private apt configuration
CK25_DEBS=$CK25_BUILD/debs             # the lock's packages, checked
CK25_TOOLS=$CK25_BUILD/toolchain       # ... unpacked, and the wrappers in bin/
CK25_DOWNLOADS=$CK25_BUILD/downloads   # Mesa's source package
CK25_MESA_SRC=$CK25_BUILD/mesa-src
CK25_MESA_BUILD=$CK25_BUILD/mesa
CK25_PLUGIN_BUILD=$CK25_BUILD/ck      # this project, against LLVM 15
CK25_NATIVE_FILE=$CK25_BUILD/native.ini
CK25_PATCHES=$CK_ROOT/patches/$MESA25_VERSION
CK25_BUILD_OK=$CK25_BUILD/build-ok
CK25_ICD_DIR=$CK25_BUILD/icd-rusticl
CK25_TOOLCHAIN_LAYOUT=2  # what ck25_toolchain makes of the lock's packages

ck25_apt() {
   apt-get -q -o Dir::Etc::SourceList="$CK25_APT/sources.list" \
      -o Dir::Etc::SourceParts="$CK25_APT/parts" -o Dir::State::Lists="$CK25_APT/lists" \
      -o Dir::Cache="$CK25_APT/cache" -o Dir::Cache::Archives="$CK25_APT/archives" \
      -o APT::Sandbox::User=root -o Debug::NoLocking=1 "$@"
}

# Reads the indexes once; lists from an earlier build are read again only
# when a package is not found in them (ck25_fetch_lock).
ck25_apt_update() {
   [ -f "$CK25_APT/updated" ] && return 0
   step "reading Debian's bookworm-backports, bookworm-security and trixie indexes (private apt lists)"
   mkdir -p "$CK25_APT"/{parts,lists/partial,cache,archives/partial}
   local key=/usr/share/keyrings/debian-archive-keyring.gpg
   cat >"$CK25_APT/sources.list" <<EOF
deb [signed-by=$key] http://deb.debian.org/debian bookworm-backports main
deb [signed-by=$key] http://deb.debian.org/debian-security bookworm-security main
deb [signed-by=$key] http://deb.debian.org/debian bookworm main
deb [signed-by=$key] http://deb.debian.org/debian trixie main
deb-src [signed-by=$key] http://deb.debian.org/debian trixie main
EOF
   ck25_apt update >"$CK25_APT/update.log" 2>&1 ||
      { tail -n 5 "$CK25_APT/update.log" >&2; die "apt-get update (private lists) failed"; }
   touch "$CK25_APT/updated"
}

# Fetch each package of the lock (apt-get download PACKAGE=VERSION) whose
# checked copy is missing, and check it.
ck25_fetch_lock() {
   local suite pkg version sum file
   mkdir -p "$CK25_DEBS"
   while read -r suite pkg version sum; do
      case "$suite" in ''|'#'*) continue ;; esac
      file=$CK25_DEBS/$pkg.deb
      [ -f "$file" ] && [ "$(sha256_of "$file")" = "$sum" ] && continue
      ck25_apt_update
      rm -rf "$CK25_DEBS.tmp" && mkdir -p "$CK25_DEBS.tmp"
      if ! (cd "$CK25_DEBS.tmp" && ck25_apt download "$pkg=$version" >download.log 2>&1); then
         # the lists may be older than the lock: read them again, once
         rm -f "$CK25_APT/updated"
         ck25_apt_update
         (cd "$CK25_DEBS.tmp" && ck25_apt download "$pkg=$version" >download.log 2>&1) ||
            die "$pkg $version is not in Debian's $suite any more (or the archive is out of reach):" \
               "$(tail -n 2 "$CK25_DEBS.tmp/download.log")"
      fi
      local got
      got=$(sha256_of "$CK25_DEBS.tmp/${pkg}_"*.deb)
      [ "$got" = "$sum" ] || die "checksum mismatch for $pkg $version: got $got, expected $sum"
      mv "$CK25_DEBS.tmp/${pkg}_"*.deb "$file"
   done <"$CK25_LOCK"
   rm -rf "$CK25_DEBS.tmp"
}

# Unpack the lock's packages into CK25_TOOLS and write the wrappers that
# run them from there: rustc and cargo (rustc-web finds its own libraries),
# meson (Debian's python3, which has mako), bindgen (built here).
ck25_toolchain() {
   ck25_fetch_lock
   # unpacked again (and Mesa reconfigured) when the lock or the layout
   # below changes: bump CK25_TOOLCHAIN_LAYOUT with the unpacking
   local stamp=$CK25_TOOLS/.stamp want
   want=$( { cat "$CK25_LOCK"; echo "layout $CK25_TOOLCHAIN_LAYOUT"; } | sha256sum | cut -d' ' -f1)
   if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
      step "unpacking the packages of $(basename "$CK25_LOCK") into $CK25_TOOLS"
      rm -rf "$CK25_TOOLS"
      mkdir -p "$CK25_TOOLS/bin"
      local deb
      for deb in "$CK25_DEBS"/*.deb; do
         dpkg-deb -x "$deb" "$CK25_TOOLS"
      done
      # the -dev packages' pkg-config files moved with them, and the
      # translator's link name to LLVM 15's library (the system's
      # libLLVMSPIRVLib.so is LLVM 14's: linked to it, rusticl crashed in
      # its first build, libLLVM-14 and -15 in one process)
      local lib=$CK25_TOOLS/usr/lib/x86_64-linux-gnu
      sed -i "s|^prefix=.*|prefix=$CK25_TOOLS/usr|" "$CK25_TOOLS/usr/lib/pkgconfig/libclc.pc"
      sed -i "s|^libdir=.*|libdir=$lib|; s|^includedir=.*|includedir=$CK25_TOOLS/usr/include|" \
         "$lib/pkgconfig/LLVMSPIRVLib.pc"
      ln -sfn /usr/lib/x86_64-linux-gnu/libLLVMSPIRVLib.so.15 "$lib/libLLVMSPIRVLib.so"
      ck25_wrapper rustc "LD_LIBRARY_PATH=$CK25_TOOLS/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \
         "$CK25_TOOLS/usr/bin/rustc"
      ck25_wrapper cargo "LD_LIBRARY_PATH=$CK25_TOOLS/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} RUSTC=$CK25_TOOLS/bin/rustc" \
         "$CK25_TOOLS/usr/bin/cargo"
      ck25_wrapper meson "PYTHONPATH=$CK25_TOOLS/usr/lib/python3/dist-packages" \
         /usr/bin/python3 "$CK25_TOOLS/usr/bin/meson"
      printf '%s\n' "$want" >"$stamp"
   fi
   ck25_bindgen
}

# ck25_wrapper NAME ENV COMMAND...: CK25_TOOLS/bin/NAME runs COMMAND with ENV.
ck25_wrapper() {
   local name=$1 env=$2
   shift 2
   printf '#!/bin/sh\n%s exec %s "$@"\n' "$env" "$*" >"$CK25_TOOLS/bin/$name"
   chmod +x "$CK25_TOOLS/bin/$name"
}

# bindgen's command line (tools/toolchain/bindgen: the library's own
# front end) against the crates of the lock, offline, with LLVM 15's
# libclang at run time and clang 15's headers (clang-sys asks the clang it
# finds for its include paths: the first on PATH is 14's, whose
# emmintrin.h libclang 15 rejects).
ck25_bindgen() {
   local target=$CK25_BUILD/bindgen-target home=$CK25_BUILD/cargo-home
   if [ ! -x "$target/release/bindgen" ]; then
      step "building bindgen 0.71.1 from Debian's crate sources (cargo, offline)"
      mkdir -p "$home"
      cat >"$home/config.toml" <<EOF
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$CK25_TOOLS/usr/share/cargo/registry"
[net]
offline = true
EOF
      CARGO_HOME=$home "$CK25_TOOLS/bin/cargo" build --release --locked --offline \
         --manifest-path "$CK_ROOT/tools/toolchain/bindgen/Cargo.toml" --target-dir "$target" \
         ${CK_JOBS:+-j "$CK_JOBS"} >"$CK25_BUILD/bindgen.build.log" 2>&1 ||
         { tail -n 30 "$CK25_BUILD/bindgen.build.log" >&2; die "building bindgen failed"; }
   fi
   ck25_wrapper bindgen "LIBCLANG_PATH=/usr/lib/llvm-15/lib CLANG_PATH=/usr/bin/clang-15" \
      "$target/release/bindgen"
}

ck25_fetch_mesa() {
   fetch_source_package "$CK25_DOWNLOADS" "$MESA25_DEB_VERSION" MESA25_SHA256 ck25_apt_update ck25_apt
}

# Mesa 25.0.7's tree and series, through the same unpacking and patching
# as the pinned Mesa's (cmd_build.sh), with this line's variables.
ck25_unpack_and_patch() {
   local CK_MESA_SRC=$CK25_MESA_SRC CK_DOWNLOADS=$CK25_DOWNLOADS CK_PATCHES=$CK25_PATCHES
   local MESA_VERSION=$MESA25_VERSION MESA_DEB_VERSION=$MESA25_DEB_VERSION
   unpack_mesa
   patch_mesa
}

# This project's compiler plugin and scheduler, built against LLVM 15 for
# the series' Mesa to link (pkg-config, ck25_env): Mesa 25 runs LLVM 15
# with typed pointers, as the plugin's bitcode is built (src/protocol).
ck25_build_plugin() {
   step "building the cooperative-kernels plugin against LLVM 15 (log: $CK25_PLUGIN_BUILD.build.log)"
   if [ ! -f "$CK25_PLUGIN_BUILD/build.ninja" ]; then
      ck25_env "$CK25_TOOLS/bin/meson" setup "$CK25_PLUGIN_BUILD" "$CK_ROOT" \
         --native-file "$CK25_NATIVE_FILE" --buildtype=debugoptimized >"$CK25_PLUGIN_BUILD.setup.log" 2>&1 ||
         { tail -n 30 "$CK25_PLUGIN_BUILD.setup.log" >&2; rm -rf "$CK25_PLUGIN_BUILD"; die "configuring the plugin failed"; }
   fi
   # what Mesa links; the project's tests build against the pinned Mesa
   ck25_env ninja -C "$CK25_PLUGIN_BUILD" ${CK_JOBS:+-j "$CK_JOBS"} \
      src/compiler/libck_compiler.a src/runtime/libck_runtime.a >"$CK25_PLUGIN_BUILD.build.log" 2>&1 ||
      { grep -E -B2 -A12 'error|FAILED' "$CK25_PLUGIN_BUILD.build.log" | head -n 60 >&2; die "building the plugin failed"; }
}

ck25_env() {
   PATH=$CK25_TOOLS/bin:/usr/bin:/bin CCACHE_BASEDIR=$CK_BUILD \
   PYTHONPATH=$CK25_TOOLS/usr/lib/python3/dist-packages \
   PKG_CONFIG_PATH=$CK25_PLUGIN_BUILD/meson-uninstalled:$CK25_TOOLS/usr/lib/pkgconfig:$CK25_TOOLS/usr/lib/x86_64-linux-gnu/pkgconfig \
      "$@"
}

ck25_write_native_file() {
   cat >"$CK25_NATIVE_FILE" <<EOF
[binaries]
llvm-config = '/usr/bin/llvm-config-15'
rust = ['$CK25_TOOLS/bin/rustc']
bindgen = '$CK25_TOOLS/bin/bindgen'
EOF
}

# ck25_build_mesa_tree SRC BUILD WHAT [MESON OPTION...]: configures (when its
# options changed) and builds the Mesa 25.0.7 tree SRC in BUILD, with the
# cooperative-kernels option on when SRC has it unless the options say.
ck25_build_mesa_tree() {
   local src=$1 build=$2 what=$3
   shift 3
   local options=("${MESA25_OPTIONS[@]}")
   [[ " $* " == *" -Dcooperative-kernels="* ]] ||
      mapfile -t -O "${#options[@]}" options < <(cooperative_kernels_enabled "$src")
   options+=("$@")
   local want
   # (a new series needs no new configure: patch_mesa rewrites only the
   # files that change, and ninja rebuilds what they touch)
   want=$(printf '%s\n' "${options[@]}" "$(cat "$CK25_TOOLS/.stamp")" \
      "plugin=$CK25_PLUGIN_BUILD:$CK_ROOT")
   if [ "$(cat "$build/.ck-options" 2>/dev/null)" != "$want" ]; then
      step "configuring $what (log: $build.setup.log)"
      rm -rf "$build"
      ck25_env "$CK25_TOOLS/bin/meson" setup "$build" "$src" \
         --native-file "$CK25_NATIVE_FILE" "${options[@]}" >"$build.setup.log" 2>&1 ||
         { tail -n 30 "$build.setup.log" >&2; rm -rf "$build"; return 1; }
      printf '%s\n' "$want" >"$build/.ck-options"
   fi
   step "building $what (log: $build.build.log)"
   ck25_env ninja -C "$build" ${CK_JOBS:+-j "$CK_JOBS"} >"$build.build.log" 2>&1 ||
      { grep -E -A12 '^FAILED|error:' "$build.build.log" | head -n 60 >&2; return 1; }
}

ck25_build_mesa() {
   ck25_build_mesa_tree "$CK25_MESA_SRC" "$CK25_MESA_BUILD" "Mesa $MESA25_VERSION" ||
      die "building Mesa $MESA25_VERSION failed"
}

# What a build of this line needs before Mesa: the packages, the toolchain,
# Mesa's source package unpacked with the series, the plugin against LLVM 15.
ck25_prepare() {
   # what ensure_packages installs: the project's own (compilers, the OpenCL
   # headers and loader the plugin builds against, the tests' tools) and this
   # line's; a fresh machine may build this line first
   local CK_PACKAGES=("${CK_PACKAGES[@]}" "${CK25_PACKAGES[@]}")
   ensure_packages
   ck25_toolchain
   ck25_fetch_mesa
   ck25_unpack_and_patch
   ck25_write_native_file
   ck25_build_plugin
}

# The OpenCL ICD (rusticl) and the Vulkan ICD (lavapipe) of the build.
ck25_write_icds() {
   mkdir -p "$CK25_ICD_DIR"
   printf '%s\n' "$CK25_MESA_BUILD/src/gallium/targets/rusticl/libRusticlOpenCL.so.1" \
      >"$CK25_ICD_DIR/ck-rusticl-$MESA25_VERSION.icd"
   sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$CK25_MESA_BUILD/src/gallium/targets/lavapipe/libvulkan_lvp.so\"|" \
      "$CK25_MESA_BUILD/src/gallium/targets/lavapipe/lvp_devenv_icd.x86_64.json" >"$CK25_BUILD/lvp_icd.json"
}

cmd_build25() {
   local start=$SECONDS
   mkdir -p "$CK25_BUILD"
   rm -f "$CK25_BUILD_OK"
   ck25_prepare
   ck25_build_mesa
   ck25_write_icds
   git -C "$CK25_MESA_SRC" rev-parse HEAD >"$CK25_BUILD_OK"
   CK_STEP=""
   note "Mesa $MESA25_VERSION ready: $CK25_MESA_BUILD ($((SECONDS - start)) s)"
}

# The environment that runs OpenCL programs on rusticl of Mesa 25.0.7, on
# DRIVER: llvmpipe, or zink over the build's lavapipe. Without a DRM device
# zink comes through the software pipe loader's device (rusticl's
# RUSTICL_ENABLE name for it is swrast, or llvmpipe), which makes the screen
# GALLIUM_DRIVER names; zink takes a CPU Vulkan device only with
# LIBGL_ALWAYS_SOFTWARE set (zink_screen.c).
mesa25_env_exports() {
   local driver=${1:-llvmpipe}
   printf 'export OCL_ICD_VENDORS=%q\n' "$CK25_ICD_DIR"
   case "$driver" in
      llvmpipe) printf 'export RUSTICL_ENABLE=llvmpipe\n' ;;
      zink)
         printf 'export RUSTICL_ENABLE=swrast GALLIUM_DRIVER=zink LIBGL_ALWAYS_SOFTWARE=1\n'
         printf 'export VK_DRIVER_FILES=%q\n' "$CK25_BUILD/lvp_icd.json" ;;
      *) die "unknown driver '$driver' (llvmpipe or zink)" ;;
   esac
}

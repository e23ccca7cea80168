# Shared helpers for tools/ck. Sourced, never run.

CK_STEP=""

die() {
   printf 'ck: error: %s\n' "$*" >&2
   exit 1
}

note() {
   printf 'ck: %s\n' "$*" >&2
}

# Announce a step; a failure anywhere after this names it (see the ERR trap).
step() {
   CK_STEP=$1
   printf '==> %s\n' "$1" >&2
}

on_error() {
   local rc=$?
   if [ -n "$CK_STEP" ]; then
      printf 'ck: error: step "%s" failed (exit %d)\n' "$CK_STEP" "$rc" >&2
   fi
   exit "$rc"
}
trap on_error ERR

as_root() {
   if [ "$(id -u)" -eq 0 ]; then
      "$@"
   elif command -v sudo >/dev/null 2>&1; then
      sudo "$@"
   else
      die "'$*' needs root and sudo is not installed"
   fi
}

# Debian packages that building, running and testing need.
CK_PACKAGES=(
   # toolchain and Mesa's build dependencies
   build-essential pkg-config meson ninja-build python3-mako bison flex ccache
   dpkg-dev git xz-utils libexpat1-dev zlib1g-dev libzstd-dev libelf-dev libdrm-dev
   # LLVM 14, clang, libclc and the SPIR-V translator (see DESIGN-BRIEF.md)
   llvm-14-dev llvm-14-tools libclang-14-dev libclang-cpp14-dev clang-14
   libclc-14 libclc-14-dev libllvmspirvlib-14-dev llvm-spirv-14 spirv-tools
   # rusticl: Debian's Rust compiler and bindgen
   rustc bindgen
   # OpenCL loader and headers, tests and plots
   ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo piglit
   libgtest-dev googletest nlohmann-json3-dev libbenchmark-dev python3-matplotlib
   # the protocol model (tests/model)
   spin
   # an OpenCL without the extension, for the fallback header's test and
   # 'tools/ck bench table2 --platform pocl'
   pocl-opencl-icd
)

# Install whatever of CK_PACKAGES is missing. Quiet when nothing is.
ensure_packages() {
   local missing=() pkg
   for pkg in "${CK_PACKAGES[@]}"; do
      dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | grep -q '^ii' ||
         missing+=("$pkg")
   done
   [ ${#missing[@]} -eq 0 ] && return 0
   step "installing Debian packages: ${missing[*]}"
   as_root apt-get update -q >/dev/null ||
      die "apt-get update failed"
   if ! as_root env DEBIAN_FRONTEND=noninteractive \
         apt-get install -y -q --no-install-recommends "${missing[@]}" >"$CK_BUILD/apt.log" 2>&1; then
      tail -n 20 "$CK_BUILD/apt.log" >&2
      die "could not install: ${missing[*]} (full log: $CK_BUILD/apt.log)"
   fi
}

# Enable Debian source packages (deb-src) if no source list names mesa.
ensure_deb_src() {
   apt-cache showsrc mesa 2>/dev/null | grep -q "^Version: $MESA_DEB_VERSION\$" && return 0
   local list=/etc/apt/sources.list.d/ck-debian-src.sources
   if [ ! -f "$list" ]; then
      step "enabling Debian source packages ($list)"
      if [ -f /etc/apt/sources.list.d/debian.sources ]; then
         sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
            as_root tee "$list" >/dev/null
      elif [ -f /etc/apt/sources.list ]; then
         grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
            as_root tee "${list%.sources}.list" >/dev/null
      else
         die "no Debian apt source list found to derive deb-src entries from"
      fi
   fi
   as_root apt-get update -q >/dev/null || die "apt-get update failed"
}

sha256_of() {
   sha256sum "$1" | cut -d' ' -f1
}

# Run a command with a wall-clock limit; on expiry say what hung and fail.
with_timeout() {
   local seconds=$1 what=$2
   shift 2
   local rc=0
   timeout --kill-after=10 "$seconds" "$@" || rc=$?
   if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      printf 'ck: error: %s did not finish within %ss (deadlock or hang)\n' "$what" "$seconds" >&2
   fi
   return "$rc"
}

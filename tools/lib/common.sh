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

# Debian packages that building, running and testing need (with
# CK_LINE_PACKAGES, the Mesa line's own: mesa.sh).
CK_PACKAGES=(
   # toolchain and Mesa's build dependencies
   build-essential pkg-config ninja-build python3-mako bison flex ccache
   dpkg-dev git xz-utils libexpat1-dev zlib1g-dev libzstd-dev libelf-dev libdrm-dev
   spirv-tools
   # OpenCL loader and headers, tests and plots
   ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo piglit
   libgtest-dev googletest nlohmann-json3-dev libbenchmark-dev python3-matplotlib
   # the protocol model (tests/model)
   spin
   # an OpenCL without the extension: the fuzzer's reference, the fallback
   # header's test and 'tools/ck bench ... --platform pocl'
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

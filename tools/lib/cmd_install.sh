# tools/ck install. Sourced by tools/ck.

install_help() {
   cat <<EOF2
usage: tools/ck install --prefix DIR [--register]

Installs the patched Mesa (rusticl's libRusticlOpenCL, llvmpipe and zink,
and lavapipe) into DIR and writes DIR/etc/OpenCL/vendors/ck-rusticl.icd,
the only ICD file there that names rusticl (Mesa's own rusticl.icd is
removed, so that a loader lists rusticl once). With --register, also
copies it to /etc/OpenCL/vendors/ so that every OpenCL program on the
machine sees the patched rusticl (a driver must still be enabled:
RUSTICL_ENABLE=llvmpipe).
EOF2
}

cmd_install() {
   local prefix="" register=0
   while [ $# -gt 0 ]; do
      case "$1" in
         --prefix) prefix=$2; shift ;;
         --register) register=1 ;;
         -h|--help) install_help; return 0 ;;
         *) install_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   [ -n "$prefix" ] || { install_help >&2; die "install needs --prefix DIR"; }
   mkdir -p "$prefix"
   prefix=$(cd "$prefix" && pwd)
   build_if_needed
   step "installing the patched Mesa into $prefix"
   with_toolchain meson configure "$CK_MESA_BUILD" -Dprefix="$prefix" >/dev/null
   with_toolchain meson install -C "$CK_MESA_BUILD" --quiet >"$CK_BUILD/install.log" 2>&1 ||
      { tail -n 20 "$CK_BUILD/install.log" >&2; false; }
   local vendors=$prefix/etc/OpenCL/vendors
   write_icd_files "$prefix"
   note "installed; ICD file: $vendors/ck-rusticl.icd"
   if [ $register -eq 1 ]; then
      as_root mkdir -p /etc/OpenCL/vendors
      as_root cp "$vendors/ck-rusticl.icd" /etc/OpenCL/vendors/
      note "registered /etc/OpenCL/vendors/ck-rusticl.icd (run programs with RUSTICL_ENABLE=llvmpipe)"
   fi
}

# The ICD files of an OpenCL library: those in VENDORS that name LIBRARY,
# with or without a path, one a line.
icd_files_naming() {
   local vendors=$1 library=$2 file
   for file in "$vendors"/*.icd; do
      [ -f "$file" ] || continue
      case "$(cat "$file")" in
         "$library" | */"$library") printf '%s\n' "$file" ;;
      esac
   done
}

# Writes PREFIX/etc/OpenCL/vendors/ck-rusticl.icd, naming the library
# installed under PREFIX, and leaves no other ICD file of that library
# there: Meson installs Mesa's own rusticl.icd (the same library, named
# without a path), and an ICD loader would list rusticl twice.
write_icd_files() {
   local prefix=$1 vendors=$1/etc/OpenCL/vendors icd library path
   mkdir -p "$vendors"
   for icd in ck-rusticl:libRusticlOpenCL.so.1; do
      library=${icd#*:}
      path=$(find "$prefix" -name "$library" -print -quit)
      [ -n "$path" ] || die "install did not produce $library under $prefix"
      icd_files_naming "$vendors" "$library" | while IFS= read -r file; do rm -f "$file"; done
      printf '%s\n' "$path" >"$vendors/${icd%%:*}.icd"
   done
}

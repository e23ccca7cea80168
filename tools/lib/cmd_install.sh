# tools/ck install. Sourced by tools/ck.

install_help() {
   cat <<EOF2
usage: tools/ck install --prefix DIR [--register]

Installs the patched Mesa (Clover's libMesaOpenCL with the llvmpipe pipe
driver, and rusticl's libRusticlOpenCL) into DIR and writes
DIR/etc/OpenCL/vendors/ck-mesa.icd and ck-rusticl.icd, the only ICD files
there that name the two frontends (Mesa's own mesa.icd and rusticl.icd are
removed, so that a loader lists each frontend once). With --register, also
copies them to /etc/OpenCL/vendors/ so that every OpenCL program on the
machine sees the patched Mesa's frontends (llvmpipe must still be enabled:
LP_CL=1 for Clover, RUSTICL_ENABLE=llvmpipe for rusticl).
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
   with_debian_python meson configure "$CK_MESA_BUILD" -Dprefix="$prefix" >/dev/null
   with_debian_python meson install -C "$CK_MESA_BUILD" --quiet >"$CK_BUILD/install.log" 2>&1 ||
      { tail -n 20 "$CK_BUILD/install.log" >&2; false; }
   local vendors=$prefix/etc/OpenCL/vendors
   write_icd_files "$prefix"
   note "installed; ICD files: $vendors/ck-mesa.icd (Clover), $vendors/ck-rusticl.icd (rusticl)"
   if [ $register -eq 1 ]; then
      as_root mkdir -p /etc/OpenCL/vendors
      as_root cp "$vendors/ck-mesa.icd" "$vendors/ck-rusticl.icd" /etc/OpenCL/vendors/
      note "registered /etc/OpenCL/vendors/ck-mesa.icd and ck-rusticl.icd" \
         "(run programs with LP_CL=1 or RUSTICL_ENABLE=llvmpipe)"
   fi
}

# The ICD files of a frontend library: those in VENDORS that name LIBRARY,
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

# Writes PREFIX/etc/OpenCL/vendors/ck-mesa.icd and ck-rusticl.icd, naming
# the libraries installed under PREFIX, and leaves no other ICD file of
# those libraries there: Meson installs Mesa's own mesa.icd and
# rusticl.icd (the same libraries, named without a path), and an ICD loader
# would list each frontend twice.
write_icd_files() {
   local prefix=$1 vendors=$1/etc/OpenCL/vendors icd library path
   mkdir -p "$vendors"
   for icd in ck-mesa:libMesaOpenCL.so.1 ck-rusticl:libRusticlOpenCL.so.1; do
      library=${icd#*:}
      path=$(find "$prefix" -name "$library" -print -quit)
      [ -n "$path" ] || die "install did not produce $library under $prefix"
      icd_files_naming "$vendors" "$library" | while IFS= read -r file; do rm -f "$file"; done
      printf '%s\n' "$path" >"$vendors/${icd%%:*}.icd"
   done
}

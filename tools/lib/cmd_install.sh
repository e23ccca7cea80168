# tools/ck install. Sourced by tools/ck.

install_help() {
   cat <<EOF2
usage: tools/ck install --prefix DIR [--register]

Installs the patched Mesa (Clover's libMesaOpenCL with the llvmpipe pipe
driver, and rusticl's libRusticlOpenCL) into DIR and writes
DIR/etc/OpenCL/vendors/ck-mesa.icd and ck-rusticl.icd. With --register, also
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
   local vendors=$prefix/etc/OpenCL/vendors icd lib
   mkdir -p "$vendors"
   # Meson installs rusticl's own rusticl.icd, which names the library
   # without a path; ours name the installed files.
   rm -f "$vendors/rusticl.icd"
   for icd in ck-mesa:libMesaOpenCL.so.1 ck-rusticl:libRusticlOpenCL.so.1; do
      lib=$(find "$prefix" -name "${icd#*:}" -print -quit)
      [ -n "$lib" ] || die "install did not produce ${icd#*:} under $prefix"
      printf '%s\n' "$lib" >"$vendors/${icd%%:*}.icd"
   done
   note "installed; ICD files: $vendors/ck-mesa.icd (Clover), $vendors/ck-rusticl.icd (rusticl)"
   if [ $register -eq 1 ]; then
      as_root mkdir -p /etc/OpenCL/vendors
      as_root cp "$vendors/ck-mesa.icd" "$vendors/ck-rusticl.icd" /etc/OpenCL/vendors/
      note "registered /etc/OpenCL/vendors/ck-mesa.icd and ck-rusticl.icd" \
         "(run programs with LP_CL=1 or RUSTICL_ENABLE=llvmpipe)"
   fi
}

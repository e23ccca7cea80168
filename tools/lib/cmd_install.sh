# tools/ck install. Sourced by tools/ck.

install_help() {
   cat <<EOF2
usage: tools/ck install --prefix DIR [--register]

Installs the patched Mesa (libMesaOpenCL and the llvmpipe pipe driver) into
DIR and writes DIR/etc/OpenCL/vendors/ck-mesa.icd. With --register, also
copies that .icd file to /etc/OpenCL/vendors/ so that every OpenCL program on
the machine sees the patched Mesa (LP_CL=1 must still be set for llvmpipe).
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
   local lib
   lib=$(find "$prefix" -name libMesaOpenCL.so.1 -print -quit)
   [ -n "$lib" ] || die "install did not produce libMesaOpenCL.so.1 under $prefix"
   mkdir -p "$prefix/etc/OpenCL/vendors"
   printf '%s\n' "$lib" >"$prefix/etc/OpenCL/vendors/ck-mesa.icd"
   note "installed; ICD file: $prefix/etc/OpenCL/vendors/ck-mesa.icd"
   if [ $register -eq 1 ]; then
      as_root mkdir -p /etc/OpenCL/vendors
      as_root cp "$prefix/etc/OpenCL/vendors/ck-mesa.icd" /etc/OpenCL/vendors/ck-mesa.icd
      note "registered /etc/OpenCL/vendors/ck-mesa.icd (run programs with LP_CL=1)"
   fi
}

# Sourced by bundle.sh and check.sh: the libraries that the bundle leaves
# to the machine it runs on, glibc's and GCC's runtime (a GPU machine's own,
# newer ones serve binaries built on Debian 12), as an extended regular
# expression over a library's path.
system_libraries='/(libc|libm|libdl|librt|libpthread|libresolv|libgcc_s|libstdc\+\+)\.so'

# tools/ck check-series: every prefix of patches/series builds. Sourced by tools/ck.

CK_SERIES_PATCHES=$CK_PATCHES                       # the series checked
CK_SERIES_RECORD=$CK_SERIES_PATCHES/series.checked  # sha256sum lines of checked patches
CK_SERIES_SRC=$CK_LINE/series/mesa-src               # a worktree of $CK_MESA_SRC
CK_SERIES_BUILD=$CK_LINE/series/mesa

check_series_help() {
   cat <<EOF
usage: tools/ck check-series [--changed | --all | PATCH...]

Mesa requires every commit of a series to build. This applies patches/series
to Mesa $MESA_DEB_VERSION one patch at a time, in a tree of its own
($CK_SERIES_SRC), and builds the prefix that ends at each patch to check
(ccache keeps the builds incremental). It stops at the first prefix that
does not build.

  --changed  (the default) the patches whose text differs from the record
             patches/series.checked: those that changed since a check passed
  --all      every patch
  PATCH...   these patches (file names or their numbers, e.g. 0007)

Each prefix that builds gets its last patch's sha256 written into
patches/series.checked (so an interrupted check keeps what it showed);
commit it with the patches. 'tools/ck test' runs --changed, so a series
whose record is current costs nothing there.

The whole series is also built with -Dcooperative-kernels=disabled (in
$CK_SERIES_BUILD-without-plugin) whenever the series changed since that
last passed: Mesa must then build and be an OpenCL implementation without
cl_ext_cooperative_kernels, on which the fallback header's kernel
(tests/host/fallback_header.cpp --without-extension) computes its result
on rusticl. The record keeps that as a 'without-plugin' line with the sum
of every patch.
EOF
}

# The patches of patches/series, in order, one per line.
series_patches() {
   grep -v -E '^(#|$)' "$CK_SERIES_PATCHES/series"
}

# The record's key for the whole series: the sum of every patch's sum.
series_sum() {
   local p
   series_patches | while read -r p; do sha256_of "$CK_SERIES_PATCHES/$p"; done |
      sha256sum | cut -d' ' -f1
}

# Whether the series as it is was built and checked without the plugin.
series_without_plugin_checked() {
   grep -q -x -F "$(series_sum)  without-plugin" "$CK_SERIES_RECORD" 2>/dev/null
}

# The patches whose sha256 is not in the record.
series_changed_patches() {
   local p sum
   while read -r p; do
      sum=$(sha256_of "$CK_SERIES_PATCHES/$p")
      grep -q -x -F "$sum  $p" "$CK_SERIES_RECORD" 2>/dev/null || printf '%s\n' "$p"
   done < <(series_patches)
}

# Record that the prefix ending at patch P builds: the record keeps, in
# series order, the current sum of P and the entries of the other patches
# still in the series, then the without-plugin line. With P =
# without-plugin, record that the whole series passed without the plugin.
series_record() {
   local checked=$1 p tmp=$CK_SERIES_RECORD.tmp
   : >"$tmp"
   while read -r p; do
      if [ "$p" = "$checked" ]; then
         printf '%s  %s\n' "$(sha256_of "$CK_SERIES_PATCHES/$p")" "$p" >>"$tmp"
      else
         awk -v patch="$p" '$2 == patch' "$CK_SERIES_RECORD" 2>/dev/null >>"$tmp" || true
      fi
   done < <(series_patches)
   if [ "$checked" = without-plugin ]; then
      printf '%s  without-plugin\n' "$(series_sum)" >>"$tmp"
   else
      awk '$2 == "without-plugin"' "$CK_SERIES_RECORD" 2>/dev/null >>"$tmp" || true
   fi
   mv "$tmp" "$CK_SERIES_RECORD"
}

# Build the whole series (applied in $CK_SERIES_SRC) without the plugin and
# run the fallback header's kernel on its rusticl.
series_check_without_plugin() {
   local build=$CK_SERIES_BUILD-without-plugin icd=${CK_SERIES_SRC%/*}/icd-without-plugin
   local start=$(date +%s)
   build_mesa_tree "$CK_SERIES_SRC" "$build" "the series without the plugin" \
      -Dcooperative-kernels=disabled ||
      die "the series does not build with -Dcooperative-kernels=disabled; log: $build.build.log"
   write_icds "$build" "$icd" "$icd/lvp_icd.json"
   with_toolchain ninja -C "$CK_PLUGIN_BUILD" tests/fallback_header >"$build.fallback.log" 2>&1 ||
      { tail -n 30 "$build.fallback.log" >&2; die "building the fallback header's test failed"; }
   step "the fallback header on the series without the plugin"
   (
      eval "$(mesa_env_exports llvmpipe "$icd")"
      LP_NUM_THREADS=4 "$CK_PLUGIN_BUILD/tests/fallback_header" \
         "$CK_ROOT/include/cooperative_kernels.cl.h" --without-extension
   ) >"$build.rusticl.log" 2>&1 ||
      { tail -n 30 "$build.rusticl.log" >&2
        die "Mesa built without the plugin fails the fallback header on rusticl"; }
   grep -q '\[  PASSED  \] 1 test' "$build.rusticl.log" ||
      { tail -n 30 "$build.rusticl.log" >&2
        die "the fallback header did not run on rusticl without the plugin"; }
   note "the series without the plugin builds and has no extension ($(( $(date +%s) - start )) s)"
   series_record without-plugin
}

cmd_check_series() {
   local mode=changed wanted=() arg
   while [ $# -gt 0 ]; do
      case "$1" in
         --changed) mode=changed ;;
         --all) mode=all ;;
         -h|--help) check_series_help; return 0 ;;
         -*) check_series_help >&2; die "unknown option '$1'" ;;
         *) mode=named; wanted+=("$1") ;;
      esac
      shift
   done
   local series_dir=${CK_SERIES_SRC%/*}
   local targets=$series_dir/targets
   mkdir -p "$series_dir"
   case "$mode" in
      all) series_patches >"$targets" ;;
      changed) series_changed_patches >"$targets" ;;
      named)
         : >"$targets"
         for arg in "${wanted[@]}"; do
            series_patches | grep -E "^${arg%.patch}" >>"$targets" ||
               die "no patch in patches/series matches '$arg'"
         done ;;
   esac
   if [ ! -s "$targets" ] && { [ "$mode" = named ] || series_without_plugin_checked; }; then
      note "check-series: every patch matches patches/series.checked; nothing to build"
      return 0
   fi
   # the series' trees find the plugin's uninstalled pkg-config files
   prepare_build
   git -C "$CK_MESA_SRC" worktree prune
   if [ ! -d "$CK_SERIES_SRC" ]; then
      git -C "$CK_MESA_SRC" worktree add -q --detach "$CK_SERIES_SRC" ck-base
   fi
   git -C "$CK_SERIES_SRC" am --abort >/dev/null 2>&1 || true
   git -C "$CK_SERIES_SRC" update-index -q --refresh >/dev/null || true
   git -C "$CK_SERIES_SRC" checkout -q -f --detach ck-base
   git -C "$CK_SERIES_SRC" clean -q -f -d

   local p n=0 total start log=$series_dir/am.log
   total=$(series_patches | wc -l)
   while read -r p; do
      n=$((n + 1))
      git -C "$CK_SERIES_SRC" -c user.name=ck -c user.email=ck@localhost \
         am -q --committer-date-is-author-date "$CK_SERIES_PATCHES/$p" >"$log" 2>&1 ||
         { cat "$log" >&2; die "patch $p does not apply on the patches before it"; }
      grep -q -x -F "$p" "$targets" || continue
      start=$(date +%s)
      build_mesa_tree "$CK_SERIES_SRC" "$CK_SERIES_BUILD" "Mesa $MESA_VERSION with patches 1-$n of $total" ||
         die "the series does not build at $p (patch $n of $total); log: $CK_SERIES_BUILD.build.log"
      note "prefix 1-$n ($p) builds ($(( $(date +%s) - start )) s)"
      series_record "$p"
   done < <(series_patches)
   [ "$mode" = named ] || series_without_plugin_checked || series_check_without_plugin
   CK_STEP=""
   note "check-series: $(wc -l <"$targets") prefixes build; recorded in ${CK_SERIES_RECORD#"$CK_ROOT/"}"
}

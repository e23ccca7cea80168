# tools/ck build / refresh-patches. Sourced by tools/ck.

build_help() {
   cat <<EOF
usage: tools/ck build [--jobs N]

Installs missing Debian packages, fetches the tools Debian 12 lacks from
Debian's archive (tools/toolchain/debian-$MESA_VERSION.lock, checksums
pinned; bindgen built from Debian's crate sources), fetches Mesa
$MESA_DEB_VERSION with 'apt-get source' and checks its checksums, applies
patches/series in order, then builds this project and Mesa (rusticl on
llvmpipe and zink, lavapipe; LLVM 15) under $CK_LINE.
Re-running rebuilds only what changed; Mesa's tree is re-patched only when
the series changed. A failed build removes $CK_BUILD_OK, so 'ck run' refuses
to use a half-built Mesa.
EOF
}

# fetch_source_package DIR DEB_VERSION SUMS PREPARE APT...: Debian's source
# package mesa=DEB_VERSION into DIR, every file checked against the
# associative array named SUMS (file: SHA-256). When a file is missing,
# PREPARE makes the source lists ready, then APT (an apt-get command line)
# downloads the package.
fetch_source_package() {
   local dir=$1 version=$2 prepare=$4 f ok=1
   local -n sums=$3
   shift 4
   mkdir -p "$dir"
   for f in "${!sums[@]}"; do
      [ -f "$dir/$f" ] && [ "$(sha256_of "$dir/$f")" = "${sums[$f]}" ] || ok=0
   done
   [ $ok -eq 1 ] && return 0
   "$prepare"
   step "fetching Debian source package mesa=$version"
   rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
   (cd "$dir.tmp" && "$@" source -q --download-only "mesa=$version" >/dev/null 2>apt-source.log) ||
      die "apt-get source mesa=$version failed: $(tail -n 3 "$dir.tmp/apt-source.log")"
   for f in "${!sums[@]}"; do
      [ -f "$dir.tmp/$f" ] || die "source package has no $f"
      local sum
      sum=$(sha256_of "$dir.tmp/$f")
      [ "$sum" = "${sums[$f]}" ] || die "checksum mismatch for $f: got $sum, expected ${sums[$f]}"
      mv "$dir.tmp/$f" "$dir/$f"
   done
   rm -rf "$dir.tmp"
}

# Unpack the source package with Debian's own patches applied, and commit
# the result as the tag ck-base: the tree our patches are made against.
unpack_mesa() {
   [ -f "$CK_MESA_SRC/.git/ck-base-ok" ] && return 0
   step "unpacking Mesa $MESA_DEB_VERSION"
   local tmp=$CK_MESA_SRC.tmp
   rm -rf "$tmp" "$CK_MESA_SRC"
   dpkg-source -q --no-check -x "$CK_DOWNLOADS/mesa_$MESA_DEB_VERSION.dsc" "$tmp" >/dev/null
   grep -q "^$MESA_VERSION\$" "$tmp/VERSION" ||
      die "unpacked Mesa reports version $(cat "$tmp/VERSION"), expected $MESA_VERSION"
   # a "3.0 (quilt)" source package comes unpacked with its patches applied
   if ! grep -q quilt "$tmp/debian/source/format" 2>/dev/null; then
      local p
      while read -r p; do
         case "$p" in ''|'#'*) continue ;; esac
         patch -d "$tmp" -p1 --batch --forward --quiet <"$tmp/debian/patches/$p" >/dev/null ||
            die "Debian patch $p does not apply"
      done <"$tmp/debian/patches/series"
   fi
   git -C "$tmp" init -q
   git -C "$tmp" add -A
   git -C "$tmp" -c user.name=ck -c user.email=ck@localhost commit -q \
      -m "Mesa $MESA_DEB_VERSION (Debian source package, Debian patches applied)"
   git -C "$tmp" tag ck-base
   touch "$tmp/.git/ck-base-ok"
   mv "$tmp" "$CK_MESA_SRC"
}

series_hash() {
   {
      cat "$CK_PATCHES/series" 2>/dev/null || true
      [ -f "$CK_PATCHES/series" ] || return 0
      local p
      while read -r p; do
         case "$p" in ''|'#'*) continue ;; esac
         [ -f "$CK_PATCHES/$p" ] || die "$CK_PATCHES/series names '$p', which is not there"
         cat "$CK_PATCHES/$p"
      done <"$CK_PATCHES/series"
   } | sha256sum | cut -d' ' -f1
}

# Apply CK_PATCHES/series on top of ck-base in a scratch worktree, then move
# the source tree to the result: git rewrites only the files that differ, so
# ninja rebuilds only what the series change touched.
patch_mesa() {
   local want have=
   want=$(series_hash)
   [ -f "$CK_MESA_SRC/.git/ck-series-hash" ] && have=$(cat "$CK_MESA_SRC/.git/ck-series-hash")
   [ "$want" = "$have" ] && return 0
   step "applying ${CK_PATCHES#"$CK_ROOT/"}/series to Mesa $MESA_VERSION"
   rm -f "$CK_MESA_SRC/.git/ck-series-hash"
   local line_dir
   line_dir=$(dirname "$CK_MESA_SRC")
   local wt=$line_dir/mesa-patching p log=$line_dir/patch.log
   rm -rf "$wt"
   git -C "$CK_MESA_SRC" worktree prune
   git -C "$CK_MESA_SRC" worktree add -q --detach "$wt" ck-base
   [ -f "$CK_PATCHES/series" ] && while read -r p; do
      case "$p" in ''|'#'*) continue ;; esac
      if ! git -C "$wt" -c user.name=ck -c user.email=ck@localhost \
            am -q --committer-date-is-author-date "$CK_PATCHES/$p" >"$log" 2>&1; then
         printf 'ck: error: patch %s does not apply to Mesa %s:\n' "${CK_PATCHES#"$CK_ROOT/"}/$p" "$MESA_DEB_VERSION" >&2
         grep -E '^(error|Patch failed|Applying|CONFLICT)' "$log" | sed 's/^/    /' >&2 || cat "$log" >&2
         git -C "$wt" am --abort >/dev/null 2>&1 || true
         git -C "$CK_MESA_SRC" worktree remove --force "$wt"
         exit 1
      fi
   done <"$CK_PATCHES/series"
   local head
   head=$(git -C "$wt" rev-parse HEAD)
   git -C "$CK_MESA_SRC" worktree remove --force "$wt"
   # Refresh the index first: a file whose timestamp changed but whose content
   # did not is then left alone rather than rewritten by the forced checkout.
   git -C "$CK_MESA_SRC" update-index -q --refresh >/dev/null || true
   git -C "$CK_MESA_SRC" checkout -q -f --detach "$head"
   printf '%s\n' "$want" >"$CK_MESA_SRC/.git/ck-series-hash"
}

# -Dcooperative-kernels=enabled for a Mesa tree SRC whose series has the
# cooperative-kernels option (from the patch that adds it on), nothing
# otherwise: a plugin that Mesa cannot find then fails the configure
# instead of building Mesa without the extension.
cooperative_kernels_enabled() {
   if grep -q "'cooperative-kernels'" "$1/meson_options.txt"; then
      printf '%s\n' -Dcooperative-kernels=enabled
   fi
}

cmd_build() {
   while [ $# -gt 0 ]; do
      case "$1" in
         --jobs) CK_JOBS=$2; shift ;;
         -h|--help) build_help; return 0 ;;
         *) build_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   local start=$SECONDS
   mkdir -p "$CK_LINE"
   rm -f "$CK_BUILD_OK"
   prepare_build
   build_mesa
   write_icds
   git -C "$CK_MESA_SRC" rev-parse HEAD >"$CK_BUILD_OK"
   CK_STEP=""
   note "build ready: $CK_MESA_BUILD ($((SECONDS - start)) s)"
}

patch_help() {
   cat <<EOF
usage: tools/ck patch

Fetches and unpacks Mesa like 'build', then applies patches/series to
$CK_MESA_SRC without building anything.
EOF
}

cmd_patch() {
   case "${1:-}" in -h|--help) patch_help; return 0 ;; esac
   mkdir -p "$CK_LINE"
   rm -f "$CK_BUILD_OK"
   ensure_packages
   fetch_mesa
   unpack_mesa
   patch_mesa
   CK_STEP=""
   note "patches/series applied to $CK_MESA_SRC"
}

refresh_help() {
   cat <<EOF
usage: tools/ck refresh-patches

Rewrites the series (patches/ and patches/series) from the commits on top
of ck-base in the Mesa tree ($CK_MESA_SRC) with git format-patch. Edit Mesa
there, commit, then run this.
EOF
}

cmd_refresh_patches() {
   case "${1:-}" in
      -h|--help) refresh_help; return 0 ;;
      '') ;;
      *) refresh_help >&2; die "unknown option '$1'" ;;
   esac
   [ -d "$CK_MESA_SRC/.git" ] || die "no Mesa tree at $CK_MESA_SRC: run 'tools/ck build' first"
   local n
   n=$(git -C "$CK_MESA_SRC" rev-list --count ck-base..HEAD)
   [ "$n" -gt 0 ] || die "no commits on top of ck-base in $CK_MESA_SRC"
   mkdir -p "$CK_PATCHES"
   rm -f "$CK_PATCHES"/*.patch
   git -C "$CK_MESA_SRC" format-patch -q -N --no-signature --zero-commit -o "$CK_PATCHES" ck-base..HEAD
   (cd "$CK_PATCHES" && ls -1 ./*.patch | sed 's|^\./||' >series)
   printf '%s\n' "$(series_hash)" >"$CK_MESA_SRC/.git/ck-series-hash"
   note "wrote $n patches to ${CK_PATCHES#"$CK_ROOT/"}/"
}

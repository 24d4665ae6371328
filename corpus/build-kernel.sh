#!/bin/bash
# Build the corpus kernel: Debian's linux-source-6.12, tinyconfig + kernel.config,
# patches/*.patch applied. Output: $BUILD/linux/arch/riscv/boot/Image and vmlinux.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-/work/build-riscv}
JOBS=${JOBS:-2}
SRC_TAR=${SRC_TAR:-$(ls /usr/src/linux-source-6.12.tar.* | head -1)}
# KNAME: build tree name under $BUILD; SKIP_PATCHES: space-separated patch-name prefixes
# not to apply (used for the unpatched-kernel demonstration run, see Makefile).
KNAME=${KNAME:-linux}
SKIP_PATCHES=${SKIP_PATCHES:-}
# EXTRA_PATCHES: directories (space-separated, applied in that order) whose
# *.patch are applied after patches/ (the lazy TLB flush kernel: patches-lazy/;
# the Svvptc kernels: patches-sfence/ [patches-presvvptc/]); EXTRA_CONFIG:
# fragments (space-separated, merged in that order) after kernel.config
# (kernel-lazy.config; the Debian guest's: "kernel-lazy.config
# debian/kernel-guest.config"). Both default to nothing (stock kernel).
# CCACHE=1 (the default when ccache is installed) compiles through ccache
# (CCACHE_BASEDIR=$BUILD, CCACHE_NOHASHDIR=1: the kernel trees under $BUILD
# share hits); CCACHE=0 turns it off.
EXTRA_PATCHES=${EXTRA_PATCHES:-}
EXTRA_CONFIG=${EXTRA_CONFIG:-}
FRAG=$HERE/kernel.config
if [ -n "$EXTRA_CONFIG" ]; then
    FRAG=$BUILD/$KNAME.fragment
    mkdir -p "$BUILD"
    # shellcheck disable=SC2086
    cat "$HERE/kernel.config" $EXTRA_CONFIG > "$FRAG.new"
    cmp -s "$FRAG.new" "$FRAG" || mv "$FRAG.new" "$FRAG"
    rm -f "$FRAG.new"
fi
KSRC=$BUILD/$KNAME
KMAKE=(make -C "$KSRC" ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- -j"$JOBS")
if [ "${CCACHE:-$(command -v ccache >/dev/null && echo 1 || echo 0)}" = 1 ]; then
    export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
    KMAKE+=(CC="ccache riscv64-linux-gnu-gcc")
fi
mkdir -p "$BUILD"

if [ ! -f "$KSRC/.tlbscope-patched" ]; then
    rm -rf "$KSRC" "$BUILD/linux-source-6.12"
    echo "== extracting $SRC_TAR"
    tar -C "$BUILD" -xf "$SRC_TAR"
    mv "$BUILD/linux-source-6.12" "$KSRC"
    for p in "$HERE"/patches/*.patch; do
        skip=
        for s in $SKIP_PATCHES; do case $(basename "$p") in "$s"*) skip=1;; esac; done
        if [ -n "$skip" ]; then echo "== NOT applying $(basename "$p")"; continue; fi
        echo "== applying $(basename "$p")"
        patch -d "$KSRC" -p1 < "$p"
    done
    for d in $EXTRA_PATCHES; do
        for p in "$d"/*.patch; do
            echo "== applying $(basename "$p") (from $d)"
            patch -d "$KSRC" -p1 < "$p"
        done
    done
    touch "$KSRC/.tlbscope-patched"
fi

# Configure only when the fragment changed (keeps rebuilds incremental).
if ! cmp -s "$FRAG" "$KSRC/.tlbscope-fragment"; then
    echo "== configuring: tinyconfig + kernel.config"
    "${KMAKE[@]}" tinyconfig >/dev/null
    (cd "$KSRC" && ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- \
        scripts/kconfig/merge_config.sh -m .config "$FRAG" >/dev/null)
    "${KMAKE[@]}" olddefconfig >/dev/null
    # every line of the fragment must have survived
    bad=0
    while IFS= read -r line; do
        case "$line" in ''|\#*) continue;; esac
        opt=${line%%=*}; val=${line#*=}
        if [ "$val" = n ]; then
            grep -q "^$opt=" "$KSRC/.config" && { echo "config: $opt should be off"; bad=1; }
        else
            grep -qx "$line" "$KSRC/.config" || { echo "config: $line missing ($(grep "^$opt=\|$opt is not set" "$KSRC/.config"))"; bad=1; }
        fi
    done < "$FRAG"
    [ $bad = 0 ] || { echo "kernel config does not match $FRAG"; exit 1; }
    cp "$FRAG" "$KSRC/.tlbscope-fragment"
fi

echo "== building Image ($JOBS jobs)"
"${KMAKE[@]}" Image
ls -l "$KSRC/arch/riscv/boot/Image" "$KSRC/vmlinux"

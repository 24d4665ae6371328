#!/bin/bash
# Debian 12 (bookworm) packages needed to regenerate the corpus (run as root).
set -e
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y \
    linux-source-6.12 gcc-riscv64-linux-gnu libc6-dev-riscv64-cross \
    qemu-system-misc opensbi trace-cmd \
    make gcc flex bison bc libssl-dev libelf-dev cpio xz-utils dwarves binutils \
    device-tree-compiler ccache

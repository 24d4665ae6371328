#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mmdebstrap's customize hook for the guest image (mkimage.sh): runs on the host with the
# new root as $1.  Root without a password on the serial console, the 9p share at
# /mnt/share, and the oneshot unit that runs the host's job from it and powers off.
set -e
root=$1
here=$(cd "$(dirname "$0")" && pwd)

echo tlbscope-guest > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\ttlbscope-guest\n' > "$root/etc/hosts"
cat > "$root/etc/fstab" <<'FSTAB'
/dev/vda	/		ext4	rw,relatime,errors=remount-ro	0 1
share		/mnt/share	9p	trans=virtio,version=9p2000.L,msize=512000,nofail	0 0
FSTAB
mkdir -p "$root/mnt/share"
# the 9p transport loaded before local-fs.target mounts the share
printf '9p\n9pnet_virtio\n' > "$root/etc/modules-load.d/9p.conf"
sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"

install -m 755 "$here/guest-job.sh" "$root/usr/local/sbin/tlbscope-job"
install -m 644 "$here/tlbscope-job.service" "$root/etc/systemd/system/tlbscope-job.service"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/tlbscope-job.service \
	"$root/etc/systemd/system/multi-user.target.wants/tlbscope-job.service"

# root logged in on the serial console (the guest is driven by hand or through tmux)
mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
cat > "$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'UNIT'
[Service]
ExecStart=
ExecStart=-/sbin/agetty -o '-p -f -- \\u' --keep-baud --autologin root 115200,57600,38400,9600 - $TERM
UNIT

# what a first boot would do on every boot of the throw-away overlay, done once here: the
# linker cache, the journal catalog, a machine id; /etc and /var marked up to date for
# ConditionNeedsUpdate (ldconfig.service, systemd-journal-catalog-update.service)
chroot "$root" ldconfig
chroot "$root" journalctl --update-catalog 2> /dev/null || true
chroot "$root" systemd-machine-id-setup > /dev/null 2>&1 || true
touch "$root/etc/.updated" "$root/var/.updated"

# nothing periodic in a measurement guest
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
	man-db.timer dpkg-db-backup.timer systemd-tmpfiles-clean.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done

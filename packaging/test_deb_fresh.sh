#!/usr/bin/env bash
# Installs the DumpScope .deb on a fresh, minimal Debian 12 (bookworm) root and runs it there:
# apt resolves the package's Depends exactly as on a new machine (nothing of the build
# machine is visible inside), then the installed programs run on a bundled sample.
#
#   sudo packaging/test_deb_fresh.sh DEB [ROOT] [MIRROR]
#
#   DEB     the package, e.g. build/release/dumpscope_0.1.0_amd64.deb
#           (cmake --preset release && cmake --build build/release && (cd build/release && cpack -G DEB))
#   ROOT    where the bookworm root is made (default /work/tmp/bookworm); an existing root made
#           by an earlier run is reused only if it does not have dumpscope installed yet, so a
#           run always starts from debootstrap's minimal system plus nothing else
#   MIRROR  Debian mirror for debootstrap and apt (default: the first deb.debian.org-style URI
#           in /etc/apt/sources.list*, else http://deb.debian.org/debian)
#
# Needs root (debootstrap, chroot, mounts), the debootstrap package and network access to the
# mirror, so it is not part of ctest/CI. Steps and what is checked:
#   1. debootstrap --variant=minbase bookworm ROOT MIRROR (about 200 MB, ~100 packages)
#   2. the .deb is copied in; `apt-get install -y ./dumpscope_*.deb` inside the chroot must
#      succeed (it installs the Depends; Recommends are left out, as with
#      --no-install-recommends, so the minimal set is what is proved)
#   3. inside the chroot: dumpscope-cli --version (prints the package version),
#      dumpscope-cli info on samples/cann/model_dump (copied in; must exit 0 and name the
#      tensors), dumpscope-cli stats on samples/h5/model_npu.h5 (read through the HDF5 worker in
#      /usr/libexec/dumpscope), dumpscope --version, and dumpscope --screenshot OUT.png on the same sample with
#      QT_QPA_PLATFORM=offscreen (must write a PNG, copied out as ROOT.screenshot.png)
#   4. ldd of the binaries (and of the HDF5 worker) inside the chroot: no "not found" library
#   5. the Recommends are installed too (as apt does by default) and the GUI is shot again in
#      Chinese with a tensor selected on the heatmap tab (ROOT.screenshot_zh.png): without the
#      CJK font Recommends brings, the zh_CN interface is drawn as empty boxes
# Prints the package size, its Depends line, the number of packages installed before and
# after, and the outputs; exits non-zero on the first failure. docs/RELIABILITY.md (Package)
# records a run.
set -euo pipefail

deb=${1:?usage: test_deb_fresh.sh DEB [ROOT] [MIRROR]}
root=${2:-/work/tmp/bookworm}
here=$(cd "$(dirname "$0")" && pwd)
samples=$here/../samples
if [ -n "${3:-}" ]; then
  mirror=$3
else
  mirror=$(grep -hoE '^(URIs:|deb) +https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
             /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
fi
[ "$(id -u)" = 0 ] || { echo "needs root (debootstrap, chroot)"; exit 2; }
[ -s "$deb" ] || { echo "no package at $deb"; exit 2; }
command -v debootstrap >/dev/null || { echo "needs debootstrap (apt-get install -y debootstrap)"; exit 2; }

mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 XDG_RUNTIME_DIR=/tmp/runtime-root "$@"
}

echo "== package"
echo "file: $(basename "$deb"), $(stat -c %s "$deb") bytes, installed size $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "Depends: $(dpkg-deb -f "$deb" Depends)"
echo "Recommends: $(dpkg-deb -f "$deb" Recommends)"

echo "== fresh bookworm root at $root from $mirror"
if [ -x "$root/usr/bin/dpkg" ] && ! chroot "$root" dpkg -s dumpscope >/dev/null 2>&1; then
  echo "reusing the minimal root made by an earlier debootstrap (dumpscope not installed)"
else
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
    || { tail -n 20 "$root.debootstrap.log"; echo "FAIL: debootstrap (is $mirror reachable?)"; exit 1; }
fi
for fs in proc sys dev; do
  mount --bind "/$fs" "$root/$fs"
  mounted=("$root/$fs" "${mounted[@]}")
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
before=$(in_root dpkg-query -f '${Status}\n' -W | grep -c 'install ok installed')
echo "packages installed before: $before"

echo "== apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root apt-get update -q >"$root.apt.log" 2>&1 || { tail -n 20 "$root.apt.log"; echo "FAIL: apt-get update"; exit 1; }
if ! in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "/tmp/$(basename "$deb")" >>"$root.apt.log" 2>&1; then
  tail -n 30 "$root.apt.log"; echo "FAIL: apt-get install"; exit 1
fi
grep -E '^[0-9]+ upgraded, [0-9]+ newly installed' "$root.apt.log" || true
after=$(in_root dpkg-query -f '${Status}\n' -W | grep -c 'install ok installed')
echo "packages installed after: $after ($((after - before)) new, dumpscope included)"

echo "== libraries"
for bin in /usr/bin/dumpscope /usr/bin/dumpscope-cli /usr/libexec/dumpscope/dumpscope-h5worker; do
  if in_root ldd "$bin" | grep 'not found'; then echo "FAIL: $bin misses libraries"; exit 1; fi
done
echo "ldd: every library of dumpscope, dumpscope-cli and dumpscope-h5worker found"

echo "== run"
rm -rf "$root/tmp/samples" && mkdir -p "$root/tmp/samples"
cp -a "$samples/cann/model_dump" "$root/tmp/samples/"
cp -a "$samples/h5/model_npu.h5" "$root/tmp/samples/"
version=$(dpkg-deb -f "$deb" Version)
out=$(in_root dumpscope-cli --version)
echo "dumpscope-cli --version: $out"
grep -q "$version" <<<"$out" || { echo "FAIL: version $version not printed"; exit 1; }
info=$(in_root dumpscope-cli info /tmp/samples/model_dump)
echo "dumpscope-cli info /tmp/samples/model_dump:"
sed 's/^/    /' <<<"$info"
grep -qiE 'tensors' <<<"$info" || { echo "FAIL: info does not list tensors"; exit 1; }
# .h5 files go through /usr/libexec/dumpscope/dumpscope-h5worker.
h5=$(in_root dumpscope-cli stats /tmp/samples/model_npu.h5) || { echo "$h5"; echo "FAIL: stats on a .h5 file"; exit 1; }
grep -q "NpuConvolutionBackward" <<<"$h5" || { echo "$h5"; echo "FAIL: no .h5 statistics"; exit 1; }
echo "dumpscope-cli stats /tmp/samples/model_npu.h5: $(grep -c count <<<"$h5") tensors through the HDF5 worker"
mkdir -p "$root/tmp/runtime-root" && chmod 700 "$root/tmp/runtime-root"
gui=$(in_root env QT_QPA_PLATFORM=offscreen dumpscope --version)
echo "dumpscope --version: $gui"
rm -f "$root/tmp/shot.png"
in_root env QT_QPA_PLATFORM=offscreen \
  dumpscope --screenshot /tmp/shot.png /tmp/samples/model_dump 2>"$root.gui.log" || { cat "$root.gui.log"; echo "FAIL: screenshot run"; exit 1; }
png=$root/tmp/shot.png
[ -s "$png" ] && [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
  || { cat "$root.gui.log"; echo "FAIL: no PNG from the installed GUI"; exit 1; }
cp "$png" "$root.screenshot.png"
echo "screenshot: $root.screenshot.png ($(stat -c %s "$png") bytes)"
if [ -s "$root.gui.log" ]; then echo "GUI stderr:"; sed 's/^/    /' "$root.gui.log"; fi

echo "== with the Recommends (apt's default)"
# apt weighs Recommends only when it installs a package: remove it, then install it again.
if ! in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q dumpscope >>"$root.apt.log" 2>&1 ||
   ! in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --install-recommends \
      "/tmp/$(basename "$deb")" >>"$root.apt.log" 2>&1; then
  tail -n 30 "$root.apt.log"; echo "FAIL: apt-get install with Recommends"; exit 1
fi
withrec=$(in_root dpkg-query -f '${Status}\n' -W | grep -c 'install ok installed')
echo "packages installed with the Recommends: $withrec"
in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' qt6-translations-l10n fonts-noto-cjk \
  fonts-wqy-microhei 2>/dev/null | grep '^ii' | sed 's/^ii */    /' || true
tensor=$(in_root dumpscope-cli list /tmp/samples/model_dump --json | grep -o '"id": *"[^"]*output\.0"' | head -n1 \
         | sed 's/.*"\([^"]*\)"$/\1/')
[ -n "$tensor" ] || { echo "FAIL: no output tensor listed"; exit 1; }
rm -f "$root/tmp/shot_zh.png"
in_root env QT_QPA_PLATFORM=offscreen dumpscope --screenshot /tmp/shot_zh.png --language zh_CN \
  --select "$tensor" --tab heatmap /tmp/samples/model_dump 2>"$root.gui.log" \
  || { cat "$root.gui.log"; echo "FAIL: Chinese screenshot run"; exit 1; }
[ -s "$root/tmp/shot_zh.png" ] || { cat "$root.gui.log"; echo "FAIL: no Chinese screenshot"; exit 1; }
cp "$root/tmp/shot_zh.png" "$root.screenshot_zh.png"
echo "screenshot (zh_CN, $tensor, heatmap): $root.screenshot_zh.png ($(stat -c %s "$root/tmp/shot_zh.png") bytes)"
echo "PASS: the package installs and runs on a fresh Debian 12"

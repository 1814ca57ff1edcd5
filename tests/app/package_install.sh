#!/usr/bin/env bash
# Builds the .deb with CPack, unpacks it into a scratch root (dpkg -x) and runs the installed
# programs from there: dumpscope-cli --version and the GUI's screenshot mode (offscreen).
#   package_install.sh BUILD_DIR SAMPLES_DIR VERSION
set -euo pipefail
build=$1 samples=$2 version=$3
work=$build/package_install
rm -rf "$work"
mkdir -p "$work/root"

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/dumpscope_*.deb)
echo "package: $(basename "$deb") ($(stat -c %s "$deb") bytes)"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libqt6widgets6 libqt6gui6 libqt6core6 libprotobuf libqcustomplot libhdf5 zlib1g; do
  grep -q "$lib" <<<"$depends" || { echo "FAIL: Depends lacks $lib"; exit 1; }
done
[ "$(dpkg-deb -f "$deb" Package)" = dumpscope ] || { echo "FAIL: package name"; exit 1; }
grep -q "fonts-noto-cjk" <<<"$(dpkg-deb -f "$deb" Recommends)" || { echo "FAIL: Recommends lacks a CJK font"; exit 1; }

dpkg -x "$deb" "$work/root"
root=$work/root
for f in usr/bin/dumpscope usr/bin/dumpscope-cli usr/libexec/dumpscope/dumpscope-h5worker usr/share/applications/dumpscope.desktop \
         usr/share/metainfo/io.dumpscope.DumpScope.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/dumpscope.svg usr/share/icons/hicolor/48x48/apps/dumpscope.png \
         usr/share/icons/hicolor/256x256/apps/dumpscope.png usr/share/dumpscope/translations/dumpscope_zh_CN.qm; do
  [ -s "$root/$f" ] || { echo "FAIL: $f missing from the package"; exit 1; }
done

desktop-file-validate "$root/usr/share/applications/dumpscope.desktop"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.dumpscope.DumpScope.metainfo.xml" >"$work/appstream.log" \
  || { cat "$work/appstream.log"; exit 1; }

out=$("$root/usr/bin/dumpscope-cli" --version)
echo "installed dumpscope-cli --version: $out"
grep -q "$version" <<<"$out" || { echo "FAIL: version $version not printed"; exit 1; }

# .h5 files are read by dumpscope-h5worker, which the installed CLI finds in ../libexec/dumpscope.
# Run from a copy outside the build tree (programs inside it may also use the build's worker).
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT
cp -a "$root/usr" "$outside/"
h5=$(env -u DUMPSCOPE_H5WORKER "$outside/usr/bin/dumpscope-cli" stats "$samples/h5/model_npu.h5" 2>&1) \
  || { echo "$h5"; echo "FAIL: the installed CLI could not read a .h5 file"; exit 1; }
grep -q "NpuConvolutionBackward" <<<"$h5" && grep -q "count" <<<"$h5" && ! grep -q "HDF5 reader process" <<<"$h5" \
  || { echo "$h5"; echo "FAIL: no statistics from the installed HDF5 worker"; exit 1; }
echo "installed dumpscope-cli stats on model_npu.h5 through usr/libexec/dumpscope/dumpscope-h5worker: $(grep -c count <<<"$h5") tensors"

export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$work/config HOME=$work/home
"$root/usr/bin/dumpscope" --version | grep -q "$version" || { echo "FAIL: GUI --version"; exit 1; }
png=$work/screenshot.png
"$root/usr/bin/dumpscope" --screenshot "$png" --language zh_CN "$samples/cann/model_dump"
[ -s "$png" ] && [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
  || { echo "FAIL: no PNG from the installed GUI"; exit 1; }
echo "installed GUI screenshot: $(stat -c %s "$png") bytes"

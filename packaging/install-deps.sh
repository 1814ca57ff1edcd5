#!/usr/bin/env bash
# Installs every Debian 12 package DumpScope's build, tests and samples need.
# Idempotent and non-interactive: does nothing when all packages are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  ccache   # the compiler cache every clone shares (CMakeLists.txt: DUMPSCOPE_CCACHE)
  qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  libsqlite3-dev   # SQLite's C API: msprobe graph databases (.vis.db, core/formats/visdb)
  libqt6sql6-sqlite   # Qt SQL's SQLite driver: tst_visdb writes its test databases with it
  libqcustomplot-dev libqcustomplot2.1-qt6 libgl-dev
  libhdf5-dev nlohmann-json3-dev rapidjson-dev libsimdjson-dev libfast-float-dev zlib1g-dev libprotobuf-dev protobuf-compiler libxlsxwriter-dev
  libzip-dev   # the zip part of the .xlsx compare tables DumpScope opens (core/compare/resulttablexlsx.cpp)
  libyaml-cpp-dev   # msprobe's api/cell/layer/data_mapping YAML files and its built-in API table (core/compare)
  # python3-openpyxl: the compare tests open DumpScope's .xlsx with a real reader
  python3 python3-numpy python3-h5py python3-torch python3-openpyxl
  xvfb xauth fonts-noto-cjk
  qt6-translations-l10n   # qtbase_zh_CN.qm: Qt's own dialogs and buttons in Chinese (app/gui/translations.cpp)
  # dumpscope-cli compare under mpirun (DUMPSCOPE_MPI, docs/DISTRIBUTED.md) and its tests
  libopenmpi-dev openmpi-bin
  # the .deb test: dpkg-shlibdeps for Depends, desktop and AppStream metadata validators
  dpkg-dev appstream desktop-file-utils
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"

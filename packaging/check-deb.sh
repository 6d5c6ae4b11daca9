#!/usr/bin/env bash
# Builds the .deb with cargo-deb and checks that it installs the binary, the
# desktop entry and the icon. Prints the package's contents.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-deb >/dev/null 2>&1 || cargo install cargo-deb --locked --quiet
cargo deb --locked --quiet
deb=$(ls -t target/debian/execscope_*.deb | head -n 1)
echo "built $deb"
dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
contents=$(dpkg-deb --contents "$deb")
echo "$contents"
for want in ./usr/bin/execscope ./usr/share/applications/execscope.desktop \
            ./usr/share/icons/hicolor/scalable/apps/execscope.svg \
            ./usr/share/icons/hicolor/128x128/apps/execscope.png; do
    grep -q " $want\$" <<<"$contents" || { echo "missing from the package: $want" >&2; exit 1; }
done
# The packaged binary runs headless.
dir=$(mktemp -d)
dpkg-deb -x "$deb" "$dir"
"$dir/usr/bin/execscope" --version
rm -rf "$dir"
echo "package contents: ok"

#!/usr/bin/env bash
# Builds the .deb with cargo-deb and checks that it installs the binary, the
# desktop entry, the run file's MIME type and the icon. Prints the package's
# contents. Needs desktop-file-validate (desktop-file-utils), update-mime-database
# (shared-mime-info) and gio (libglib2.0-bin); .ci/run installs them.
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
            ./usr/share/mime/packages/execscope.xml \
            ./usr/share/icons/hicolor/scalable/apps/execscope.svg \
            ./usr/share/icons/hicolor/128x128/apps/execscope.png; do
    grep -q " $want\$" <<<"$contents" || { echo "missing from the package: $want" >&2; exit 1; }
done
# The packaged binary runs headless.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
dpkg-deb -x "$deb" "$dir"
"$dir/usr/bin/execscope" --version
fail() { echo "$*" >&2; exit 1; }

# The desktop entry: valid, hands the files over (%F), claims the run file type.
entry="$dir/usr/share/applications/execscope.desktop"
desktop-file-validate "$entry"
type=application/x-execscope-run+json
grep -qx 'Exec=execscope %F' "$entry" || fail "the desktop entry's Exec is not 'execscope %F'"
grep -qx "MimeType=$type;" "$entry" || fail "the desktop entry does not claim $type"

# The MIME type: a database built from the packaged file (and freedesktop.org's
# types) must know a run
# file written by the packaged binary by its content under any name (magic),
# pretty-printed or compact, and by the name execscope suggests (glob); other
# JSON stays application/json.
mkdir -p "$dir/share/mime/packages"
cp "$dir/usr/share/mime/packages/execscope.xml" "$dir/share/mime/packages/"
# With freedesktop.org's own types, so that plain JSON still has its type.
cp /usr/share/mime/packages/freedesktop.org.xml "$dir/share/mime/packages/"
update-mime-database "$dir/share/mime" 2>/dev/null
grep -q "<mime-type type=\"$type\">" "$dir/usr/share/mime/packages/execscope.xml" \
    || fail "execscope.xml does not define $type"
files="$dir/files"
mkdir -p "$files"
"$dir/usr/bin/execscope" run -q --json "$files/run.json" >/dev/null
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
    "$files/run.json" "$files/compact.json"
echo '{}' >"$files/named.execscope.json"
echo '{"format": "something else", "candidates": []}' >"$files/other.json"
content_type() {
    XDG_DATA_DIRS="$dir/share" XDG_DATA_HOME="$dir/share" \
        gio info -a standard::content-type "$1" | sed -n 's/^ *standard::content-type: //p'
}
for f in run.json compact.json named.execscope.json other.json; do
    want=$type
    [ "$f" = other.json ] && want=application/json
    got=$(content_type "$files/$f")
    [ "$got" = "$want" ] || fail "$f is $got, not $want"
    echo "$f: $got"
done
echo "desktop entry and MIME type: ok"
echo "package contents: ok"

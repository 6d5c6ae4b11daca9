"""The harness's side of the golden wire transcripts in tests/data/ (the
Rust side checks that it writes them, src/sandbox/wire/golden.rs): the
candidate's and the judge's payloads split by the harness's own
`_fields_of` give the parts listed in the .txt beside each, and the judge's
notes written by its own `_note_bytes` give the notes .bin. Prints
`golden: N checks passed` or raises."""

import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
space = {"__name__": "golden"}
exec(compile((ROOT / "assets/harness/core.py").read_text(), "core.py", "exec"), space)


def parts(name):
    lines = (ROOT / "tests/data" / (name + ".txt")).read_text().splitlines()
    out = []
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        key, _, value = line.partition(" ")
        out.append((key, json.loads(value)))
    return out


checks = 0
for name in ("wire_golden_candidate", "wire_golden_judge"):
    data = (ROOT / "tests/data" / (name + ".bin")).read_bytes()
    fields = space["_fields_of"](data)
    want = [value for _, value in parts(name)]
    assert fields == want, (name, fields, want)
    checks += 1
notes = b"".join(space["_note_bytes"](kind, text) for kind, text in parts("wire_golden_notes"))
assert notes == (ROOT / "tests/data/wire_golden_notes.bin").read_bytes(), notes
checks += 1
print("golden: %d checks passed" % checks)

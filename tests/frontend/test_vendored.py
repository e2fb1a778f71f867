"""The committed Chart.js builds are exactly what the npm lock file pins.

``frontend/vendor.py`` copies the builds and records them in
``frontend/vendor.json``; these tests re-check that record against the files,
``package.json`` and ``package-lock.json`` using only the standard library,
so they run without Node, network or Django.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FRONTEND = REPO / "frontend"
EXACT_VERSION = re.compile(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?")


def load(name: str) -> Any:
    return json.loads((FRONTEND / name).read_text(encoding="utf-8"))


def vendor_dir() -> Path:
    return REPO / str(load("vendor.json")["vendor_dir"])


def mismatched_files(directory: Path, records: list[dict[str, str]]) -> list[str]:
    """Describe every record whose file in ``directory`` is missing or has another sha256."""
    mismatches = []
    for record in records:
        path = directory / record["destination"]
        if not path.is_file():
            mismatches.append(f"{record['destination']}: missing")
            continue
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        if actual != record["sha256"]:
            mismatches.append(
                f"{record['destination']}: sha256 {actual} but vendor.json records {record['sha256']}"
                f" for {record['package']} {record['version']} {record['source']}"
            )
    return mismatches


def test_it_vendors_files_whose_sha256_matches_vendor_json() -> None:
    records = load("vendor.json")["files"]

    mismatches = mismatched_files(vendor_dir(), records)

    assert records, "vendor.json lists no files"
    assert not mismatches, "\n".join(
        [*mismatches, "run `npm ci` in frontend/, then `python frontend/vendor.py`"]
    )


def test_it_vendors_no_file_that_vendor_json_does_not_list() -> None:
    listed = {record["destination"] for record in load("vendor.json")["files"]}

    on_disk = {path.name for path in vendor_dir().iterdir()}

    assert on_disk == listed, "run `python frontend/vendor.py`, which removes files it did not vendor"


def test_it_records_the_versions_that_package_json_and_the_lock_file_pin() -> None:
    pinned = load("package.json")["dependencies"]
    locked = load("package-lock.json")["packages"]

    for record in load("vendor.json")["files"]:
        name = record["package"]
        assert record["version"] == pinned.get(name), f"{name}: vendor.json and package.json disagree"
        assert record["version"] == locked.get(f"node_modules/{name}", {}).get("version"), (
            f"{name}: vendor.json and package-lock.json disagree; run `npm ci` and `python frontend/vendor.py`"
        )


def test_it_vendors_every_dependency_of_package_json() -> None:
    vendored = {record["package"] for record in load("vendor.json")["files"]}

    assert vendored == set(load("package.json")["dependencies"])


def test_it_pins_exact_versions_in_package_json() -> None:
    package = load("package.json")
    pins = {**package.get("dependencies", {}), **package.get("devDependencies", {})}

    loose = {name: spec for name, spec in pins.items() if not EXACT_VERSION.fullmatch(spec)}

    assert pins
    assert loose == {}, "pin exact versions: no ^, ~, ranges or tags"


def test_it_keeps_the_lock_file_in_step_with_package_json() -> None:
    root = load("package-lock.json")["packages"][""]

    assert root["dependencies"] == load("package.json")["dependencies"], "run `npm install`"


def test_it_notices_a_changed_byte_in_a_copy_of_the_vendored_files(tmp_path: Path) -> None:
    records = load("vendor.json")["files"]
    copy = tmp_path / "vendor"
    shutil.copytree(vendor_dir(), copy)
    target = copy / records[0]["destination"]
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))

    mismatches = mismatched_files(copy, records)

    assert any(mismatch.startswith(f"{records[0]['destination']}: sha256 ") for mismatch in mismatches)

"""Copy the pinned Chart.js builds from ``frontend/node_modules`` into static.

The dashboard loads Chart.js and its plugins as plain ``<script>`` tags, so
``make run`` needs no Node: the UMD builds are committed under
``frontend/vendor/``. This script is the only writer of that
directory and of ``frontend/vendor.json``, which records for every vendored
file the package, its version, the path inside the package and the sha256.
``tests/frontend/test_vendored.py`` checks those records against the files,
``package.json`` and ``package-lock.json`` without Node.

Usage, from the repository root::

    (cd frontend && npm ci)
    python frontend/vendor.py           # copy the builds, rewrite vendor.json
    python frontend/vendor.py --check   # exit 1 if that would change anything

A minified build that ends in ``//# sourceMappingURL=<file>`` is vendored with
its map: Django's manifest storage (whitenoise) rewrites that reference during
``collectstatic`` and fails when the map is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

FRONTEND_DIR = Path(__file__).resolve().parent
REPO_DIR = FRONTEND_DIR.parent
NODE_MODULES = FRONTEND_DIR / "node_modules"
PACKAGE_JSON = FRONTEND_DIR / "package.json"
PACKAGE_LOCK = FRONTEND_DIR / "package-lock.json"
MANIFEST = FRONTEND_DIR / "vendor.json"
VENDOR_DIR = FRONTEND_DIR / "vendor"

# (package, build inside the package), in the order the page must load them:
# the plugins' UMD wrappers look up the globals Chart and Hammer.
BUILDS: tuple[tuple[str, str], ...] = (
    ("chart.js", "dist/chart.umd.min.js"),
    ("hammerjs", "hammer.min.js"),
    ("chartjs-plugin-zoom", "dist/chartjs-plugin-zoom.min.js"),
    ("chartjs-adapter-date-fns", "dist/chartjs-adapter-date-fns.bundle.min.js"),
    ("chartjs-plugin-annotation", "dist/chartjs-plugin-annotation.min.js"),
)

_SOURCE_MAP = re.compile(rb"//# sourceMappingURL=([\w.-]+\.map)\s*\Z")


class VendorError(Exception):
    """The inputs are inconsistent; the message says what to run to fix it."""


@dataclass(frozen=True)
class VendoredFile:
    """One file copied into the vendor directory, as recorded in vendor.json."""

    package: str
    version: str
    source: str
    destination: str
    sha256: str


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VendorError(f"{path} is missing") from None


def sha256_of(path: Path) -> str:
    """Return the hex sha256 of the file at ``path``."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def installed_version(package: str) -> str:
    """Return the version of ``package`` installed in node_modules.

    Raises VendorError unless it is the version package.json pins and
    package-lock.json locks, so a stale node_modules is never vendored.
    """
    pinned = _read_json(PACKAGE_JSON).get("dependencies", {}).get(package)
    locked = _read_json(PACKAGE_LOCK)["packages"].get(f"node_modules/{package}", {}).get("version")
    installed = _read_json(NODE_MODULES / package / "package.json")["version"]
    if pinned is None:
        raise VendorError(f"{package} is vendored but not a dependency in {PACKAGE_JSON}")
    if pinned != locked:
        raise VendorError(
            f"{package}: package.json pins {pinned} but package-lock.json has {locked}; run `npm install`"
        )
    if installed != locked:
        raise VendorError(
            f"{package}: node_modules has {installed} but package-lock.json has {locked}; run `npm ci`"
        )
    return str(installed)


def planned_files() -> list[tuple[Path, VendoredFile]]:
    """Return (file in node_modules, its vendor.json record) for every file to vendor."""
    if not NODE_MODULES.is_dir():
        raise VendorError(f"{NODE_MODULES} is missing; run `npm ci` in {FRONTEND_DIR}")
    planned: list[tuple[Path, VendoredFile]] = []
    for package, build in BUILDS:
        version = installed_version(package)
        sources = [build]
        match = _SOURCE_MAP.search((NODE_MODULES / package / build).read_bytes())
        if match:
            sources.append((Path(build).parent / match.group(1).decode()).as_posix())
        for source in sources:
            path = NODE_MODULES / package / source
            if not path.is_file():
                raise VendorError(f"{package} {version} has no {source}")
            record = VendoredFile(package, version, source, path.name, sha256_of(path))
            planned.append((path, record))
    names = [record.destination for _, record in planned]
    if len(set(names)) != len(names):
        raise VendorError(f"two builds share a destination file name: {names}")
    return planned


def manifest_text(records: list[VendoredFile]) -> str:
    """Render vendor.json: a stable, diff-friendly listing in load order."""
    document = {
        "generated_by": "frontend/vendor.py; do not edit by hand",
        "vendor_dir": VENDOR_DIR.relative_to(REPO_DIR).as_posix(),
        "files": [asdict(record) for record in records],
    }
    return json.dumps(document, indent=2) + "\n"


def problems(planned: list[tuple[Path, VendoredFile]]) -> list[str]:
    """Return how the vendor directory and vendor.json differ from ``planned``."""
    found: list[str] = []
    expected = manifest_text([record for _, record in planned])
    if not MANIFEST.is_file() or MANIFEST.read_text(encoding="utf-8") != expected:
        found.append(f"{MANIFEST.relative_to(REPO_DIR)} is out of date")
    for _, record in planned:
        target = VENDOR_DIR / record.destination
        if not target.is_file():
            found.append(f"{record.destination} is missing from {VENDOR_DIR.relative_to(REPO_DIR)}")
        elif sha256_of(target) != record.sha256:
            found.append(
                f"{record.destination} differs from {record.package} {record.version} {record.source}"
            )
    wanted = {record.destination for _, record in planned}
    if VENDOR_DIR.is_dir():
        found.extend(
            f"{path.name} in {VENDOR_DIR.relative_to(REPO_DIR)} is not a vendored build"
            for path in sorted(VENDOR_DIR.iterdir())
            if path.name not in wanted
        )
    return found


def write(planned: list[tuple[Path, VendoredFile]]) -> None:
    """Copy every planned file, remove strays, and rewrite vendor.json."""
    VENDOR_DIR.mkdir(parents=True, exist_ok=True)
    wanted = {record.destination for _, record in planned}
    for path in VENDOR_DIR.iterdir():
        if path.name not in wanted and path.is_file():
            path.unlink()
    for source, record in planned:
        shutil.copyfile(source, VENDOR_DIR / record.destination)
    MANIFEST.write_text(manifest_text([record for _, record in planned]), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Vendor the builds, or with --check report whether that would change anything."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="verify the vendored files and vendor.json; write nothing"
    )
    args = parser.parse_args(argv)
    try:
        planned = planned_files()
    except VendorError as error:
        print(f"vendor.py: {error}", file=sys.stderr)
        return 1
    if args.check:
        found = problems(planned)
        for problem in found:
            print(f"vendor.py: {problem}", file=sys.stderr)
        if found:
            print("vendor.py: run `python frontend/vendor.py` and commit the result", file=sys.stderr)
            return 1
        print(f"vendor.py: {len(planned)} vendored files match node_modules and vendor.json")
        return 0
    write(planned)
    for _, record in planned:
        size = (VENDOR_DIR / record.destination).stat().st_size
        print(f"{record.destination:45} {record.package} {record.version} ({size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Completes package-lock.json with the other platforms' optional binaries.

The npm registry this project's machines reach holds only the linux-x64 builds of the
platform packages some CLIs pull in (opencode-ai, @teddyzhu/clipboard). `npm install`
then writes a lock without the others, and `npm ci` refuses that lock as out of sync.
This adds each missing optional platform package as an entry with its version and the
os/cpu/libc its name says, so `npm ci` knows it and skips it on this platform.
Run it after `npm install --package-lock-only`; it fails on a name it cannot read.
"""
import json
import re
import sys

PLATFORMS = [
    (r"darwin", "os", "darwin"),
    (r"win32|windows", "os", "win32"),
    (r"linux", "os", "linux"),
]
CPUS = [(r"arm64", "arm64"), (r"x64", "x64")]


def platform_entry(name, version):
    oses = [value for pattern, _, value in PLATFORMS if re.search(pattern, name)]
    cpus = [value for pattern, value in CPUS if re.search(pattern, name)]
    if len(oses) != 1 or len(cpus) != 1:
        sys.exit(f"complete-lock: cannot tell the platform of {name}")
    # The key order npm itself writes, so a later `npm install` leaves the entry as it is.
    entry = {"version": version, "cpu": cpus}
    if "musl" in name:
        entry["libc"] = ["musl"]
    entry["optional"] = True
    entry["os"] = oses
    return entry


def main(path):
    with open(path) as f:
        lock = json.load(f)
    packages = lock["packages"]
    added = []
    for key, package in list(packages.items()):
        for name, version in package.get("optionalDependencies", {}).items():
            if f"node_modules/{name}" not in packages:
                packages[f"node_modules/{name}"] = platform_entry(name, version)
                added.append(f"{name}@{version}")
    lock["packages"] = dict(sorted(packages.items(), key=lambda item: item[0]))
    with open(path, "w") as f:
        json.dump(lock, f, indent=2)
        f.write("\n")
    for name in added:
        print(f"complete-lock: added {name}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "package-lock.json")

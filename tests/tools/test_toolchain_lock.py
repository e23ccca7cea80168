#!/usr/bin/env python3
"""tools/toolchain/debian-25.0.7.lock against what it serves.

Every line names a suite that tools/lib/mesa.sh's private apt lists hold,
a package, a version and a SHA-256; every crate of bindgen's Cargo.lock
(tools/toolchain/bindgen) comes from a librust-*-dev package of the lock at
the crate's own version (cargo builds offline from those sources alone).
"""
import os
import re
import sys
import tomllib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LOCK = os.path.join(ROOT, "tools", "toolchain", "debian-25.0.7.lock")
CARGO_LOCK = os.path.join(ROOT, "tools", "toolchain", "bindgen", "Cargo.lock")
SUITES = {"bookworm", "bookworm-backports", "bookworm-security", "trixie"}


def main():
    errors, packages = [], {}
    with open(LOCK) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 4 or fields[0] not in SUITES or not re.fullmatch(r"[0-9a-f]{64}", fields[3]):
                errors.append(f"{LOCK}:{n}: expected 'SUITE PACKAGE VERSION SHA256', got {line.strip()!r}")
                continue
            if fields[1] in packages:
                errors.append(f"{LOCK}:{n}: {fields[1]} twice")
            packages[fields[1]] = fields[2]
    for need in ("meson", "rustc-web", "cargo-web", "libclc-15", "libllvmspirvlib-15-dev"):
        if need not in packages:
            errors.append(f"the lock has no {need}")
    with open(CARGO_LOCK, "rb") as f:
        crates = tomllib.load(f)["package"]
    for crate in crates:
        if "source" not in crate:
            continue  # the front end itself
        name = crate["name"].replace("_", "-")
        candidates = [p for p in packages if re.fullmatch(rf"librust-{re.escape(name)}(-[0-9.]+)?-dev", p)]
        upstream = [packages[p].split("-")[0].split(":")[-1] for p in candidates]
        if crate["version"] not in upstream:
            errors.append(f"crate {crate['name']} {crate['version']}: no librust package of that "
                          f"version in the lock ({', '.join(candidates) or 'none'})")
    for e in errors:
        print(e)
    print(f"test_toolchain_lock: {len(packages)} packages, {len(crates) - 1} crates: "
          + ("FAIL" if errors else "PASS"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

"""Prints a Markdown table of the functions' bootstrap sizes (binary and zipped, as Lambda
stores it) and exits 1 if any binary is larger than the limit. Used by `make sizes`.

usage: python3 infra/sizes.py [--no-zip] LIMIT_BYTES ARCH bin/<function>/bootstrap...

--no-zip skips the zipped sizes (deflating every binary costs ~0.6 s of CPU each); make test
uses it for the limit check.
"""

import io
import os
import sys
import zipfile

MIB = 1 << 20


def zipped(path: str) -> int:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(path, "bootstrap")
    return len(buf.getvalue())


def main() -> int:
    args = sys.argv[1:]
    with_zip = args[:1] != ["--no-zip"]
    if not with_zip:
        args = args[1:]
    limit, arch, paths = int(args[0]), args[1], args[2:]
    rows, over = [], []
    for p in sorted(paths):
        name = os.path.basename(os.path.dirname(p))
        size = os.path.getsize(p)
        rows.append((name, size, zipped(p) if with_zip else None))
        if size > limit:
            over.append(f"{p} is {size} bytes (limit {limit})")
    if with_zip:
        print(f"| Function | bootstrap ({arch}) | zipped |")
        print("|---|---:|---:|")
    else:
        print(f"| Function | bootstrap ({arch}) |")
        print("|---|---:|")
    for name, size, z in rows:
        zcol = f" {z / MIB:.2f} MiB |" if z is not None else ""
        print(f"| {name} | {size / MIB:.2f} MiB ({size} bytes) |{zcol}")
    if rows:
        sizes = [r[1] for r in rows]
        print(f"\n{len(rows)} functions; largest {max(sizes) / MIB:.2f} MiB ({max(sizes)} bytes), "
              f"smallest {min(sizes) / MIB:.2f} MiB.")
    for line in over:
        print(line, file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

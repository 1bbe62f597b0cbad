"""Runs moto's server (what the moto_server script runs) after the series of patches in
patches/, one module each, applied in the order of SERIES.

Each patch module states in its docstring the moto behaviour it changes, the test in
infra/devstack/emulator that proves it, and its kind: a correctness patch makes moto answer
as AWS does where the local stack needs it (always applied); a cost patch changes what moto
walks, copies and keeps, never what it answers (TestPatchedMotoAnswersAsPlainMoto). What
several patches extend (one wrapper per moto method, the state kept per table) is in
patches/shared.py.

SUBSIGHT_MOTO_PATCHES selects the cost patches (docs/local-stack.md):
  all (or empty)       every patch: the default
  correctness          the correctness patches alone
  name,name            the correctness patches and these
  -name,-name          every patch but these

The patches reach into moto's internals, so the server refuses to start with any moto but
the one they were written for.
"""
import importlib
import importlib.metadata
import os
import sys

MOTO_VERSION = "5.2.5"  # as pinned in infra/requirements.txt

ENV = "SUBSIGHT_MOTO_PATCHES"

# The series in the order it is applied. Each serial patch locks every method its backend
# has when it is applied, so it comes after the other patches of its service.
SERIES = [
    "weak-instances",
    "gc-frozen-data",
    "dynamodb-transaction-items",
    "dynamodb-query-partition",
    "dynamodb-index-partitions",
    "dynamodb-sorted-partitions",
    "dynamodb-scan-pages",
    "dynamodb-answers",
    "dynamodb-serial",
    "sqs-queue-depth",
    "sqs-receive-waits",
    "sqs-serial",
]


def check_moto():
    installed = importlib.metadata.version("moto")
    if installed != MOTO_VERSION:
        sys.exit(f"motoserver.py: its patches are written for moto {MOTO_VERSION}, but moto {installed} "
                 "is installed: check each patch against the new version (docs/local-stack.md) before moving the pin")


def module(name):
    return importlib.import_module("patches." + name.replace("-", "_"))


def select(spec):
    """The names of the patches spec selects, in series order; exits on an unknown name."""
    spec = (spec or "all").strip()
    kinds = {name: module(name).KIND for name in SERIES}
    correctness = {name for name, kind in kinds.items() if kind == "correctness"}
    if spec == "all":
        chosen = set(SERIES)
    elif spec == "correctness":
        chosen = correctness
    else:
        words = [w.strip() for w in spec.split(",") if w.strip()]
        excluded = [w[1:] for w in words if w.startswith("-")]
        included = [w for w in words if not w.startswith("-")]
        if excluded and included:
            sys.exit(f"{ENV}={spec}: either names to apply or -names to leave out, not both")
        unknown = [w for w in excluded + included if w not in kinds]
        if unknown:
            sys.exit(f"{ENV}={spec}: no patch {', '.join(unknown)}; the series: {', '.join(SERIES)}")
        if any(kinds[w] == "correctness" for w in excluded):
            sys.exit(f"{ENV}={spec}: the correctness patches ({', '.join(sorted(correctness))}) are always applied")
        chosen = set(SERIES) - set(excluded) if excluded else set(included)
        chosen |= correctness
    return [name for name in SERIES if name in chosen]


def apply(names):
    for name in names:
        module(name).apply()


if __name__ == "__main__":
    check_moto()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    chosen = select(os.environ.get(ENV))
    apply(chosen)
    print(f"motoserver.py: patches {', '.join(chosen)}", file=sys.stderr, flush=True)
    from moto.server import main

    main(sys.argv[1:])

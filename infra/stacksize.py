"""Counts the resources of the deployed stack: the template expanded by SAM's own
translator (aws-sam-translator, in .venv), offline, as `sam deploy` hands it to
CloudFormation. Prints them by type and how many more operations fit, and exits 1 above
the limit. Used by `make lint`.

usage: .venv/bin/python infra/stacksize.py LIMIT template.yaml

CloudFormation allows 500 resources in one stack; the limit leaves room below it. An
operation whose grants another function already has adds one resource (its function);
one with new grants two (its function and their role).
"""

import collections
import os
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

CLOUDFORMATION_LIMIT = 500


class NoManagedPolicies:
    """The template names managed policies by ARN only, so the translator has nothing to
    look up in IAM."""

    def load(self):
        return {}


def main() -> int:
    limit, path = int(sys.argv[1]), sys.argv[2]
    with open(path) as f:
        template = yaml_parse(f.read())
    # As `sam package` leaves it: the code is an S3 object (the count does not depend on it).
    for res in template["Resources"].values():
        if res["Type"] == "AWS::Serverless::Function":
            res.setdefault("Properties", {})["CodeUri"] = "s3://bucket/function.zip"
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    resources = transform(template, {}, NoManagedPolicies())["Resources"]
    count = len(resources)
    by_type = collections.Counter(r["Type"] for r in resources.values())
    print(f"{path}: {count} resources once expanded by SAM (limit {limit}, CloudFormation's {CLOUDFORMATION_LIMIT})")
    for kind, n in by_type.most_common():
        print(f"  {n:4d} {kind}")
    room = limit - count
    if room < 0:
        print(f"{count - limit} resources over the limit of {limit}", file=sys.stderr)
        return 1
    print(f"room for {room} more operations with existing grants ({room // 2} with new grants each) "
          f"below {limit}; {CLOUDFORMATION_LIMIT - count} below CloudFormation's limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())

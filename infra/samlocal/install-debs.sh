#!/usr/bin/env bash
# Installs Debian packages for make test (the SAM smoke's docker.io, the dashboard test's
# chromium) without starting their services:
# docker.io's installation would otherwise start the system's dockerd, with a bridge and
# packet-filter rules. A policy-rc.d that refuses every start does that; one is put in place
# only for the installation if the machine has none.
set -euo pipefail
guard=/usr/sbin/policy-rc.d
created=
if [[ ! -e $guard ]]; then
  printf '#!/bin/sh\nexit 101\n' >"$guard"
  chmod 755 "$guard"
  created=1
fi
trap '[[ -z $created ]] || rm -f "$guard"' EXIT
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -q --no-install-recommends "$@"; }
install "$@" || { apt-get update -q && install "$@"; }

#!/usr/bin/env bash
# Installs Debian's chromium, which the timeline's browser tests
# (timeline/browsertest) drive headless. Run as root; does nothing when a
# chromium is already on $PATH.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	echo "chromium: $(command -v chromium)"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-chromium.sh: run as root (apt-get installs chromium)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y chromium
command -v chromium

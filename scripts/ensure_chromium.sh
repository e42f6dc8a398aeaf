#!/bin/sh
# Make sure Debian's headless Chromium is present for the browser tests.
# Idempotent: does nothing when /usr/bin/chromium already exists. Playwright's own
# browser download does not work offline, so the tests drive this binary instead.
set -eu

if [ -x /usr/bin/chromium ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_chromium: /usr/bin/chromium is missing and apt-get is not available;" \
         "install Chromium so that /usr/bin/chromium exists" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

echo "ensure_chromium: installing Debian's chromium and chromium-driver" >&2
$SUDO apt-get update -qq
# No recommends (they pull in mesa, udev, printing...); fonts-liberation is the one
# recommend that matters headless: without a font, page text renders as boxes.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    chromium chromium-driver fonts-liberation >/dev/null
test -x /usr/bin/chromium
echo "ensure_chromium: $(/usr/bin/chromium --version 2>/dev/null || echo chromium installed)" >&2

#!/bin/sh
# Make sure Tesseract (OCR) and its English data are present for the OCR tests and
# for images and scanned PDFs. Idempotent: does nothing when `tesseract` is on PATH.
set -eu

if command -v tesseract >/dev/null 2>&1; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_tesseract: tesseract is missing and apt-get is not available;" \
         "install Tesseract 5 (e.g. brew install tesseract)" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

echo "ensure_tesseract: installing Debian's tesseract-ocr" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    tesseract-ocr tesseract-ocr-eng >/dev/null
command -v tesseract >/dev/null
echo "ensure_tesseract: $(tesseract --version 2>&1 | head -n 1)" >&2

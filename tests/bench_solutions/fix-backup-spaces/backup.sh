#!/usr/bin/env bash
# Archive a folder into backups/NAME-YYYYMMDD.tar.gz
# Usage: ./backup.sh FOLDER
set -euo pipefail

src=$1
name=$(basename "$src")
archive="backups/$name-$(date +%Y%m%d).tar.gz"

mkdir -p backups
tar -czf "$archive" -C "$(dirname "$src")" "$name"
echo "saved $archive"

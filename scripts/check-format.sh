#!/usr/bin/env bash
# Fails if any C++ file differs from the checked-in .clang-format style.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.h' 2>/dev/null || find src tests bench fuzz tools -name '*.cpp' -o -name '*.h')
clang-format --dry-run -Werror $files
echo "format: ok"

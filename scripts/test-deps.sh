#!/usr/bin/env bash
# Installs what `npm test` needs beyond node_modules: Debian's chromium, which the dashboard's
# browser test (test/admin-browser.test.ts) drives through playwright-core (playwright cannot
# download its own browsers on these machines). Run by `npm test` (pretest), `npm run setup` and
# .ci/run. Present already: prints nothing and exits at once.
#
#   scripts/test-deps.sh [--dry-run] [--chromium PATH]
#     --dry-run         print the commands it would run, run none
#     --chromium PATH   where the browser must be (default /usr/bin/chromium, the test's path)
#
# It cannot install (no apt-get, not root and no password-less sudo, apt failing): it says so and
# exits 0, so the rest of the suite still runs and the browser test fails with its own message.
set -uo pipefail

chromium=/usr/bin/chromium
dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1 ;;
    --chromium) chromium="${2:?--chromium needs a path}"; shift ;;
    *) echo "test-deps: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

[ -x "$chromium" ] && exit 0

cannot() {
  echo "test-deps: $1; test/admin-browser.test.ts will fail until Debian's chromium is at $chromium (apt-get install -y chromium)." >&2
  exit 0
}

command -v apt-get >/dev/null 2>&1 || cannot "no apt-get on this machine"
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  cannot "not root and no password-less sudo"
fi

run() {
  echo "test-deps: ${as_root[*]:+${as_root[*]} }$*"
  [ "$dry" = 1 ] || "${as_root[@]}" "$@" >/dev/null
}

echo "test-deps: installing Debian's chromium (for test/admin-browser.test.ts)"
# apt's progress output is dropped; its errors still reach stderr. The package lists of a fresh machine may be
# missing or stale, so update them once if the first attempt cannot find the package.
export DEBIAN_FRONTEND=noninteractive
run apt-get install -y -qq chromium ||
  { run apt-get update -qq && run apt-get install -y -qq chromium; } ||
  cannot "apt-get could not install chromium"
[ "$dry" = 1 ] && exit 0
[ -x "$chromium" ] || cannot "apt-get installed chromium but there is nothing at $chromium"
echo "test-deps: installed $("$chromium" --version 2>/dev/null || echo chromium)"

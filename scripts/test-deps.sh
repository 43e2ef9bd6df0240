#!/usr/bin/env bash
# Installs what `npm test` needs beyond node_modules, as Debian packages, when missing:
#   chromium      the dashboard's browser test drives it through playwright-core (playwright
#                 cannot download its own browsers on these machines)
#   git           the git-wiki source tests make real repositories
#   redis-server, redis-tools
#                 the Redis fault test starts and stops its own redis-server
#   caddy         the TLS proxy test runs the shipped Caddyfile (test/security/deploy-proxy.test.ts)
#   apertium, apertium-en-es
#                 offline translation of questions (src/translate/), used by the cross-lingual tests
# Run by `npm test` (pretest), `npm run setup` and .ci/run. All present: prints nothing and
# exits at once. It also warns when nothing answers on 127.0.0.1:6379, the Redis the tests use.
#
#   scripts/test-deps.sh [--dry-run] [--chromium PATH]
#     --dry-run         print the commands it would run, run none
#     --chromium PATH   where the browser must be (default /usr/bin/chromium, the test's path)
#
# It cannot install (no apt-get, not root and no password-less sudo, apt failing): it says so and
# exits 0, so the rest of the suite still runs and the tests that need the package fail with
# their own message.
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

redis_check() {
  command -v redis-cli >/dev/null 2>&1 || return 0
  [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = PONG ] ||
    echo "test-deps: nothing answers on 127.0.0.1:6379; the tests need Redis there (redis-server --daemonize yes)." >&2
}

missing=()
[ -x "$chromium" ] || missing+=(chromium)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
if command -v apertium >/dev/null 2>&1; then
  modes=$(apertium -l 2>/dev/null)
  [[ $modes == *spa-eng* && $modes == *eng-spa* ]] || missing+=(apertium-en-es)
else
  missing+=(apertium apertium-en-es)
fi
if [ ${#missing[@]} = 0 ]; then
  redis_check
  exit 0
fi

cannot() {
  echo "test-deps: $1; the tests that need ${missing[*]} will fail until apt-get install -y ${missing[*]} is run." >&2
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

echo "test-deps: installing Debian packages the tests need: ${missing[*]}"
# apt's progress output is dropped; its errors reach stderr, except the first attempt's: the
# package lists of a fresh machine may be missing or stale, so a failed first attempt is followed
# by an update and a second one, whose errors are the ones that count.
export DEBIAN_FRONTEND=noninteractive
run apt-get install -y -qq "${missing[@]}" 2>/dev/null ||
  { run apt-get update -qq && run apt-get install -y -qq "${missing[@]}"; } ||
  cannot "apt-get could not install them"
[ "$dry" = 1 ] && exit 0
version=
if [[ " ${missing[*]} " == *" chromium "* ]]; then
  [ -x "$chromium" ] || cannot "apt-get installed chromium but there is nothing at $chromium"
  version=" ($("$chromium" --version 2>/dev/null))"
fi
echo "test-deps: installed ${missing[*]}$version"
redis_check

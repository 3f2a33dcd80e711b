#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian package of BUILD_DIR with cpack and checks it in a scratch root:
# the package's dependencies are satisfiable (apt-get --simulate), and what it unpacks
# works from its installed paths: `bloomkit --version`, `man bloomkit`, the bash and
# zsh completions, the pkg-config file, and `redis-server --loadmodule
# /usr/lib/bloomkit/bloomkit.so` answering BF.* commands on a free loopback port.
#
#   check_deb.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=${1:?usage: check_deb.sh BUILD_DIR WORK_DIR}
work=${2:?usage: check_deb.sh BUILD_DIR WORK_DIR}
fail() { echo "check_deb: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

# 1. The package.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" >cpack.log 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
debs=("$work"/bloomkit_*.deb)
[ -f "${debs[0]}" ] || fail "cpack wrote no bloomkit_*.deb"
deb=${debs[0]}
[ "$(dpkg-deb -f "$deb" Package)" = bloomkit ] || fail "package name is not bloomkit"
depends=$(dpkg-deb -f "$deb" Depends)
case $depends in *libc6*) ;; *) fail "Depends lacks libc6 (dpkg-shlibdeps did not run?): $depends" ;; esac
# Installable here: every dependency is known to apt (installed or available).
if ! apt-get --simulate --quiet install "$deb" >"$work/apt.log" 2>&1; then
  cat "$work/apt.log" >&2
  fail "apt-get --simulate install $deb failed"
fi
grep -q '^Inst bloomkit ' "$work/apt.log" || { cat "$work/apt.log" >&2; fail "apt-get would not install bloomkit"; }

# 2. Its files, unpacked into a scratch root.
root="$work/root"
dpkg-deb -x "$deb" "$root"
for path in usr/bin/bloomkit usr/lib/bloomkit/bloomkit.so usr/share/man/man1/bloomkit.1 \
            usr/share/bash-completion/completions/bloomkit usr/share/zsh/vendor-completions/_bloomkit \
            usr/include/bloomkit/bloomkit.h usr/lib/libbloomkit.a usr/lib/pkgconfig/bloomkit.pc \
            usr/lib/cmake/bloomkit/bloomkitConfig.cmake usr/share/doc/bloomkit/LICENSE \
            usr/share/doc/bloomkit/README.md usr/share/doc/bloomkit/docs/CLI.md; do
  [ -e "$root/$path" ] || fail "the package lacks /$path"
done

# 3. The CLI runs from there and does its job.
version=$("$root/usr/bin/bloomkit" --version)
[ "$version" = "bloomkit $(dpkg-deb -f "$deb" Version)" ] || fail "bloomkit --version printed '$version'"
"$root/usr/bin/bloomkit" create "$work/seen.bf" --capacity 1000 --fp-rate 0.01 >/dev/null
printf 'a\nb\n' | "$root/usr/bin/bloomkit" add "$work/seen.bf" --no-progress >/dev/null
[ "$(echo a | "$root/usr/bin/bloomkit" query "$work/seen.bf" --no-progress)" = "$(printf 'a\tmaybe')" ] ||
  fail "the installed bloomkit does not find an added key"

# 4. man bloomkit finds and renders the page.
page=$(MANPATH="$root/usr/share/man" man -w bloomkit)
[ "$page" = "$root/usr/share/man/man1/bloomkit.1" ] || fail "man -w bloomkit found '$page'"
MANPATH="$root/usr/share/man" MANPAGER=cat MANWIDTH=100 man bloomkit 2>"$work/man.err" >"$work/man.txt"
grep -q 'bloomkit - size, build, query and inspect Bloom filters' "$work/man.txt" || fail "man bloomkit: no NAME line"
grep -q 'bloomkit query \[OPTIONS\] FILE' "$work/man.txt" || fail "man bloomkit: no query command"
[ ! -s "$work/man.err" ] || { cat "$work/man.err" >&2; fail "man bloomkit printed warnings"; }

# 5. Completions: bash completes commands and options; zsh parses the file.
completed=$(bash -c '
  source "$1"
  COMP_WORDS=(bloomkit qu); COMP_CWORD=1; _bloomkit; echo "${COMPREPLY[*]}"
  COMP_WORDS=(bloomkit add seen.bf --no-p); COMP_CWORD=3; _bloomkit; echo "${COMPREPLY[*]}"
  COMP_WORDS=(bloomkit experiment f); COMP_CWORD=2; _bloomkit; echo "${COMPREPLY[*]}"' \
  _ "$root/usr/share/bash-completion/completions/bloomkit")
[ "$completed" = "$(printf 'query\n--no-progress\nfpr')" ] || fail "bash completion gave: $completed"
if command -v zsh >/dev/null; then
  zsh -n "$root/usr/share/zsh/vendor-completions/_bloomkit" || fail "zsh cannot parse _bloomkit"
  head -1 "$root/usr/share/zsh/vendor-completions/_bloomkit" | grep -q '^#compdef bloomkit$' ||
    fail "_bloomkit does not start with #compdef bloomkit"
else
  fail "zsh is not installed (scripts/install-deps installs it)"
fi

# 6. pkg-config from the package's own directory.
pc_version=$(PKG_CONFIG_PATH="$root/usr/lib/pkgconfig" pkg-config --modversion bloomkit)
[ "$pc_version" = "$(dpkg-deb -f "$deb" Version)" ] || fail "pkg-config --modversion bloomkit: $pc_version"
grep -q '^License: Apache-2.0$' "$root/usr/lib/pkgconfig/bloomkit.pc" || fail "bloomkit.pc has no License field"

# 7. A real redis-server loads the installed module.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/redis"
redis-server --bind 127.0.0.1 --port "$port" --dir "$work/redis" --save "" --appendonly no \
  --logfile "$work/redis/redis.log" --loadmodule "$root/usr/lib/bloomkit/bloomkit.so" &
server_pid=$!
for _ in $(seq 100); do
  redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/redis/redis.log" >&2; fail "redis-server did not start with the module"; }
  sleep 0.1
done
[ "$(redis-cli -p "$port" BF.ADD k user:1)" = 1 ] || { cat "$work/redis/redis.log" >&2; fail "BF.ADD failed"; }
[ "$(redis-cli -p "$port" BF.EXISTS k user:1)" = 1 ] || fail "BF.EXISTS of an added key is not 1"
[ "$(redis-cli -p "$port" BF.EXISTS k user:2)" = 0 ] || fail "BF.EXISTS of another key is not 0"
redis-cli -p "$port" MODULE LIST | grep -qx bloomkit || fail "MODULE LIST does not name bloomkit"
echo "check_deb: $(basename "$deb") ok (Depends: $depends)"

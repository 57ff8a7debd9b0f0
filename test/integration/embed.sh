#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The embedding API as a user gets it: `cmake --install` to a temporary prefix,
# examples/embed configured and built against that prefix only (its
# find_package(streamt), and again with pkg-config), then run against the
# fixture's broker:
#   1. a120 b20 c35 d90 e110 f5, plan amount >= 50, --stop-after 6: the example
#      stops itself with a graceful (total) cancellation once 6 records were
#      consumed → exit 0; output a120 d90 e110; committed offset 6; its own
#      timer ticked while the engine ran
#   2. restarted without a bound (same plan), g130 h60 i99 added, SIGTERM →
#      exit 0; g130 h60 i99 added; committed offset 9
# Needs STREAMT_BUILD_DIR (a built tree; set by ctest).
source "$(dirname "$0")/lib.sh"
: "${STREAMT_BUILD_DIR:?set by ctest}"

prefix="$work/prefix"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$STREAMT_BUILD_DIR/CMakeCache.txt")
echo "== install to $prefix"
cmake --install "$STREAMT_BUILD_DIR" --prefix "$prefix" >"$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/streamt include/streamt/engine.hpp include/streamt/engine/kafka_runtime.hpp \
  "$libdir/libstreamt_engine.a" "$libdir/cmake/streamt/streamt-config.cmake" \
  "$libdir/cmake/streamt/streamt-targets.cmake" "$libdir/pkgconfig/streamt.pc"; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
check_eq "the installed tree holds the binary, headers, libraries, CMake package and pkg-config file" ok ok
installed_version=$("$prefix/bin/streamt" --version)
check_eq "the installed streamt runs" "streamt 0.1.0 (plan versions 1 to 2)" "$installed_version"

echo "== build examples/embed against the prefix (find_package)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# CMAKE_FIND_USE_PACKAGE_REGISTRY off and the prefix as the only hint: the
# example must find the installed package, never the build tree.
cmake -S "$root/examples/embed" -B "$work/embed-build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/embed-configure.log" 2>&1 ||
  { cat "$work/embed-configure.log"; fail "configuring examples/embed"; }
found=$(sed -n 's/^streamt_DIR:PATH=//p' "$work/embed-build/CMakeCache.txt")
check_eq "find_package(streamt) found the installed package" "$prefix/$libdir/cmake/streamt" "$found"
cmake --build "$work/embed-build" -j1 >"$work/embed-build.log" 2>&1 ||
  { cat "$work/embed-build.log"; fail "building examples/embed"; }
embed="$work/embed-build/embed"

echo "== build examples/embed with pkg-config"
pc_flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs streamt) ||
  fail "pkg-config streamt"
# shellcheck disable=SC2086
c++ -std=c++20 -Wno-mismatched-new-delete -o "$work/embed-pc" "$root/examples/embed/main.cpp" $pc_flags \
  >"$work/embed-pc.log" 2>&1 || { cat "$work/embed-pc.log"; fail "building with pkg-config"; }
check_eq "the example builds and links with pkg-config's flags" ok ok

src=$(unique embed-in) sink=$(unique embed-out) app=$(unique embed)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/schema.json"
STREAMT_BINARY="$prefix/bin/streamt" compile "$work/schema.json" "$app" "$sink" \
  "SELECT id, amount FROM orders WHERE amount >= 50" "$work/plan.json"
state="$work/state"

# run_embed NAME [ARGS...]: the example in the background, as start_engine runs streamt.
run_embed() {
  local name=$1
  shift
  "$embed" "$work/plan.json" --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$state" "$@" \
    >"$work/$name.log" 2>&1 &
  engine_pid[$name]=$!
  engine_pids+=("$!")
}

echo "== phase 1: stops itself after 6 records"
printf '%s\t%s\n' a '{"id":"a","amount":120}' b '{"id":"b","amount":20}' c '{"id":"c","amount":35}' \
  d '{"id":"d","amount":90}' e '{"id":"e","amount":110}' f '{"id":"f","amount":5}' | produce "$src"
run_embed phase1 --stop-after 6 --tick-ms 50
wait_engine phase1 120
[[ $engine_rc == 0 ]] || show_log phase1
check_eq "phase 1 exits 0 after its graceful stop" 0 "$engine_rc"
grep -q "6 records consumed; stopping gracefully" "$work/phase1.log" ||
  { show_log phase1; fail "phase 1 did not stop on its record bound"; }
out1=$(values_committed "$sink" | paste -sd' ')
check_eq "phase 1 output" '{"id":"a","amount":120} {"id":"d","amount":90} {"id":"e","amount":110}' "$out1"
off1=$(committed_offset "$app" "$src" 0)
check_eq "phase 1 committed offset" 6 "$off1"
ticks=$(sed -n 's/^embed: the timer ticked \([0-9]*\) times while the engine ran$/\1/p' "$work/phase1.log")
[[ -n $ticks && $ticks -gt 0 ]] || { show_log phase1; fail "the application's timer did not tick beside the engine"; }
check_eq "the application's own timer ticked while the engine ran" yes yes

echo "== phase 2: SIGTERM"
run_embed phase2 --stop-timeout-ms 10000
printf '%s\t%s\n' g '{"id":"g","amount":130}' h '{"id":"h","amount":60}' i '{"id":"i","amount":99}' | produce "$src"
wait_for_committed "$app" "$src" 0 9 || { show_log phase2; fail "phase 2 offsets"; }
stop_engine phase2
[[ $engine_rc == 0 ]] || show_log phase2
check_eq "phase 2 exits 0 on SIGTERM" 0 "$engine_rc"
grep -q "signal 1; stopping gracefully" "$work/phase2.log" || { show_log phase2; fail "phase 2 saw no signal"; }
out2=$(values_committed "$sink" | paste -sd' ')
check_eq "phase 2 output adds g130 h60 i99, after phase 1's and once" \
  '{"id":"a","amount":120} {"id":"d","amount":90} {"id":"e","amount":110} {"id":"g","amount":130} {"id":"h","amount":60} {"id":"i","amount":99}' \
  "$out2"
off2=$(committed_offset "$app" "$src" 0)
check_eq "phase 2 committed offset" 9 "$off2"

echo "$checks_passed passed, 0 failed"

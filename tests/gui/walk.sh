#!/usr/bin/env bash
# The GUI walk: the README's first journeys done as a user does them — a real X server (Xvfb), the
# real window, real mouse and key events (xdotool), screenshots of the whole screen (ImageMagick's
# import) — at 1600×1000 and at 1280×800. After each step the app writes what it shows (its walk
# report, app/gui/walk_report.h, asked for with SIGUSR1) and the step checks it: the view, the
# selection and its summary, the pane, the dialog, and that no label or button is cut. A
# screenshot that is nearly one colour (a blank view) fails too. Screenshots stay in OUT_DIR.
#
#   walk.sh TENSORSCOPE SAMPLE RUN_TRACE OUT_DIR
#
# RUN_TRACE (a PyTorch ResNet-50 trace) is opened with --simulate resnet50: the Simulation tab.
set -uo pipefail
BIN=$1 SAMPLE=$2 RUN=$3 OUT=$4
mkdir -p "$OUT"
export XDG_CONFIG_HOME=$OUT/config XDG_CACHE_HOME=$OUT/cache XDG_RUNTIME_DIR=$OUT/xdg
rm -rf "$XDG_CONFIG_HOME"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
unset QT_QPA_PLATFORM WAYLAND_DISPLAY
# A sanitized build: the system libraries' own leaks at exit do not fail the walk (ours still do).
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
failures=0
XPID= APP=

fail() {
  echo "FAIL [$SIZE $STEP]: $*" >&2
  failures=$((failures + 1))
}
cleanup() {
  [ -n "$APP" ] && kill "$APP" 2>/dev/null
  [ -n "$XPID" ] && kill "$XPID" 2>/dev/null
  wait 2>/dev/null
}
trap cleanup EXIT

start_x() {  # start_x WIDTH HEIGHT: a fresh server on a free display
  local fifo=$OUT/displayfd
  rm -f "$fifo" && mkfifo "$fifo"
  Xvfb -displayfd 7 -screen 0 "${1}x${2}x24" -nolisten tcp -noreset 7>"$fifo" 2>"$OUT/xvfb.log" &
  XPID=$!
  local n
  read -r -t 20 n <"$fifo" || { echo "walk: Xvfb did not start" >&2; exit 1; }
  export DISPLAY=:$n
}

start_app() {  # start_app ARGS...: the GUI, its window found, sized to the screen
  TSCOPE_WALK_REPORT=$OUT/state.json "$BIN" "$@" >"$OUT/app-$SIZE-$STEP.log" 2>&1 &
  APP=$!
  WID=
  for _ in $(seq 120); do
    WID=$(xdotool search --onlyvisible --name 'Tensorscope' 2>/dev/null | head -1)
    [ -n "$WID" ] && break
    sleep 0.25
  done
  [ -n "$WID" ] || { fail "no window"; return 1; }
  xdotool windowmove "$WID" 0 0 windowsize "$WID" "$W" "$H"
  sleep 1
}

report() {  # report: the app's state into $OUT/state.json, read into STATE
  rm -f "$OUT/state.json"
  kill -USR1 "$APP" 2>/dev/null || { fail "the app is gone"; STATE=; return 1; }
  for _ in $(seq 100); do
    [ -s "$OUT/state.json" ] && break
    sleep 0.05
  done
  STATE=$(cat "$OUT/state.json" 2>/dev/null)
}

# field KEY: the first value of "KEY" in the report (numbers bare, strings without quotes).
field() {
  printf '%s\n' "$STATE" | sed -n "/^ *\"$1\": /{s/^ *\"$1\": //;s/,$//;s/^\"//;s/\"$//;p;q}"
}
# clipped KEY: the entries of the array "KEY" (cut labels and buttons), one per line.
clipped() {
  printf '%s\n' "$STATE" | awk -v key="\"$1\": [" '
    index($0, key) { on = 1; if ($0 ~ /\[\]/) exit; next }
    on && /^ *\]/ { exit }
    on { print }'
}
near() {  # near A B TOLERANCE
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}
expect_contains() {  # expect_contains WHAT TEXT NEEDLE
  case "$2" in *"$3"*) ;; *) fail "$1 does not say \"$3\": ${2:0:300}" ;; esac
}
no_clipped() {
  local cut
  cut=$(clipped "${1:-clipped}")
  [ -z "$cut" ] || fail "text cut off: $cut"
}
shot() {  # shot NAME: a screenshot, not blank
  local png=$OUT/$SIZE-$1.png colours
  import -window root "$png" 2>/dev/null || { fail "no screenshot"; return; }
  colours=$(convert "$png" -format %k info: 2>/dev/null)
  [ "${colours:-0}" -gt 40 ] || fail "screenshot $png is nearly blank ($colours colours)"
}
canvas_geometry() {
  CX=$(field x) CY=$(field y) GUTTER=$(field gutter) CW=$(field width) RULER=$(field rulerHeight)
}

walk_sample() {
  STEP=open
  start_app "$SAMPLE" || return
  report
  [ "$(field tab)" = sample.tscope ] || fail "tab is '$(field tab)'"
  local span start end duration
  start=$(field start) end=$(field end) duration=$(field sessionDuration)
  span=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  near "$span" "$(awk -v d="$duration" 'BEGIN { print d * 1.02 }')" "$(awk -v d="$duration" 'BEGIN { print d * 0.05 }')" ||
    fail "the first view shows $span ns of a $duration ns session"
  [ "$(field paneHeight)" -ge $((H / 4)) ] || fail "the panes are $(field paneHeight) px of $H"
  no_clipped
  shot open

  STEP=keys-at-start  # no click first: the timeline has the keys from the start
  xdotool key w
  sleep 0.3
  report
  local zoomed
  zoomed=$(awk -v a="$(field start)" -v b="$(field end)" 'BEGIN { print b - a }')
  awk -v z="$zoomed" -v s="$span" 'BEGIN { exit !(z < s * 0.8) }' || fail "W right after opening did not zoom ($zoomed of $span ns)"
  xdotool key h
  sleep 0.3

  STEP=ruler-drag
  canvas_geometry
  local y=$((CY + RULER - 8)) x0=$((CX + GUTTER + 100)) x1=$((CX + GUTTER + 400))
  xdotool mousemove "$x0" "$y" mousedown 1 mousemove $((x0 + 50)) "$y" mousemove "$x1" "$y" mouseup 1
  sleep 0.5
  # The tag's counts come from a background job: a slow (sanitizer) build may need a moment more.
  local summary
  for _ in $(seq 10); do
    report
    summary=$(field selectionSummary)
    case "$summary" in *kernel*) break ;; esac
    sleep 0.5
  done
  expect_contains "the range summary" "$summary" "kernel"
  [ "$(field pane)" = Events ] || fail "the pane after a range is '$(field pane)'"
  [ "$(field events)" -gt 0 ] || fail "the events table is empty"
  shot range

  STEP=double-click
  local selStart
  selStart=$(field selectionStart)
  xdotool mousemove $(((x0 + x1) / 2)) "$y" click --repeat 2 --delay 60 1
  sleep 0.5
  report
  [ -n "$(field selectionStart)" ] || fail "the double-click dropped the range"
  near "$(field start)" "$selStart" "$(awk -v s="$span" -v w="$CW" 'BEGIN { print 3 * s / w }')" ||
    fail "the double-click did not zoom to the range (view starts at $(field start), range at $selStart)"
  shot zoomed

  STEP=show-all
  xdotool key h
  sleep 0.3
  report
  near "$(awk -v a="$(field start)" -v b="$(field end)" 'BEGIN { print b - a }')" "$span" "$(awk -v s="$span" 'BEGIN { print s * 0.02 }')" ||
    fail "H did not show the whole session"

  STEP=overview  # the minimap: a drag on it zooms to what it covers, a click centres the view
  [ "$(field overviewLanes)" -ge 2 ] || fail "the overview strip shows $(field overviewLanes) lanes"
  local oy=$(($(field overviewY) + $(field overviewHeight) / 2)) q=$((CW - GUTTER))
  xdotool mousemove $((CX + GUTTER + q / 4)) "$oy" mousedown 1 mousemove $((CX + GUTTER + q / 3)) "$oy" \
    mousemove $((CX + GUTTER + q / 2)) "$oy" mouseup 1
  sleep 0.4
  report
  local tol
  tol=$(awk -v s="$span" 'BEGIN { print s * 0.02 }')
  near "$(field start)" "$(awk -v s="$span" 'BEGIN { print s * 1.02 / 4 - s / 100 }')" "$tol" &&
    near "$(field end)" "$(awk -v s="$span" 'BEGIN { print s * 1.02 / 2 - s / 100 }')" "$tol" ||
    fail "the overview drag did not zoom to its second quarter (view $(field start) to $(field end) of $span ns)"
  shot overview
  xdotool mousemove $((CX + GUTTER + q * 3 / 4)) "$oy" click 1  # centred there, the same zoom
  sleep 0.4
  report
  near "$(awk -v a="$(field start)" -v b="$(field end)" 'BEGIN { print (a + b) / 2 }')" \
    "$(awk -v s="$span" 'BEGIN { print s * 1.02 * 3 / 4 - s / 100 }')" "$tol" ||
    fail "a click on the overview did not centre the view there (view $(field start) to $(field end))"
  xdotool key h
  sleep 0.3

  STEP=label-column
  local gutter=$GUTTER
  xdotool mousemove $((CX + gutter)) $((CY + 150)) mousedown 1 mousemove $((CX + gutter + 60)) $((CY + 150)) \
    mousemove $((CX + gutter + 120)) $((CY + 150)) mouseup 1
  sleep 0.3
  report
  [ "$(field gutter)" = $((gutter + 120)) ] || fail "the label column is $(field gutter) px after dragging $gutter by 120"
  shot labels

  STEP=find
  xdotool key ctrl+f
  sleep 0.3
  xdotool type --delay 30 sgemm
  xdotool key Return
  sleep 0.5
  report
  expect_contains "the selected event" "$(field selected)" "sgemm"
  [ "$(field pane)" = Details ] || fail "the pane after Find is '$(field pane)'"
  expect_contains "Details" "$(field details)" "Grid"
  no_clipped
  shot find
  xdotool key Escape

  STEP=shortcuts
  xdotool key ctrl+slash
  sleep 0.7
  report
  [ "$(field dialog)" = "Keyboard Shortcuts" ] || fail "the dialog is '$(field dialog)'"
  no_clipped dialogClipped
  shot shortcuts
  xdotool key Escape
  sleep 0.3
  report
  [ -z "$(field dialog)" ] || fail "Esc left the dialog '$(field dialog)' open"
  # No window manager gives the focus back when a dialog closes: done as one would by a click.
  xdotool windowfocus "$WID"

  STEP=quit
  xdotool key ctrl+q
  local rc=0
  for _ in $(seq 40); do kill -0 "$APP" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$APP" 2>/dev/null; then
    fail "Ctrl+Q did not quit"
  else
    wait "$APP" || rc=$?
    [ "$rc" = 0 ] || fail "the app exited with $rc"
  fi
  APP=
}

walk_simulation() {
  STEP=simulation
  start_app "$RUN" --simulate resnet50 --batch 32 || return
  local text=
  for _ in $(seq 120); do
    report
    text=$(field simulation)
    case "$text" in *"layers timed"* | *"Cannot simulate"*) break ;; esac
    sleep 0.5
  done
  expect_contains "the simulation summary" "$text" "layers timed"
  expect_contains "the simulation summary" "$text" "Tesla V100"
  [ "$(field pane)" = Simulation ] || fail "the pane is '$(field pane)'"
  [ "$(field paneHeight)" -ge $((H * 2 / 5)) ] || fail "the Simulation pane is $(field paneHeight) px of $H"
  no_clipped
  shot simulation
  kill "$APP"
  wait "$APP" 2>/dev/null
  APP=
}

for SIZE in 1600x1000 1280x800; do
  W=${SIZE%x*} H=${SIZE#*x}
  start_x "$W" "$H"
  walk_sample
  [ -f "$RUN" ] && walk_simulation
  kill "$XPID" 2>/dev/null
  wait "$XPID" 2>/dev/null
  XPID=
done
echo "walk: $failures failure(s); screenshots in $OUT"
[ "$failures" = 0 ]

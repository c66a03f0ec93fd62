#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench report` pages in a real browser (headless Chromium, Debian
# package chromium): the example suite (two runs), a 1..4-thread sweep, an
# MPI run (1 and 2 ranks, when mpirun is there), a region run and a
# comparison. For each page: the HTML names no http(s) URL at all; the
# browser, behind a proxy on a closed port, makes no request but the file
# itself; the console has no error and no exception is thrown; the DOM has
# the expected sections and as many SVG marks as the data says (rounds
# drawn, threads, ranks, scaling points, comparison rows); a click on a
# round redraws the per-thread view; the arrow keys move along the instance
# list; screenshots of each view are not blank; no label is cut (each SVG
# label's text within its chart's box, measured in the DOM, and no range
# cut short to "lo.."); no link or reference leaves the page (a relative
# link, a docs/*.md the page does not carry); figures show at most 4
# significant digits; a region's facts speak of instances; a comparison has
# a summary at the top linking every regressed, improved and undecided row,
# and each undecided row says why. One browser for all the pages, a tab
# each (report_cdp.py). The controls first: a page
# with an error and a request must be caught, or this test could not fail.
# With OMPB_REPORT_SHOTS=DIR the screenshots are kept there (docs/img/).
# In the ASan+UBSan build (OMPB_SANITIZE_FLAGS set by tests/CMakeLists.txt)
# every run and report below still runs, instrumented, and the pages are
# still checked for URLs and size; the browser sessions do not run there:
# they exercise the pages' JavaScript in chromium, which no sanitizer
# instruments, on HTML written by the same code the Release stage's run of
# this test checks in the browser (14 of its 38 s of CPU under ASan).
# Usage: report_browser.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
tool=$build/tools/ompbench
bin=$build/benches
cdp=$src/tests/integration/report_cdp.py
mult=${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}
if ! chromium=$(command -v chromium || command -v chromium-browser); then
  echo "SKIP: chromium not found (Debian: chromium; tools/install-deps.sh installs it)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/absent/ctl OMPB_RUNNER_ACK_FIFO=$tmp/absent/ack
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0
browser=1
[ -n "${OMPB_SANITIZE_FLAGS:-}" ] && browser=0
quick=(--sample-count 12 --max-time 100ms --warmup-time 5ms --format json)

run() { # CMD...: bounded; a failure ends the test
  if ! timeout $((180 * mult)) "$@" > /dev/null 2>> "$tmp/runs.err"; then
    echo "FAIL: $* exited with an error:"; tail -5 "$tmp/runs.err"; exit 1
  fi
}

# ---- the runs ----
run "$bin/examples" --threads 2 "${quick[@]}" --output "$tmp/suite1.json"
run "$bin/examples" --threads 2 "${quick[@]}" --output "$tmp/suite2.json"
run "$bin/examples" --threads 1..4 --filter '^(sum_fold|count_set_bits\[42)' "${quick[@]}" \
  --output "$tmp/sweep.json"
OMPB_REGIONS_OUTPUT=$tmp/region.json OMP_WAIT_POLICY=active \
  run "$bin/stencil" --n 256 --iterations 60 --threads 1,2
# The comparison: three runs a side (processes), so it has intervals.
for side in base head; do
  run "$bin/examples" --threads 2 --filter '^(count_set_bits|fibonacci_iterative)' \
    --repetitions 3 --processes 3 "${quick[@]}" --output "$tmp/$side.json"
done
pages=(suite sweep region compare)
# Counters per thread, where this machine lets a process count its own
# task-clock (perf_event_paranoid, containers): else that page is not checked.
if timeout $((60 * mult)) "$bin/examples" --threads 2 --filter '^sum_fold' --counters task-clock \
     "${quick[@]}" --output "$tmp/counters.json" > /dev/null 2>> "$tmp/runs.err"; then
  run "$tool" report "$tmp/counters.json" --output "$tmp/counters.html"
  pages+=(counters)
else
  echo "note: --counters task-clock is not available here: the counters page is not checked"
fi
run "$tool" report "$tmp/suite1.json" "$tmp/suite2.json" --output "$tmp/suite.html"
run "$tool" report "$tmp/sweep.json" --output "$tmp/sweep.html"
run "$tool" report "$tmp/region.json" --output "$tmp/region.html"
run "$tool" report --compare "$tmp/base.json" --vs "$tmp/head.json" --output "$tmp/compare.html"
if command -v mpirun > /dev/null && [ -x "$bin/halo" ]; then
  # The sanitizer build: Open MPI's own leaks at start-up, as tests/mpi/ does.
  export LSAN_OPTIONS="suppressions=$src/tests/mpi/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  export ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  for np in 1 2; do
    OMP_NUM_THREADS=1 run mpirun --oversubscribe -np $np "$bin/halo" --filter 'halo_jacobi\[64' \
      --threads 1 "${quick[@]}" --output "$tmp/mpi$np.json"
  done
  run "$tool" report "$tmp/mpi1.json" "$tmp/mpi2.json" --output "$tmp/mpi.html"
  pages+=(mpi)
else
  echo "note: no mpirun or halo binary: the MPI page is not checked"
fi

# What the page shows, read in the browser.
cat > "$tmp/exprs.json" <<'JSON'
{"instances": "Array.from(document.querySelectorAll('section.instance')).map(function(s){return [s.querySelector('h3').textContent, s.querySelectorAll('svg.order circle.round').length, s.querySelectorAll('svg.strip .dot, svg.strip .outlier').length, s.querySelectorAll('svg.threads rect.busy').length, s.querySelectorAll('svg.ranks rect.rank').length, s.querySelectorAll('svg.region-busy rect.busy').length, s.querySelectorAll('table.counters tr').length];})",
 "nav": "document.querySelectorAll('#instances a').length",
 "summary": "!!document.getElementById('summary')",
 "families": "Array.from(document.querySelectorAll('#scaling-chart g.family')).map(function(g){return [g.getAttribute('data-name'), g.getAttribute('data-scaling'), g.querySelectorAll('.panel.time > * > title').length, g.querySelectorAll('.panel.time .oversubscribed').length];})",
 "forest": "Array.from(document.querySelectorAll('#forest tbody tr')).map(function(r){return [r.cells[0].textContent, r.querySelectorAll('.change').length];})",
 "click": "(function(){var ss=document.querySelectorAll('section.instance');for(var i=0;i<ss.length;i++){var id=ss[i].id.slice(1),c=ss[i].querySelectorAll('svg.order circle.round');var capEl=document.getElementById('tvc'+id)||document.getElementById('rvc'+id);if(c.length<2||!capEl)continue;var last=c[c.length-1];last.dispatchEvent(new MouseEvent('click',{bubbles:true}));var d=JSON.parse(document.getElementById('d'+id).textContent);var cap=capEl.textContent;var k=d.r[d.r.length-1];return (cap.indexOf('round '+k+' ')>=0||cap.indexOf('instance '+k+' ')>=0)&&last.getAttribute('class')==='round chosen'?'ok':'caption '+cap;}return 'no view';})()",
 "keys": "(function(){var a=document.querySelectorAll('#instances a');if(a.length>1){a[0].focus();a[0].dispatchEvent(new KeyboardEvent('keydown',{key:'ArrowDown',bubbles:true}));if(document.activeElement!==a[1])return 'focus stayed in the list';}var ss=document.querySelectorAll('section.instance');for(var i=0;i<ss.length;i++){var o=ss[i].querySelector('svg.order'),r=o&&o.querySelectorAll('circle.round');if(!document.getElementById('tv'+ss[i].id.slice(1))||!r||r.length<2)continue;var before=o.querySelector('.chosen');o.focus();o.dispatchEvent(new KeyboardEvent('keydown',{key:before===r[0]?'ArrowRight':'ArrowLeft',bubbles:true}));return o.querySelector('.chosen')!==before?'ok':'the arrow keys did not choose another round';}return 'ok';})()",
 "sort": "(function(){var f=document.getElementById('forest');if(!f)return 'ok';f.querySelector('button[data-sort=change]').click();var c=Array.from(f.querySelectorAll('tbody tr')).map(function(r){return Math.abs(+r.getAttribute('data-change'));});for(var i=1;i<c.length;i++)if(c[i]>c[i-1])return 'not sorted: '+c.join(' ');f.querySelector('button[data-sort=name]').click();var n=Array.from(f.querySelectorAll('tbody tr')).map(function(r){return r.cells[0].textContent;});for(var j=1;j<n.length;j++)if(n[j]<n[j-1])return 'names not sorted';return 'ok';})()",
 "cut": "(function(){var bad=[];document.querySelectorAll('svg text').forEach(function(t){var s=t.ownerSVGElement,a=t.getBoundingClientRect(),b=s&&s.getBoundingClientRect();if(!b||!a.width||!b.width)return;if(a.left<b.left-1||a.right>b.right+1||a.top<b.top-1||a.bottom>b.bottom+1)bad.push(JSON.stringify(t.textContent)+' spans '+Math.round(a.left-b.left)+'..'+Math.round(a.right-b.left)+' x '+Math.round(a.top-b.top)+'..'+Math.round(a.bottom-b.top)+' of its '+Math.round(b.width)+' x '+Math.round(b.height)+' box');if(/\\.\\.$/.test(t.textContent.trim()))bad.push(JSON.stringify(t.textContent)+' ends cut short');});document.querySelectorAll('body *').forEach(function(e){var c=getComputedStyle(e);if((c.overflowX==='hidden'||c.textOverflow==='ellipsis')&&e.scrollWidth>e.clientWidth+1)bad.push(e.tagName+' '+JSON.stringify(e.textContent.slice(0,40))+' overflows');});return bad;})()",
 "relative": "(function(){var bad=[];document.querySelectorAll('[href],[src]').forEach(function(e){var h=e.getAttribute('href')||e.getAttribute('src');if(h.charAt(0)!=='#')bad.push('link '+h);});(document.body.innerText.match(/[A-Za-z0-9_.\\/-]+\\.md\\b/g)||[]).forEach(function(m){bad.push('a reference to '+m+', which the page does not carry');});return bad;})()",
 "digits": "(function(){var bad=[];document.querySelectorAll('svg text, .facts, figcaption, table.counters td').forEach(function(e){var m=e.textContent.match(/[0-9]+\\.[0-9]+(e[+-]?[0-9]+)?( ?(ns|us|ms|s)\\b)?|[0-9]e[+-][0-9]+/g)||[];m.forEach(function(x){var d=x.replace(/e.*$/,'').replace(/[^0-9]/g,'').replace(/^0+/,'');if(/e[+-]/.test(x)||d.length>4)bad.push(JSON.stringify(x)+' in '+JSON.stringify(e.textContent.slice(0,60)));});});return bad;})()",
 "verdicts": "(function(){if(!document.getElementById('forest'))return 'ok';var s=document.getElementById('verdicts');if(!s)return 'no comparison summary';var links=Array.from(s.querySelectorAll('a[href^=\"#c\"]')).map(function(a){return a.getAttribute('href').slice(1);});var rows=document.querySelectorAll('#forest tbody tr');for(var i=0;i<rows.length;i++){var v=rows[i].cells[1].className,und=/v-(noisy|disturbed|noise_unknown)/.test(v);if((und||/v-(regressed|improved)/.test(v))&&links.indexOf(rows[i].id)<0)return 'row '+rows[i].cells[0].textContent+' ('+v+') has no link in the summary';if(und&&!rows[i].cells[1].querySelector('.why'))return 'undecided row '+rows[i].cells[0].textContent+' does not say why';}return 'ok';})()",
 "wording": "Array.from(document.querySelectorAll('.facts')).map(function(e){return e.textContent;}).filter(function(t){return /rounds of 1 iterations|\\b1 (iterations|threads|rounds|instances)\\b/.test(t)||(/instance/.test(t)&&/round/.test(t.replace(/rounds? drawn/,'')));})",
 "legend_overlap": "(function(){var n=0;document.querySelectorAll('#scaling-chart g.panel').forEach(function(p){var l=p.querySelector('.legend-box');if(!l)return;var b=l.getBBox();p.querySelectorAll(':scope > circle, :scope > rect, :scope > polygon').forEach(function(m){if(!m.querySelector('title'))return;var c=m.getBBox();if(c.x<b.x+b.width&&b.x<c.x+c.width&&c.y<b.y+b.height&&b.y<c.y+c.height)n++;});});return n;})()"}
JSON

# The pages, each with the views to screenshot (#view=ID): checked for URLs
# here, then all in one browser session (report_cdp.py: one Chromium, a
# tab a page), then each page's answers checked by check_page.
checked=()
add_page() { # NAME VIEW...
  local name=$1
  local html=$tmp/$name.html
  if grep -Eiq 'https?:|src=|url\(' "$html"; then
    echo "FAIL: $name.html names a URL or an external resource:"
    grep -Eio '.{30}(https?:|src=|url\().{30}' "$html" | head -3
    fail=1
  fi
  checked+=("$*")
}

check_page() { # NAME VIEW...
  local name=$1; shift
  python3 - "$name" "$tmp" "$@" <<'PY' || fail=1
import json, os, struct, sys, zlib
name, tmp, views = sys.argv[1], sys.argv[2], sys.argv[3:]
r = json.load(open(os.path.join(tmp, name + ".cdp.json")))
v = r["values"]
bad = []
if r["requests"]:
    bad.append("network requests: %r" % r["requests"][:3])
if r["errors"]:
    bad.append("console errors: %r" % r["errors"][:3])
files = {"suite": ["suite1", "suite2"], "sweep": ["sweep"], "region": ["region"],
         "compare": ["base", "head"], "mpi": ["mpi1", "mpi2"],
         "counters": ["counters"]}[name]
entries = []
for f in files:
    for e in json.load(open(os.path.join(tmp, f + ".json")))["benchmarks"]:
        if e.get("run_type", "iteration") == "iteration":
            entries.append(e)
if name == "compare":
    names = list(dict.fromkeys(e["name"] for e in entries))
    rows = v["forest"]
    if [x[0] for x in rows] != names:
        bad.append("forest rows %d, want one per instance %d" % (len(rows), len(names)))
    if sum(x[1] for x in rows) < len(names) - 2:
        bad.append("forest marks %d for %d rows" % (sum(x[1] for x in rows), len(rows)))
else:
    inst = v["instances"]
    if len(inst) != len(entries) or v["nav"] != len(entries) or not v["summary"]:
        bad.append("%d sections, %d list links for %d entries" % (len(inst), v["nav"], len(entries)))
    share = max(6, min(200, 3000 // max(1, len(entries))))
    for e, got in zip(entries, inst):
        o = e.get("ompbench", {})
        s = o.get("samples", {})
        rounds = len(s.get("makespan_ns", []))
        drawn = (min(rounds, share), min(rounds, share) + 1)
        want_threads = len(s["busy_ns"][0]) if s.get("busy_ns") else 0
        want_ranks = len(s["rank_makespan_ns"][0]) if s.get("rank_makespan_ns") else 0
        want_region = len(o.get("region", {}).get("mean_busy_ns", []))
        values = o.get("counters", {}).get("values")
        want_counters = len(values[0]) + 1 if values else 0
        if got[0] != e["name"] or got[1] not in drawn or got[2] != got[1] \
           or got[3] != want_threads or got[4] != want_ranks or got[5] != want_region \
           or got[6] != want_counters:
            bad.append("%s: marks %r, want %s rounds drawn of %d, %d threads, %d ranks, %d region "
                       "bars, %d counter rows" % (e["name"], got, drawn, rounds, want_threads,
                                                  want_ranks, want_region, want_counters))
    viewable = any((e.get("ompbench", {}).get("samples", {}).get("busy_ns")
                    or e.get("ompbench", {}).get("samples", {}).get("rank_makespan_ns"))
                   and len(e["ompbench"]["samples"]["makespan_ns"]) > 1 for e in entries)
    if v["click"] != "ok" and not (not viewable and v["click"] == "no view"):
        bad.append("a click on a round: %s" % v["click"])
    if v["keys"] != "ok":
        bad.append("arrow key in the instance list: %s" % v["keys"])
if name in ("sweep", "mpi"):
    fams = {}
    for e in entries:
        key = e["name"].split("[")[0]
        fams.setdefault(key, []).append(e)
    fam = v["families"]
    if len(fam) != len(fams) or any(f[2] != len(fams.get(f[0].split("[")[0], [])) for f in fam):
        bad.append("scaling families %r, want %r" % (fam, {k: len(x) for k, x in fams.items()}))
    hollow = sum("oversubscribed" in e["ompbench"]["marks"] for e in entries)
    if sum(f[3] for f in fam) != hollow:
        bad.append("%d hollow points, %d oversubscribed entries" % (sum(f[3] for f in fam), hollow))
    if name == "mpi" and any(f[1] != "weak" for f in fam):
        bad.append("the MPI halo run (declared weak) is drawn as %r" % [f[1] for f in fam])
    if v["legend_overlap"] != 0:
        bad.append("%r data marks under a legend" % v["legend_overlap"])

# Labels are never cut (each label's text within its chart's box, measured
# in the DOM; no range cut short to "lo.."), the page carries no link or
# reference it does not hold itself (a relative link is dead in a standalone
# artifact), and figures show at most 4 significant digits (no "7.08297 ms",
# no "1.248e+07").
# A comparison's summary links every regressed, improved and undecided row,
# and an undecided row says why; a region speaks of instances, and no
# count reads "1 iterations".
if v.get("verdicts") != "ok":
    bad.append("comparison summary: %s" % v.get("verdicts"))
for key, what in (("cut", "cut labels"), ("relative", "relative links"),
                  ("digits", "figures with more than 4 significant digits"),
                  ("wording", "facts in the wrong words")):
    if v.get(key):
        bad.append("%s: %s" % (what, "; ".join(v[key][:4]) + ("; ..." if len(v[key]) > 4 else "")))
if v.get("sort") != "ok":
    bad.append("sorting the comparison: %s" % v.get("sort"))
narrow = v.get("narrow")
if not narrow or narrow[0] != "block" or narrow[1] > 425:
    bad.append("in a 420 px window: main is %r, the page %r px wide" % tuple(narrow or ["?", "?"]))

def png_variety(path):
    """Distinct colours and the share of non-white pixels of an 8-bit RGB(A) PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw, stride, prev, colours, ink = zlib.decompress(idat), w * bpp, None, set(), 0
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x] if prev else 0
            c = prev[x - bpp] if prev and x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if y % 4 == 0:
            for x in range(0, stride, bpp * 4):
                px = bytes(line[x:x + 3])
                colours.add(px)
                ink += px != b"\xff\xff\xff"
    return len(colours), ink / max(1, (h // 4) * (w // 4))

for view, shot in zip(views, r["shots"]):
    colours, ink = png_variety(shot)
    if colours < 8 or ink < 0.01:
        bad.append("screenshot of %s looks blank: %d colours, %.1f%% ink" % (view, colours, ink * 100))
for b in bad:
    print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
  if [ -n "${OMPB_REPORT_SHOTS:-}" ]; then
    for view in "$@"; do cp "$tmp/$name-$view.png" "$OMPB_REPORT_SHOTS/report-$name-$view.png"; done
  fi
}

# A view per kind of page: the summary, an instance, the scaling chart,
# the comparison, a region (each alone on the page, #view=ID).
add_page suite summary i0
add_page sweep scaling i1
add_page region i3
add_page compare verdicts comparison
case " ${pages[*]} " in *" mpi "*) add_page mpi scaling i1 ;; esac
case " ${pages[*]} " in *" counters "*) add_page counters i0 ;; esac

if [ $browser = 1 ]; then
  # The controls first: the checks must see the control page's error and
  # request, or they could not see a page's.
  cat > "$tmp/control.html" <<'HTML'
<!DOCTYPE html><html><body><p>control</p><img src="http://192.0.2.1/x.png" alt="">
<script>throw new Error("control")</script></body></html>
HTML
  python3 - "$tmp" "${checked[@]}" > "$tmp/jobs.json" <<'PY' || exit 1
import json, os, sys
tmp = sys.argv[1]
pages = [{"page": os.path.join(tmp, "control.html"), "out": os.path.join(tmp, "control.json"),
          "shot_prefix": os.path.join(tmp, "control-"), "views": [], "exprs": False}]
for spec in sys.argv[2:]:
    name, *views = spec.split()
    pages.append({"page": os.path.join(tmp, name + ".html"),
                  "out": os.path.join(tmp, name + ".cdp.json"),
                  "shot_prefix": os.path.join(tmp, name + "-"), "views": views})
print(json.dumps({"exprs": json.load(open(os.path.join(tmp, "exprs.json"))), "pages": pages}))
PY
  if ! timeout $((300 * mult)) python3 "$cdp" "$chromium" "$tmp/jobs.json"; then
    echo "FAIL: the browser session failed"; exit 1
  fi
  python3 - "$tmp/control.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
if not r["requests"] or not r["errors"]:
    sys.exit("FAIL: the control page's request or error went unseen: %r" % r)
PY
  for spec in "${checked[@]}"; do
    # shellcheck disable=SC2086 # NAME VIEW... as words
    check_page $spec
  done
fi

# Size: ten runs of the example suite stay under 2.4 MB (rounds are
# sampled to the page's budget). The page was 1.98 MB before the axes got
# ticks near their data, the instances per-thread fairness tables and the
# page its notes on method (issue 33): 2.26 MB on 2026-12-03, the ticks
# drawn as one path per axis (as 2880 <line>s they took 178 KB).
args=()
for k in 1 2 3 4 5; do args+=("$tmp/suite1.json" "$tmp/suite2.json"); done
# The same file twice is refused by compare only; report takes ten runs.
run "$tool" report "${args[@]}" --output "$tmp/ten.html"
size=$(stat -c %s "$tmp/ten.html")
if [ "$size" -gt 2400000 ]; then
  echo "FAIL: the report of ten runs of the example suite is $size bytes (want under 2.4 MB)"
  fail=1
fi
echo "ten runs of the example suite: $size bytes"
exit $fail

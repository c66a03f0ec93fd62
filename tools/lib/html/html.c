/* SPDX-License-Identifier: MIT */
/*
 * The page of `ompbench report` (html/html.h): the summary of suspect
 * results at the top, the instance list (a link per instance; the arrow
 * keys move along it), the scaling chart, the comparison, then one section
 * per instance of each run. The CSS and the script are inline and small;
 * every text that came from a file is escaped, and the embedded JSON cannot
 * close its script element. The page names no URL at all: it opens from a
 * file:// path or a CI artifact without any network.
 */
#include "html/html.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "analysis/analysis.h"

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#111;background:#fff}"
    "header,main{padding:0 16px}main{display:flex;gap:16px;align-items:flex-start}"
    "nav{position:sticky;top:0;max-height:100vh;overflow:auto;min-width:14em;max-width:22em}"
    "nav ul{list-style:none;padding:0;margin:0}nav a{display:block;padding:2px 4px;"
    "color:#0645ad;text-decoration:none;word-break:break-all}nav a:focus{outline:3px solid "
    "#000;background:#ffd}#content{flex:1;min-width:0}"
    "section{border-top:1px solid #ccc;margin-top:12px}.charts{display:flex;flex-wrap:wrap;"
    "gap:12px}figure{margin:0}figcaption{font-size:12px;color:#333}"
    "svg{max-width:100%;height:auto;font:11px sans-serif}svg.forest{min-width:200px}"
    "svg text{fill:#222}"
    ".dot{fill:#1f77b4}.outlier{stroke:#d62728;stroke-width:2;fill:none}"
    ".ci{fill:#1f77b4;opacity:.15}.median{stroke:#000;stroke-width:2}"
    ".frame{fill:none;stroke:#bbb}.round{fill:#1f77b4;cursor:pointer}"
    ".round.chosen{fill:#000;stroke:#ff7f0e;stroke-width:3}"
    ".busy{fill:#1f4e79}.before{fill:#fff;stroke:#555;stroke-dasharray:2 2}"
    ".wait{fill:#ddd;stroke:#777;stroke-dasharray:4 2}.rank{fill:#6a3d9a}"
    ".series{fill:none;stroke:#1f77b4;stroke-width:1.5}"
    ".marks{font-weight:bold}.marks b{background:#fff3c4;padding:0 4px}"
    ".scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse}td,th{padding:2px 6px;border-bottom:1px solid #eee;"
    "text-align:left;vertical-align:middle}"
    ".band{fill:#eee}.zero{stroke:#999}.interval{stroke:#111;stroke-width:2}"
    ".v-regressed{fill:#d62728;color:#a00}.v-improved{fill:#2ca02c;color:#070}"
    ".v-noisy{fill:#ff7f0e}.v-other{fill:#777}.count{margin-right:8px}.tick{stroke:#555}"
    ".why{display:block;font-size:12px;color:#333}dt{font-weight:bold}"
    ".single nav,.single #content>section:not(.shown),.single #content>h2{display:none}"
    "@media (max-width:700px){main{display:block}nav{position:static;max-height:none;"
    "max-width:none}}";

/* One section alone for "#view=ID" (a link to one instance, or a
 * screenshot of one view); keyboard along the instance list; a round chosen
 * by click or the arrow keys (its threads drawn from the embedded data);
 * the comparison sorted. */
static const char script[] =
    "(function(){'use strict';"
    "var v=/^#view=([A-Za-z0-9_-]+)$/.exec(location.hash),one=v&&document.getElementById(v[1]);"
    "if(one){document.body.classList.add('single');one.classList.add('shown');}"
    "var list=document.getElementById('instances');"
    "if(list)list.addEventListener('keydown',function(e){"
    "var a=Array.prototype.slice.call(list.querySelectorAll('a'));"
    "var i=a.indexOf(document.activeElement);if(i<0)return;var j=i;"
    "if(e.key==='ArrowDown')j=Math.min(i+1,a.length-1);else if(e.key==='ArrowUp')j=Math.max(i-1,0);"
    "else if(e.key==='Home')j=0;else if(e.key==='End')j=a.length-1;else return;"
    "e.preventDefault();a[j].focus();});"
    "var cache={};function data(id){if(!cache[id]){var s=document.getElementById('d'+id);"
    "cache[id]=s?JSON.parse(s.textContent):null;}return cache[id];}"
    "function fmt(ns){var u=ns>=1e9?[1e9,' s']:ns>=1e6?[1e6,' ms']:ns>=1e3?[1e3,' us']:[1,' ns'];"
    "return (ns/u[0]).toPrecision(4)+u[1];}"
    "function ranks(id,d,k){var g=document.getElementById('rv'+id);if(!g||!d.k.length)return;"
    "var row=d.k[k],w=Math.max.apply(null,row),L=+g.getAttribute('data-l'),R=+g.getAttribute('data-r');"
    "var bars=g.querySelectorAll('rect');for(var i=0;i<bars.length&&i<row.length;i++){"
    "bars[i].setAttribute('width',Math.max(.5,row[i]/w*(R-L)));"
    "bars[i].firstChild.textContent='rank '+i+': '+fmt(row[i]);}"
    "var cap=document.getElementById('rvc'+id);if(cap)cap.textContent='Ranks of round '+d.r[k]+"
    "' (each rank\\'s own makespan)';}"
    "function choose(c){var id=c.closest('section').id.slice(1),k=+c.getAttribute('data-k'),d=data(id);"
    "var g=document.getElementById('tv'+id);if(!d)return;"
    "var svg=c.ownerSVGElement;Array.prototype.forEach.call(svg.querySelectorAll('.round.chosen'),"
    "function(x){x.setAttribute('class','round');});c.setAttribute('class','round chosen');"
    "ranks(id,d,k);if(!g||!d.b.length)return;"
    "var span=d.m[k],b=d.b[k],o=d.o.length?d.o[k]:null,L=+g.getAttribute('data-l'),R=+g.getAttribute('data-r');"
    "var rows=g.querySelectorAll('rect');"
    "for(var t=0;t<b.length&&3*t+2<rows.length;t++){var off=o?o[t]:0;"
    "var xs=L+off/span*(R-L),xe=L+(off+b[t])/span*(R-L);"
    "rows[3*t].setAttribute('width',Math.max(0,xs-L));"
    "rows[3*t+1].setAttribute('x',xs);rows[3*t+1].setAttribute('width',Math.max(.5,xe-xs));"
    "rows[3*t+1].firstChild.textContent='t'+t+' busy '+fmt(b[t]);"
    "rows[3*t+2].setAttribute('x',xe);rows[3*t+2].setAttribute('width',Math.max(0,R-xe));}"
    "var cap=document.getElementById('tvc'+id);if(cap)cap.textContent='Threads of '+"
    "(cap.getAttribute('data-unit')||'round')+' '+d.r[k]+' ('+fmt(span)+'; threads)';}"
    "document.addEventListener('click',function(e){var c=e.target.closest&&e.target.closest('circle.round');"
    "if(c)choose(c);});"
    "document.addEventListener('keydown',function(e){var s=e.target;"
    "if(!s.classList||!s.classList.contains('order'))return;"
    "var r=s.querySelectorAll('circle.round'),cur=s.querySelector('circle.chosen');"
    "var i=Array.prototype.indexOf.call(r,cur);"
    "if(e.key==='ArrowRight')i=Math.min(i+1,r.length-1);else if(e.key==='ArrowLeft')i=Math.max(i-1,0);"
    "else return;e.preventDefault();choose(r[i]);});"
    "var f=document.getElementById('forest');"
    "if(f)f.querySelector('thead').addEventListener('click',function(e){"
    "var b=e.target.closest('button');if(!b)return;var key=b.getAttribute('data-sort');"
    "var tb=f.querySelector('tbody'),rows=Array.prototype.slice.call(tb.rows);"
    "rows.sort(function(x,y){if(key==='name')return x.cells[0].textContent<y.cells[0].textContent?-1:1;"
    "if(key==='change')return Math.abs(+y.getAttribute('data-change'))-Math.abs(+x.getAttribute('data-change'));"
    "return +x.getAttribute('data-verdict')-+y.getAttribute('data-verdict');});"
    "rows.forEach(function(r){tb.appendChild(r);});});"
    "})();";

static const char *str(const json_t *v)
{
    const char *s = json_string_value(v);
    return s ? s : "?";
}

/* What the page's lists read of an entry: its name, its marks and whether
 * it failed, taken with one json_unpack per object (the entry, its
 * "ompbench"), as html_instance.c takes the rest. */
typedef struct entry_head {
    const json_t *e;
    const char *name;       /* "?" when absent */
    unsigned marks;
    bool failed;
} entry_head;

/* Fills h from entry e; false when e is not an iteration entry (an
 * aggregate of repetitions), which the page does not draw. */
static bool head_of(const json_t *e, entry_head *h)
{
    json_t *name = NULL, *run_type = NULL, *error = NULL, *omp = NULL, *marks = NULL;
    (void)json_unpack((json_t *)e, "{s?o, s?o, s?o, s?o}", "name", &name, "run_type",
                      &run_type, "error_occurred", &error, "ompbench", &omp);
    const char *rt = json_string_value(run_type);
    if (rt && strcmp(rt, "iteration") != 0)
        return false;
    if (json_is_object(omp))
        (void)json_unpack(omp, "{s?o}", "marks", &marks);
    h->e = e;
    h->name = str(name);
    (void)ompb__marks_of_json(marks, &h->marks);
    h->failed = json_is_true(error);
    return true;
}

/* Calls fn for every iteration entry of every file, numbering them. */
typedef int (*entry_fn)(FILE *out, const entry_head *h, size_t id, size_t file, void *arg);

static int each_entry(FILE *out, const ompb__html_input *in, entry_fn fn, void *arg)
{
    size_t id = 0;
    for (size_t f = 0; f < in->n_files; f++) {
        json_t *b = NULL;
        (void)json_unpack(in->roots[f], "{s?o}", "benchmarks", &b);
        for (size_t i = 0; i < json_array_size(b); i++) {
            entry_head h;
            if (!head_of(json_array_get(b, i), &h))
                continue;
            int rc = fn(out, &h, id++, f, arg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static bool suspect(const entry_head *h)
{
    return h->marks || h->failed;
}

static int suspect_count(FILE *out, const entry_head *h, size_t id, size_t file, void *arg)
{
    (void)out, (void)id, (void)file;
    *(size_t *)arg += suspect(h);
    return 0;
}

static int suspect_item(FILE *out, const entry_head *h, size_t id, size_t file, void *arg)
{
    char codes[200];
    (void)arg;
    if (!suspect(h))
        return 0;
    fprintf(out, "<li><a href=\"#i%zu\">", id);
    ompb__html_text(out, h->name);
    fprintf(out, "</a> (run %zu): %s</li>", file + 1,
            h->marks ? ompb__marks_text(codes, sizeof codes, h->marks) : "failed");
    return 0;
}

static int nav_item(FILE *out, const entry_head *h, size_t id, size_t file, void *arg)
{
    (void)arg;
    fprintf(out, "<li><a href=\"#i%zu\">%s", id, h->marks ? "&#9888; " : "");
    ompb__html_text(out, h->name);
    if (file)
        fprintf(out, " (run %zu)", file + 1);
    fputs("</a></li>", out);
    return 0;
}

typedef struct section_state {
    size_t last_file;
    size_t max_rounds;
} section_state;

static int section(FILE *out, const entry_head *h, size_t id, size_t file, void *arg)
{
    section_state *st = arg;
    if (st->last_file != file) {
        fprintf(out, "<h2 id=\"run%zu\">Run %zu</h2>\n", file + 1, file + 1);
        st->last_file = file;
    }
    return id < OMPB__HTML_MAX_DRAWN ? ompb__html_instance(out, h->e, id, st->max_rounds)
                                     : ompb__html_instance_brief(out, h->e, id);
}

static int page_marks(FILE *out, const entry_head *h, size_t id, size_t file, void *arg)
{
    (void)out, (void)id, (void)file;
    *(unsigned *)arg |= h->marks;
    return 0;
}

static void mark_item(const char *code, const char *legend, void *arg)
{
    FILE *out = arg;
    fprintf(out, "<dt>%s</dt><dd>%s</dd>", code, legend);
}

/* What the page's figures mean, embedded so that the page stands alone
 * (docs/methodology.md has the long form): the statistics, the marks the
 * page shows, and how a comparison decides. */
static void notes(FILE *out, const ompb__html_input *in)
{
    unsigned marks = 0;
    each_entry(NULL, in, page_marks, &marks);
    if (in->cmp)
        marks |= in->cmp->marks;
    fputs("<section id=\"notes\"><h2>Notes on method</h2><p><b>Rounds and instances.</b> A "
          "benchmark's round runs every thread of its team for a sample of iterations; its "
          "time is the round's makespan (first start to last end) over the sample, the time "
          "per iteration. An application region's instance is one pass of the team through "
          "the region: its time is that pass's makespan. The median is over every round or "
          "instance; its 95% interval comes from order statistics. Imbalance is the slowest "
          "thread's busy time over the mean; skew, the last start minus the first. A phase "
          "region (one thread around parallel teams) is named by its teams' width.</p>", out);
    if (marks) {
        fputs("<p><b>Marks</b> (a marked figure may not be the code's own):</p><dl "
              "id=\"marks-legend\">", out);
        ompb__marks_each(marks, mark_item, out);
        fputs("</dl>", out);
    } else {
        fputs("<p><b>Marks</b>: none on this page.</p>", out);
    }
    if (in->cmp)
        fputs("<p><b>Verdicts.</b> The unit of evidence is a run (a process), never a round: "
              "per instance, Yuen's trimmed Welch t on the logarithms of the runs' medians "
              "gives an interval of HEAD / BASE. <i>Regressed</i> or <i>improved</i>: the "
              "interval lies entirely beyond the threshold and the test survives "
              "Benjamini-Hochberg over the instances judged (which may hold back an interval "
              "beyond the threshold: the row says so). <i>Untouched</i>: the interval lies "
              "within the threshold. <i>Noisy</i>: neither; the row says how many runs a side "
              "would decide. <i>Noise unknown</i>: one run on a side (or in-process "
              "repetitions only), so the run-to-run spread is unknown. A marked side is "
              "suspect: its time may not be the code's.</p>", out);
    fputs("</section>\n", out);
}

static int count_entry(FILE *out, const entry_head *h, size_t id, size_t file, void *arg)
{
    (void)out, (void)h, (void)id, (void)file;
    ++*(size_t *)arg;
    return 0;
}

/* Each drawn instance's share of the page's round budget. */
static size_t rounds_per_instance(const ompb__html_input *in)
{
    size_t n = 0;
    each_entry(NULL, in, count_entry, &n);
    n = n < OMPB__HTML_MAX_DRAWN ? n : OMPB__HTML_MAX_DRAWN;
    size_t share = n ? OMPB__HTML_ROUND_BUDGET / n : OMPB__HTML_MAX_ROUNDS;
    return share < OMPB__HTML_MIN_ROUNDS ? OMPB__HTML_MIN_ROUNDS
           : share > OMPB__HTML_MAX_ROUNDS ? OMPB__HTML_MAX_ROUNDS : share;
}

static void summary(FILE *out, const ompb__html_input *in)
{
    size_t all = 0;
    each_entry(NULL, in, count_entry, &all);
    fputs("<section id=\"summary\"><h2>Summary</h2>", out);
    if (all > OMPB__HTML_MAX_DRAWN)
        fprintf(out, "<p id=\"drawn\">The first %d of the %zu instances are drawn; the others "
                     "show their median only (the result files hold every round).</p>",
                OMPB__HTML_MAX_DRAWN, all);
    fputs("<div class=\"scroll\"><table><tr><th>run</th><th>file</th>"
          "<th>host</th><th>date</th><th>instances</th></tr>", out);
    for (size_t f = 0; f < in->n_files; f++) {
        json_t *ctx = NULL, *host = NULL, *date = NULL;
        (void)json_unpack(in->roots[f], "{s?o}", "context", &ctx);
        if (json_is_object(ctx))
            (void)json_unpack(ctx, "{s?o, s?o}", "host_name", &host, "date", &date);
        fprintf(out, "<tr><td>%zu</td><td>", f + 1);
        ompb__html_text(out, in->files[f].path);
        fputs("</td><td>", out);
        ompb__html_text(out, str(host));
        fputs("</td><td>", out);
        ompb__html_text(out, str(date));
        fprintf(out, "</td><td>%zu</td></tr>", in->files[f].n);
    }
    size_t n = 0;
    each_entry(NULL, in, suspect_count, &n);
    fprintf(out, "</table></div><h3>Suspect results</h3><p id=\"suspect-count\">%zu suspect or failed "
                 "instance%s (&#9888;; the marks are explained in the <a href=\"#notes\">notes "
                 "on method</a> below)</p>"
                 "<details%s><summary>which, and why</summary><ul id=\"suspects\">", n,
            n == 1 ? "" : "s", n <= 10 ? " open" : "");
    each_entry(out, in, suspect_item, NULL);
    fputs("</ul></details><h3>How to read an instance</h3><p id=\"legend\"><b>Distribution</b>: "
          "a dot per round drawn, the median a line, its 95% interval a band, a cross for a "
          "round beyond 1.5 IQR. <b>Rounds in time order</b>: warm-up and drift show; click a "
          "round, or focus the chart and use the arrow keys, to see its threads. <b>Threads of "
          "a round</b>: per thread, the wait before its start (dotted outline), its busy time "
          "(dark) and its wait until the round's end (dashed, grey), from the team's first "
          "start to its last end. <b>Imbalance, skew</b>: max busy / mean busy and the start "
          "skew of each round drawn. <b>Fairness per thread</b>: each thread's busy time per "
          "round over the rounds (mean, median, CV) and the share of the rounds in which it "
          "finished last (near 1 / threads when fair).</p></section>\n", out);
}

/* Each family's fitted models (analysis/scaling.h), as the console says
 * them; the chart draws them dotted, beyond the fitted widths as a shaded
 * prediction. */
static void models(FILE *out, const ompb__scaling *s)
{
    fputs("<div class=\"models\"><h3>Models</h3><p>Fitted on the real points of each family "
          "(oversubscribed ones are left out): Amdahl's serial fraction, the Universal "
          "Scalability Law (contention sigma, coherency kappa) and its predicted peak, the "
          "Karp-Flatt serial fraction per width. A prediction beyond the widths fitted on is "
          "a model, not a measurement.</p>", out);
    for (size_t i = 0; i < s->n; i++) {
        fputs("<h4>", out);
        ompb__html_text(out, s->families[i].name);
        fputs("</h4><ul>", out);
        ompb__scaling_print_model(out, &s->families[i], "<li>", "</li>");
        fputs("</ul>", out);
    }
    fputs("</div>", out);
}

static int scaling_section(FILE *out, const ompb__html_input *in)
{
    ompb__scaling s;
    if (ompb__scaling_build_files(in->files, in->n_files, &s))
        return OMPB_ENOMEM;
    int rc = 0;
    if (s.n) {
        fputs("<section id=\"scaling\"><h2>Scaling</h2><p>Median time and efficiency against "
              "the width; the ideal line is strong or weak scaling as each chart says. Hollow "
              "points are oversubscribed (no speedup), bars the run-to-run range.</p>", out);
        rc = ompb__scaling_svg_element(out, &s, "scaling-chart");
        models(out, &s);
        fputs("</section>\n", out);
    }
    ompb__scaling_free(&s);
    return rc;
}

int ompb__html_report(FILE *out, const ompb__html_input *in)
{
    section_state st = {(size_t)-1, rounds_per_instance(in)};
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                 "<title>ompbench report</title><style>%s</style></head><body>\n"
                 "<header><h1>ompbench report</h1></header><main><nav aria-label=\"instances\">"
                 "<h2>Instances</h2><p><small>Tab to the list, then the arrow keys</small></p>"
                 "<ul id=\"instances\">", css);
    each_entry(out, in, nav_item, NULL);
    fputs("</ul></nav><div id=\"content\">", out);
    if (in->cmp)
        ompb__html_compare_summary(out, in->cmp);
    summary(out, in);
    notes(out, in);
    int rc = scaling_section(out, in);
    if (!rc && in->cmp)
        ompb__html_compare(out, in->cmp);
    if (!rc)
        rc = each_entry(out, in, section, &st);
    fprintf(out, "</div></main><script>%s</script></body></html>\n", script);
    return rc ? rc : ferror(out) ? OMPB_EIO : 0;
}

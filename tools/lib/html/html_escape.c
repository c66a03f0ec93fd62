/* SPDX-License-Identifier: MIT */
/*
 * Escaping for the page of `ompbench report` (html/html.h), used by the
 * page (html.c) and its instance and comparison parts alike, so it sits
 * below all three: text and attribute values as entities, and JSON that
 * no text in it can turn into the end of its script element.
 */
#include "html/html.h"

#include <stdlib.h>

#include <ompbench/error.h>

void ompb__html_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fputs("&#xFFFD;", out);
            else
                fputc(*p, out);
        }
    }
}

int ompb__html_json(FILE *out, const json_t *value)
{
    char *text = json_dumps(value, JSON_COMPACT);
    if (!text)
        return OMPB_ENOMEM;
    for (const char *p = text; *p; p++) {
        if (*p == '<')
            fputs("\\u003c", out);
        else if (*p == '>')
            fputs("\\u003e", out);
        else if (*p == '&')
            fputs("\\u0026", out);
        else
            fputc(*p, out);
    }
    free(text);
    return 0;
}

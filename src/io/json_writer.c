/* json_writer.c - see json_writer.h. */
#include "io/json_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(json_writer *w)
{
    memset(w, 0, sizeof *w);
}

void json_free(json_writer *w)
{
    free(w->buf);
    json_init(w);
}

int json_ok(const json_writer *w)
{
    return !w->failed && w->depth == 0 && w->buf;
}

static void put(json_writer *w, const char *s, size_t n)
{
    if (w->failed)
        return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 1024;
        while (cap < w->len + n + 1)
            cap *= 2;
        char *b = realloc(w->buf, cap);
        if (!b) {
            w->failed = 1;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}

static void puts_(json_writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static void newline(json_writer *w)
{
    puts_(w, "\n");
    for (int i = 0; i < w->depth; i++)
        puts_(w, "  ");
}

/* separator and indentation before a value or a key */
static void before_item(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0)
        return;
    int first = w->count[w->depth - 1]++ == 0;
    if (w->kind[w->depth - 1] == '{') {
        if (!first)
            puts_(w, ",");
        newline(w);
    } else if (!first) {
        puts_(w, ", ");
    }
}

static void begin(json_writer *w, char k)
{
    before_item(w);
    if (w->depth == JSON_MAX_DEPTH) {
        w->failed = 1;
        return;
    }
    put(w, &k, 1);
    w->kind[w->depth] = k;
    w->count[w->depth] = 0;
    w->depth++;
}

static void end(json_writer *w, char k)
{
    if (w->depth == 0 || w->kind[w->depth - 1] != k || w->after_key) {
        w->failed = 1;
        return;
    }
    int empty = w->count[w->depth - 1] == 0;
    w->depth--;
    if (k == '{' && !empty)
        newline(w);
    puts_(w, k == '{' ? "}" : "]");
}

void json_begin_object(json_writer *w) { begin(w, '{'); }
void json_end_object(json_writer *w) { end(w, '{'); }
void json_begin_array(json_writer *w) { begin(w, '['); }
void json_end_array(json_writer *w) { end(w, '['); }

/* length of a valid UTF-8 sequence at p, 0 if invalid */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 2 && p[0] < 0xC2)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

static void quoted(json_writer *w, const char *s)
{
    puts_(w, "\"");
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            put(w, esc, 2);
            p++;
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            puts_(w, esc);
            p++;
        } else {
            int n = utf8_len(p);
            if (n == 0) {
                puts_(w, "\\ufffd");
                p++;
            } else {
                put(w, (const char *)p, (size_t)n);
                p += n;
            }
        }
    }
    puts_(w, "\"");
}

void json_key(json_writer *w, const char *key)
{
    if (w->depth == 0 || w->kind[w->depth - 1] != '{' || w->after_key) {
        w->failed = 1;
        return;
    }
    before_item(w);
    quoted(w, key);
    puts_(w, ": ");
    w->after_key = 1;
}

void json_string(json_writer *w, const char *s)
{
    before_item(w);
    quoted(w, s);
}

void json_number(json_writer *w, double v)
{
    before_item(w);
    if (!isfinite(v)) {
        puts_(w, "null");
        return;
    }
    char b[40];
    snprintf(b, sizeof b, "%.10g", v);
    puts_(w, b);
}

void json_int(json_writer *w, long long v)
{
    before_item(w);
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    puts_(w, b);
}

void json_bool(json_writer *w, int b)
{
    before_item(w);
    puts_(w, b ? "true" : "false");
}

void json_null(json_writer *w)
{
    before_item(w);
    puts_(w, "null");
}

void json_key_number(json_writer *w, const char *key, double v)
{
    json_key(w, key);
    json_number(w, v);
}

/*
 * xml_paths.c - XML documents as element paths and their text (xml_paths.h), with expat.
 */
#include "io/xml_paths.h"

#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XML_MAX_TEXT ((size_t)1 << 20) /* keep at most 1 MiB of one element's text */
#define XML_MAX_DEPTH 64

struct lwt__xml_walk {
    XML_Parser parser;
    lwt__xml_element_fn fn;
    void *user;
    const char *docname;
    int depth;
    size_t plen[XML_MAX_DEPTH + 1];
    char path[1024];
    char *text;
    size_t tlen, tcap;
    lwt_status code; /* 0 or the failure set by a handler */
    char msg[400];
};

void lwt__xml_fail(lwt__xml_walk *w, lwt_status status, const char *fmt, ...)
{
    if (w->code)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof w->msg, fmt, ap);
    va_end(ap);
    w->code = status;
    XML_StopParser(w->parser, XML_FALSE);
}

static const char *local_name(const char *name)
{
    const char *c = strrchr(name, ':');
    return c ? c + 1 : name;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    lwt__xml_walk *w = (lwt__xml_walk *)ud;
    (void)atts;
    if (w->code)
        return;
    w->tlen = 0;
    if (w->text)
        w->text[0] = 0;
    /* a path the parser cannot hold is refused: dropping a name would read its children as its parent's */
    if (w->depth >= XML_MAX_DEPTH) {
        lwt__xml_fail(w, LWT_ERR_FORMAT, "%s: elements nested too deep (more than %d levels)", w->docname,
                      XML_MAX_DEPTH);
        return;
    }
    size_t len = strlen(w->path);
    w->plen[w->depth] = len;
    if (w->depth > 0) { /* the root element is not part of the path: any root name is accepted */
        const char *ln = local_name(name);
        size_t ll = strlen(ln);
        if (len + ll + 2 > sizeof w->path) {
            lwt__xml_fail(w, LWT_ERR_FORMAT, "%s: element name or path too long (%zu bytes, at most %zu) at <%.40s%s>",
                          w->docname, len + ll + 1, sizeof w->path - 1, ln, ll > 40 ? "..." : "");
            return;
        }
        if (len)
            w->path[len++] = '/';
        memcpy(w->path + len, ln, ll + 1);
    }
    w->depth++;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    lwt__xml_walk *w = (lwt__xml_walk *)ud;
    if (w->code || len <= 0 || w->depth < 2)
        return;
    if (w->tlen + (size_t)len + 1 > w->tcap) {
        if (w->tlen + (size_t)len + 1 > XML_MAX_TEXT)
            return; /* very long text: keep the beginning */
        size_t nc = w->tcap ? w->tcap : 256;
        while (nc < w->tlen + (size_t)len + 1)
            nc *= 2;
        char *nt = (char *)realloc(w->text, nc);
        if (!nt) {
            lwt__xml_fail(w, LWT_ERR_OUT_OF_MEMORY, "out of memory while parsing %s", w->docname);
            return;
        }
        w->text = nt;
        w->tcap = nc;
    }
    memcpy(w->text + w->tlen, s, (size_t)len);
    w->tlen += (size_t)len;
    w->text[w->tlen] = 0;
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    lwt__xml_walk *w = (lwt__xml_walk *)ud;
    (void)name;
    if (w->code)
        return;
    if (w->depth > 1)
        w->fn(w, w->user, w->path, w->text ? w->text : "");
    w->depth--;
    w->path[w->plen[w->depth]] = 0;
    w->tlen = 0;
    if (w->text)
        w->text[0] = 0;
}

lwt_status lwt__xml_walk_doc(lwt_context *ctx, const char *zpath, const char *docname, const char *xml, size_t len,
                             lwt__xml_element_fn fn, void *user)
{
    lwt__xml_walk w;
    memset(&w, 0, sizeof w);
    w.fn = fn;
    w.user = user;
    w.docname = docname;
    w.parser = XML_ParserCreate(NULL);
    if (!w.parser)
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, zpath, "out of memory (XML parser)");
    XML_SetUserData(w.parser, &w);
    XML_SetElementHandler(w.parser, on_start, on_end);
    XML_SetCharacterDataHandler(w.parser, on_text);
    int ok = 1;
    size_t off = 0;
    /* XML_Parse takes an int length: feed big documents in pieces */
    do {
        size_t chunk = len - off > ((size_t)1 << 28) ? ((size_t)1 << 28) : len - off;
        int last = off + chunk == len;
        if (XML_Parse(w.parser, xml + off, (int)chunk, last) == XML_STATUS_ERROR) {
            ok = 0;
            break;
        }
        off += chunk;
    } while (off < len);
    lwt_status rc = LWT_OK;
    if (w.code)
        rc = lwt__file_fail(ctx, w.code, zpath, "%s", w.msg);
    else if (!ok)
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "%s is not well-formed XML (line %lu): %s", docname,
                            (unsigned long)XML_GetCurrentLineNumber(w.parser),
                            XML_ErrorString(XML_GetErrorCode(w.parser)));
    XML_ParserFree(w.parser);
    free(w.text);
    return rc;
}

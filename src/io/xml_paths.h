/*
 * xml_paths.h - the XML documents of zip-based surface files (X3P main.xml, Sensofar .plux
 * index.xml) read as a list of element paths and their text: each element below the root is
 * handed to a callback at its end as "Record1/Axes/CX/Increment" (local names, any namespace
 * prefix dropped; the root's own name is not part of the path, so any root is accepted) with
 * the text directly inside it. expat; no tree is built.
 */
#ifndef LWT_IO_XML_PATHS_H
#define LWT_IO_XML_PATHS_H

#include <stddef.h>

#include "io/surface_file.h"

typedef struct lwt__xml_walk lwt__xml_walk;
/** One element ended: its path below the root and its text (at most 1 MiB of it is kept). */
typedef void (*lwt__xml_element_fn)(lwt__xml_walk *w, void *user, const char *path, const char *text);

/** Parse xml (len bytes, named docname in messages) and call fn for every element below the
 *  root. A path longer than 1023 bytes or elements nested more than 64 deep fail the document
 *  (dropping a name would read an element's children as its parent's), as does malformed XML
 *  ("DOCNAME is not well-formed XML (line N): ...") or a failure the callback reports with
 *  lwt__xml_fail. The failure is logged once as "ZPATH: message". */
lwt_status lwt__xml_walk_doc(lwt_context *ctx, const char *zpath, const char *docname, const char *xml, size_t len,
                             lwt__xml_element_fn fn, void *user);
/** From inside the callback: fail the document with status and message (which names the
 *  document itself where that helps: "main.xml: ..."); parsing stops, the first failure is the
 *  one reported. */
void lwt__xml_fail(lwt__xml_walk *w, lwt_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif

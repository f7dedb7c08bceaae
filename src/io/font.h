/*
 * font.h - a tiny built-in bitmap font for labels in PNG previews: 5 x 8 cells (caps and digits
 * 7 rows high, one row for descenders), printable ASCII letters, digits, common punctuation and
 * the micro sign (UTF-8 "µ"). Unknown characters draw as a small box.
 */
#ifndef LWT_IO_FONT_H
#define LWT_IO_FONT_H

#define LWT_FONT_W 5
#define LWT_FONT_H 8
#define LWT_FONT_ADVANCE 6 /* glyph width plus one column of space */

/** Rows of the glyph for the character starting at *s (UTF-8; advances *s past it).
 *  Each of the LWT_FONT_H strings has LWT_FONT_W characters, '#' = ink. */
const char *const *lwt_font_glyph(const char **s);
/** Number of glyphs in a UTF-8 string. */
int lwt_font_length(const char *s);

#endif

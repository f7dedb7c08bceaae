/*
 * fuzz_x3p_data.h - the fixed point data that fuzz_x3p_xml puts beside the main.xml it fuzzes:
 * 4 x 4 little-endian float64 heights (bindata/data.bin) and their valid-point bits
 * (bindata/valid.bin, one point invalid). tests/fuzz/make_corpus.py makes main.xml seeds that
 * describe exactly these bytes (sizes and MD5s), so that mutations start from a file the reader
 * accepts. Keep the two in step.
 */
#ifndef LWT_FUZZ_X3P_DATA_H
#define LWT_FUZZ_X3P_DATA_H

#include <stdint.h>

#define FUZZ_X3P_N 16

/* height i is (i % 5 - 2) * 1e-6 m, the formula make_corpus.py repeats */
static inline void fuzz_x3p_heights(unsigned char out[FUZZ_X3P_N * 8])
{
    for (int i = 0; i < FUZZ_X3P_N; i++) {
        double z = (i % 5 - 2) * 1e-6;
        uint64_t u;
        memcpy(&u, &z, 8);
        for (int b = 0; b < 8; b++)
            out[8 * i + b] = (unsigned char)(u >> (8 * b));
    }
}

/* every point valid but the last (LSB first) */
static const unsigned char fuzz_x3p_valid[2] = {0xff, 0x7f};

#endif

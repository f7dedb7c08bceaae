/* The built-in filter banks, generated from PyWavelets (tools/gen_wavelets.py). */
#ifndef LWT_CORE_WAVELET_TABLE_H
#define LWT_CORE_WAVELET_TABLE_H

typedef struct lwt_table_wavelet {
    const char *name;
    const char *family;
    int length;      /* PyWavelets dec_len (even for every discrete wavelet) */
    int orthogonal;
    const double *dec_lo, *dec_hi, *rec_lo, *rec_hi;
} lwt_table_wavelet;

extern const lwt_table_wavelet lwt_table_wavelets[];
extern const int lwt_table_wavelet_count;

#endif

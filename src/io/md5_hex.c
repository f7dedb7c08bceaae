/* md5_hex.c - MD5 as hex through OpenSSL EVP (md5_hex.h). */
#include "io/md5_hex.h"

#include <openssl/evp.h>
#include <stdlib.h>

struct lwt_md5 {
    EVP_MD_CTX *c;
    int bad;
};

lwt_md5 *lwt__md5_begin(void)
{
    lwt_md5 *m = (lwt_md5 *)calloc(1, sizeof *m);
    if (!m)
        return NULL;
    if (!(m->c = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(m->c, EVP_md5(), NULL)) {
        EVP_MD_CTX_free(m->c);
        free(m);
        return NULL;
    }
    return m;
}

int lwt__md5_add(lwt_md5 *m, const void *data, size_t len)
{
    if (!m->bad && !EVP_DigestUpdate(m->c, data, len))
        m->bad = 1;
    return m->bad ? -1 : 0;
}

int lwt__md5_end(lwt_md5 *m, char out[33])
{
    static const char hx[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    int ok = !m->bad && EVP_DigestFinal_ex(m->c, md, &mdlen) && mdlen == 16;
    EVP_MD_CTX_free(m->c);
    free(m);
    out[0] = 0;
    if (!ok)
        return -1;
    for (unsigned i = 0; i < 16; i++) {
        out[2 * i] = hx[md[i] >> 4];
        out[2 * i + 1] = hx[md[i] & 15];
    }
    out[32] = 0;
    return 0;
}

int lwt__md5_hex(const void *data, size_t len, char out[33])
{
    lwt_md5 *m = lwt__md5_begin();
    if (!m) {
        out[0] = 0;
        return -1;
    }
    lwt__md5_add(m, data, len);
    return lwt__md5_end(m, out);
}

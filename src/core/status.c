/* Status strings, version, mode names. */
#include <string.h>

#include "lwt.h"

#define LWT_STR2(x) #x
#define LWT_STR(x) LWT_STR2(x)

const char *lwt_version_string(void)
{
    return LWT_STR(LWT_VERSION_MAJOR) "." LWT_STR(LWT_VERSION_MINOR) "." LWT_STR(LWT_VERSION_PATCH);
}

const char *lwt_status_string(lwt_status s)
{
    switch (s) {
    case LWT_OK: return "success";
    case LWT_ERR_INVALID_ARGUMENT: return "invalid argument";
    case LWT_ERR_UNKNOWN_WAVELET: return "unknown wavelet";
    case LWT_ERR_UNKNOWN_MODE: return "unknown mode";
    case LWT_ERR_UNSUPPORTED: return "unsupported";
    case LWT_ERR_OUT_OF_MEMORY: return "out of memory";
    case LWT_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case LWT_ERR_DEVICE: return "device error";
    case LWT_ERR_ACCURACY: return "accuracy bound not met";
    case LWT_ERR_INTERNAL: return "internal error";
    case LWT_ERR_IO: return "input/output error";
    case LWT_ERR_FORMAT: return "bad file format";
    case LWT_ERR_CHECKSUM: return "checksum mismatch";
    case LWT_ERR_NOT_AREAL: return "not an areal surface";
    case LWT_ERR_NO_DATA: return "no valid data";
    }
    return "unknown status";
}

static const char *const mode_names[LWT_MODE_COUNT] = {
    "zero", "constant", "symmetric", "reflect", "periodic",
    "smooth", "antisymmetric", "antireflect", "periodization",
};

const char *lwt_mode_name(lwt_mode mode)
{
    if ((int)mode < 0 || (int)mode >= LWT_MODE_COUNT)
        return NULL;
    return mode_names[mode];
}

lwt_status lwt_mode_from_name(const char *name, lwt_mode *out)
{
    if (!name || !out)
        return LWT_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < LWT_MODE_COUNT; i++) {
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (lwt_mode)i;
            return LWT_OK;
        }
    }
    /* PyWavelets' own aliases of the same modes */
    if (strcmp(name, "zpd") == 0) { *out = LWT_MODE_ZERO; return LWT_OK; }
    if (strcmp(name, "cpd") == 0) { *out = LWT_MODE_CONSTANT; return LWT_OK; }
    if (strcmp(name, "sym") == 0) { *out = LWT_MODE_SYMMETRIC; return LWT_OK; }
    if (strcmp(name, "ppd") == 0) { *out = LWT_MODE_PERIODIC; return LWT_OK; }
    if (strcmp(name, "sp1") == 0) { *out = LWT_MODE_SMOOTH; return LWT_OK; }
    if (strcmp(name, "per") == 0) { *out = LWT_MODE_PERIODIZATION; return LWT_OK; }
    return LWT_ERR_UNKNOWN_MODE;
}

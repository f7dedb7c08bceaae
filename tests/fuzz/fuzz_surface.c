/*
 * fuzz_surface.c - libFuzzer harness for the auto-detecting reader, lwt_surface_read: it picks
 * the format from the magic bytes, else from the extension, so the first input byte picks the
 * file name's extension (.dat: none it knows, .x3p, .sdf, .sur, .plu, .npy, .al3d, .vk4) and
 * the rest is the file.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const ext[] = {".dat", ".x3p", ".sdf", ".sur", ".plu", ".npy", ".al3d", ".vk4"};
    if (size == 0)
        return 0;
    const char *path = fuzz_file(ext[data[0] % (sizeof ext / sizeof ext[0])]);
    fuzz_put(path, data + 1, size - 1);
    fuzz_read_surface(lwt_surface_read, path);
    return 0;
}

/*
 * fuzz_reader.c - libFuzzer harness for one surface reader given the raw file bytes. Built once
 * per reader (tests/fuzz/CMakeLists.txt): FUZZ_READ is the reader (lwt_surface_read_sdf, ...),
 * FUZZ_SUFFIX the name the file gets (the per-format readers do not look at it; the
 * auto-detecting reader has its own harness, fuzz_surface.c, which does). A reader must return
 * a status and, on LWT_OK, a surface whose every point can be read; ASan, UBSan and the leak
 * checker do the rest.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(FUZZ_SUFFIX);
    fuzz_put(path, data, size);
    fuzz_read_surface(FUZZ_READ, path);
    return 0;
}

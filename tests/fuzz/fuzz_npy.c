/*
 * fuzz_npy.c - libFuzzer harness for the .npy reader (npy_read: any dimension count, both byte
 * orders, Fortran order transposed, what `lwt forward` reads), under the memory limit.
 */
#include "fuzz_common.h"
#include "io/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(".npy");
    fuzz_put(path, data, size);
    npy_array a;
    char err[512];
    if (npy_read_max(path, FUZZ_MEMORY_LIMIT, &a, err, sizeof err) == 0) {
        fuzz_touch(a.data, a.count * npy_elem_size(a.dtype));
        npy_free(&a);
    }
    return 0;
}

/*
 * fuzz_mapped.c - libFuzzer harness for the memory-mapped .npy reader of `lwt forward --stream`
 * (src/io/mapped_array.c): a header it accepts must describe data inside the mapping, so every
 * byte of the array is read.
 */
#include "fuzz_common.h"
#include "io/mapped_array.h"
#include "io/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(".npy");
    fuzz_put(path, data, size);
    lwt_mapped m;
    char err[512];
    if (lwt_map_npy_read(path, &m, err, sizeof err) == 0) {
        fuzz_touch(m.data, m.count * npy_elem_size(m.dtype));
        lwt_map_close(&m);
    }
    return 0;
}

/*
 * fuzz_x3p_xml.c - libFuzzer harness for the X3P main.xml parser: the input is main.xml, put in
 * an archive beside a fixed, valid bindata/data.bin and bindata/valid.bin (fuzz_x3p_data.h), so
 * mutations reach everything main.xml decides: axes, types, sizes, links, checksums, offsets.
 */
#include "fuzz_zip.h"
#include "fuzz_x3p_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char heights[FUZZ_X3P_N * 8];
    fuzz_x3p_heights(heights);
    const fuzz_entry e[] = {{"main.xml", data, size},
                            {"bindata/data.bin", heights, sizeof heights},
                            {"bindata/valid.bin", fuzz_x3p_valid, sizeof fuzz_x3p_valid}};
    const char *path = fuzz_file(".x3p");
    fuzz_zip_put(path, e, 3);
    fuzz_read_surface(lwt_surface_read_x3p, path);
    return 0;
}

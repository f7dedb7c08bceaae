/*
 * fuzz_plux.c - libFuzzer harness for the Sensofar .plux reader (plux.c). A zip whose bytes are
 * mutated seldom gets past libzip's CRCs (fuzz_x3p_raw's experience), so the archive is built
 * around the input: bit 0 of the first byte picks what the rest is.
 *   0: index.xml, beside a fixed, valid LAYER_0.raw of 4 x 3 float32 heights (one NaN): every
 *      field index.xml decides (sizes, spacing, the layer's name, metadata, the XML itself);
 *   1: LAYER_0.raw, behind a well-formed index.xml declaring 1-8 points per row (bits 1-3) and
 *      as many whole rows as the data holds: the decoding of every float32 value.
 */
#include "fuzz_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *path = fuzz_file(".plux");
    if (!(data[0] & 1)) {
        static const float heights[12] = {-1.5f, 0.25f, 3.0f, 7.5f, 0.0f, -0.0f, 1e-3f, 2.0f, -4.0f, 5.5f, 6.0f, 1e3f};
        unsigned char raw[sizeof heights];
        memcpy(raw, heights, sizeof raw);
        memcpy(raw + 4 * 6, "\x00\x00\xc0\x7f", 4); /* a NaN: not measured */
        const fuzz_entry e[] = {{"index.xml", data + 1, size - 1}, {"LAYER_0.raw", raw, sizeof raw}};
        fuzz_zip_put(path, e, 2);
    } else {
        const size_t nx = (size_t)((data[0] >> 1) & 7) + 1, ny = (size - 1) / 4 / nx;
        if (ny == 0)
            return 0;
        char xml[512];
        int len = snprintf(xml, sizeof xml,
                           "<?xml version=\"1.0\"?>\n<xml><GENERAL><IMAGE_SIZE_X>%zu</IMAGE_SIZE_X>"
                           "<IMAGE_SIZE_Y>%zu</IMAGE_SIZE_Y><FOV_X>0.5</FOV_X><FOV_Y>0.25</FOV_Y></GENERAL>"
                           "<LAYER_0><FILENAME_Z>LAYER_0.raw</FILENAME_Z></LAYER_0></xml>\n",
                           nx, ny);
        const fuzz_entry e[] = {{"index.xml", xml, (size_t)len}, {"LAYER_0.raw", data + 1, nx * ny * 4}};
        fuzz_zip_put(path, e, 2);
    }
    fuzz_read_surface(lwt_surface_read_plux, path);
    return 0;
}

/*
 * fuzz_x3p_bin.c - libFuzzer harness for the X3P point data (bindata/data.bin and valid.bin)
 * behind a fixed, well-formed main.xml. The first input byte picks the layout main.xml declares:
 * bits 0-1 the Z type (I int16, L int32, F float32, D float64), bit 2 whether a valid.bin
 * follows the data, bits 3-5 the row length (1-8 points); the rest is data.bin, then valid.bin,
 * sized so that main.xml always describes whole rows (so the reader gets past the size checks
 * and decodes every record: NaN, infinities, denormals, invalid bits).
 */
#include "fuzz_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char types[4] = {'I', 'L', 'F', 'D'};
    static const size_t bytes[4] = {2, 4, 4, 8};
    if (size < 2)
        return 0;
    int t = data[0] & 3, with_valid = (data[0] >> 2) & 1;
    size_t nx = (size_t)((data[0] >> 3) & 7) + 1, payload = size - 1;
    /* points n with n * es + (valid ? ceil(n / 8) : 0) <= payload, in whole rows */
    size_t n = with_valid ? payload * 8 / (8 * bytes[t] + 1) : payload / bytes[t];
    size_t ny = n / nx;
    if (ny == 0)
        return 0;
    n = nx * ny;
    char xml[1024];
    int len = snprintf(xml, sizeof xml,
                       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<p:ISO5436_2 xmlns:p=\"http://www.opengps.eu/2008/ISO5436_2\">\n"
                       "<Record1><Revision>ISO5436 - 2000</Revision><FeatureType>SUR</FeatureType><Axes>\n"
                       "<CX><AxisType>I</AxisType><DataType>D</DataType><Increment>1e-6</Increment>"
                       "<Offset>0</Offset></CX>\n"
                       "<CY><AxisType>I</AxisType><DataType>D</DataType><Increment>2e-6</Increment>"
                       "<Offset>0</Offset></CY>\n"
                       "<CZ><AxisType>A</AxisType><DataType>%c</DataType><Increment>1e-9</Increment>"
                       "<Offset>0</Offset></CZ>\n"
                       "</Axes></Record1>\n"
                       "<Record3><MatrixDimension><SizeX>%zu</SizeX><SizeY>%zu</SizeY><SizeZ>1</SizeZ>"
                       "</MatrixDimension>\n<DataLink><PointDataLink>bindata/data.bin</PointDataLink>%s"
                       "</DataLink></Record3>\n</p:ISO5436_2>\n",
                       types[t], nx, ny, with_valid ? "<ValidPointsLink>bindata/valid.bin</ValidPointsLink>" : "");
    const fuzz_entry e[] = {{"main.xml", xml, (size_t)len},
                            {"bindata/data.bin", data + 1, n * bytes[t]},
                            {"bindata/valid.bin", data + 1 + n * bytes[t], (n + 7) / 8}};
    const char *path = fuzz_file(".x3p");
    fuzz_zip_put(path, e, with_valid ? 3 : 2);
    fuzz_read_surface(lwt_surface_read_x3p, path);
    return 0;
}

/* lwt-bench: `lwt bench` as its own program, for machines where the full CLI
 * cannot be built (no libzip/expat/libpng headers, e.g. the GPU machine). */
#include "cli.h"
#include "harness.h"

int main(int argc, char **argv) { return cmd_bench(argc, argv); }

/*
 * lwt - command-line front end. Thin: parses arguments, reads and writes
 * files, calls liblwt. Exit status: 0 success, 1 runtime error, 2 usage error;
 * every error is one line on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lwt.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lwt COMMAND [OPTIONS]\n"
            "\n"
            "commands:\n"
            "  forward -w WAVELET -l LEVELS|max -m MODE [--backend auto|cpu|cuda] IN.npy OUT.npy\n"
            "      multi-level n-D DWT (1-3 dims, float16/float32/float64: OUT keeps IN's dtype); OUT holds\n"
            "      pywt.coeffs_to_array(pywt.wavedecn(x, WAVELET, MODE, LEVELS))[0]\n"
            "  inverse -w WAVELET -l LEVELS|max -m MODE --shape D0[,D1[,D2]] [--backend ...] IN.npy OUT.npy\n"
            "      reads that packed layout, writes pywt.waverecn(...) cropped to the shape\n"
            "  info      wavelets (family, filter length, lifting steps, path), modes, backends, devices\n"
            "  info --explain -w WAVELET -l LEVELS|max -m MODE --shape D0[,D1[,D2]] [--dtype f32|f64|f16|bf16]\n"
            "       [--batch N] [--backend ...] [--algorithm ...]\n"
            "      the plan's steps: for each level and axis the kernel or pass that runs, where bands go\n"
            "  demo [--size N] [-w WAVELET] [-l LEVELS] [-m MODE] [--dtype f32|f64]\n"
            "      forward/inverse round trip on a generated 2-D array\n"
            "  filter INPUT... -o OUTDIR [--filter wavelet|gaussian|robust-gaussian] [-w WAVELET] [-l LEVELS]\n"
            "         [--roughness-levels A-B] [--waviness-levels C-D] [--lambda-s UM] [--lambda-c UM]\n"
            "         [--form none|plane|poly:N|sphere|cylinder-x|cylinder-y] [--plane = --form poly:1]\n"
            "         [--spacing DX[,DY]] [--z-unit m|mm|um|nm] [--backend auto|cpu|cuda]\n"
            "         [--dtype f32|f64] [--preview-size PX] [--no-png] [-m MODE] [--spatial] [--no-material]\n"
            "         [--features] [--bands-format x3p|sdf|npy] [--no-pipeline]\n"
            "      split measured surfaces (.x3p .sdf .sur .plu .plux .datx .gwy .al3d .vk4 .npy) into form, waviness\n"
            "      and roughness (default cdf97, 6 levels, roughness = levels 1-3; --filter gaussian: ISO 16610-61 with\n"
            "      the nesting indices --lambda-s/-c as given, 800um or 0.8mm; --filter robust-gaussian: its L- and form\n"
            "      filters by ISO 16610-71's robust Gaussian regression, for deep valleys); writes OUTDIR/NAME/ with\n"
            "      form.x3p, waviness.x3p, roughness.x3p, report.json (ISO 25178-2 parameters; --spatial adds\n"
            "      Sal, Str, Std, --features Spd ... Shv), material_ratio.csv and PNG previews; --form removes a least-squares\n"
            "      form first (polynomial of degree N = 1..6, sphere, cylinder with its axis along x or y)\n"
            "      (the bands as binary SDF or .npy with --bands-format); a batch reads the next input while\n"
            "      it filters one and writes the one before (--no-pipeline: one input after the other)\n"
            "  synth OUT.x3p|.sdf|.npy [--size N|NX,NY] [--spacing DX[,DY]] [--preset milled|ground]\n"
            "        [--form sphere|cylinder|tilt|flat] [--seed S] [--invalid FRACTION] [--truth]\n"
            "      synthetic surface with known parts (--truth writes OUT_form, OUT_waviness, OUT_roughness)\n"
            "\n"
            "options common to forward/inverse:\n"
            "  --algorithm auto|lifting|convolution|rc|lbb|rc-steps\n"
            "                                         (default auto: lifting where it is exact; rc: one\n"
            "                                         pass per axis; lbb: 2-D levels in one sliding-window pass)\n"
            "  --threads N                            CPU threads (default: all)\n"
            "\n"
            "streamed forward/inverse (memory-mapped files, any size, bit-identical to in memory):\n"
            "  --stream                               use the streamed engine\n"
            "  --chunk-rows N                         input rows per chunk (default: about 64 MiB)\n"
            "  --devices 0,1|all                      CUDA workers (default: every GPU, else one CPU worker)\n"
            "  --cpu-worker | --cpu-workers N         CPU workers (next to the GPUs, or several for tests)\n"
            "  --balance static|weighted|queue|fnn    chunk assignment policy (default queue)\n"
            "  --raw f16|f32|f64 --shape D0[,D1[,D2]] input is raw native floats (forward); float16\n"
            "                                         (raw or .npy) gives float16, as in memory\n"
            "  --scratch-dir DIR                      file-backed scratch for inputs larger than RAM\n"
            "  --report                               per-worker chunks, busy time and GPU stage times\n"
            "  --no-pinned-pool --no-overlap --naive-blocks   switch off seed 000's optimizations\n"
            "  --fuse-levels N                        at most N levels per pass over the data (0 = auto)\n"
            "  --slow-worker I:F --fail-worker I:N    test options: slow worker I by F, fail it on chunk N\n"
            "\n"
            "forward/inverse over MPI ranks (mpirun -np N lwt forward --mpi ...; builds with MPI):\n"
            "  --mpi                                  each rank reads its rows (MPI-IO), the ranks transform\n"
            "                                         together, the output appears when every rank succeeded\n"
            "  --raw f16|f32|f64 --shape ... --chunk-rows N   as for --stream; --fail-rank R: test option\n"
            "\n"
            "modes: zero constant symmetric reflect periodic smooth antisymmetric antireflect periodization\n"
            "wavelets: every PyWavelets discrete wavelet (haar db1-38 sym2-20 coif1-17 bior* rbio* dmey)\n"
            "          and the aliases cdf97 cdf53 d4 d8 d20\n"
            "\n"
            "every command:\n"
            "  --max-memory SIZE                      refuse inputs whose declared size needs more memory\n"
            "                                         (e.g. 64M, 2G; 0: no limit; default 3/4 of the RAM)\n"
            "  --ignore-checksum                      read a surface file whose checksum does not match its\n"
            "                                         data (X3P MD5s) with a warning instead of refusing it\n"
            "\n"
            "lwt --version | lwt --help\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LWT_EXIT_USAGE;
    }
    if (cli_take_max_memory(&argc, argv))
        return LWT_EXIT_USAGE;
    cli_take_ignore_checksum(&argc, argv);
    if (argc < 2) {
        usage(stderr);
        return LWT_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("lwt %s\n", lwt_version_string());
        return 0;
    }
    if (!strcmp(cmd, "forward"))
        return cmd_transform(argc - 1, argv + 1, 0);
    if (!strcmp(cmd, "inverse"))
        return cmd_transform(argc - 1, argv + 1, 1);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "demo"))
        return cmd_demo(argc - 1, argv + 1);
    if (!strcmp(cmd, "filter"))
        return cmd_filter(argc - 1, argv + 1);
    if (!strcmp(cmd, "synth"))
        return cmd_synth(argc - 1, argv + 1);
    fprintf(stderr, "lwt: unknown command '%s' (try 'lwt --help')\n", cmd);
    return LWT_EXIT_USAGE;
}

/*
 * sim/cc/options.c — NVRTC's compile options translated for the host
 * C++ compiler: -I, -D, -U, --std= and --pre-include carried over, the
 * options that only steer GPU code generation accepted and ignored, any
 * other refused with the log naming it. Apart from the compiler
 * (sim/cc/cxx.c) because it is NVRTC's option language, not the host
 * compiler's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cc/cc.h"

static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* NVRTC options that only steer GPU code generation: accepted, ignored. */
static int gpu_only(const char *o)
{
    static const char *const exact[] = {
        "-G", "--device-debug", "-lineinfo", "--generate-line-info", "-use_fast_math",
        "--use_fast_math", "-ewp",
        "--extensible-whole-program", "-dlto", "--dlink-time-opt", "-extended-lambda",
        "--extended-lambda", "-expt-relaxed-constexpr", "--expt-relaxed-constexpr",
        "-expt-extended-lambda", "--expt-extended-lambda", "-restrict", "--restrict", "-err-no",
        "--display-error-number", "-no-err-no", "--no-display-error-number", "-device-int128",
        "--device-int128", "-fdevice-syntax-only", "--fdevice-syntax-only", "-minimal",
        "--minimal", "-pch", "--pch", "-no-source-include", "--no-source-include", "-dw",
        "--disable-warnings-device", "-Werror=all-warnings", "--Werror=all-warnings",
        "-static-global-template-stub=true", "-static-global-template-stub=false",
        "-include-dir-fs-check", "-no-cache", "-lto", "--lto"};
    static const char *const prefixes[] = {
        "--gpu-architecture=", "-arch=", "--maxrregcount=", "-maxrregcount=", "--fmad=",
        "-fmad=", "--ftz=", "-ftz=", "--prec-div=", "-prec-div=", "--prec-sqrt=", "-prec-sqrt=",
        "-rdc=", "--relocatable-device-code=", "-dopt=", "--dopt=", "--diag-suppress=",
        "-diag-suppress=", "--diag-error=", "-diag-error=", "--diag-warn=", "-diag-warn=",
        "-optimization-info=", "--optimization-info=", "-Ofast-compile=", "--Ofast-compile=",
        "-ofast-compile=", "--pch-dir=", "-pch-dir=", "-pch-messages=", "--pch-messages=",
        "-pch-verbose=", "--pch-verbose=", "-instantiate-templates-in-pch=",
        "--instantiate-templates-in-pch=", "-create-pch=", "--create-pch=", "-use-pch=",
        "--use-pch=", "-time=", "--time=", "-split-compile=", "--split-compile=",
        "-jump-table-density=", "--jump-table-density=", "-fdevice-time-trace=",
        "--fdevice-time-trace=", "-builtin-move-forward=", "--builtin-move-forward=",
        "-builtin-initializer-list=", "--builtin-initializer-list=", "-Xptxas=", "--ptxas-options="};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(o, exact[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (has_prefix(o, prefixes[i]))
            return 1;
    return 0;
}

/* A CUDA toolkit's include dir or libcu++'s (CCCL): its headers are not the
 * user's code, so the simulator reads them as system headers. */
static int is_toolkit_dir(const char *d)
{
    static const char *const marks[] = {"cuda_runtime_api.h", "cuda/std/version", "cuda/std/__cccl"};
    char p[4096];
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", d, marks[i]);
        if (access(p, F_OK) == 0)
            return 1;
    }
    return 0;
}

/* Translates NVRTC options; -1 with the log naming the bad one. */
int pcc_sim_parse_options(int n, const char *const *opts, pcc_sim_options *O, pcc_sbuf *log)
{
    O->std = "-std=c++17";
    for (int i = 0; i < n; i++) {
        const char *o = opts[i];
        const char *next = i + 1 < n ? opts[i + 1] : NULL;
        if (o == NULL) {
            pcc_sb_puts(log, "error: option list contains NULL\n");
            return -1;
        }
        const char *val = NULL;
        char kind = 0;
        if (has_prefix(o, "--include-path="))
            kind = 'I', val = o + 15;
        else if (has_prefix(o, "--define-macro="))
            kind = 'D', val = o + 15;
        else if (has_prefix(o, "--undefine-macro="))
            kind = 'U', val = o + 17;
        else if ((o[0] == '-' && (o[1] == 'I' || o[1] == 'D' || o[1] == 'U')) ||
                 strcmp(o, "--include-path") == 0 || strcmp(o, "--define-macro") == 0 ||
                 strcmp(o, "--undefine-macro") == 0) {
            kind = o[1] == '-' ? (char)(o[2] == 'i' ? 'I' : o[2] == 'd' ? 'D' : 'U') : o[1];
            if (o[1] != '-' && o[2] != '\0')
                val = o[2] == '=' ? o + 3 : o + 2;
            else if (next) {
                val = next;
                i++;
            } else {
                pcc_sb_printf(log, "error: option '%s' needs a value\n", o);
                return -1;
            }
        }
        if (kind) {
            char flag[3] = {'-', kind, '\0'};
            pcc_sbuf a = {0};
            pcc_sb_puts(&a, flag);
            pcc_sb_puts(&a, val);
            if (a.oom || pcc_sl_adds(&O->args, a.p) < 0) {
                free(a.p);
                return -1;
            }
            free(a.p);
            if (kind == 'I') {
                pcc_sl_adds(&O->inc_dirs, val);
                if (is_toolkit_dir(val)) { /* searched where the user put it, read as system */
                    free(O->args.v[--O->args.n]);
                    O->args.v[O->args.n] = NULL;
                    pcc_sl_adds(&O->sys_dirs, val);
                }
            }
            continue;
        }
        if (has_prefix(o, "--std=") || has_prefix(o, "-std=")) {
            const char *v = strchr(o, '=') + 1;
            if (strcmp(v, "c++20") == 0)
                O->std = "-std=c++20";
            else if (strcmp(v, "c++17") == 0 || strcmp(v, "c++14") == 0 || strcmp(v, "c++11") == 0 ||
                     strcmp(v, "c++03") == 0)
                O->std = "-std=c++17"; /* the prelude needs C++17 */
            else {
                pcc_sb_printf(log, "error: invalid value for option '%s' (expected c++03, c++11, c++14, "
                               "c++17 or c++20)\n", o);
                return -1;
            }
            continue;
        }
        if (has_prefix(o, "--pre-include=") || has_prefix(o, "-include=") || strcmp(o, "--pre-include") == 0 ||
            strcmp(o, "-include") == 0) {
            const char *v = strchr(o, '=') ? strchr(o, '=') + 1 : next;
            if (v == NULL || *v == '\0') {
                pcc_sb_printf(log, "error: option '%s' needs a header name\n", o);
                return -1;
            }
            if (!strchr(o, '='))
                i++;
            pcc_sl_adds(&O->args, "-include");
            pcc_sl_adds(&O->args, v);
            pcc_sl_adds(&O->pre, v);
            continue;
        }
        if (strcmp(o, "-w") == 0 || strcmp(o, "--disable-warnings") == 0) {
            pcc_sl_adds(&O->args, "-w");
            continue;
        }
        if (strcmp(o, "-arch") == 0 || strcmp(o, "--gpu-architecture") == 0 || strcmp(o, "-dopt") == 0 ||
            strcmp(o, "--dopt") == 0) {
            if (next)
                i++;
            continue;
        }
        if (strcmp(o, "-default-device") == 0 || strcmp(o, "--device-as-default-execution-space") == 0) {
            O->default_device = 1;
            continue;
        }
        if (has_prefix(o, "--pycudac-sim-system-include=")) { /* pycudac's own: libcu++ found */
            pcc_sl_adds(&O->sys_dirs, o + strlen("--pycudac-sim-system-include="));
            pcc_sl_adds(&O->inc_dirs, o + strlen("--pycudac-sim-system-include="));
            continue;
        }
        if (strcmp(o, "--pycudac-sim-check") == 0) { /* pycudac's own: check mode's build */
            O->check = 1;
            continue;
        }
        if (gpu_only(o))
            continue;
        pcc_sb_printf(log, "error: unrecognized option '%s' (the pycudac CPU simulator accepts NVRTC's "
                       "options: -I, -D, -U, --std=, and ignores the GPU-only ones)\n", o);
        return -1;
    }
    return O->args.oom || O->inc_dirs.oom ? -1 : 0;
}

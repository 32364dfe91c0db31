/* ------------------------------------------------------------------------------------------------
 * tests/test_skeleton.h: the skeleton the CPU reference tests (tests/cpu/test_*_ref.c) share, so
 * that each keeps only its filter's cases: the pass/fail counts, a main that runs the named groups
 * of checks (all by default; a name that matches none fails) or one extra mode such as a check
 * against another library, pixel access, running a reference and reporting why it refused, the
 * comparison of a reference's image with a definition's (padding included), the loop that does so
 * on random images of awkward sizes and pitches, and the run of a checking script in Python
 * (exit 77, skipped, where it lacks its modules).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_TEST_SKELETON_H
#define FV_TEST_SKELETON_H

#include "test_util.h"

#include <sys/wait.h>

#define TEST_PAD_BYTES 12 /* extra bytes at the end of each row of the padded test images */

static test_counts t;

static inline uint8_t *px(const fv_image *img, int x, int y)
{
    return img->data + (size_t)y * img->pitch + 4 * (size_t)x;
}

/* the pixel as one little-endian word: R in the low byte */
static inline uint32_t px32(const fv_image *img, int x, int y)
{
    const uint8_t *q = px(img, x, y);
    return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static inline int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* Channel c of every pixel, row by row, against want[] */
static inline int channel_is(const fv_image *img, int c, const uint8_t *want)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            if (px(img, x, y)[c] != want[y * img->width + x]) return 0;
    return 1;
}

/* Every value 0, one iteration: the start of a test's own parameter set. */
static inline fv_params test_params_blank(void)
{
    fv_params p;
    memset(&p, 0, sizeof p);
    p.iterations = 1;
    return p;
}

/* Runs a reference with the configuration `make` (the filter's config_make) makes of p, as
 * prepare would; when it refuses, prints why after `what` ("box_ref radius 3"). 1: it ran. */
static inline int test_ref_runs(fv_config_make_fn make, fv_ref_fn ref, const fv_image *src,
                                fv_image *dst, const fv_params *p, const char *what)
{
    fv_config config;
    char why[200] = "";
    if (!make(p, &config, why, sizeof why)) {
        printf("%s: %s\n", what, why);
        return 0;
    }
    const fv_status st = ref(src, dst, &config);
    if (st != FV_OK) printf("%s: %s\n", what, fv_last_error());
    return st == FV_OK;
}

/* One check: `ran` (the reference ran), `got` equals `want` exactly and got's row padding is
 * untouched; `what` names the case, the first differing pixel is added to it. */
static inline void test_check_equal(int ran, const fv_image *got, const fv_image *want,
                                    const char *check, const char *what)
{
    int fx = -1, fy = -1;
    const int ok =
        ran && test_max_abs_diff(got, want, 0, &fx, &fy) == 0 && test_padding_intact(got);
    char detail[300];
    snprintf(detail, sizeof detail, "%s (first difference at %d,%d)", what, fx, fy);
    test_check(&t, ok, check, detail);
}

/* ---- a reference against its definition on random images ---- */
/* One case of test_against_definition: a random source (the case may change it first, e.g. add
 * noise), the reference's image and the definition's, and the case's name. */
typedef struct test_case {
    int size, set;           /* which size (0..n_sizes-1) and parameter set (0..n_sets-1) */
    fv_image src, got, want; /* got: rows padded by TEST_PAD_BYTES in every other case */
    uint32_t *seed;
    char what[200];
} test_case;

/* Runs the reference on c->src into c->got and the definition into c->want, names the case in
 * c->what; returns 1 when the reference ran. */
typedef int (*test_definition_fn)(test_case *c);

/* Every size x every parameter set: a fresh random source each, the destination's rows padded in
 * every other case (so that both layouts meet every size), one check each. */
static inline void test_against_definition(const int (*sizes)[2], size_t n_sizes, int n_sets,
                                           test_definition_fn run, uint32_t *seed,
                                           const char *check)
{
    for (size_t s = 0; s < n_sizes; s++)
        for (int k = 0; k < n_sets; k++) {
            const int w = sizes[s][0], h = sizes[s][1];
            const size_t pad = (s + (size_t)k) % 2 ? TEST_PAD_BYTES : 0;
            test_case c = {.size = (int)s, .set = k, .seed = seed};
            c.src = test_image_padded(w, h, pad);
            c.got = test_image_padded(w, h, pad);
            c.want = test_image_padded(w, h, 0);
            test_fill_random(&c.src, seed);
            const int ran = run(&c);
            test_check_equal(ran, &c.got, &c.want, check, c.what);
            free(c.src.data);
            free(c.got.data);
            free(c.want.data);
        }
}

/* ---- a checking script ---- */
/* Appends " 'path'" to the file list of a script's command line; 0 when it does not fit. */
static inline int test_files_add(char *files, size_t size, const char *path)
{
    const size_t len = strlen(files);
    if (len + strlen(path) + 4 > size) return 0;
    snprintf(files + len, size - len, " '%s'", path);
    return 1;
}

/* Runs `python3 SCRIPT FILES` (the first python3 on PATH, then the system's, which may have the
 * modules a version manager's lacks); returns the script's exit code, 77 where no python3 has its
 * modules or none runs at all. */
static inline int test_python(const char *script, const char *files)
{
    static const char *const pythons[] = {"python3", "/usr/bin/python3"};
    int code = 127;
    for (size_t i = 0; i < sizeof pythons / sizeof pythons[0] && (code == 77 || code == 127); i++) {
        char command[9400];
        snprintf(command, sizeof command, "%s '%s'%s", pythons[i], script, files);
        fflush(stdout);
        const int status = system(command);
        code = status == -1 ? 127 : (WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
    return code == 127 ? 77 : code;
}

/* ---- main ---- */
/* A named group of checks; `run` or, where it draws random images, `seeded`. */
typedef struct test_group {
    const char *name;
    void (*run)(void);
    void (*seeded)(uint32_t *seed);
} test_group;
#define TEST_GROUP(fn)                                                                             \
    {                                                                                              \
        .name = #fn, .run = fn                                                                     \
    }
#define TEST_SEEDED(fn)                                                                            \
    {                                                                                              \
        .name = #fn, .seeded = fn                                                                  \
    }

/* `PROGRAM --FLAG ARGS...` runs `run` on ARGS (at least min_args) instead of the groups and exits
 * with what it returns. */
typedef struct test_mode {
    const char *flag;
    int min_args;
    const char *usage;
    int (*run)(int argc, char **argv, uint32_t *seed);
} test_mode;

/* `PROGRAM [GROUP...]`: the groups named (all without a name), then "N passed, N failed";
 * `PROGRAM --FLAG ARGS...`: that mode. Exit 1 on a failure, 2 on a usage error. */
static inline int test_main(int argc, char **argv, const test_group *groups, size_t n_groups,
                            const test_mode *modes, size_t n_modes)
{
    uint32_t seed = test_seed();
    if (argc > 1 && strncmp(argv[1], "--", 2) == 0) {
        for (size_t m = 0; m < n_modes; m++)
            if (strcmp(argv[1], modes[m].flag) == 0 && argc - 2 >= modes[m].min_args)
                return modes[m].run(argc - 2, argv + 2, &seed);
        fprintf(stderr, "usage: %s [GROUP...]", argv[0]);
        for (size_t m = 0; m < n_modes; m++)
            fprintf(stderr, "\n       %s %s %s", argv[0], modes[m].flag, modes[m].usage);
        fprintf(stderr, "\n");
        return 2;
    }
    for (int a = 1; a < argc; a++) { /* a name that selects no group fails: it would test nothing */
        size_t g = 0;
        while (g < n_groups && strcmp(argv[a], groups[g].name) != 0) g++;
        if (g == n_groups) test_check(&t, 0, "no group of checks is named", argv[a]);
    }
    if (t.failed) return test_finish(&t);
    for (size_t g = 0; g < n_groups; g++) {
        int chosen = argc == 1;
        for (int a = 1; a < argc; a++) chosen |= strcmp(argv[a], groups[g].name) == 0;
        if (!chosen) continue;
        if (groups[g].seeded)
            groups[g].seeded(&seed);
        else
            groups[g].run();
    }
    return test_finish(&t);
}

#endif

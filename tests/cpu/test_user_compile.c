/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_user_compile.c: user kernels without a GPU (kernels/user/): the contract header of
 * every filter compiles with NVRTC, every example in examples/kernels compiles, a syntax error, a
 * missing entry point and a wrong signature each give one "file:line: ..." message with the right
 * line, the cache is hit by a second compile and missed by a changed source or option, and the
 * modification-time check sees a saved file. NVRTC runs on the CPU, so all of this runs in CI.
 * Usage: test_user_compile EXAMPLES_DIR TEMP_DIR
 * ------------------------------------------------------------------------------------------------ */
#define _GNU_SOURCE /* utimensat, setenv */
#include "test_util.h"
#include "user/user_kernel.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

static test_counts t;
static const char *examples_dir, *temp_dir;
static fv_user_options no_cache = {.no_cache = 1};

/* each example and the filter it is written for: a new example needs a row here */
static const struct {
    const char *file, *filter;
    int two_pass, has_launch;
} examples[] = {
    {"gaussian_naive.cu", "gaussian", 0, 1},     {"gaussian_smem.cu", "gaussian", 0, 1},
    {"gaussian_smem_mwpt.cu", "gaussian", 0, 1}, {"gaussian_separable.cu", "gaussian", 1, 0},
    {"smem_race.cu", "gaussian", 0, 1},          {"box_todo.cu", "box", 0, 0},
    {"median_slow.cu", "median", 0, 0},
};
#define N_EXAMPLES (int)(sizeof examples / sizeof examples[0])

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("cannot write %s\n", path);
        exit(1);
    }
}

static void temp_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", temp_dir, name);
}

/* compiles `text` saved as NAME in the temp dir for filter f */
static fv_status compile_text(const fv_filter *f, const char *name, const char *text,
                              const fv_user_options *o, fv_user_build **b, fv_user_diag *d,
                              char *path, size_t path_size)
{
    temp_path(path, path_size, name);
    write_file(path, text);
    return fv_user_compile(f, path, o, b, d);
}

static void test_contracts(void)
{
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        char *h = fv_user_contract(f);
        test_check(&t, h && strstr(h, "fv_pass") && strstr(h, "#pragma once"),
                   "contract header made for", f->name);
        free(h);
        /* one pass touching every helper, and a two-pass kernel with FV_LAUNCH */
        static const char one[] =
            "#include \"filterview.h\"\n"
            "__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)\n"
            "{\n"
            "    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;\n"
            "    if (x < src.width && y < src.height)\n"
            "        fv_row_out(dst, y)[x] = fv_pixel_clamped(src, x - 1, y + 1);\n"
            "}\n";
        static const char two[] =
            "#include \"filterview.h\"\n"
            "FV_LAUNCH(p, pass) { fv_launch l = fv_launch_block(32, 4 + pass); return l; }\n"
            "__global__ void fv_pass1(const fv_image src, const fv_scratch s, const fv_params p)\n"
            "{ fv_scratch_row(s, 0)[0] = make_uint4(fv_row(src, 0)[0].x, 0, 0, 0); }\n"
            "__global__ void fv_pass2(const fv_scratch s, const fv_image src, const fv_image dst,\n"
            "                         const fv_params p)\n"
            "{ fv_row_out(dst, 0)[0] = make_uchar4(fv_scratch_row_f(s, 0)[0].x, 0, 0, 0); }\n";
        char path[512];
        fv_user_build *b = NULL;
        fv_user_diag d;
        fv_status st =
            compile_text(f, "contract_one.cu", one, &no_cache, &b, &d, path, sizeof path);
        test_check(&t, st == FV_OK && b && !b->two_pass && !b->has_launch,
                   "a one-pass kernel compiles against the contract of", fv_last_error());
        if (st == FV_OK) test_check(&t, b->code_size > 0 && b->log[0] == 0, "no warnings:", b->log);
        fv_user_build_free(b);
        st = compile_text(f, "contract_two.cu", two, &no_cache, &b, &d, path, sizeof path);
        test_check(&t, st == FV_OK && b && b->two_pass && b->has_launch,
                   "a two-pass kernel with FV_LAUNCH compiles against the contract of",
                   st == FV_OK ? f->name : fv_last_error());
        fv_user_build_free(b);
    }
}

static void test_examples(void)
{
    for (int i = 0; i < N_EXAMPLES; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", examples_dir, examples[i].file);
        fv_user_build *b = NULL;
        const fv_status st =
            fv_user_compile(fv_filter_find(examples[i].filter), path, &no_cache, &b, NULL);
        test_check(&t, st == FV_OK, "example compiles:", st == FV_OK ? path : fv_last_error());
        if (st == FV_OK) {
            test_check(
                &t, b->two_pass == examples[i].two_pass && b->has_launch == examples[i].has_launch,
                "example's passes and launch are seen:", path);
            test_check(&t, b->log[0] == 0, "example compiles without warnings:", b->log);
            test_check(&t, strcmp(b->name, examples[i].file) == 0,
                       "the variant is named after the file:", b->name);
        }
        fv_user_build_free(b);
    }
    /* every .cu in the folder is one of them (and so is compiled here) */
    DIR *dir = opendir(examples_dir);
    test_check(&t, dir != NULL, "examples folder opens:", examples_dir);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        const size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 3, ".cu") != 0) continue;
        int known = 0;
        for (int i = 0; i < N_EXAMPLES; i++) known |= strcmp(examples[i].file, e->d_name) == 0;
        test_check(&t, known, "example listed in tests/cpu/test_user_compile.c:", e->d_name);
    }
    if (dir) closedir(dir);
}

/* One message, one line: "PATH:LINE: " then `want` somewhere after it. */
static void expect_error(const char *name, const char *filter, const char *text, int line,
                         const char *want)
{
    char path[512], prefix[600];
    fv_user_build *b = NULL;
    fv_user_diag d;
    const fv_status st =
        compile_text(fv_filter_find(filter), name, text, &no_cache, &b, &d, path, sizeof path);
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    const char *msg = fv_last_error();
    char detail[900];
    snprintf(detail, sizeof detail, "%s -> %s", name, msg);
    test_check(&t, st != FV_OK && b == NULL, "fails to compile:", detail);
    test_check(&t, strncmp(msg, prefix, strlen(prefix)) == 0 && strstr(msg, want) != NULL,
               "one message at the right file:line with its reason:", detail);
    test_check(&t, strchr(msg, '\n') == NULL, "the message is one line:", detail);
    test_check(&t, d.line == line && strcmp(d.file, path) == 0 && strstr(d.text, want),
               "the diagnostic's file, line and text:", detail);
}

static void test_errors(void)
{
    expect_error(
        "syntax.cu", "gaussian",
        "#include \"filterview.h\"\n"
        "\n"
        "__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)\n"
        "{\n"
        "    int x = blockIdx.x\n"
        "    int y = blockIdx.y;\n"
        "}\n",
        6, "error: expected a \";\"");
    expect_error(
        "missing.cu", "gaussian",
        "/* my blur: fv_pass( comes later */\n"
        "#include \"filterview.h\"\n"
        "\n"
        "__global__ void my_blur(const fv_image src, const fv_image dst, const fv_params p)\n"
        "{\n"
        "}\n",
        4, "no entry point");
    expect_error("empty.cu", "box", "#include \"filterview.h\"\n", 1, "no entry point");
    /* a file name that looks like NVRTC's "(line): " is still the file, not line 12 of "odd" */
    expect_error(
        "odd(12): x.cu", "gaussian",
        "#include \"filterview.h\"\n"
        "__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)\n"
        "{ int x = 1 }\n",
        3, "error: expected a \";\"");
    expect_error("signature.cu", "gaussian",
                 "#include \"filterview.h\"\n"
                 "// fv_pass(float) in a comment is not the definition\n"
                 "\n"
                 "__global__ void fv_pass(const fv_image src, const fv_image dst, float sigma)\n"
                 "{\n"
                 "}\n",
                 4, "fv_pass has the wrong parameters");
    expect_error("signature_c.cu", "median",
                 "#include \"filterview.h\"\n"
                 "extern \"C\" __global__ void fv_pass(const fv_image src, int size)\n"
                 "{\n"
                 "}\n",
                 2, "error:");
    expect_error(
        "half.cu", "gaussian",
        "#include \"filterview.h\"\n\n"
        "__global__ void fv_pass1(const fv_image src, const fv_scratch s, const fv_params p)\n"
        "{\n}\n",
        3, "but not fv_pass2");
    expect_error(
        "undefined.cu", "box",
        "#include \"filterview.h\"\n"
        "__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)\n"
        "{\n"
        "    fv_row_out(dst, 0)[0] = make_uchar4(p.sigma, 0, 0, 0);\n"
        "}\n",
        4, "has no member \"sigma\"");

    /* a bad architecture and a missing file: one message each, no line to give */
    fv_user_options o = {.arch = "sm_1", .no_cache = 1};
    char path[512];
    fv_user_build *b = NULL;
    snprintf(path, sizeof path, "%s/gaussian_naive.cu", examples_dir);
    test_check(&t,
               fv_user_compile(fv_filter_find("gaussian"), path, &o, &b, NULL) == FV_ERR_ARG &&
                   strstr(fv_last_error(), "sm_1"),
               "a bad architecture is refused:", fv_last_error());
    temp_path(path, sizeof path, "no_such_file.cu");
    test_check(&t,
               fv_user_compile(fv_filter_find("gaussian"), path, &no_cache, &b, NULL) ==
                       FV_ERR_IO &&
                   strstr(fv_last_error(), "no_such_file.cu: cannot read"),
               "a missing file is reported:", fv_last_error());
    o.arch = "sm_90";
    snprintf(path, sizeof path, "%s/gaussian_smem.cu", examples_dir);
    const fv_status st = fv_user_compile(fv_filter_find("gaussian"), path, &o, &b, NULL);
    test_check(&t, st == FV_OK && strcmp(b->arch, "sm_90") == 0,
               "a given architecture is used:", st == FV_OK ? b->arch : fv_last_error());
    fv_user_build_free(b);
}

static int cache_files(const char *dir, int *temps)
{
    int n = 0;
    *temps = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strstr(e->d_name, ".cubin")) n++;
        if (strncmp(e->d_name, ".tmp-", 5) == 0) (*temps)++;
    }
    if (d) closedir(d);
    return n;
}

static void test_cache(void)
{
    char xdg[512], dir[600], path[512];
    temp_path(xdg, sizeof xdg, "xdg_cache");
    setenv("XDG_CACHE_HOME", xdg, 1);
    fv_user_cache_dir(NULL, dir, sizeof dir);
    test_check(&t, strncmp(dir, xdg, strlen(xdg)) == 0 && strstr(dir, "/filterview"),
               "the cache lives in $XDG_CACHE_HOME/filterview:", dir);
    const fv_filter *f = fv_filter_find("box");
    const char *src = "#include \"filterview.h\"\n"
                      "__global__ void fv_pass(const fv_image src, const fv_image dst, "
                      "const fv_params p)\n"
                      "{ fv_row_out(dst, 0)[0] = fv_row(src, 0)[p.radius]; }\n";
    fv_user_build *a = NULL, *b = NULL;
    fv_status st = compile_text(f, "cached.cu", src, NULL, &a, NULL, path, sizeof path);
    test_check(&t, st == FV_OK && !a->from_cache, "first compile runs NVRTC", fv_last_error());
    int temps = 0;
    test_check(&t, cache_files(dir, &temps) == 1 && temps == 0,
               "it leaves one cubin in the cache and no temporary file", dir);
    st = fv_user_compile(f, path, NULL, &b, NULL);
    test_check(&t, st == FV_OK && b->from_cache,
               "second compile of the same source reads the cache", fv_last_error());
    if (a && b)
        test_check(&t,
                   a->code_size == b->code_size && memcmp(a->code, b->code, a->code_size) == 0 &&
                       strcmp(a->cache_key, b->cache_key) == 0,
                   "the cached code is the compiled code", NULL);
    fv_user_build_free(b);
    b = NULL;

    /* a changed option misses */
    const char *extra[] = {"-DFV_TEST_OPTION=1", NULL};
    fv_user_options o = {.extra = extra};
    st = fv_user_compile(f, path, &o, &b, NULL);
    test_check(&t, st == FV_OK && !b->from_cache && strcmp(a->cache_key, b->cache_key) != 0,
               "a changed option misses the cache", fv_last_error());
    fv_user_build_free(b);
    b = NULL;
    /* a changed source misses; the same for another filter's contract */
    char changed[512];
    snprintf(changed, sizeof changed, "%s// saved again\n", src);
    st = compile_text(f, "cached.cu", changed, NULL, &b, NULL, path, sizeof path);
    test_check(&t, st == FV_OK && !b->from_cache, "a changed source misses the cache",
               fv_last_error());
    fv_user_build_free(b);
    b = NULL;
    st = compile_text(fv_filter_find("median"), "cached_median.cu",
                      "#include \"filterview.h\"\n"
                      "__global__ void fv_pass(const fv_image src, const fv_image dst, "
                      "const fv_params p)\n"
                      "{ fv_row_out(dst, 0)[0] = fv_row(src, 0)[p.size]; }\n",
                      NULL, &b, NULL, path, sizeof path);
    test_check(&t, st == FV_OK && !b->from_cache, "another filter's contract misses the cache",
               fv_last_error());
    fv_user_build_free(b);
    b = NULL;
    /* no_cache: neither read nor written */
    const int before = cache_files(dir, &temps);
    temp_path(path, sizeof path, "cached.cu");
    st = fv_user_compile(f, path, &no_cache, &b, NULL);
    test_check(&t, st == FV_OK && !b->from_cache && cache_files(dir, &temps) == before,
               "no_cache neither reads nor writes", fv_last_error());
    fv_user_build_free(b);
    fv_user_build_free(a);
}

static void test_mtime(void)
{
    char path[512];
    fv_user_build *b = NULL;
    const char *src = "#include \"filterview.h\"\n"
                      "__global__ void fv_pass(const fv_image src, const fv_image dst, "
                      "const fv_params p) {}\n";
    const fv_status st = compile_text(fv_filter_find("invert"), "watched.cu", src, NULL, &b, NULL,
                                      path, sizeof path);
    test_check(&t, st == FV_OK, "a kernel for invert compiles", fv_last_error());
    if (st != FV_OK) return;
    test_check(&t, !fv_user_source_changed(b), "an untouched file has not changed", path);
    struct timespec times[2] = {{.tv_sec = 1000000000, .tv_nsec = 5},
                                {.tv_sec = 1000000000, .tv_nsec = 5}};
    utimensat(AT_FDCWD, path, times, 0);
    test_check(&t, fv_user_source_changed(b), "a new modification time is a change", path);
    unlink(path);
    test_check(&t, fv_user_source_changed(b), "a deleted file is a change", path);
    fv_user_build_free(b);
}

static void test_params_pack(void)
{
    const fv_filter *f = fv_filter_find("gaussian");
    fv_params p = fv_params_default(f);
    p.value[0] = 2.0; /* sigma 2, radius 0 = auto: ceil(3 sigma) = 6 */
    p.value[1] = 0;
    /* one word per parameter (sigma, radius, border, cval), then taps and taps_pad */
    const size_t size = fv_user_params_size(f), taps_at = 4 * (size_t)f->n_params;
    test_check(&t, f->n_params == 4 && size == taps_at + 4 * (65 + 67),
               "gaussian's parameter struct is 544 bytes", NULL);
    unsigned char buf[1024];
    test_check(&t, fv_user_params_pack(f, &p, buf, sizeof buf) == FV_OK, "packs", fv_last_error());
    float sigma;
    int radius, taps[65], sum = 0, ok = 1;
    float pad[67];
    memcpy(&sigma, buf, 4);
    memcpy(&radius, buf + 4, 4);
    memcpy(taps, buf + taps_at, sizeof taps);
    memcpy(pad, buf + taps_at + sizeof taps, sizeof pad);
    for (int k = 0; k < 65; k++) {
        sum += taps[k];
        ok &= pad[k + 1] == (float)taps[k] && (k <= 2 * radius || taps[k] == 0);
        ok &= taps[k] == taps[2 * radius - k < 0 ? k : 2 * radius - k] || k > 2 * radius;
    }
    test_check(&t, sigma == 2.0f && radius == 6, "sigma as given, the radius resolved", NULL);
    test_check(&t, sum == 256 && ok && pad[0] == 0 && pad[2 * radius + 2] == 0,
               "taps sum to 256, symmetric, and taps_pad is taps with a zero each side", NULL);
    test_check(&t, fv_user_params_pack(f, &p, buf, 16) == FV_ERR_ARG,
               "a buffer too small is refused", NULL);
}

/* the compile path on two threads at once: no shared state */
/* A FIFO found by NVRTC's include search would block its open() for ever: one in an -I folder
 * is refused with the including line, and a regular header beside it still compiles. alarm()
 * turns a hang into a failure. */
static void test_include_fifo(void)
{
    char dir[512], fifo[600], opt[600], path[512];
    temp_path(dir, sizeof dir, "inc");
    snprintf(fifo, sizeof fifo, "%s/blocks.h", dir);
    snprintf(opt, sizeof opt, "-I%s", dir);
    if (mkdir(dir, 0755) != 0 || mkfifo(fifo, 0600) != 0) {
        test_check(&t, 0, "mkfifo in", dir);
        return;
    }
    const char *extra[] = {opt, NULL};
    const fv_user_options o = {.no_cache = 1, .extra = extra};
    static const char src[] =
        "#include \"filterview.h\"\n"
        "#include <blocks.h>\n"
        "__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p) {}\n";
    fv_user_build *b = NULL;
    fv_user_diag d;
    alarm(60);
    fv_status st =
        compile_text(fv_filter_find("box"), "inc_fifo.cu", src, &o, &b, &d, path, sizeof path);
    test_check(&t,
               st != FV_OK && d.line == 2 &&
                   strstr(fv_last_error(), "#include <blocks.h>: not a regular file (a FIFO)"),
               "a FIFO in an -I folder is refused by its #include line:", fv_last_error());
    fv_user_build_free(b);
    b = NULL;
    unlink(fifo);
    char header[600];
    snprintf(header, sizeof header, "%s/blocks.h", dir);
    write_file(header, "#define FV_TEST_HEADER 1\n");
    st = compile_text(fv_filter_find("box"), "inc_fifo.cu", src, &o, &b, &d, path, sizeof path);
    alarm(0);
    test_check(&t, st == FV_OK, "a regular header in the -I folder compiles:", fv_last_error());
    fv_user_build_free(b);
}

static void *compile_thread(void *arg)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", examples_dir, (const char *)arg);
    fv_user_build *b = NULL;
    const fv_status st = fv_user_compile(fv_filter_find("gaussian"), path, &no_cache, &b, NULL);
    fv_user_build_free(b);
    return (void *)(intptr_t)(st == FV_OK);
}

static void test_threads(void)
{
    pthread_t a, b;
    void *ra = NULL, *rb = NULL;
    pthread_create(&a, NULL, compile_thread, (void *)"gaussian_naive.cu");
    pthread_create(&b, NULL, compile_thread, (void *)"gaussian_separable.cu");
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    test_check(&t, ra && rb, "two threads compile at once", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        printf("usage: test_user_compile EXAMPLES_DIR TEMP_DIR\n");
        return 2;
    }
    examples_dir = argv[1];
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/user_compile_XXXXXX", argv[2]);
    temp_dir = mkdtemp(tmp);
    if (!temp_dir) {
        printf("cannot make a temporary folder in %s\n", argv[2]);
        return 1;
    }
    setenv("XDG_CACHE_HOME", temp_dir, 1); /* never the user's own cache */
    test_contracts();
    test_examples();
    test_errors();
    test_cache();
    test_mtime();
    test_params_pack();
    test_threads();
    test_include_fifo();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", temp_dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", temp_dir);
    return test_finish(&t);
}

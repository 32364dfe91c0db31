/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_memcheck.c: memcheck's reports in the user's terms (kernels/user/user_memcheck.c),
 * without a GPU. Each report in tests/cpu/memcheck/ was captured from compute-sanitizer 2025.3.1
 * (CUDA 13) on an H200, running a kernel with that file's bug; each must give its one line (file,
 * line, the access, the thread and block), a clean or cut-short report none. The sanitizer is
 * found on PATH, then in $CUDA_HOME/bin.
 * Usage: test_memcheck REPORTS_DIR TEMP_DIR
 * ------------------------------------------------------------------------------------------------ */
#define _GNU_SOURCE /* setenv */
#include "test_util.h"
#include "user/user_kernel.h"

#include <sys/stat.h>
#include <unistd.h>

static test_counts t;

static char *read_text(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    char *text = malloc(1 << 16);
    const size_t n = f && text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    if (f) fclose(f);
    if (!n) {
        printf("cannot read %s\n", path);
        exit(1);
    }
    text[n] = 0;
    return text;
}

/* the report in file `name` gives exactly `want` ("" : no finding) */
static void expect(const char *dir, const char *name, const char *file, const char *want)
{
    char *report = read_text(dir, name);
    char got[512] = "";
    const int found = fv_memcheck_finding(report, file, got, sizeof got);
    char detail[1200];
    snprintf(detail, sizeof detail, "%s: got %d '%s', want '%s'", name, found, got, want);
    test_check(&t, found == (want[0] != 0) && (!found || !strcmp(got, want)), "finding", detail);
    free(report);
}

static void make_executable(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs("#!/bin/sh\nexit 0\n", f) < 0 || fclose(f) != 0 || chmod(path, 0755) != 0) {
        printf("cannot write %s\n", path);
        exit(1);
    }
}

static void test_find(const char *temp)
{
    char on_path[1024], home[1024], bin[1100], exe[1200], got[1200];
    snprintf(on_path, sizeof on_path, "%s/memcheck_path", temp);
    snprintf(home, sizeof home, "%s/memcheck_cuda", temp);
    snprintf(bin, sizeof bin, "%s/bin", home);
    mkdir(on_path, 0755);
    mkdir(home, 0755);
    mkdir(bin, 0755);
    snprintf(exe, sizeof exe, "%s/compute-sanitizer", on_path);
    make_executable(exe);
    setenv("PATH", on_path, 1);
    setenv("CUDA_HOME", "/nonexistent", 1);
    test_check(&t, fv_memcheck_find(got, sizeof got) == FV_OK && !strcmp(got, exe),
               "compute-sanitizer found on PATH:", got);
    snprintf(exe, sizeof exe, "%s/compute-sanitizer", bin);
    make_executable(exe);
    setenv("PATH", "/nonexistent", 1);
    setenv("CUDA_HOME", home, 1);
    test_check(&t, fv_memcheck_find(got, sizeof got) == FV_OK && !strcmp(got, exe),
               "compute-sanitizer found in $CUDA_HOME/bin:", got);
    /* absent: only where the toolkit's default place has none either */
    setenv("CUDA_HOME", "/nonexistent", 1);
    if (access("/usr/local/cuda/bin/compute-sanitizer", X_OK) != 0)
        test_check(&t,
                   fv_memcheck_find(got, sizeof got) == FV_ERR_UNSUPPORTED &&
                       strstr(fv_last_error(), "no compute-sanitizer (looked on PATH"),
                   "no compute-sanitizer said:", fv_last_error());
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        printf("usage: test_memcheck REPORTS_DIR TEMP_DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    expect(dir, "global_write_out_of_bounds.txt", "k.cu",
           "k.cu:9: writes 4 bytes out of bounds (thread (0,2,0) in block (8,0,0))");
    expect(dir, "global_write_misaligned.txt", "k.cu",
           "k.cu:10: writes 4 bytes at a misaligned address (thread (0,0,0) in block (8,0,0))");
    expect(dir, "global_read_out_of_bounds.txt", "k.cu",
           "k.cu:12: reads 1 byte out of bounds (thread (0,2,0) in block (8,0,0))");
    expect(dir, "shared_write_out_of_bounds.txt", "k.cu",
           "k.cu:8: writes 4 bytes of shared memory out of bounds (thread (8,0,0) in block "
           "(8,0,0))");
    /* an extern "C" kernel loaded from a cubin (cudaLibraryLoadData), as a user kernel is */
    expect(dir, "loaded_cubin_out_of_bounds.txt", "k.cu",
           "k.cu:6: writes 4 bytes out of bounds (thread (0,2,0) in block (8,0,0))");
    /* built without line information: the kernel's file and function instead */
    expect(dir, "no_line_info.txt", "/home/me/blur.cu",
           "/home/me/blur.cu: in fv_pass: writes 4 bytes out of bounds (thread (0,2,0) in block "
           "(8,0,0))");
    expect(dir, "clean.txt", "k.cu", "");
    expect(dir, "killed.txt", "k.cu", ""); /* stopped past the time limit: nothing to report */
    /* the sanitizer's own trouble is no finding in the kernel */
    expect(dir, "target_missing.txt", "k.cu", "");

    /* the older wording ("Address ... is out of bounds"), a path with spaces, the program's own
     * output between memcheck's lines, and an error of another kind in memcheck's own words */
    char got[512];
    const char *older = "========= CUDA-MEMCHECK\n"
                        "========= Invalid __global__ read of size 16 bytes\n"
                        "=========     at fv_pass+0x150 in /my dir/kernel.cu:31\n"
                        "the program printed this\n"
                        "=========     by thread (31,0,0) in block (0,4,0)\n"
                        "=========     Address 0x7f00 is out of bounds\n";
    test_check(&t,
               fv_memcheck_finding(older, "kernel.cu", got, sizeof got) &&
                   !strcmp(got, "/my dir/kernel.cu:31: reads 16 bytes out of bounds "
                                "(thread (31,0,0) in block (0,4,0))"),
               "older report:", got);
    const char *other = "========= COMPUTE-SANITIZER\n"
                        "========= Warp Illegal Instruction\n"
                        "=========     at fv_pass(fv_image, fv_image, fv_params)+0x90 in k.cu:7\n"
                        "=========     by thread (0,0,0) in block (0,0,0)\n"
                        "========= \n"
                        "========= ERROR SUMMARY: 1 error\n";
    test_check(
        &t,
        fv_memcheck_finding(other, "k.cu", got, sizeof got) &&
            !strcmp(got, "k.cu:7: Warp Illegal Instruction (thread (0,0,0) in block (0,0,0))"),
        "another kind of error:", got);
    test_check(&t, !fv_memcheck_finding("", "k.cu", got, sizeof got), "empty report", NULL);
    test_check(&t,
               !fv_memcheck_finding("========= Error: No attachable process found.\n", "k.cu", got,
                                    sizeof got),
               "the sanitizer's own error is no finding:", got);
    test_find(argv[2]);
    return test_finish(&t);
}

/* ------------------------------------------------------------------------------------------------
 * kernels/api/api_graph.c: a batch group's filter runs as one CUDA graph (api_graph.h). The runs
 * are captured on a stream of the context's own (cudaStreamCaptureModeThreadLocal: the caller's
 * stream may be the legacy default one, which cannot be captured, and the batch's copying thread
 * goes on meanwhile) and the graph is launched on the caller's stream, so it is ordered there as the
 * direct launches were. The same kernels with the same arguments run: the results are the direct
 * path's bit for bit (tests/library/test_library.c and tests/python/test_batch_reach.py compare
 * both paths). In a build without CUDA the calls are cuda_none.h's and nothing reaches them.
 * ------------------------------------------------------------------------------------------------ */
#include "api_graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Graphs a context keeps: a host batch uses two slots, each with a full group and a last,
 * shorter one; the rest serves device stacks and batches of other sizes. */
#define KEPT_GRAPHS 8

typedef struct kept_graph {
    fv_api_graph_key key;
    cudaGraphExec_t exec;    /* NULL: an empty place */
    unsigned long long used; /* when it was last launched: the least recent is replaced */
} kept_graph;

struct fv_api_graphs {
    cudaStream_t capture;
    kept_graph kept[KEPT_GRAPHS];
    unsigned long long clock, made;
    int verbose;    /* FILTERVIEW_BATCH_GRAPHS=verbose */
    char label[96]; /* "gaussian/fast": whose graphs, in what verbose says */
    char off[320];  /* why graphs are off, "" while they are on */
};

/* Graphs off for good, with the reason, said once when verbose. */
static void graphs_off(fv_api_graphs *g, const char *fmt, ...)
{
    if (g->off[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->off, sizeof g->off, fmt, ap);
    va_end(ap);
    if (g->verbose)
        fprintf(stderr, "filterview: %s: batch graphs off, direct launches: %s\n", g->label,
                g->off);
}

fv_status fv_api_graphs_make(fv_api_graphs **out, const char *label, const char *refused)
{
    fv_api_graphs *g = calloc(1, sizeof *g);
    *out = g;
    if (!g) return fv_fail(FV_ERR_MEMORY, "out of host memory for a batch");
    snprintf(g->label, sizeof g->label, "%s", label);
    const char *asked = getenv("FILTERVIEW_BATCH_GRAPHS");
    g->verbose = asked && strcmp(asked, "verbose") == 0;
    if (asked && strcmp(asked, "0") == 0) {
        graphs_off(g, "FILTERVIEW_BATCH_GRAPHS=0");
    } else if (refused) {
        graphs_off(g, "%s", refused);
    } else if (cudaStreamCreateWithFlags(&g->capture, cudaStreamNonBlocking) != cudaSuccess) {
        g->capture = NULL;
        graphs_off(g, "no stream to capture on: %s", cudaGetErrorString(cudaGetLastError()));
    }
    return FV_OK;
}

void fv_api_graphs_free(fv_api_graphs *g)
{
    if (!g) return;
    for (int k = 0; k < KEPT_GRAPHS; k++)
        if (g->kept[k].exec) (void)cudaGraphExecDestroy(g->kept[k].exec);
    if (g->capture) (void)cudaStreamDestroy(g->capture);
    (void)cudaGetLastError();
    free(g);
}

unsigned long long fv_api_graphs_made(const fv_api_graphs *g)
{
    return g ? g->made : 0;
}

const char *fv_api_graphs_off(const fv_api_graphs *g)
{
    return g ? g->off : "";
}

static int same_key(const fv_api_graph_key *a, const fv_api_graph_key *b)
{
    return a->slot == b->slot && a->count == b->count && a->width == b->width &&
           a->height == b->height && a->prepared == b->prepared && a->fixed == b->fixed;
}

/* The kept graph of `key`, or NULL */
static kept_graph *kept_find(fv_api_graphs *g, const fv_api_graph_key *key)
{
    for (int k = 0; k < KEPT_GRAPHS; k++)
        if (g->kept[k].exec && same_key(&g->kept[k].key, key)) return &g->kept[k];
    return NULL;
}

/* Where a new key's graph goes: an empty place, else the least recently launched */
static kept_graph *kept_place(fv_api_graphs *g)
{
    kept_graph *oldest = &g->kept[0];
    for (int k = 0; k < KEPT_GRAPHS; k++) {
        if (!g->kept[k].exec) return &g->kept[k];
        if (g->kept[k].used < oldest->used) oldest = &g->kept[k];
    }
    return oldest;
}

/* The group's runs captured into *graph; NULL, and why in `why`, when they cannot be. */
static void capture(fv_api_graphs *g, fv_api_group_fn enqueue, void *group, cudaGraph_t *graph,
                    char *why, size_t why_size)
{
    *graph = NULL;
    cudaError_t err = cudaStreamBeginCapture(g->capture, cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_size, "cannot capture: %s", cudaGetErrorString(err));
        return;
    }
    const fv_status st = enqueue(group, g->capture);
    /* the run's message, before anything else sets one */
    if (st != FV_OK) snprintf(why, why_size, "a run cannot be captured: %s", fv_last_error());
    /* ended whatever happened, or the stream stays capturing */
    err = cudaStreamEndCapture(g->capture, graph);
    (void)cudaGetLastError();
    if (st == FV_OK && err == cudaSuccess && *graph) return;
    if (*graph) (void)cudaGraphDestroy(*graph);
    *graph = NULL;
    if (st == FV_OK)
        snprintf(why, why_size, "a run cannot be captured: %s", cudaGetErrorString(err));
}

/* `graph` into place k: the kept executable graph updated where CUDA takes the update (the same
 * launches, other arguments), made anew otherwise. 0 and graphs off on failure. */
static int install(fv_api_graphs *g, kept_graph *k, cudaGraph_t graph, const char **how)
{
    if (k->exec) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(k->exec, graph, &info) == cudaSuccess) {
            *how = "updated";
            return 1;
        }
        (void)cudaGetLastError(); /* refused: another shape of graph */
        (void)cudaGraphExecDestroy(k->exec);
        k->exec = NULL;
    }
    const cudaError_t err = cudaGraphInstantiate(&k->exec, graph, 0);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        k->exec = NULL;
        graphs_off(g, "cannot instantiate a graph: %s", cudaGetErrorString(err));
        return 0;
    }
    g->made++;
    *how = "made";
    return 1;
}

fv_status fv_api_graph_run(fv_api_graphs *g, const fv_api_graph_key *key, fv_api_group_fn enqueue,
                           void *group, cudaStream_t stream)
{
    if (!g || g->off[0]) return enqueue(group, stream);
    kept_graph *k = kept_find(g, key);
    if (!k || !key->fixed) {
        cudaGraph_t graph;
        char why[320];
        capture(g, enqueue, group, &graph, why, sizeof why);
        if (!graph) {
            /* a run that synchronises or allocates is refused while capturing: it runs directly,
             * and so do the context's later groups; a run that fails directly too failed for a
             * reason of its own (the device's), which is the caller's answer */
            const fv_status st = enqueue(group, stream);
            if (st == FV_OK) graphs_off(g, "%s", why);
            return st;
        }
        if (!k) k = kept_place(g);
        const char *how = "";
        const int installed = install(g, k, graph, &how);
        (void)cudaGraphDestroy(graph); /* the executable graph is a copy */
        if (!installed) return enqueue(group, stream);
        k->key = *key;
        if (g->verbose)
            fprintf(stderr, "filterview: %s: batch graph %s: %d images of %dx%d (buffers %d)\n",
                    g->label, how, key->count, key->width, key->height, key->slot);
    }
    k->used = ++g->clock;
    const cudaError_t err = cudaGraphLaunch(k->exec, stream);
    if (err == cudaSuccess) return FV_OK;
    (void)cudaGetLastError();
    graphs_off(g, "cannot launch a graph: %s", cudaGetErrorString(err));
    return enqueue(group, stream); /* a fault of the device's own fails here too, and says so */
}

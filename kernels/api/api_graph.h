/* ------------------------------------------------------------------------------------------------
 * kernels/api/api_graph.h: a batch group's filter runs (a few kernel launches per image) recorded
 * once as a CUDA graph and replayed with one launch (api_graph.c). A group that runs on the
 * context's own buffers has fixed addresses: its graph, kept under its key, is launched again as it
 * is by every later group with that key. A group on the caller's buffers is captured again each
 * time and the kept graph updated in place (cudaGraphExecUpdate), instantiated anew only when the
 * update is refused. Whatever cannot be captured (a run that synchronises or allocates) or any
 * graph call that fails turns graphs off for the context: its groups then run directly, as before.
 * A variant whose code is not documented as safe to capture (fv_variant.uncapturable: NPP's
 * peers) and FILTERVIEW_BATCH_GRAPHS=0 turn them off from the start; =verbose says on stderr
 * each graph made or updated and why graphs went off.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_API_GRAPH_H
#define FV_API_GRAPH_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a group's graph was captured for: equal keys with `fixed` set launch the same work. */
typedef struct fv_api_graph_key {
    int slot;          /* whose buffers: a batch slot (0, 1), the caller's (-1) */
    int count;         /* images in the group */
    int width, height; /* the images' size */
    unsigned prepared; /* the runner's preparation it was captured with (its state's addresses) */
    int fixed;         /* 1: the addresses are the context's own, the same every time */
} fv_api_graph_key;

typedef struct fv_api_graphs fv_api_graphs;

/* Enqueues a group's runs on `stream` (the capture stream, or the caller's when run directly). */
typedef fv_status (*fv_api_group_fn)(void *group, cudaStream_t stream);

/* The graphs of a context's batches: made with its first batch, on the current device. `label`
 * ("gaussian/fast") names the context in what verbose says; `refused` is why its variant's runs
 * must not be captured (fv_variant.uncapturable: graphs off from the start), NULL where they may. */
fv_status fv_api_graphs_make(fv_api_graphs **out, const char *label, const char *refused);
/* Frees the graphs and the capture stream (after the work that launched them is done). */
void fv_api_graphs_free(fv_api_graphs *g);
/* Runs `enqueue(group, ...)`'s work on `stream`: as the graph kept for `key` when graphs are on,
 * directly otherwise. A failure of the graph path is not the caller's: it turns graphs off and
 * runs the group directly, whose failure alone is returned. */
fv_status fv_api_graph_run(fv_api_graphs *g, const fv_api_graph_key *key, fv_api_group_fn enqueue,
                           void *group, cudaStream_t stream);
/* Graphs made (instantiated) so far, and the reason they are off ("" while they are on). */
unsigned long long fv_api_graphs_made(const fv_api_graphs *g);
const char *fv_api_graphs_off(const fv_api_graphs *g);

#ifdef __cplusplus
}
#endif
#endif

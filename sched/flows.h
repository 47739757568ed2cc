/* flows: a traffic matrix's rows -- messages by (sender, receiver, size) --
 * aggregated one way for every producer (scitrace matrix from a trace,
 * scisim's placement from a schedule). */
#ifndef SCITORUS_FLOWS_H
#define SCITORUS_FLOWS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sched_flow {
    int src, dst;
    uint64_t size_bytes, messages;
} sched_flow;

/* Sorts rows[0..*n) by src, dst, size and sums the messages of equal keys
 * into one row; *n becomes the number of distinct keys. */
void sched_flows_merge(sched_flow *rows, size_t *n);

#endif

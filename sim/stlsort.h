/* stlsort: the free operations of a rank put in the order LogGOPSim gives
 * them.  It sorts them by kind with std::sort, which is not stable above
 * 16 elements, and the order decides who goes first at equal times; so
 * this is libstdc++'s introsort step for step (GCC's bits/stl_algo.h). */
#ifndef SCITORUS_STLSORT_H
#define SCITORUS_STLSORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts ids[0..n) by key[ids[i]] ascending exactly as std::sort with
 * comparator key[a] < key[b] would. */
void stl_sort_by_key(uint32_t *ids, size_t n, const uint8_t *key, size_t key_stride);

#endif

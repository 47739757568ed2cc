/* grow: room for one more element of a heap array, by doubling -- the one
 * place the project's growing arrays (rows, events, requests, samples)
 * check the size's overflow and keep the old array when memory runs out. */
#ifndef SCITORUS_GROW_H
#define SCITORUS_GROW_H

#include <stddef.h>

/* When count has reached cap (a size_t), reallocates arr (any T *) to
 * twice cap, or to first elements when empty, and updates cap.  Evaluates
 * to 0, or -1 out of memory or past SIZE_MAX bytes (arr and cap kept). */
#define UTIL_GROW(arr, count, cap, first)                                                    \
    ((size_t)(count) < (cap) ? 0 : util_grow_(&(arr), &(cap), sizeof *(arr), (first)))

int util_grow_(void *arrp, size_t *cap, size_t elem, size_t first);

#endif
